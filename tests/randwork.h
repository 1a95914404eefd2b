/*
 * tests/randwork.h - random clusters and traces for the property tests of
 * the policies (header-only, like testutil.h).  Everything is drawn from
 * the caller's GSL generator, so a seed gives the same workloads.
 */
#ifndef DLSIM_RANDWORK_H
#define DLSIM_RANDWORK_H

#include "testutil.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

/* 1-3 GPU types of random speeds, 1-4 groups of 1-4 nodes of 1-8 GPUs,
 * alternately in racks r0 and r1. */
static inline void tu_random_cluster(struct cluster *c, gsl_rng *r)
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

/* Share of jobs given each optional field (0: the field is never drawn). */
struct tu_rand_fields {
    double util, mem, deadline;
};

/* n jobs: exponential gaps with bursts of simultaneous arrivals (they
 * exercise the tie-breaks), GPU counts 1-16, lognormal durations, 15 %
 * pinned to a GPU type (some to one the cluster lacks: rejected). */
static inline void tu_random_trace(struct trace *t, const struct cluster *c,
                                   gsl_rng *r, uint32_t n,
                                   struct tu_rand_fields f)
{
    static const uint32_t gpus[] = { 1, 1, 1, 2, 3, 4, 8, 16 };
    trc_init(t, "random", n);
    double now = 0, gap = 1 + gsl_rng_uniform(r) * 200;
    for (uint32_t j = 0; j < n; j++) {
        struct trc_job *tj = &t->jobs[j];
        char id[16];
        snprintf(id, sizeof id, "r%u", j);
        tj->id = arena_strndup(t->arena, id, strlen(id));
        if (gsl_rng_uniform(r) > 0.2)
            now += gsl_ran_exponential(r, gap);
        tj->submit = (simtime_t)llround(now * 1e6);
        tj->num_gpus = gpus[gsl_rng_uniform_int(r, 8)];
        tj->duration = 1 + (simtime_t)llround(gsl_ran_lognormal(r, 4, 1.5) * 1e6);
        if (gsl_rng_uniform(r) < 0.15) {
            uint32_t ty = gsl_rng_uniform_int(r, c->ntypes + 1);
            tj->gpu_type = ty < c->ntypes ? c->types[ty].name : "NOPE";
        }
        if (f.util > 0 && gsl_rng_uniform(r) < f.util)
            tj->util = (float)gsl_rng_uniform(r);
        if (f.mem > 0 && gsl_rng_uniform(r) < f.mem)
            tj->mem_gb = (float)(1 + gsl_rng_uniform_int(r, 12));
        if (f.deadline > 0 && gsl_rng_uniform(r) < f.deadline)
            tj->deadline = tj->submit +
                           (simtime_t)(tj->duration * (1 + 4 * gsl_rng_uniform(r)));
        tj->line = j + 2;
    }
}

/* The metrics' own properties (SPEC 5): useful <= effective <= allocated
 * utilization, over the whole run and over the arrival window, with
 * useful = effective when no GPU was ever shared; no makespan below its
 * floor. */
static inline void tu_check_metrics(const struct eng *e, const char *pol,
                                    int round)
{
    struct met_summary m;
    met_summarize(e, &m);
    cr_assert_leq(m.util_useful, m.util_eff + 1e-12, "round %d %s: useful %.17g "
                  "> effective %.17g", round, pol, m.util_useful, m.util_eff);
    cr_assert_leq(m.util_eff, m.util_alloc + 1e-12, "round %d %s", round, pol);
    cr_assert_leq(m.util_alloc, 1 + 1e-12, "round %d %s", round, pol);
    if (!isnan(m.util_alloc_win)) {
        cr_assert_leq(m.util_useful_win, m.util_eff_win + 1e-12, "round %d %s",
                      round, pol);
        cr_assert_leq(m.util_eff_win, m.util_alloc_win + 1e-12, "round %d %s",
                      round, pol);
    }
    if (e->shared_gpu_us == 0)
        cr_assert_float_eq(m.util_useful, m.util_eff, 1e-9, "round %d %s: no "
                           "GPU shared, useful %.17g, effective %.17g", round,
                           pol, m.util_useful, m.util_eff);
    cr_assert_leq(m.makespan_floor, m.makespan, "round %d %s: makespan %lld "
                  "below its floor %lld", round, pol, (long long)m.makespan,
                  (long long)m.makespan_floor);
}

/* Runs pol over t on c and checks the run: every job done, or rejected
 * only when it can never fit; start after submit and before finish; a
 * non-preemptive policy preempts nothing, and with exact_runs each of its
 * jobs runs exactly duration / speed after waiting once; the GPU work done
 * is the trace's plus the preemption costs (preempt_cost= in pol); the
 * metrics keep their properties (tu_check_metrics); the same run again
 * gives the same schedule. */
static inline void tu_check_random_run(const struct trace *t, struct cluster *c,
                                       const char *pol, int round,
                                       bool preemptive, bool exact_runs)
{
    bool pool = strstr(pol, "pool") != NULL;
    struct eng *e = tu_run(t, c, pol);
    double want = 0, cost = 0;
    const char *pc = strstr(pol, "preempt_cost=");
    double cost_s = pc ? atof(pc + 13) : 0;
    for (uint32_t j = 0; j < t->njobs; j++) {
        const struct trc_job *tj = &t->jobs[j];
        const struct job_end *rt = &e->end[j];
        uint32_t req = tj->gpu_type ? clu_type_find(c, tj->gpu_type) : SIM_NONE;
        bool fits = (!tj->gpu_type || req != SIM_NONE) &&
                    plc_ever_fits(c, tj->num_gpus, req,
                                  pool ? PLC_POOL : PLC_CONSOLIDATED);
        cr_assert_eq(e->state[j], fits ? JOB_DONE : JOB_REJECTED,
                     "round %d %s job %s state %d", round, pol, tj->id,
                     e->state[j]);
        if (!fits)
            continue;
        want += (double)tj->num_gpus * (double)tj->duration;
        cost += (double)tj->num_gpus * rt->preemptions * cost_s * 1e6;
        cr_assert_leq(tj->submit, rt->first_start);
        cr_assert_lt(rt->first_start, rt->finish);
        cr_assert_leq(rt->wait, rt->finish - tj->submit);
        if (preemptive)
            continue;
        cr_assert_eq(rt->preemptions, 0);
        if (!exact_runs)
            continue;
        double speed = c->types[e->kept[j].type].speed;
        simtime_t run = (simtime_t)ceil((double)tj->duration / speed - 1e-9);
        cr_assert_eq(rt->finish - rt->first_start, run,
                     "round %d %s job %s ran %lld, expected %lld", round,
                     pol, tj->id, (long long)(rt->finish - rt->first_start),
                     (long long)run);
        cr_assert_eq(rt->wait, rt->first_start - tj->submit);
    }
    /* total GPU work: ceil() to whole microseconds adds < 1 us of work per
     * GPU per run segment */
    double slack = 1e-9 * want + 4.0 * t->njobs * 16 * (1 + e->preemptions);
    cr_assert(fabs(e->work_done - (want + cost)) <= slack,
              "round %d %s: GPU work %.0f, expected %.0f", round, pol,
              e->work_done, want + cost);
    tu_check_metrics(e, pol, round);
    /* determinism: the same run again gives the same schedule */
    tu_assert_rerun_same(e, t, c, pol);
    eng_free(e);
}

#endif
