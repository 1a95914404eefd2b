/*
 * policies/tiresias.c - Tiresias's discretized two-dimensional least
 * attained service, 2D-LAS (Gu et al., "Tiresias: A GPU Cluster Manager for
 * Distributed Deep Learning", NSDI 2019), preemptive.
 *
 * Priority.  A job's attained service is the GPU-time it has received:
 * num_gpus x seconds run (wall time, whatever the speed of its GPUs; the
 * paper's second dimension is exactly this product).  K queues Q0..Q(K-1)
 * are separated by thresholds T0 < T1 < ... in GPU-seconds (option
 * thresholds=T0/T1/..., K = thresholds + 1).  A job enters Q0 on arrival and
 * is in queue k while T(k-1) <= service < T(k).  Within a queue, jobs go by
 * arrival (FIFO).  So the order is (queue, arrival).
 *
 * Demotion.  A running job in queue k < K-1 with service a at time s, on g
 * GPUs, crosses T(k) at s + ceil((T(k) - a) / g) microseconds (its service
 * grows at g GPU-us per us); it is demoted at that exact instant: the
 * policy keeps a timer heap and asks for a schedule() call there (pol_wake)
 * while jobs wait.  (With none waiting, the demotion can change no decision;
 * the next instant applies it from the service counts, which are exact.)
 *
 * Promotion (option promote = P, 0 = off).  As in the authors' simulator
 * (SymbioticLab/Tiresias, simulator/run_sim.py, dlas_sim_jobs with
 * solve_starvation = P): a job in a queue below Q0 that has waited, since it
 * last entered Q0 and counting only waits after it first ran there, at least
 * P x the time it has run since it last entered Q0, goes back to Q0, and
 * both counts and its service (for the queue) restart from zero.  The
 * promotion happens at the exact instant the wait reaches that bound (a
 * timer, as for demotion).
 *
 * Preemption.  Jobs in higher queues displace running jobs of strictly lower
 * queues (never of the same queue: a running job keeps its GPUs against
 * waiting jobs of its own queue, as in the authors' simulator, which puts
 * running jobs ahead of waiting ones within a queue).  At each instant, after
 * the timers:
 *   1. walk: take the waiting jobs in priority order (queue, arrival) while
 *      the next one, q, is in a higher queue than some running job.  Start
 *      q on free GPUs if placement finds them (any type it may use); else,
 *      on the first GPU type where that works (its required type, else
 *      fastest first), make room by stopping only running jobs of lower
 *      queues than q, the least important first (highest queue, then
 *      latest arrival), choosing:
 *        pool: those jobs of the type until enough GPUs are free;
 *        consolidated, q fits a node: the node (of a size that can take q)
 *          whose most important needed victim is the least important (ties:
 *          fewest GPUs stopped, then lowest node index); on it, the least
 *          important jobs until q fits;
 *        consolidated, q needs several nodes: for node sizes below q's gang,
 *          largest first (as placement takes them), the q/n whole nodes and
 *          a node for the remainder ranked the same way, emptied;
 *      then start q through placement.  If no type has such room nothing is
 *      stopped, and q's gang shape is skipped for the rest of the instant
 *      (every job behind q of that shape ranks lower, so fewer jobs may
 *      stop for it: it cannot do better).
 *   2. fill: start waiting jobs in priority order while any fits (a job
 *      that does not fit is passed over, as the authors' simulator does).
 *      A job stopped in step 1 that fits again here resumes with its
 *      preemption undone (pol_preempt).
 * Everything is decided by (queue, arrival) and node index: deterministic.
 * Each preemption adds preempt_cost seconds of reference-GPU work to the
 * victim (checkpoint and restore).  Beware: with promotion on, jobs can
 * take turns forever in which a job on g GPUs of speed v gains only
 * T0 / g x v seconds of work in Q0 before it is displaced and pays
 * preempt_cost; where the cost is the larger they never finish, and the
 * run does not end.  Keep T0 / g x v above preempt_cost for the largest
 * gangs.  (The authors' simulator has no preemption cost.)
 *
 * Defaults.  thresholds=3250/7200: the authors' simulator (simulator/jobs.py)
 * has num_queue = 3 and queue_limit = [3250, 7200, 18000] (only the first
 * K-1 limits are used), compared with executed time x num_gpu in its
 * GPU-time variant (dlas-gpu); its README's example uses two queues at 3600.
 * promote=0: its plain dlas-gpu scheme runs without promotion (the variants
 * dlas-gpu-0.5 ... dlas-gpu-1000 set the knob).
 *
 * State: per job its queue, service and the run/wait counters above, and a
 * version bumped at every change, so that entries of the ordered queue, the
 * timer heap and the per-type running heaps (pool placement) go stale
 * instead of being removed; stale entries are skipped when they surface and
 * swept when they dominate.  Waiting jobs sit in the ordered queue
 * (policies/queue.c) keyed by queue index with seq = job << 32 | version, so
 * ties go by arrival.
 *
 * Cost per instant: the timers due, then O(shapes) per job started or
 * shape given up in the walk (which ends as soon as no waiting job outranks
 * a running one), with a scan of the type's nodes (consolidated) or
 * O(log) per victim (pool) per room made; the fill as pq_fill.  A node's
 * eligible victims are a prefix of its jobs least important first: every
 * job of a lower queue, or with preempt_cost those of them that may be
 * stopped now (pol_may_preempt), the others listed last as if of no
 * queue: a per-node cache of that order and, per demand, of the victim
 * where the count of GPUs reaches it, recomputed only for nodes where a
 * job started, stopped, was demoted or came to be stoppable, makes each
 * node of the scan O(1) instead of O(GPUs of the node) plus a sort.  (A
 * running job comes to be stoppable once, at an instant its rate
 * foretells: a timer a little early, the rule itself checked when it is
 * due, at the next instant after.)  Over that cache, per GPU type and
 * demand d, a tournament tree of the nodes ranks their room for d as the
 * scan does (the root is the best node; the tree of demand d holds the
 * nodes of at least d GPUs, so all take O(GPUs)): a node refreshed sets
 * its leaves (O(its GPUs)) and counts its rooms per demand and queue of
 * the most important victim, and a tree's paths are recomputed when it
 * is read (O(log nodes) per leaf set since, less where a path stops
 * changing).  A room for a gang that fits a node, or for a larger one on a
 * type of one node size (the first g / n roots, each left out while
 * taken, then the remainder's root), costs O(log nodes) per node taken
 * instead of a scan of every node, and none where the counts show too
 * few nodes with room.
 *
 * The walk tries a job in place at its bucket's head (no pop and push
 * for a try that fails), over a list of the buckets still to try; where
 * placement is monotone in the gang (pool, or one node size per type), a
 * try that fails with no job stopped leaves the larger gangs of its
 * required type for the instant until a job is stopped (walk()).
 */
#include "policies/policy.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TR_MAXQ 8               /* queues at most */

struct tr_timer {               /* a demotion or promotion due at `at` */
    simtime_t at;
    uint32_t job, ver;
};

struct tr_timers {
    struct tr_timer *a;
    size_t n, cap;
};

static inline bool tm_before(const struct tr_timer *x, const struct tr_timer *y)
{
    return x->at < y->at || (x->at == y->at && x->job < y->job);
}

HEAP_DEFINE(th, struct tr_timers, struct tr_timer, tm_before)

struct tr_run {                 /* a running job, for pool victims */
    uint32_t level, job, ver;
};

struct tr_runheap {             /* max-heap on (level, job): least important on top */
    struct tr_run *a;
    size_t n, cap;
    uint32_t live;
};

struct cand {                   /* a node and the victims it needs */
    uint32_t node, most, gpus;
};

/* A job's state, in one record: an event reads most of it for the job it
 * moves (one array per field: a cache miss per field). */
struct tr_job {
    uint8_t level, running;
    uint8_t elig;               /* running, and may be preempted now
                                   (pol_may_preempt): in the node lists at
                                   its queue, else at -1 (never a victim) */
    uint32_t ver;
    int64_t att;                /* GPU-us of service since entering Q0 */
    int64_t exec;               /* us run since entering Q0 */
    int64_t pend;               /* us waited since entering Q0, after it ran */
    simtime_t since;            /* start of the current run or wait */
};

