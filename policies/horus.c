/*
 * policies/horus.c - Horus (Yeung et al., IEEE TPDS 2022): interference-
 * aware placement from predicted GPU utilization, and Horus+.
 * ../shared/POLICIES.md says what is known of it; the defaults below are
 * the published values (from the authors' public simulator).
 *
 * Prediction.  Each job's utilization u_j is the models' prediction
 * (pol_pred_util: the regressor over graph features with --models
 * util, else the true solo utilization; both with predict.util_noise), in
 * percent below.  Interference itself comes from the simulator's slowdown
 * model, never from this file.
 *
 * Queue.  A min-heap on predicted utilization (lowest first, ties by
 * arrival).  At each instant: look at the first `lookahead` jobs in order
 * and start the first that can be placed; repeat while something starts.
 * Non-preemptive.
 *
 * Device cost of job t on GPU d (of capacity c GB):
 *     mem  = (mem_used(d) + mem(t)) / c
 *     s    = U(d) + u_t - 100        U(d) = sum of the predicted
 *                                    utilizations of d's jobs (percent)
 *     cost = w_mem * mem + (s > 0 ? w_over * s : -s) / 100 + residents(d)
 * (the published code's operator-precedence slip in the memory term is
 * not reproduced).  A GPU is a candidate when it holds fewer than
 * `max_per_gpu` jobs (and fewer than the run's max_jobs_per_gpu) and,
 * when shared, keeps at least `mem_reserve` GB free; an exclusive GPU
 * needs only mem(t) <= c.  Unknown memory counts as 0 GB.
 *
 * Placement of a gang of g GPUs on one GPU type: candidate anchors are the
 * `anchors` nodes with the lowest minimum device cost; from each anchor,
 * take its candidate GPUs cheapest first, then those of the nodes of the
 * same rack, then of the other racks (nodes by their minimum cost, ties by
 * index); keep the plan with the fewest nodes, ties the lowest anchor
 * cost, then the fastest type (the cluster's type order), then the lowest
 * anchor index.  A free GPU always costs less than a shared one (cost < 1
 * + residents), so for a gang that fits one node, a node with enough free
 * GPUs is the best plan: the fast path asks the shared placement
 * (pol_place, fullest node first) for it, on the type whose exclusive cost
 * is lowest; only otherwise, and for gangs larger than a node (whose plan
 * follows racks), is the full plan computed.  Two readings find it without
 * costing every GPU of the type with room, each exact (the same plan;
 * scan=full costs every one, the reference the tests compare with): while
 * a free GPU costs less than any shared one can (c0 below a lower bound of
 * the shared cost), the nodes with a free GPU lead the plan order, all at
 * c0, in index order, so a plan that reads only them is read from them
 * (plan_free_first); and where many GPUs have room, the nodes are read in
 * plan order, as far as the plans read them, by a best-first walk of a
 * tree of per-node lower bounds on the cost, by band of utilization, that
 * passes over the subtrees where no GPU has room for the job's memory
 * (tree_next).  Otherwise the full scan (O(GPUs of the type with room)).
 * Before either, a type is passed over when fewer of its GPUs could take
 * the job than the gang needs (cands_at_most: the GPUs counted by level
 * of their room for memory).
 *
 * Both readings.  The defaults above are the paper's evident intent.
 * variant=authors reads the authors' public simulator literally, through
 * four options that may also be given alone (each defaults to "variant":
 * its base value, or the authors' one under variant=authors):
 *   gpu_order=index  within a node, the plan takes the candidate GPUs in
 *                    index order, not cheapest first: the first GPUs with
 *                    fewer than max_per_gpu tasks (and the memory), free
 *                    or not (their Node.try_reserve_and_placed_task walks
 *                    device_cache in order), so a job co-locates next to
 *                    an idle GPU of the same node; the fast path is off
 *                    (nodes are still ranked by their minimum cost);
 *   cap_util=1       U(d) counts at most 100 (their
 *                    Device.get_current_utilization sums min(100, ...)),
 *                    so an overloaded GPU looks no worse than a full one;
 *   anchors=tasks    as many candidate anchors as the job has tasks (its
 *                    GPU count; their heap of nodes keeps gpu_demand
 *                    entries -- of which, since each node is pushed once
 *                    per task, the distinct nodes can be fewer: dlsim
 *                    takes that many distinct nodes);
 *   one_start=1      at most one start per instant (their loop calls the
 *                    scheduler once per time step and it returns one job);
 *                    tick=S then asks for the next try S seconds later
 *                    while jobs wait (their step is one time unit: tick=1
 *                    under variant=authors; 0 = at the next event).
 * Not reproduced: their Device draws each resident's utilization from a
 * normal distribution at every cost evaluation, and needs 500 MiB free
 * on a free GPU too.
 *
 * Speed (w_speed=W, default 0): on a heterogeneous cluster the paper's
 * cost does not see GPU speed; with W > 0 every device cost on type t
 * gains W * (T_t / T_best - 1), T the job's predicted solo run time
 * (pol_pred_runtime) on t and T_best its least over the types it may use.
 * A shared GPU then costs at least 1 plus its type's term, so the fast
 * path is taken only when the best free placement costs no more than
 * that; otherwise every type's full plan is compared.
 *
 * Horus+ (variant=plus): `queues` queues formed by one-dimensional k-means
 * (Lloyd, from evenly spread quantiles, 50 iterations) over the predicted
 * utilizations of all jobs of the trace -- an offline clustering of job
 * types, as the features are known before a job runs; each job joins the
 * queue of its nearest centre.  Queues are served in order of their credit
 * = length x mean pending time (the paper says median; the mean costs O(1)
 * per change and is documented as a deviation), each with the look-ahead
 * above, while something starts.
 */
#include "policies/policy.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bands of predicted utilization in the bound tree: HBANDS - 1 equal ones
 * over [0, 100) %, then 100 % and more. */
#define HBANDS 8

/* Levels of a GPU's room for memory (room_level): HROOMS equal steps of
 * the type's capacity below it, then the capacity and more. */
#define HROOMS 16

struct hitem {
    double key;                 /* predicted util */
    uint32_t job;
    uint32_t failed;            /* epoch of its last failed placement, 0 none */
    uint32_t g, req;            /* its GPUs and required type (SIM_NONE: any),
                                 * read without touching the job's records */
};

struct hheap {
    struct hitem *a;
    size_t n, cap;
    double sum_since;           /* sum of queued_since (us) of its jobs */
    /* the positions of its first jobs in order (peek_first), while it is
     * unchanged since: npeek of them, or SIM_NONE when not known */
    uint32_t *peek, npeek;
};

/* Nodes with candidates, a min-heap on (minimum cost, index): a plan
 * takes them in that order, and mostly needs only the first few. */
struct nheap {
    uint32_t *a;
    size_t n, cap;
    const double *cost;
};

/* The frontier of a best-first walk of a bound tree: subtrees by (a lower
 * bound on their nodes' minimum cost, their first leaf), and nodes (leaves)
 * by (their minimum cost, position) once costed (exact). */
struct tent {
    double key;
    uint32_t pos, i;            /* first leaf's position; tree index */
    bool exact;
};

struct theap {
    struct tent *a;
    size_t n, cap;
};

/* Positions in a job heap, a min-heap in that heap's order: the look-ahead
 * reads the first jobs of a queue in order without taking them out. */
struct pheap {
    uint32_t *a;
    size_t n, cap;
    const struct hheap *src;
};

