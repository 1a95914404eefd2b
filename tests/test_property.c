/*
 * tests/test_property.c - properties over many random traces and clusters.
 *
 * For every policy and placement, with --check on (the engine's invariants
 * after every instant: no GPU over-allocated, one state per job, work never
 * negative, time monotone, the policy's queue = the queued jobs):
 *   - every job either finishes exactly once or is rejected, and is
 *     rejected only when it can never fit the empty cluster;
 *   - the GPU work done (integral of GPUs x rate) equals the work the
 *     trace asks for, plus exactly the preemption costs: so all policies do
 *     the same total work;
 *   - non-preemptive policies never preempt, and a job runs for exactly
 *     its duration divided by its GPU type's speed;
 *   - times are ordered: submit <= start <= finish, wait <= jct;
 *   - the same inputs give the same schedule.
 */
#include "randwork.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

static const char *const policies[] = {
    "fifo", "fifo:backfill=1", "sjf", "sjf:backfill=0", "srtf",
    "srtf:backfill=0", "srtf:preempt_cost=7", "fifo:placement=pool",
    "sjf:placement=pool", "srtf:placement=pool,preempt_cost=3",
};

Test(property, random_workloads, .timeout = 600)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 2026);
    for (int round = 0; round < 60; round++) {
        struct cluster c;
        struct trace t;
        tu_random_cluster(&c, r);
        tu_random_trace(&t, &c, r, 150 + gsl_rng_uniform_int(r, 250),
                        (struct tu_rand_fields){ .util = 0.3 });
        for (size_t p = 0; p < sizeof policies / sizeof *policies; p++) {
            const char *pol = policies[p];
            bool pool = strstr(pol, "pool") != NULL;
            bool preemptive = !strncmp(pol, "srtf", 4);
            struct eng *e = tu_run(&t, &c, pol);
            double want = 0, cost = 0;
            const char *pc = strstr(pol, "preempt_cost=");
            double cost_s = pc ? atof(pc + 13) : 0;
            for (uint32_t j = 0; j < t.njobs; j++) {
                const struct trc_job *tj = &t.jobs[j];
                const struct job_rt *rt = &e->rt[j];
                uint32_t req = tj->gpu_type ? clu_type_find(&c, tj->gpu_type) : SIM_NONE;
                bool fits = (!tj->gpu_type || req != SIM_NONE) &&
                            plc_ever_fits(&c, tj->num_gpus, req,
                                          pool ? PLC_POOL : PLC_CONSOLIDATED);
                cr_assert_eq(rt->state, fits ? JOB_DONE : JOB_REJECTED,
                             "round %d %s job %s state %d", round, pol, tj->id,
                             rt->state);
                if (!fits)
                    continue;
                want += (double)tj->num_gpus * (double)tj->duration;
                cost += (double)tj->num_gpus * rt->preemptions * cost_s * 1e6;
                cr_assert_leq(tj->submit, rt->first_start);
                cr_assert_lt(rt->first_start, rt->finish);
                cr_assert_leq(rt->wait, rt->finish - tj->submit);
                if (!preemptive) {
                    cr_assert_eq(rt->preemptions, 0);
                    double speed = c.types[rt->type].speed;
                    simtime_t run = (simtime_t)ceil((double)tj->duration / speed - 1e-9);
                    cr_assert_eq(rt->finish - rt->first_start, run,
                                 "round %d %s job %s ran %lld, expected %lld", round,
                                 pol, tj->id, (long long)(rt->finish - rt->first_start),
                                 (long long)run);
                    cr_assert_eq(rt->wait, rt->first_start - tj->submit);
                }
            }
            /* total GPU work: ceil() to whole microseconds adds < 1 us of
             * work per GPU per run segment */
            double slack = 1e-9 * want + 4.0 * t.njobs * 16 * (1 + e->preemptions);
            cr_assert(fabs(e->work_done - (want + cost)) <= slack,
                      "round %d %s: GPU work %.0f, expected %.0f", round, pol,
                      e->work_done, want + cost);
            /* determinism: the same run again gives the same schedule */
            struct eng *e2 = tu_run(&t, &c, pol);
            for (uint32_t j = 0; j < t.njobs; j++) {
                cr_assert_eq(e->rt[j].first_start, e2->rt[j].first_start);
                cr_assert_eq(e->rt[j].finish, e2->rt[j].finish);
            }
            eng_free(e2);
            eng_free(e);
        }
        trc_free(&t);
        clu_free(&c);
    }
    gsl_rng_free(r);
}
