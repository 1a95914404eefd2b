/*
 * policies/qos.c - QoS-aware scheduling (qos), after Luo, Chen & Wang
 * (Computer Engineering & Science 43(8), 2021) and the same group's GENIE
 * (DATE 2019, TPDS 2020).  Exclusive GPUs; non-preemptive unless
 * preempt=1.
 *
 * What the papers give (shared/POLICIES.md): a prediction model of each
 * job's run time, each job's expected QoS (a completion time), and an
 * online, event-driven scheduler ordering jobs by Shortest Waiting
 * Allowance First (SWAF) and choosing their placement.  Everything else
 * here is inferred and is an option (defaults in brackets).
 *
 * Predictions.  A job's predicted solo run time on its num_gpus GPUs of
 * type t is P(j, t) = pol_pred_runtime(v, j, t, spread=false),
 * rounded up to a whole microsecond as the engine rounds run times.
 * Without --models it is exactly duration / speed(t); with --models it is
 * the roofline's (or, with predict.runtime: oracle, the true) ratio, times
 * the job's seeded noise factor exp(sigma z), sigma =
 * predict.runtime_noise.  The policy never reads the true rates.
 *
 * Classes and order.  The QoS target is the trace's `deadline`.
 *   T_best(j) = min over the types j may use of P(j, t) (its gpu_type if
 *               given, else every type of the cluster whose nodes can
 *               ever hold the gang);
 *   WA(j)     = deadline - now - T_best (waiting allowance).
 * Jobs with WA >= 0 form the QoS class, served first by ascending WA
 * (SWAF).  WA moves with `now` alone, by the same amount for every job, so
 * the QoS queue is a heap on the static key L(j) = deadline - T_best (the
 * latest start), and WA < 0 is exactly now > L.  demote=wa [default]: a
 * job leaves the QoS class at the first instant with now > L and joins the
 * best-effort class (a job that arrives with WA < 0 joins it at once).
 * While GPUs are idle the policy asks for a wake-up at L + 1 us for the
 * head of the QoS queue, so that a demotion that lets something start
 * happens at exactly that microsecond; with no GPU free nothing could
 * start before the next event anyway, and the demotion is done then.
 * demote=never: jobs stay in the QoS order however negative their WA
 * gets.  Jobs without a deadline are best-effort.  Best-effort
 * jobs are served after every QoS job, be_order=arrival [default] (ties of
 * keys, here and everywhere, by arrival) or be_order=short (shortest
 * T_best first).
 *
 * priority=1: the trace's priority column makes strict classes, larger
 * first, within the QoS class and within best effort (the order above
 * within a class: the heaps and the QoS set compare (priority, key,
 * job)).  The QoS front is then no longer the smallest L, so a second heap
 * on (L, job) finds the jobs to demote and the wake-up time.
 *
 * Placement (GPU count is always num_gpus: the engine runs gangs of
 * exactly that size; placement=consolidated|pool as for every policy,
 * through pol_place on one required type).  A QoS-class job may start only
 * on a type t that meets its deadline, now + P(j, t) <= deadline;
 * placement_rule=cheapest [default] tries them slowest first (largest
 * P(j, t); ties: the cluster's slower type first), so that fast GPUs stay
 * free for urgent jobs; placement_rule=fastest tries them fastest first.
 * When none of those types has room it waits, even if a slower type is
 * idle (it would miss its deadline there).  A best-effort job (and, with
 * demote=never, a job whose WA < 0) takes the fastest type with room
 * (smallest P(j, t); ties: the cluster's faster type).
 *
 * Reservation (reserve=1 [default], EASY-style).  Jobs are taken in order
 * (QoS class, then best effort).  The first QoS-class job R that cannot
 * start is reserved for: for each type t it may use (those meeting its
 * deadline from now), the shadow time S_t is the earliest time at which t
 * will have num_gpus(R) GPUs free, counting GPUs (as EASY counts
 * processors; under consolidated placement the GPUs may then still be on
 * different nodes, so R can start later than S_t), from the running jobs'
 * predicted finishes: a job started at s on type t with a fraction f of
 * its work left is predicted to end at s + f * P(j, t, spread as placed),
 * and one still running past that is taken to end at now + 1 us.  The
 * reserved type is the first, in placement_rule order, whose
 * S_t + P(R, t) meets the deadline; if none does, the type of the earliest
 * predicted finish.  Later jobs (QoS or best effort) then start now only
 * if they do not delay R: on another type, or predicted to finish by S, or
 * within the `extra` GPUs (those free at S beyond R's need, used up as
 * jobs take them).  reserve=0: no reservation; later jobs that fit start
 * (plain backfilling, within the window below for QoS jobs).  Only one
 * job holds a reservation at a time.
 *
 * Cost.  An instant with no free GPU costs O(demotions x log n) (plus,
 * with preempt=1, one preemption attempt: see Preemption).  Else the
 * QoS queue is walked in order (an ordered set of sorted blocks, O(1) a
 * job), starting jobs until the first that cannot start; past it at most
 * backfill_window [64] further jobs are examined (QoS, then best effort
 * while a reservation holds: every best-effort job also sits in one
 * ordered set for that).  Most of those tries end in choose_first's
 * tests, inline, before any prediction but one.  Without a reservation,
 * best-effort jobs are kept in buckets of equal gang shape (as
 * policies/queue.c does) and filled like fifo:backfill=1: one placement
 * test per shape per start, no window.  Placement failures are memoized
 * per (type, GPU count) within an instant (GPUs are only taken during
 * schedule(), so a failure stands).  Running jobs sit in one min-heap per
 * type on predicted finish, from which a shadow time takes its first k
 * jobs in O(k log k).  Started jobs are taken out of the queues after each
 * walk, in O(log n) each through a per-job position index.
 *
 * Preemption (preempt=0 [default]: never).  Inferred: Chronus (SoCC
 * 2021) preempts on leases for deadlines; the papers above say nothing.
 * preempt=1: at most once per instant, the head R of the QoS queue (the
 * most urgent job not started, WA >= 0, not best effort as defined below)
 * that cannot start now and would miss its deadline waiting (no type t
 * that meets it from now has max(S_t, now + 1 us) + P(R, t) <= deadline,
 * S_t its shadow time as for the reservation) may stop running jobs on
 * one type t that meets its deadline from now (now + P(R, t) <=
 * deadline) and start there at once.  It may stop only jobs less urgent
 * than itself, never one started in this instant:
 *   best effort: no deadline, or ever in the best-effort class, or ever
 *     started on a type on which it was predicted to miss its deadline.
 *     The mark is sticky: such a job never preempts, and under demote=wa
 *     it is queued again as best effort;
 *   QoS (only with preempt_qos=1 [default]): a job started on a type that
 *     meets its deadline, that (a) has never been chosen as a QoS victim,
 *     (b) did not preempt R itself, (c) is strictly less urgent: (its
 *     deadline - T_best of its remaining work, job) > (L(R), R), and (d)
 *     has room to spare: restarted on t at X_t = max(now + P(R, t), S_t)
 *     -- not before R ends, nor before the GPUs R would have waited for
 *     come free -- with its remaining work plus preempt_cost, it is still
 *     predicted to finish by its deadline.  (d) is a prediction, not a
 *     promise: other jobs may take those GPUs first.  preempt_qos=0 stops
 *     best-effort jobs only, so that no job that can still meet its
 *     deadline is ever put at risk.
 * Victims: the set that frees num_gpus(R) GPUs on one node of t
 * (consolidated; a gang larger than t's largest node does not preempt
 * there) or on t (pool) and disturbs the fewest GPU-seconds, QoS victims'
 * first: it minimizes (the GPU-us disturbed of its QoS victims, the
 * GPU-us disturbed in all), where a victim V disturbs num_gpus(V) x
 * (P(R, t) + the predicted time of preempt_cost on t) -- it stands still
 * at least while R runs, then redoes its checkpoint.  So best-effort
 * victims come first, then the fewest GPUs.  It is exact: a 0/1 min-cost
 * cover by dynamic programming over the GPUs still needed.  Ties: the
 * lower node, then the type first in placement_rule order.  Each victim
 * gets preempt_cost [0] seconds of reference-GPU work added (pol_preempt,
 * as srtf), and all predictions of a job that ran use its remaining work:
 * P(j, t) x remaining / duration.  Victims queue again only at the end of
 * the instant, so they start again 1 us later at the earliest (the
 * engine undoes a preemption restarted within the instant, cost and all:
 * a victim moving at once to idle GPUs would migrate for free).
 * No livelock: a preemption starts R on a type meeting its deadline, so R
 * is not best effort; it can be stopped again only as a QoS victim, which
 * happens to a job at most once, and best-effort jobs never preempt.  So
 * a job preempts at most twice, stopping at most num_gpus(R) jobs each
 * time (each victim frees a GPU still needed): a run has at most
 * 2 x sum(num_gpus) preemptions.  A victim never stops its preemptor
 * ((b), and R started in this instant), and urgency is compared strictly,
 * ties by job index.  As a shadow time may not hold (it counts GPUs, not
 * nodes, and trusts predicted finishes), the policy also asks for a
 * wake-up at the QoS head's latest start L, when waiting any longer would
 * miss.  Why QoS victims by default (preempt_qos=1): by the predictions
 * the policy trusts everywhere else, (d) costs the victim nothing, while
 * where every job has a deadline the best-effort jobs are only the
 * demoted ones, already late.  Cost: one attempt per instant,
 * O(GPUs of the meeting types x ntypes) plus the cover, O(victim
 * candidates x num_gpus(R)).
 *
 * elastic (GENIE is listed as elastic): with elastic=1, a QoS job that
 * cannot start now with its num_gpus GPUs, before it would get the
 * reservation, starts with fewer: the largest halving of its gang (g/2,
 * g/4, ..., 1) that fits now on a type (in placement_rule order) where its
 * predicted run time on that many GPUs (pol_pred_runtime_n: the
 * runtime model's throughput for the smaller gang) still meets its
 * deadline; pol_start_n runs it so.  Growth, the other half of GENIE's
 * elasticity: at the end of every schedule() in which GPUs are still idle
 * once the queue has been served, each running QoS gang (a deadline, not
 * best effort) holding fewer than its num_gpus GPUs, earliest deadline
 * first (ties by job), grows (pol_resize) to the largest size m of the
 * halving ladder num_gpus, num_gpus/2, ... above its current n for which
 * idle GPUs of its type are at hand -- consolidated: on the nodes it
 * holds; pool: anywhere on the type, lowest GPUs first -- and whose
 * predicted remaining time pol_pred_runtime_n(m) x (remaining / duration)
 * is below that at n.  grow=need [default] grows only a gang that needs
 * it: its remaining time at n forecast from its observed progress since
 * it started or last grew (work done over time taken: the iteration
 * counter a real scheduler reads; before any progress, the prediction)
 * does not meet its deadline from now (with margin).  grow=idle grows
 * whenever the larger gang is predicted faster.  The engine settles the
 * work done and runs the rest at the runtime model's speed for m GPUs, so
 * the remaining time scales by exactly speed(n) / speed(m).  Running jobs
 * are counted by the GPUs they hold (job_rt.ngpus) wherever GPUs are
 * counted.
 *
 * margin=F [0]: wherever the policy asks whether a run meets a deadline --
 * a QoS placement (the types that meet), the reservation's type, an
 * elastic start's size, whether the QoS head would meet waiting (preempt),
 * a QoS victim's room to spare, growth's need -- a run predicted to take p
 * from start s meets deadline D only if s + p + ceil(F p) <= D: its
 * predicted finish lies F x its predicted run time before the deadline.
 * F = 0 is the rule above exactly (the default keeps the old schedules).
 * Not affected: the SWAF key L = deadline - T_best, so the order and the
 * demotion to best effort (at the true deadline), and the best-effort
 * mark of a job started where it is predicted to miss.  A QoS job with no
 * type meeting the margin takes the fastest type with room, as one with
 * no type meeting its deadline does.
 */