struct horus {
    enum plc_mode mode;
    uint32_t lookahead, max_per_gpu, anchors, nq;
    double mem_reserve, w_mem, w_over, w_speed;
    bool plus;
    bool index_order;           /* gpu_order=index */
    bool cap_util;              /* U(d) capped at 100 */
    bool anchors_tasks;         /* anchors=tasks: the job's GPU count */
    bool one_start;             /* at most one start per instant */
    bool full_scan;             /* scan=full: every plan by the full scan */
    simtime_t tick;             /* one_start: wake this long after a start */
    double *pen;                /* [ntypes] w_speed term of the job placed */
    struct hheap *q;            /* [nq] */
    double *centre;             /* [nq] (plus) */
    size_t size;
    /* cluster views, built at first use */
    const struct cluster *c;
    double *pu;                 /* [ngpus] predicted util sum, percent */
    uint32_t limit;             /* min(max_per_gpu, the run's max_share) */
    uint32_t **open;            /* [ntypes] GPUs holding < limit jobs */
    uint32_t *nopen;            /* [ntypes] */
    uint32_t *opos;             /* [ngpus] index in open[type], or SIM_NONE */
    uint32_t *stamp;            /* [nnodes] plan_type's visit marks */
    uint32_t cur;
    /* scratch */
    double *ncost;              /* [nnodes] minimum candidate cost */
    uint32_t *ncand;            /* [nnodes] candidate GPUs */
    uint32_t *order;            /* [nnodes] the first nsorted, in order */
    uint32_t nsorted;
    struct nheap nodeq;         /* [nnodes] the rest */
    double *gcost;              /* [ngpus] */
    uint32_t *plan, *best;      /* [ngpus] */
    uint32_t *gbuf;             /* [ngpus] */
    uint32_t *visit;            /* [nnodes] */
    /* each type's nodes in index order, a bit for each set when the node
     * holds a free GPU (kept by started and finished) */
    uint32_t **tnodes;          /* [ntypes][ntn[t]] */
    uint32_t *ntn;              /* [ntypes] */
    uint32_t *tpos;             /* [nnodes] position in tnodes[its type] */
    uint64_t **freebits;        /* [ntypes][ntn[t] / 64 + 1] */
    /* the plan being made: job's util (percent), GB, type, its capacity
     * and speed term; reading only the nodes with a free GPU, from scan */
    double ju, jm, jcap, jpen;
    double jneed;               /* the least room (GB) a GPU may show and
                                 * still take the job: jm less a margin for
                                 * rounding (-inf: memory not modeled) */
    uint32_t jt, scan;
    enum { READ_HEAP, READ_FREE, READ_TREE } read;     /* node_at's source */
    /* per type, a tree over its nodes (leaf i: tnodes[t][i]) of the least
     * of two sums over the GPUs with room below, by band of predicted
     * utilization (+inf: none), whence a lower bound on any one's device
     * cost (node_bound), and the most memory one of them has room for
     * (node_bound: a subtree none of whose GPUs can take the job is not
     * walked) */
    struct hbound {
        uint32_t leaves;        /* a power of two */
        struct hsum {
            double p[HBANDS], q[HBANDS], room[HBANDS];
        } *s;                   /* [2 * leaves], 1 the root */
    } *bt;
    struct theap frontier;      /* READ_TREE: the bound tree's best-first
                                 * frontier (tree_next) */
    /* each GPU's level of room for memory (HROOMS + 1: it cannot take a
     * job), and how many GPUs of each type are at each level, kept by
     * started and finished: a bound on a job's candidates (cands_at_most) */
    uint8_t *glvl;              /* [ngpus] */
    uint32_t *tcnt;             /* [ntypes][HROOMS + 1] */
    uint8_t *bdirty;            /* [nnodes] a node's leaf is to be redone */
    uint32_t *dirty, ndirty;    /* [nnodes] those nodes */
    struct pheap pq;
    /* Whether a job can be placed depends only on the job and on the GPUs'
     * room (jobs held, memory), which a start only takes: a job whose
     * placement failed (hitem.failed) is not tried again until a job ends
     * (epoch counts the ends; fewer than 2^32, as the jobs are). */
    uint32_t epoch;
};

/* ------------------------------------------------------------ heap */

static bool hless(const struct hitem *a, const struct hitem *b)
{
    return a->key < b->key || (a->key == b->key && a->job < b->job);
}

HEAP_DEFINE(hq, struct hheap, struct hitem, hless)

static inline bool nbefore(const struct nheap *q, const uint32_t *x,
                           const uint32_t *y)
{
    double a = q->cost[*x], b = q->cost[*y];
    return a < b || (a == b && *x < *y);
}

HEAP_DEFINE_AT(nh, struct nheap, uint32_t, nbefore, HEAP_NOPLACE)

/* (key, first leaf): a subtree's entry comes before every node below it,
 * and no two entries present share a first leaf, so the order is total. */
static inline bool tbefore(const struct tent *x, const struct tent *y)
{
    return x->key < y->key || (x->key == y->key && x->pos < y->pos);
}

HEAP_DEFINE(th, struct theap, struct tent, tbefore)

static inline bool pbefore(const struct pheap *p, const uint32_t *x,
                           const uint32_t *y)
{
    return hless(&p->src->a[*x], &p->src->a[*y]);
}

HEAP_DEFINE_AT(ph, struct pheap, uint32_t, pbefore, HEAP_NOPLACE)

/* The positions of the first k jobs of q in order, into pos; how many.
 * O(k log k): a heap's i-th item in order is a child of one of the first
 * i - 1, so only their children are candidates. */
static uint32_t peek_first(struct pheap *p, const struct hheap *q, uint32_t k,
                           uint32_t *pos)
{
    uint32_t n = 0;
    p->src = q;
    p->n = 0;
    if (q->n)
        ph_push(p, 0);
    while (n < k && p->n) {
        uint32_t i = ph_pop(p);
        pos[n++] = i;
        for (size_t c = 2 * (size_t)i + 1; c <= 2 * (size_t)i + 2 && c < q->n; c++)
            ph_push(p, (uint32_t)c);
    }
    return n;
}



/* ------------------------------------------------------------ setup */

static void setup(struct horus *h, const struct pol_view *v);

