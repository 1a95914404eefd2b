/*
 * policies/srtf.c - preemptive shortest remaining time first.
 *
 * Priority: remaining work (reference-GPU time, so it compares across GPU
 * types), smaller first, ties by arrival.  At each instant:
 *   1. fill: start queued jobs in priority order while they fit
 *      (backfill=1, the default: a job that does not fit is passed over;
 *      backfill=0: it blocks the rest);
 *   2. preempt: take queued jobs in priority order while some running job
 *      has more remaining work than the next one, q.  Make room for q on
 *      one GPU type by stopping only running jobs with more remaining work
 *      than q:
 *        consolidated, q fits a node: the node whose needed victims are
 *          the longest (policies/victim.c); its jobs stop latest-finishing
 *          first until q fits;
 *        consolidated, q needs several nodes: the best whole nodes (and a
 *          node for the remainder) by the same measure;
 *        pool: the longest jobs of the type until enough GPUs are free.
 *      If no such room exists nothing is preempted, and q's bucket (its
 *      gang shape) is skipped for the rest of the instant: every job behind
 *      q there has the same shape and more work, so it cannot do better;
 *   3. fill again with what preemption freed.
 * Each preemption adds preempt_cost seconds of reference-GPU work to the
 * victim (checkpoint and restore).
 *
 * Running jobs also sit in one max-heap per GPU type keyed by predicted
 * finish time (all jobs on one type run at its speed, so that is the order
 * of remaining work, and it does not change while they run): its top is
 * the longest running job, and pool placement takes victims from it.
 * Entries of stopped jobs go stale (their generation changed) and are
 * dropped when they surface or swept when they dominate.
 */
#include "policies/policy.h"


#include <stdlib.h>
#include <string.h>

struct run_item {
    simtime_t finish_at;
    uint32_t job, gen;
};

struct run_heap {               /* max-heap on (finish_at, job) */
    struct run_item *a;
    size_t n, cap;
};

/* Why a queued job could not make room on a type under pool placement:
 * E = GPUs then held by longer running jobs, S = started_gpus then.  Its
 * remaining work does not change while it waits, running jobs only get
 * shorter, and only a start adds a running job, so until now the GPUs it
 * could free are at most free + E + (started_gpus - S). */
struct pool_memo {
    uint32_t job;               /* SIM_NONE: empty */
    uint64_t held, started;
};

struct srtf {
    struct pq q;
    struct run_heap *running;   /* [ntypes] */
    uint32_t ntypes;
    enum plc_mode mode;
    bool backfill;
    double cost;                /* reference-GPU us per preemption */
    unsigned char *blocked;     /* per bucket, within one schedule() */
    size_t capblocked;
    struct pq heads;            /* within schedule(): bucket heads, as
                                   items whose job field is the bucket */
    bool started_any;           /* a job has ever started */
    struct run_item *victims;
    size_t capvictims;
    struct vic_index *vic;      /* room under consolidated placement */
    uint64_t *started_gpus;     /* [ntypes] GPUs ever started on a type */
    struct pool_memo *memo;     /* [nb * ntypes] room_pool failures */
    size_t capmemo;
    uint32_t *scratch;          /* node lists of room_consolidated */
    size_t capscratch;
    uint32_t *taken;            /* [nnodes] stamp: a whole node chosen by
                                   this room_consolidated try */
    uint32_t stamp;
    uint32_t *live;             /* [ntypes] live entries in running[t] */
};

static inline bool above(const struct run_item *a, const struct run_item *b)
{
    return a->finish_at > b->finish_at ||
           (a->finish_at == b->finish_at && a->job > b->job);
}

HEAP_DEFINE(rh, struct run_heap, struct run_item, above)



static bool live(const struct pol_view *v, const struct run_item *it)
{
    return pol_state(v, it->job) == JOB_RUNNING &&
           pol_rt(v, it->job)->gen == it->gen;
}

/* The live running job of type t with the most remaining work, or NULL. */
static const struct run_item *top_live(struct srtf *s, const struct pol_view *v,
                                       uint32_t t)
{
    struct run_heap *h = &s->running[t];
    while (h->n && !live(v, &h->a[0]))
        rh_pop(h);
    return h->n ? &h->a[0] : NULL;
}