#include "policies/policy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DEMOTE_WA, DEMOTE_NEVER };
enum { BE_ARRIVAL, BE_SHORT };
enum { RULE_CHEAPEST, RULE_FASTEST };
enum { GROW_NEED, GROW_IDLE };

/* Heap ids: H_QOS the QoS queue, 1 + t the running jobs of type t, then
 * one per best-effort bucket. */
#define H_QOS 0

struct hitem {
    simtime_t key;
    uint32_t job;
    int32_t prio;               /* priority=1: the trace's; else 0 */
    uint32_t g, req;            /* a queued job's gang and required type
                                   (v->jobs[job], pol_rt(v, job)): a walk tries
                                   dozens of jobs an instant, most of which
                                   no type can take, without reading their
                                   records */
    simtime_t p;                /* a queued job's pred on type req (type 0
                                   when any), for the same walks: its work
                                   left does not change while it waits */
};

/* A binary min-heap on (key, job) that keeps each job's position in pos,
 * so that any job can be removed in O(log n). */
struct iheap {
    struct hitem *a;
    size_t n, cap;
    uint32_t *pos;              /* [njobs], shared by heaps of one kind */
};

/* The QoS queue: (key, job) items in order, in blocks of at most OS_B
 * sorted items, the blocks in order (a B+-tree of depth two).  Insert and
 * remove cost a binary search and a move within one block; walking in
 * order costs O(1) per item (a heap walk costs O(log k) for each of the
 * first k, and a busy instant walks dozens). */
#ifdef NDEBUG
enum { OS_B = 64 };             /* fewest instructions on the overloaded
                                   cluster: 256 and 128 move more per
                                   insert, 32 pays more per block walked */
#else
enum { OS_B = 8 };              /* debug builds: many splits and merges */
#endif
struct oblk {
    uint32_t n;
    struct hitem a[OS_B];
};
struct oset {
    struct oblk **b;
    size_t nb, cap;
    size_t n;
};
struct ocur {                   /* a position of an in-order walk */
    size_t bi;
    uint32_t k;
};

struct bucket {                 /* best-effort jobs of one gang shape */
    uint32_t ngpus, req, hid;
};

struct cur {                    /* a frontier entry of an ordered walk */
    simtime_t key;              /* h->a[idx].key */
    size_t idx;
};

struct walk {
    struct cur *a;
    size_t n, cap;
};

struct resv {
    bool on;
    uint32_t job, type;
    simtime_t shadow;
    uint64_t extra;             /* GPUs of type free at shadow beyond job's */
};

struct pitem {                  /* a possible victim */
    uint32_t job, w;            /* w: GPUs it frees where they are needed */
    double cq, ct;              /* GPU-us it disturbs: if QoS, in all */
};

struct pcost {                  /* a cover's cost, compared (cq, ct) */
    double q, t;
};

/* pred(v, j, t) of a waiting job j.  A busy instant walks the same few
 * dozen queued jobs past the blocked one again and again, and each try
 * wanted the prediction of every type; a waiting job's work left is what
 * it was when it was queued, so an entry stands until j is queued again
 * (enqueue forgets it). */
struct pmemo {
    uint32_t j, t;              /* SIM_NONE: empty */
    simtime_t p;
};

enum { QOS_MEMO = 2048 };       /* a power of two */

struct qos {
    enum plc_mode mode;
    int demote, be_order, rule;
    bool reserve;
    long window;
    bool preempt, preempt_qos, elastic;
    int grow;                   /* GROW_NEED, GROW_IDLE (elastic=1) */
    double margin;              /* margin=F: a finish must be predicted
                                   F x its run time before the deadline */
    double cost;                /* preempt_cost, reference-GPU us */
    /* sized on the first hook call, when the cluster and trace are known */
    uint32_t njobs, ntypes, maxg;
    uint32_t *qhome;            /* [njobs] heap id of a queued job */
    uint32_t *qpos, *rpos;      /* [njobs] positions in queue / run heaps */
    struct iheap *h;            /* h[H_QOS] unused: the QoS queue is qq */
    size_t nh, caph;
    struct oset qq;             /* the QoS queue */
    /* the best-effort jobs of every bucket in one order, for the window
     * walked behind a reservation (a merge of the buckets' heaps cost a
     * pop and a push each) */
    struct oset bq;
    simtime_t *qkey;            /* [njobs] a queued job's key */
    bool priority;              /* priority=1: strict classes */
    const struct trc_job *jobs; /* the trace (a job's class: its priority) */
    struct iheap dh;            /* priority=1: the QoS queue by (L, job), for
                                   demotion (its front is no longer the
                                   smallest L) */
    uint32_t *dpos;             /* [njobs] positions in dh */
    struct bucket *b;
    size_t nb, capb;
    uint32_t *by_size;          /* [capb] buckets by ascending ngpus */
    uint32_t *fail;             /* [ntypes][maxg + 1] stamp of a failed fit */
    int8_t *ever;               /* [ntypes][maxg + 1] pol_ever_fits, -1 = ? */
    uint32_t stamp;
    uint32_t *rank;             /* [ntypes] position in cluster type_order */
    uint32_t *gpus;             /* [maxg] placement scratch */
    uint32_t *cand;             /* [ntypes] candidate types of one job */
    simtime_t *cpred;           /* [ntypes] their predicted run times */
    struct pmemo *memo;         /* [QOS_MEMO] predictions of candidates */
    uint32_t *done;             /* jobs started during a walk */
    size_t ndone, capdone;
    struct walk rw;
    /* shadow's answers for the running jobs as they stand: a head that
     * may not preempt asks the same again for its reservation */
    struct shmemo {
        uint64_t ver;           /* s->shver when made */
        uint32_t g;
        bool ok;
        simtime_t at;
        uint64_t extra;
    } *shm;                     /* [ntypes] */
    uint64_t shver;             /* bumped at each instant and each change
                                   of a heap (of running jobs among them) */
    /* A walk behind a reservation passes dozens of jobs an instant that
     * cannot start, and the reason is the same for every gang of one
     * size that requires no type: no type may take it, or only the
     * reserved type may and would be held past the shadow time by a
     * prediction there over lim.  So choose_first's answer for such a
     * gang is kept per size while nothing it reads changes (vver: bumped
     * at each instant, start, stop, failed fit and new reservation), and
     * window settles a job by its prediction alone. */
    struct verdict {
        uint64_t ver;           /* s->vver when made */
        uint32_t t0;            /* next_fit from type 0; s->ntypes: none */
        bool ask;               /* the reservation holds on another type:
                                   the tests read that type's prediction */
        simtime_t lim;          /* a prediction over lim: cannot start */
    } *vd;                      /* [maxg + 1] */
    uint64_t vver;
    size_t nqueued;
    simtime_t wake_at;          /* latest wake-up asked for */
    /* preemption (see the header) */
    uint8_t *be;                /* [njobs] best effort, sticky */
    uint8_t *qv;                /* [njobs] chosen as a QoS victim once */
    uint32_t *by;               /* [njobs] who preempted it, SIM_NONE */
    uint32_t *pcand;            /* [ntypes] R's types meeting its deadline */
    simtime_t *ppred;           /* [ntypes] their predicted run times */
    simtime_t *pshadow;         /* [ntypes] R's shadow times there */
    struct pitem *items;        /* victim candidates of one cover */
    size_t capitems;
    struct pcost *dp;           /* [need + 1] cover costs */
    size_t capdp;
    uint8_t *take;              /* [items x (need + 1)] cover choices */
    size_t captake;
    uint32_t *pick, *best;      /* victims: of a cover, of the best plan */
    size_t cappick, capbest;
    uint32_t *held;             /* victims kept out of the queue until the
                                   end of the instant */
    size_t nheld, capheld;
    /* elastic growth (see the header) */
    uint32_t nshrunk;           /* running gangs smaller than num_gpus: */
    uint32_t *shrunk;           /* [nshrunk] those jobs, in no order */
    /* elastic=1: per queued QoS job, the latest instant at which some
     * halving of its gang on some type is predicted to meet its deadline,
     * for the fraction of its work left then (which changes only as it
     * runs): past it, shrink() finds none without a prediction */
    double *sk_w;               /* [njobs] that fraction, NAN: none yet */
    simtime_t *pmin;            /* [njobs] a queued job's least prediction
                                   over the types it may use (t_best), -1:
                                   not yet (memo_forget); NULL on one type
                                   (choose_rest) */
    simtime_t *sk_by;           /* [njobs] */
    uint32_t *shrunk_at;        /* [njobs] index in shrunk, or SIM_NONE;
                                   both NULL without elastic=1 */
    simtime_t *obs_t;           /* [njobs] start of the observed stretch */
    double *obs_w;              /* [njobs] work left at its start */
    uint32_t *grow_c;           /* candidates of one instant */
    size_t capgrow;
    uint32_t *ngpus_buf;        /* [maxg] a grown gang's GPUs */
};

/* ------------------------------------------------------------ heaps */

/* (priority, larger first), then key, then job */
static inline bool hless(const struct hitem *a, const struct hitem *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    return a->key < b->key || (a->key == b->key && a->job < b->job);
}

/* each item's position, kept in pos[] (shared by heaps of one kind) */
#define H_PLACED(h, i) ((h)->pos[(h)->a[i].job] = (uint32_t)(i))
static inline bool h_before(const struct iheap *h, const struct hitem *a,
                            const struct hitem *b)
{
    (void)h;
    return hless(a, b);
}
HEAP_DEFINE_AT(ih, struct iheap, struct hitem, h_before, H_PLACED)

static void h_push(struct iheap *h, simtime_t key, uint32_t job)
{
    ih_push(h, (struct hitem){ .key = key, .job = job });
}

static void h_remove(struct iheap *h, uint32_t job)
{
    size_t i = h->pos[job];
    DL_ASSERT(i < h->n && h->a[i].job == job);
    ih_delete(h, i);
}