struct tiresias {
    struct pq q;
    enum plc_mode mode;
    uint32_t nq;                /* K queues */
    int64_t thr[TR_MAXQ];       /* GPU-us, [nq - 1] */
    double promote;
    double cost;                /* reference-GPU us per preemption */
    /* per job, allocated at the first call */
    uint32_t njobs;
    struct tr_job *jb;          /* [njobs] */
    uint32_t nlive;             /* queued jobs (live entries of q) */
    size_t nstale;              /* stale entries of q */
    uint32_t nrun[TR_MAXQ];     /* running jobs per queue */
    uint64_t nstops;            /* preemptions so far */
    bool mono;                  /* room is monotone in the gang (walk) */
    struct tr_timers tm;        /* by (at, job) */
    struct tr_timers etm;       /* with a cost: when a running job may be
                                   preempted (a little early; ver unused) */
    simtime_t woke;             /* the latest wake-up asked for */
    struct tr_runheap *rh;      /* [ntypes], pool placement only */
    uint32_t ntypes;
    unsigned char *blocked;     /* per bucket, within one schedule() */
    size_t capblocked;
    uint32_t *cand;             /* the walk's buckets still to try */
    size_t ncand, capcand;
    uint32_t *vic;              /* victims being collected */
    size_t capvic;
    struct cand *cands;         /* nodes ranked by room_multi, then scratch */
    size_t capcands;
    uint32_t *taken;            /* [nnodes] room_multi's whole nodes: tstamp */
    uint32_t tstamp;
    struct pq_item *items;      /* sweep */
    size_t capitems;
    /* consolidated placement: per node, its jobs least important first
     * (those that may not be stopped yet last) and, per demand d, the
     * victim where the count of GPUs (from the free ones) reaches d;
     * recomputed only for nodes whose jobs started, stopped, were demoted
     * or came to be stoppable (dirty) */
    uint8_t *ndirty;            /* [nnodes] */
    struct vic_lists nl;        /* each node's jobs least important first:
                                   keyed by queue (kept beside the job, so
                                   that the node scans of an attempt read
                                   it without a random access into jb[]),
                                   kept by touch_job while they are read */
    uint8_t *ncum;              /* [ngpus] GPUs of victims 0..m */
    uint8_t *nthr;              /* [ngpus] by d - 1: victim index, or NTHR_NO */
    uint32_t *dlist;            /* nodes made dirty since room_single last
                                   refreshed them all (inlist set) */
    size_t ndl;
    uint8_t *inlist;            /* [nnodes] */
    /* and per GPU type t and demand d <= its largest node, a tournament
     * tree over its nodes of the best room for d (room_single's ranking:
     * better()), updated at each refresh: the best node is its root */
    struct tr_tree *trees;      /* [ntypes] */
    uint32_t *tpos;             /* [ngpus] a node's leaf in the tree of
                                   demand d at first_gpu + d - 1 */
};

/* A node's room for a demand, packed so that better() is one comparison
 * of (hi, lo), smaller first: hi = 0 when d GPUs are free, else 1 << 63
 * | (the inverted queue level of its most important victim, 30 bits) <<
 * 32 | the inverted job index (a lower queue, then a later job, is
 * better); lo = the GPUs its victims hold there << 32 | the node.  No
 * room: all ones, which no room's hi reaches (bit 62 is clear). */
struct tkey {
    uint64_t hi, lo;
};

struct tr_tree {                /* one GPU type's trees */
    uint32_t depth;             /* demands: 1 .. its largest node */
    uint32_t *leaves;           /* [depth] a power of two at least the
                                   nodes with >= d GPUs, which it ranks */
    size_t *off;                /* [depth] that tree in win: 2 * leaves
                                   winner nodes (SIM_NONE: none), 1 the root */
    uint32_t *win;              /* O(the type's GPUs) in all */
    struct tkey *key;           /* [as win] the winner's room, packed */
    /* a refresh sets a node's leaves only; a leaf's path is recomputed
     * when the tree is read (tree_flush), so a node refreshed many times
     * between two reads costs one path */
    uint32_t *pend;             /* [as win / 2] by d at off[d - 1] / 2:
                                   leaves set since the last flush */
    uint32_t *npend;            /* [depth] */
    uint8_t *mark;              /* [as win] a leaf is in pend */
    /* per demand d, the nodes whose room for d is free GPUs (at
     * [(d - 1) * TR_CLASSES]) or has its most important victim in queue
     * L (+ 1 + L): how many nodes have room for a job of queue lq, with
     * no read of the tree */
    uint32_t *cnt;              /* [depth * TR_CLASSES] */
    /* a tree is kept (its leaves set at each refresh) from its first use
     * (tree_use) on: a trace's gangs need only a few of the demands */
    uint8_t *live;              /* [depth] */
    uint8_t *lived;             /* [depth] the kept demands, ascending */
    uint32_t nlive;
};

#define TR_CLASSES (TR_MAXQ + 1)

#define NTHR_NO 0xFF            /* the node cannot free d GPUs */

/* ------------------------------------------------------------ helpers */

static inline bool item_before(const struct pq_item *a, const struct pq_item *b)
{
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

/* a ranks below b: higher queue, or same queue and later arrival */
static inline bool lower(const struct tiresias *s, uint32_t a, uint32_t b)
{
    return s->jb[a].level > s->jb[b].level || (s->jb[a].level == s->jb[b].level && a > b);
}

static void tm_push(struct tiresias *s, simtime_t at, uint32_t job)
{
    th_push(&s->tm, (struct tr_timer){ at, job, s->jb[job].ver });
}

static struct tr_timer tm_pop(struct tiresias *s)
{
    return th_pop(&s->tm);
}

static inline bool run_above(const struct tr_run *a, const struct tr_run *b)
{
    return a->level > b->level || (a->level == b->level && a->job > b->job);
}

HEAP_DEFINE(rh, struct tr_runheap, struct tr_run, run_above)



static inline bool run_live(const struct tiresias *s, const struct pol_view *v,
                            const struct tr_run *it)
{
    return pol_state(v, it->job) == JOB_RUNNING && s->jb[it->job].ver == it->ver;
}

/* Indexes running job j (pool placement) under its current queue. */
static void run_index(struct tiresias *s, const struct pol_view *v, uint32_t j)
{
    if (!s->rh)
        return;
    struct tr_runheap *h = &s->rh[pol_rt(v, j)->type];
    if (h->n > 64 && h->n > 2 * (size_t)h->live) {     /* sweep stale */
        size_t k = 0;
        for (size_t i = 0; i < h->n; i++)
            if (run_live(s, v, &h->a[i]))
                h->a[k++] = h->a[i];
        h->n = 0;
        for (size_t i = 0; i < k; i++)
            rh_push(h, h->a[i]);
    }
    rh_push(h, (struct tr_run){ s->jb[j].level, j, s->jb[j].ver });
}

/* How many groups (node sizes) GPU type t has; *one = the last of them. */
static uint32_t type_groups(const struct cluster *c, uint32_t t, uint32_t *one)
{
    uint32_t ng = 0;
    for (uint32_t k = 0; k < c->ngroups; k++)
        if (c->groups[k].type == t)
            *one = k, ng++;
    return ng;
}

/* The trees of each GPU type: for demand d, over its nodes of at least d
 * GPUs in node order (so all of them take O(GPUs) in all), every leaf
 * empty until its node is refreshed. */
static void trees_setup(struct tiresias *s, const struct cluster *c)
{
    s->tpos = xmalloc((c->ngpus ? c->ngpus : 1) * sizeof *s->tpos);
    s->trees = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->trees);
    for (uint32_t t = 0; t < s->ntypes; t++) {
        struct tr_tree *tr = &s->trees[t];
        tr->depth = c->types[t].max_node_gpus;
        tr->leaves = xcalloc(tr->depth ? tr->depth : 1, sizeof *tr->leaves);
        tr->off = xcalloc(tr->depth ? tr->depth : 1, sizeof *tr->off);
        for (uint32_t i = 0; i < c->nnodes; i++)    /* counts, then positions */
            if (c->nodes[i].type == t)
                for (uint32_t d = 1; d <= c->nodes[i].ngpus; d++)
                    s->tpos[c->nodes[i].first_gpu + d - 1] = tr->leaves[d - 1]++;
        size_t w = 0;
        for (uint32_t d = 1; d <= tr->depth; d++) {
            uint32_t l = 1;
            while (l < tr->leaves[d - 1])
                l *= 2;
            tr->leaves[d - 1] = l;
            tr->off[d - 1] = w;
            w += 2 * (size_t)l;
        }
        tr->win = xmalloc((w ? w : 1) * sizeof *tr->win);
        tr->key = xmalloc((w ? w : 1) * sizeof *tr->key);
        tr->pend = xmalloc((w / 2 ? w / 2 : 1) * sizeof *tr->pend);
        tr->npend = xcalloc(tr->depth ? tr->depth : 1, sizeof *tr->npend);
        tr->mark = xcalloc(w ? w : 1, 1);
        tr->cnt = xcalloc((tr->depth ? tr->depth : 1) * (size_t)TR_CLASSES,
                          sizeof *tr->cnt);
        tr->live = xcalloc(tr->depth ? tr->depth : 1, 1);
        tr->lived = xmalloc(tr->depth ? tr->depth : 1);
        for (size_t i = 0; i < w; i++) {
            tr->win[i] = SIM_NONE;
            tr->key[i] = (struct tkey){ UINT64_MAX, UINT64_MAX };
        }
    }
}

