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
#include "testutil.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

static void random_cluster(struct cluster *c, gsl_rng *r)
{
    static const char *names[] = { "A", "B", "C" };
    static const double speeds[] = { 1.0, 0.5, 2.0, 0.35 };
    static const uint32_t sizes[] = { 1, 2, 4, 8 };
    clu_init(c, "random");
    uint32_t nt = 1 + gsl_rng_uniform_int(r, 3);
    for (uint32_t t = 0; t < nt; t++)
        clu_add_type(c, names[t], 16, speeds[gsl_rng_uniform_int(r, 4)]);
    uint32_t ng = 1 + gsl_rng_uniform_int(r, 4);
    for (uint32_t g = 0; g < ng; g++)
        clu_add_nodes(c, 1 + gsl_rng_uniform_int(r, 4), sizes[gsl_rng_uniform_int(r, 4)],
                      gsl_rng_uniform_int(r, nt), g % 2 ? "r1" : "r0");
    clu_finish(c);
}

static void random_trace(struct trace *t, const struct cluster *c, gsl_rng *r,
                         uint32_t n)
{
    static const uint32_t gpus[] = { 1, 1, 1, 2, 3, 4, 8, 16 };
    trc_init(t, "random", n);
    double now = 0, gap = 1 + gsl_rng_uniform(r) * 200;
    for (uint32_t j = 0; j < n; j++) {
        struct trc_job *tj = &t->jobs[j];
        char id[16];
        snprintf(id, sizeof id, "r%u", j);
        tj->id = arena_strndup(t->arena, id, strlen(id));
        /* bursts of simultaneous arrivals exercise the tie-breaks */
        if (gsl_rng_uniform(r) > 0.2)
            now += gsl_ran_exponential(r, gap);
        tj->submit = (simtime_t)llround(now * 1e6);
        tj->num_gpus = gpus[gsl_rng_uniform_int(r, 8)];
        tj->duration = 1 + (simtime_t)llround(gsl_ran_lognormal(r, 4, 1.5) * 1e6);
        if (gsl_rng_uniform(r) < 0.15) {
            uint32_t ty = gsl_rng_uniform_int(r, c->ntypes + 1);
            tj->gpu_type = ty < c->ntypes ? c->types[ty].name : "NOPE";
        }
        if (gsl_rng_uniform(r) < 0.3)
            tj->util = (float)gsl_rng_uniform(r);
        tj->line = j + 2;
    }
}

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
        random_cluster(&c, r);
        random_trace(&t, &c, r, 150 + gsl_rng_uniform_int(r, 250));
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
