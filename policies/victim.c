/*
 * policies/victim.c - where a preemptive policy finds room for a gang of
 * up to one node's GPUs (prefix vic_).
 *
 * Question: a queued gang of d GPUs on type t may stop running jobs that
 * have more remaining time than it has.  Which node needs the "longest"
 * victims, and who are they?  For node v, order its running jobs by
 * finish time, latest first, and count GPUs (starting from its free ones)
 * until d are reached: the job where the count reaches d is v's threshold
 * job for d, and its finish time T_v(d).  Stopping the jobs of v that
 * finish at or after T_v(d) frees d GPUs; the node with the largest
 * T_v(d) asks the least of its victims.  The gang can have room iff that
 * largest threshold job still has more remaining work than the gang.
 *
 * All jobs on one GPU type run at the type's speed, so a running job's
 * finish time does not change while it runs: T_v(d) changes only when a
 * job starts or stops on v.  Each node keeps its running jobs in that
 * order, its list (vic_touch_job moves the one that started, stopped or
 * changed speed; no list is kept while none is read: struct vic_lists); a
 * node so touched is marked dirty and its thresholds recomputed
 * lazily, and the maximum over the nodes of a group is kept in one
 * segment tree per demand d, so a query costs O(groups) and an update
 * O(n log nodes), independent of how many jobs run or wait.  A tree is
 * kept from its first use on: a trace's gangs ask for a few demands.
 *
 * Also here: whether a placement would exist were some busy GPUs free
 * (vic_freed_*), the dry run of a reclaim that stops victims chosen by
 * another order (fairshare's), so that one that cannot make room stops
 * nothing.  It reads the cluster's free-GPU index as placement.c does and
 * applies the same rules to the counts the victims would give.
 */
#include "policies/policy.h"

#include <stdlib.h>
#include <string.h>

struct seg {                    /* max over the group's nodes */
    simtime_t *t;               /* [2P] threshold finish time */
    uint32_t *job;              /* [2P] threshold job (SIM_NONE: free) */
    uint32_t *node;             /* [2P] node of that leaf */
};

struct vic_index {
    const struct cluster *c;
    uint32_t *gidx;             /* [nnodes] index of the node in its group */
    uint32_t *pow2;             /* [ngroups] leaves of the group's trees */
    struct seg **seg;           /* [ngroups][gpus_per_node + 1], d >= 1 */
    uint8_t *dirty;             /* [nnodes] */
    uint32_t *dirty_list;
    size_t ndirty;
    uint32_t *walk;             /* scratch of vic_top_nodes */
    size_t capwalk;
    /* each node's running jobs keyed by finish time: latest first (ties:
     * larger job first) */
    struct vic_lists l;
    uint8_t **live;             /* [ngroups][gpus_per_node + 1] tree kept */
    uint8_t **lived;            /* [ngroups] the kept demands, ascending */
    uint32_t *nlive;            /* [ngroups] */
};

#define T_NONE INT64_MIN        /* a leaf with no node */