static int create(void **state, const struct pol_args *args,
                  const struct pol_view *v, struct dl_error *err)
{
    struct horus *h = xcalloc(1, sizeof *h);
    long la, mx, an = 0, nq, cap, one;
    double tick;
    static const char *const variants[] = { "base", "plus", "authors", NULL };
    static const char *const orders[] = { "cost", "index", NULL };
    int var = 0, order = 0;
    int rc = pol_arg_enum(args, "variant", variants, &var, err);
    bool authors = var == 2;
    /* the readings variant=authors sets; each may be given alone */
    struct pol_args r = *args, *a = &r;
    pol_arg_variant(a, "gpu_order", authors ? "index" : "cost");
    pol_arg_variant(a, "cap_util", authors ? "1" : "0");
    pol_arg_variant(a, "anchors", authors ? "tasks" : "3");
    pol_arg_variant(a, "one_start", authors ? "1" : "0");
    pol_arg_variant(a, "tick", authors ? "1" : "0");
    if (!rc)
        rc = pol_arg_placement(a, &h->mode, err);
    if (!rc)
        rc = pol_arg_enum(a, "gpu_order", orders, &order, err);
    static const char *const scans[] = { "auto", "full", NULL };
    int scan = 0;
    if (!rc)
        rc = pol_arg_enum(a, "scan", scans, &scan, err);
    if (!rc)
        rc = pol_arg_long(a, "lookahead", 1, 1000, &la, err);
    if (!rc)
        rc = pol_arg_long(a, "max_per_gpu", 1, POL_MAX_SHARE, &mx, err);
    if (!rc && !strcmp(pol_arg_str(a, "anchors"), "tasks"))
        h->anchors_tasks = true;
    else if (!rc && pol_arg_long(a, "anchors", 1, 1 << 20, &an, err))
        rc = dl_fail(err, "--policy", 0, 0, "anchors=%s: expected a whole "
                     "number in [1, %d] or tasks", pol_arg_str(a, "anchors"),
                     1 << 20);
    if (!rc)
        rc = pol_arg_long(a, "queues", 1, 64, &nq, err);
    if (!rc)
        rc = pol_arg_double(a, "mem_reserve", 0, 1e6, &h->mem_reserve, err);
    if (!rc)
        rc = pol_arg_double(a, "w_mem", 0, 1e6, &h->w_mem, err);
    if (!rc)
        rc = pol_arg_double(a, "w_over", 0, 1e6, &h->w_over, err);
    if (!rc)
        rc = pol_arg_double(a, "w_speed", 0, 1e6, &h->w_speed, err);
    if (!rc)
        rc = pol_arg_long(a, "cap_util", 0, 1, &cap, err);
    if (!rc)
        rc = pol_arg_long(a, "one_start", 0, 1, &one, err);
    if (!rc)
        rc = pol_arg_double(a, "tick", 0, 1e9, &tick, err);
    if (rc) {
        free(h);
        return rc;
    }
    h->index_order = order == 1;
    h->full_scan = scan == 1;
    h->lookahead = (uint32_t)la;
    h->max_per_gpu = (uint32_t)mx;
    h->anchors = (uint32_t)an;
    h->plus = var == 1;
    h->cap_util = cap;
    h->one_start = one;
    h->tick = (simtime_t)llround(tick * (double)SIM_US_PER_S);
    h->nq = h->plus ? (uint32_t)nq : 1;
    h->q = xcalloc(h->nq, sizeof *h->q);
    h->centre = xcalloc(h->nq, sizeof *h->centre);
    for (uint32_t i = 0; i < h->nq; i++) {
        h->q[i].peek = xcalloc(h->lookahead, sizeof *h->q[i].peek);
        h->q[i].npeek = SIM_NONE;
    }
    h->epoch = 1;
    setup(h, v);
    *state = h;
    return 0;
}