static int create(void **state, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *err)
{
    struct srtf *s = xcalloc(1, sizeof *s);
    long bf;
    double cost;
    int rc = pol_arg_placement(a, &s->mode, err);
    if (!rc)
        rc = pol_arg_long(a, "backfill", 0, 1, &bf, err);
    if (!rc)
        rc = pol_arg_double(a, "preempt_cost", 0, 1e9, &cost, err);
    if (rc) {
        free(s);
        return rc;
    }
    pq_init(&s->q);
    pq_init(&s->heads);
    s->backfill = bf;
    s->cost = cost * (double)SIM_US_PER_S;
    s->ntypes = v->clu->ntypes;
    s->running = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->running);
    s->live = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->live);
    s->started_gpus = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->started_gpus);
    if (s->mode == PLC_CONSOLIDATED) {
        s->vic = vic_new(v->clu);
        s->taken = xcalloc(v->clu->nnodes ? v->clu->nnodes : 1, sizeof *s->taken);
    }
    *state = s;
    return 0;
}

static void destroy(void *state)
{
    struct srtf *s = state;
    pq_free(&s->q);
    pq_free(&s->heads);
    for (uint32_t t = 0; t < s->ntypes; t++)
        free(s->running[t].a);
    free(s->running);
    free(s->blocked);
    free(s->victims);
    free(s->live);
    free(s->started_gpus);
    free(s->memo);
    free(s->scratch);
    free(s->taken);
    vic_free(s->vic);
    free(s);
}

/* Offers bucket b's current head to the schedule loop's order. */
static void offer(struct srtf *s, long b)
{
    if (!s->q.b[b].n)
        return;
    struct pq_item h = s->q.b[b].a[0];
    h.job = (uint32_t)b;
    pq_push_item(&s->heads, &h, 0, 0);
}

/* An arrival. */
static void enqueue(void *state, const struct pol_view *v, uint32_t job)
{
    struct srtf *s = state;
    pq_push(&s->q, job, v->jobs[job].num_gpus, pol_rt(v, job)->req_type,
            pol_remaining(v, job));
}

/* A victim this policy preempted, queued again from inside schedule():
 * its bucket's head may change, so the bucket is offered again. */
static void requeue(struct srtf *s, const struct pol_view *v, uint32_t job)
{
    uint32_t g = v->jobs[job].num_gpus, req = pol_rt(v, job)->req_type;
    pq_push(&s->q, job, g, req, pol_remaining(v, job));
    offer(s, pq_bucket(&s->q, g, req));
}

/* A job this policy started (no hook runs inside schedule()). */
static void started(void *state, const struct pol_view *v, uint32_t job)
{
    struct srtf *s = state;
    s->started_any = true;
    const struct job_rt *r = pol_rt(v, job);
    struct run_heap *h = &s->running[r->type];
    /* entries of stopped jobs sink (their finish times are past) and would
     * pile up: sweep them when they outnumber the live ones */
    if (h->n > 64 && h->n > 2 * s->live[r->type]) {
        size_t k = 0;
        for (size_t i = 0; i < h->n; i++)
            if (live(v, &h->a[i]))
                h->a[k++] = h->a[i];
        h->n = 0;
        for (size_t i = 0; i < k; i++)
            rh_push(h, h->a[i]);
    }
    rh_push(h, (struct run_item){ r->finish_at, job, r->gen });
    s->live[r->type]++;
    s->started_gpus[r->type] += v->jobs[job].num_gpus;
    if (s->vic)
        vic_touch_job(s->vic, v, job);
}

/* A running job's finish time moved: index it again (its old heap entry
 * is stale, its generation having changed). */
static void rate_changed(void *state, const struct pol_view *v, uint32_t job)
{
    struct srtf *s = state;
    const struct job_rt *r = pol_rt(v, job);
    rh_push(&s->running[r->type], (struct run_item){ r->finish_at, job, r->gen });
    if (s->vic)
        vic_touch_job(s->vic, v, job);
}