/* The running jobs of type t change: shadow's answers are stale. */
static void run_push(struct qos *s, uint32_t t, simtime_t key, uint32_t job)
{
    h_push(&s->h[1 + t], key, job);
    s->shver++;
    s->vver++;
}

static void run_remove(struct qos *s, uint32_t t, uint32_t job)
{
    h_remove(&s->h[1 + t], job);
    s->shver++;
    s->vver++;
}

/* ---- the QoS queue's ordered set */

static struct hitem os_last(const struct oset *o, size_t i)
{
    return o->b[i]->a[o->b[i]->n - 1];
}

/* The block that holds x or would take it: the first whose last item is
 * not before x, else the last block. */
static size_t os_block(const struct oset *o, const struct hitem *x)
{
    size_t lo = 0, hi = o->nb;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        struct hitem l = os_last(o, mid);
        if (hless(&l, x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < o->nb ? lo : o->nb - 1;
}

/* The first position in block b whose item is not before x. */
static uint32_t blk_lower(const struct oblk *b, const struct hitem *x)
{
    uint32_t lo = 0, hi = b->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (hless(&b->a[mid], x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void os_dir_insert(struct oset *o, size_t i, struct oblk *b)
{
    xgrow(&o->b, &o->cap, o->nb + 1, sizeof *o->b);
    memmove(o->b + i + 1, o->b + i, (o->nb - i) * sizeof *o->b);
    o->b[i] = b;
    o->nb++;
}

static void os_dir_remove(struct oset *o, size_t i)
{
    free(o->b[i]);
    memmove(o->b + i, o->b + i + 1, (o->nb - i - 1) * sizeof *o->b);
    o->nb--;
}

static void os_insert(struct oset *o, struct hitem x)
{
    if (!o->nb) {
        struct oblk *b = xmalloc(sizeof *b);
        b->n = 1;
        b->a[0] = x;
        os_dir_insert(o, 0, b);
        o->n++;
        return;
    }
    size_t i = os_block(o, &x);
    struct oblk *b = o->b[i];
    uint32_t k = blk_lower(b, &x);
    memmove(b->a + k + 1, b->a + k, (b->n - k) * sizeof *b->a);
    b->a[k] = x;
    o->n++;
    if (++b->n < OS_B)
        return;
    struct oblk *nb = xmalloc(sizeof *nb);      /* full: split in halves */
    nb->n = OS_B / 2;
    memcpy(nb->a, b->a + OS_B / 2, (OS_B / 2) * sizeof *b->a);
    b->n = OS_B / 2;
    os_dir_insert(o, i + 1, nb);
}

/* Merges block i + 1 into block i. */
static void os_merge(struct oset *o, size_t i)
{
    struct oblk *a = o->b[i], *b = o->b[i + 1];
    memcpy(a->a + a->n, b->a, b->n * sizeof *b->a);
    a->n += b->n;
    os_dir_remove(o, i + 1);
}

static void os_remove(struct oset *o, struct hitem x)
{
    size_t i = os_block(o, &x);
    struct oblk *b = o->b[i];
    uint32_t k = blk_lower(b, &x);
    DL_ASSERT(k < b->n && b->a[k].job == x.job && b->a[k].key == x.key &&
              b->a[k].prio == x.prio);
    memmove(b->a + k, b->a + k + 1, (b->n - k - 1) * sizeof *b->a);
    b->n--;
    o->n--;
    /* blocks stay at least a quarter full beside their neighbours */
    if (!b->n)
        os_dir_remove(o, i);
    else if (i + 1 < o->nb && b->n + o->b[i + 1]->n <= OS_B / 2)
        os_merge(o, i);
    else if (i > 0 && o->b[i - 1]->n + b->n <= OS_B / 2)
        os_merge(o, i - 1);
}

static const struct hitem *os_min(const struct oset *o)
{
    return o->n ? &o->b[0]->a[0] : NULL;
}

/* The item at c, then c moves on; false past the end.  The set must not
 * change during the walk. */
static const struct hitem *os_next(const struct oset *o, struct ocur *c)
{
    if (c->bi >= o->nb)
        return NULL;
    const struct oblk *b = o->b[c->bi];
    const struct hitem *it = &b->a[c->k];
    if (++c->k == b->n) {
        c->bi++;
        c->k = 0;
    }
    return it;
}

static void os_free(struct oset *o)
{
    for (size_t i = 0; i < o->nb; i++)
        free(o->b[i]);
    free(o->b);
}

/* ---- ordered walks: the entries of a heap by key (ties in no set
 * order), without changing it.  A heap's next entry is always a child of
 * one already visited, so a small heap of those frontier positions yields
 * the first k entries in O(k log k).  The heap must not change during
 * the walk. */

static inline bool cless(const struct cur *a, const struct cur *b)
{
    return a->key < b->key;
}

HEAP_DEFINE(wh, struct walk, struct cur, cless)

static void w_add(struct walk *w, const struct iheap *h, size_t idx)
{
    if (idx < h->n)
        wh_push(w, (struct cur){ h->a[idx].key, idx });
}

/* The next entry's index in h into *idx.  false when the walk is over. */
static bool w_next(struct walk *w, const struct iheap *h, size_t *idx)
{
    if (!w->n)
        return false;
    /* the top gives way to its first child in its heap (one sift down,
     * where a pop and a push took two passes), then the second joins */
    size_t top = w->a[0].idx, c = 2 * top + 1;
    if (c < h->n)
        wh_down(w, 0, (struct cur){ h->a[c].key, c });
    else
        wh_pop(w);
    w_add(w, h, c + 1);
    *idx = top;
    return true;
}

/* ------------------------------------------------------------ options */

static int bad(struct dl_error *err, const char *key, const char *val,
               const char *valid)
{
    return dl_fail(err, "--policy", 0, 0, "%s=%s: expected %s", key, val, valid);
}

static void ready(struct qos *s, const struct pol_view *v);

static int create(void **state, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *err)
{
    struct qos *s = xcalloc(1, sizeof *s);
    long reserve = 1, elastic = 0, preempt = 0, preempt_qos = 1, prio = 0;
    double cost = 0, margin = 0;
    const char *d = pol_arg_str(a, "demote"), *bo = pol_arg_str(a, "be_order"),
               *pr = pol_arg_str(a, "placement_rule"), *gr = pol_arg_str(a, "grow");
    DL_ASSERT(d && bo && pr && gr);
    int rc = pol_arg_placement(a, &s->mode, err);
    if (!rc)
        rc = pol_arg_long(a, "reserve", 0, 1, &reserve, err);
    if (!rc)
        rc = pol_arg_long(a, "backfill_window", 0, 1000000000L, &s->window, err);
    if (!rc)
        rc = pol_arg_long(a, "elastic", 0, 1, &elastic, err);
    if (!rc)
        rc = pol_arg_long(a, "preempt", 0, 1, &preempt, err);
    if (!rc)
        rc = pol_arg_long(a, "preempt_qos", 0, 1, &preempt_qos, err);
    if (!rc)
        rc = pol_arg_double(a, "preempt_cost", 0, 1e9, &cost, err);
    if (!rc)
        rc = pol_arg_double(a, "margin", 0, 1000, &margin, err);
    if (!rc)
        rc = pol_arg_long(a, "priority", 0, 1, &prio, err);
    if (!rc) {
        if (!strcmp(gr, "need"))
            s->grow = GROW_NEED;
        else if (!strcmp(gr, "idle"))
            s->grow = GROW_IDLE;
        else
            rc = bad(err, "grow", gr, "need or idle");
    }
    if (!rc) {
        if (!strcmp(d, "wa"))
            s->demote = DEMOTE_WA;
        else if (!strcmp(d, "never"))
            s->demote = DEMOTE_NEVER;
        else
            rc = bad(err, "demote", d, "wa or never");
    }
    if (!rc) {
        if (!strcmp(bo, "arrival"))
            s->be_order = BE_ARRIVAL;
        else if (!strcmp(bo, "short"))
            s->be_order = BE_SHORT;
        else
            rc = bad(err, "be_order", bo, "arrival or short");
    }
    if (!rc) {
        if (!strcmp(pr, "cheapest"))
            s->rule = RULE_CHEAPEST;
        else if (!strcmp(pr, "fastest"))
            s->rule = RULE_FASTEST;
        else
            rc = bad(err, "placement_rule", pr, "cheapest or fastest");
    }
    if (rc) {
        free(s);
        return rc;
    }
    s->reserve = reserve;
    s->preempt = preempt;
    s->elastic = elastic;
    s->preempt_qos = preempt_qos;
    s->cost = cost * (double)SIM_US_PER_S;
    s->margin = margin;
    s->priority = prio;
    ready(s, v);
    *state = s;
    return 0;
}

static void destroy(void *state)
{
    struct qos *s = state;
    for (size_t i = 0; i < s->nh; i++)
        free(s->h[i].a);
    free(s->h);
    os_free(&s->qq);
    os_free(&s->bq);
    free(s->qkey);
    free(s->dh.a);
    free(s->dpos);
    free(s->b);
    free(s->by_size);
    free(s->qhome);
    free(s->qpos);
    free(s->rpos);
    free(s->fail);
    free(s->ever);
    free(s->rank);
    free(s->gpus);
    free(s->cand);
    free(s->cpred);
    free(s->memo);
    free(s->done);
    free(s->rw.a);
    free(s->be);
    free(s->shrunk);
    free(s->shrunk_at);
    free(s->sk_w);
    free(s->pmin);
    free(s->sk_by);
    free(s->qv);
    free(s->by);
    free(s->pcand);
    free(s->ppred);
    free(s->pshadow);
    free(s->shm);
    free(s->vd);
    free(s->items);
    free(s->dp);
    free(s->take);
    free(s->pick);
    free(s->best);
    free(s->held);
    free(s->obs_t);
    free(s->obs_w);
    free(s->grow_c);
    free(s->ngpus_buf);
    free(s);
}

/* Sizes the state for the run's cluster and trace (first hook call). */
/* Per-job and per-type state, sized from the initial view. */
static void ready(struct qos *s, const struct pol_view *v)
{
    const struct cluster *c = v->clu;
    s->njobs = v->njobs;
    s->ntypes = c->ntypes;
    s->maxg = c->ngpus;
    size_t nj = s->njobs ? s->njobs : 1, tab = (size_t)s->ntypes * (s->maxg + 1);
    s->qhome = xcalloc_big(nj, sizeof *s->qhome);
    s->qpos = xcalloc_big(nj, sizeof *s->qpos);
    s->qkey = xcalloc_big(nj, sizeof *s->qkey);
    s->jobs = v->jobs;
    if (s->priority) {
        s->dpos = xcalloc_big(nj, sizeof *s->dpos);
        s->dh.pos = s->dpos;
    }
    s->rpos = xcalloc_big(nj, sizeof *s->rpos);
    s->fail = xcalloc(tab ? tab : 1, sizeof *s->fail);
    s->ever = xmalloc(tab ? tab : 1);
    memset(s->ever, -1, tab ? tab : 1);
    s->rank = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->rank);
    for (uint32_t i = 0; i < s->ntypes; i++)
        s->rank[c->type_order[i]] = i;
    s->gpus = xcalloc(s->maxg ? s->maxg : 1, sizeof *s->gpus);
    s->memo = xmalloc(QOS_MEMO * sizeof *s->memo);
    for (size_t i = 0; i < QOS_MEMO; i++)
        s->memo[i] = (struct pmemo){ SIM_NONE, SIM_NONE, 0 };
    s->ngpus_buf = xcalloc(s->maxg ? s->maxg : 1, sizeof *s->ngpus_buf);
    s->obs_t = xcalloc_big(nj, sizeof *s->obs_t);
    if (s->elastic) {
        s->shrunk = xmalloc(nj * sizeof *s->shrunk);
        s->shrunk_at = xmalloc(nj * sizeof *s->shrunk_at);
        for (uint32_t j = 0; j < nj; j++)
            s->shrunk_at[j] = SIM_NONE;
        s->sk_w = xmalloc_big(nj, sizeof *s->sk_w);
        s->sk_by = xmalloc_big(nj, sizeof *s->sk_by);
        for (uint32_t j = 0; j < nj; j++)
            s->sk_w[j] = NAN;
    }
    s->obs_w = xcalloc_big(nj, sizeof *s->obs_w);
    if (s->ntypes > 1) {
        s->pmin = xmalloc_big(nj, sizeof *s->pmin);
        for (uint32_t j = 0; j < nj; j++)
            s->pmin[j] = -1;
    }
    s->cand = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->cand);
    s->cpred = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->cpred);
    s->pcand = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->pcand);
    s->ppred = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->ppred);
    s->pshadow = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->pshadow);
    s->shm = xcalloc(s->ntypes ? s->ntypes : 1, sizeof *s->shm);
    s->shver = 1;
    s->vd = xcalloc_big((size_t)s->maxg + 1, sizeof *s->vd);
    s->vver = 1;
    s->be = xcalloc_big(nj, sizeof *s->be);
    s->qv = xcalloc_big(nj, sizeof *s->qv);
    s->by = xcalloc_big(nj, sizeof *s->by);
    for (size_t j = 0; j < nj; j++)
        s->by[j] = SIM_NONE;
    s->nh = 1 + (size_t)s->ntypes;
    xgrow(&s->h, &s->caph, s->nh, sizeof *s->h);
    memset(s->h, 0, s->nh * sizeof *s->h);
    s->h[H_QOS].pos = s->qpos;
    for (uint32_t t = 0; t < s->ntypes; t++)
        s->h[1 + t].pos = s->rpos;
}

