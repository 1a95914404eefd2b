/*
 * policies/fifo.c - the non-preemptive ordered policies: fifo and sjf.
 *
 * Both keep one ordered queue (policies/queue.c) and at every instant start
 * jobs from its front; they differ only in the key:
 *   fifo  arrival order (the job index: the trace is sorted by submit time)
 *   sjf   the job's duration (true duration, as in the classic baseline),
 *         ties by arrival
 * With backfill=0 the first job that does not fit blocks everyone behind
 * it; with backfill=1 jobs behind it that fit start (no reservation, so a
 * large job can wait while smaller ones keep passing it).
 */
#include "policies/policy.h"

#include <stdlib.h>

struct ordered {
    struct pq q;
    enum plc_mode mode;
    bool backfill;
    bool by_duration;
};

static int create(void **state, const struct pol_args *a, struct dl_error *err,
                  bool by_duration)
{
    struct ordered *o = xcalloc(1, sizeof *o);
    long bf;
    int rc = pol_arg_placement(a, &o->mode, err);
    if (!rc)
        rc = pol_arg_long(a, "backfill", 0, 1, &bf, err);
    if (rc) {
        free(o);
        return rc;
    }
    pq_init(&o->q);
    o->backfill = bf;
    o->by_duration = by_duration;
    *state = o;
    return 0;
}

static int fifo_create(void **s, const struct pol_args *a, struct dl_error *e)
{
    return create(s, a, e, false);
}

static int sjf_create(void **s, const struct pol_args *a, struct dl_error *e)
{
    return create(s, a, e, true);
}

static void destroy(void *state)
{
    struct ordered *o = state;
    pq_free(&o->q);
    free(o);
}

static void enqueue(void *state, const struct pol_view *v, uint32_t job)
{
    struct ordered *o = state;
    double key = o->by_duration ? (double)v->jobs[job].duration : (double)job;
    pq_push(&o->q, job, v->jobs[job].num_gpus, v->rt[job].req_type, key);
}

static void schedule(void *state, const struct pol_view *v, struct pol_ctx *x)
{
    struct ordered *o = state;
    pq_fill(&o->q, v, x, o->mode, o->backfill);
}

static uint32_t queued(void *state)
{
    return (uint32_t)((struct ordered *)state)->q.size;
}

static const struct pol_opt fifo_opts[] = {
    { "backfill", "0", "1: later jobs start when the head does not fit" },
    { NULL, NULL, NULL },
};

static const struct pol_opt sjf_opts[] = {
    { "backfill", "1", "1: shorter-first jobs behind one that does not fit may start" },
    { NULL, NULL, NULL },
};

const struct policy pol_fifo = {
    .name = "fifo",
    .summary = "first in, first out by submit time (non-preemptive)",
    .blocking = "backfill=0 (default): it blocks every later job until it "
                "starts; backfill=1: later jobs that fit start before it",
    .opts = fifo_opts,
    .create = fifo_create,
    .destroy = destroy,
    .enqueue = enqueue,
    .schedule = schedule,
    .queued = queued,
};

const struct policy pol_sjf = {
    .name = "sjf",
    .summary = "shortest job first by duration (non-preemptive)",
    .blocking = "backfill=1 (default): longer jobs that fit start before it; "
                "backfill=0: it blocks every later job",
    .opts = sjf_opts,
    .create = sjf_create,
    .destroy = destroy,
    .enqueue = enqueue,
    .schedule = schedule,
    .queued = queued,
};