/* A running job stopped (completion or preemption). */
static void stopped(struct srtf *s, const struct pol_view *v, uint32_t job)
{
    s->live[pol_rt(v, job)->type]--;
    if (s->vic)
        vic_touch_job(s->vic, v, job);
}

static void finished(void *state, const struct pol_view *v, uint32_t job)
{
    stopped(state, v, job);
}

/* Whether the threshold job tj leaves room for a gang of remaining work
 * key: none needed (tj = SIM_NONE, the node is free), or longer than key. */
static bool may_stop(const struct pol_view *v, uint32_t tj, double key)
{
    return tj == SIM_NONE || pol_remaining(v, tj) > key;
}

static bool may_stop_cb(const struct pol_view *v, uint32_t tj, void *key)
{
    return may_stop(v, tj, *(const double *)key);
}

/* Preempts jobs[0..n) that are running and have more remaining work than
 * key.  (Finish times are whole microseconds, so a job finishing with the
 * threshold job can have a hair less work than it: such a job stays, and
 * then the room may fall short, which the caller checks.) */
static int stop_jobs(struct srtf *s, const struct pol_view *v, struct pol_ctx *x,
                     const uint32_t *jobs, uint32_t n, double key)
{
    for (uint32_t i = 0; i < n; i++) {
        if (pol_state(v, jobs[i]) != JOB_RUNNING || pol_remaining(v, jobs[i]) <= key)
            continue;           /* already stopped (a gang over two nodes) */
        int rc = pol_preempt(x, jobs[i], s->cost);
        if (rc)
            return rc;
        requeue(s, v, jobs[i]);
        stopped(s, v, jobs[i]);
    }
    return 0;
}

/* Consolidated placement: room for a gang of g on type t by stopping jobs
 * longer than key, chosen through the victim index.  1 done, 0 none. */
static int room_consolidated(struct srtf *s, const struct pol_view *v,
                             struct pol_ctx *x, uint32_t g, double key, uint32_t t)
{
    const struct cluster *c = v->clu;
    uint32_t jobs[64], tj;
    int rc = 0;
    if (g <= c->types[t].max_node_gpus) {
        /* one node: the one whose last victim is the longest */
        uint32_t node = vic_best_node(s->vic, v, g, t, &tj);
        if (node == SIM_NONE || !may_stop(v, tj, key))
            return 0;
        uint32_t nv = vic_victims(s->vic, v, node, g, jobs);
        return (rc = stop_jobs(s, v, x, jobs, nv, key)) ? rc : 1;
    }
    /* whole nodes of one size (largest first, as placement does) plus a
     * node for the remainder (the best for r GPUs among the others, which
     * may be a further whole node) */
    uint32_t done_size = UINT32_MAX;
    for (;;) {
        uint32_t gi = SIM_NONE, n = 0;
        for (uint32_t k = 0; k < c->ngroups; k++) {
            uint32_t m = c->groups[k].gpus_per_node;
            if (c->groups[k].type == t && m < g && m < done_size && m > n) {
                gi = k;
                n = m;
            }
        }
        if (gi == SIM_NONE)
            return 0;
        done_size = n;
        uint32_t w = g / n, r = g % n;
        xgrow(&s->scratch, &s->capscratch, 4 * ((size_t)w + 1), sizeof *s->scratch);
        uint32_t *nodes = s->scratch, *tjs = nodes + w + 1;
        uint32_t top = vic_top_nodes(s->vic, v, gi, n, w, nodes, tjs,
                                     may_stop_cb, &key);
        uint32_t remnode = SIM_NONE;
        bool ok = top == w;
        if (ok && r) {
            /* the best node for r GPUs outside the w whole ones, else the
             * next whole one */
            uint32_t *rn = tjs + w + 1, *rt = rn + w + 1;
            uint32_t rtop = vic_top_nodes(s->vic, v, gi, r, w + 1, rn, rt,
                                          may_stop_cb, &key);
            if (++s->stamp == 0) {      /* wrapped: no stale stamp left */
                memset(s->taken, 0, c->nnodes * sizeof *s->taken);
                s->stamp = 1;
            }
            for (uint32_t k = 0; k < w; k++)
                s->taken[nodes[k]] = s->stamp;
            for (uint32_t i = 0; i < rtop && remnode == SIM_NONE; i++)
                if (s->taken[rn[i]] != s->stamp)
                    remnode = rn[i];
            ok = remnode != SIM_NONE;
        }
        if (ok) {
            for (uint32_t i = 0; i < w && !rc; i++) {
                uint32_t nv = vic_victims(s->vic, v, nodes[i], n, jobs);
                rc = stop_jobs(s, v, x, jobs, nv, key);
            }
            if (!rc && r) {
                uint32_t nv = vic_victims(s->vic, v, remnode, r, jobs);
                rc = stop_jobs(s, v, x, jobs, nv, key);
            }
        }
        if (ok)
            return rc ? rc : 1;
    }
}