static void destroy(void *state)
{
    struct horus *h = state;
    for (uint32_t i = 0; i < h->nq; i++) {
        free(h->q[i].a);
        free(h->q[i].peek);
    }
    free(h->q);
    free(h->centre);
    free(h->pq.a);
    free(h->pen);
    free(h->pu);
    if (h->open)
        for (uint32_t t = 0; t < h->c->ntypes; t++)
            free(h->open[t]);
    free(h->open);
    free(h->nopen);
    free(h->opos);
    free(h->stamp);
    free(h->ncost);
    free(h->ncand);
    free(h->order);
    free(h->nodeq.a);
    free(h->frontier.a);
    free(h->gcost);
    free(h->plan);
    free(h->best);
    free(h->gbuf);
    free(h->visit);
    for (uint32_t t = 0; h->bt && t < h->c->ntypes; t++) {
        free(h->tnodes[t]);
        free(h->freebits[t]);
        free(h->bt[t].s);
    }
    free(h->bt);
    free(h->bdirty);
    free(h->dirty);
    free(h->glvl);
    free(h->tcnt);
    free(h->tnodes);
    free(h->freebits);
    free(h->ntn);
    free(h->tpos);
    free(h);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Horus+: k-means centres over every job's predicted utilization. */
static void cluster_queues(struct horus *h, const struct pol_view *v)
{
    uint32_t n = v->njobs, k = h->nq;
    double *u = xmalloc((n ? n : 1) * sizeof *u);
    for (uint32_t j = 0; j < n; j++)
        u[j] = pol_pred_util(v, j);
    qsort(u, n, sizeof *u, cmp_double);
    for (uint32_t i = 0; i < k; i++)
        h->centre[i] = n ? u[(size_t)((2 * i + 1) * (uint64_t)n / (2 * k))] : 0;
    double *sum = xcalloc(k, sizeof *sum);
    size_t *cnt = xcalloc(k, sizeof *cnt);
    for (int it = 0; it < 50; it++) {
        memset(sum, 0, k * sizeof *sum);
        memset(cnt, 0, k * sizeof *cnt);
        uint32_t c = 0;
        for (uint32_t j = 0; j < n; j++) {  /* u sorted: centres ascending */
            while (c + 1 < k && fabs(u[j] - h->centre[c + 1]) < fabs(u[j] - h->centre[c]))
                c++;
            sum[c] += u[j];
            cnt[c]++;
        }
        bool moved = false;
        for (uint32_t i = 0; i < k; i++)
            if (cnt[i] && sum[i] / cnt[i] != h->centre[i]) {
                h->centre[i] = sum[i] / cnt[i];
                moved = true;
            }
        if (!moved)
            break;
    }
    free(sum);
    free(cnt);
    free(u);
}

/* No GPU with room: every band's least P and Q infinite. */
static inline struct hsum hsum_none(void)
{
    struct hsum m;
    for (int i = 0; i < HBANDS; i++) {
        m.p[i] = m.q[i] = INFINITY;
        m.room[i] = -INFINITY;
    }
    return m;
}

/* The memory (GB) GPU g of capacity cap has room for, as device_cost
 * tests it: a shared GPU keeps mem_reserve free. */
static inline double gpu_room(const struct horus *h, const struct pol_view *v,
                              uint32_t g, double cap)
{
    return cap <= 0 ? INFINITY
         : v->nocc[g] ? cap - h->mem_reserve - v->mem_used[g] : cap;
}

/* The level of room x (GB) on a GPU of capacity cap: monotone in x, so a
 * GPU with room for a job is at the level of the job's need or above. */
static inline uint32_t room_level(double x, double cap)
{
    if (!(x > 0))
        return 0;
    if (cap <= 0 || x >= cap)
        return HROOMS;
    double l = x * HROOMS / cap;
    return l >= HROOMS ? HROOMS : (uint32_t)l;
}

/* At most how many GPUs of type t could take the job being planned: those
 * with room at the level of its need or above. */
static uint64_t cands_at_most(const struct horus *h, uint32_t t)
{
    const uint32_t *tc = &h->tcnt[(size_t)t * (HROOMS + 1)];
    uint64_t n = 0;
    for (uint32_t l = room_level(h->jneed, h->jcap); l <= HROOMS; l++)
        n += tc[l];
    return n;
}

/* Node nd's leaf of the bound tree from its GPUs now, and its ancestors
 * while they change.  With A = w_mem * used / cap + residents and U the
 * predicted utilization (as the cost reads it), a GPU's device cost
 * without the job's own terms is A + max(-s, w_over * s) / 100, s = U +
 * u - 100: the larger of P - (u - 100) / 100 and Q + w_over * (u - 100) /
 * 100, with P = A - U / 100 and Q = A + w_over * U / 100.  A node holds,
 * for each band of U, the least P and the least Q of its GPUs with room
 * there; the larger of the two sums from them is a lower bound on the
 * band's cost, close when the band is narrow. */
static void bound_leaf(struct horus *h, const struct pol_view *v, uint32_t nd)
{
    const struct clu_node *n = &h->c->nodes[nd];
    struct hbound *b = &h->bt[n->type];
    double cap = h->c->types[n->type].memory_gb;
    struct hsum m = hsum_none();
    for (uint32_t k = 0; k < n->ngpus; k++) {
        uint32_t g = n->first_gpu + k;
        if (h->opos[g] == SIM_NONE)
            continue;
        double U = h->cap_util && h->pu[g] > 100 ? 100 : h->pu[g];
        double A = (cap > 0 ? h->w_mem * v->mem_used[g] / cap : 0) + v->nocc[g];
        uint32_t i = U >= 100 ? HBANDS - 1
                   : U > 0 ? (uint32_t)(U * (HBANDS - 1) / 100) : 0;
        m.p[i] = pol_dmin(m.p[i], A - U / 100);
        m.q[i] = pol_dmin(m.q[i], A + h->w_over * U / 100);
        m.room[i] = pol_dmax(m.room[i], gpu_room(h, v, g, cap));
    }
    uint32_t i = b->leaves + h->tpos[nd];
    b->s[i] = m;
    for (i /= 2; i; i /= 2) {
        const struct hsum *l = &b->s[2 * i], *r = &b->s[2 * i + 1];
        for (uint32_t k = 0; k < HBANDS; k++) {
            m.p[k] = pol_dmin(l->p[k], r->p[k]);
            m.q[k] = pol_dmin(l->q[k], r->q[k]);
            m.room[k] = pol_dmax(l->room[k], r->room[k]);
        }
        if (!memcmp(&m, &b->s[i], sizeof m))
            break;
        b->s[i] = m;
    }
}

/* Whether band k of sums m holds a GPU with room for the job being
 * planned: a job, and memory for it (never false where device_cost would
 * take one: jneed is below the job's memory by far more than the
 * rounding of either side of its test). */
static inline bool band_open(const struct horus *h, const struct hsum *m,
                             uint32_t k)
{
    return m->p[k] < INFINITY && m->room[k] >= h->jneed;
}

/* Node nd's GPUs changed: its bit (whether it holds a free GPU) now, its
 * bounds when next read (bounds_fresh). */
static void node_touched(struct horus *h, uint32_t nd)
{
    const struct clu_node *n = &h->c->nodes[nd];
    uint32_t i = h->tpos[nd];
    uint64_t *w = &h->freebits[n->type][i / 64], bit = UINT64_C(1) << (i % 64);
    *w = n->nfree ? *w | bit : *w & ~bit;
    if (!h->bdirty[nd]) {
        h->bdirty[nd] = 1;
        h->dirty[h->ndirty++] = nd;
    }
}

static void bounds_fresh(struct horus *h, const struct pol_view *v)
{
    for (uint32_t k = 0; k < h->ndirty; k++) {
        h->bdirty[h->dirty[k]] = 0;
        bound_leaf(h, v, h->dirty[k]);
    }
    h->ndirty = 0;
}

/* GPU g's level of room now, in the counts tc of its type (of cap GB). */
static inline void level_set(struct horus *h, const struct pol_view *v,
                             uint32_t g, double cap, uint32_t *tc)
{
    uint32_t l = h->opos[g] == SIM_NONE ? HROOMS + 1
               : room_level(gpu_room(h, v, g, cap), cap);
    if (h->glvl[g] <= HROOMS)
        tc[h->glvl[g]]--;
    if (l <= HROOMS)
        tc[l]++;
    h->glvl[g] = (uint8_t)l;
}

/* The room-level counts of type t. */
static inline uint32_t *type_counts(struct horus *h, uint32_t t)
{
    return &h->tcnt[(size_t)t * (HROOMS + 1)];
}

static void setup(struct horus *h, const struct pol_view *v)
{
    const struct cluster *c = v->clu;
    h->c = c;
    h->pu = xcalloc(c->ngpus, sizeof *h->pu);
    h->limit = h->max_per_gpu < v->max_share ? h->max_per_gpu : v->max_share;
    h->open = xcalloc(c->ntypes, sizeof *h->open);
    h->nopen = xcalloc(c->ntypes, sizeof *h->nopen);
    h->opos = xmalloc(c->ngpus * sizeof *h->opos);
    h->stamp = xcalloc(c->nnodes, sizeof *h->stamp);
    for (uint32_t t = 0; t < c->ntypes; t++)
        h->open[t] = xmalloc((c->types[t].total_gpus + 1) * sizeof **h->open);
    for (uint32_t g = 0; g < c->ngpus; g++) {
        uint32_t t = c->nodes[c->gpu_node[g]].type;
        h->opos[g] = h->nopen[t];
        h->open[t][h->nopen[t]++] = g;
    }
    h->ncost = xmalloc(c->nnodes * sizeof *h->ncost);
    h->ncand = xmalloc(c->nnodes * sizeof *h->ncand);
    h->order = xmalloc(c->nnodes * sizeof *h->order);
    h->nodeq = (struct nheap){ xmalloc(c->nnodes * sizeof *h->nodeq.a), 0, c->nnodes,
                            h->ncost };
    h->gcost = xmalloc(c->ngpus * sizeof *h->gcost);
    h->plan = xmalloc(c->ngpus * sizeof *h->plan);
    h->best = xmalloc(c->ngpus * sizeof *h->best);
    h->gbuf = xmalloc(c->ngpus * sizeof *h->gbuf);
    h->visit = xmalloc(c->nnodes * sizeof *h->visit);
    h->pen = xcalloc(c->ntypes ? c->ntypes : 1, sizeof *h->pen);
    h->tnodes = xcalloc(c->ntypes ? c->ntypes : 1, sizeof *h->tnodes);
    h->freebits = xcalloc(c->ntypes ? c->ntypes : 1, sizeof *h->freebits);
    h->ntn = xcalloc(c->ntypes ? c->ntypes : 1, sizeof *h->ntn);
    h->tpos = xmalloc((c->nnodes ? c->nnodes : 1) * sizeof *h->tpos);
    for (uint32_t nd = 0; nd < c->nnodes; nd++)
        h->ntn[c->nodes[nd].type]++;
    h->bt = xcalloc(c->ntypes ? c->ntypes : 1, sizeof *h->bt);
    h->bdirty = xcalloc(c->nnodes ? c->nnodes : 1, 1);
    h->glvl = xmalloc(c->ngpus ? c->ngpus : 1);
    memset(h->glvl, HROOMS + 1, c->ngpus ? c->ngpus : 1);     /* none counted */
    h->tcnt = xcalloc((c->ntypes ? c->ntypes : 1) * (HROOMS + 1), sizeof *h->tcnt);
    h->dirty = xmalloc((c->nnodes ? c->nnodes : 1) * sizeof *h->dirty);
    for (uint32_t t = 0; t < c->ntypes; t++) {
        struct hbound *b = &h->bt[t];
        h->tnodes[t] = xmalloc((h->ntn[t] + 1) * sizeof **h->tnodes);
        h->freebits[t] = xcalloc(h->ntn[t] / 64 + 1, sizeof **h->freebits);
        b->leaves = 1;
        while (b->leaves < h->ntn[t])
            b->leaves *= 2;
        b->s = xmalloc(2 * b->leaves * sizeof *b->s);
        for (uint32_t i = 0; i < 2 * b->leaves; i++)
            b->s[i] = hsum_none();
        h->ntn[t] = 0;
    }
    for (uint32_t nd = 0; nd < c->nnodes; nd++) {
        uint32_t t = c->nodes[nd].type;
        h->tpos[nd] = h->ntn[t];
        h->tnodes[t][h->ntn[t]++] = nd;
        node_touched(h, nd);
    }
    bounds_fresh(h, v);
    for (uint32_t g = 0; g < c->ngpus; g++) {
        uint32_t t = c->nodes[c->gpu_node[g]].type;
        level_set(h, v, g, c->types[t].memory_gb, type_counts(h, t));
    }
    if (h->plus)
        cluster_queues(h, v);
}

static uint32_t queue_of(const struct horus *h, double u)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < h->nq; i++)
        if (fabs(u - h->centre[i]) < fabs(u - h->centre[best]))
            best = i;
    return best;
}