/* ------------------------------------------------------------ queues */

/* The best-effort heap of a gang shape, created if new (shapes are few:
 * a linear search). */
static uint32_t be_heap(struct qos *s, uint32_t ngpus, uint32_t req)
{
    for (size_t i = 0; i < s->nb; i++)
        if (s->b[i].ngpus == ngpus && s->b[i].req == req)
            return s->b[i].hid;
    xgrow(&s->h, &s->caph, s->nh + 1, sizeof *s->h);
    memset(&s->h[s->nh], 0, sizeof *s->h);
    s->h[s->nh].pos = s->qpos;
    xgrow(&s->b, &s->capb, s->nb + 1, sizeof *s->b);
    s->by_size = xrealloc(s->by_size, s->capb * sizeof *s->by_size);
    s->b[s->nb] = (struct bucket){ ngpus, req, (uint32_t)s->nh };
    size_t k = s->nb;
    while (k > 0 && s->b[s->by_size[k - 1]].ngpus > ngpus) {
        s->by_size[k] = s->by_size[k - 1];
        k--;
    }
    s->by_size[k] = (uint32_t)s->nb;
    s->nb++;
    return (uint32_t)s->nh++;
}

/* A job's class: the trace's priority under priority=1, else 0. */
static int32_t class_of(const struct qos *s, uint32_t job)
{
    return s->priority ? s->jobs[job].priority : 0;
}

static simtime_t pred(const struct pol_view *v, uint32_t j, uint32_t t);

/* job joins queue hid with key, in its class */
static void q_push(struct qos *s, const struct pol_view *v, uint32_t hid,
                   simtime_t key, uint32_t job)
{
    int32_t prio = class_of(s, job);
    uint32_t req = pol_rt(v, job)->req_type;
    struct hitem it = { key, job, prio, v->jobs[job].num_gpus, req,
                        pred(v, job, req != SIM_NONE ? req : 0) };
    s->qhome[job] = hid;
    s->qkey[job] = key;
    if (hid == H_QOS) {
        os_insert(&s->qq, it);
        if (s->priority)
            h_push(&s->dh, key, job);
    } else {
        ih_push(&s->h[hid], it);
        os_insert(&s->bq, it);
    }
    s->nqueued++;
}

static void q_remove(struct qos *s, uint32_t job)
{
    int32_t prio = class_of(s, job);
    if (s->qhome[job] == H_QOS) {
        os_remove(&s->qq, (struct hitem){ .key = s->qkey[job], .job = job,
                                          .prio = prio });
        if (s->priority)
            h_remove(&s->dh, job);
    } else {
        h_remove(&s->h[s->qhome[job]], job);
        os_remove(&s->bq, (struct hitem){ .key = s->qkey[job], .job = job,
                                          .prio = prio });
    }
    s->nqueued--;
}

/* ------------------------------------------------------------ predictions */

/* Predicted solo run time in whole microseconds (>= 1, capped so that sums
 * of times cannot overflow). */
static simtime_t to_us(double p)
{
    double u = ceil(p - 1e-9);
    if (!(u < (double)SIM_TIME_LIMIT))
        return SIM_TIME_LIMIT;
    return u < 1 ? 1 : (simtime_t)u;
}

/* Whether a run predicted to take p (us) from start meets deadline with
 * the margin: start + p + ceil(margin x p) <= deadline (margin=0: start +
 * p <= deadline, exactly the rule without one). */
static bool meets(const struct qos *s, simtime_t start, simtime_t p,
                  simtime_t deadline)
{
    simtime_t extra = s->margin > 0 ? to_us(s->margin * (double)p) : 0;
    return start + p + extra <= deadline;
}

/* Predicted run time of w reference-GPU us of job j's work on type t: its
 * solo run time times w / duration (exactly that time for a job that never
 * ran, w / duration being 1). */
static simtime_t pred_work(const struct pol_view *v, uint32_t j, uint32_t t,
                           double w)
{
    return to_us(pol_pred_runtime(v, j, t, false) *
                 (w / (double)v->jobs[j].duration));
}

/* The same for the work j has left. */
static simtime_t pred(const struct pol_view *v, uint32_t j, uint32_t t)
{
    return pred_work(v, j, t, pol_remaining(v, j));
}

static struct pmemo *memo_of(struct qos *s, uint32_t j, uint32_t t)
{
    uint32_t h = (uint32_t)(((uint64_t)j * s->ntypes + t) * 2654435761u) >> 21;
    return &s->memo[h & (QOS_MEMO - 1)];
}

/* pred(v, j, t) of waiting job j, through s->memo (without reading its
 * run state when the entry is there). */
static simtime_t pred_memo(struct qos *s, const struct pol_view *v, uint32_t j,
                           uint32_t t)
{
    struct pmemo *m = memo_of(s, j, t);
    if (m->j != j || m->t != t)
        *m = (struct pmemo){ j, t, pred(v, j, t) };
    return m->p;
}

/* Job j enters the queue: its work left may have changed since its
 * entries were made. */
static void memo_forget(struct qos *s, uint32_t j)
{
    if (s->pmin)
        s->pmin[j] = -1;
    for (uint32_t t = 0; t < s->ntypes; t++) {
        struct pmemo *m = memo_of(s, j, t);
        if (m->j == j)
            m->j = SIM_NONE;
    }
}

/* Whether a gang of g could ever be placed on type t (memoized). */
static bool ever(struct qos *s, const struct pol_view *v, uint32_t g, uint32_t t)
{
    if (g > s->maxg)
        return false;
    int8_t *e = &s->ever[(size_t)t * (s->maxg + 1) + g];
    if (*e < 0)
        *e = pol_ever_fits(v, g, t, s->mode);
    return *e;
}

/* Whether fits(g, t) could still succeed now: false when type t has too
 * few GPUs free or the placement already failed in this instant.  Cheap:
 * no prediction, no placement test. */
static bool may_fit(const struct qos *s, const struct pol_view *v, uint32_t g,
                    uint32_t t)
{
    return g <= s->maxg && v->clu->types[t].free_gpus >= g &&
           s->fail[(size_t)t * (s->maxg + 1) + g] != s->stamp;
}

/* The first type from t on that a gang of g requiring req may_fit now,
 * s->ntypes if none. */
static uint32_t next_fit(const struct qos *s, const struct pol_view *v,
                         uint32_t g, uint32_t req, uint32_t t)
{
    for (; t < s->ntypes; t++)
        if ((req == SIM_NONE || t == req) && may_fit(s, v, g, t))
            break;
    return t;
}

/* Whether a gang of g fits type t now; the GPUs go to gpus (may be NULL).
 * A failure stands for the rest of the instant (GPUs are only taken). */
static bool fits(struct qos *s, const struct pol_view *v, uint32_t g, uint32_t t,
                 uint32_t *gpus)
{
    if (!may_fit(s, v, g, t))
        return false;
    uint32_t *f = &s->fail[(size_t)t * (s->maxg + 1) + g];
    if (pol_place(v, g, t, s->mode, NULL, gpus))
        return true;
    *f = s->stamp;
    s->vver++;
    return false;
}

/* The types job j may use, into s->cand with their predictions in
 * s->cpred, in the order it tries them.  qos: only the types on which it
 * would meet its deadline starting now, in placement_rule order; when
 * there are none (or !qos), every type it may use, fastest first.
 * *meet tells which.  queued: j waits (its predictions may come from
 * s->memo).  Returns how many. */
static uint32_t candidates(struct qos *s, const struct pol_view *v, uint32_t j,
                           bool queued, bool qos, bool *meet)
{
    const struct trc_job *tj = &v->jobs[j];
    uint32_t req = pol_rt(v, j)->req_type, n = 0;
    for (uint32_t t = 0; t < s->ntypes; t++) {
        if ((req != SIM_NONE && t != req) || !ever(s, v, tj->num_gpus, t))
            continue;
        s->cand[n] = t;
        s->cpred[n++] = queued ? pred_memo(s, v, j, t) : pred(v, j, t);
    }
    *meet = false;
    if (qos && tj->deadline != SIM_NEVER) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++)
            if (meets(s, v->now, s->cpred[i], tj->deadline)) {
                s->cand[k] = s->cand[i];
                s->cpred[k++] = s->cpred[i];
            }
        if (k) {
            n = k;
            *meet = true;
        }
    }
    /* insertion sort on (prediction, cluster order) ascending */
    for (uint32_t i = 1; i < n; i++) {
        uint32_t t = s->cand[i], k = i;
        simtime_t p = s->cpred[i];
        while (k > 0 && (s->cpred[k - 1] > p || (s->cpred[k - 1] == p &&
                                                 s->rank[s->cand[k - 1]] > s->rank[t]))) {
            s->cand[k] = s->cand[k - 1];
            s->cpred[k] = s->cpred[k - 1];
            k--;
        }
        s->cand[k] = t;
        s->cpred[k] = p;
    }
    if (*meet && s->rule == RULE_CHEAPEST)
        for (uint32_t i = 0, k = n ? n - 1 : 0; i < k; i++, k--) {
            uint32_t t = s->cand[i];
            simtime_t p = s->cpred[i];
            s->cand[i] = s->cand[k];
            s->cpred[i] = s->cpred[k];
            s->cand[k] = t;
            s->cpred[k] = p;
        }
    return n;
}