struct vic_index *vic_new(const struct cluster *c)
{
    struct vic_index *x = xcalloc(1, sizeof *x);
    x->c = c;
    x->gidx = xmalloc(c->nnodes * sizeof *x->gidx);
    x->pow2 = xcalloc(c->ngroups, sizeof *x->pow2);
    x->seg = xcalloc(c->ngroups, sizeof *x->seg);
    x->dirty = xcalloc(c->nnodes, 1);
    x->dirty_list = xmalloc(c->nnodes * sizeof *x->dirty_list);
    vic_lists_init(&x->l, c);
    x->live = xcalloc(c->ngroups ? c->ngroups : 1, sizeof *x->live);
    x->lived = xcalloc(c->ngroups ? c->ngroups : 1, sizeof *x->lived);
    x->nlive = xcalloc(c->ngroups ? c->ngroups : 1, sizeof *x->nlive);
    uint32_t *count = xcalloc(c->ngroups, sizeof *count);
    for (uint32_t nd = 0; nd < c->nnodes; nd++)
        x->gidx[nd] = count[c->nodes[nd].group]++;
    for (uint32_t g = 0; g < c->ngroups; g++) {
        uint32_t p = 1, n = c->groups[g].gpus_per_node;
        while (p < count[g])
            p *= 2;
        x->pow2[g] = p;
        x->seg[g] = xcalloc(n + 1, sizeof **x->seg);
        x->live[g] = xcalloc(n + 1, 1);
        x->lived[g] = xmalloc(n + 1);
        for (uint32_t d = 1; d <= n; d++) {
            struct seg *s = &x->seg[g][d];
            s->t = xmalloc(2 * p * sizeof *s->t);
            s->job = xmalloc(2 * p * sizeof *s->job);
            s->node = xmalloc(2 * p * sizeof *s->node);
            for (uint32_t i = 0; i < 2 * p; i++) {
                s->t[i] = T_NONE;
                s->job[i] = s->node[i] = SIM_NONE;
            }
        }
    }
    free(count);
    /* every node starts empty: all free */
    for (uint32_t nd = 0; nd < c->nnodes; nd++) {
        x->dirty[nd] = 1;
        x->dirty_list[x->ndirty++] = nd;
    }
    return x;
}

void vic_free(struct vic_index *x)
{
    if (!x)
        return;
    for (uint32_t g = 0; g < x->c->ngroups; g++) {
        for (uint32_t d = 1; d <= x->c->groups[g].gpus_per_node; d++) {
            free(x->seg[g][d].t);
            free(x->seg[g][d].job);
            free(x->seg[g][d].node);
        }
        free(x->seg[g]);
        free(x->live[g]);
        free(x->lived[g]);
    }
    free(x->live);
    free(x->lived);
    free(x->nlive);
    vic_lists_free(&x->l);
    free(x->seg);
    free(x->pow2);
    free(x->gidx);
    free(x->dirty);
    free(x->dirty_list);
    free(x->walk);
    free(x);
}

/* Running jobs on a node, latest finish first (ties: larger job first,
 * the order of srtf's running heap), with their GPU counts there, made
 * from its GPUs (vic_node_victims). */
struct onnode {
    uint32_t job, gpus;
    simtime_t finish_at;
};

static int cmp_onnode(const struct onnode *x, const struct onnode *y)
{
    if (x->finish_at != y->finish_at)
        return x->finish_at < y->finish_at ? 1 : -1;
    return (x->job < y->job) - (x->job > y->job);
}

static uint32_t jobs_on(const struct pol_view *v, uint32_t nd, struct onnode *out)
{
    const struct clu_node *n = &v->clu->nodes[nd];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n->ngpus; i++) {
        uint32_t j = v->clu->gpu_job[n->first_gpu + i];
        if (j == SIM_NONE)
            continue;
        uint32_t m;
        for (m = 0; m < k && out[m].job != j; m++)
            ;
        if (m == k)
            out[k++] = (struct onnode){ j, 0, pol_rt(v, j)->finish_at };
        out[m].gpus++;
    }
    /* an insertion sort: a node holds few jobs (qsort's calls cost more) */
    for (uint32_t i = 1; i < k; i++) {
        struct onnode e = out[i];
        uint32_t m = i;
        for (; m > 0 && cmp_onnode(&out[m - 1], &e) > 0; m--)
            out[m] = out[m - 1];
        out[m] = e;
    }
    return k;
}

/* ------------------------------------------------ per-node job lists */

void vic_lists_init(struct vic_lists *l, const struct cluster *c)
{
    l->n = xcalloc(c->nnodes ? c->nnodes : 1, 1);
    l->job = xmalloc((c->ngpus ? c->ngpus : 1) * sizeof *l->job);
    l->gpus = xmalloc(c->ngpus ? c->ngpus : 1);
    l->key = xmalloc((c->ngpus ? c->ngpus : 1) * sizeof *l->key);
    l->unkept = true;           /* nothing read yet */
    l->changes = 0;
}