static void ensure(struct tiresias *s, const struct pol_view *v)
{
    uint32_t n = v->njobs ? v->njobs : 1;
    s->njobs = v->njobs;
    s->jb = xcalloc_big(n, sizeof *s->jb);
    s->ntypes = v->clu->ntypes;
    /* pool placement, or one node size per type: a gang that can neither
     * be placed nor have room made is followed by every larger one (of
     * the same required type, for a queue no higher), see walk() */
    s->mono = true;
    for (uint32_t t = 0, one; t < s->ntypes && s->mode != PLC_POOL; t++)
        s->mono = s->mono && type_groups(v->clu, t, &one) <= 1;
    if (s->mode == PLC_POOL)
        s->rh = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->rh);
    else {
        const struct cluster *c = v->clu;
        size_t nn = c->nnodes ? c->nnodes : 1, ng = c->ngpus ? c->ngpus : 1;
        s->ndirty = xmalloc(nn);
        memset(s->ndirty, 1, nn);
        vic_lists_init(&s->nl, c);       /* created: no job runs yet */
        s->ncum = xmalloc(ng);
        s->nthr = xmalloc(ng);
        s->dlist = xmalloc(nn * sizeof *s->dlist);
        s->inlist = xmalloc(nn);
        memset(s->inlist, 1, nn);
        for (uint32_t i = 0; i < c->nnodes; i++)
            s->dlist[s->ndl++] = i;
        trees_setup(s, c);
    }
}

static void mark_dirty(void *ctx, uint32_t nd)
{
    struct tiresias *s = ctx;
    s->ndirty[nd] = 1;
    if (!s->inlist[nd]) {
        s->inlist[nd] = 1;
        s->dlist[s->ndl++] = nd;
    }
}

/* Marks the nodes of job j's current (or last) allocation for the node
 * cache, and puts j in their job lists as it is now (running on them, at
 * its queue, or not). */
static void touch_job(struct tiresias *s, const struct pol_view *v, uint32_t j)
{
    bool on = pol_state(v, j) == JOB_RUNNING;
    s->jb[j].elig = on && pol_may_preempt(v, j, s->cost);
    if (s->ndirty)
        vic_lists_job(&s->nl, v, j, on, s->jb[j].elig ? s->jb[j].level : -1,
                      mark_dirty, s);
}

/* A running job's key in the node lists, as touch_job puts it: its queue
 * where it may be stopped, else -1 (last); for vic_lists_read. */
static int64_t list_key(const void *ctx, const struct pol_view *v, uint32_t j)
{
    (void)v;
    const struct tiresias *s = ctx;
    return s->jb[j].elig ? s->jb[j].level : -1;
}

/* With a cost, the instant from which running job j may be preempted
 * (pol_may_preempt: it has gained more than twice the cost since it
 * started; its work goes at its rate), a little early: elig_timers checks
 * the rule itself.  SIM_NEVER: past the largest time. */
static simtime_t elig_at(const struct tiresias *s, const struct pol_view *v,
                         uint32_t j)
{
    const struct job_rt *r = pol_rt(v, j);
    double dt = (2 * s->cost - (r->start_remaining - r->remaining)) / r->rate;
    if (!(dt < (double)SIM_TIME_LIMIT))
        return SIM_NEVER;
    simtime_t at = r->settled + (simtime_t)floor(dt * (1 - 1e-9)) - 1;
    return at > v->now ? at : v->now + 1;
}

static void elig_push(struct tiresias *s, const struct pol_view *v, uint32_t j)
{
    simtime_t at = elig_at(s, v, j);
    if (at != SIM_NEVER)
        th_push(&s->etm, (struct tr_timer){ at, j, 0 });
}

/* The running jobs that may be preempted from now on go into their node
 * lists at their queues (the lists hold the rule as of now: it only
 * turns true while a job runs). */
static void elig_timers(struct tiresias *s, const struct pol_view *v)
{
    while (s->etm.n && s->etm.a[0].at <= v->now) {
        uint32_t j = th_pop(&s->etm).job;
        if (pol_state(v, j) != JOB_RUNNING || s->jb[j].elig)
            continue;           /* of a run that ended, or done */
        if (pol_may_preempt(v, j, s->cost))
            touch_job(s, v, j);
        else
            elig_push(s, v, j);
    }
}

/* Brings a running job's counters up to now. */
static void settle(struct tiresias *s, const struct pol_view *v, uint32_t j)
{
    int64_t d = v->now - s->jb[j].since, add;
    /* saturate: a service past INT64_MAX GPU-us is past every threshold */
    if (__builtin_mul_overflow((int64_t)v->jobs[j].num_gpus, d, &add) ||
        __builtin_add_overflow(s->jb[j].att, add, &s->jb[j].att))
        s->jb[j].att = INT64_MAX;
    s->jb[j].exec += d;
    s->jb[j].since = v->now;
}

/* Moves j down past every threshold its service has reached. */
static void demote(struct tiresias *s, uint32_t j)
{
    while (s->jb[j].level + 1u < s->nq && s->jb[j].att >= s->thr[s->jb[j].level])
        s->jb[j].level++;
}

static void to_q0(struct tiresias *s, uint32_t j)
{
    s->jb[j].level = 0;
    s->jb[j].att = s->jb[j].exec = s->jb[j].pend = 0;
}

/* The us of waiting after which queued job j is due for promotion, from
 * the start of its current wait: <= 0 due now, INT64_MAX never (or past
 * the largest time dlsim represents). */
static int64_t promote_in(const struct tiresias *s, uint32_t j)
{
    if (s->promote <= 0 || s->jb[j].level == 0 || s->jb[j].exec <= 0)
        return INT64_MAX;
    double need = ceil(s->promote * (double)s->jb[j].exec - 1e-9) - (double)s->jb[j].pend;
    return need >= (double)SIM_TIME_LIMIT ? INT64_MAX : (int64_t)need;
}

static void push_queued(struct tiresias *s, const struct pol_view *v, uint32_t j)
{
    struct pq_item it = { (double)s->jb[j].level, (uint64_t)j << 32 | s->jb[j].ver, j, 0 };
    pq_push_item(&s->q, &it, v->jobs[j].num_gpus, pol_rt(v, j)->req_type);
}

static inline bool item_live(const struct tiresias *s, const struct pol_view *v,
                             const struct pq_item *it)
{
    return pol_state(v, it->job) == JOB_QUEUED &&
           s->jb[it->job].ver == (uint32_t)it->seq;
}

/* Drops the stale heads of bucket b; true if a live head remains. */
static bool live_head(struct tiresias *s, const struct pol_view *v, long b)
{
    struct pq_bucket *bk = &s->q.b[b];
    while (bk->n && !item_live(s, v, &bk->a[0])) {
        pq_pop(&s->q, b);
        s->nstale--;
    }
    return bk->n > 0;
}

/* The demotion timer of a running job on g GPUs: when its service reaches
 * the threshold of its queue (none in the last queue). */