/* T_best: the fastest predicted run time over the types j may use; the
 * types and their predictions are left in s->cand, s->cpred (*n). */
static simtime_t t_best_n(struct qos *s, const struct pol_view *v, uint32_t j,
                          bool queued, uint32_t *n)
{
    bool meet;
    *n = candidates(s, v, j, queued, false, &meet);
    return *n ? s->cpred[0] : SIM_TIME_LIMIT;
}

static simtime_t t_best(struct qos *s, const struct pol_view *v, uint32_t j,
                        bool queued)
{
    uint32_t n;
    return t_best_n(s, v, j, queued, &n);
}

/* ------------------------------------------------------------ hooks */

/* job joins the best-effort class (and stays best effort, see Preemption) */
static void be_push(struct qos *s, const struct pol_view *v, uint32_t job)
{
    s->be[job] = 1;
    simtime_t key = s->be_order == BE_SHORT ? t_best(s, v, job, true)
                                            : (simtime_t)job;
    q_push(s, v, be_heap(s, v->jobs[job].num_gpus, pol_rt(v, job)->req_type),
           key, job);
}

static void enqueue(void *state, const struct pol_view *v, uint32_t job)
{
    struct qos *s = state;
    memo_forget(s, job);
    const struct trc_job *tj = &v->jobs[job];
    /* (a job is queued again only after a preemption; one that was best
     * effort stays so, unless demote=never keeps every job in the order) */
    if (tj->deadline != SIM_NEVER && (s->demote == DEMOTE_NEVER || !s->be[job])) {
        simtime_t latest = tj->deadline - t_best(s, v, job, true);
        if (s->demote == DEMOTE_NEVER || latest >= v->now) {
            q_push(s, v, H_QOS, latest, job);
            return;
        }
    }
    be_push(s, v, job);
}

/* Running job j is (still) smaller than num_gpus or not: the set of
 * shrunk gangs, O(1) either way (elastic=1 only: none grows otherwise). */
static void shrunk_set(struct qos *s, uint32_t j, bool in)
{
    if (!s->shrunk_at)
        return;
    uint32_t i = s->shrunk_at[j];
    if (in && i == SIM_NONE) {
        s->shrunk_at[j] = s->nshrunk;
        s->shrunk[s->nshrunk++] = j;
    } else if (!in && i != SIM_NONE) {
        uint32_t last = s->shrunk[--s->nshrunk];
        s->shrunk[i] = last;
        s->shrunk_at[last] = i;
        s->shrunk_at[j] = SIM_NONE;
    }
}

/* A job started: index it by predicted finish on its type.  Its fraction
 * of work left is known (progress is observable); its speed is not. */
static void on_started(struct qos *s, const struct pol_view *v, uint32_t job)
{
    const struct job_rt *r = pol_rt(v, job);
    const struct trc_job *tj = &v->jobs[job];
    uint32_t g = r->ngpus;
    bool spread = g > 1 && pol_spread(v, r->type, r->gpus, g);
    double frac = (double)r->remaining / (double)tj->duration;
    double p = pol_pred_runtime_n(v, job, r->type, g, spread) * frac;
    run_push(s, r->type, v->now + to_us(p), job);
    s->obs_t[job] = v->now;
    s->obs_w[job] = r->remaining;
    shrunk_set(s, job, g < tj->num_gpus);
    /* started where it is predicted to miss its deadline: best effort */
    if (tj->deadline == SIM_NEVER || v->now + pred(v, job, r->type) > tj->deadline)
        s->be[job] = 1;
}

static void finished(void *state, const struct pol_view *v, uint32_t job)
{
    struct qos *s = state;
    run_remove(s, pol_rt(v, job)->type, job);
    shrunk_set(s, job, false);
}

/* ------------------------------------------------------------ schedule */

/* Type t's shadow time for a gang of g: the earliest predicted time with g
 * GPUs of t free (counting GPUs), and the GPUs free then beyond g.  false
 * if the running jobs never free enough. */
static bool shadow(struct qos *s, const struct pol_view *v, uint32_t t,
                   uint32_t g, simtime_t *at, uint64_t *extra)
{
    uint64_t acc = v->clu->types[t].free_gpus;
    simtime_t when = SIM_NEVER;
    if (acc >= g) {
        *at = v->now;
        *extra = acc - g;
        return true;
    }
    struct shmemo *m = &s->shm[t];
    if (m->ver == s->shver && m->g == g) {
        *at = m->at;
        *extra = m->extra;
        return m->ok;
    }
    *m = (struct shmemo){ s->shver, g, false, 0, 0 };
    /* the running jobs by predicted finish; among equal ones the order
     * changes neither sum nor time */
    const struct iheap *h = &s->h[1 + t];
    size_t i;
    s->rw.n = 0;
    w_add(&s->rw, h, 0);
    while (w_next(&s->rw, h, &i)) {
        simtime_t key = h->a[i].key;
        simtime_t f = key > v->now ? key : v->now + 1;  /* overdue: soon */
        if (when != SIM_NEVER && f > when)
            break;
        acc += pol_rt(v, h->a[i].job)->ngpus;
        if (acc >= g && when == SIM_NEVER)
            when = f;
    }
    if (when == SIM_NEVER)
        return false;
    *m = (struct shmemo){ s->shver, g, true, when, acc - g };
    *at = when;
    *extra = acc - g;
    return true;
}

/* The reservation for job j, which cannot start now. */
static struct resv reserve_for(struct qos *s, const struct pol_view *v, uint32_t j)
{
    struct resv r = { .on = false, .job = j };
    const struct trc_job *tj = &v->jobs[j];
    bool meet;
    uint32_t n = candidates(s, v, j, true, true, &meet);
    simtime_t best_fin = SIM_NEVER;
    for (uint32_t i = 0; i < n; i++) {
        simtime_t at;
        uint64_t extra;
        if (!shadow(s, v, s->cand[i], tj->num_gpus, &at, &extra))
            continue;
        simtime_t fin = at + s->cpred[i];
        if (meet && meets(s, at, s->cpred[i], tj->deadline)) {  /* first in rule order */
            r = (struct resv){ true, j, s->cand[i], at, extra };
            break;
        }
        if (fin < best_fin) {                       /* else earliest finish */
            best_fin = fin;
            r = (struct resv){ true, j, s->cand[i], at, extra };
        }
    }
    return r;
}

/* choose_first's answer for a gang of g requiring no type behind the
 * reservation res (see struct verdict): the tests below with the job's
 * prediction on type 0 (hitem.p) left as a bound. */
static struct verdict verdict(const struct qos *s, const struct pol_view *v,
                              uint32_t g, const struct resv *res)
{
    struct verdict d = { s->vver, next_fit(s, v, g, SIM_NONE, 0), false, SIM_NEVER };
    if (d.t0 == s->ntypes)
        d.lim = -1;             /* every prediction is at least 1 us */
    else if (res->on && d.t0 == res->type && g > res->extra &&
             next_fit(s, v, g, SIM_NONE, d.t0 + 1) == s->ntypes) {
        d.ask = d.t0 != 0;
        d.lim = res->shadow - v->now;
    }
    return d;
}

/* choose's first tests, which settle most tries of a busy instant
 * without the predictions of every type: s->ntypes where no type could
 * take the job, else the first that may (inline: the walks call it for
 * each job they pass). */
static inline uint32_t choose_first(struct qos *s, const struct pol_view *v,
                                    const struct hitem *it, const struct resv *res)
{
    uint32_t j = it->job, g = it->g, req = it->req;
    /* no type it may use could take the gang (fits would refuse each) */
    uint32_t t0 = next_fit(s, v, g, req, 0);
    if (t0 == s->ntypes)
        return t0;
    /* Behind a reservation most tries fail there too: when the one type
     * that could take the gang is the reserved one, the gang is larger
     * than what is spare there and its predicted run would pass the
     * shadow time, choose_rest would pass over that type and fail on
     * the others: no need for the other predictions and their order. */
    if (res && res->on && t0 == res->type && g > res->extra &&
        v->now + (t0 == (req != SIM_NONE ? req : 0) ? it->p
                                                    : pred_memo(s, v, j, t0)) >
            res->shadow &&
        next_fit(s, v, g, req, t0 + 1) == s->ntypes)
        return s->ntypes;
    return t0;
}

/* choose past choose_first. */
static uint32_t choose_rest(struct qos *s, const struct pol_view *v,
                            const struct hitem *it, bool qos, struct resv *res)
{
    bool meet;
    uint32_t g = it->g;
    simtime_t dl = v->jobs[it->job].deadline;
    if (qos && dl != SIM_NEVER && s->pmin) {
        /* A job that meets its deadline on some type (on the fastest:
         * meets is monotone in the prediction) is tried only on those
         * (candidates); where none of them may take the gang now, fits
         * refuses each, touching nothing: settled by the predictions of
         * the types that may (on a heterogeneous cluster most tries of a
         * busy instant, the fast types full and the slow ones late; on
         * one type candidates costs no more than these tests). */
        bool fit_meets = false;
        for (uint32_t t = 0; t < s->ntypes && !fit_meets; t++)
            if ((it->req == SIM_NONE || t == it->req) && ever(s, v, g, t) &&
                may_fit(s, v, g, t) &&
                meets(s, v->now, pred_memo(s, v, it->job, t), dl))
                fit_meets = true;
        if (!fit_meets) {
            if (s->pmin[it->job] < 0)
                s->pmin[it->job] = t_best(s, v, it->job, true);
            if (meets(s, v->now, s->pmin[it->job], dl))
                return SIM_NONE;
        }
    }
    uint32_t n = candidates(s, v, it->job, true, qos, &meet);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = s->cand[i];
        bool use_extra = false;
        if (res && res->on && t == res->type &&
            v->now + s->cpred[i] > res->shadow) {
            if (g > res->extra)
                continue;
            use_extra = true;
        }
        if (fits(s, v, g, t, s->gpus)) {
            if (use_extra)
                res->extra -= g;
            return t;
        }
    }
    return SIM_NONE;
}