/* Job j was just pushed into q: the first jobs q->peek names stay known.
 * The push moved the items on j's path down one place each (the heap's
 * sift-up), so their positions follow, and j joins the list where it
 * comes before its last: what peek_first would give now, as the order is
 * total (a job comes in once). */
static void peek_pushed(const struct horus *h, struct hheap *q, uint32_t j)
{
    if (q->npeek == SIM_NONE)
        return;
    size_t at = q->n - 1, m = 0;
    while (q->a[at].job != j) {         /* up its path: m places moved */
        at = (at - 1) / 2;
        m++;
    }
    /* numbered from 1, the path from the leaf L up is L >> 1, L >> 2, ..:
     * a position d levels above the leaf, 1 <= d <= m, went one down */
    size_t leaf = q->n;
    int top = 63 - __builtin_clzll(leaf);
    for (uint32_t i = 0; m && i < q->npeek; i++) {
        size_t p = (size_t)q->peek[i] + 1;
        int d = top - (63 - __builtin_clzll(p));
        if (d >= 1 && (size_t)d <= m && leaf >> d == p)
            q->peek[i] = (uint32_t)((leaf >> (d - 1)) - 1);
    }
    uint32_t n = q->npeek, i = n;
    if (n == h->lookahead && !hless(&q->a[at], &q->a[q->peek[n - 1]]))
        return;
    if (n == h->lookahead)
        i = --n;
    for (; i > 0 && hless(&q->a[at], &q->a[q->peek[i - 1]]); i--)
        q->peek[i] = q->peek[i - 1];
    q->peek[i] = (uint32_t)at;
    q->npeek = n + 1;
}

static void enqueue(void *state, const struct pol_view *v, uint32_t job)
{
    struct horus *h = state;
    double u = pol_pred_util(v, job);
    struct hheap *q = &h->q[queue_of(h, u)];
    hq_push(q, (struct hitem){ u, job, 0, v->jobs[job].num_gpus,
                               pol_rt(v, job)->req_type });
    peek_pushed(h, q, job);
    q->sum_since += (double)pol_rt(v, job)->queued_since;
    h->size++;
}

/* The GPUs of each type that can take one more job (the only ones a plan
 * can use): a set with O(1) insert and delete. */
static void open_add(struct horus *h, uint32_t t, uint32_t g)
{
    h->opos[g] = h->nopen[t];
    h->open[t][h->nopen[t]++] = g;
}

static void open_del(struct horus *h, uint32_t t, uint32_t g)
{
    uint32_t i = h->opos[g], last = h->open[t][--h->nopen[t]];
    h->open[t][i] = last;
    h->opos[last] = i;
    h->opos[g] = SIM_NONE;
}

/* After a job's GPUs (of type t; sorted, so a node's are together)
 * changed. */
static void gpus_touched(struct horus *h, const struct pol_view *v, uint32_t t,
                         const uint32_t *gpus, uint32_t n)
{
    double cap = h->c->types[t].memory_gb;
    uint32_t *tc = type_counts(h, t);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t nd = h->c->gpu_node[gpus[i]];
        level_set(h, v, gpus[i], cap, tc);
        if (i + 1 == n || h->c->gpu_node[gpus[i + 1]] != nd)
            node_touched(h, nd);
    }
}

/* A job this policy started (no hook runs inside schedule()). */
static void started(struct horus *h, const struct pol_view *v, uint32_t job)
{
    const struct job_rt *r = pol_rt(v, job);
    double u = 100 * pol_pred_util_on(v, job, r->type);
    for (uint32_t i = 0; i < r->ngpus; i++) {
        uint32_t g = r->gpus[i];
        h->pu[g] += u;
        if (v->nocc[g] == h->limit)
            open_del(h, r->type, g);
    }
    gpus_touched(h, v, r->type, r->gpus, r->ngpus);
}

static void finished(void *state, const struct pol_view *v, uint32_t job)
{
    struct horus *h = state;
    const struct job_rt *r = pol_rt(v, job);
    double u = 100 * pol_pred_util_on(v, job, r->type);
    h->epoch++;
    for (uint32_t i = 0; i < r->ngpus; i++) {
        uint32_t g = r->gpus[i];
        h->pu[g] = v->nocc[g] ? h->pu[g] - u : 0;
        if ((uint32_t)v->nocc[g] + 1 == h->limit)
            open_add(h, r->type, g);
    }
    gpus_touched(h, v, r->type, r->gpus, r->ngpus);
}

/* ------------------------------------------------------------ placement */

/* Device cost of job j (util u percent, mem m GB) on GPU g of a type with
 * cap GB (0: unknown) and speed term pen, or INFINITY when g is no
 * candidate; g holds fewer than h->limit jobs (it is open). */
static inline double device_cost(const struct horus *h, const struct pol_view *v,
                                 uint32_t g, double u, double m, double cap,
                                 double pen)
{
    uint32_t r = v->nocc[g];
    double used = v->mem_used[g];
    if (cap > 0 && (r ? used + m > cap - h->mem_reserve : m > cap))
        return INFINITY;
    double U = h->cap_util && h->pu[g] > 100 ? 100 : h->pu[g];
    double s = U + u - 100;
    double mem = cap > 0 ? (used + m) / cap : 0;
    return h->w_mem * mem + (s > 0 ? h->w_over * s : -s) / 100 + r + pen;
}

struct plan {
    uint32_t nodes;
    double anchor_cost;
    uint32_t anchor, type;
};

static bool plan_better(const struct plan *a, const struct plan *b)
{
    if (a->nodes != b->nodes)
        return a->nodes < b->nodes;
    if (a->anchor_cost != b->anchor_cost)
        return a->anchor_cost < b->anchor_cost;
    return false;       /* earlier type (fastest first), earlier anchor */
}

/* Sorts a node's GPUs (at most 64) by (cost, index): insertion. */
static void sort_by_cost(uint32_t *g, uint32_t k, const double *cost)
{
    for (uint32_t i = 1; i < k; i++) {
        uint32_t x = g[i], p = i;
        while (p > 0 && (cost[g[p - 1]] > cost[x] ||
                         (cost[g[p - 1]] == cost[x] && g[p - 1] > x))) {
            g[p] = g[p - 1];
            p--;
        }
        g[p] = x;
    }
}

/* Costs of the job being planned (h->ju, h->jm, type h->jt) on node nd's
 * GPUs into gcost, its candidate count and minimum cost; stamps it. */
static void node_eval(struct horus *h, const struct pol_view *v, uint32_t nd)
{
    const struct clu_node *n = &h->c->nodes[nd];
    double best = INFINITY;
    uint32_t cnt = 0;
    for (uint32_t i = 0; i < n->ngpus; i++) {
        uint32_t gpu = n->first_gpu + i;
        if (h->opos[gpu] == SIM_NONE)
            continue;
        double x = device_cost(h, v, gpu, h->ju, h->jm, h->jcap, h->jpen);
        h->gcost[gpu] = x;
        if (x < INFINITY) {
            cnt++;
            if (x < best)
                best = x;
        }
    }
    h->ncost[nd] = best;
    h->ncand[nd] = cnt;
    h->stamp[nd] = h->cur;
}