static void push_demotion(struct tiresias *s, const struct pol_view *v, uint32_t j)
{
    if (s->jb[j].level + 1u < s->nq) {
        int64_t g = v->jobs[j].num_gpus, left = s->thr[s->jb[j].level] - s->jb[j].att;
        simtime_t at = s->jb[j].since + (left + g - 1) / g;
        /* none where the job ends first (timer_due would drop it): if its
         * finish moves, rate_changed comes here again */
        if (pol_rt(v, j)->finish_at > at)
            tm_push(s, at, j);
    }
}

/* Whether timer t can still change anything: its job has not changed
 * since, and a demotion comes before the job's predicted finish.  (A wake-up
 * for a timer that cannot fire would only add an idle instant, possibly
 * after the last job.) */
static bool timer_due(const struct tiresias *s, const struct pol_view *v,
                      const struct tr_timer *t)
{
    return s->jb[t->job].ver == t->ver &&
           !(pol_state(v, t->job) == JOB_RUNNING &&
             pol_rt(v, t->job)->finish_at <= t->at);
}

/* ------------------------------------------------------- engine hooks */

/* An arrival (the engine's hook), or a job this policy preempted. */
static void enqueue(void *state, const struct pol_view *v, uint32_t j)
{
    struct tiresias *s = state;
    if (s->jb[j].running) {        /* preempted */
        settle(s, v, j);
        s->jb[j].running = 0;
        s->nrun[s->jb[j].level]--;
        if (s->rh)
            s->rh[pol_rt(v, j)->type].live--;
        demote(s, j);
    } else {                    /* arrival */
        to_q0(s, j);
    }
    s->jb[j].since = v->now;
    int64_t due = promote_in(s, j);
    if (due <= 0)
        to_q0(s, j);
    s->jb[j].ver++;
    push_queued(s, v, j);
    s->nlive++;
    if (due > 0 && due != INT64_MAX)
        tm_push(s, v->now + due, j);
}

/* A job this policy started (no hook runs inside schedule()). */
static void started(void *state, const struct pol_view *v, uint32_t j)
{
    struct tiresias *s = state;
    if (s->jb[j].exec > 0)
        s->jb[j].pend += v->now - s->jb[j].since;
    s->jb[j].since = v->now;
    s->jb[j].running = 1;
    s->jb[j].ver++;
    s->nrun[s->jb[j].level]++;
    touch_job(s, v, j);
    if (s->ndirty && !s->jb[j].elig)
        elig_push(s, v, j);
    if (s->rh) {
        s->rh[pol_rt(v, j)->type].live++;
        run_index(s, v, j);
    }
    push_demotion(s, v, j);
}

static void finished(void *state, const struct pol_view *v, uint32_t j)
{
    struct tiresias *s = state;
    s->jb[j].running = 0;
    s->nrun[s->jb[j].level]--;
    s->jb[j].ver++;
    touch_job(s, v, j);
    if (s->rh)
        s->rh[pol_rt(v, j)->type].live--;
}

/* A running job's finish moved: its demotion may now come first again. */
static void rate_changed(void *state, const struct pol_view *v, uint32_t j)
{
    struct tiresias *s = state;
    push_demotion(s, v, j);
    if (s->ndirty && !s->jb[j].elig && pol_state(v, j) == JOB_RUNNING)
        elig_push(s, v, j);     /* earlier, maybe */
}

/* ------------------------------------------------------------ timers */

/* Applies the demotions and promotions due by now. */
static void run_timers(struct tiresias *s, const struct pol_view *v)
{
    while (s->tm.n && s->tm.a[0].at <= v->now) {
        struct tr_timer t = tm_pop(s);
        uint32_t j = t.job;
        if (s->jb[j].ver != t.ver)
            continue;
        if (pol_state(v, j) == JOB_RUNNING) {            /* demotion */
            settle(s, v, j);
            s->nrun[s->jb[j].level]--;
            demote(s, j);
            s->nrun[s->jb[j].level]++;
            s->jb[j].ver++;
            touch_job(s, v, j);
            run_index(s, v, j);
            push_demotion(s, v, j);
        } else if (pol_state(v, j) == JOB_QUEUED) {      /* promotion */
            s->jb[j].pend += v->now - s->jb[j].since;
            s->jb[j].since = v->now;
            to_q0(s, j);
            s->jb[j].ver++;
            s->nstale++;        /* its old entry */
            push_queued(s, v, j);
        }
    }
}

/* ------------------------------------------------------- making room */

/* Preempts jobs[0..n) still running. */
static int stop_all(struct tiresias *s, struct pol_ctx *x, const struct pol_view *v,
                    const uint32_t *jobs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (pol_state(v, jobs[i]) == JOB_RUNNING) {
            s->nstops++;
            int rc = pol_preempt(x, jobs[i], s->cost);
            if (rc)
                return rc;
            touch_job(s, v, jobs[i]);
            enqueue(s, v, jobs[i]);
        }
    return 0;
}

/* Whether victim set a (most important victim ma, gpus ga, node na) is
 * better than b: the least important most-important victim, then fewer
 * GPUs, then the lower node. */
static bool better(const struct tiresias *s, uint32_t ma, uint32_t ga, uint32_t na,
                   uint32_t mb, uint32_t gb, uint32_t nb)
{
    if (ma != mb) {
        if (ma == SIM_NONE || mb == SIM_NONE)
            return ma == SIM_NONE;
        return lower(s, ma, mb);
    }
    return ga < gb || (ga == gb && na < nb);
}

/* Node nd's room for a demand of d GPUs, from its cache: false if it
 * cannot free d GPUs (or has fewer); else *most = its most important
 * victim (SIM_NONE: d GPUs are free), *lvl = that victim's queue, *gpus =
 * the GPUs the victims hold there. */
static bool room_key(const struct tiresias *s, const struct cluster *c,
                     uint32_t nd, uint32_t d, uint32_t *most, uint32_t *lvl,
                     uint32_t *gpus)
{
    const struct clu_node *n = &c->nodes[nd];
    if (n->ngpus < d)
        return false;
    *most = SIM_NONE;
    *lvl = 0;
    *gpus = 0;
    if (n->nfree >= d)
        return true;
    uint32_t o = n->first_gpu, m = s->nthr[o + d - 1];
    if (m == NTHR_NO)
        return false;
    *most = s->nl.job[o + m];
    *lvl = (uint32_t)s->nl.key[o + m];
    *gpus = s->ncum[o + m];
    return true;
}

/* The key of a room on node nd: its most important victim (SIM_NONE:
 * free GPUs), that victim's queue and the GPUs the victims hold there. */
static inline struct tkey tkey_make(uint32_t most, uint32_t lvl, uint32_t gpus,
                                    uint32_t nd)
{
    uint64_t hi = most == SIM_NONE ? 0
                  : UINT64_C(1) << 63 | (uint64_t)(~lvl & 0x3FFFFFFFu) << 32 |
                    (uint32_t)~most;
    return (struct tkey){ hi, (uint64_t)gpus << 32 | nd };
}

/* Node nd's room for d as a key (struct tkey), from its cache (the queue
 * of a victim as the cache holds it, which a job's demotion refreshes). */
static struct tkey room_pack(const struct tiresias *s, const struct cluster *c,
                             uint32_t nd, uint32_t d)
{
    uint32_t most, lvl, gpus;
    if (nd == SIM_NONE || !room_key(s, c, nd, d, &most, &lvl, &gpus))
        return (struct tkey){ UINT64_MAX, UINT64_MAX };
    return tkey_make(most, lvl, gpus, nd);
}