/* Picks a type for job j (qos: as a QoS-class job) that fits now and, with
 * a reservation res, does not delay it; its GPUs are left in s->gpus.
 * SIM_NONE if none. */
static uint32_t choose(struct qos *s, const struct pol_view *v,
                       const struct hitem *it, bool qos, struct resv *res)
{
    if (choose_first(s, v, it, res) == s->ntypes)
        return SIM_NONE;
    return choose_rest(s, v, it, qos, res);
}

static uint64_t free_gpus(const struct pol_view *v)
{
    uint64_t f = 0;
    for (uint32_t t = 0; t < v->clu->ntypes; t++)
        f += v->clu->types[t].free_gpus;
    return f;
}

/* Whether some job of bucket k fits now somewhere. */
static bool bucket_fits(struct qos *s, const struct pol_view *v, const struct bucket *b)
{
    for (uint32_t t = 0; t < s->ntypes; t++)
        if ((b->req == SIM_NONE || t == b->req) && fits(s, v, b->ngpus, t, NULL))
            return true;
    return false;
}

/* Best effort without a reservation: like fifo:backfill=1, the first job
 * in order among the shapes that fit, repeatedly; one placement test per
 * shape per start.  0 or an error. */
static int be_fill(struct qos *s, const struct pol_view *v, struct pol_ctx *x,
                   uint64_t *nfree)
{
    while (*nfree) {
        const struct bucket *best = NULL;
        for (size_t k = 0; k < s->nb; k++) {
            const struct bucket *b = &s->b[s->by_size[k]];
            const struct iheap *h = &s->h[b->hid];
            if (b->ngpus > *nfree)
                break;
            if (!h->n || (best && !hless(&h->a[0], &s->h[best->hid].a[0])))
                continue;
            if (bucket_fits(s, v, b))
                best = b;
        }
        if (!best)
            return 0;
        struct hitem it = s->h[best->hid].a[0];
        uint32_t j = it.job, t = choose(s, v, &it, false, NULL);
        DL_ASSERT(t != SIM_NONE);
        q_remove(s, j);
        int rc = pol_start(x, j, s->gpus);
        if (rc)
            return rc;
        on_started(s, v, j);
        *nfree -= best->ngpus;
    }
    return 0;
}

static void take_done(struct qos *s)
{
    for (size_t i = 0; i < s->ndone; i++)
        q_remove(s, s->done[i]);
    s->ndone = 0;
}

/* Starts j (chosen, its GPUs in s->gpus) during a walk; it leaves its
 * queue after the walk. */
static int walk_start(struct qos *s, const struct pol_view *v, struct pol_ctx *x,
                      uint32_t j, uint32_t n, uint64_t *nfree)
{
    xgrow(&s->done, &s->capdone, s->ndone + 1, sizeof *s->done);
    s->done[s->ndone++] = j;
    *nfree -= n;
    int rc = n == v->jobs[j].num_gpus ? pol_start(x, j, s->gpus)
                                      : pol_start_n(x, j, s->gpus, n);
    if (!rc)
        on_started(s, v, j);
    return rc;
}

/* The window behind a blocked job: up to *left further jobs of o from c
 * on (each counts), each started where it fits without delaying the
 * reservation res; stops early when no GPU is left.  Call with GPUs
 * free.  Most jobs it passes cannot start, for a reason that is the same
 * for every gang of one size requiring no type (struct verdict).  It reads
 * the blocks in place rather than through os_next: a cursor advanced per
 * job cost 8 % more engine instructions (over, preempt=1,elastic=1). */
static int window(struct qos *s, const struct pol_view *v, struct pol_ctx *x,
                  const struct oset *o, const struct ocur *c, bool qos,
                  struct resv *res, long *left, uint64_t *nfree)
{
    for (size_t bi = c->bi, k = c->k; bi < o->nb; bi++, k = 0) {
        const struct oblk *b = o->b[bi];
        for (; k < b->n; k++) {
            const struct hitem *it = &b->a[k];
            if ((*left)-- <= 0)
                return 0;
            if (it->g > *nfree)
                continue;
            uint32_t t;
            if (it->req == SIM_NONE) {
                /* g <= *nfree <= s->maxg */
                struct verdict *d = &s->vd[it->g];
                if (d->ver != s->vver)
                    *d = verdict(s, v, it->g, res);
                if ((d->ask ? pred_memo(s, v, it->job, d->t0) : it->p) > d->lim)
                    continue;
                t = choose_rest(s, v, it, qos, res);
            } else {
                t = choose(s, v, it, qos, res);
            }
            if (t == SIM_NONE)
                continue;
            int rc = walk_start(s, v, x, it->job, it->g, nfree);
            if (rc || !*nfree)
                return rc;
        }
    }
    return 0;
}

/* elastic=1: the largest halving n of QoS job j's gang that fits now on a
 * type predicted to meet its deadline with n GPUs (types in placement_rule
 * order); its GPUs are left in s->gpus.  SIM_NONE if none. */
static uint32_t shrink(struct qos *s, const struct pol_view *v, uint32_t j,
                       uint32_t *n)
{
    const struct trc_job *tj = &v->jobs[j];
    uint32_t req = pol_rt(v, j)->req_type;
    if (tj->deadline == SIM_NEVER)
        return SIM_NONE;
    double w = pol_remaining(v, j) / (double)tj->duration;
    if (!(s->sk_w[j] == w)) {   /* meets() below, at its latest start */
        simtime_t by = INT64_MIN;
        for (uint32_t m = tj->num_gpus / 2; m >= 1; m /= 2)
            for (uint32_t t = 0; t < s->ntypes; t++) {
                if (req != SIM_NONE && t != req)
                    continue;
                simtime_t p = to_us(pol_pred_runtime_n(v, j, t, m, false) * w);
                simtime_t extra = s->margin > 0 ? to_us(s->margin * (double)p) : 0;
                if (tj->deadline - p - extra > by)
                    by = tj->deadline - p - extra;
            }
        s->sk_w[j] = w;
        s->sk_by[j] = by;
    }
    if (v->now > s->sk_by[j])
        return SIM_NONE;
    for (uint32_t m = tj->num_gpus / 2; m >= 1; m /= 2) {
        uint32_t best = SIM_NONE;
        simtime_t bp = 0;
        for (uint32_t t = 0; t < s->ntypes; t++) {
            /* the prediction first: most shrunk gangs that would fit
             * miss the deadline, and a placement test costs more */
            if ((req != SIM_NONE && t != req) || !may_fit(s, v, m, t))
                continue;
            simtime_t p = to_us(pol_pred_runtime_n(v, j, t, m, false) * w);
            if (!meets(s, v->now, p, tj->deadline) || !fits(s, v, m, t, NULL))
                continue;
            /* cheapest: the slowest that meets; fastest: the fastest */
            if (best == SIM_NONE ||
                (s->rule == RULE_CHEAPEST ? p > bp || (p == bp && s->rank[t] > s->rank[best])
                                          : p < bp || (p == bp && s->rank[t] < s->rank[best])))
                best = t, bp = p;
        }
        if (best != SIM_NONE && fits(s, v, m, best, s->gpus)) {
            *n = m;
            return best;
        }
    }
    return SIM_NONE;
}

/* A new instant of placement memos (GPUs were freed, or time moved). */
static void new_stamp(struct qos *s)
{
    s->vver++;
    if (++s->stamp == 0) {      /* wrapped: forget every memo */
        memset(s->fail, 0, (size_t)s->ntypes * (s->maxg + 1) * sizeof *s->fail);
        s->stamp = 1;
    }
}

/* ------------------------------------------------------------ preemption */

struct pctx {                   /* the preemptor R on one type */
    uint32_t job, type;
    simtime_t key;              /* L(R) */
    simtime_t run;              /* P(R, type) */
    simtime_t restart;          /* X_type; SIM_NEVER: no QoS victim */
};

static inline bool pless(struct pcost a, struct pcost b)
{
    return a.q < b.q || (a.q == b.q && a.t < b.t);
}

/* Whether running job j (on p's type) may be stopped for p, with what it
 * would disturb into *it (it->w is left to the caller). */
static bool victim(struct qos *s, const struct pol_view *v, const struct pctx *p,
                   uint32_t j, struct pitem *it)
{
    const struct trc_job *tj = &v->jobs[j];
    if (pol_rt(v, j)->last_start == v->now)  /* the engine would undo it */
        return false;
    /* priority=1: classes are strict for victims too: never one of a
     * higher class; one of a lower class counts as best effort */
    int32_t pr = class_of(s, p->job);
    if (class_of(s, j) > pr)
        return false;
    bool lower = class_of(s, j) < pr;
    double redo = s->cost > 0 ? pol_pred_runtime(v, j, p->type, false) *
                                (s->cost / (double)tj->duration) : 0;
    it->job = j;
    it->ct = (double)pol_rt(v, j)->ngpus * ((double)p->run + redo);
    it->cq = 0;
    if (tj->deadline == SIM_NEVER || s->be[j] || lower)
        return true;
    if (!s->preempt_qos || s->qv[j] || s->by[p->job] == j || p->restart == SIM_NEVER)
        return false;
    /* no room to spare, known without a prediction: meets asks restart +
     * at least 1 us <= deadline (most QoS victims end here on a busy
     * cluster; the order of the two tests below changes no answer) */
    if (p->restart >= tj->deadline)
        return false;
    uint32_t n;
    simtime_t key = tj->deadline - t_best_n(s, v, j, false, &n);  /* running */
    if (key < p->key || (key == p->key && j < p->job))
        return false;           /* not strictly less urgent */
    /* the prediction on p's type for the work left (plus the cost):
     * candidates made it when there is no cost */
    simtime_t pw = SIM_NEVER;
    for (uint32_t i = 0; i < n && s->cost == 0; i++)
        if (s->cand[i] == p->type)
            pw = s->cpred[i];
    if (pw == SIM_NEVER)
        pw = pred_work(v, j, p->type, pol_remaining(v, j) + s->cost);
    if (!meets(s, p->restart, pw, tj->deadline))
        return false;           /* no room to spare */
    it->cq = it->ct;
    return true;
}

/* The least-cost set of s->items[0..n) that frees need (>= 1) GPUs: its
 * jobs to s->pick (*np), its cost to *c.  false if none does.  A 0/1
 * min-cost cover: dp[k] is the least cost of freeing k GPUs (k capped at
 * need) with the items so far, take[i][k] whether item i improved it. */