/* Pool placement: only the count matters.  Stops running jobs of type t
 * longer than key, longest first, until g GPUs are free; stops nothing if
 * they do not hold enough.  A failure is remembered for the job (memo), so
 * that a large job blocked behind many long ones is not re-examined at
 * every instant.  1 done, 0 none. */
static int room_pool(struct srtf *s, const struct pol_view *v, struct pol_ctx *x,
                     uint32_t job, double key, uint32_t t, struct pool_memo *m)
{
    const struct cluster *c = v->clu;
    uint32_t g = v->jobs[job].num_gpus;
    uint64_t free_gpus = c->types[t].free_gpus;
    if (m->job == job && free_gpus + m->held + (s->started_gpus[t] - m->started) < g)
        return 0;
    size_t nv = 0;
    uint64_t held = free_gpus;
    const struct run_item *top;
    while (held < g && (top = top_live(s, v, t)) && pol_remaining(v, top->job) > key) {
        xgrow(&s->victims, &s->capvictims, nv + 1, sizeof *s->victims);
        s->victims[nv] = rh_pop(&s->running[t]);
        held += v->jobs[s->victims[nv++].job].num_gpus;
    }
    if (held < g)
        *m = (struct pool_memo){ job, held - free_gpus, s->started_gpus[t] };
    for (size_t i = 0; i < nv; i++) {
        if (held < g) {
            rh_push(&s->running[t], s->victims[i]);
        } else {
            int rc = pol_preempt(x, s->victims[i].job, s->cost);
            if (rc)
                return rc;
            requeue(s, v, s->victims[i].job);
            s->live[t]--;
        }
    }
    return held >= g;
}

/* Starts job (its bucket's head, still queued) on type t, first preempting
 * running jobs of type t with more remaining work than key if that is what
 * it takes.  Returns 1 when started, 0 when not, or an error.  When room
 * making falls short, the jobs it stopped restart in this instant's final
 * fill, which undoes their preemption (pol_preempt). */
static int make_room(struct srtf *s, const struct pol_view *v,
                     struct pol_ctx *x, uint32_t job, double key, uint32_t t,
                     long bucket)
{
    const struct cluster *c = v->clu;
    uint32_t g = v->jobs[job].num_gpus;
    if (c->types[t].total_gpus < g || !s->started_any)
        return 0;
    if (!pol_place(v, g, t, s->mode, NULL, NULL)) {
        int rc;
        if (s->vic) {
            rc = room_consolidated(s, v, x, g, key, t);
        } else {
            size_t need = s->q.nb * s->ntypes, old = s->capmemo;
            if (need > old) {
                xgrow(&s->memo, &s->capmemo, need, sizeof *s->memo);
                for (size_t i = old; i < s->capmemo; i++)
                    s->memo[i].job = SIM_NONE;
            }
            rc = room_pool(s, v, x, job, key, t, &s->memo[bucket * s->ntypes + t]);
        }
        if (rc <= 0)
            return rc;
    }
    xgrow(&s->q.gpus, &s->q.gcap, g, sizeof *s->q.gpus);
    if (!pol_place(v, g, t, s->mode, NULL, s->q.gpus))
        return 0;
    int rc = pol_start(x, job, s->q.gpus);
    if (!rc)
        started(s, v, job);
    return rc ? rc : 1;
}