static inline bool tkey_less(struct tkey a, struct tkey b)
{
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

/* The class of a room for the counts (struct tr_tree): 0 free GPUs, 1 + L
 * a most important victim of queue L, -1 no room. */
static inline int tkey_class(struct tkey k)
{
    if (k.hi == UINT64_MAX)
        return -1;
    return k.hi ? 1 + (int)(~(uint32_t)(k.hi >> 32) & 0x3FFFFFFFu) : 0;
}

/* Recomputes the path above leaf i of one tree (its winners w, keys k).
 * Each position keeps its winner's key, so a step is one comparison of
 * two keys; the path stops where a position keeps its winner and key (it
 * depends on its children alone). */
static void tree_path(uint32_t *w, struct tkey *k, uint32_t i)
{
    for (i /= 2; i; i /= 2) {
        uint32_t b = tkey_less(k[2 * i + 1], k[2 * i]) ? 2 * i + 1 : 2 * i;
        if (w[i] == w[b] && k[i].hi == k[b].hi && k[i].lo == k[b].lo)
            break;
        w[i] = w[b];
        k[i] = k[b];
    }
}

/* Sets leaf i (node nd) of the tree of demand d to room nk, from the
 * node's cache just refreshed: counted by class, its path left to
 * tree_flush.  While a node is dirty its stale key stays in the tree, and
 * every dirty node is refreshed and the tree flushed before it is read
 * (trees_fresh, tree_best), so each position is then the best of its
 * subtree as it is. */
static inline void tree_leaf(struct tr_tree *tr, uint32_t d, uint32_t i,
                             uint32_t nd, struct tkey nk)
{
    size_t o = tr->off[d - 1];
    uint32_t *w = tr->win + o, x = nk.hi == UINT64_MAX ? SIM_NONE : nd;
    struct tkey *k = tr->key + o;
    i += tr->leaves[d - 1];
    if (w[i] == x && k[i].hi == nk.hi && k[i].lo == nk.lo)
        return;
    uint32_t *cn = tr->cnt + (size_t)(d - 1) * TR_CLASSES;
    int a = tkey_class(k[i]), b = tkey_class(nk);
    if (a >= 0)
        cn[a]--;
    if (b >= 0)
        cn[b]++;
    w[i] = x;
    k[i] = nk;
    if (!tr->mark[o + i]) {
        tr->mark[o + i] = 1;
        tr->pend[o / 2 + tr->npend[d - 1]++] = i;
    }
}

/* The paths of the leaves of the tree of demand d set since the last
 * flush (in any order: a path walk leaves every position it passes
 * consistent with its children, and stops only where nothing above it
 * changes). */
static void tree_flush(struct tr_tree *tr, uint32_t d)
{
    size_t o = tr->off[d - 1];
    uint32_t *p = tr->pend + o / 2;
    for (uint32_t m = 0; m < tr->npend[d - 1]; m++) {
        tr->mark[o + p[m]] = 0;
        tree_path(tr->win + o, tr->key + o, p[m]);
    }
    tr->npend[d - 1] = 0;
}

/* Sets node nd's leaf in the flushed tree of demand d to x (nd, or
 * SIM_NONE to leave it out for a while: the counts do not change) and
 * recomputes its path. */
static void tree_set(const struct tiresias *s, const struct cluster *c,
                     struct tr_tree *tr, uint32_t d, uint32_t nd, uint32_t x)
{
    size_t o = tr->off[d - 1];
    uint32_t *w = tr->win + o;
    uint32_t i = tr->leaves[d - 1] + s->tpos[c->nodes[nd].first_gpu + d - 1];
    struct tkey *k = tr->key + o, nk = room_pack(s, c, x, d);
    DL_ASSERT(tr->live[d - 1] && !tr->npend[d - 1]);
    x = nk.hi == UINT64_MAX ? SIM_NONE : x;
    if (w[i] == x && k[i].hi == nk.hi && k[i].lo == nk.lo)
        return;
    w[i] = x;
    k[i] = nk;
    tree_path(w, k, i);
}

/* How many nodes of type t have room for d made of free GPUs and jobs of
 * queues below lq (the trees fresh): no read of a tree. */
static uint32_t tree_rooms(const struct tiresias *s, uint32_t t, uint32_t d,
                           uint32_t lq)
{
    const struct tr_tree *tr = &s->trees[t];
    if (d > tr->depth)
        return 0;
    DL_ASSERT(tr->live[d - 1]);
    const uint32_t *cn = tr->cnt + (size_t)(d - 1) * TR_CLASSES;
    uint32_t n = cn[0];
    for (uint32_t l = lq + 1; l < s->nq; l++)
        n += cn[1 + l];
    return n;
}

/* The best room for d on type t (the tree's root, flushed first): SIM_NONE
 * if no node has room for d made of jobs of queues below lq. */
static uint32_t tree_best(const struct tiresias *s, const struct cluster *c,
                          uint32_t t, uint32_t d, uint32_t lq)
{
    struct tr_tree *tr = &s->trees[t];
    uint32_t most, lvl, gpus;
    if (d > tr->depth)
        return SIM_NONE;
    DL_ASSERT(tr->live[d - 1]);
    tree_flush(tr, d);
    uint32_t nd = tr->win[tr->off[d - 1] + 1];
    if (nd == SIM_NONE || !room_key(s, c, nd, d, &most, &lvl, &gpus) ||
        (most != SIM_NONE && lvl <= lq))
        return SIM_NONE;
    return nd;
}

#ifndef NDEBUG
static int64_t level_key(const void *ctx, const struct pol_view *v, uint32_t j)
{
    const struct tiresias *s = ctx;
    return pol_may_preempt(v, j, s->cost) ? s->jb[j].level : -1;
}
#endif

/* The tree of demand d on type t, kept from now on: its leaves set from
 * the node caches, which are fresh (no node is dirty). */
static void tree_make(struct tiresias *s, const struct cluster *c, uint32_t t,
                      uint32_t d)
{
    struct tr_tree *tr = &s->trees[t];
    DL_ASSERT(!s->ndl);
    for (uint32_t nd = 0; nd < c->nnodes; nd++)
        if (c->nodes[nd].type == t && c->nodes[nd].ngpus >= d)
            tree_leaf(tr, d, s->tpos[c->nodes[nd].first_gpu + d - 1], nd,
                      room_pack(s, c, nd, d));
    tr->live[d - 1] = 1;
    uint32_t i = tr->nlive++;
    for (; i > 0 && tr->lived[i - 1] > d; i--)
        tr->lived[i] = tr->lived[i - 1];
    tr->lived[i] = (uint8_t)d;
}

/* tree_make where the tree is not kept yet (one test inline). */
static inline void tree_use(struct tiresias *s, const struct cluster *c,
                            uint32_t t, uint32_t d)
{
    const struct tr_tree *tr = &s->trees[t];
    if (d <= tr->depth && !tr->live[d - 1])
        tree_make(s, c, t, d);
}

/* Recomputes the node cache of node nd: from its job list (kept by
 * touch_job), the GPUs they hold there counted in that order, and for
 * each demand d above its free GPUs the first victim where the count
 * reaches d. */
static void node_refresh(struct tiresias *s, const struct pol_view *v, uint32_t nd)
{
    const struct clu_node *n = &v->clu->nodes[nd];
    uint32_t o = n->first_gpu, k = s->nl.n[nd];
    const uint32_t *sj = s->nl.job + o;
    const uint8_t *sn = s->nl.gpus + o;
    const int64_t *sl = s->nl.key + o;
    uint8_t *sc = s->ncum + o, *st = s->nthr + o;
    DL_ASSERT(!s->nl.unkept);
#ifndef NDEBUG
    DL_ASSERT(vic_lists_match(&s->nl, v, nd, level_key, s));
#endif
    while (k > 0 && sl[k - 1] < 0)      /* last: may not be stopped yet */
        k--;
    for (uint32_t i = 0, sum = 0; i < k; i++)
        sc[i] = (uint8_t)(sum += sn[i]);
    /* per demand d, the first victim where the count reaches it, and the
     * node's leaf in the tree of d (tree_leaf) */
    struct tr_tree *tr = &s->trees[n->type];
    uint32_t d = 1, ng = n->ngpus, nf = n->nfree;
    for (; d <= ng && d <= nf; d++)
        st[d - 1] = 0;
    for (uint32_t m = 0; m < k; m++)
        for (; d <= ng && d <= nf + sc[m]; d++)
            st[d - 1] = (uint8_t)m;
    for (; d <= ng; d++)
        st[d - 1] = NTHR_NO;
    for (uint32_t i = 0; i < tr->nlive && (d = tr->lived[i]) <= ng; i++) {
        uint32_t m = st[d - 1];
        struct tkey nk = d <= nf ? tkey_make(SIM_NONE, 0, 0, nd)
                         : m != NTHR_NO ? tkey_make(sj[m], (uint32_t)sl[m], sc[m], nd)
                         : (struct tkey){ UINT64_MAX, UINT64_MAX };
        tree_leaf(tr, d, s->tpos[o + d - 1], nd, nk);
    }
    s->ndirty[nd] = 0;
}

/* Victims on node nd to have `want` GPUs free there for a job of queue
 * lq: jobs of lower queues, least important first.  Writes them to vic
 * (room for the node's GPU count; NULL: only count them) and returns how
 * many, or -1 if the node
 * cannot be freed so.  *most = the most important victim (SIM_NONE when
 * none is needed), *gpus = GPUs they hold there. */
static int node_victims(struct tiresias *s, const struct pol_view *v,
                        uint32_t nd, uint32_t want, uint32_t lq, uint32_t *vic,
                        uint32_t *most, uint32_t *gpus)
{
    const struct clu_node *n = &v->clu->nodes[nd];
    *most = SIM_NONE;
    *gpus = 0;
    if (n->nfree >= want)
        return 0;
    vic_lists_read(&s->nl, v, list_key, s);
    if (s->ndirty[nd])
        node_refresh(s, v, nd);
    uint32_t m = s->nthr[n->first_gpu + want - 1];
    /* eligible victims are a prefix: the jobs of lower queues (that may
     * be stopped now) */
    if (m == NTHR_NO || s->nl.key[n->first_gpu + m] <= lq)
        return -1;
    if (vic)
        memcpy(vic, s->nl.job + n->first_gpu, (m + 1) * sizeof *vic);
    *most = s->nl.job[n->first_gpu + m];
    *gpus = s->ncum[n->first_gpu + m];
    return (int)m + 1;
}

/* Refreshes the dirty nodes: the trees hold the cluster as it is. */
static void trees_fresh(struct tiresias *s, const struct pol_view *v)
{
    vic_lists_read(&s->nl, v, list_key, s);
    for (size_t i = 0; i < s->ndl; i++) {
        uint32_t nd = s->dlist[i];
        s->inlist[nd] = 0;
        if (s->ndirty[nd])
            node_refresh(s, v, nd);
    }
    s->ndl = 0;
}

/* Consolidated, a gang of g that fits a node of type t: 1 room made, 0
 * none, or an error. */
static int room_single(struct tiresias *s, const struct pol_view *v,
                       struct pol_ctx *x, uint32_t g, uint32_t lq, uint32_t t)
{
    const struct cluster *c = v->clu;
    uint32_t tmp[64], most, gpus;
    /* the node cache: the best node is the root of the tree of g */
    trees_fresh(s, v);
    tree_use(s, c, t, g);
    if (!tree_rooms(s, t, g, lq))
        return 0;
    uint32_t best = tree_best(s, c, t, g, lq);
    DL_ASSERT(best != SIM_NONE);
    int nv = node_victims(s, v, best, g, lq, tmp, &most, &gpus);
    int rc = stop_all(s, x, v, tmp, (uint32_t)(nv > 0 ? nv : 0));
    return rc ? rc : 1;
}

/* Sorts a[0..n) best first (better: a total order), through tmp[0..n):
 * a bottom-up merge sort, O(n log n) where insertion was O(n^2). */
static void cand_sort(const struct tiresias *s, struct cand *a, size_t n,
                      struct cand *tmp)
{
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = better(s, a[j].most, a[j].gpus, a[j].node, a[i].most,
                                  a[i].gpus, a[i].node) ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        memcpy(a, tmp, n * sizeof *a);
    }
}