void vic_lists_free(struct vic_lists *l)
{
    free(l->n);
    free(l->job);
    free(l->gpus);
    free(l->key);
}

/* Whether entry a of a list comes before entry b. */
static inline bool list_before(const struct vic_lists *l, uint32_t a, uint32_t b)
{
    return l->key[a] > l->key[b] || (l->key[a] == l->key[b] && l->job[a] > l->job[b]);
}

static inline void list_swap(struct vic_lists *l, uint32_t a, uint32_t b)
{
    uint32_t j = l->job[a];
    uint8_t g = l->gpus[a];
    int64_t k = l->key[a];
    l->job[a] = l->job[b];
    l->gpus[a] = l->gpus[b];
    l->key[a] = l->key[b];
    l->job[b] = j;
    l->gpus[b] = g;
    l->key[b] = k;
}

/* The list of the node whose GPUs start at o (k jobs) with job holding c
 * GPUs there (0: not there) at key; returns how many it holds.  Moved by
 * swaps: a list holds a few jobs, and shifting the three arrays would be
 * a call to memmove each. */
static uint32_t list_set(struct vic_lists *l, uint32_t o, uint32_t k, uint32_t job,
                         uint32_t c, int64_t key)
{
    uint32_t i = 0;
    while (i < k && l->job[o + i] != job)
        i++;
    if (!c) {                   /* out: to the end, and dropped */
        if (i == k)
            return k;
        for (; i + 1 < k; i++)
            list_swap(l, o + i, o + i + 1);
        return k - 1;
    }
    k += i == k;
    l->job[o + i] = job;
    l->gpus[o + i] = (uint8_t)c;
    l->key[o + i] = key;
    for (; i > 0 && list_before(l, o + i, o + i - 1); i--)
        list_swap(l, o + i, o + i - 1);
    for (; i + 1 < k && list_before(l, o + i + 1, o + i); i++)
        list_swap(l, o + i, o + i + 1);
    return k;
}

void vic_lists_job(struct vic_lists *l, const struct pol_view *v, uint32_t job,
                   bool on, int64_t key, void (*mark)(void *ctx, uint32_t node),
                   void *ctx)
{
    const struct cluster *c = v->clu;
    if (l->unkept)
        return;
    if (++l->changes > c->nnodes + 64u) {       /* unread too long */
        l->unkept = true;
        for (uint32_t nd = 0; nd < c->nnodes; nd++)
            mark(ctx, nd);
        return;
    }
    const struct job_rt *r = pol_rt(v, job);
    for (uint32_t k = 0, n = v->jobs[job].num_gpus; k < n;) {
        uint32_t nd = c->gpu_node[r->gpus[k]], g = 1;
        while (++k < n && c->gpu_node[r->gpus[k]] == nd)    /* sorted: a run */
            g++;
        l->n[nd] = (uint8_t)list_set(l, c->nodes[nd].first_gpu, l->n[nd], job,
                                     on ? g : 0, key);
        mark(ctx, nd);
    }
}

/* Node nd's list as its GPUs give it (one job a GPU, as the cluster
 * records it), each job's key being key(ctx, v, job), into m from place o
 * on; returns how many jobs.  An insertion of every job, as list_set does,
 * so the order is the one kept lists have. */
static uint32_t list_from_gpus(struct vic_lists *m, uint32_t o,
                               const struct pol_view *v, uint32_t nd,
                               int64_t (*key)(const void *ctx,
                                              const struct pol_view *v,
                                              uint32_t job),
                               const void *ctx)
{
    const struct clu_node *n = &v->clu->nodes[nd];
    const uint32_t *gpu_job = v->clu->gpu_job + n->first_gpu;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n->ngpus; i++) {
        uint32_t j = gpu_job[i], p = 0;
        if (j == SIM_NONE)
            continue;
        while (p < k && m->job[o + p] != j)
            p++;
        if (p == k) {
            m->job[o + k] = j;
            m->gpus[o + k++] = 0;
        }
        m->gpus[o + p]++;
    }
    for (uint32_t i = 0; i < k; i++) {
        m->key[o + i] = key(ctx, v, m->job[o + i]);
        for (uint32_t p = i; p > 0 && list_before(m, o + p, o + p - 1); p--)
            list_swap(m, o + p, o + p - 1);
    }
    return k;
}