/* Takes node nd's candidate GPUs cheapest first into out (up to want). */
static uint32_t fill_node(struct horus *h, const struct pol_view *v,
                          uint32_t nd, uint32_t want, uint32_t *out)
{
    const struct clu_node *n = &h->c->nodes[nd];
    uint32_t g[64], k = 0;
    if (h->stamp[nd] != h->cur)
        node_eval(h, v, nd);
    for (uint32_t i = 0; i < n->ngpus; i++)     /* gcost: of the open */
        if (h->opos[n->first_gpu + i] != SIM_NONE &&
            h->gcost[n->first_gpu + i] < INFINITY)
            g[k++] = n->first_gpu + i;
    if (!h->index_order) {      /* gpu_order=index: as they are */
        sort_by_cost(g, k, h->gcost);
    }
    if (k > want)
        k = want;
    memcpy(out, g, k * sizeof *g);
    return k;
}

/* The next node of type h->jt holding a free GPU, in index order, after
 * the one at position *at of tnodes (SIM_NONE to start); SIM_NONE: none. */
static uint32_t next_free_node(const struct horus *h, uint32_t t, uint32_t *at)
{
    uint32_t i = *at == SIM_NONE ? 0 : *at + 1, n = h->ntn[t];
    const uint64_t *bits = h->freebits[t];
    while (i < n) {
        uint64_t w = bits[i / 64] >> (i % 64);
        if (w) {
            i += (uint32_t)__builtin_ctzll(w);
            *at = i;
            return h->tnodes[t][i];
        }
        i = (i / 64 + 1) * 64;
    }
    *at = n;
    return SIM_NONE;
}

/* A lower bound on the device cost of the job being planned on any GPU
 * below bound-tree node i that could take it (see bound_leaf, band_open),
 * less a margin for rounding far above what the few steps of either sum
 * can round: never above the exact cost.  +inf: none could. */
static double node_bound(const struct horus *h, const struct hbound *b,
                         uint32_t i)
{
    double c = (h->ju - 100) / 100, wc = h->w_over * c, lo = INFINITY;
    for (uint32_t k = 0; k < HBANDS; k++)
        if (band_open(h, &b->s[i], k))
            lo = pol_dmin(lo, pol_dmax(b->s[i].p[k] - c, b->s[i].q[k] + wc));
    if (lo == INFINITY)
        return INFINITY;
    double x = lo + (h->jcap > 0 ? h->w_mem * h->jm / h->jcap : 0) + h->jpen;
    return x - 1e-9 * (1 + fabs(x));
}

/* Starts a best-first walk of type t's bound tree (fresh) from its root:
 * node_at then reads the nodes in plan order. */
static void tree_start(struct horus *h, uint32_t t)
{
    const struct hbound *b = &h->bt[t];
    h->read = READ_TREE;
    h->nsorted = 0;
    h->frontier.n = 0;
    double x = node_bound(h, b, 1);
    if (x < INFINITY)
        th_push(&h->frontier, (struct tent){ x, 0, 1, false });
}

/* The next node with candidates in plan order, from the tree's frontier:
 * a subtree's entry is replaced by its children's, a node's by its
 * exact cost; an exact node that comes first is the next.  SIM_NONE: no
 * more. */
static uint32_t tree_next(struct horus *h, const struct pol_view *v)
{
    const struct hbound *b = &h->bt[h->jt];
    struct theap *f = &h->frontier;
    /* the top is replaced where an entry follows it (one sift, not a pop
     * and a push): the same entries, in a strict order, so the same
     * sequence out */
    while (f->n) {
        struct tent e = f->a[0];
        if (e.i >= b->leaves) {
            uint32_t nd = h->tnodes[h->jt][e.pos];
            if (e.exact) {
                th_pop(f);
                return nd;
            }
            node_eval(h, v, nd);
            if (!h->ncand[nd]) {
                th_pop(f);
                continue;
            }
            e.key = h->ncost[nd];
            e.exact = true;
            const struct tent *nx = th_second(f);
            if (!nx || !tbefore(nx, &e)) {
                th_pop(f);
                return nd;
            }
            th_replace(f, e);
            continue;
        }
        uint32_t half = b->leaves >> (32 - __builtin_clz(e.i));
        bool top = true;        /* e's place still to fill */
        for (uint32_t k = 0; k < 2; k++) {
            uint32_t c = 2 * e.i + k;
            double x = node_bound(h, b, c);
            if (!(x < INFINITY))
                continue;
            struct tent ch = { x, e.pos + k * half, c, false };
            if (top)
                th_replace(f, ch);
            else
                th_push(f, ch);
            top = false;
        }
        if (top)
            th_pop(f);
    }
    return SIM_NONE;
}

/* The i-th node with candidates in plan order.  SIM_NONE past the last
 * one (READ_TREE) or past those with a free GPU (READ_FREE: undecided). */
static uint32_t node_at(struct horus *h, const struct pol_view *v, uint32_t i)
{
    while (h->nsorted <= i) {
        uint32_t nd;
        if (h->read == READ_HEAP)
            nd = nh_pop(&h->nodeq);
        else if (h->read == READ_FREE)
            nd = next_free_node(h, h->jt, &h->scan);
        else
            nd = tree_next(h, v);
        if (nd == SIM_NONE)
            return SIM_NONE;
        h->order[h->nsorted++] = nd;
    }
    return h->order[i];
}

/* Horus's plans from the first anchors on the nodes in plan order (no of
 * them, or as many as node_at reads): the best into *best and its GPUs
 * into h->plan.  false when node_at ran out of the nodes it knows
 * (READ_FREE). */
static bool plan_anchors(struct horus *h, const struct pol_view *v, uint32_t g,
                         uint32_t t, uint32_t no, struct plan *best)
{
    const struct cluster *c = v->clu;
    uint32_t want = h->anchors_tasks ? g : h->anchors;
    uint32_t na = want < no ? want : no;
    *best = (struct plan){ 0, 0, SIM_NONE, t };
    for (uint32_t a = 0; a < na; a++) {
        uint32_t anchor = node_at(h, v, a), got = 0, used = 0;
        if (anchor == SIM_NONE) {
            if (h->read == READ_FREE)
                return false;
            break;
        }
        uint32_t rack = c->nodes[anchor].rack;
        uint32_t *out = h->best;        /* candidate plan, then kept */
        got += fill_node(h, v, anchor, g, out);
        used++;
        for (int pass = 0; pass < 2 && got < g; pass++)
            for (uint32_t i = 0; i < no && got < g; i++) {
                uint32_t nd = node_at(h, v, i);
                if (nd == SIM_NONE) {
                    if (h->read == READ_FREE)
                        return false;
                    break;
                }
                if (nd == anchor || (c->nodes[nd].rack == rack) != (pass == 0))
                    continue;
                uint32_t k = fill_node(h, v, nd, g - got, out + got);
                got += k;
                used += k > 0;
            }
        if (got < g)    /* it read every node, each giving all its
                         * candidates: fewer than g in all, for any anchor */
            break;
        struct plan p = { used, h->ncost[anchor], anchor, t };
        if (best->nodes == 0 || plan_better(&p, best)) {
            *best = p;
            memcpy(h->plan, out, g * sizeof *out);
        }
    }
    return true;
}

/* The plan when nodes with a free GPU come first.  A free GPU costs c0 =
 * w_mem * m / cap + (100 - u) / 100 (+ the speed term), the same on every
 * free GPU of the type (an empty GPU holds 0 GB and 0 % predicted), and a
 * shared one at least LB = w_mem * m / cap + 1 (+ the speed term), each
 * rounding step of its cost being monotone in the terms it adds.  When
 * c0 < LB the nodes with a free GPU are the first in plan order, all at
 * cost c0, so in index order: the plans are read from them alone, their
 * GPUs costed as read, unless a plan reads past them.  true: decided. */
