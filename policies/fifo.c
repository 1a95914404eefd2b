/*
 * policies/fifo.c - the non-preemptive ordered policies: fifo, sjf and edf.
 *
 * All keep one ordered queue (policies/queue.c) and at every instant start
 * jobs from its front; they differ only in the key, fixed when the job
 * enters the queue:
 *   fifo  arrival order (the job index: the trace is sorted by submit time)
 *   sjf   the job's duration (true duration, as in the classic baseline),
 *         ties by arrival; with predicted=1 its predicted run time on the
 *         cluster's reference GPU type instead (pol_pred_runtime,
 *         consolidated: the roofline's estimate, or the truth with
 *         `predict.runtime: oracle`, times the seeded noise of
 *         `predict.runtime_noise`), as Helios and Alibaba's simulator do
 *   edf   the job's deadline, earliest first; jobs without a deadline come
 *         after every job with one, among themselves by arrival; ties by
 *         arrival
 * Ties always go by arrival: the queue breaks equal keys by job index.
 * With priority=1 the trace's priority column (imported from openb and
 * Chronus) makes strict classes: every job of a larger priority comes
 * before any of a smaller one, the order above within a class.
 * With backfill=0 the first job that does not fit blocks everyone behind
 * it; with backfill=1 jobs behind it that fit start (no reservation, so a
 * large job can wait while smaller ones keep passing it).
 */
#include "policies/policy.h"

#include <math.h>
#include <stdlib.h>

enum order_key { KEY_ARRIVAL, KEY_DURATION, KEY_PREDICTED, KEY_DEADLINE };

struct ordered {
    struct pq q;
    enum plc_mode mode;
    bool backfill;
    bool priority;              /* strict classes by the trace's priority */
    enum order_key key;
};

static int create(void **state, const struct pol_args *a, struct dl_error *err,
                  enum order_key key)
{
    struct ordered *o = xcalloc(1, sizeof *o);
    long bf, pred = 0, prio;
    int rc = pol_arg_placement(a, &o->mode, err);
    if (!rc)
        rc = pol_arg_long(a, "backfill", 0, 1, &bf, err);
    if (!rc)
        rc = pol_arg_long(a, "priority", 0, 1, &prio, err);
    if (!rc && key == KEY_DURATION)
        rc = pol_arg_long(a, "predicted", 0, 1, &pred, err);
    if (rc) {
        free(o);
        return rc;
    }
    pq_init(&o->q);
    o->backfill = bf;
    o->priority = prio;
    o->key = pred ? KEY_PREDICTED : key;
    *state = o;
    return 0;
}

static int fifo_create(void **s, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *e)
{
    (void)v;
    return create(s, a, e, KEY_ARRIVAL);
}

static int sjf_create(void **s, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *e)
{
    (void)v;
    return create(s, a, e, KEY_DURATION);
}

static int edf_create(void **s, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *e)
{
    (void)v;
    return create(s, a, e, KEY_DEADLINE);
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
    const struct trc_job *tj = &v->jobs[job];
    double key = (double)job;
    switch (o->key) {
    case KEY_ARRIVAL:
        break;
    case KEY_DURATION:
        key = (double)tj->duration;
        break;
    case KEY_PREDICTED:
        key = pol_pred_runtime(v, job, v->clu->ref_type, false);
        break;
    case KEY_DEADLINE:
        /* no deadline: after every job with one (equal keys: by arrival);
         * as a double a deadline is exact up to 2^53 us, 285 years */
        key = tj->deadline == SIM_NEVER ? HUGE_VAL : (double)tj->deadline;
        break;
    }
    pq_push_prio(&o->q, job, v->jobs[job].num_gpus, pol_rt(v, job)->req_type,
                 o->priority ? tj->priority : 0, key);
}

static void schedule(void *state, const struct pol_view *v, struct pol_ctx *x)
{
    struct ordered *o = state;
    pq_fill(&o->q, v, x, o->mode, o->backfill, NULL, NULL);
}

static uint32_t queued(void *state)
{
    return (uint32_t)((struct ordered *)state)->q.size;
}

static const struct pol_opt fifo_opts[] = {
    { "backfill", "0", "1: later jobs start when the head does not fit" },
    { "priority", "0", "1: strict classes by the trace's priority column, larger first; the order above within a class" },

    { NULL, NULL, NULL },
};

static const struct pol_opt sjf_opts[] = {
    { "backfill", "1", "1: shorter-first jobs behind one that does not fit may start" },
    { "predicted", "0", "1: order by the predicted run time on the reference "
                        "GPU type (--models predict.*) instead of the true duration" },
    { "priority", "0", "1: strict classes by the trace's priority column, larger first; the order above within a class" },

    { NULL, NULL, NULL },
};

static const struct pol_opt edf_opts[] = {
    { "backfill", "1", "1: later-deadline jobs behind one that does not fit may start" },
    { "priority", "0", "1: strict classes by the trace's priority column, larger first; the order above within a class" },

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
    .summary = "shortest job first by duration, or by predicted run time "
               "with predicted=1 (non-preemptive)",
    .blocking = "backfill=1 (default): longer jobs that fit start before it; "
                "backfill=0: it blocks every later job",
    .opts = sjf_opts,
    .create = sjf_create,
    .destroy = destroy,
    .enqueue = enqueue,
    .schedule = schedule,
    .queued = queued,
};

const struct policy pol_edf = {
    .name = "edf",
    .summary = "earliest deadline first; jobs without a deadline last, by "
               "arrival (non-preemptive)",
    .blocking = "backfill=1 (default): later-deadline jobs that fit start "
                "before it; backfill=0: it blocks every later job",
    .opts = edf_opts,
    .create = edf_create,
    .destroy = destroy,
    .enqueue = enqueue,
    .schedule = schedule,
    .queued = queued,
};