void vic_lists_read(struct vic_lists *l, const struct pol_view *v,
                    int64_t (*key)(const void *ctx, const struct pol_view *v,
                                   uint32_t job),
                    const void *ctx)
{
    if (l->unkept) {
        for (uint32_t nd = 0; nd < v->clu->nnodes; nd++)
            l->n[nd] = (uint8_t)list_from_gpus(l, v->clu->nodes[nd].first_gpu,
                                               v, nd, key, ctx);
        l->unkept = false;
    }
    l->changes = 0;
}

bool vic_lists_match(const struct vic_lists *l, const struct pol_view *v,
                     uint32_t nd, int64_t (*key)(const void *ctx,
                                                 const struct pol_view *v,
                                                 uint32_t job),
                     const void *ctx)
{
    struct vic_lists m = { .job = (uint32_t[64]){ 0 },
                           .gpus = (uint8_t[64]){ 0 },
                           .key = (int64_t[64]){ 0 } };
    uint32_t k = list_from_gpus(&m, 0, v, nd, key, ctx);
    uint32_t o = v->clu->nodes[nd].first_gpu;
    if (k != l->n[nd])
        return false;
    for (uint32_t i = 0; i < k; i++)
        if (m.job[i] != l->job[o + i] || m.gpus[i] != l->gpus[o + i] ||
            m.key[i] != l->key[o + i])
            return false;
    return true;
}

/* ------------------------------------------------------- victim index */

static int64_t finish_key(const void *ctx, const struct pol_view *v, uint32_t job)
{
    (void)ctx;
    return pol_rt(v, job)->finish_at;
}

static void mark_dirty(void *ctx, uint32_t nd)
{
    struct vic_index *x = ctx;
    if (!x->dirty[nd]) {
        x->dirty[nd] = 1;
        x->dirty_list[x->ndirty++] = nd;
    }
}

void vic_touch_job(struct vic_index *x, const struct pol_view *v, uint32_t job)
{
    vic_lists_job(&x->l, v, job, pol_state(v, job) == JOB_RUNNING,
                  pol_rt(v, job)->finish_at, mark_dirty, x);
}

/* Node nd's threshold for d GPUs from its list: *t and *job of the job
 * where the count from its free GPUs reaches d (SIM_NEVER and SIM_NONE
 * when d are free); *m, *acc carry the count from a smaller demand. */
static inline void threshold(const struct vic_index *x, uint32_t nd, uint32_t d,
                             uint32_t *m, uint32_t *acc, simtime_t *t,
                             uint32_t *job)
{
    const struct clu_node *n = &x->c->nodes[nd];
    uint32_t o = n->first_gpu, k = x->l.n[nd];
    DL_ASSERT(!x->l.unkept);
    *t = SIM_NEVER;
    *job = SIM_NONE;
    while (*acc < d && *m < k)
        *acc += x->l.gpus[o + (*m)++];
    if (d > n->nfree) {
        *t = x->l.key[o + *m - 1];
        *job = x->l.job[o + *m - 1];
    }
}

#ifndef NDEBUG
/* Node nd's list is the one made from its GPUs now. */
static void list_check(const struct vic_index *x, const struct pol_view *v,
                       uint32_t nd)
{
    DL_ASSERT(vic_lists_match(&x->l, v, nd, finish_key, NULL));
}
#endif