static bool plan_free_first(struct horus *h, const struct pol_view *v,
                            uint32_t g, uint32_t t, struct plan *best)
{
    const struct clu_node *n;
    uint32_t at = SIM_NONE, nd = next_free_node(h, t, &at);
    if (nd == SIM_NONE)
        return false;
    n = &h->c->nodes[nd];
    uint32_t free0 = n->first_gpu + (uint32_t)__builtin_ctzll(n->free_mask);
    double c0 = device_cost(h, v, free0, h->ju, h->jm, h->jcap, h->jpen);
    double mem0 = h->jcap > 0 ? h->jm / h->jcap : 0;
    double lb = h->w_mem * mem0 + 0.0 / 100 + 1 + h->jpen;
    if (!(c0 < lb))
        return false;
    h->read = READ_FREE;
    h->scan = SIM_NONE;
    h->nsorted = 0;
    uint32_t first = node_at(h, v, 0);
    node_eval(h, v, first);
    if (h->ncand[first] >= g) {     /* see plan_type */
        fill_node(h, v, first, g, h->plan);
        *best = (struct plan){ 1, h->ncost[first], first, t };
        h->read = READ_HEAP;
        return true;
    }
    bool done = plan_anchors(h, v, g, t, UINT32_MAX, best);
    h->read = READ_HEAP;
    return done;
}

/* A new visit mark: no node is costed (stamp) for the plan begun. */
static void new_marks(struct horus *h)
{
    if (++h->cur == 0) {
        memset(h->stamp, 0, h->c->nnodes * sizeof *h->stamp);
        h->cur = 1;
    }
}

/* The full Horus plan for j on type t; writes it to h->plan and returns
 * its measure (nodes = 0: none). */
static struct plan plan_type(struct horus *h, const struct pol_view *v,
                             uint32_t j, uint32_t t)
{
    const struct cluster *c = v->clu;
    uint32_t g = v->jobs[j].num_gpus, nn = 0;
    uint32_t *nodes = h->visit;
    uint64_t total = 0;
    struct plan best = { 0, 0, SIM_NONE, t };
    h->ju = 100 * pol_pred_util_on(v, j, t);
    h->jm = pol_mem_gb(v, j);
    h->jt = t;
    h->jcap = c->types[t].memory_gb;
    h->jneed = h->jcap > 0
             ? h->jm - 1e-9 * (1 + h->jcap + h->mem_reserve + h->jm) : -INFINITY;
    h->jpen = h->pen[t];
    new_marks(h);
    if (!h->full_scan && cands_at_most(h, t) < g)
        return best;                    /* no plan reads g candidates */
    if (!h->full_scan && plan_free_first(h, v, g, t, &best))
        return best;
    if (!h->full_scan && h->nopen[t] >= 64) {
        /* the nodes in plan order through the bound tree, as far as the
         * plans read them; when the first holds the gang the plan is its
         * (see below); none: no GPU is a candidate, no plan (the tree
         * saves more than its walk costs only where many GPUs have room:
         * from 64, on five types of 208 GPUs 10-15 % fewer instructions
         * than from 128, on one of 1,000 the same) */
        bounds_fresh(h, v);
        tree_start(h, t);
        uint32_t first = node_at(h, v, 0);
        if (first != SIM_NONE && h->ncand[first] >= g) {
            fill_node(h, v, first, g, h->plan);
            best = (struct plan){ 1, h->ncost[first], first, t };
        } else if (first != SIM_NONE) {
            plan_anchors(h, v, g, t, UINT32_MAX, &best);
        }
        h->read = READ_HEAP;
        return best;
    }
    new_marks(h);
    /* only the GPUs with room (open[t]) can be candidates; their nodes
     * are the plan's, each with its minimum cost and candidate count */
    for (uint32_t i = 0; i < h->nopen[t]; i++) {
        uint32_t gpu = h->open[t][i], nd = c->gpu_node[gpu];
        if (h->stamp[nd] != h->cur) {
            h->stamp[nd] = h->cur;
            nodes[nn++] = nd;
            h->ncost[nd] = INFINITY;
            h->ncand[nd] = 0;
        }
        double x = device_cost(h, v, gpu, h->ju, h->jm, h->jcap, h->jpen);
        h->gcost[gpu] = x;
        if (x < INFINITY) {
            h->ncand[nd]++;
            total++;
            if (x < h->ncost[nd])
                h->ncost[nd] = x;
        }
    }
    if (total < g)
        return best;
    /* nodes with candidates, by minimum cost then index: sorted as far as
     * the plans read them (node_at), from a heap built in O(nodes) */
    uint32_t no = 0, first = SIM_NONE;
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t nd = nodes[i];
        if (!h->ncand[nd])
            continue;
        h->nodeq.a[no++] = nd;
        if (first == SIM_NONE || h->ncost[nd] < h->ncost[first] ||
            (h->ncost[nd] == h->ncost[first] && nd < first))
            first = nd;
    }
    /* the first anchor holds the whole gang: one node at the lowest anchor
     * cost, a plan no other anchor can beat (plan_better) */
    if (h->ncand[first] >= g) {
        fill_node(h, v, first, g, h->plan);
        return (struct plan){ 1, h->ncost[first], first, t };
    }
    h->nodeq.n = no;
    nh_heapify(&h->nodeq);
    h->nsorted = 0;
    plan_anchors(h, v, g, t, no, &best);
    return best;
}

/* GPUs for job j into out (sorted).  Fast path: free GPUs through the
 * shared placement, on the type with the lowest exclusive cost. */
static bool place(struct horus *h, const struct pol_view *v, uint32_t j,
                  uint32_t *out)
{
    const struct cluster *c = v->clu;
    uint32_t g = v->jobs[j].num_gpus, req = pol_rt(v, j)->req_type;
    double m = pol_mem_gb(v, j);
    /* w_speed: each device cost on type t gains w_speed * (T_t / T_best
     * - 1), T the job's predicted run time there */
    if (h->w_speed > 0) {
        double best = INFINITY;
        for (uint32_t t = 0; t < c->ntypes; t++) {
            h->pen[t] = INFINITY;
            if (req == SIM_NONE || t == req)
                h->pen[t] = pol_pred_runtime(v, j, t, false);
            if (h->pen[t] < best)
                best = h->pen[t];
        }
        for (uint32_t t = 0; t < c->ntypes; t++)
            if (h->pen[t] < INFINITY)
                h->pen[t] = h->w_speed * (h->pen[t] / best - 1);
    }
    /* exclusive on one node: cost w_mem * m / cap + (100 - u) / 100 (+
     * the speed term), by type (a gang larger than a node plans racks:
     * the full plan); gpu_order=index takes the node's first GPUs with
     * room, free or not: the full plan */
    uint32_t bt = SIM_NONE;
    double bc = INFINITY;
    for (uint32_t i = 0; i < c->ntypes && !h->index_order; i++) {
        uint32_t t = c->type_order[i];
        double cap = c->types[t].memory_gb;
        if ((req != SIM_NONE && t != req) || (cap > 0 && m > cap) ||
            g > c->types[t].max_node_gpus)
            continue;
        if (!pol_place(v, g, t, h->mode, NULL, NULL))
            continue;
        double u = 100 * pol_pred_util_on(v, j, t);
        double x = (cap > 0 ? h->w_mem * m / cap : 0) + (100 - u) / 100 + h->pen[t];
        if (x < bc)
            bc = x, bt = t;
    }
    /* a shared GPU costs at least 1 + its type's speed term: past that, a
     * shared GPU of a faster type may beat the free ones */
    if (bt != SIM_NONE && (h->w_speed <= 0 || bc <= 1))
        return pol_place(v, g, bt, h->mode, NULL, out);
    struct plan best = { 0, 0, SIM_NONE, SIM_NONE };
    for (uint32_t i = 0; i < c->ntypes; i++) {
        uint32_t t = c->type_order[i];
        if ((req != SIM_NONE && t != req) || h->nopen[t] < g)
            continue;       /* not enough GPUs with room: no plan */
        struct plan p = plan_type(h, v, j, t);
        if (p.nodes && (best.nodes == 0 || plan_better(&p, &best))) {
            best = p;
            memcpy(out, h->plan, g * sizeof *out);
        }
    }
    if (!best.nodes)
        return false;
    dl_sort_u32(out, g, h->best);      /* h->best: scratch once planned */
    return true;
}

