/*
 * policies/srtf.c - preemptive shortest remaining time first.
 *
 * Priority: remaining work (reference-GPU time, so it compares across GPU
 * types), smaller first, ties by arrival.  At each instant:
 *   1. fill: start queued jobs in priority order while they fit
 *      (backfill=1, the default: a job that does not fit is passed over;
 *      backfill=0: it blocks the rest);
 *   2. preempt: for each queued job q, in priority order, whose remaining
 *      work is smaller than that of some running job, stop the running
 *      jobs of larger remaining work on one GPU type, largest first, until
 *      q can be placed, and start q.  Nothing is preempted unless the
 *      victims together hold enough GPUs for q; under consolidated
 *      placement fragmentation can still defeat it, and then the victims
 *      restart within the same instant at no cost (pol_preempt);
 *   3. fill again with what preemption freed.
 * Each preemption adds preempt_cost seconds of reference-GPU work to the
 * victim (checkpoint and restore).
 *
 * Running jobs sit in one max-heap per GPU type keyed by predicted finish
 * time.  All jobs on one type run at the type's speed, so within a type
 * that order is the order of remaining work and does not change while they
 * run.  Entries go stale when a job stops (its generation changes) and are
 * dropped when they surface.  Cost: O(log n) per start, preemption and
 * finish, plus the queued jobs examined in step 2, which stops at the
 * first queued job no running job is longer than.
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

struct srtf {
    struct pq q;
    struct run_heap *running;   /* [ntypes] */
    uint32_t ntypes;
    enum plc_mode mode;
    bool backfill;
    double cost;                /* reference-GPU us per preemption */
    unsigned char *blocked;     /* per bucket, within one schedule() */
    size_t capblocked;
    struct run_item *victims;
    size_t capvictims;
    uint32_t *freed;            /* [nnodes] dry-run scratch, kept zeroed */
    uint32_t *touched;          /* nodes with freed != 0 */
    size_t ntouched;
};

static inline bool above(const struct run_item *a, const struct run_item *b)
{
    return a->finish_at > b->finish_at ||
           (a->finish_at == b->finish_at && a->job > b->job);
}

static void rh_push(struct run_heap *h, struct run_item it)
{
    xgrow(&h->a, &h->cap, h->n + 1, sizeof *h->a);
    size_t i = h->n++;
    while (i > 0 && above(&it, &h->a[(i - 1) / 2])) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = it;
}