static void seg_set(struct seg *s, uint32_t p, uint32_t leaf, simtime_t t,
                    uint32_t job, uint32_t node)
{
    uint32_t i = p + leaf;
    if (s->t[i] == t && s->job[i] == job && s->node[i] == node)
        return;
    s->t[i] = t;
    s->job[i] = job;
    s->node[i] = node;
    for (i /= 2; i >= 1; i /= 2) {
        uint32_t l = 2 * i, r = l + 1;
        /* larger threshold wins; ties: the lower node, for determinism */
        uint32_t w = s->t[r] > s->t[l] ||
                     (s->t[r] == s->t[l] && s->node[r] < s->node[l]) ? r : l;
        /* an ancestor that keeps its winner keeps the rest of the path:
         * each position is a function of its children alone (a gang
         * leaving 125 nodes no longer pays 125 full paths per demand) */
        if (s->t[i] == s->t[w] && s->job[i] == s->job[w] &&
            s->node[i] == s->node[w])
            return;
        s->t[i] = s->t[w];
        s->job[i] = s->job[w];
        s->node[i] = s->node[w];
    }
}

static void refresh(struct vic_index *x, const struct pol_view *v)
{
    vic_lists_read(&x->l, v, finish_key, NULL);
    for (size_t k = 0; k < x->ndirty; k++) {
        uint32_t nd = x->dirty_list[k];
        x->dirty[nd] = 0;
#ifndef NDEBUG
        list_check(x, v, nd);
#endif
        uint32_t g = v->clu->nodes[nd].group, m = 0, acc = v->clu->nodes[nd].nfree;
        for (uint32_t i = 0; i < x->nlive[g]; i++) {
            uint32_t d = x->lived[g][i], job;
            simtime_t t;
            threshold(x, nd, d, &m, &acc, &t, &job);
            seg_set(&x->seg[g][d], x->pow2[g], x->gidx[nd], t, job, nd);
        }
    }
    x->ndirty = 0;
}

/* The tree of group g for demand d, kept from now on: every node's leaf
 * from its list (refresh keeps it after). */
static void seg_make(struct vic_index *x, const struct pol_view *v, uint32_t g,
                     uint32_t d)
{
    for (uint32_t nd = 0; nd < x->c->nnodes; nd++) {
        if (x->c->nodes[nd].group != g)
            continue;
#ifndef NDEBUG
        list_check(x, v, nd);
#else
        (void)v;
#endif
        uint32_t m = 0, acc = x->c->nodes[nd].nfree, job;
        simtime_t t;
        threshold(x, nd, d, &m, &acc, &t, &job);
        seg_set(&x->seg[g][d], x->pow2[g], x->gidx[nd], t, job, nd);
    }
    x->live[g][d] = 1;
    uint32_t i = x->nlive[g]++;
    for (; i > 0 && x->lived[g][i - 1] > d; i--)
        x->lived[g][i] = x->lived[g][i - 1];
    x->lived[g][i] = (uint8_t)d;
}

/* seg_make where the tree is not kept yet (one test inline). */
static inline void seg_use(struct vic_index *x, const struct pol_view *v,
                           uint32_t g, uint32_t d)
{
    if (!x->live[g][d])
        seg_make(x, v, g, d);
}

uint32_t vic_best_node(struct vic_index *x, const struct pol_view *v,
                       uint32_t d, uint32_t t, uint32_t *threshold_job)
{
    refresh(x, v);
    const struct cluster *c = v->clu;
    uint32_t best = SIM_NONE;
    simtime_t bt = T_NONE;
    *threshold_job = SIM_NONE;
    for (uint32_t g = 0; g < c->ngroups; g++) {
        if (c->groups[g].type != t || c->groups[g].gpus_per_node < d)
            continue;
        seg_use(x, v, g, d);
        const struct seg *s = &x->seg[g][d];
        if (s->t[1] > bt || (s->t[1] == bt && s->node[1] < best)) {
            bt = s->t[1];
            best = s->node[1];
            *threshold_job = s->job[1];
        }
    }
    return best;
}