/* ------------------------------------------------------------ schedule */

/* Whether a type the queued job may use has as many GPUs with room as it
 * needs (which every placement takes; the most of failures end here). */
static bool may_fit(const struct horus *h, const struct cluster *c,
                    const struct hitem *it)
{
    if (it->req != SIM_NONE)
        return h->nopen[it->req] >= it->g;
    for (uint32_t t = 0; t < c->ntypes; t++)
        if (h->nopen[t] >= it->g)
            return true;
    return false;
}

/* One look-ahead pass over queue q: starts the first of its first
 * `lookahead` jobs that can be placed.  1 started, 0 none, <0 error. */
static int try_queue(struct horus *h, struct hheap *q, const struct pol_view *v,
                     struct pol_ctx *x, uint32_t *gpus)
{
    if (q->npeek == SIM_NONE)
        q->npeek = peek_first(&h->pq, q, h->lookahead, q->peek);
#ifndef NDEBUG
    else if (h->lookahead <= 64) {      /* debug builds (the sanitizer
                                           tests): kept = made afresh */
        uint32_t fresh[64], nf = peek_first(&h->pq, q, h->lookahead, fresh);
        DL_ASSERT(nf == q->npeek && !memcmp(fresh, q->peek, nf * sizeof *fresh));
    }
#endif
    uint32_t k = q->npeek;
    for (uint32_t i = 0; i < k; i++) {
        struct hitem *it = &q->a[q->peek[i]];
        uint32_t j = it->job;
        if (it->failed == h->epoch)
            continue;           /* nothing ended since it failed */
        if (!may_fit(h, v->clu, it) || !place(h, v, j, gpus)) {
            it->failed = h->epoch;
            continue;
        }
        hq_delete(q, q->peek[i]);
        q->npeek = SIM_NONE;
        q->sum_since -= (double)pol_rt(v, j)->queued_since;
        h->size--;
        bool shared = false;
        for (uint32_t a = 0; a < v->jobs[j].num_gpus; a++)
            shared |= v->nocc[gpus[a]] > 0;
        int rc = shared ? pol_colocate(x, j, gpus) : pol_start(x, j, gpus);
        if (!rc)
            started(h, v, j);
        return rc ? rc : 1;
    }
    return 0;
}

static void schedule(void *state, const struct pol_view *v, struct pol_ctx *x)
{
    struct horus *h = state;
    if (!h->size)
        return;
    uint32_t *gpus = h->gbuf, order[64];
    for (;;) {
        /* queues by credit = length x mean pending time, highest first */
        uint32_t n = 0;
        for (uint32_t i = 0; i < h->nq; i++)
            if (h->q[i].n)
                order[n++] = i;
        for (uint32_t a = 1; a < n; a++)
            for (uint32_t b = a; b > 0; b--) {
                const struct hheap *p = &h->q[order[b - 1]], *q = &h->q[order[b]];
                double cp = (double)p->n * ((double)v->now - p->sum_since / (double)p->n);
                double cq = (double)q->n * ((double)v->now - q->sum_since / (double)q->n);
                if (cq <= cp)
                    break;
                uint32_t t = order[b];
                order[b] = order[b - 1];
                order[b - 1] = t;
            }
        int rc = 0;
        for (uint32_t i = 0; i < n && rc == 0; i++)
            rc = try_queue(h, &h->q[order[i]], v, x, gpus);
        if (rc <= 0)
            break;
        if (h->one_start) {     /* the next one at the next instant */
            if (h->size && h->tick > 0)
                pol_wake(x, v->now + h->tick);
            break;
        }
    }
}

static uint32_t queued(void *state)
{
    return (uint32_t)((struct horus *)state)->size;
}

/* Jobs whose memory exceeds every allowed type's capacity can never run. */
static bool admit(void *state, const struct pol_view *v, uint32_t j)
{
    (void)state;
    const struct cluster *c = v->clu;
    double m = pol_mem_gb(v, j);
    uint32_t req = pol_rt(v, j)->req_type;
    for (uint32_t t = 0; t < c->ntypes; t++)
        if ((req == SIM_NONE || t == req) &&
            (c->types[t].memory_gb <= 0 || m <= c->types[t].memory_gb))
            return true;
    return false;
}

static const struct pol_opt horus_opts[] = {
    { "lookahead", "5", "jobs looked at, in queue order, for the first that fits" },
    { "max_per_gpu", "3", "jobs one GPU may hold (Horus's resident limit)" },
    { "mem_reserve", "0.5", "GB a shared GPU keeps free (Horus: 500 MiB)" },
    { "w_mem", "1.3", "weight of the memory term of the device cost" },
    { "w_over", "1.6", "weight of utilization overshoot past 100 % (undershoot: 1)" },
    { "anchors", "variant", "candidate anchor nodes for a gang's plan: a "
                            "number, or tasks (the job's GPU count); variant: "
                            "3, authors: tasks" },
    { "variant", "base", "base: one queue; plus: Horus+ k-means queues with "
                         "credits; authors: the published simulator's reading "
                         "(gpu_order=index, cap_util=1, anchors=tasks, "
                         "one_start=1, tick=1)" },
    { "queues", "3", "variant=plus: number of utilization queues" },
    { "gpu_order", "variant", "GPUs taken within a node: cost (cheapest "
                              "first) or index (the first with room, free or "
                              "not); variant: cost, authors: index" },
    { "cap_util", "variant", "1: a GPU's summed utilization counts at most "
                             "100 in the cost; variant: 0, authors: 1" },
    { "one_start", "variant", "1: at most one start per instant; variant: 0, "
                              "authors: 1" },
    { "tick", "variant", "one_start=1: seconds after a start at which the "
                         "next is tried while jobs wait (0 = at the next "
                         "event); variant: 0, authors: 1" },
    { "w_speed", "0", "weight of the speed term w * (T_type / T_fastest - 1) "
                      "of the device cost (predicted run times; 0 = off)" },
    { "scan", "auto", "how plans are found, the same plans either way: auto "
                      "(from the nodes with a free GPU, or the cheapest node "
                      "through a bound tree, when they decide) or full (every "
                      "GPU with room, each plan: the reference)" },
    { NULL, NULL, NULL },
};

const struct policy pol_horus = {
    .name = "horus",
    .summary = "Horus: lowest predicted utilization first, co-location by "
               "device cost (non-preemptive)",
    .blocking = "the next `lookahead` jobs in order are tried and the first "
                "that can be placed (alone or sharing GPUs) starts",
    .opts = horus_opts,
    .create = create,
    .destroy = destroy,
    .admit = admit,
    .enqueue = enqueue,
    .finished = finished,
    .schedule = schedule,
    .queued = queued,
};