static bool cover(struct qos *s, size_t n, uint32_t need, struct pcost *c,
                  size_t *np)
{
    size_t w1 = (size_t)need + 1;
    xgrow(&s->dp, &s->capdp, w1, sizeof *s->dp);
    xgrow(&s->take, &s->captake, n * w1 + 1, 1);
    struct pcost *dp = s->dp;
    dp[0] = (struct pcost){ 0, 0 };
    for (size_t k = 1; k < w1; k++)
        dp[k] = (struct pcost){ INFINITY, INFINITY };
    for (size_t i = 0; i < n; i++) {
        const struct pitem *it = &s->items[i];
        uint8_t *tk = s->take + i * w1;
        tk[0] = 0;
        for (size_t k = need; k >= 1; k--) {   /* down: dp[from] is old */
            size_t from = k > it->w ? k - it->w : 0;
            struct pcost nc = { dp[from].q + it->cq, dp[from].t + it->ct };
            tk[k] = dp[from].t < INFINITY && pless(nc, dp[k]);
            if (tk[k])
                dp[k] = nc;
        }
    }
    if (!(dp[need].t < INFINITY))
        return false;
    *c = dp[need];
    size_t k = need, m = 0;
    for (size_t i = n; i-- > 0;)
        if (s->take[i * w1 + k]) {
            xgrow(&s->pick, &s->cappick, m + 1, sizeof *s->pick);
            s->pick[m++] = s->items[i].job;
            k = k > s->items[i].w ? k - s->items[i].w : 0;
        }
    DL_ASSERT(k == 0);
    *np = m;
    return true;
}

/* Keeps the cover of s->items[0..n) for p if it beats *bc. */
static void offer_cover(struct qos *s, const struct pctx *p, size_t n,
                        uint32_t need, struct pcost *bc, size_t *nb,
                        uint32_t *btype)
{
    struct pcost c;
    size_t np;
    if (!cover(s, n, need, &c, &np) || !pless(c, *bc))
        return;
    xgrow(&s->best, &s->capbest, np, sizeof *s->best);
    memcpy(s->best, s->pick, np * sizeof *s->best);
    *bc = c;
    *nb = np;
    *btype = p->type;
}

/* The best victims for p (a gang of g) on its type, if better than *bc. */
static void plan_type(struct qos *s, const struct pol_view *v, const struct pctx *p,
                      uint32_t g, struct pcost *bc, size_t *nb, uint32_t *btype)
{
    const struct cluster *c = v->clu;
    uint32_t t = p->type;
    size_t n = 0;
    if (s->mode == PLC_POOL) {
        const struct iheap *h = &s->h[1 + t];
        if (c->types[t].free_gpus >= g)
            return;
        for (size_t i = 0; i < h->n; i++) {
            xgrow(&s->items, &s->capitems, n + 1, sizeof *s->items);
            if (victim(s, v, p, h->a[i].job, &s->items[n]))
                s->items[n++].w = pol_rt(v, h->a[i].job)->ngpus;
        }
        offer_cover(s, p, n, g - c->types[t].free_gpus, bc, nb, btype);
        return;
    }
    if (g > c->types[t].max_node_gpus)
        return;                 /* whole nodes: not preempted for */
    uint32_t seen[64];
    long idx[64];               /* item of a seen job, -1: not a victim */
    for (uint32_t nd = 0; nd < c->nnodes; nd++) {
        const struct clu_node *node = &c->nodes[nd];
        if (node->type != t || node->ngpus < g || node->nfree >= g)
            continue;
        uint32_t ns = 0;
        n = 0;
        for (uint32_t i = 0; i < node->ngpus; i++) {
            uint32_t j = c->gpu_job[node->first_gpu + i], m;
            if (j == SIM_NONE)
                continue;
            for (m = 0; m < ns && seen[m] != j; m++)
                ;
            if (m == ns) {
                DL_ASSERT(ns < 64);
                seen[ns] = j;
                idx[ns++] = -1;
                xgrow(&s->items, &s->capitems, n + 1, sizeof *s->items);
                if (victim(s, v, p, j, &s->items[n])) {
                    s->items[n].w = 0;
                    idx[m] = (long)n++;
                }
            }
            if (idx[m] >= 0)
                s->items[idx[m]].w++;
        }
        offer_cover(s, p, n, g - node->nfree, bc, nb, btype);
    }
}

/* preempt=1: the head R of the QoS queue preempts if it should (see the
 * header).  *started when it did and started; 0 or an error. */
static int try_preempt(struct qos *s, const struct pol_view *v, struct pol_ctx *x,
                       bool *started)
{
    *started = false;
    const struct hitem *head = os_min(&s->qq);
    if (!head)
        return 0;
    uint32_t r = head->job;
    simtime_t key = head->key;
    const struct trc_job *tr = &v->jobs[r];
    uint32_t g = tr->num_gpus;
    if (key < v->now || s->be[r] || tr->deadline == SIM_NEVER ||
        choose(s, v, head, true, NULL) != SIM_NONE)
        return 0;
    bool meet;
    uint32_t n = candidates(s, v, r, true, true, &meet);
    if (!meet)
        return 0;
    memcpy(s->pcand, s->cand, n * sizeof *s->pcand);
    memcpy(s->ppred, s->cpred, n * sizeof *s->ppred);
    /* Would waiting meet the deadline?  R starts on t at its shadow time
     * S_t at the earliest, and not before now + 1 us (S_t = now when the
     * GPUs are free but on too many nodes). */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t extra;
        if (!shadow(s, v, s->pcand[i], g, &s->pshadow[i], &extra)) {
            s->pshadow[i] = SIM_NEVER;
            continue;
        }
        simtime_t at = s->pshadow[i] > v->now ? s->pshadow[i] : v->now + 1;
        if (meets(s, at, s->ppred[i], tr->deadline))
            return 0;
    }
    struct pcost bc = { INFINITY, INFINITY };
    size_t nb = 0;
    uint32_t bt = SIM_NONE;
    for (uint32_t i = 0; i < n; i++) {
        struct pctx p = { r, s->pcand[i], key, s->ppred[i], SIM_NEVER };
        simtime_t fin = v->now + p.run;
        if (s->pshadow[i] != SIM_NEVER)
            p.restart = s->pshadow[i] > fin ? s->pshadow[i] : fin;
        plan_type(s, v, &p, g, &bc, &nb, &bt);
    }
    if (bt == SIM_NONE)
        return 0;
    /* the victims go back to the queue (through enqueue), then R starts */
    q_remove(s, r);
    for (size_t i = 0; i < nb; i++) {
        uint32_t j = s->best[i];
        run_remove(s, pol_rt(v, j)->type, j);
        shrunk_set(s, j, false);
        if (!s->be[j])
            s->qv[j] = 1;
        s->by[j] = r;
        int rc = pol_preempt(x, j, s->cost);
        if (rc)
            return rc;
        enqueue(s, v, j);
        /* out of the queue for the rest of the instant (see the header) */
        q_remove(s, j);
        xgrow(&s->held, &s->capheld, s->nheld + 1, sizeof *s->held);
        s->held[s->nheld++] = j;
    }
    new_stamp(s);
    bool found = pol_place(v, g, bt, s->mode, NULL, s->gpus);
    DL_ASSERT(found);
    *started = true;
    int rc = pol_start(x, r, s->gpus);
    if (!rc)
        on_started(s, v, r);
    return rc;
}

/* ------------------------------------------------------------ growth */

/* The next node of running job r's GPUs from its GPU *i on, each node
 * once, ascending (its GPUs are sorted, and nodes hold ascending runs of
 * GPUs); SIM_NONE after the last. */
static uint32_t next_node(const struct cluster *c, const struct job_rt *r,
                          uint32_t *i)
{
    if (*i >= r->ngpus)
        return SIM_NONE;
    uint32_t nd = c->gpu_node[r->gpus[*i]];
    while (++*i < r->ngpus && c->gpu_node[r->gpus[*i]] == nd)
        ;
    return nd;
}

/* The free GPUs of node nd, lowest first, into out (at most want). */
static uint32_t node_free(const struct cluster *c, const struct pol_view *v,
                          uint32_t nd, uint32_t want, uint32_t *out)
{
    const struct clu_node *node = &c->nodes[nd];
    uint32_t k = 0;
    for (uint32_t i = 0; i < node->ngpus && k < want && k < node->nfree; i++)
        if (!v->nocc[node->first_gpu + i])
            out[k++] = node->first_gpu + i;
    return k;
}

/* Free GPUs of type t that running job j may grow into, lowest first, into
 * out (at most want): consolidated, on the nodes j holds; pool, anywhere
 * on t.  Returns how many. */
static uint32_t grow_room(const struct qos *s, const struct pol_view *v,
                          uint32_t j, uint32_t t, uint32_t want, uint32_t *out)
{
    const struct cluster *c = v->clu;
    const struct job_rt *r = pol_rt(v, j);
    uint32_t k = 0;
    if (s->mode != PLC_POOL) {
        uint32_t i = 0, nd;
        while (k < want && (nd = next_node(c, r, &i)) != SIM_NONE)
            k += node_free(c, v, nd, want - k, out + k);
        return k;
    }
    for (uint32_t nd = 0; nd < c->nnodes && k < want; nd++)
        if (c->nodes[nd].type == t)
            k += node_free(c, v, nd, want - k, out + k);
    return k;
}

/* Whether running gang j (of type t) has room for the smallest step of
 * its halving ladder (grow_gangs): the free GPUs it may grow into
 * (grow_room's, counted) are at least what that step adds. */
static bool grow_may(const struct qos *s, const struct pol_view *v,
                     uint32_t j, uint32_t t)
{
    const struct cluster *c = v->clu;
    const struct job_rt *r = pol_rt(v, j);
    uint32_t least = v->jobs[j].num_gpus, n = 0, i = 0, nd;
    while (least / 2 > r->ngpus)
        least /= 2;
    if (s->mode == PLC_POOL)
        return c->types[t].free_gpus >= least - r->ngpus;
    while ((nd = next_node(c, r, &i)) != SIM_NONE)
        n += c->nodes[nd].nfree;
    return n >= least - r->ngpus;
}

/* Job j's remaining run time at its current size, forecast from its
 * observed progress since it started or last grew (work done over time
 * taken; progress is observable, its speed is not told), or predicted
 * when it has not run yet. */
static bool forecast(const struct qos *s, const struct pol_view *v,
                     uint32_t j, double *t)
{
    double left = pol_remaining(v, j), done = s->obs_w[j] - left;
    simtime_t dt = v->now - s->obs_t[j];
    if (dt > 0 && done > 0) {
        *t = left * (double)dt / done;
        return true;
    }
    return false;
}

/* Running job j's predicted run time for what it has left on its current
 * GPUs (frac of its work left). */
static double pred_cur(const struct pol_view *v, uint32_t j, double frac)
{
    const struct job_rt *r = pol_rt(v, j);
    bool sp = r->ngpus > 1 && pol_spread(v, r->type, r->gpus, r->ngpus);
    return pol_pred_runtime_n(v, j, r->type, r->ngpus, sp) * frac;
}

static int cand_cmp_ctx(const struct pol_view *v, uint32_t a, uint32_t b)
{
    simtime_t da = v->jobs[a].deadline, db = v->jobs[b].deadline;
    return da < db ? -1 : da > db ? 1 : a < b ? -1 : a > b;
}

/* elastic=1: running gangs started smaller than num_gpus grow into GPUs
 * still idle once the queue has been served (see the header).  0 or an
 * error. */