static double longest_running(struct srtf *s, const struct pol_view *v)
{
    double best = -1;
    for (uint32_t t = 0; t < s->ntypes; t++) {
        const struct run_item *top = top_live(s, v, t);
        if (top) {
            double w = pol_remaining(v, top->job);
            if (w > best)
                best = w;
        }
    }
    return best;
}

static void schedule(void *state, const struct pol_view *v, struct pol_ctx *x)
{
    struct srtf *s = state;
    const struct cluster *c = v->clu;
    if (pq_fill(&s->q, v, x, s->mode, s->backfill, started, s) < 0)
        return;
    /* Queued jobs are taken in priority order through `heads`, a heap of
     * the buckets' heads (an entry goes stale when its bucket's head
     * changes, and is checked when popped), so an instant costs O(shapes)
     * once plus O(log shapes) per attempt.  A bucket whose head cannot
     * make room is blocked for the rest of the instant: every job behind
     * it has the same shape and at least its remaining work, so fewer
     * running jobs are longer than it -- it cannot make room either.
     * This keeps an overloaded queue from being walked job by job. */
    pq_clear(&s->heads);
    for (size_t i = 0; i < s->q.nb; i++)
        offer(s, (long)i);
    size_t nbl = 0;             /* entries of blocked[] in use */
    while (s->heads.size) {
        if (s->q.nb > nbl) {    /* re-queued victims may add buckets */
            xgrow(&s->blocked, &s->capblocked, s->q.nb, sizeof *s->blocked);
            memset(s->blocked + nbl, 0, s->q.nb - nbl);
            nbl = s->q.nb;
        }
        struct pq_item e = pq_pop(&s->heads, 0);
        long b = (long)e.job;
        const struct pq_bucket *bk = &s->q.b[b];
        if (s->blocked[b] || !bk->n || bk->a[0].seq != e.seq ||
            bk->a[0].key != e.key)
            continue;           /* stale: a fresher entry was offered */
        if (e.key >= longest_running(s, v))
            break;
        uint32_t req = bk->req_type;
        /* it stays at its bucket's head while room is made: the victims
         * it re-queues have more remaining work than it (may_stop), so
         * they queue behind it; it leaves the queue once started */
        struct pq_item it = bk->a[0];
        int done = 0;
        for (uint32_t i = 0; i < c->ntypes && !done; i++) {
            uint32_t t = req != SIM_NONE ? req : c->type_order[i];
            done = make_room(s, v, x, it.job, it.key, t, b);
            if (done < 0)
                break;
            if (req != SIM_NONE)
                break;
        }
        if (done < 0)
            break;
        if (!done) {
            if (!s->backfill)
                break;
            s->blocked[b] = 1;
        } else {
            /* still the head: every victim had more remaining work than
             * it (may_stop, strictly), and a preemption only adds work */
            struct pq_item out = pq_pop(&s->q, b);
            DL_ASSERT(out.job == it.job);
            (void)out;
            offer(s, b);
        }
    }
    pq_fill(&s->q, v, x, s->mode, s->backfill, started, s);
}

static uint32_t queued(void *state)
{
    return (uint32_t)((struct srtf *)state)->q.size;
}

static const struct pol_opt srtf_opts[] = {
    { "preempt_cost", "0", "seconds of reference-GPU work added per preemption" },
    { "backfill", "1", "1: jobs behind one that cannot start may start" },
    { NULL, NULL, NULL },
};

const struct policy pol_srtf = {
    .name = "srtf",
    .summary = "preemptive shortest remaining time first",
    .blocking = "backfill=1 (default): it waits (preempting longer jobs when "
                "they hold enough GPUs) while later jobs that fit start; "
                "backfill=0: it blocks every later job",
    .opts = srtf_opts,
    .create = create,
    .destroy = destroy,
    .enqueue = enqueue,
    .rate_changed = rate_changed,
    .finished = finished,
    .schedule = schedule,
    .queued = queued,
};