uint32_t vic_victims(struct vic_index *x, const struct pol_view *v,
                     uint32_t node, uint32_t d, uint32_t *jobs)
{
    /* stops since the refresh may have ended the keeping */
    vic_lists_read(&x->l, v, finish_key, NULL);
#ifndef NDEBUG
    list_check(x, v, node);
#endif
    uint32_t o = x->c->nodes[node].first_gpu, nj = x->l.n[node];
    uint32_t acc = x->c->nodes[node].nfree, k = 0;
    for (uint32_t m = 0; m < nj && acc < d; m++) {
        acc += x->l.gpus[o + m];
        jobs[k++] = x->l.job[o + m];
    }
    return k;
}

uint32_t vic_node_victims(const struct pol_view *v, uint32_t node, uint32_t d,
                          uint32_t *jobs)
{
    struct onnode on[64];
    uint32_t nj = jobs_on(v, node, on), acc = v->clu->nodes[node].nfree, k = 0;
    for (uint32_t m = 0; m < nj && acc < d; m++) {
        acc += on[m].gpus;
        jobs[k++] = on[m].job;
    }
    return k;
}

/* Tree positions in a small max-heap on (t, lower node first). */
struct poswalk {
    uint32_t *a;
    size_t n, cap;
    const struct seg *s;
};

static inline bool pos_above(const struct poswalk *w, const uint32_t *a,
                             const uint32_t *b)
{
    const struct seg *s = w->s;
    return s->t[*a] > s->t[*b] || (s->t[*a] == s->t[*b] && s->node[*a] < s->node[*b]);
}

HEAP_DEFINE_AT(pw, struct poswalk, uint32_t, pos_above, HEAP_NOPLACE)

uint32_t vic_top_nodes(struct vic_index *x, const struct pol_view *v,
                       uint32_t group, uint32_t d, uint32_t k, uint32_t *nodes,
                       uint32_t *tjobs, bool (*ok)(const struct pol_view *,
                                                   uint32_t job, void *),
                       void *ctx)
{
    refresh(x, v);
    seg_use(x, v, group, d);
    const struct seg *s = &x->seg[group][d];
    uint32_t p = x->pow2[group], found = 0;
    /* each inner position popped adds one waiting position; at most
     * depth inner positions lie above each leaf found */
    uint32_t depth = 1;
    while ((1u << depth) <= p)
        depth++;
    xgrow(&x->walk, &x->capwalk, ((size_t)k + 1) * (depth + 2), sizeof *x->walk);
    struct poswalk h = { x->walk, 0, x->capwalk, s };
    /* a subtree whose best threshold job may not stop holds no eligible
     * node: thresholds order the jobs by remaining work */
    if (s->t[1] != T_NONE && ok(v, s->job[1], ctx))
        pw_push(&h, 1);
    /* best-first walk of the tree: pop the best position, output a leaf,
     * push an inner node's children */
    while (h.n && found < k) {
        uint32_t top = pw_pop(&h);
        if (top >= p) {
            nodes[found] = s->node[top];
            tjobs[found++] = s->job[top];
            continue;
        }
        for (uint32_t c = 2 * top; c <= 2 * top + 1; c++)
            if (s->t[c] != T_NONE && ok(v, s->job[c], ctx))
                pw_push(&h, c);
    }
    x->walk = h.a;              /* (sized above: never regrown) */
    x->capwalk = h.cap;
    return found;
}

/* ------------------------------------------------ room were GPUs freed */

static void freed_make(struct vic_freed *s, const struct cluster *c)
{
    if (!s->add) {
        s->add = xcalloc(c->nnodes ? c->nnodes : 1, sizeof *s->add);
        s->tadd = xcalloc(c->ntypes ? c->ntypes : 1, sizeof *s->tadd);
    }
}

void vic_freed_add(struct vic_freed *s, const struct pol_view *v,
                   const uint32_t *gpus, uint32_t n)
{
    const struct cluster *c = v->clu;
    freed_make(s, c);
    if (s->n + n > s->cap)
        xgrow(&s->a, &s->cap, s->n + n, sizeof *s->a);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nd = c->gpu_node[gpus[i]];
        if (!s->add[nd]++)
            s->a[s->n++] = nd;
        s->tadd[c->nodes[nd].type]++;
#ifndef NDEBUG
        DL_ASSERT(c->nodes[nd].nfree + s->add[nd] <= c->nodes[nd].ngpus);
#endif
    }
}

