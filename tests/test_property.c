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
        for (size_t p = 0; p < sizeof policies / sizeof *policies; p++)
            tu_check_random_run(&t, &c, policies[p], round,
                                !strncmp(policies[p], "srtf", 4), true);
        trc_free(&t);
        clu_free(&c);
    }
    gsl_rng_free(r);
}