/* Stops the victims (of queues below lq) on the w nodes cs[0..w) until n
 * GPUs are free on each, then, when r > 0, on node rem until r are: 1, or
 * an error. */
static int empty_nodes(struct tiresias *s, const struct pol_view *v,
                       struct pol_ctx *x, const struct cand *cs, uint32_t w,
                       uint32_t n, uint32_t rem, uint32_t r, uint32_t lq)
{
    uint32_t tmp[64], most, gpus;
    int rc = 0;
    for (uint32_t i = 0; i <= w && !rc; i++) {
        uint32_t nd = i < w ? cs[i].node : rem, want = i < w ? n : r;
        if (!want)
            break;
        int nv = node_victims(s, v, nd, want, lq, tmp, &most, &gpus);
        rc = stop_all(s, x, v, tmp, (uint32_t)(nv > 0 ? nv : 0));
    }
    return rc ? rc : 1;
}

/* room_multi on a type of one node size n, from the trees: the best w =
 * g / n nodes to empty are the first w roots of the tree of demand n (each
 * left out of it once taken), the remainder's node the root of the tree
 * of demand g % n without them -- the ranking of the scan below. */
static int room_multi_tree(struct tiresias *s, const struct pol_view *v,
                           struct pol_ctx *x, uint32_t g, uint32_t lq,
                           uint32_t t, uint32_t gi)
{
    const struct cluster *c = v->clu;
    const struct clu_group *gr = &c->groups[gi];
    struct tr_tree *tr = &s->trees[t];
    uint32_t n = gr->gpus_per_node, w = g / n, r = g % n;
    if (gr->nnodes < w + (r != 0))
        return 0;
    trees_fresh(s, v);
    tree_use(s, c, t, n);
    if (r)
        tree_use(s, c, t, r);
    /* the first w roots pass exactly when w nodes have such room (a free
     * node, then a lower queue, ranks first) */
    if (tree_rooms(s, t, n, lq) < w)
        return 0;
    xgrow(&s->cands, &s->capcands, 2 * (size_t)gr->nnodes, sizeof *s->cands);
    struct cand *cs = s->cands;
    uint32_t rem = SIM_NONE;
    for (uint32_t k = 0; k < w; k++) {
        uint32_t nd = tree_best(s, c, t, n, lq);
        DL_ASSERT(nd != SIM_NONE);
        cs[k].node = nd;
        tree_set(s, c, tr, n, nd, SIM_NONE);
    }
    if (r) {
        tree_flush(tr, r);
        for (uint32_t i = 0; i < w; i++)
            tree_set(s, c, tr, r, cs[i].node, SIM_NONE);
        rem = tree_best(s, c, t, r, lq);
        for (uint32_t i = 0; i < w; i++)
            tree_set(s, c, tr, r, cs[i].node, cs[i].node);
    }
    for (uint32_t i = 0; i < w; i++)
        tree_set(s, c, tr, n, cs[i].node, cs[i].node);
    if (r && rem == SIM_NONE)
        return 0;
    return empty_nodes(s, v, x, cs, w, n, rem, r, lq);
}

/* Consolidated, a gang of g larger than every node of type t: whole nodes
 * of one size n plus a node of that size for the remainder. */
static int room_multi(struct tiresias *s, const struct pol_view *v,
                      struct pol_ctx *x, uint32_t g, uint32_t lq, uint32_t t)
{
    const struct cluster *c = v->clu;
    uint32_t done = UINT32_MAX;
    uint32_t one = SIM_NONE;          /* the type's group, if it has one */
    if (type_groups(c, t, &one) == 1 && c->groups[one].gpus_per_node < g)
        return room_multi_tree(s, v, x, g, lq, t, one);
    for (;;) {
        uint32_t gi = SIM_NONE, n = 0;
        for (uint32_t k = 0; k < c->ngroups; k++) {
            uint32_t m = c->groups[k].gpus_per_node;
            if (c->groups[k].type == t && m < g && m < done && m > n)
                gi = k, n = m;
        }
        if (gi == SIM_NONE)
            return 0;
        done = n;
        uint32_t w = g / n, r = g % n, nc = 0;
        const struct clu_group *gr = &c->groups[gi];
        if (gr->nnodes < w + (r != 0))
            continue;
        /* every node of the group that can be emptied, best first */
        xgrow(&s->cands, &s->capcands, 2 * (size_t)gr->nnodes, sizeof *s->cands);
        struct cand *cs = s->cands;
        for (uint32_t f = 0; f <= n; f++)
            for (uint32_t nd = clu_bucket_first(c, gi, f); nd != SIM_NONE;
                 nd = clu_bucket_next(c, nd)) {
                uint32_t most, gpus;
                if (node_victims(s, v, nd, n, lq, NULL, &most, &gpus) < 0)
                    continue;
                cs[nc++] = (struct cand){ nd, most, gpus };
            }
        if (nc < w)
            continue;
        cand_sort(s, cs, nc, cs + gr->nnodes);
        /* the w whole ones, marked */
        if (!s->taken)          /* zeroed: no node marked */
            s->taken = xcalloc(c->nnodes, sizeof *s->taken);
        if (++s->tstamp == 0) {
            memset(s->taken, 0, c->nnodes * sizeof *s->taken);
            s->tstamp = 1;
        }
        for (uint32_t i = 0; i < w; i++)
            s->taken[cs[i].node] = s->tstamp;
        /* the remainder: the best node outside the w whole ones */
        uint32_t rem = SIM_NONE, rm = SIM_NONE, rg = 0;
        if (r) {
            for (uint32_t f = 0; f <= n; f++)
                for (uint32_t nd = clu_bucket_first(c, gi, f); nd != SIM_NONE;
                     nd = clu_bucket_next(c, nd)) {
                    uint32_t most, gpus;
                    if (s->taken[nd] == s->tstamp ||
                        node_victims(s, v, nd, r, lq, NULL, &most, &gpus) < 0)
                        continue;
                    if (rem == SIM_NONE || better(s, most, gpus, nd, rm, rg, rem))
                        rem = nd, rm = most, rg = gpus;
                }
            if (rem == SIM_NONE)
                continue;
        }
        return empty_nodes(s, v, x, cs, w, n, rem, r, lq);
    }
}