static struct run_item rh_pop(struct run_heap *h)
{
    struct run_item top = h->a[0], last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const struct run_item *best = &last;
        if (l < h->n && above(&h->a[l], best))
            m = l, best = &h->a[l];
        if (l + 1 < h->n && above(&h->a[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        h->a[i] = h->a[m];
        i = m;
    }
    if (h->n)
        h->a[i] = last;
    return top;
}

static bool live(const struct pol_view *v, const struct run_item *it)
{
    const struct job_rt *r = &v->rt[it->job];
    return r->state == JOB_RUNNING && r->gen == it->gen;
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

static int create(void **state, const struct pol_args *a, struct dl_error *err)
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
    s->backfill = bf;
    s->cost = cost * (double)SIM_US_PER_S;
    *state = s;
    return 0;
}

static void destroy(void *state)
{
    struct srtf *s = state;
    pq_free(&s->q);
    for (uint32_t t = 0; t < s->ntypes; t++)
        free(s->running[t].a);
    free(s->running);
    free(s->blocked);
    free(s->victims);
    free(s->freed);
    free(s->touched);
    free(s);
}

static void enqueue(void *state, const struct pol_view *v, uint32_t job)
{
    struct srtf *s = state;
    pq_push(&s->q, job, v->jobs[job].num_gpus, v->rt[job].req_type,
            pol_remaining(v, job));
}

static void started(void *state, const struct pol_view *v, uint32_t job)
{
    struct srtf *s = state;
    if (!s->running) {
        s->ntypes = v->clu->ntypes;
        s->running = xcalloc(s->ntypes, sizeof *s->running);
    }
    const struct job_rt *r = &v->rt[job];
    rh_push(&s->running[r->type], (struct run_item){ r->finish_at, job, r->gen });
}

/* Would a gang of g fit on type t once the collected victims stopped?
 * A dry run on the free counts: freed[node] holds the GPUs the victims
 * would release on each touched node.  For a single-node gang *winner is
 * the node that would take it.  (Untouched nodes cannot take the gang by
 * themselves, or it would have been placed without preempting.) */
static bool dry_fits(const struct srtf *s, const struct cluster *c, uint32_t g,
                     uint32_t t, uint64_t freed_total, uint32_t *winner)
{
    *winner = SIM_NONE;
    if (s->mode == PLC_POOL)
        return c->types[t].free_gpus + freed_total >= g;
    for (size_t i = 0; i < s->ntouched; i++) {
        const struct clu_node *n = &c->nodes[s->touched[i]];
        if (n->ngpus >= g && n->nfree + s->freed[s->touched[i]] >= g) {
            *winner = s->touched[i];
            return true;
        }
    }
    for (uint32_t gi = 0; gi < c->ngroups; gi++) {
        const struct clu_group *gr = &c->groups[gi];
        uint32_t n = gr->gpus_per_node;
        if (gr->type != t || n >= g)
            continue;
        uint32_t whole = gr->bucket_count[n], w = g / n, rem = g % n;
        bool partial = false;
        for (size_t i = 0; i < s->ntouched; i++) {
            const struct clu_node *nd = &c->nodes[s->touched[i]];
            uint32_t f = nd->nfree + s->freed[s->touched[i]];
            if (nd->group != gi)
                continue;
            if (nd->nfree < n && f == n)
                whole++;
            else if (rem && f >= rem && f < n)
                partial = true;
        }
        for (uint32_t f = rem ? rem : n; f < n && !partial; f++)
            partial = gr->bucket_count[f] > 0;
        if (whole >= w + (rem != 0) || (rem && whole >= w && partial))
            return true;
    }
    return false;
}

static void touch(struct srtf *s, const struct pol_view *v, uint32_t job)
{
    const struct cluster *c = v->clu;
    const struct job_rt *r = &v->rt[job];
    for (uint32_t k = 0; k < v->jobs[job].num_gpus; k++) {
        uint32_t nd = c->gpu_node[r->gpus[k]];
        if (!s->freed[nd]++)
            s->touched[s->ntouched++] = nd;
    }
}

static bool on_node(const struct pol_view *v, uint32_t job, uint32_t node)
{
    const struct job_rt *r = &v->rt[job];
    for (uint32_t k = 0; k < v->jobs[job].num_gpus; k++)
        if (v->clu->gpu_node[r->gpus[k]] == node)
            return true;
    return false;
}

/* Starts job (its bucket's head) on type t, first preempting running jobs
 * of type t with more remaining work than key, most first, if that is what
 * it takes.  Victims are collected until a dry run says the gang would
 * fit; for a single-node gang only the victims on the chosen node stop.
 * Returns 1 when started, 0 when not (nothing preempted), or an error. */
static int make_room(struct srtf *s, const struct pol_view *v,
                     struct pol_ctx *x, uint32_t job, double key, uint32_t t,
                     long bucket)
{
    const struct cluster *c = v->clu;
    uint32_t g = v->jobs[job].num_gpus;
    int rc;
    if (c->types[t].total_gpus < g)
        return 0;
    if (!plc_find(c, g, t, s->mode, NULL, NULL)) {
        if (!s->running)
            return 0;
        if (!s->freed) {
            s->freed = xcalloc(c->nnodes, sizeof *s->freed);
            s->touched = xmalloc(c->nnodes * sizeof *s->touched);
        }
        size_t nv = 0;
        uint64_t freed_total = 0;
        uint32_t winner = SIM_NONE;
        bool fits = false;
        const struct run_item *top;
        while (!fits && (top = top_live(s, v, t)) && pol_remaining(v, top->job) > key) {
            xgrow(&s->victims, &s->capvictims, nv + 1, sizeof *s->victims);
            s->victims[nv] = rh_pop(&s->running[t]);
            touch(s, v, s->victims[nv].job);
            freed_total += v->jobs[s->victims[nv].job].num_gpus;
            nv++;
            fits = dry_fits(s, c, g, t, freed_total, &winner);
        }
        for (size_t i = 0; i < s->ntouched; i++)
            s->freed[s->touched[i]] = 0;
        s->ntouched = 0;
        for (size_t i = 0; i < nv; i++) {
            uint32_t vj = s->victims[i].job;
            if (fits && (winner == SIM_NONE || on_node(v, vj, winner))) {
                if ((rc = pol_preempt(x, vj, s->cost)))
                    return rc;
            } else {
                rh_push(&s->running[t], s->victims[i]);
            }
        }
        /* a multi-node dry run can be optimistic: then the victims restart
         * in this instant's final fill, at no cost (pol_preempt) */
        if (!fits || !plc_find(c, g, t, s->mode, NULL, NULL))
            return 0;
    }
    xgrow(&s->q.gpus, &s->q.gcap, g, sizeof *s->q.gpus);
    DL_ASSERT(plc_find(c, g, t, s->mode, NULL, s->q.gpus));
    /* victims went back to the queue with more work than job, so job is
     * still its bucket's head */
    struct pq_item it = pq_pop(&s->q, bucket);
    DL_ASSERT(it.job == job);
    rc = pol_start(x, job, s->q.gpus);
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
    if (pq_fill(&s->q, v, x, s->mode, s->backfill) < 0)
        return;
    /* A bucket whose head cannot make room is blocked for the rest of the
     * instant: every job behind it has the same shape and at least its
     * remaining work, so fewer running jobs are longer than it -- it
     * cannot make room either.  This keeps an overloaded queue from being
     * walked job by job at every instant. */
    size_t nbl = 0;             /* entries of blocked[] in use */
    for (;;) {
        if (s->q.nb > nbl) {    /* re-queued victims may add buckets */
            xgrow(&s->blocked, &s->capblocked, s->q.nb, sizeof *s->blocked);
            memset(s->blocked + nbl, 0, s->q.nb - nbl);
            nbl = s->q.nb;
        }
        long b = -1;
        for (size_t i = 0; i < s->q.nb; i++)
            if (s->q.b[i].n && !s->blocked[i] &&
                (b < 0 || s->q.b[i].heap[0].key < s->q.b[b].heap[0].key ||
                 (s->q.b[i].heap[0].key == s->q.b[b].heap[0].key &&
                  s->q.b[i].heap[0].seq < s->q.b[b].heap[0].seq)))
                b = (long)i;
        if (b < 0)
            break;
        struct pq_item it = *pq_head(&s->q, b);
        if (it.key >= longest_running(s, v))
            break;
        uint32_t req = s->q.b[b].req_type;
        int done = 0;
        for (uint32_t i = 0; i < c->ntypes && !done; i++) {
            uint32_t t = req != SIM_NONE ? req : c->type_order[i];
            done = make_room(s, v, x, it.job, it.key, t, b);
            if (done < 0)
                return;
            if (req != SIM_NONE)
                break;
        }
        if (!done) {
            if (!s->backfill)
                break;
            s->blocked[b] = 1;
        }
    }
    pq_fill(&s->q, v, x, s->mode, s->backfill);
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
    .started = started,
    .schedule = schedule,
    .queued = queued,
};
