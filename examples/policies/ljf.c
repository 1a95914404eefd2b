/*
 * examples/policies/ljf.c - a policy written outside dlsim's tree:
 * largest job first (most GPUs first, ties by arrival), with backfilling,
 * non-preemptive.  It sees only the contract (sim/policy.h) and uses the
 * policy kit's ordered queue (policies/kit.h); it links nothing of dlsim.
 *
 * Build (docs/policies.md, "Writing a policy"):
 *   cc -shared -fPIC -O2 $(pkg-config --cflags dlsim-policy) ljf.c \
 *      -o libljf.so $(pkg-config --libs dlsim-policy)
 * Run:
 *   dlsim run --trace T.csv --policy ./libljf.so:backfill=1 --check
 *   dlsim policies --load ./libljf.so
 */
#include "policies/kit.h"

#include <stdlib.h>

struct ljf {
    struct pq q;                /* waiting jobs, key = -GPUs */
    enum plc_mode mode;
    bool backfill;
};

static int create(void **state, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *err)
{
    (void)v;                    /* nothing to size from the cluster */
    struct ljf *s = calloc(1, sizeof *s);
    long bf;
    int rc = s ? pol_arg_placement(a, &s->mode, err) : DL_EINPUT;
    if (!rc)
        rc = pol_arg_long(a, "backfill", 0, 1, &bf, err);
    if (rc) {
        free(s);
        return rc;
    }
    pq_init(&s->q);
    s->backfill = bf;
    *state = s;
    return 0;
}

static void destroy(void *state)
{
    struct ljf *s = state;
    pq_free(&s->q);
    free(s);
}

/* An arrival: queued by size, largest first; equal sizes by arrival. */
static void enqueue(void *state, const struct pol_view *v, uint32_t job)
{
    struct ljf *s = state;
    pq_push(&s->q, job, v->jobs[job].num_gpus, pol_rt(v, job)->req_type,
            -(double)v->jobs[job].num_gpus);
}

static void schedule(void *state, const struct pol_view *v, struct pol_ctx *x)
{
    struct ljf *s = state;
    pq_fill(&s->q, v, x, s->mode, s->backfill, NULL, NULL);
}

static uint32_t queued(void *state)
{
    return (uint32_t)((struct ljf *)state)->q.size;
}

static const struct pol_opt opts[] = {
    { "backfill", "1", "1: smaller jobs start when the largest does not fit" },
    { NULL, NULL, NULL },
};

static const struct policy ljf = {
    .name = "ljf",
    .summary = "largest job first (most GPUs), non-preemptive (an example "
               "plug-in)",
    .blocking = "backfill=1 (default): smaller jobs that fit start before "
                "it; backfill=0: it blocks every smaller job",
    .opts = opts,
    .create = create,
    .destroy = destroy,
    .enqueue = enqueue,
    .schedule = schedule,
    .queued = queued,
};

DLSIM_POLICY_PLUGIN(&ljf);