/* Pool: the least important running jobs of type t below queue lq until
 * g GPUs are free. */
static int room_pool(struct tiresias *s, const struct pol_view *v,
                     struct pol_ctx *x, uint32_t g, uint32_t lq, uint32_t t)
{
    struct tr_runheap *h = &s->rh[t];
    uint64_t have = v->clu->types[t].free_gpus;
    size_t nv = 0;
    while (have < g && h->n) {
        if (!run_live(s, v, &h->a[0])) {
            rh_pop(h);
            continue;
        }
        if (h->a[0].level <= lq)
            break;
        xgrow(&s->vic, &s->capvic, nv + 1, sizeof *s->vic);
        struct tr_run it = rh_pop(h);
        s->vic[nv++] = it.job;
        /* one that gained too little since its start stays (pushed back) */
        if (pol_may_preempt(v, it.job, s->cost))
            have += v->jobs[it.job].num_gpus;
    }
    if (have < g) {
        for (size_t i = 0; i < nv; i++)
            rh_push(h, (struct tr_run){ s->jb[s->vic[i]].level, s->vic[i],
                                        s->jb[s->vic[i]].ver });
        return 0;
    }
    /* push back the ones that stay; stop the rest */
    size_t k = 0;
    for (size_t i = 0; i < nv; i++) {
        uint32_t j = s->vic[i];
        if (pol_may_preempt(v, j, s->cost))
            s->vic[k++] = j;
        else
            rh_push(h, (struct tr_run){ s->jb[j].level, j, s->jb[j].ver });
    }
    nv = k;
    int rc = stop_all(s, x, v, s->vic, (uint32_t)nv);
    return rc ? rc : 1;
}

/* Starts queued job j (out of the queue): on free GPUs of any type it may
 * use if placement finds them, else on the first type (its required one,
 * else fastest first) where room can be made.  1 started, 0 not, or an
 * error. */
static int start_or_make_room(struct tiresias *s, const struct pol_view *v,
                              struct pol_ctx *x, uint32_t j)
{
    const struct cluster *c = v->clu;
    uint32_t g = v->jobs[j].num_gpus, lq = s->jb[j].level;
    uint32_t req = pol_rt(v, j)->req_type;
    xgrow(&s->q.gpus, &s->q.gcap, g, sizeof *s->q.gpus);
    bool found = pol_place(v, g, req, s->mode, NULL, s->q.gpus);
    for (uint32_t i = 0; i < c->ntypes && !found; i++) {
        uint32_t t = req != SIM_NONE ? req : c->type_order[i];
        if (c->types[t].total_gpus >= g) {
            int rc;
            if (s->mode == PLC_POOL) {
                rc = room_pool(s, v, x, g, lq, t);
            } else {
                rc = g <= c->types[t].max_node_gpus
                         ? room_single(s, v, x, g, lq, t)
                         : room_multi(s, v, x, g, lq, t);
            }
            if (rc < 0)
                return rc;
            if (rc) {
                /* the victims restart in the final fill if this falls short */
                xgrow(&s->q.gpus, &s->q.gcap, g, sizeof *s->q.gpus);
                found = pol_place(v, g, t, s->mode, NULL, s->q.gpus);
                break;
            }
        }
        if (req != SIM_NONE)
            break;
    }
    if (!found)
        return 0;
    int rc = pol_start(x, j, s->q.gpus);
    if (!rc)
        started(s, v, j);
    return rc ? rc : 1;
}

/* ---------------------------------------------------------- schedule */

/* The walk's candidates again: the buckets not left (blocked 0) whose live
 * head outranks a running job (maxlvl never rises in a walk: a job
 * started there is in a higher queue); the stale heads dropped when
 * `check`. */
static void walk_cands(struct tiresias *s, const struct pol_view *v,
                       int maxlvl, bool check)
{
    xgrow(&s->cand, &s->capcand, s->q.nb, sizeof *s->cand);
    s->ncand = 0;
    for (size_t b = 0; b < s->q.nb; b++)
        if (!s->blocked[b] && (check ? live_head(s, v, (long)b) : s->q.b[b].n > 0) &&
            pq_head(&s->q, (long)b)->key < maxlvl)
            s->cand[s->ncand++] = (uint32_t)b;
}

/* Walk: the waiting jobs in priority order while one outranks a running
 * job, each started, on free GPUs or in room made for it, or its bucket
 * left for the instant (blocked 1).  Where a try fails with no job
 * stopped (s->mono), every bucket of a larger gang of the same required
 * type is left too (blocked 2) until a job is stopped: until then a job
 * starts only on free GPUs, so the free GPUs and the jobs of lower queues
 * than theirs (which come later: the walk takes queues in order) only
 * fall, and with one node size per type (or pool placement) a gang that
 * neither fits nor finds room is followed by every larger one.  (With two
 * node sizes a gang of 6 may wait for a large node while one of 9 spans
 * small ones.) */
static int walk(struct tiresias *s, const struct pol_view *v, struct pol_ctx *x)
{
    uint64_t stops = s->nstops;
    int maxlvl = -1;
    for (int k = (int)s->nq - 1; k >= 0 && maxlvl < 0; k--)
        if (s->nrun[k])
            maxlvl = k;
    if (maxlvl <= 0)
        return 0;
    xgrow(&s->blocked, &s->capblocked, s->q.nb, 1);
    memset(s->blocked, 0, s->q.nb);
    size_t nbl = s->q.nb;
    /* the stale heads go here; after it a head goes stale only as its
     * job starts (popped below, then the next head checked): the others'
     * jobs neither start nor change queue in the walk, and a victim's
     * entry is new */
    walk_cands(s, v, maxlvl, true);
    for (;;) {
        while (maxlvl > 0 && !s->nrun[maxlvl])
            maxlvl--;
        if (maxlvl <= 0)
            return 0;
        size_t bi = SIZE_MAX;
        for (size_t i = 0; i < s->ncand; i++)
            if (bi == SIZE_MAX || item_before(pq_head(&s->q, s->cand[i]),
                                             pq_head(&s->q, s->cand[bi])))
                bi = i;
        if (bi == SIZE_MAX)
            return 0;
        long best = s->cand[bi];
        if (pq_head(&s->q, best)->key >= maxlvl)
            return 0;
        /* tried in place: a job that does not start stays at its
         * bucket's head (the victims rank below it unless promoted at
         * once, so a started one is popped only if still there, else its
         * entry is stale: it runs under a new version) */
        struct pq_item it = *pq_head(&s->q, best);
        int done = start_or_make_room(s, v, x, it.job);
        if (done < 0)
            return done;
        if (done) {
            s->nlive--;
            if (pq_head(&s->q, best)->seq == it.seq) {
                pq_pop(&s->q, best);
                live_head(s, v, best);
            } else {
                s->nstale++;
            }
        } else {
            s->blocked[best] = 1;
        }
        if (stops != s->nstops) {       /* room may have grown; new entries */
            stops = s->nstops;
            xgrow(&s->blocked, &s->capblocked, s->q.nb, 1);
            memset(s->blocked + nbl, 0, s->q.nb - nbl);
            nbl = s->q.nb;
            for (size_t b = 0; b < nbl; b++)
                s->blocked[b] = s->blocked[b] == 2 ? 0 : s->blocked[b];
            walk_cands(s, v, maxlvl, false);
            continue;
        }
        if (!done && s->mono) {
            uint32_t g = s->q.b[best].ngpus, req = s->q.b[best].req_type;
            for (size_t i = 0; i < s->ncand; i++) {
                const struct pq_bucket *bk = &s->q.b[s->cand[i]];
                if (bk->req_type == req && bk->ngpus >= g && s->cand[i] != (uint32_t)best)
                    s->blocked[s->cand[i]] = 2;
            }
        }
        /* drop the candidates left and emptied */
        size_t k = 0;
        for (size_t i = 0; i < s->ncand; i++)
            if (!s->blocked[s->cand[i]] && s->q.b[s->cand[i]].n)
                s->cand[k++] = s->cand[i];
        s->ncand = k;
    }
}