/* The placement rules' test of existence (sim/cluster/placement.c:
 * place_type, its single, multi and pool cases) on the free counts the
 * cluster would have with s->add[nd] more GPUs free on each node nd of
 * s->a: a node not listed keeps its bucket; a listed one leaves the bucket
 * of its free count now for the one of its count then. */
static bool fits_freed(const struct cluster *c, const struct vic_freed *s,
                       uint32_t ngpus, uint32_t req_type, enum plc_mode mode)
{
    const uint32_t *nodes = s->a, *add = s->add;
    size_t m = s->n;
    for (uint32_t i = 0; i < c->ntypes; i++) {
        uint32_t t = req_type != SIM_NONE ? req_type : c->type_order[i];
        bool fits = (uint64_t)c->types[t].free_gpus + s->tadd[t] >= ngpus;
        bool single = false;
        for (uint32_t g = 0; g < c->ngroups && fits; g++)
            single |= c->groups[g].type == t && c->groups[g].gpus_per_node >= ngpus;
        if (fits && mode == PLC_CONSOLIDATED && single) {
            /* some node of a group of such nodes with ngpus free */
            fits = false;
            for (uint32_t g = 0; g < c->ngroups && !fits; g++) {
                const struct clu_group *gr = &c->groups[g];
                if (gr->type != t || gr->gpus_per_node < ngpus)
                    continue;
                for (uint32_t f = ngpus; f <= gr->gpus_per_node && !fits; f++)
                    fits = gr->bucket_count[f] > 0;
            }
            for (size_t k = 0; k < m && !fits; k++) {
                const struct clu_node *no = &c->nodes[nodes[k]];
                fits = no->type == t && no->ngpus >= ngpus &&
                       no->nfree + add[nodes[k]] >= ngpus;
            }
        } else if (fits && mode == PLC_CONSOLIDATED) {
            /* whole nodes of one group, and the remainder on one more */
            fits = false;
            for (uint32_t g = 0; g < c->ngroups && !fits; g++) {
                const struct clu_group *gr = &c->groups[g];
                if (gr->type != t)
                    continue;
                uint32_t sz = gr->gpus_per_node, whole = ngpus / sz,
                         rem = ngpus % sz;
                uint64_t avail = gr->bucket_count[sz], part = 0;
                for (uint32_t f = rem ? rem : sz; f < sz; f++)
                    part += gr->bucket_count[f];
                for (size_t k = 0; k < m; k++) {
                    const struct clu_node *no = &c->nodes[nodes[k]];
                    if (no->group != g)
                        continue;
                    uint32_t now = no->nfree + add[nodes[k]];
                    part -= rem && no->nfree >= rem;    /* < sz: a GPU busy */
                    avail += now == sz;
                    part += rem && now >= rem && now < sz;
                }
                fits = avail >= whole && (!rem || avail > whole || part > 0);
            }
        }
        if (fits)
            return true;
        if (req_type != SIM_NONE)
            break;
    }
    return false;
}

bool vic_freed_fits(struct vic_freed *s, const struct pol_view *v,
                    uint32_t ngpus, uint32_t req_type, enum plc_mode mode)
{
    freed_make(s, v->clu);
    return fits_freed(v->clu, s, ngpus, req_type, mode);
}

void vic_freed_clear(struct vic_freed *s, const struct pol_view *v)
{
    for (size_t k = 0; k < s->n; k++)
        s->add[s->a[k]] = 0;
    if (s->tadd)
        memset(s->tadd, 0, v->clu->ntypes * sizeof *s->tadd);
    s->n = 0;
}

void vic_freed_free(struct vic_freed *s)
{
    free(s->a);
    free(s->add);
    free(s->tadd);
    memset(s, 0, sizeof *s);
}