static int grow_gangs(struct qos *s, const struct pol_view *v, struct pol_ctx *x)
{
    size_t n = 0;
    /* the shrunk gangs on types with free GPUs (their order is the sort's) */
    for (uint32_t i = 0; i < s->nshrunk; i++) {
        uint32_t j = s->shrunk[i];
        if (!v->clu->types[pol_rt(v, j)->type].free_gpus ||
            v->jobs[j].deadline == SIM_NEVER || s->be[j])
            continue;
        xgrow(&s->grow_c, &s->capgrow, n + 1, sizeof *s->grow_c);
        s->grow_c[n++] = j;
    }
    /* earliest deadline first (insertion sort: candidates are few) */
    for (size_t i = 1; i < n; i++) {
        uint32_t j = s->grow_c[i];
        size_t k = i;
        while (k > 0 && cand_cmp_ctx(v, s->grow_c[k - 1], j) > 0) {
            s->grow_c[k] = s->grow_c[k - 1];
            k--;
        }
        s->grow_c[k] = j;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t j = s->grow_c[i];
        const struct job_rt *r = pol_rt(v, j);
        const struct trc_job *tj = &v->jobs[j];
        uint32_t t = r->type, cur = r->ngpus, g = tj->num_gpus;
        /* no step of the ladder below has room where the GPUs it may grow
         * into are fewer than its smallest step adds: passed over without
         * a prediction (grow=need: once its forecast, which passes over
         * more, says it is late) */
        if (!v->clu->types[t].free_gpus ||
            (s->grow != GROW_NEED && !grow_may(s, v, j, t)))
            continue;
        double frac = pol_remaining(v, j) / (double)tj->duration, tcur;
        /* its prediction now, only where the forecast falls back on it
         * or the ladder below compares with it (a gang on course is
         * passed over at every instant with idle GPUs) */
        bool observed = forecast(s, v, j, &tcur);
        double pcur = observed && s->grow == GROW_NEED ? NAN
                                                       : pred_cur(v, j, frac);
        if (!observed)
            tcur = pcur;
        if (s->grow == GROW_NEED &&
            (meets(s, v->now, to_us(tcur), tj->deadline) ||
             !grow_may(s, v, j, t)))
            continue;           /* on course: no need; or no room */
        if (isnan(pcur))
            pcur = pred_cur(v, j, frac);
        /* the largest size of the halving ladder g, g/2, ... above cur
         * with room, predicted faster */
        for (uint32_t m = g; m > cur; m /= 2) {
            uint32_t add = m - cur;
            if (grow_room(s, v, j, t, add, s->gpus) < add)
                continue;
            /* merge the job's GPUs and the added ones, sorted */
            uint32_t a = 0, b = 0, k = 0;
            while (a < cur || b < add)
                s->ngpus_buf[k++] = b >= add || (a < cur && r->gpus[a] < s->gpus[b])
                                        ? r->gpus[a++] : s->gpus[b++];
            bool msp = pol_spread(v, t, s->ngpus_buf, m);
            double pm = pol_pred_runtime_n(v, j, t, m, msp) * frac;
            if (!(pm < pcur))
                continue;
            int rc = pol_resize(x, j, s->ngpus_buf, m);
            if (rc)
                return rc;
            /* its predicted finish and observed stretch start again */
            run_remove(s, t, j);
            run_push(s, t, v->now + to_us(pm), j);
            s->obs_t[j] = v->now;
            s->obs_w[j] = pol_remaining(v, j);
            shrunk_set(s, j, m < g);
            break;
        }
    }
    return 0;
}

/* Asks for a schedule() call at at, unless one comes earlier. */
static void wake(struct qos *s, struct pol_ctx *x, simtime_t now, simtime_t at)
{
    if (s->wake_at <= now || at < s->wake_at) {
        pol_wake(x, at);
        s->wake_at = at;
    }
}

/* The queued QoS job of the smallest latest start L (then job): the
 * queue's front, except under priority=1, where classes come first. */
static const struct hitem *latest_min(const struct qos *s)
{
    if (s->priority)
        return s->dh.n ? &s->dh.a[0] : NULL;
    return os_min(&s->qq);
}

static void schedule(void *state, const struct pol_view *v, struct pol_ctx *x)
{
    struct qos *s = state;
    simtime_t now = v->now;
    s->shver++;                 /* shadow's answers depend on now */
    /* demotion: the jobs with now > L are the front of the queue by L
     * (latest_min; be_push may move the heaps: no pointer into s->h is
     * kept) */
    const struct hitem *head;
    while (s->demote == DEMOTE_WA && (head = latest_min(s)) && head->key < now) {
        uint32_t j = head->job;
        q_remove(s, j);
        be_push(s, v, j);
    }
    new_stamp(s);
    uint64_t nfree = free_gpus(v);
    bool blocked = false, tried = !s->preempt;
    long left = s->window;
    struct resv res = { .on = false };
    int rc = 0;
    uint32_t j = SIM_NONE;
    /* The QoS class in SWAF order.  With preempt=1 the first walk stops at
     * the first job that cannot start (or when no GPU is left), the head
     * of the queue then may preempt, and the walk starts over from the
     * head as without preemption. */
    for (;;) {
        struct ocur qc = { 0, 0 };
        s->ndone = 0;
        const struct hitem *it;
        while (nfree && !rc && (it = os_next(&s->qq, &qc))) {
            uint32_t m, t;
            j = it->job;
            if (choose(s, v, it, true, NULL) != SIM_NONE) {
                rc = walk_start(s, v, x, j, it->g, &nfree);
            } else if (s->elastic && (t = shrink(s, v, j, &m)) != SIM_NONE) {
                rc = walk_start(s, v, x, j, m, &nfree);
            } else {
                blocked = tried;
                break;
            }
        }
        if (blocked && s->reserve) {
            res = reserve_for(s, v, j);
            s->vver++;
        }
        if (blocked && nfree && !rc)
            rc = window(s, v, x, &s->qq, &qc, true, &res, &left, &nfree);
        take_done(s);
        if (tried || rc)
            break;
        tried = true;
        bool started;
        rc = try_preempt(s, v, x, &started);
        if (rc)
            break;
        if (started)
            nfree = free_gpus(v);
    }
    /* then best effort */
    if (!rc && nfree && !res.on) {
        rc = be_fill(s, v, x, &nfree);
    } else if (!rc && nfree && left > 0) {
        struct ocur bc = { 0, 0 };
        rc = window(s, v, x, &s->bq, &bc, false, &res, &left, &nfree);
        take_done(s);
    }
    /* elastic=1: shrunk gangs grow into what is still idle */
    if (!rc && s->elastic && s->nshrunk && free_gpus(v))
        rc = grow_gangs(s, v, x);
    /* Wake up when the QoS head's WA turns negative.  Only needed while
     * GPUs are idle: with none free nothing can start before the next
     * event, and the demotion done lazily then decides the same. */
    /* the victims queue again, to start from the next microsecond */
    for (size_t i = 0; i < s->nheld; i++)
        enqueue(s, v, s->held[i]);
    if (s->nheld && free_gpus(v))
        wake(s, x, now, now + 1);
    s->nheld = 0;
    head = latest_min(s);
    if (!rc && s->demote == DEMOTE_WA && head && free_gpus(v))
        wake(s, x, now, head->key + 1);
    head = os_min(&s->qq);
    /* preempt=1: and at the head's latest start L, its last chance to
     * start in time, in case its reservation does not hold (it counts
     * GPUs, not nodes, and trusts predicted finishes) */
    if (!rc && s->preempt && head && head->key > now && !s->be[head->job])
        wake(s, x, now, head->key);
}

static uint32_t queued(void *state)
{
    return (uint32_t)((struct qos *)state)->nqueued;
}

static const struct pol_opt qos_opts[] = {
    { "demote", "wa",
      "wa: a job whose deadline can no longer be met (waiting allowance < 0) "
      "drops to the best-effort class at that microsecond; never: it keeps "
      "its place in the QoS order" },
    { "be_order", "arrival",
      "order of the best-effort class (no deadline, or demoted): arrival, "
      "or short (shortest predicted run time first)" },
    { "placement_rule", "cheapest",
      "cheapest: the slowest GPU type whose predicted finish meets the "
      "deadline; fastest: the fastest such type" },
    { "reserve", "1",
      "1: the first QoS job that cannot start gets an EASY reservation "
      "(later jobs start only if they do not delay it); 0: plain backfilling" },
    { "backfill_window", "64",
      "jobs examined past the first QoS job that cannot start (QoS, then "
      "best effort while a reservation holds)" },
    { "elastic", "0",
      "1: a QoS job that cannot start with its GPUs starts with the largest "
      "halving of its gang that fits now and is still predicted to meet its "
      "deadline, and may grow later (grow=)" },
    { "grow", "need",
      "with elastic=1, a running gang started smaller grows into GPUs of its "
      "type still idle after the queue is served: need: only when its "
      "forecast finish (from its observed progress) misses its deadline "
      "(with margin); idle: whenever the larger gang is predicted faster" },
    { "margin", "0",
      "F >= 0: a placement must be predicted to finish F x its predicted run "
      "time before the deadline (start + (1 + F) x run time <= deadline)" },
    { "preempt", "0",
      "1: when the most urgent QoS job cannot start and its reservation would "
      "miss its deadline, it stops less urgent jobs (best effort first, then "
      "QoS jobs still predicted to meet their deadlines when restarted after "
      "it) on one GPU type that meets its deadline, disturbing the fewest "
      "GPU-seconds, and starts at once; 0: never preempt" },
    { "preempt_qos", "1",
      "with preempt=1: 1: QoS jobs with room to spare may be stopped too; "
      "0: best-effort jobs only" },
    { "preempt_cost", "0",
      "seconds of reference-GPU work added to each preempted job "
      "(checkpoint and restore)" },
    { "priority", "0",
      "1: strict classes by the trace's priority column, larger first, "
      "within the QoS class and within best effort (the order above within "
      "a class); a preemption never stops a job of a higher class and "
      "counts one of a lower class as best effort" },
    { NULL, NULL, NULL },
};

const struct policy pol_qos = {
    .name = "qos",
    .summary = "QoS-aware: deadline jobs by shortest waiting allowance first "
               "(SWAF) on the cheapest GPU type that meets the deadline, then "
               "best effort; run times predicted from --models (noise: "
               "predict.runtime_noise; a fitted predictor: predict.runtime: "
               "fitted)",
    .blocking = "reserve=1 (default): the first QoS job that cannot start "
                "gets a reservation at its shadow time on one GPU type; later "
                "jobs (up to backfill_window of them) start only if they do "
                "not delay it; reserve=0: later jobs that fit start; "
                "preempt=1: if waiting would miss its deadline, it may stop "
                "less urgent jobs instead",
    .opts = qos_opts,
    .create = create,
    .destroy = destroy,
    .enqueue = enqueue,
    .finished = finished,
    .schedule = schedule,
    .queued = queued,
};