/* Starts waiting jobs in priority order while any fits. */
static int fill(struct tiresias *s, const struct pol_view *v, struct pol_ctx *x)
{
    const struct cluster *c = v->clu;
    while (s->nlive) {
        uint64_t free_gpus = 0;
        for (uint32_t t = 0; t < c->ntypes; t++)
            free_gpus += c->types[t].free_gpus;
        long best = -1;
        for (size_t k = 0; k < s->q.nb; k++) {
            long b = s->q.by_size[k];
            if (s->q.b[b].ngpus > free_gpus)
                break;
            if (!live_head(s, v, b) ||
                (best >= 0 && !item_before(pq_head(&s->q, b), pq_head(&s->q, best))))
                continue;
            if (pol_place(v, s->q.b[b].ngpus, s->q.b[b].req_type, s->mode, NULL, NULL))
                best = b;
        }
        if (best < 0)
            return 0;
        const struct pq_bucket *bk = &s->q.b[best];
        xgrow(&s->q.gpus, &s->q.gcap, bk->ngpus, sizeof *s->q.gpus);
        bool ok = pol_place(v, bk->ngpus, bk->req_type, s->mode, NULL, s->q.gpus);
        DL_ASSERT(ok);
        struct pq_item it = pq_pop(&s->q, best);
        s->nlive--;
        int rc = pol_start(x, it.job, s->q.gpus);
        if (rc)
            return rc;
        started(s, v, it.job);
    }
    return 0;
}

/* Rebuilds the ordered queue without its stale entries. */
static void sweep(struct tiresias *s, const struct pol_view *v)
{
    size_t k = 0;
    for (size_t b = 0; b < s->q.nb; b++)
        for (size_t i = 0; i < s->q.b[b].n; i++)
            if (item_live(s, v, &s->q.b[b].a[i])) {
                xgrow(&s->items, &s->capitems, k + 1, sizeof *s->items);
                s->items[k++] = s->q.b[b].a[i];
            }
    pq_clear(&s->q);
    for (size_t i = 0; i < k; i++) {
        uint32_t j = s->items[i].job;
        pq_push_item(&s->q, &s->items[i], v->jobs[j].num_gpus,
                     pol_rt(v, j)->req_type);
    }
    s->nstale = 0;
}

static void schedule(void *state, const struct pol_view *v, struct pol_ctx *x)
{
    struct tiresias *s = state;
    run_timers(s, v);
    elig_timers(s, v);
    if (walk(s, v, x) || fill(s, v, x))
        return;
    if (s->nstale > 64 && s->nstale > s->nlive)
        sweep(s, v);
    /* One wake-up outstanding, for the earliest live timer, and only while
     * jobs wait: with none waiting a demotion changes no decision, and it
     * is applied (at its exact time, by the service counts) when the next
     * instant runs the timers.  Promotions are of waiting jobs. */
    while (s->tm.n && !timer_due(s, v, &s->tm.a[0]))
        tm_pop(s);
    if (s->tm.n && s->nlive && (s->woke <= v->now || s->tm.a[0].at < s->woke)) {
        s->woke = s->tm.a[0].at;
        pol_wake(x, s->woke);
    }
}

static uint32_t queued(void *state)
{
    return ((struct tiresias *)state)->nlive;
}

/* ------------------------------------------------------------ options */

static int parse_thresholds(struct tiresias *s, const char *val, struct dl_error *err)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", val);
    uint32_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        simtime_t us;
        if (n == TR_MAXQ - 1 || sim_parse_seconds(tok, &us) || us <= 0 ||
            us > TRC_MAX_TIME || (n && us <= s->thr[n - 1]))
            return dl_fail(err, "--policy", 0, 0,
                           "thresholds=%s: expected 1 to %d increasing GPU-seconds "
                           "in (0, 1e12] separated by '/' (e.g. 3250/7200)",
                           val, TR_MAXQ - 1);
        s->thr[n++] = us;
    }
    if (!n || val[strlen(val) - 1] == '/' || val[0] == '/' || strstr(val, "//"))
        return dl_fail(err, "--policy", 0, 0,
                       "thresholds=%s: expected 1 to %d increasing GPU-seconds "
                       "in (0, 1e12] separated by '/' (e.g. 3250/7200)", val,
                       TR_MAXQ - 1);
    s->nq = n + 1;
    return 0;
}

static int create(void **state, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *err)
{
    struct tiresias *s = xcalloc(1, sizeof *s);
    double cost;
    int rc = pol_arg_placement(a, &s->mode, err);
    if (!rc)
        rc = parse_thresholds(s, pol_arg_str(a, "thresholds"), err);
    if (!rc)
        rc = pol_arg_double(a, "promote", 0, 1e9, &s->promote, err);
    if (!rc)
        rc = pol_arg_double(a, "preempt_cost", 0, 1e9, &cost, err);
    if (rc) {
        free(s);
        return rc;
    }
    pq_init(&s->q);
    s->cost = cost * (double)SIM_US_PER_S;
    ensure(s, v);
    *state = s;
    return 0;
}

static void destroy(void *state)
{
    struct tiresias *s = state;
    pq_free(&s->q);
    free(s->jb);
    free(s->tm.a);
    free(s->etm.a);
    for (uint32_t t = 0; s->rh && t < s->ntypes; t++)
        free(s->rh[t].a);
    free(s->rh);
    free(s->blocked);
    free(s->cand);
    free(s->vic);
    free(s->cands);
    free(s->taken);
    free(s->dlist);
    free(s->inlist);
    free(s->tpos);
    if (s->trees)
        for (uint32_t t = 0; t < s->ntypes; t++) {
            free(s->trees[t].win);
            free(s->trees[t].key);
            free(s->trees[t].leaves);
            free(s->trees[t].off);
            free(s->trees[t].pend);
            free(s->trees[t].npend);
            free(s->trees[t].mark);
            free(s->trees[t].cnt);
            free(s->trees[t].live);
            free(s->trees[t].lived);
        }
    free(s->trees);
    free(s->items);
    free(s->ndirty);
    vic_lists_free(&s->nl);
    free(s->ncum);
    free(s->nthr);
    free(s);
}

static const struct pol_opt tiresias_opts[] = {
    { "thresholds", "3250/7200",
      "queue thresholds in GPU-seconds of attained service, increasing, '/'-"
      "separated (K-1 of them for K queues)" },
    { "promote", "0", "a job waiting >= promote x its run time since it last "
                      "entered Q0 goes back to Q0 (0 = off)" },
    { "preempt_cost", "0", "seconds of reference-GPU work added per preemption" },
    { NULL, NULL, NULL },
};

const struct policy pol_tiresias = {
    .name = "tiresias",
    .summary = "Tiresias 2D-LAS: queues by attained GPU-time, FIFO within a "
               "queue; preemptive",
    .blocking = "it preempts running jobs of lower queues when that makes "
                "room for it; otherwise it waits while later jobs that fit "
                "start",
    .opts = tiresias_opts,
    .create = create,
    .destroy = destroy,
    .enqueue = enqueue,
    .rate_changed = rate_changed,
    .finished = finished,
    .schedule = schedule,
    .queued = queued,
};
