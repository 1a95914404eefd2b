/*
 * policies/gandiva.c - a Gandiva-style packer with time-slicing (after Xiao
 * et al., "Gandiva: Introspective Cluster Scheduling for Deep Learning",
 * OSDI 2018), as the Horus authors used it as a baseline: packing by
 * *measured* GPU utilization (Gandiva profiles jobs online), where Horus
 * packs by a predicted one.
 *
 * Order.  FIFO by the time a job entered the queue: arrival, or the
 * preemption that ended its time slice (so a preempted job goes to the back:
 * round robin).  Jobs entering at one instant keep the engine's order
 * (arrivals by trace order).
 *
 * At every instant each waiting job, in that order, gets in by the first of:
 *   1. free GPUs: exclusive placement through pol_place (placement=);
 *   2. packing (pol_colocate) onto GPUs of one type (its required type,
 *      else fastest first), each of which, with the job added, holds at
 *      most min(max_per_gpu, the models' max_jobs_per_gpu) jobs, a summed
 *      true solo utilization (pol_measured_util, unknown = 1) of at most
 *      util_cap, and -- when it already holds jobs -- no more memory than
 *      the type has (the job's memory per GPU, unknown = 0).  Free GPUs
 *      qualify too (summed utilization 0).  Which GPUs:
 *        one GPU: the lowest summed utilization, then the lowest index;
 *        a gang: one node if some node has enough such GPUs (the node whose
 *          best GPUs have the lowest summed utilization, then the lowest
 *          node index; on it the lowest-utilization GPUs, ties by index);
 *          otherwise (placement=pool, or a gang larger than the type's
 *          largest node) as few nodes as possible: nodes by most such GPUs,
 *          then lowest summed utilization, then index, each giving its
 *          lowest-utilization GPUs; under placement=consolidated a gang
 *          that fits a node is packed on one node or not at all;
 *   3. time-slicing (quantum > 0): it takes the GPUs of a running job of
 *      the same GPU count (Gandiva time-slices jobs of one size, its node
 *      affinity) on a type it may use, that has run for at least quantum
 *      seconds since it last (re)started: the one that started longest
 *      ago, then the lowest job index, among those whose GPUs the waiting
 *      job may take under the packing rules above (with that job gone).
 *      That job is preempted (preempt_cost seconds of reference-GPU work
 *      added) and goes to the back of the queue.
 * A job that gets in by none of them waits; with backfill=1 (default) the
 * jobs behind it still try, with backfill=0 it blocks them.  Each start asks
 * for a schedule() call quantum seconds later (pol_wake), when its slice
 * ends.
 *
 * Choices where the papers are silent: the quantum counts wall time since
 * the job's last (re)start, not GPU-time; a job is never packed when it
 * could run alone; packing is tried before time-slicing (no preemption when
 * sharing suffices); only jobs of the same size swap, so a waiting job
 * never preempts several.  Defaults: util_cap=1 (summed utilization up to
 * one full GPU), max_per_gpu=2 (pairs, as Gandiva packs), quantum=100 s
 * (the Horus authors' simulator preempts a job every 100 time units of
 * service while others wait), preempt_cost=0 (as srtf).
 *
 * The Horus authors' Gandiva (variant=horus-paper; each option may be set
 * alone, and each of the four lists its default as "variant"): util_cap=none
 * (packs onto any GPU with room: the cap is POL_MAX_SHARE, which no sum of
 * utilizations of at most 1 on at most 16 jobs exceeds), max_per_gpu=3,
 * slice=all and requeue=front.  slice=all: at each instant while jobs
 * wait, every running job whose quantum (since this policy last started
 * it) is over, whatever its size, stops (preempt_cost added) and re-enters
 * the queue, in the order its slice began, then job index; requeue=front
 * puts such jobs before every waiting job (requeue=back: behind them).  A
 * job requeued at the front is visited first and, when its GPUs are still
 * there, restarts at the same instant, which the engine counts as no
 * preemption: in an event-driven run the authors' time slice costs
 * nothing unless one_start=1 holds the others back (their time-stepped
 * loop starts one job per step: one_start=1,tick=1 runs it so; see
 * below); the variant does not set it: it belongs to their loop, not to
 * their Gandiva.
 * one_start=1: at most one start per instant; tick=S: then another try S
 * seconds after a start while jobs wait (0: at the next event).
 *
 * Profiling (profile_s=S > 0), as Gandiva does and Horus avoids: a job not
 * yet measured may start only on free GPUs (or by a slice that leaves it
 * the victim's GPUs alone), runs its first S seconds there alone -- no job
 * is packed beside it, it is not time-sliced -- and is measured when they
 * are over (the policy wakes itself then); only then may it share a GPU:
 * be packed beside others when it waits again, or take co-runners on its
 * own GPUs.  Its waits for free GPUs are the price of profiling.  (Its
 * failures to get in are not remembered for its shape: they say nothing of
 * measured jobs.)
 *
 * Beware: a time slice of quantum seconds on GPUs of speed v buys quantum x
 * v seconds of work and costs preempt_cost: where the cost is the larger,
 * jobs that take turns never finish and the run does not end.
 *
 * State.  Waiting jobs sit in one FIFO array per gang shape (GPU count,
 * required type), entries (enqueue number, job, version), where a job's
 * version changes at each start and stop, so entries of started jobs go
 * stale in place and are skipped or swept; the shapes where jobs wait
 * are listed (a shape's failures are dropped when its last job leaves, so
 * the others are never read), and the walk above merges their arrays by
 * enqueue number through a heap of the shapes by the entry at their
 * cursors.  A shape and a size are found by GPU count through tables.
 * Per GPU count and type, the running
 * jobs by last start (the time-slice candidates: a FIFO, as slices start
 * when pushed, and a min-heap for the few that come out of order), stale
 * entries likewise; the entries whose quantum is over move, as they
 * expire, to a list sorted the same way, with a min-tree over their keys
 * (the largest summed utilization their GPUs leave, from the record below;
 * -inf where free or not known, +inf where closed or stale).  Per running
 * job, a record of what its GPUs offer once it leaves (free, closed by the
 * count or a profiling run, or the largest summed utilization and memory
 * left on a shared one: a sum only rises with its larger term, so these
 * two decide gpu_takes for all its GPUs).  Per GPU, the summed utilization
 * of its jobs.  Per node, its GPUs that pass the count and profiling
 * rules, by (summed utilization, index), with their memory; per type, a
 * tree over its nodes of their lowest utilization and memory, of their
 * g-th lowest utilization and the sum of their g lowest for each gang
 * size g tried on one node (a row kept from the first such try, brought
 * up to date when read), and, once a gang spread over nodes larger than
 * GD_NLOW is tried, of how many GPUs pass and their highest utilization
 * and memory (likewise).  All of these are recomputed only for the GPUs
 * (nodes, occupants) whose occupants changed (a start, stop or end of
 * profiling), when next asked, each tree node above many changed nodes
 * once.
 *
 * Cost.  Failures are remembered per shape: exclusive placement failed;
 * packing fails above a utilization for at least a memory (one pass over
 * the type's nodes finds that bound: the g-th lowest summed utilization
 * among the GPUs that pass the count and memory rules; where the memory
 * rule turned no GPU away, it holds for any memory; a gang over GD_NLOW
 * spread over nodes that fewer than g GPUs take fails on a count read
 * off the tree instead, its bound the lowest utilization above its limit,
 * lower than the g-th but read without the pass) -- both kept while
 * only starts change the GPUs, since starts only take room.  When jobs
 * leave GPUs (an end, a slice=all stop, a profiling run over) those GPUs
 * are logged, and at the next schedule() placement is retried only where
 * one of them is free, and each packing bound widens by what they take
 * now: with only those changed, a g-th lowest utilization falls no lower
 * than the g-th lowest of theirs and the lowest GPUs the failure saw
 * (kept with it for gangs up to GD_NLOW),
 * else no lower than the lowest of theirs (the log read as runs of GPUs
 * alike: a gang's GPUs left free, or to one co-runner); a gang that must
 * fit one node (placement=consolidated) reads the nodes of those GPUs
 * instead: its bound falls no lower than each such node's g-th lowest now
 * (one GPU freed beside busy ones wakes no gang); and a gang whose type
 * had fewer passing GPUs than it needs counts them up by those that pass
 * now, its failure standing until they could make up the gang.  A slice
 * leaves the free GPUs as they were and widens the bounds by GPU the same
 * way;
 * time-slicing fails
 * above a utilization for at least a memory (the search of the expired
 * jobs finds that bound too: the most utilization the GPUs of one of them
 * leave room for; where the memory rule turned none away, for any
 * memory).  When an expired job's key changes (its slice ran out, or its
 * GPUs changed occupants or ended a profiling run) and a shape of its
 * size holds such failures, the key is read again and each bound rises
 * above what it lets in (rekey): every other key, and every job gone,
 * holds the failure; a job that starts with its slice over already, and
 * under preempt_cost each schedule() (gains grow with time), void them
 * instead.  A shape whose every
 * waiting job is covered by its failures (its lowest utilization and
 * lowest memory are: a probe settles it) is skipped for the rest of the
 * walk; and while nothing changed since a shape was last found alive, its
 * next jobs that its failures cover are passed over at once (up to the
 * end of the instant: only a slice that widens the failures can make one
 * of them worth a visit again, and then the shapes that passed beyond it
 * go back to the first job after it), as visiting them would change
 * nothing: one by one, or,
 * once a shape's walks have passed more jobs so than its FIFO holds,
 * through a tree over the FIFO of its jobs' lowest utilization and memory
 * (O(log jobs) per run passed, and per enqueue and start).  So an instant
 * costs O(shapes where jobs wait) for their failures, and O(log alive
 * shapes) per job visited in shapes that may still admit one, plus the
 * probes: packing one GPU O(log nodes) through the tree (more only where
 * memory binds), a gang that must fit one node O(1) where no node has g
 * GPUs of room, memory aside (O(log nodes) per node changed and size
 * tried, paid when that size next asks), a spread gang over GD_NLOW that
 * fails O(nodes of mixed utilization) through the counts, else O(nodes
 * with a passing GPU x
 * GPUs per node), a time slice O(log expired jobs of the
 * size) per job read (those whose key does not turn it away: the others
 * are passed over by subtree, and their least key bounds the failure),
 * stale entries swept once they are the most; plus
 * O(GPUs x occupants) per start or stop.  Started entries are jumped over
 * (next_waiting).  Without time-slicing and profiling, an instant where
 * jobs only arrived since a schedule() that visited every waiting job
 * (backfill=1, one_start=0) tries only those jobs (schedule_new): the
 * others would fail again, as only starts changed the GPUs since.
 */
#include "policies/policy.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GD_NFAIL 4              /* failure bounds remembered per shape */
#define GD_NONE UINT32_MAX
#define GD_REBUILD SIZE_MAX
#define GD_REKEY 8              /* rekey reads the keys of gangs up to
                                   this size (wider: voids the failures) */
#define GD_NLOW 64              /* gangs up to this size keep, with a
                                   packing failure, its lowest GPUs */
#define GD_ELOG 4096            /* GPUs left between two schedule()s that
                                   are logged (more: failures dropped) */
#define GD_SEQ0 (1ULL << 62)    /* first enqueue number: entries put at the
                                   front of a FIFO count down from here */

struct gd_ent {                 /* a waiting job in its shape's FIFO */
    uint64_t seq;               /* enqueue number: the FIFO order */
    uint32_t job, ver;          /* job SIM_NONE once it started (only the
                                   walk starts a job, at its entry) */
    size_t skip;                /* once stale: an index past it such that
                                   every entry between is stale (0: not
                                   known; see next_waiting) */
    double u, m;                /* its measured utilization and memory
                                   (fixed while it waits) */
};

struct gd_list {                /* indices */
    uint32_t *a;
    size_t n, cap;
};

struct gd_slice {               /* a running job and when it last started */
    simtime_t start;
    uint32_t job, ver;
};

struct gd_heap {                /* running jobs by (start, job) */
    struct gd_slice *a;         /* a min-heap, for the entries that come */
    size_t n, cap;              /* before the FIFO's last when pushed */
    struct gd_slice *f;         /* the others, in order, at f[fh..fn) */
    size_t fh, fn, capf;
    uint32_t live;
    /* slice=size: the entries whose slice is over, moved out of the heap
     * as they expire, sorted by (start, job); stale ones swept when they
     * are the most */
    struct gd_slice *ex;
    size_t nex, capex;
    uint32_t exlive;            /* its live entries */
    simtime_t nx;               /* no entry of the heap is over before */
    /* a min-tree over ex's keys (slice_key; leaf i at kt[ktp + i], +inf
     * past nex and for stale entries, -inf where not known) */
    double *kt;
    size_t ktp;
};

/* What the GPUs of a running job offer a job that would take them once it
 * leaves (the rules of gpu_takes, every GPU at once), valid until one of
 * them changes occupants. */
struct gd_acc {
    uint8_t valid;
    uint8_t kind;               /* GD_ACC_* */
    uint8_t prof;               /* the job is being profiled */
    double us, mem;             /* shared GPUs: the largest summed
                                   utilization and memory left on one */
    double gb;                  /* its type's memory (0: unknown) */
};
enum { GD_ACC_NONE, GD_ACC_EMPTY, GD_ACC_SHARED };

/* Per job, in one record (64 bytes): a time slice reads most of these
 * for its victim and the job it starts, and a GPU's summed utilization
 * reads ju and profiling of each occupant, where one array per field
 * would cost a cache miss per field. */
struct gd_job {
    uint32_t ver;               /* bumped at every start and stop */
    uint32_t shape, size;       /* its shape and size index, SIM_NONE
                                   until first needed */
    uint32_t expos;             /* its live entry's place in its heap's
                                   ex, SIM_NONE if not there */
    double ju;                  /* while running: pol_measured_util */
    struct gd_acc acc;          /* its GPUs as a time slice */
    uint8_t running;
    uint8_t inrekey;            /* listed in rekeys */
    uint8_t profiling;          /* in its profiling run */
    uint8_t profiled;           /* measured: may share */
};
_Static_assert(sizeof(struct gd_job) <= 64, "gd_job: one cache line");

/* A node's GPUs that pass the packing rules but memory (gpu_takes with no
 * utilization of its own), by (summed utilization, index), recomputed when
 * one of them changes occupants. */
struct gd_ncache {
    uint32_t n;
    uint32_t gpu[64];
    double us[64];
    double mem[64];             /* memory held; -inf on a free GPU */
};

struct gd_kk {                  /* a row's pair (struct gd_tree) */
    double kth, ksum;
};

/* Per GPU type: a tournament tree over its nodes (leaf i: tnodes[tfirst[t]
 * + i]) of the lowest summed utilization and the lowest memory among the
 * node's passing GPUs, for one-GPU packing. */
struct gd_tree {
    uint32_t leaves;            /* a power of two */
    double *us, *mem;           /* [2 * leaves], node 1 the root */
    /* likewise, for gangs spread over nodes: how many passing GPUs, and
     * the highest summed utilization and memory among them (-inf: none) */
    uint32_t *cnt;
    double *umax, *mmax;
    /* those are brought up to date when read (tree_counts): the leaves
     * that changed since (cstale, cdirty[0..ncdirty)); all of them where
     * more changed than a pass over the tree costs (call) */
    uint8_t *cstale;
    uint32_t *cdirty, ncdirty;
    bool call;
    uint8_t *mark;              /* [leaves] queued by nodes_fresh */
    /* row g (krow: [g * 2 * leaves + i]), 2 <= g <= the type's largest
     * node (kw - 1), of pairs: kth, the lowest g-th lowest summed
     * utilization among a node's passing GPUs (memory aside), for gangs
     * that must fit one node; ksum, the lowest sum of a node's g lowest
     * (in that order), a bound on the sum of the g a gang on one node
     * would take.  By row, each pair in one line: a row is brought up to
     * date and searched alone, and reads both */
    struct gd_kk *kk;
    uint32_t kw;
    /* the rows g kept (from the first gang of g GPUs tried on one node):
     * on[g], and gl[0..ngl) in ascending order */
    uint8_t *on;
    uint32_t *gl, ngl;
    /* the rows are brought up to date when read (tree_row): the leaves
     * that changed since are logged (rlog[0..nrlog)), row g has read
     * them up to rseen[g] (GD_REBUILD: the log was cut, it is built
     * again); rq: scratch */
    uint32_t *rlog, *rq;
    size_t nrlog, caprlog;
    size_t *rseen;
};

struct gd_wi {                  /* an alive shape in the walk */
    uint64_t seq;               /* the entry at its cursor */
    uint32_t k;
};

struct gd_fresh {               /* an entry enqueued since schedule() */
    uint32_t k;                 /* its shape */
    uint32_t i;                 /* its place in the shape's FIFO */
};

struct gd_walk {                /* the walk's alive shapes, by seq */
    struct gd_wi *a;
    size_t n, cap;
};

struct gd_span {                /* tree node i over leaves lo .. lo + span */
    uint32_t i, lo, span;
};

struct gd_tpos {                /* tree node i of type t's tree */
    uint32_t t, i;
};

struct gd_um {                  /* a lowest utilization and memory */
    double u, m;
};

struct gd_shape {               /* a gang shape: its waiting jobs, failures */
    uint32_t ngpus, req_type;
    struct gd_ent *q;           /* FIFO: q[head..n) */
    size_t head, n, cap;
    /* A tournament tree over the places of q (leaf i: node tleaves + i)
     * of the lowest utilization and memory of the waiting jobs there
     * (+inf where none), so that the walk passes a run of jobs its
     * failures cover at once; tstale: to be built again from q (after it
     * moved or outgrew the tree), once the walk has passed more jobs one
     * by one (tpassed) than q holds: a tree pays only where runs are long.
     * A node's two minima side by side: the walk reads both (one miss). */
    struct gd_um *t;
    size_t tleaves, tpassed;
    bool tstale;
    uint32_t nwait;             /* waiting jobs (live entries) */
    bool mins;                  /* the waiting jobs' lowest utilization and
                                   memory are in umin0, mmin0 (until a job
                                   enters or leaves the shape) */
    double umin0, mmin0;
    /* Placement and packing failures stay true while only starts change
     * the GPUs (starts only take room).  When jobs left GPUs since
     * (s->emptied != epoch), they are narrowed by what those GPUs, logged
     * in s->elog, take now (widen), or dropped where the log was lost. */
    uint64_t epoch;
    bool excl_failed;
    /* packing fails for a job of util > fu[i] and memory >= fm[i]: too
     * few GPUs (its ngpus, on one type) pass the rules for memory fm[i]
     * at a summed utilization below util_cap - fu[i].  Where known
     * (nlow[i] != GD_NONE), the lowest summed utilizations of those GPUs
     * then, up to ngpus of them, ascending, are low[i * ngpus ..]: the
     * bound moves only as far as GPUs that changed since push into them
     * (widen).  low: [GD_NFAIL * ngpus], for ngpus <= GD_NLOW.  Where
     * the type had fewer passing GPUs than ngpus (npass[i] != GD_NONE):
     * at most that many pass, and the failure holds for any job until
     * they are ngpus, counted up by the GPUs that changed (then by GPU,
     * as where nothing is known). */
    double fu[GD_NFAIL], fm[GD_NFAIL];
    uint32_t nfail;
    uint32_t nlow[GD_NFAIL];
    uint64_t npass[GD_NFAIL];
    double *low;
    /* While the size has been looked up (s->sgrow[si] == sseen; with
     * preempt_cost, within one schedule()): no expired job of this size
     * at all (slice_failed), or none a job of util > su[i] and memory >=
     * sm[i] may replace; each expired job of the size whose key changes
     * (rekey) raises every su[i] above what it lets in. */
    bool slice_failed;
    double su[GD_NFAIL], sm[GD_NFAIL];
    uint32_t nsfail;
    uint32_t si;                /* its size's heaps (SIM_NONE: none yet) */
    size_t sizes_seen;          /* s->nsizes when si was last looked up */
    uint64_t sseen;
    /* probes that found room for the lowest utilization and memory, valid
     * while s->changes is unchanged */
    uint64_t pack_ok, slice_ok;
    /* shape_dead found it alive at s->changes == quiet, and none of its
     * jobs was tried since (UINT64_MAX: not so) */
    uint64_t quiet;
    /* the walk: its cursor, and whether it is in s->walk (or is the
     * shape being visited) */
    size_t cur;
    bool alive;
    uint32_t apos;              /* its place in s->act (GD_NONE: no job waits) */
    bool gone;                  /* in s->gone */
    uint32_t gnext;             /* index + 1 of the shape of the same GPU
                                   count made before it (0: none) */
};

struct gd_left {                /* a GPU that changed occupants, as it is */
    uint32_t type;
    bool takes;                 /* gpu_takes with no utilization, memory
                                   aside */
    bool free;                  /* free for exclusive placement */
    double us, mem, gb;         /* summed utilization (0 free), memory held
                                   (-inf free), its type's memory */
    uint32_t cnt;               /* GPUs in a row that are alike */
};

struct gd_offer {               /* what a GPU offers a job (offer_of) */
    uint32_t nocc;
    bool busy;
    double usum, mem;
};

struct gd_node {                /* a node's GPUs that can take a job */
    uint32_t node, n;
    double usum;                /* of its best, up to the gang size */
    uint32_t gpu[64];           /* GPUs passing count and memory, by
                                   (summed utilization, index); the first
                                   n also take the job's utilization */
    double us[64];              /* their summed utilizations */
};

struct gd_rank {                /* a gd_node's sort key, and where it is */
    double usum;
    uint32_t n, node, at;
};

struct gandiva {
    enum plc_mode mode;
    bool backfill;
    double util_cap;
    uint32_t max_per_gpu;
    simtime_t quantum;          /* us, 0 = no time-slicing */
    double cost;                /* reference-GPU us per preemption */
    bool slice_all;             /* slice=all: every expired job, any size */
    bool front;                 /* requeue=front */
    bool one_start;             /* at most one start per instant */
    bool walk_full;             /* walk=full: every waiting job visited */
    simtime_t tick;             /* one_start: retry this long after a start */
    simtime_t profile;          /* profile_s, us; 0 = none */
    simtime_t *prof_end;        /* [njobs] end of its profiling run */
    uint32_t *prof;             /* jobs profiling now */
    size_t nprof, capprof;
    uint64_t fseq;              /* enqueue numbers of front entries, down
                                   from GD_SEQ0 (the others go up) */
    struct gd_job *jb;          /* [njobs] */
    double *usum;               /* [ngpus] summed true utilization of the
                                   jobs on a GPU, recomputed when they change */
    uint32_t *tnodes;           /* nodes by type: tnodes[tfirst[t]..tfirst[t+1]) */
    uint32_t *tfirst;
    uint32_t *tpos;             /* [nnodes] its place in tnodes */
    struct gd_ncache *nc;       /* [nnodes] */
    uint8_t *ndirty;            /* [nnodes] nc (and its tree leaf) is out of date */
    uint32_t *dirty;            /* those nodes */
    size_t ndirt, capdirt;
    struct gd_tpos *tup;        /* nodes_fresh's tree nodes to update */
    size_t captup;
    struct gd_tree *trees;      /* [ntypes] */
    uint32_t *tbig;             /* [ntypes] GPUs of its largest node */
    uint64_t *tpass;            /* [ntypes] its passing GPUs (nc's n) */
    uint32_t *cand;             /* scratch: candidate nodes */
    size_t capcand;
    /* a failed pack_on: the lowest summed utilizations of the GPUs that
     * passed (GD_NONE: not known), ascending or not */
    const double *lows;
    uint32_t nlows;
    uint64_t npass;             /* or the type's passing GPUs, fewer than
                                   the gang (GD_NONE: not so, or not known) */
    double low1;
    uint64_t seq;               /* jobs enqueued so far */
    uint32_t nlive;             /* waiting jobs */
    uint64_t emptied;           /* jobs that left their GPUs so far */
    /* the GPUs they left since the last schedule() (elost: more than
     * GD_ELOG, or left while none waited: not logged, failures dropped) */
    uint32_t *elog;
    size_t nelog, capelog;
    bool elost;
    struct gd_left *left;       /* scratch: those GPUs as they are */
    size_t nleft;
    size_t capleft;
    /* of those, by type (ntypes: any type): whether one is free, and how
     * many take a job (gpu_takes, memory aside) */
    bool *lfree;
    uint64_t *ltakes;
    /* placement=consolidated: their nodes (lnode), each once (lseen[node]
     * == lgen) */
    uint32_t *lnode;
    size_t nlnode, caplnode;
    uint32_t *lseen, lgen;
    bool lby;                   /* widen reads them */
    uint64_t changes;           /* starts and stops so far, plus one per
                                   schedule() (slices expire with time) */
    /* changes when the last schedule() ended having visited every waiting
     * job (UINT64_MAX: it did not), and the entries enqueued since (fresh;
     * lost: one did not fit the list).  Only where the shortcut may apply
     * (arrivals: no time-slicing nor profiling, backfill=1, one_start=0),
     * where jobs enter only by arriving: at the back, between schedule()s */
    uint64_t done, dseq;        /* (and the jobs enqueued by then) */
    struct gd_fresh *fresh;
    size_t nfresh, capfresh;
    bool flost, arrivals;
    struct gd_shape *shapes;
    size_t nshapes, capshapes;
    /* the shapes where jobs wait (act), and those whose last waiting job
     * left since tidy() (emptied: their FIFOs to clear); [ngpus + 1]: by
     * GPU count, the index + 1 of the last shape made (its gnext the one
     * before, of the same count) and of the size (0: none yet) */
    uint32_t *act, *gone;
    size_t nact, capact, ngone, capgone;
    uint32_t *shidx, *sidx;
    struct gd_walk walk;
    uint32_t *sizes;            /* distinct GPU counts seen at a start */
    uint64_t *sgrow;            /* [size index] bumped when the size is new
                                   and when a job starts with its slice over
                                   (before it is moved to ex) */
    /* the expired jobs whose key changed (entered ex, or their GPUs
     * changed occupants or ended a profiling run) since the failures last
     * read them; gd_job.inrekey: the job is listed */
    uint32_t *rekeys;
    size_t nrekey, caprekey;
    struct gd_list *sshapes;    /* [size index] the shapes whose si it is */
    struct gd_heap *heaps;      /* [size index * ntypes + type] */
    size_t nsizes, capsizes;
    uint32_t ntypes, ngpus;
    simtime_t woke;
    /* scratch */
    uint32_t *gpus, *gtmp;      /* a gang's GPUs; gtmp: for their sort */
    size_t capgpus, capgtmp;
    struct gd_slice *held;
    size_t capheld;
    struct gd_slice *vict;      /* slice=all: this instant's victims */
    size_t capvict;
    struct gd_node *nodes;
    size_t capnodes;
    struct gd_rank *rank;       /* nodes' keys, sorted */
    size_t caprank;
    struct gd_offer *offers;    /* a slice's GPUs before it */
    size_t capoffers;
    double *all;
    size_t capall;
};

/* -------------------------------------------------------------- heaps */

static inline bool sl_before(const struct gd_slice *a, const struct gd_slice *b)
{
    return a->start < b->start || (a->start == b->start && a->job < b->job);
}

HEAP_DEFINE(hp, struct gd_heap, struct gd_slice, sl_before)

static inline bool wi_before(const struct gd_wi *a, const struct gd_wi *b)
{
    return a->seq < b->seq;     /* one entry, one place: no ties */
}

HEAP_DEFINE(wk, struct gd_walk, struct gd_wi, wi_before)



static inline bool sl_live(const struct gandiva *s, const struct pol_view *v,
                           const struct gd_slice *it)
{
    /* every start and stop changes the version: an entry of this one is
     * of a running job (read without the job's run state, which debug
     * builds check) */
    bool live = s->jb[it->job].ver == it->ver;
#ifndef NDEBUG
    DL_ASSERT(!live || pol_state(v, it->job) == JOB_RUNNING);
#else
    (void)v;
#endif
    return live;
}

/* Slices start at the instant they are pushed, so most entries come in
 * order and go to the FIFO (O(1)); one that comes before the FIFO's last
 * (a start the engine undid, an entry put back) goes to the heap. */
static void sq_push(struct gd_heap *h, struct gd_slice it)
{
    if (h->fn > h->fh && sl_before(&it, &h->f[h->fn - 1])) {
        hp_push(h, it);
        return;
    }
    if (h->fn == h->capf && h->fh > h->fn / 2) {        /* slide down */
        memmove(h->f, h->f + h->fh, (h->fn - h->fh) * sizeof *h->f);
        h->fn -= h->fh;
        h->fh = 0;
    }
    xgrow(&h->f, &h->capf, h->fn + 1, sizeof *h->f);
    h->f[h->fn++] = it;
}

/* The first live entry of h (the stale ones before it dropped); NULL if
 * none. */
static const struct gd_slice *sq_top(const struct gandiva *s,
                                     const struct pol_view *v, struct gd_heap *h)
{
    while (h->n && !sl_live(s, v, &h->a[0]))
        hp_pop(h);
    while (h->fn > h->fh && !sl_live(s, v, &h->f[h->fh]))
        h->fh++;
    if (h->fn == h->fh)
        h->fh = h->fn = 0;
    const struct gd_slice *f = h->fn > h->fh ? &h->f[h->fh] : NULL;
    if (!h->n)
        return f;
    return f && sl_before(f, &h->a[0]) ? f : &h->a[0];
}

/* Drops the entry sq_top gave. */
static struct gd_slice sq_pop(struct gd_heap *h, const struct gd_slice *top)
{
    if (h->fn > h->fh && top == &h->f[h->fh])
        return h->f[h->fh++];
    return hp_pop(h);
}

/* Entries of h, heap and FIFO. */
static size_t sq_size(const struct gd_heap *h)
{
    return h->n + (h->fn - h->fh);
}

static inline struct gd_um um_min(struct gd_um a, struct gd_um b)
{
    return (struct gd_um){ pol_dmin(a.u, b.u), pol_dmin(a.m, b.m) };
}

/* Whether FIFO entry e still waits: its job is cleared where the walk
 * starts it. */
static inline bool ent_waiting(const struct gd_ent *e)
{
    return e->job != SIM_NONE;
}

/* Place i of sh's FIFO now holds a waiting job (u, m), or none (+inf). */
static void qt_set(struct gd_shape *sh, size_t i, double u, double m)
{
    if (sh->tstale || i >= sh->tleaves) {
        sh->tstale = true;
        return;
    }
    size_t k = sh->tleaves + i;
    struct gd_um *t = sh->t;
    t[k] = (struct gd_um){ u, m };
    for (k /= 2; k; k /= 2) {
        struct gd_um n = um_min(t[2 * k], t[2 * k + 1]);
        if (n.u == t[k].u && n.m == t[k].m)
            break;              /* and so every node above */
        t[k] = n;
    }
}

/* sh's tree again from its FIFO. */
static void qt_build(struct gd_shape *sh)
{
    size_t want = 64;           /* room to grow, and to shrink to */
    while (want < sh->n)
        want *= 2;
    if (want > sh->tleaves || 4 * want <= sh->tleaves) {
        free(sh->t);
        sh->t = xmalloc(2 * want * sizeof *sh->t);
        sh->tleaves = want;
    }
    size_t w = sh->tleaves;
    struct gd_um *t = sh->t;
    for (size_t i = 0; i < w; i++) {
        bool live = i < sh->n && ent_waiting(&sh->q[i]);
        t[w + i] = live ? (struct gd_um){ sh->q[i].u, sh->q[i].m }
                        : (struct gd_um){ HUGE_VAL, HUGE_VAL };
    }
    for (size_t k = w - 1; k; k--)
        t[k] = um_min(t[2 * k], t[2 * k + 1]);
    sh->tstale = false;
    sh->tpassed = 0;
}

/* ------------------------------------------------------------- setup */

/* The summed utilization of GPU g's jobs but skip (each read at its
 * start: pol_measured_util of a running job depends on it and its type
 * only); with busy, whether one of them is in its profiling run. */
static inline double gpu_util(const struct gandiva *s, const struct pol_view *v,
                              uint32_t g, uint32_t skip, bool *busy)
{
    uint32_t n;
    const uint32_t *o = pol_gpu_jobs(v, g, &n);
    double u = 0;
    for (uint32_t k = 0; k < n; k++)
        if (o[k] != skip) {
            u += s->jb[o[k]].ju;
            if (busy)
                *busy |= s->jb[o[k]].profiling;
        }
    return u;
}

static inline double job_mem(const struct pol_view *v, uint32_t j)
{
    return pol_mem_gb(v, j);
}

static inline void node_dirty(struct gandiva *s, uint32_t nd);
static void acc_stale(struct gandiva *s, const struct pol_view *v, uint32_t j);
static void ex_drop(struct gandiva *s, const struct pol_view *v, uint32_t j);

/* Per-job and per-GPU state, sized from the initial view. */
static void ensure(struct gandiva *s, const struct pol_view *v)
{
    uint32_t n = v->njobs ? v->njobs : 1;
    s->jb = xcalloc_big(n, sizeof *s->jb);
    for (uint32_t j = 0; j < n; j++)
        s->jb[j].shape = s->jb[j].size = s->jb[j].expos = SIM_NONE;
    s->prof_end = xcalloc_big(n, sizeof *s->prof_end);
    s->seq = s->fseq = GD_SEQ0;
    const struct cluster *c = v->clu;
    s->ntypes = c->ntypes;
    s->ngpus = c->ngpus;
    s->usum = xcalloc_big(c->ngpus ? c->ngpus : 1, sizeof *s->usum);
    s->shidx = xcalloc_big((size_t)c->ngpus + 1, sizeof *s->shidx);
    s->sidx = xcalloc_big((size_t)c->ngpus + 1, sizeof *s->sidx);
    s->tnodes = xmalloc((c->nnodes ? c->nnodes : 1) * sizeof *s->tnodes);
    s->tfirst = xcalloc(c->ntypes + 1, sizeof *s->tfirst);
    for (uint32_t nd = 0; nd < c->nnodes; nd++)
        s->tfirst[c->nodes[nd].type + 1]++;
    for (uint32_t t = 0; t < c->ntypes; t++)
        s->tfirst[t + 1] += s->tfirst[t];
    uint32_t *at = xcalloc(c->ntypes ? c->ntypes : 1, sizeof *at);
    for (uint32_t nd = 0; nd < c->nnodes; nd++) {
        uint32_t t = c->nodes[nd].type;
        s->tnodes[s->tfirst[t] + at[t]++] = nd;
    }
    free(at);
    uint32_t nn = c->nnodes ? c->nnodes : 1;
    s->tpos = xmalloc(nn * sizeof *s->tpos);
    for (uint32_t k = 0; k < c->nnodes; k++)
        s->tpos[s->tnodes[k]] = k;
    s->nc = xcalloc_big(nn, sizeof *s->nc);
    s->ndirty = xcalloc_big(nn, sizeof *s->ndirty);
    s->lseen = xcalloc_big(nn, sizeof *s->lseen);
    s->trees = xcalloc(c->ntypes ? c->ntypes : 1, sizeof *s->trees);
    s->tbig = xcalloc(c->ntypes ? c->ntypes : 1, sizeof *s->tbig);
    s->tpass = xcalloc(c->ntypes ? c->ntypes : 1, sizeof *s->tpass);
    s->lfree = xcalloc(c->ntypes + 1, sizeof *s->lfree);
    s->ltakes = xcalloc(c->ntypes + 1, sizeof *s->ltakes);
    for (uint32_t nd = 0; nd < c->nnodes; nd++)
        if (c->nodes[nd].ngpus > s->tbig[c->nodes[nd].type])
            s->tbig[c->nodes[nd].type] = c->nodes[nd].ngpus;
    for (uint32_t t = 0; t < c->ntypes; t++) {
        struct gd_tree *tr = &s->trees[t];
        uint32_t n = s->tfirst[t + 1] - s->tfirst[t];
        tr->leaves = 1;
        while (tr->leaves < n)
            tr->leaves *= 2;
        tr->us = xmalloc(2 * tr->leaves * sizeof *tr->us);
        tr->mem = xmalloc(2 * tr->leaves * sizeof *tr->mem);
        tr->cnt = xcalloc(2 * tr->leaves, sizeof *tr->cnt);
        tr->mark = xcalloc(tr->leaves, sizeof *tr->mark);
        tr->cstale = xcalloc(tr->leaves, sizeof *tr->cstale);
        tr->cdirty = xmalloc(tr->leaves * sizeof *tr->cdirty);
        tr->call = true;
        tr->umax = xmalloc(2 * tr->leaves * sizeof *tr->umax);
        tr->mmax = xmalloc(2 * tr->leaves * sizeof *tr->mmax);
        for (uint32_t i = 0; i < 2 * tr->leaves; i++) {
            tr->us[i] = tr->mem[i] = HUGE_VAL;
            tr->umax[i] = tr->mmax[i] = -HUGE_VAL;
        }
        tr->kw = s->tbig[t] + 1;
        tr->on = xcalloc(tr->kw, sizeof *tr->on);
        tr->gl = xmalloc(tr->kw * sizeof *tr->gl);
        tr->rseen = xcalloc(tr->kw, sizeof *tr->rseen);
        tr->rq = xmalloc(tr->leaves * sizeof *tr->rq);
        size_t nk = (size_t)tr->kw * 2 * tr->leaves;
        tr->kk = xmalloc(nk * sizeof *tr->kk);
        for (size_t i = 0; i < nk; i++)
            tr->kk[i] = (struct gd_kk){ HUGE_VAL, HUGE_VAL };
    }
    for (uint32_t nd = 0; nd < c->nnodes; nd++)      /* cached when asked */
        node_dirty(s, nd);
}

/* The GPUs of node nd may pass the packing rules otherwise than before
 * (listed once: the check inline, the listing out of line). */
static void node_list(struct gandiva *s, uint32_t nd)
{
    s->ndirty[nd] = 1;
    if (s->ndirt == s->capdirt || s->ndirt == s->captup) {
        xgrow(&s->dirty, &s->capdirt, s->ndirt + 1, sizeof *s->dirty);
        xgrow(&s->tup, &s->captup, s->ndirt + 1, sizeof *s->tup);
    }
    s->dirty[s->ndirt++] = nd;
}

static inline void node_dirty(struct gandiva *s, uint32_t nd)
{
    if (!s->ndirty[nd])
        node_list(s, nd);
}

/* The occupants of the GPUs of job j (and j) offer something else as time
 * slices; with sums, the GPUs' summed utilizations are taken again too
 * (their occupants changed).  j is made stale once: a GPU's occupant j
 * or a co-runner met again on a later GPU would change nothing more. */
static void acc_void_sum(struct gandiva *s, const struct pol_view *v,
                         uint32_t j, bool sums)
{
    const struct job_rt *r = pol_rt(v, j);
    const uint32_t *gpu_node = v->clu->gpu_node, *gpus = r->gpus;
    acc_stale(s, v, j);
    uint32_t last = SIM_NONE;
    for (uint32_t i = 0, ng = v->jobs[j].num_gpus; i < ng; i++) {
        uint32_t n, g = gpus[i], nd = gpu_node[g];
        if (nd != last)         /* a gang's GPUs come node by node */
            node_dirty(s, nd);
        last = nd;
        const uint32_t *o = pol_gpu_jobs(v, g, &n);
        /* only a job whose slice is over is a slice to take (rekey):
         * another one counts when it expires.  The sum is gpu_util's (same
         * order, same bits), taken in this pass: a call reads the
         * occupants again, +1.4 % of gandiva's instructions */
        double u = 0;
        for (uint32_t k = 0; k < n; k++) {
            u += s->jb[o[k]].ju;
            if (o[k] != j)
                acc_stale(s, v, o[k]);
        }
        if (sums)
            s->usum[g] = u;
    }
}

static void acc_void(struct gandiva *s, const struct pol_view *v, uint32_t j)
{
    acc_void_sum(s, v, j, false);
}

/* The GPUs of job j changed occupants: their sums again. */
static void resum(struct gandiva *s, const struct pol_view *v, uint32_t j)
{
    acc_void_sum(s, v, j, true);
}

/* Job j left its GPUs (it ended or stopped, or its profiling run ended,
 * so they take co-runners): they are logged for refresh. */
static void left(struct gandiva *s, const struct pol_view *v, uint32_t j)
{
    uint32_t g = v->jobs[j].num_gpus;
    s->emptied++;
    if (s->elost || s->nelog + g > GD_ELOG) {
        s->elost = true;
        return;
    }
    xgrow(&s->elog, &s->capelog, s->nelog + g, sizeof *s->elog);
    memcpy(s->elog + s->nelog, pol_rt(v, j)->gpus, g * sizeof *s->elog);
    s->nelog += g;
}

static uint32_t shape_of(struct gandiva *s, const struct pol_view *v, uint32_t j)
{
    if (s->jb[j].shape != SIM_NONE)
        return s->jb[j].shape;
    uint32_t g = v->jobs[j].num_gpus, req = pol_rt(v, j)->req_type;
    DL_ASSERT(g <= s->ngpus);   /* a larger job never fits: never queued */
    uint32_t k = s->shidx[g];   /* the shapes of g GPUs, one per type asked */
    while (k && s->shapes[k - 1].req_type != req)
        k = s->shapes[k - 1].gnext;
    if (k)
        return s->jb[j].shape = k - 1;
    k = (uint32_t)s->nshapes;
    xgrow(&s->shapes, &s->capshapes, k + 1, sizeof *s->shapes);
    s->shapes[k] = (struct gd_shape){ .ngpus = g, .req_type = req,
                                      .si = SIM_NONE,
                                      .pack_ok = UINT64_MAX,
                                      .slice_ok = UINT64_MAX,
                                      .apos = GD_NONE,
                                      .gnext = s->shidx[g] };
    s->shidx[g] = k + 1;
    s->nshapes++;
    return s->jb[j].shape = k;
}

/* The heaps of GPU count g (created if new); SIM_NONE if never started. */
static uint32_t size_of(struct gandiva *s, uint32_t g, bool create)
{
    DL_ASSERT(g <= s->ngpus);   /* a larger job never fits: never queued */
    size_t k = s->sidx[g] ? s->sidx[g] - 1 : s->nsizes;
    if (k == s->nsizes) {
        if (!create)
            return SIM_NONE;
        s->sidx[g] = (uint32_t)k + 1;
        size_t old = s->capsizes;
        xgrow(&s->sizes, &s->capsizes, k + 1, sizeof *s->sizes);
        if (s->capsizes != old) {
            s->heaps = xrealloc(s->heaps, s->capsizes * s->ntypes * sizeof *s->heaps);
            memset(s->heaps + old * s->ntypes, 0,
                   (s->capsizes - old) * s->ntypes * sizeof *s->heaps);
            s->sgrow = xrealloc(s->sgrow, s->capsizes * sizeof *s->sgrow);
            s->sshapes = xrealloc(s->sshapes, s->capsizes * sizeof *s->sshapes);
        }
        s->sizes[k] = g;
        s->sgrow[k] = 1;
        s->sshapes[k] = (struct gd_list){ 0 };
        s->nsizes++;
    }
    return (uint32_t)k;
}

/* ------------------------------------------------------- engine hooks */

/* Shape k's FIFO to tidy at the end of this schedule() (tidy). */
static void shape_gone(struct gandiva *s, uint32_t k)
{
    struct gd_shape *sh = &s->shapes[k];
    if (!sh->gone) {
        sh->gone = true;
        xgrow(&s->gone, &s->capgone, s->ngone + 1, sizeof *s->gone);
        s->gone[s->ngone++] = k;
    }
}

/* Shape k's last waiting job left: out of s->act, its FIFO to be cleared
 * (tidy), and its failures dropped (a later refresh would drop or widen
 * them; no job asks them meanwhile, and nothing needs them to hold). */
static void shape_idle(struct gandiva *s, uint32_t k)
{
    struct gd_shape *sh = &s->shapes[k];
    uint32_t last = s->act[--s->nact];
    s->act[sh->apos] = last;
    s->shapes[last].apos = sh->apos;
    sh->apos = GD_NONE;
    shape_gone(s, k);
    sh->excl_failed = sh->slice_failed = false;
    sh->nfail = sh->nsfail = 0;
}

static void stopped(struct gandiva *s, const struct pol_view *v, uint32_t j)
{
    resum(s, v, j);
    ex_drop(s, v, j);
    s->changes++;
    s->jb[j].running = 0;
    s->jb[j].ver++;
    s->heaps[(size_t)s->jb[j].size * s->ntypes + pol_rt(v, j)->type].live--;
}

/* Job j enters the queue: at the back (an arrival, the engine's hook, or
 * a job this policy preempted), or at the front (a preempted job under
 * requeue=front: before every waiting job). */
static void enqueue_at(struct gandiva *s, const struct pol_view *v, uint32_t j,
                       bool front)
{
    if (s->jb[j].running)
        stopped(s, v, j);
    uint32_t k = shape_of(s, v, j);     /* may move s->shapes */
    struct gd_shape *sh = &s->shapes[k];
    xgrow(&sh->q, &sh->cap, sh->n + 1, sizeof *sh->q);
    double u = pol_measured_util(v, j), m = job_mem(v, j);
    if (s->arrivals && sh->n >= UINT32_MAX) {
        s->flost = true;
    } else if (s->arrivals) {
        DL_ASSERT(!front);
        xgrow(&s->fresh, &s->capfresh, s->nfresh + 1, sizeof *s->fresh);
        s->fresh[s->nfresh++] = (struct gd_fresh){ k, (uint32_t)sh->n };
    }
    if (!front) {
        sh->q[sh->n++] = (struct gd_ent){ ++s->seq, j, s->jb[j].ver, 0, u, m };
        qt_set(sh, sh->n - 1, u, m);
    } else {
        if (!sh->head) {        /* make room at the head */
            memmove(sh->q + 1, sh->q, sh->n * sizeof *sh->q);
            sh->n++, sh->head++, sh->cur++;
            for (size_t i = 1; i < sh->n; i++)
                sh->q[i].skip += sh->q[i].skip != 0;
            sh->tstale = true;
        }
        sh->q[--sh->head] = (struct gd_ent){ --s->fseq, j, s->jb[j].ver, 0, u, m };
        qt_set(sh, sh->head, u, m);
    }
    sh->mins = false;
    if (!sh->nwait++) {
        xgrow(&s->act, &s->capact, s->nact + 1, sizeof *s->act);
        sh->apos = (uint32_t)s->nact;
        s->act[s->nact++] = k;
    }
    s->nlive++;
}

static void enqueue(void *state, const struct pol_view *v, uint32_t j)
{
    enqueue_at(state, v, j, false);
}

/* Profiling (profile_s): the runs that end by now are over; their jobs
 * are measured and their GPUs may take co-runners from now on. */
static void profiles_end(struct gandiva *s, const struct pol_view *v)
{
    size_t k = 0;
    for (size_t i = 0; i < s->nprof; i++) {
        uint32_t j = s->prof[i];
        if (s->jb[j].profiling && s->prof_end[j] <= v->now) {
            s->jb[j].profiling = 0;
            s->jb[j].profiled = 1;
            acc_void(s, v, j);  /* its co-runners are no longer busy */
            left(s, v, j);      /* room that was not there: retry packing */
            s->changes++;
        } else if (s->jb[j].profiling) {
            s->prof[k++] = j;
        }
    }
    s->nprof = k;
}

/* A job this policy started (no hook runs inside schedule()).  A job not
 * yet measured starts its profiling run (profile_s), alone on its GPUs. */
static void started(struct gandiva *s, const struct pol_view *v,
                    struct pol_ctx *x, uint32_t j)
{
    if (s->profile && !s->jb[j].profiled && !s->jb[j].profiling) {
        s->jb[j].profiling = 1;
        s->prof_end[j] = v->now + s->profile;
        xgrow(&s->prof, &s->capprof, s->nprof + 1, sizeof *s->prof);
        s->prof[s->nprof++] = j;
        pol_wake(x, s->prof_end[j]);
    }
    s->jb[j].ju = pol_measured_util(v, j);
    resum(s, v, j);
    s->changes++;
    s->jb[j].running = 1;
    s->jb[j].ver++;
    s->shapes[s->jb[j].shape].nwait--;
    s->shapes[s->jb[j].shape].mins = false;
    if (!s->shapes[s->jb[j].shape].nwait)
        shape_idle(s, s->jb[j].shape);
    s->nlive--;
    if (s->jb[j].size == SIM_NONE)
        s->jb[j].size = size_of(s, v->jobs[j].num_gpus, true);
    struct gd_heap *h = &s->heaps[(size_t)s->jb[j].size * s->ntypes +
                                  pol_rt(v, j)->type];
    if (sq_size(h) > 64 && sq_size(h) > 2 * (size_t)h->live) {    /* sweep stale */
        size_t k = 0;
        for (size_t i = 0; i < h->n; i++)
            if (sl_live(s, v, &h->a[i]))
                h->a[k++] = h->a[i];
        h->n = 0;
        for (size_t i = 0; i < k; i++)
            hp_push(h, h->a[i]);
        k = 0;
        for (size_t i = h->fh; i < h->fn; i++)
            if (sl_live(s, v, &h->f[i]))
                h->f[k++] = h->f[i];
        h->fh = 0;
        h->fn = k;
    }
    /* slice=all: the slice begins when this policy (re)starts the job,
     * also when the engine undoes a preemption of the same instant */
    simtime_t at = s->slice_all ? v->now : pol_rt(v, j)->last_start;
    sq_push(h, (struct gd_slice){ at, j, s->jb[j].ver });
    if (s->quantum && at + s->quantum < h->nx)
        h->nx = at + s->quantum;
    h->live++;
    if (s->quantum && at + s->quantum <= v->now)
        s->sgrow[s->jb[j].size]++;         /* a slice over already */
}

static void finished(void *state, const struct pol_view *v, uint32_t j)
{
    struct gandiva *s = state;
    stopped(s, v, j);
    s->jb[j].profiling = 0;        /* the list drops it at its next scan */
    left(s, v, j);
}

/* ---------------------------------------------------------- packing */

/* Whether GPU g can take a job of utilization u and memory m once job
 * skip (SIM_NONE: none) has left it; *us = its summed utilization then. */
static bool gpu_takes(const struct gandiva *s, const struct pol_view *v,
                      uint32_t g, double u, double m, uint32_t skip, bool alone,
                      double *us)
{
    uint32_t others = v->nocc[g], cap = s->max_per_gpu < v->max_share
                                            ? s->max_per_gpu : v->max_share;
    double mem = v->mem_used[g];
    *us = s->usum[g];
    bool busy = false;          /* a co-runner in its profiling run */
    if (skip != SIM_NONE || s->nprof) {
        uint32_t n;
        const uint32_t *o = pol_gpu_jobs(v, g, &n);
        for (uint32_t k = 0; k < n; k++)
            if (o[k] == skip) {
                others--;
                mem -= job_mem(v, skip);
                *us = gpu_util(s, v, g, skip, NULL);
            } else {
                busy |= s->jb[o[k]].profiling;
            }
    }
    if (!others) {
        *us = 0;
        return true;
    }
    if (alone || busy)          /* a job to be measured, or one measured */
        return false;
    double gb = v->clu->types[v->clu->nodes[v->clu->gpu_node[g]].type].memory_gb;
    return others + 1 <= cap && *us + u <= s->util_cap + 1e-9 &&
           (m <= 0 || gb <= 0 || mem + m <= gb + 1e-9);
}

/* Whether a GPU holding memory held (-inf: free) has room for m more on
 * a type of gb per GPU (gpu_takes's memory rule). */
static inline bool mem_fits(double held, double m, double gb)
{
    return m <= 0 || gb <= 0 || held + m <= gb + 1e-9;
}

/* The passing GPUs of node nd again (gpu_takes with utilization 0 and no
 * memory, each), by (summed utilization, index). */
static void node_cache(struct gandiva *s, const struct pol_view *v, uint32_t nd)
{
    const struct clu_node *no = &v->clu->nodes[nd];
    struct gd_ncache *e = &s->nc[nd];
    e->n = 0;
    for (uint32_t i = 0; i < no->ngpus; i++) {
        uint32_t x = no->first_gpu + i;
        double ux;
        if (!gpu_takes(s, v, x, 0, 0, SIM_NONE, false, &ux))
            continue;
        double mem = v->nocc[x] ? v->mem_used[x] : -HUGE_VAL;
        /* insertion by (utilization, index): x ascends, so ties stay */
        uint32_t p = e->n++;
        while (p > 0 && e->us[p - 1] > ux) {
            e->us[p] = e->us[p - 1];
            e->gpu[p] = e->gpu[p - 1];
            e->mem[p] = e->mem[p - 1];
            p--;
        }
        e->us[p] = ux;
        e->gpu[p] = x;
        e->mem[p] = mem;
    }
}

/* The counts of tree node i of tr from its children's. */
static void tree_count_up(struct gd_tree *tr, uint32_t i)
{
    tr->cnt[i] = tr->cnt[2 * i] + tr->cnt[2 * i + 1];
    tr->umax[i] = pol_dmax(tr->umax[2 * i], tr->umax[2 * i + 1]);
    tr->mmax[i] = pol_dmax(tr->mmax[2 * i], tr->mmax[2 * i + 1]);
}

/* The counts of leaf i of tr from node cache e. */
static void tree_count_leaf(struct gd_tree *tr, uint32_t i, const struct gd_ncache *e)
{
    tr->cnt[i] = e->n;
    tr->umax[i] = e->n ? e->us[e->n - 1] : -HUGE_VAL;
    tr->mmax[i] = -HUGE_VAL;
    for (uint32_t q = 0; q < e->n; q++)
        tr->mmax[i] = pol_dmax(tr->mmax[i], e->mem[q]);
}

/* The counts of tr (type t) up to date: the paths above the leaves that
 * changed, or the whole tree. */
static void tree_counts(struct gandiva *s, struct gd_tree *tr, uint32_t t)
{
    uint32_t nt = s->tfirst[t + 1] - s->tfirst[t];
    if (tr->call) {
        for (uint32_t i = 0; i < nt; i++) {
            tree_count_leaf(tr, tr->leaves + i, &s->nc[s->tnodes[s->tfirst[t] + i]]);
            tr->cstale[i] = 0;
        }
        for (uint32_t i = tr->leaves - 1; i >= 1; i--)
            tree_count_up(tr, i);
    } else {
        for (uint32_t k = 0; k < tr->ncdirty; k++) {
            uint32_t i = tr->cdirty[k];
            tr->cstale[i - tr->leaves] = 0;
            tree_count_leaf(tr, i, &s->nc[s->tnodes[s->tfirst[t] + i - tr->leaves]]);
            for (i /= 2; i; i /= 2)
                tree_count_up(tr, i);
        }
    }
    tr->call = false;
    tr->ncdirty = 0;
}

/* Row g of tr's pairs. */
static inline struct gd_kk *krow(const struct gd_tree *tr, uint32_t g)
{
    return tr->kk + (size_t)g * 2 * tr->leaves;
}

/* Tree node i of tr from its children (the rows aside). */
static inline void tree_up(struct gd_tree *tr, uint32_t i)
{
    tr->us[i] = pol_dmin(tr->us[2 * i], tr->us[2 * i + 1]);
    tr->mem[i] = pol_dmin(tr->mem[2 * i], tr->mem[2 * i + 1]);
}

/* Row g of leaf i of tr from node cache e. */
static void tree_row_leaf(struct gd_tree *tr, uint32_t i, uint32_t g,
                          const struct gd_ncache *e)
{
    double sum = 0;
    for (uint32_t q = 0; q < g && q < e->n; q++)
        sum += e->us[q];
    krow(tr, g)[i] = e->n >= g ? (struct gd_kk){ e->us[g - 1], sum }
                               : (struct gd_kk){ HUGE_VAL, HUGE_VAL };
}

/* Row g of tree node i of tr from its children. */
static inline void tree_row_up(struct gd_tree *tr, uint32_t i, uint32_t g)
{
    struct gd_kk *r = krow(tr, g);
    r[i] = (struct gd_kk){ pol_dmin(r[2 * i].kth, r[2 * i + 1].kth),
                           pol_dmin(r[2 * i].ksum, r[2 * i + 1].ksum) };
}

/* Row g of tr (type t) up to date, from the node caches (fresh): kept from
 * now on and built where it was not, built again where the log was cut,
 * else the leaves logged since it was last read and the tree nodes above
 * them, a level at a time, each once.  Rows are read far less often than
 * nodes change (a gang's try on one node), and each row so pays only for
 * the paths that changed between two of its reads. */
static void tree_row(struct gandiva *s, struct gd_tree *tr, uint32_t t, uint32_t g)
{
    const struct gd_ncache *nc = s->nc;
    const uint32_t *tn = s->tnodes + s->tfirst[t];
    if (!tr->on[g] || tr->rseen[g] == GD_REBUILD) {
        if (!tr->on[g]) {
            tr->on[g] = 1;
            uint32_t x = tr->ngl++;
            for (; x > 0 && tr->gl[x - 1] > g; x--)
                tr->gl[x] = tr->gl[x - 1];
            tr->gl[x] = g;
        }
        uint32_t nt = s->tfirst[t + 1] - s->tfirst[t];
        for (uint32_t i = 0; i < nt; i++)
            tree_row_leaf(tr, tr->leaves + i, g, &nc[tn[i]]);
        for (uint32_t i = tr->leaves - 1; i >= 1; i--)
            tree_row_up(tr, i, g);
        tr->rseen[g] = tr->nrlog;
        return;
    }
    size_t n = 0;
    for (size_t k = tr->rseen[g]; k < tr->nrlog; k++) {
        uint32_t i = tr->rlog[k], p = i / 2;
        tree_row_leaf(tr, i, g, &nc[tn[i - tr->leaves]]);
        if (p && !tr->mark[p]) {
            tr->mark[p] = 1;
            tr->rq[n++] = p;
        }
    }
    while (n) {         /* the leaves are all at one depth: so is each level */
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t i = tr->rq[k], p = i / 2;
            tree_row_up(tr, i, g);
            tr->mark[i] = 0;
            if (p && !tr->mark[p]) {
                tr->mark[p] = 1;
                tr->rq[m++] = p;
            }
        }
        n = m;
    }
    tr->rseen[g] = tr->nrlog;
#ifndef NDEBUG
    uint32_t nt = s->tfirst[t + 1] - s->tfirst[t];      /* the root, afresh */
    double lo = HUGE_VAL, lsum = HUGE_VAL;
    for (uint32_t i = 0; i < nt; i++) {
        const struct gd_ncache *e = &nc[tn[i]];
        double sum = 0;
        for (uint32_t q = 0; q < g && q < e->n; q++)
            sum += e->us[q];
        if (e->n >= g) {
            lo = pol_dmin(lo, e->us[g - 1]);
            lsum = pol_dmin(lsum, sum);
        }
    }
    DL_ASSERT(krow(tr, g)[1].kth == lo && krow(tr, g)[1].ksum == lsum);
#endif
}

/* Leaf i of tr changed: logged for the rows kept (tree_row); a log longer
 * than the tree is cut, the rows that have not read it built again. */
static void tree_row_log(struct gd_tree *tr, uint32_t i)
{
    if (!tr->ngl)
        return;
    if (tr->nrlog >= 2 * (size_t)tr->leaves) {
        for (uint32_t x = 0; x < tr->ngl; x++) {
            uint32_t g = tr->gl[x];
            tr->rseen[g] = tr->rseen[g] == tr->nrlog ? 0 : GD_REBUILD;
        }
        tr->nrlog = 0;
    }
    xgrow(&tr->rlog, &tr->caprlog, tr->nrlog + 1, sizeof *tr->rlog);
    tr->rlog[tr->nrlog++] = i;
}

/* Brings the caches of the nodes that changed, and their trees, up to
 * date: the leaves, then the tree nodes above them a level at a time,
 * each once (a gang of hundreds of nodes shares most of its paths). */
static void nodes_fresh(struct gandiva *s, const struct pol_view *v)
{
    const struct cluster *c = v->clu;
    size_t n = s->ndirt;
    for (size_t k = 0; k < n; k++) {
        uint32_t nd = s->dirty[k], t = c->nodes[nd].type;
        s->ndirty[nd] = 0;
        s->tpass[t] -= s->nc[nd].n;
        node_cache(s, v, nd);
        s->tpass[t] += s->nc[nd].n;
        const struct gd_ncache *e = &s->nc[nd];
        struct gd_tree *tr = &s->trees[t];
        uint32_t i = tr->leaves + s->tpos[nd] - s->tfirst[t];
        tr->us[i] = e->n ? e->us[0] : HUGE_VAL;
        tr->mem[i] = HUGE_VAL;
        for (uint32_t q = 0; q < e->n; q++)
            tr->mem[i] = pol_dmin(tr->mem[i], e->mem[q]);
        if (!tr->call && !tr->cstale[i - tr->leaves]) {
            tr->cstale[i - tr->leaves] = 1;
            tr->cdirty[tr->ncdirty++] = i;
            tr->call = tr->ncdirty > tr->leaves / 8;
        }
        tree_row_log(tr, i);                            /* the rows kept */
        s->tup[k] = (struct gd_tpos){ t, i };
        if (n == 1) {           /* one path: no marks */
            for (i /= 2; i; i /= 2)
                tree_up(tr, i);
            n = 0;
        }
    }
    /* a tree's leaves are all at one depth: the entries move up together */
    while (n) {
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
            struct gd_tree *tr = &s->trees[s->tup[k].t];
            uint32_t p = s->tup[k].i / 2;
            if (!p || tr->mark[p])
                continue;
            tr->mark[p] = 1;
            s->tup[m++] = (struct gd_tpos){ s->tup[k].t, p };
        }
        for (size_t k = 0; k < m; k++) {
            struct gd_tree *tr = &s->trees[s->tup[k].t];
            tree_up(tr, s->tup[k].i);
            tr->mark[s->tup[k].i] = 0;
        }
        n = m;
    }
    s->ndirt = 0;
}

/* The lowest of tr's passing GPUs that have room for memory m, by
 * (summed utilization, node order, then (utilization, index) on the
 * node), into *best and *gpu (+inf and SIM_NONE: none): a walk from the
 * root, the child of the lower bound first; a subtree is passed where its
 * bound, or its place where the bounds are equal, cannot beat the best so
 * far, or where none of its GPUs has room for m. */
static void tree_min(const struct gandiva *s, const struct gd_tree *tr,
                     uint32_t tfirst, double m, double gb, double *best,
                     uint32_t *gpu)
{
    struct gd_span st[2 * 32 + 2];     /* one sibling left per level */
    uint32_t n = 1, at = UINT32_MAX;    /* the best one's leaf */
    *best = HUGE_VAL;
    *gpu = SIM_NONE;
    if (tr->us[1] == HUGE_VAL)
        return;
    /* Most often the lowest of all (the leftmost leaf of the root's bound,
     * and its first GPU) has room: then it is the one, read in one descent. */
    uint32_t i = 1;
    while (i < tr->leaves)
        i = tr->us[2 * i + 1] < tr->us[2 * i] ? 2 * i + 1 : 2 * i;
    const struct gd_ncache *e0 = &s->nc[s->tnodes[tfirst + i - tr->leaves]];
    if (e0->n && mem_fits(e0->mem[0], m, gb)) {
        *best = e0->us[0];
        *gpu = e0->gpu[0];
        return;
    }
    st[0] = (struct gd_span){ 1, 0, tr->leaves };
    while (n) {
        n--;
        uint32_t i = st[n].i, lo = st[n].lo, span = st[n].span;
        double us = tr->us[i];
        if (us == HUGE_VAL || us > *best || (us == *best && lo > at) ||
            !mem_fits(tr->mem[i], m, gb))
            continue;           /* (+inf: no passing GPU, or no node) */
        if (i < tr->leaves) {   /* the one to visit first goes on top */
            uint32_t h = span / 2, a = 2 * i, b = 2 * i + 1;
            bool right = tr->us[b] < tr->us[a];
            st[n++] = (struct gd_span){ right ? a : b, right ? lo : lo + h, h };
            st[n++] = (struct gd_span){ right ? b : a, right ? lo + h : lo, h };
            continue;
        }
        const struct gd_ncache *e = &s->nc[s->tnodes[tfirst + lo]];
        for (uint32_t q = 0; q < e->n; q++) {
            if (e->us[q] > *best || (e->us[q] == *best && lo > at))
                break;          /* by utilization: the rest too */
            if (mem_fits(e->mem[q], m, gb)) {
                *best = e->us[q];
                *gpu = e->gpu[q];
                at = lo;
                break;
            }
        }
    }
}

/* The nodes with a passing GPU that has room for m, in node order,
 * appended to s->cand; *mfree cleared where a node's passing GPUs have
 * none.  The leaves are read in order, a block of 16 at a time passed
 * where the tree says none of them has a passing GPU (or none with room
 * for m): on a full cluster most blocks are, and where most nodes pass, a
 * walk from the root read twice as many. */
static void tree_nodes(struct gandiva *s, const struct gd_tree *tr,
                       uint32_t tfirst, uint32_t nt, double m, double gb,
                       uint32_t *n, bool *mfree)
{
    uint32_t bs = tr->leaves < 16 ? tr->leaves : 16;
    const double *us = tr->us + tr->leaves, *mem = tr->mem + tr->leaves;
    for (uint32_t b = 0; b * bs < nt; b++) {
        uint32_t up = tr->leaves / bs + b;      /* the block's tree node */
        if (tr->us[up] == HUGE_VAL)
            continue;
        if (!mem_fits(tr->mem[up], m, gb)) {
            *mfree = false;
            continue;
        }
        uint32_t end = (b + 1) * bs < nt ? (b + 1) * bs : nt;
        for (uint32_t i = b * bs; i < end; i++) {
            if (us[i] == HUGE_VAL)
                continue;
            if (!mem_fits(mem[i], m, gb))
                *mfree = false;
            else
                s->cand[(*n)++] = s->tnodes[tfirst + i];
        }
    }
}

/* The node below tree node i (g of its passing GPUs taking the gang: of
 * utilization at most lim, with room for m) whose g best have the lowest
 * sum (added in order, as pack_on does), then the first in node order;
 * below *best (it and *node updated).  A subtree is passed where no node
 * has g passing GPUs at most lim, or none has room for m, or the sums of
 * its nodes' g best (memory aside) are not below *best: each of those
 * bounds what any of its nodes offers (a GPU turned away for memory
 * leaves the next, no lower, in its place). */
static void tree_gang(const struct gandiva *s, const struct gd_tree *tr,
                      uint32_t tfirst, uint32_t i, uint32_t g, double m,
                      double gb, double lim, double *best, uint32_t *node)
{
    const struct gd_kk *k = &krow(tr, g)[i];
    if (k->kth > lim || !(k->ksum < *best) ||
        !mem_fits(tr->mem[i], m, gb))
        return;
    if (i < tr->leaves) {
        tree_gang(s, tr, tfirst, 2 * i, g, m, gb, lim, best, node);
        tree_gang(s, tr, tfirst, 2 * i + 1, g, m, gb, lim, best, node);
        return;
    }
    uint32_t nd = s->tnodes[tfirst + i - tr->leaves], n = 0;
    const struct gd_ncache *e = &s->nc[nd];
    double sum = 0;
    for (uint32_t q = 0; q < e->n && n < g; q++) {
        if (!mem_fits(e->mem[q], m, gb))
            continue;
        if (e->us[q] > lim)
            break;              /* by utilization: the rest too */
        sum += e->us[q];
        n++;
    }
    if (n >= g && sum < *best) {
        *best = sum;
        *node = nd;
    }
}

/* How many passing GPUs below tree node i take a gang member (utilization
 * at most lim, room for m), added to *n, until *n reaches g; *succ
 * lowered to at most the lowest utilization above lim among the passing
 * GPUs passed (of any memory), and *mfree cleared where a passing GPU of
 * utilization at most lim has no room for m.  A subtree all of whose
 * GPUs take the gang, or none, is read off the tree. */
static void tree_count(const struct gandiva *s, const struct gd_tree *tr,
                       uint32_t tfirst, uint32_t i, uint32_t g, double m,
                       double gb, double lim, uint32_t *n, double *succ,
                       bool *mfree)
{
    if (!tr->cnt[i] || *n >= g)
        return;
    if (tr->us[i] > lim) {
        *succ = pol_dmin(*succ, tr->us[i]);
        return;
    }
    if (!mem_fits(tr->mem[i], m, gb)) {
        *mfree = false;
        return;
    }
    if (tr->umax[i] <= lim && mem_fits(tr->mmax[i], m, gb)) {
        *n += tr->cnt[i];
        return;
    }
    if (i < tr->leaves) {
        tree_count(s, tr, tfirst, 2 * i, g, m, gb, lim, n, succ, mfree);
        tree_count(s, tr, tfirst, 2 * i + 1, g, m, gb, lim, n, succ, mfree);
        return;
    }
    const struct gd_ncache *e = &s->nc[s->tnodes[tfirst + i - tr->leaves]];
    for (uint32_t q = 0; q < e->n; q++) {
        if (e->us[q] > lim) {   /* by utilization: the rest too */
            *succ = pol_dmin(*succ, e->us[q]);
            return;
        }
        if (mem_fits(e->mem[q], m, gb))
            (*n)++;
        else
            *mfree = false;
    }
}

/* pack_on for one GPU: the lowest summed utilization among the passing
 * GPUs of type t with room for m (then the first in node order, then the
 * lowest index) decides, through the tree.  *mfree: that is the lowest of
 * all passing GPUs (the root's), so the bound holds for any memory. */
static bool pack_one(struct gandiva *s, uint32_t t, double m, double gb,
                     double lim, double *bound, bool *mfree)
{
    double best = s->trees[t].us[1];    /* the lowest, memory aside */
    uint32_t gpu = SIM_NONE;
    /* none takes u: fails for any memory, without the walk (where memory
     * binds, a walk of many nodes) */
    if (best <= lim)
        tree_min(s, &s->trees[t], s->tfirst[t], m, gb, &best, &gpu);
    if (gpu != SIM_NONE && best <= lim) {
        s->gpus[0] = gpu;
        return true;
    }
    *bound = s->util_cap + 1e-9 - best;
    *mfree = best <= s->trees[t].us[1];
    s->low1 = best;
    s->lows = &s->low1;
    s->nlows = best != HUGE_VAL;       /* a GPU passes: the lowest */
    return false;
}

/* s->gpus[0..g) in ascending order (a radix sort: a gang spread over
 * nodes has hundreds). */
static void sort_gpus(struct gandiva *s, uint32_t g)
{
    xgrow(&s->gtmp, &s->capgtmp, g, sizeof *s->gtmp);
    dl_sort_u32(s->gpus, g, s->gtmp);
}

/* Node a before b for a gang spread over nodes. */
static int cmp_spread(const void *pa, const void *pb)
{
    const struct gd_rank *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    if (a->usum != b->usum)
        return a->usum < b->usum ? -1 : 1;
    return (a->node > b->node) - (a->node < b->node);
}

static inline bool rank_before(const struct gd_rank *a, const struct gd_rank *b)
{
    return cmp_spread(a, b) < 0;
}

static inline void rank_swap(struct gd_rank *a, struct gd_rank *b)
{
    struct gd_rank t = *a;
    *a = *b;
    *b = t;
}

/* Puts the m first of r[0..n) by cmp_spread (m <= n) in r[0..m), in
 * order: a selection, then a sort of those m only. */
static void rank_first(struct gd_rank *r, size_t n, size_t m)
{
    size_t lo = 0, hi = n;
    while (m < n && hi - lo > 1) {
        rank_swap(&r[lo + (hi - lo) / 2], &r[hi - 1]);
        size_t st = lo;         /* [lo, st) before the pivot */
        for (size_t i = lo; i + 1 < hi; i++)
            if (rank_before(&r[i], &r[hi - 1]))
                rank_swap(&r[i], &r[st++]);
        rank_swap(&r[st], &r[hi - 1]);
        if (st == m || st + 1 == m)
            break;
        if (m < st)
            hi = st;
        else
            lo = st + 1;
    }
    qsort(r, m, sizeof *r, cmp_spread);
}

/* The GPUs of a gang spread over the nodes s->nodes[0..nn) (which hold
 * at least g that take it) into s->gpus, as a walk of the nodes by most
 * such GPUs, then lowest sum, then index, taking each one's first until g
 * would: as the GPUs are sorted after, only which count, so the nodes of
 * the counts the walk passes whole are taken as they are, and only those
 * of the count where it stops are sorted.  Returns g. */
static uint32_t spread(struct gandiva *s, size_t nn, uint32_t g)
{
    uint32_t cnt[65] = { 0 }, k = 0, last = 0;
    uint64_t have = 0;
    for (size_t i = 0; i < nn; i++)
        cnt[s->nodes[i].n]++;
    for (last = 64; last > 0; last--) {
        have += (uint64_t)last * cnt[last];
        if (have >= g)
            break;
    }
    size_t nr = 0;
    xgrow(&s->rank, &s->caprank, nn ? nn : 1, sizeof *s->rank);
    for (size_t i = 0; i < nn; i++) {
        const struct gd_node *e = &s->nodes[i];
        if (e->n > last) {
            memcpy(s->gpus + k, e->gpu, e->n * sizeof *e->gpu);
            k += e->n;
        } else if (e->n == last) {
            s->rank[nr++] = (struct gd_rank){ e->usum, e->n, e->node, (uint32_t)i };
        }
    }
    /* the nodes of count last that the walk reaches */
    size_t need = k < g && last ? (g - k + last - 1) / last : 0;
    rank_first(s->rank, nr, need < nr ? need : nr);
    for (size_t i = 0; i < nr && k < g; i++) {
        const struct gd_node *e = &s->nodes[s->rank[i].at];
        for (uint32_t q = 0; q < e->n && k < g; q++)
            s->gpus[k++] = e->gpu[q];
    }
    return k;
}

/* The k-th lowest of a[0..n) (k < n; a is reordered): Hoare's selection,
 * O(n) expected where a sort was O(n log n). */
static double kth_lowest(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double p = a[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < p)
                i++;
            while (a[j] > p)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i++] = a[j];
                a[j] = t;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

/* GPUs of type t for a gang of g of utilization u and memory m under the
 * packing rules, sorted, into s->gpus.  True when found; else *bound is
 * the utilization above which such a gang (with at least memory m) cannot
 * be packed on t now (-inf: none can): the GPUs that pass the count and
 * memory rules, by summed utilization, must include g at most
 * util_cap - u.  *mfree: the memory rule turned no GPU away (then the
 * bound holds for any memory). */
static bool pack_on(struct gandiva *s, const struct pol_view *v, uint32_t g,
                    double u, double m, uint32_t t, double *bound, bool *mfree)
{
    const struct cluster *c = v->clu;
    uint32_t big = 0;
    double lim = s->util_cap + 1e-9 - u, kth = HUGE_VAL;
    *bound = -HUGE_VAL;
    s->nlows = GD_NONE;
    s->npass = GD_NONE;
    if (c->types[t].total_gpus < g)
        return false;
    xgrow(&s->gpus, &s->capgpus, g, sizeof *s->gpus);
    if (s->ndirt)
        nodes_fresh(s, v);
    double gb = c->types[t].memory_gb;
    if (g == 1)
        return pack_one(s, t, m, gb, lim, bound, mfree);
    big = s->tbig[t];
    bool single = s->mode == PLC_CONSOLIDATED && g <= big;
    if (single) {
        /* no node has g passing GPUs of utilization at most lim, memory
         * aside: then not with it either, and the bound holds for any
         * memory (a hair above the difference, against rounding) */
        struct gd_tree *tr = &s->trees[t];
        tree_row(s, tr, t, g);
        double low = krow(tr, g)[1].kth;    /* the root's */
        if (low > lim) {
            *bound = s->util_cap + 1e-9 - low + 1e-12;
            return false;
        }
    }
    if (s->tpass[t] < g) {
        /* fewer passing GPUs than the gang, memory aside: the pass below
         * would find none to take it and no g-th lowest (so no bound);
         * the failure holds for any memory, while the passing GPUs are
         * too few (their count goes with it: widen) */
        s->npass = s->tpass[t];
        return false;
    }
    if (g <= big) {
        /* the node pack_on's pass below would pick, through the tree;
         * none: that pass, for the spread and the bound */
        double bs = HUGE_VAL;
        uint32_t bn = SIM_NONE;
        tree_row(s, &s->trees[t], t, g);
        tree_gang(s, &s->trees[t], s->tfirst[t], 1, g, m, gb, lim, &bs, &bn);
        if (bn != SIM_NONE) {
            const struct gd_ncache *e = &s->nc[bn];
            uint32_t k = 0;
            for (uint32_t q = 0; q < e->n && k < g; q++)
                if (mem_fits(e->mem[q], m, gb))
                    s->gpus[k++] = e->gpu[q];
            sort_gpus(s, g);
            return true;
        }
    }
    if (!single && g > GD_NLOW) {
        /* fewer than g GPUs take the gang: it fails, and so does any of
         * utilization above what the lowest of the others leaves (a bound
         * below the g-th lowest's, which the pass below finds at the cost
         * of reading every GPU; the lowest GPUs unknown) */
        uint32_t n = 0;
        double succ = HUGE_VAL;
        bool mf = true;
        struct gd_tree *tr = &s->trees[t];
        tree_counts(s, tr, t);
        tree_count(s, tr, s->tfirst[t], 1, g, m, gb, lim, &n, &succ, &mf);
        if (n < g) {
            *mfree = mf;
            *bound = s->util_cap + 1e-9 - succ + 1e-12;
            return false;
        }
    }
    size_t nn = 0, nall = 0, ntake = 0;
    uint32_t best = SIM_NONE;   /* single node holding the whole gang */
    /* the nodes with a GPU that passes the rules and has room for m, in
     * node order (the others offer nothing) */
    uint32_t ncand = 0, nt = s->tfirst[t + 1] - s->tfirst[t];
    xgrow(&s->cand, &s->capcand, nt ? nt : 1, sizeof *s->cand);
    xgrow(&s->nodes, &s->capnodes, nt ? nt : 1, sizeof *s->nodes);
    xgrow(&s->all, &s->capall, c->types[t].total_gpus, sizeof *s->all);
    tree_nodes(s, &s->trees[t], s->tfirst[t], nt, m, gb, &ncand, mfree);
    for (uint32_t k = 0; k < ncand; k++) {
        uint32_t nd = s->cand[k];
        struct gd_node *e = &s->nodes[nn];
        e->node = nd;
        e->n = 0;
        uint32_t ne = 0;        /* GPUs passing count and memory */
        const struct gd_ncache *nc = &s->nc[nd];
        for (uint32_t i = 0; i < nc->n; i++) {
            if (!mem_fits(nc->mem[i], m, gb)) {
                *mfree = false;
                continue;
            }
            s->all[nall++] = nc->us[i];
            e->us[ne] = nc->us[i];
            e->gpu[ne++] = nc->gpu[i];
        }
        if (ne >= g && e->us[g - 1] < kth)
            kth = e->us[g - 1];
        while (e->n < ne && e->us[e->n] <= lim)   /* those that take u */
            e->n++;
        if (!e->n)
            continue;
        ntake += e->n;
        e->usum = 0;
        for (uint32_t i = 0; i < e->n && i < g; i++)
            e->usum += e->us[i];
        if (e->n >= g && (best == SIM_NONE || e->usum < s->nodes[best].usum))
            best = (uint32_t)nn;
        nn++;
    }
    if (best != SIM_NONE) {
        memcpy(s->gpus, s->nodes[best].gpu, g * sizeof *s->gpus);
    } else {
        uint32_t k = 0;
        if (!single && ntake >= g)     /* else too few: no order needed */
            k = spread(s, nn, g);
        if (k < g) {
            if (!single) {      /* the g-th lowest over all nodes */
                kth = HUGE_VAL;
                if (nall >= g)
                    kth = kth_lowest(s->all, nall, g - 1);
                s->lows = s->all;       /* its g lowest first */
                s->nlows = nall < g ? (uint32_t)nall : g;
            }
            *bound = s->util_cap + 1e-9 - kth;
            return false;
        }
    }
    sort_gpus(s, g);
    return true;
}

/* Packing for shape sh with utilization u and memory m, over the types it
 * may use (fastest first): true with s->gpus, else *bound over them all,
 * for jobs of at least memory *mem: m, or -inf where the memory rule
 * turned no GPU away. */
static bool pack_shape(struct gandiva *s, const struct pol_view *v,
                       const struct gd_shape *sh, double u, double m,
                       double *bound, double *mem)
{
    const struct cluster *c = v->clu;
    double b;
    bool mfree = true;
    *bound = -HUGE_VAL;
    *mem = -HUGE_VAL;
    for (uint32_t i = 0; i < c->ntypes; i++) {
        uint32_t t = sh->req_type != SIM_NONE ? sh->req_type : c->type_order[i];
        bool mf = true;
        if (pack_on(s, v, sh->ngpus, u, m, t, &b, &mf))
            return true;
        if (b > *bound)
            *bound = b;
        mfree &= mf;
        if (sh->req_type != SIM_NONE)
            break;
    }
    if (sh->req_type == SIM_NONE && c->ntypes > 1) {
        s->nlows = GD_NONE;     /* the lowest GPUs of one type of several */
        s->npass = GD_NONE;     /* likewise their count */
    }
    if (!mfree)
        *mem = m;
    return false;
}

/* ------------------------------------------------------- time-slicing */

/* What the GPUs of running job c offer as a time slice (gpu_takes on each
 * with c gone): its cached record, computed again after they changed. */
static const struct gd_acc *acc_of(struct gandiva *s, const struct pol_view *v,
                                   uint32_t c)
{
    struct gd_acc *a = &s->jb[c].acc;
    if (a->valid)
        return a;
    const struct job_rt *r = pol_rt(v, c);
    uint32_t cap = s->max_per_gpu < v->max_share ? s->max_per_gpu : v->max_share;
    a->valid = 1;
    a->kind = GD_ACC_EMPTY;
    a->prof = s->jb[c].profiling;
    a->gb = v->clu->types[r->type].memory_gb;
    a->us = a->mem = -HUGE_VAL;
    for (uint32_t i = 0; i < v->jobs[c].num_gpus; i++) {
        uint32_t g = r->gpus[i], others = v->nocc[g] - 1;
        if (!others)
            continue;
        if (others + 1 > cap) {
            a->kind = GD_ACC_NONE;
            return a;
        }
        bool busy = false;
        double us = gpu_util(s, v, g, c, &busy);
        if (busy) {
            a->kind = GD_ACC_NONE;
            return a;
        }
        double mem = v->mem_used[g] - job_mem(v, c);
        a->kind = GD_ACC_SHARED;
        if (us > a->us)
            a->us = us;
        if (mem > a->mem)
            a->mem = mem;
    }
    return a;
}

/* Whether a job of utilization u and memory m (alone: it must have them to
 * itself) may take the GPUs of running job c: gpu_takes on each, through
 * the cached record (a sum rises with its larger term, so the largest
 * utilization and memory decide).  When not, for a job not alone: where
 * the memory rule turned it away (then so it does any job of more memory),
 * *mfree is cleared; where only the utilization did, *bound is raised to
 * at least the utilization above which every job is turned away (a hair
 * above the difference, so that no rounding of the sum lets one in). */
static bool slice_takes(struct gandiva *s, const struct pol_view *v, uint32_t c,
                        double u, double m, bool alone, double *bound,
                        bool *mfree)
{
    /* one record of c's (acc_of) answers the most of these */
    if (!pol_may_preempt(v, c, s->cost))
        return false;
    const struct gd_acc *a = acc_of(s, v, c);
    if (a->prof)
        return false;
    if (a->kind != GD_ACC_SHARED)
        return a->kind == GD_ACC_EMPTY;
    if (alone)
        return false;
    double gb = a->gb;
    if (!(m <= 0 || gb <= 0 || a->mem + m <= gb + 1e-9)) {
        *mfree = false;
        return false;
    }
    if (a->us + u <= s->util_cap + 1e-9)
        return true;
    double b = s->util_cap + 1e-9 - a->us + 1e-12;
    if (b > *bound)
        *bound = b;
    return false;
}

/* The key of a running job whose slice is over, in its heap's tree: what
 * a job must leave room for to take its GPUs (the largest summed
 * utilization left on one); -inf where they are free (they take any job),
 * +inf where they take none (slice_takes on the record). */
static double slice_key(const struct gd_acc *a)
{
    if (a->prof || a->kind == GD_ACC_NONE)
        return HUGE_VAL;
    return a->kind == GD_ACC_EMPTY ? -HUGE_VAL : a->us;
}

static inline double dmin(double a, double b)
{
    return a < b ? a : b;
}

/* Sets leaf i of h's tree to k. */
static void kt_set(struct gd_heap *h, size_t i, double k)
{
    size_t p = h->ktp + i;
    h->kt[p] = k;
    for (p /= 2; p; p /= 2) {
        double m = dmin(h->kt[2 * p], h->kt[2 * p + 1]);
        if (h->kt[p] == m)
            break;              /* and so above it */
        h->kt[p] = m;
    }
}

/* Sizes h's tree for n entries (at least) and computes its inner nodes
 * from the leaves of the first nex, the rest +inf. */
static void kt_build(struct gd_heap *h, size_t n)
{
    size_t p = 16;
    while (p < n)
        p *= 2;
    if (p != h->ktp) {
        double *kt = xmalloc(2 * p * sizeof *kt);
        for (size_t i = 0; i < h->nex; i++)
            kt[p + i] = h->kt[h->ktp + i];
        free(h->kt);
        h->kt = kt;
        h->ktp = p;
    }
    for (size_t i = h->nex; i < p; i++)
        h->kt[p + i] = HUGE_VAL;
    for (size_t q = p - 1; q; q--)
        h->kt[q] = dmin(h->kt[2 * q], h->kt[2 * q + 1]);
}

static struct gd_heap *heap_of(struct gandiva *s, const struct pol_view *v,
                               uint32_t j)
{
    return &s->heaps[(size_t)s->jb[j].size * s->ntypes + pol_rt(v, j)->type];
}

/* The first place in h->ex[0..n) whose entry does not come before it. */
static size_t ex_lower(const struct gd_heap *h, size_t n, const struct gd_slice *it)
{
    size_t l = 0;
    while (l < n) {
        size_t mid = l + (n - l) / 2;
        if (sl_before(&h->ex[mid], it))
            l = mid + 1;
        else
            n = mid;
    }
    return l;
}

/* Expired job j's key is not known (-inf) until rekey or a search reads
 * it again. */
static void ex_rekey(struct gandiva *s, const struct pol_view *v, uint32_t j)
{
    kt_set(heap_of(s, v, j), s->jb[j].expos, -HUGE_VAL);
    if (!s->jb[j].inrekey) {
        s->jb[j].inrekey = 1;
        xgrow(&s->rekeys, &s->caprekey, s->nrekey + 1, sizeof *s->rekeys);
        s->rekeys[s->nrekey++] = j;
    }
}

/* Job j's record (what its GPUs offer as a slice) is out of date: so is
 * its key where its slice is over. */
static void acc_stale(struct gandiva *s, const struct pol_view *v, uint32_t j)
{
    s->jb[j].acc.valid = 0;
    if (s->jb[j].expos != SIM_NONE)
        ex_rekey(s, v, j);
}

/* Job j stops: its entry in ex (if any) goes stale. */
static void ex_drop(struct gandiva *s, const struct pol_view *v, uint32_t j)
{
    if (s->jb[j].expos == SIM_NONE)
        return;
    struct gd_heap *h = heap_of(s, v, j);
    kt_set(h, s->jb[j].expos, HUGE_VAL);
    h->exlive--;
    s->jb[j].expos = SIM_NONE;
}

/* Drops h's stale entries from ex once they are the most (each sweep
 * follows as many stops as it costs). */
static void ex_sweep(struct gandiva *s, struct gd_heap *h)
{
    if (h->nex < 64 || h->nex <= 2 * (size_t)h->exlive)
        return;
    size_t w = 0;
    for (size_t i = 0; i < h->nex; i++) {
        uint32_t j = h->ex[i].job;
        if (s->jb[j].expos != i || s->jb[j].ver != h->ex[i].ver)
            continue;
        h->ex[w] = h->ex[i];
        h->kt[h->ktp + w] = h->kt[h->ktp + i];
        s->jb[j].expos = (uint32_t)w++;
    }
    DL_ASSERT(w == h->exlive);
    h->nex = w;
    kt_build(h, w + 1);
}

/* Moves the entries of h whose slice is over by now into h->ex, in order;
 * their keys not known yet. */
static void expire(struct gandiva *s, const struct pol_view *v, struct gd_heap *h)
{
    if (v->now < h->nx)
        return;
    for (;;) {
        const struct gd_slice *top = sq_top(s, v, h);
        if (!top || top->start + s->quantum > v->now) {
            h->nx = top ? top->start + s->quantum : SIM_NEVER;
            return;
        }
        struct gd_slice it = sq_pop(h, top);
        xgrow(&h->ex, &h->capex, h->nex + 1, sizeof *h->ex);
        if (h->nex + 1 > h->ktp)
            kt_build(h, h->nex + 1);
        size_t lo = h->nex;     /* usually the last: else its place */
        h->nex++;
        h->exlive++;
        if (lo && sl_before(&it, &h->ex[lo - 1])) {
            size_t l = ex_lower(h, lo, &it);
            memmove(h->ex + l + 1, h->ex + l, (lo - l) * sizeof *h->ex);
            memmove(h->kt + h->ktp + l + 1, h->kt + h->ktp + l,
                    (lo - l) * sizeof *h->kt);
            for (size_t i = l + 1; i <= lo; i++)        /* the live ones */
                if (sl_live(s, v, &h->ex[i]))
                    s->jb[h->ex[i].job].expos = (uint32_t)i;
            h->ex[l] = it;
            h->kt[h->ktp + l] = -HUGE_VAL;
            s->jb[it.job].expos = (uint32_t)l;
            kt_build(h, h->nex);
        } else {
            h->ex[lo] = it;
            s->jb[it.job].expos = (uint32_t)lo;
        }
        ex_rekey(s, v, it.job);         /* its record holds: its key, read */
    }
}

/* What a search of ex passes over unread: keys that fail its job. */
struct gd_pass {
    double u, cap;
    bool alone;
    double least;               /* the least key passed over */
};

static inline bool key_may(double k, const struct gd_pass *p)
{
    return p->alone ? k == -HUGE_VAL : k + p->u <= p->cap + 1e-9;
}

/* The first leaf of h's tree at or after from and before cut whose key
 * does not turn p's job away; SIZE_MAX if none.  The keys passed over
 * (and maybe some at or after cut) go into p->least. */
static size_t kt_first(const struct gd_heap *h, size_t from, size_t cut,
                       struct gd_pass *p)
{
    if (from >= cut)
        return SIZE_MAX;
    size_t i = from ? h->ktp + from : 1;        /* from 0: the root */
    for (;;) {
        if (key_may(h->kt[i], p)) {
            while (i < h->ktp) {        /* down to its first such leaf */
                i *= 2;
                if (!key_may(h->kt[i], p)) {
                    p->least = dmin(p->least, h->kt[i]);
                    i++;
                }
            }
            return i - h->ktp < cut ? i - h->ktp : SIZE_MAX;
        }
        p->least = dmin(p->least, h->kt[i]);
        while (i & 1)           /* up to the next subtree on the right */
            i /= 2;
        if (!i)
            return SIZE_MAX;
        i++;
    }
}

/* The running job of shape sh's size, on a type it may use, whose slice is
 * over and whose GPUs a job of utilization u and memory m may take: the
 * one that started first, then the lowest index; SIM_NONE if none.  *any:
 * whether any job's slice is over.  None (and not alone): every job of
 * utilization above *bound and memory at least *mem is turned away too
 * (*mem -inf: of any memory; slice_takes).  The tree passes over the jobs
 * whose keys turn this one away (their least key bounds them all); the
 * others are read one by one.  Changes no decision: it moves the slices
 * that ran out into ex (expire, which lists them for rekey) and fills
 * caches. */
static uint32_t slice_find(struct gandiva *s, const struct pol_view *v,
                           const struct gd_shape *sh, double u, double m,
                           bool alone, bool *any, double *bound, double *mem)
{
    const struct cluster *c = v->clu;
    uint32_t g = sh->ngpus, req = sh->req_type;
    uint32_t si = sh->si != SIM_NONE ? sh->si : size_of(s, g, false);
    bool mfree = true;
    *any = false;
    *bound = *mem = -HUGE_VAL;
    if (si == SIM_NONE)
        return SIM_NONE;
    struct gd_slice best = { 0, SIM_NONE, 0 };
    struct gd_pass p = { u, s->util_cap, alone, HUGE_VAL };
    for (uint32_t t = 0; t < c->ntypes; t++) {
        if (req != SIM_NONE && t != req)
            continue;
        struct gd_heap *h = &s->heaps[(size_t)si * s->ntypes + t];
        expire(s, v, h);
        ex_sweep(s, h);
        *any |= h->exlive > 0;
        /* only those before another type's */
        size_t cut = best.job != SIM_NONE ? ex_lower(h, h->nex, &best) : h->nex;
        for (size_t i = 0; (i = kt_first(h, i, cut, &p)) < cut; i++) {
            const struct gd_slice *it = &h->ex[i];
            DL_ASSERT(sl_live(s, v, it) && s->jb[it->job].expos == i);
            if (slice_takes(s, v, it->job, u, m, alone, bound, &mfree)) {
                best = *it;
                break;
            }
            kt_set(h, i, slice_key(acc_of(s, v, it->job)));
        }
    }
    if (!alone && p.least < HUGE_VAL) {
        double b = s->util_cap + 1e-9 - p.least + 1e-12;
        if (b > *bound)
            *bound = b;
    }
    if (!mfree)
        *mem = m;
    return best.job;
}

/* Inserts x into the ascending a[0..*n), keeping the lowest cap. */
static void low_push(double *a, uint32_t *n, uint32_t cap, double x)
{
    uint32_t p;
    if (*n < cap)
        p = (*n)++;
    else if (x < a[cap - 1])
        p = cap - 1;
    else
        return;
    while (p > 0 && a[p - 1] > x) {
        a[p] = a[p - 1];
        p--;
    }
    a[p] = x;
}

/* The g-th lowest summed utilization among node cache e's GPUs with room
 * for m (+inf: fewer). */
static double node_kth(const struct gd_ncache *e, uint32_t g, double m, double gb)
{
    for (uint32_t q = 0, k = 0; q < e->n; q++)
        if (mem_fits(e->mem[q], m, gb) && ++k == g)
            return e->us[q];
    return HUGE_VAL;
}

/* widen's reading of failure i of shape sh by GPU (s->left); but_one:
 * not those of types where the gang must fit one node (read by node). */
static inline void widen_gpus(const struct gandiva *s, struct gd_shape *sh, uint32_t i,
                              bool but_one)
{
    const struct gd_left *d = s->left;
    size_t n = s->nleft;
    uint32_t g = sh->ngpus, rt = sh->req_type;
    double cap = s->util_cap, fm = sh->fm[i];
    for (size_t q = 0; q < n; q++) {
        double us = d[q].us;
        if (!((rt == SIM_NONE || rt == d[q].type) && d[q].takes &&
              mem_fits(d[q].mem, fm, d[q].gb) && cap + 1e-9 - us + 1e-12 > sh->fu[i]))
            continue;
        if (but_one && g <= s->tbig[d[q].type])
            continue;
        if (sh->nlow[i] == GD_NONE) {
            sh->fu[i] = cap + 1e-9 - us + 1e-12;
            continue;
        }
        /* each GPU of the run: once one is not among the g lowest,
         * neither is the next, alike */
        double *r = sh->low + (size_t)i * g;
        for (uint32_t k = 0; k < d[q].cnt && k < g; k++) {
            if (k && !(cap + 1e-9 - us + 1e-12 > sh->fu[i]))
                break;
            if (sh->nlow[i] == g && !(us < r[g - 1]))
                break;
            low_push(r, &sh->nlow[i], g, us);
            double b = sh->nlow[i] < g ? -HUGE_VAL : cap + 1e-9 - r[g - 1] + 1e-12;
            if (b > sh->fu[i])
                sh->fu[i] = b;
        }
    }
}

/* widen's reading of failure i of gang shape sh by node (s->lnode), on
 * the types where it must fit one node; whether there were others. */
static bool widen_nodes(struct gandiva *s, const struct pol_view *v,
                        struct gd_shape *sh, uint32_t i)
{
    const struct cluster *c = v->clu;
    uint32_t g = sh->ngpus;
    bool others = false;
    for (size_t k = 0; k < s->nlnode; k++) {
        uint32_t nd = s->lnode[k], t = c->nodes[nd].type;
        if (sh->req_type != SIM_NONE && sh->req_type != t)
            continue;
        if (g > s->tbig[t]) {
            others = true;
            continue;
        }
        if (s->ndirty[nd])      /* later than the log: higher, if anything */
            nodes_fresh(s, v);
        double b = s->util_cap + 1e-9 -
                   node_kth(&s->nc[nd], g, sh->fm[i], c->types[t].memory_gb) + 1e-12;
        if (b > sh->fu[i])
            sh->fu[i] = b;
    }
    return others;
}

/* Shape sh's packing failures after only the GPUs digested into s->left
 * (on nodes s->lnode) changed occupants: each widens by what those GPUs
 * take now.  A gang's bound is the g-th lowest summed utilization on a
 * node (or over them all): with only these GPUs changed, it is now at
 * least the lower of the old one and theirs, and where the lowest GPUs of
 * the failure are known, at least the g-th lowest of those and theirs
 * (the others can only have risen).  A gang that must fit one node
 * (placement=consolidated) reads the nodes of those GPUs instead: the
 * lower of the old bound and each such node's g-th lowest now (the other
 * nodes' can only have risen).  Where the type had too few passing GPUs,
 * nothing widens while those that changed and pass now could not make up
 * the gang.  A hair above the difference, against rounding. */
static void widen(struct gandiva *s, const struct pol_view *v, struct gd_shape *sh)
{
    uint32_t g = sh->ngpus;
    for (uint32_t i = 0; i < sh->nfail; i++) {
        if (sh->npass[i] != GD_NONE) {  /* too few passed: count them */
            uint64_t c = sh->npass[i] +
                         s->ltakes[sh->req_type == SIM_NONE ? s->ntypes : sh->req_type];
            if (c < g) {
                sh->npass[i] = c;
                continue;
            }
            sh->npass[i] = GD_NONE;
        }
        bool by_node = s->lby && g > 1 && sh->nlow[i] == GD_NONE;
        if (by_node && !widen_nodes(s, v, sh, i))
            continue;
        widen_gpus(s, sh, i, by_node);
    }
#ifndef NDEBUG
    /* each failure still holds: the job it admits least fails */
    for (uint32_t i = 0; i < sh->nfail; i++) {
        double b, fm, u = sh->fu[i] == -HUGE_VAL ? -1e300 : sh->fu[i] + 1e-11;
        DL_ASSERT(!pack_shape(s, v, sh, u, sh->fm[i] > 0 ? sh->fm[i] : 0, &b, &fm));
    }
#endif
}

/* GPUs gpus[0..n) as they are now, into s->left[0..s->nleft) (what widen
 * reads of them: gpu_takes's rules but memory, for a job of no
 * utilization), GPUs in a row that read alike as one entry (a gang's
 * GPUs left free, or to one co-runner, do); by_node, under
 * placement=consolidated, their nodes too, into s->lnode[0..s->nlnode),
 * each once, whose caches widen reads (a slice leaves the counts on its
 * GPUs as they were, and is widened by GPU: reading its nodes cost more
 * than the probes it saved). */
static void digest(struct gandiva *s, const struct pol_view *v,
                   const uint32_t *gpus, size_t n, bool by_node)
{
    const struct cluster *c = v->clu;
    xgrow(&s->left, &s->capleft, n ? n : 1, sizeof *s->left);
    size_t k = 0;
    for (size_t q = 0; q < n; q++) {
        uint32_t x = gpus[q];
        const struct clu_node *no = &c->nodes[c->gpu_node[x]];
        struct gd_left d;
        d.type = no->type;
        d.free = no->free_mask >> (x - no->first_gpu) & 1;
        d.gb = c->types[no->type].memory_gb;
        d.takes = gpu_takes(s, v, x, 0, -HUGE_VAL, SIM_NONE, false, &d.us);
        d.mem = v->nocc[x] ? v->mem_used[x] : -HUGE_VAL;
        d.cnt = 1;
        struct gd_left *p = k ? &s->left[k - 1] : NULL;
        if (p && p->type == d.type && p->free == d.free && p->takes == d.takes &&
            p->us == d.us && p->mem == d.mem)
            p->cnt++;
        else
            s->left[k++] = d;
    }
    s->nleft = k;
    memset(s->lfree, 0, (s->ntypes + 1) * sizeof *s->lfree);
    memset(s->ltakes, 0, (s->ntypes + 1) * sizeof *s->ltakes);
    for (size_t q = 0; q < k; q++) {
        const struct gd_left *d = &s->left[q];
        s->lfree[d->type] |= d->free;
        s->lfree[s->ntypes] |= d->free;
        if (d->takes) {
            s->ltakes[d->type] += d->cnt;
            s->ltakes[s->ntypes] += d->cnt;
        }
    }
    s->nlnode = 0;
    s->lby = by_node && s->mode == PLC_CONSOLIDATED;
    if (!s->lby)
        return;
    if (!++s->lgen) {           /* wrapped: no node seen */
        memset(s->lseen, 0, c->nnodes * sizeof *s->lseen);
        s->lgen = 1;
    }
    for (size_t q = 0; q < n; q++) {
        uint32_t nd = c->gpu_node[gpus[q]];
        if (s->lseen[nd] == s->lgen)
            continue;
        s->lseen[nd] = s->lgen;
        xgrow(&s->lnode, &s->caplnode, s->nlnode + 1, sizeof *s->lnode);
        s->lnode[s->nlnode++] = nd;
    }
}

/* After a slice passed GPUs gpus[0..g) to another job (free GPUs are as
 * before: the job took all of the victim's). */
static void slice_passed(struct gandiva *s, const struct pol_view *v,
                         const uint32_t *gpus, uint32_t g)
{
    digest(s, v, gpus, g, false);      /* a slice: by GPU, cheaper */
    for (size_t k = 0; k < s->nact; k++)        /* the others hold none */
        widen(s, v, &s->shapes[s->act[k]]);
}

/* What GPU g offers a job: its occupants, their summed utilization and
 * memory, and whether one of them is being profiled. */
static struct gd_offer offer_of(const struct gandiva *s, const struct pol_view *v,
                                uint32_t g)
{
    struct gd_offer o = { v->nocc[g], false, s->usum[g], v->mem_used[g] };
    if (s->nprof) {
        uint32_t n;
        const uint32_t *occ = pol_gpu_jobs(v, g, &n);
        for (uint32_t k = 0; k < n; k++)
            o.busy |= s->jb[occ[k]].profiling;
    }
    return o;
}

/* Whether a GPU that offered a and now offers b takes some job it did not
 * take before (under any of gpu_takes's rules, whoever leaves it): fewer
 * occupants, less utilization or memory, or a profiling run over. */
static bool offer_better(const struct gd_offer *a, const struct gd_offer *b)
{
    return b->nocc < a->nocc || b->usum < a->usum || b->mem < a->mem ||
           (a->busy && !b->busy);
}

/* Job j takes victim's GPUs: 1 where one of them offers more than before
 * (the failures widened), 0 where none does, <0 on an error. */
static int slice_take(struct gandiva *s, const struct pol_view *v,
                      struct pol_ctx *x, uint32_t j, uint32_t victim)
{
    uint32_t g = v->jobs[j].num_gpus;
    bool shared = false;
    xgrow(&s->gpus, &s->capgpus, g, sizeof *s->gpus);
    xgrow(&s->offers, &s->capoffers, g, sizeof *s->offers);
    memcpy(s->gpus, pol_rt(v, victim)->gpus, g * sizeof *s->gpus);
    for (uint32_t i = 0; i < g; i++) {
        shared |= v->nocc[s->gpus[i]] > 1;
        s->offers[i] = offer_of(s, v, s->gpus[i]);
    }
    int rc = pol_preempt(x, victim, s->cost);
    if (rc)
        return rc;
    enqueue_at(s, v, victim, s->front);
    rc = shared ? pol_colocate(x, j, s->gpus) : pol_start(x, j, s->gpus);
    if (rc)
        return rc;
    started(s, v, x, j);
    /* Where no GPU offers more than before (j needs at least what the
     * victim did), every remembered failure still holds. */
    bool better = false;
    for (uint32_t i = 0; i < g && !better; i++) {
        struct gd_offer now = offer_of(s, v, s->gpus[i]);
        better = offer_better(&s->offers[i], &now);
    }
    if (!better)
        return 0;
    /* (j may use less than the victim did on GPUs that other expired jobs
     * share: their keys changed, and rekey widens the slicing failures) */
    slice_passed(s, v, s->gpus, g);
    return 1;
}

/* ------------------------------------------------------- admission */

/* Whether (u, m) is above a remembered failure (strictly in u when
 * strict). */
static bool failed_at(const double *fu, const double *fm, uint32_t n, double u,
                      double m, bool strict)
{
    for (uint32_t i = 0; i < n; i++)
        if ((strict ? u > fu[i] : u >= fu[i]) && m >= fm[i])
            return true;
    return false;
}

/* The lowest GPUs of packing failure i of shape sh move to place k. */
static void low_move(struct gd_shape *sh, uint32_t k, uint32_t i)
{
    if (k == i)
        return;
    sh->nlow[k] = sh->nlow[i];
    sh->npass[k] = sh->npass[i];
    if (sh->nlow[i] != GD_NONE)
        memcpy(sh->low + (size_t)k * sh->ngpus, sh->low + (size_t)i * sh->ngpus,
               sh->nlow[i] * sizeof *sh->low);
}

/* Remembers a failure at (u, m) in fu, fm (sh: those of shape sh's
 * packing, with their lowest GPUs): drops the ones it covers, and when
 * full the one of highest u.  Returns its place. */
static uint32_t fail_at(double *fu, double *fm, uint32_t *n, double u, double m,
                        struct gd_shape *sh)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < *n; i++)
        if (!(u <= fu[i] && m <= fm[i])) {
            if (sh)
                low_move(sh, k, i);
            fu[k] = fu[i];
            fm[k++] = fm[i];
        }
    if (k == GD_NFAIL) {
        uint32_t w = 0;
        for (uint32_t i = 1; i < k; i++)
            if (fu[i] > fu[w])
                w = i;
        if (sh)
            low_move(sh, w, k - 1);
        fu[w] = fu[--k];
        fm[w] = fm[k];
    }
    fu[k] = u;
    fm[k] = m;
    *n = k + 1;
    return k;
}

/* Remembers a packing failure of shape sh at (u, m), with the lowest GPUs
 * the failed pack_shape saw where it knows them, or the count of passing
 * GPUs where they were too few. */
static void pack_fail(struct gandiva *s, struct gd_shape *sh, double u, double m)
{
    uint32_t g = sh->ngpus, k = fail_at(sh->fu, sh->fm, &sh->nfail, u, m, sh);
    sh->nlow[k] = GD_NONE;
    sh->npass[k] = s->npass;
    if (g > GD_NLOW || s->nlows == GD_NONE)
        return;
    if (!sh->low)
        sh->low = xmalloc((size_t)GD_NFAIL * g * sizeof *sh->low);
    double *r = sh->low + (size_t)k * g;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nlows; i++)
        low_push(r, &n, g, s->lows[i]);
    sh->nlow[k] = n;
}

/* The expired jobs whose keys changed (s->rekeys), where a shape of
 * their size that may use their type holds slicing failures: their keys
 * again, and those failures raised above what the new key lets in (a job
 * takes the GPUs of no more than before elsewhere: every other key, and
 * every entry gone, holds them); where it lets some job in, slice_failed
 * no longer holds.  Elsewhere the key is read when a search passes it. */
static void rekey(struct gandiva *s, const struct pol_view *v)
{
    for (size_t i = 0; i < s->nrekey; i++) {
        uint32_t j = s->rekeys[i];
        s->jb[j].inrekey = 0;
        if (s->jb[j].expos == SIM_NONE)
            continue;           /* stopped since: only takes room away */
        uint32_t t = pol_rt(v, j)->type;
        const struct gd_list *l = &s->sshapes[s->jb[j].size];
        bool known = false;
        double b = HUGE_VAL;    /* jobs of more utilization stay out */
        for (size_t q = 0; q < l->n; q++) {
            struct gd_shape *sh = &s->shapes[l->a[q]];
            if ((!sh->slice_failed && !sh->nsfail) ||
                (sh->req_type != SIM_NONE && sh->req_type != t))
                continue;
            if (!known) {       /* the key, once; a wide gang's unread */
                known = true;
                double k = -HUGE_VAL;
                if (v->jobs[j].num_gpus <= GD_REKEY) {
                    k = slice_key(acc_of(s, v, j));
                    kt_set(heap_of(s, v, j), s->jb[j].expos, k);
                }
                if (k == HUGE_VAL)
                    break;      /* lets no job in */
                b = s->util_cap + 1e-9 - k + 1e-12;
            }
            sh->slice_failed = false;
            if (b == HUGE_VAL)
                sh->nsfail = 0;
            for (uint32_t f = 0; f < sh->nsfail; f++)
                if (sh->su[f] < b)
                    sh->su[f] = b;
        }
    }
    s->nrekey = 0;
}

/* Shape sh's remembered failures, brought up to date.  Jobs that left
 * GPUs since: placement may succeed where one of those GPUs is free now
 * (only they gained room), and packing where they take a job (widen). */
static void refresh_all(struct gandiva *s, const struct pol_view *v,
                        struct gd_shape *sh)
{
    if (s->nrekey)
        rekey(s, v);
    if (sh->epoch != s->emptied) {
        sh->epoch = s->emptied;
        if (s->elost || !sh->nwait) {   /* log lost, or of no use now */
            sh->excl_failed = false;
            sh->nfail = 0;
        } else {
            /* s->left: the log's GPUs, digested by schedule() */
            if (s->lfree[sh->req_type == SIM_NONE ? s->ntypes : sh->req_type])
                sh->excl_failed = false;
            widen(s, v, sh);
        }
    }
    if (sh->si == SIM_NONE && sh->sizes_seen != s->nsizes) {
        sh->si = size_of(s, sh->ngpus, false);
        sh->sizes_seen = s->nsizes;
        if (sh->si != SIM_NONE) {
            struct gd_list *l = &s->sshapes[sh->si];
            xgrow(&l->a, &l->cap, l->n + 1, sizeof *l->a);
            l->a[l->n++] = (uint32_t)(sh - s->shapes);
        }
    }
    uint64_t grow = sh->si == SIM_NONE ? 0 : s->sgrow[sh->si];
    if (sh->sseen != grow) {            /* a slice may pass now: retry */
        sh->sseen = grow;
        sh->slice_failed = false;
        sh->nsfail = 0;
    }
}

/* refresh_all where something it reads changed (most calls: nothing,
 * and the call itself cost more than these tests). */
static inline void refresh(struct gandiva *s, const struct pol_view *v,
                           struct gd_shape *sh)
{
    uint64_t grow = sh->si == SIM_NONE ? 0 : s->sgrow[sh->si];
    if (s->nrekey || sh->epoch != s->emptied || sh->sseen != grow ||
        (sh->si == SIM_NONE && sh->sizes_seen != s->nsizes))
        refresh_all(s, v, sh);
}

/* Whether shape sh's remembered failures say a measured job (u, m) cannot
 * be packed now (or packing is off), and cannot take a time slice (or
 * slicing is off or done for this schedule(); alone: a job to be profiled,
 * whose slice failures are not remembered). */
static bool pack_covered(const struct gandiva *s, const struct gd_shape *sh,
                         double u, double m)
{
    return s->max_per_gpu <= 1 || failed_at(sh->fu, sh->fm, sh->nfail, u, m, true);
}

static bool slice_covered(const struct gandiva *s, const struct gd_shape *sh,
                          double u, double m, bool alone)
{
    return !s->quantum || s->slice_all || sh->slice_failed ||
           (!alone && failed_at(sh->su, sh->sm, sh->nsfail, u, m, true));
}

/* Job j of shape sh (waiting; measured utilization u, memory m) gets in
 * if it can: 1 on free GPUs or packed, 2 by a time slice whose GPUs offer
 * more than before (the failures widened), 3 by one where none does, 0
 * not, or an error. */
static int admit_one(struct gandiva *s, const struct pol_view *v, struct pol_ctx *x,
                     struct gd_shape *sh, uint32_t j, double u, double m)
{
    refresh(s, v, sh);
    if (!sh->excl_failed) {
        xgrow(&s->gpus, &s->capgpus, sh->ngpus, sizeof *s->gpus);
        if (pol_place(v, sh->ngpus, sh->req_type, s->mode, NULL, s->gpus)) {
            int rc = pol_start(x, j, s->gpus);
            if (!rc)
                started(s, v, x, j);
            return rc ? rc : 1;
        }
        sh->excl_failed = true;
    }
    /* a job not yet measured (profile_s) runs alone first: no packing, and
     * a slice only of GPUs it then holds alone; its failures say nothing
     * of measured jobs of the shape, so none is remembered */
    bool alone = s->profile && !s->jb[j].profiled;
    double bound, fm;
    if (!alone && !pack_covered(s, sh, u, m)) {
        if (pack_shape(s, v, sh, u, m, &bound, &fm)) {
            int rc = pol_colocate(x, j, s->gpus);
            if (!rc)
                started(s, v, x, j);
            return rc ? rc : 1;
        }
        pack_fail(s, sh, bound, fm);
    }
    if (slice_covered(s, sh, u, m, alone))
        return 0;
    bool any;
    uint32_t victim = slice_find(s, v, sh, u, m, alone, &any, &bound, &fm);
    if (victim == SIM_NONE) {
        if (!any)
            sh->slice_failed = true;
        if (!alone)
            fail_at(sh->su, sh->sm, &sh->nsfail, bound, fm, NULL);
        return 0;
    }
    int rc = slice_take(s, v, x, j, victim);
    return rc < 0 ? rc : rc ? 2 : 3;
}

/* Shape sh's lowest utilization and memory among its waiting jobs,
 * cached until a job enters or leaves it. */
static void shape_mins(struct gd_shape *sh)
{
    if (!sh->mins) {            /* the root of the FIFO's tree */
        if (sh->tstale || !sh->tleaves || sh->tleaves < sh->n)
            qt_build(sh);
        sh->umin0 = sh->t[1].u;
        sh->mmin0 = sh->t[1].m;
        sh->mins = true;
    }
}

/* Whether no waiting job of shape sh can get in now (after one of them
 * failed): its failures cover the lowest utilization and the lowest memory
 * among them, settled by probing with those two where they do not yet. */
static bool shape_dead(struct gandiva *s, const struct pol_view *v,
                       struct gd_shape *sh)
{
    if (!sh->excl_failed)
        return false;
    shape_mins(sh);
    double u = sh->umin0, m = sh->mmin0, bound, fm;
    if (!pack_covered(s, sh, u, m)) {
        if (sh->pack_ok == s->changes)
            return false;
        if (pack_shape(s, v, sh, u, m, &bound, &fm)) {
            sh->pack_ok = s->changes;
            return false;
        }
        pack_fail(s, sh, bound, fm);
    }
    if (!slice_covered(s, sh, u, m, false)) {
        if (sh->slice_ok == s->changes)
            return false;
        bool any;
        if (slice_find(s, v, sh, u, m, false, &any, &bound, &fm) != SIM_NONE) {
            sh->slice_ok = s->changes;
            return false;
        }
        if (!any)
            sh->slice_failed = true;
        fail_at(sh->su, sh->sm, &sh->nsfail, bound, fm, NULL);
    }
    return true;
}

/* Whether a waiting job (u, m) of shape sh would be turned away by
 * admit_one on sh's remembered failures alone, changing nothing: placement
 * failed, packing and time-slicing are covered.  Only for measured jobs
 * (no profile_s). */
static inline bool covered(const struct gandiva *s, const struct gd_shape *sh, double u,
                    double m)
{
    return sh->excl_failed && pack_covered(s, sh, u, m) &&
           slice_covered(s, sh, u, m, false);
}

/* Whether shape sh's failures alone turn away every waiting job (they
 * cover its lowest utilization and lowest memory, and so every job:
 * failures cover all above a point), with no probe: visiting them would
 * change nothing.  Only for measured jobs (no profile_s). */
static bool all_covered(struct gandiva *s, struct gd_shape *sh)
{
    if (!sh->excl_failed)
        return false;
    shape_mins(sh);
    return covered(s, sh, sh->umin0, sh->mmin0);
}

/* ------------------------------------------------------------ schedule */

static void wake(struct gandiva *s, const struct pol_view *v, struct pol_ctx *x)
{
    if (s->quantum && s->woke != v->now + s->quantum) {
        s->woke = v->now + s->quantum;
        pol_wake(x, s->woke);
    }
}

/* The index of the first entry of sh at or after i that waits (sh->n if
 * none).  Entries go stale in place and never wait again, so each stale
 * one passed keeps a jump past the stale run it belongs to (compressed
 * to the end of the run at every pass): a walk that starts again at the
 * head does not step over the same started jobs again. */
static size_t next_waiting(struct gd_shape *sh, size_t i)
{
    size_t r = i;
    while (r < sh->n && !ent_waiting(&sh->q[r]))
        r = sh->q[r].skip > r ? sh->q[r].skip : r + 1;
    for (size_t p = i; p < r;) {
        size_t nx = sh->q[p].skip > p ? sh->q[p].skip : p + 1;
        sh->q[p].skip = r;
        p = nx;
    }
    return r;
}

/* The first entry of sh at or after its cursor that waits and was
 * enqueued by end; NULL if none. */
static const struct gd_ent *cursor(struct gd_shape *sh, uint64_t end)
{
    sh->cur = next_waiting(sh, sh->cur);
    return sh->cur < sh->n && sh->q[sh->cur].seq <= end ? &sh->q[sh->cur] : NULL;
}

/* Drops started entries from the front of shape sh's FIFO; compacts it
 * when they dominate. */
static void tidy_one(struct gd_shape *sh)
{
    sh->gone = false;
    sh->head = next_waiting(sh, sh->head);
    if (sh->head == sh->n) {
        sh->head = sh->n = 0;
    } else if (sh->n - sh->head > 64 && sh->n - sh->head > 2 * (size_t)sh->nwait) {
        size_t m = 0;
        for (size_t i = sh->head; i < sh->n; i++)
            if (ent_waiting(&sh->q[i])) {
                sh->q[m] = sh->q[i];
                sh->q[m++].skip = 0;
            }
        sh->head = 0;
        sh->n = m;
        sh->tstale = true;
    }
}

/* tidy_one on every shape where a job started (only the walk's starts
 * leave stale entries: the other FIFOs are as tidy as before). */
static void tidy(struct gandiva *s)
{
    for (size_t x = 0; x < s->ngone; x++)
        tidy_one(&s->shapes[s->gone[x]]);
    s->ngone = 0;
}

/* The first place in [from, to) of sh's FIFO whose job its failures may
 * not cover, through the tree; to if none.  A node whose lowest
 * utilization and memory one failure covers holds only covered jobs
 * (failures cover all above a point); one not so may still hold none
 * (failures that cover its children only together): the walk of the
 * subtrees from leaf from rightwards, down each that is not covered. */
static size_t qt_first(const struct gandiva *s, const struct gd_shape *sh,
                       size_t from, size_t to)
{
    size_t n = sh->tleaves, i = n + from, span = 1;   /* leaves under i */
    while (from < to) {
        if (covered(s, sh, sh->t[i].u, sh->t[i].m)) {
            while (i & 1) {     /* up to the next subtree on the right */
                i /= 2;
                span *= 2;
            }
            if (!i)
                return to;
            i++;
            if (i * span - n >= to)
                return to;
        } else if (i >= n) {
            return i - n;       /* a leaf, before to */
        } else {
            i *= 2;
            span /= 2;
        }
    }
    return to;
}

/* The first place in [lo, hi) of sh's FIFO enqueued after pos (hi if
 * none): the FIFO is by enqueue number. */
static size_t seq_after(const struct gd_shape *sh, size_t lo, size_t hi,
                        uint64_t pos)
{
    if (lo < hi && sh->q[hi - 1].seq <= pos)
        return hi;              /* the usual case: none (one read, warm) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sh->q[mid].seq <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The walk passes over the jobs of sh from its cursor that its failures
 * cover, while nothing changed, up to the last enqueued by end (jobs
 * enqueued during the walk wait for the next instant).  One by one, or
 * through the tree; where the tree stops short (failures that cover a run
 * only together), the walk comes back here for the rest. */
static void pass_covered(struct gandiva *s, struct gd_shape *sh, uint64_t end)
{
    size_t lo = seq_after(sh, sh->cur, sh->n, end);
    if (lo <= sh->cur)
        return;
    if (sh->tstale && sh->tpassed < sh->n) {
        const struct gd_ent *e;
        while ((e = cursor(sh, end)) && covered(s, sh, e->u, e->m)) {
            sh->cur++;
            sh->tpassed++;
        }
        return;
    }
    if (sh->tstale || sh->tleaves < sh->n)
        qt_build(sh);
    sh->cur = qt_first(s, sh, sh->cur, lo);
}

static int slice_cmp(const void *pa, const void *pb)
{
    const struct gd_slice *a = pa, *b = pb;
    return sl_before(a, b) ? -1 : sl_before(b, a) ? 1 : 0;
}

/* slice=all: while jobs wait, every running job whose slice is over (and
 * that may be preempted, and is not being profiled) stops and re-enters
 * the queue in the order the slices began (then job index): at the back,
 * or under requeue=front before every waiting job.  Those who cannot stop
 * now keep their places in the heaps.  <0 on an error. */
static int slice_all(struct gandiva *s, const struct pol_view *v,
                     struct pol_ctx *x)
{
    size_t nheld = 0, nvict = 0;
    for (size_t k = 0; k < s->nsizes * s->ntypes; k++) {
        struct gd_heap *h = &s->heaps[k];
        for (;;) {
            const struct gd_slice *top = sq_top(s, v, h);
            if (!top || top->start + s->quantum > v->now)
                break;
            struct gd_slice it = sq_pop(h, top);
            if (!pol_may_preempt(v, it.job, s->cost) || s->jb[it.job].profiling) {
                xgrow(&s->held, &s->capheld, nheld + 1, sizeof *s->held);
                s->held[nheld++] = it;
            } else {
                xgrow(&s->vict, &s->capvict, nvict + 1, sizeof *s->vict);
                s->vict[nvict++] = it;
            }
        }
        for (size_t i = 0; i < nheld; i++)
            sq_push(h, s->held[i]);
        nheld = 0;
    }
    if (nvict > 1)
        qsort(s->vict, nvict, sizeof *s->vict, slice_cmp);
    int rc = 0;
    for (size_t i = 0; i < nvict && !rc; i++) {
        /* front entries are put before the head: the last first */
        uint32_t j = s->vict[s->front ? nvict - 1 - i : i].job;
        if (!(rc = pol_preempt(x, j, s->cost))) {
            enqueue_at(s, v, j, s->front);
            left(s, v, j);      /* its GPUs are free now */
        }
    }
    return rc;
}

/* The entry at the cursor of shape k where it is alive (NULL: none, and
 * then it is not). */
static const struct gd_ent *walk_entry(struct gandiva *s, uint32_t k,
                                       uint64_t end)
{
    struct gd_shape *sh = &s->shapes[k];
    const struct gd_ent *e = sh->alive ? cursor(sh, end) : NULL;
    sh->alive = e != NULL;
    return e;
}

/* Shape k, where alive, into the walk's heap by the entry at its cursor. */
static void walk_push(struct gandiva *s, uint32_t k, uint64_t end)
{
    const struct gd_ent *e = walk_entry(s, k, end);
    if (e)
        wk_push(&s->walk, (struct gd_wi){ e->seq, k });
}

/* The shape at the top of the walk's heap (being visited) again: by the
 * entry at its cursor now, or out where it is not alive. */
static void walk_again(struct gandiva *s, uint64_t end)
{
    struct gd_walk *w = &s->walk;
    const struct gd_ent *e = walk_entry(s, w->a[0].k, end);
    if (e)
        wk_down(w, 0, (struct gd_wi){ e->seq, w->a[0].k });
    else
        wk_pop(w);
}

/* The walk's heap of the alive shapes, by the entries at their cursors,
 * built anew (a heapify). */
static void walk_build(struct gandiva *s, uint64_t end)
{
    s->walk.n = 0;
    if (s->nact > s->walk.cap)
        xgrow(&s->walk.a, &s->walk.cap, s->nact, sizeof *s->walk.a);
    for (size_t k = 0; k < s->nact; k++) {
        const struct gd_ent *e = walk_entry(s, s->act[k], end);
        if (e)
            s->walk.a[s->walk.n++] = (struct gd_wi){ e->seq, s->act[k] };
    }
    wk_heapify(&s->walk);
}

/* schedule() where only jobs arrived since the last one, which visited
 * every waiting job, and there is no time-slicing or profiling: each job
 * it visited would fail again (only starts changed the GPUs since, and
 * they only take room), so of the waiting jobs only those new ones are
 * tried, in FIFO order; the FIFOs where one started are tidied. */
static void schedule_new(struct gandiva *s, const struct pol_view *v,
                         struct pol_ctx *x)
{
#ifndef NDEBUG
    /* none of the jobs that waited before gets in: placement fails for
     * each shape, and packing for each of its jobs that its failures do
     * not cover (widen checks those) */
    for (size_t k = 0; k < s->nact; k++) {
        struct gd_shape *sh = &s->shapes[s->act[k]];
        bool placed = false;
        for (size_t i = sh->head; i < sh->n; i++) {
            const struct gd_ent *e = &sh->q[i];
            double b, fm;
            if (!ent_waiting(e) || e->seq > s->dseq)
                continue;
            xgrow(&s->gpus, &s->capgpus, sh->ngpus, sizeof *s->gpus);
            if (!placed) {
                DL_ASSERT(!pol_place(v, sh->ngpus, sh->req_type, s->mode, NULL, s->gpus));
                placed = true;
            }
            DL_ASSERT(s->max_per_gpu <= 1 || pack_covered(s, sh, e->u, e->m) ||
                      !pack_shape(s, v, sh, e->u, e->m, &b, &fm));
        }
    }
#endif
    for (size_t f = 0; f < s->nfresh; f++) {
        struct gd_shape *sh = &s->shapes[s->fresh[f].k];
        uint32_t i = s->fresh[f].i;
        const struct gd_ent *e = &sh->q[i];
        if (!ent_waiting(e))
            continue;
        refresh(s, v, sh);
        if (covered(s, sh, e->u, e->m))
            continue;
        int rc = admit_one(s, v, x, sh, e->job, e->u, e->m);
        if (rc < 0)
            return;
        if (rc) {
            sh->q[i].job = SIM_NONE;
            qt_set(sh, i, HUGE_VAL, HUGE_VAL);
            shape_gone(s, s->fresh[f].k);
        }
    }
    s->nfresh = 0;
    for (size_t k = 0; k < s->ngone; k++)
        tidy_one(&s->shapes[s->gone[k]]);
    s->ngone = 0;
    s->done = s->changes;
    s->dseq = s->seq;
}

static void schedule(void *state, const struct pol_view *v, struct pol_ctx *x)
{
    struct gandiva *s = state;
    if (s->nprof)
        profiles_end(s, v);
    if (!s->nlive) {            /* failures of no use: dropped */
        s->elost = s->elost || s->nelog;
        s->nelog = 0;
        s->nfresh = 0;
        s->flost = false;
        s->done = UINT64_MAX;
        return;
    }
    if (s->arrivals && s->done == s->changes && !s->flost && !s->nelog &&
        !s->elost && !s->nrekey) {
        s->changes++;
        schedule_new(s, v, x);
        return;
    }
    s->nfresh = 0;
    s->flost = false;
    s->done = UINT64_MAX;
    if (s->slice_all && s->quantum && slice_all(s, v, x) < 0)
        return;
    s->changes++;               /* slices may have expired since */
    /* A shape whose failures turn away every waiting job stays out of the
     * walk (visiting them would change nothing), at its start and when a
     * slice wakes the dead shapes; not under backfill=0 (its first job
     * stops the walk) nor profile_s (failures say nothing of jobs not
     * measured yet). */
    bool skip_dead = s->backfill && !s->profile && !s->walk_full;
    if (s->quantum && !s->slice_all)    /* before refresh (rekey) */
        for (size_t k = 0; k < s->nsizes * s->ntypes; k++)
            expire(s, v, &s->heaps[k]);
    if (s->nelog)
        digest(s, v, s->elog, s->nelog, !s->quantum);
    for (size_t k = 0; k < s->nact; k++) {
        struct gd_shape *sh = &s->shapes[s->act[k]];
        if (s->cost > 0) {      /* may_preempt: gains count with time */
            sh->slice_failed = false;
            sh->nsfail = 0;
        }
        refresh(s, v, sh);
        sh->cur = sh->head;
        sh->alive = sh->nwait > 0 && !(skip_dead && all_covered(s, sh));
        sh->quiet = UINT64_MAX;
    }
    s->nelog = 0;               /* every shape has read it */
    s->elost = false;
    /* Each waiting job in FIFO order (jobs enqueued during the walk, the
     * victims of slices, wait for the next instant), merged from the
     * shapes' FIFOs; a shape none of whose jobs can get in is skipped until
     * a slice leaves GPUs that offer more than before (admit_one's 2),
     * and then resumes after the job last visited. */
    uint64_t end = s->seq, pos = 0;
    walk_build(s, end);
    while (s->walk.n) {
        /* the alive shapes by the entry at their cursors, which changes
         * only as the cursor moves (only the job visited starts; an entry
         * put at the front moves the cursor too) */
        const struct gd_wi *w = s->walk.a;
        struct gd_shape *best = &s->shapes[w[0].k];
        uint32_t bk = w[0].k;
        const struct gd_ent *be = &best->q[best->cur];
        uint32_t j = be->job;
        pos = be->seq;
        best->cur++;
        /* A job its shape's failures turn away, while nothing changed
         * since that shape was found alive, would change nothing (and
         * leave the shape alive): so would the shape's next ones that
         * they cover, this instant, until a slice widens the failures
         * (rc 2 below sends the shape back).  Passed over at once. */
        if (best->quiet == s->changes && !s->profile && !s->walk_full &&
            covered(s, best, be->u, be->m)) {
            pass_covered(s, best, end);
            walk_again(s, end);
            continue;
        }
        best->quiet = UINT64_MAX;
        int rc = admit_one(s, v, x, best, j, be->u, be->m);
        if (rc < 0)
            return;
        if (rc) {               /* j started: its place holds none now */
            DL_ASSERT(best->q[best->cur - 1].job == j);
            best->q[best->cur - 1].job = SIM_NONE;
            qt_set(best, best->cur - 1, HUGE_VAL, HUGE_VAL);
            shape_gone(s, bk);
        }
        if (rc && s->one_start) {   /* the next one at the next instant */
            wake(s, v, x);
            if (s->nlive && s->tick)
                pol_wake(x, v->now + s->tick);
            goto out;
        }
        if (rc) {
            wake(s, v, x);
        } else if (!s->backfill) {
            goto out;
        } else if (!s->walk_full && shape_dead(s, v, best)) {
            best->alive = false;
        } else {
            best->quiet = s->changes;
        }
        walk_again(s, end);
        if (rc == 2) {          /* a slice widened the failures: every
                                 * shape may get in again */
            bool rebuild = false;
            for (size_t k = 0; k < s->nact; k++) {
                struct gd_shape *sh = &s->shapes[s->act[k]];
                if (sh->alive && sh->cur > sh->head && sh->q[sh->cur - 1].seq > pos) {
                    /* passed over jobs after this one: back to the first */
                    sh->cur = seq_after(sh, sh->head, sh->cur, pos);
                    rebuild = true;
                }
                if (sh->alive || !sh->nwait)
                    continue;
                if (skip_dead) {
                    refresh(s, v, sh);
                    if (all_covered(s, sh))
                        continue;
                }
                sh->cur = seq_after(sh, sh->head, sh->n, pos);
                sh->alive = true;
                if (!rebuild)
                    walk_push(s, s->act[k], end);
            }
            if (rebuild)
                walk_build(s, end);
        }
    }
    s->done = s->changes;
    s->dseq = s->seq;
out:
    tidy(s);
}

static uint32_t queued(void *state)
{
    return ((struct gandiva *)state)->nlive;
}

/* ------------------------------------------------------------ options */

static int create(void **state, const struct pol_args *args,
                  const struct pol_view *v, struct dl_error *err)
{
    struct gandiva *s = xcalloc(1, sizeof *s);
    long bf, per, one;
    double q, cost, prof, tick;
    static const char *const variants[] = { "base", "horus-paper", NULL };
    static const char *const slices[] = { "size", "all", NULL };
    static const char *const requeues[] = { "back", "front", NULL };
    static const char *const walks[] = { "auto", "full", NULL };
    int var = 0, sl = 0, rq = 0, wk = 0;
    int rc = pol_arg_enum(args, "variant", variants, &var, err);
    bool hp = var == 1;
    /* the options variant=horus-paper sets (each may be given alone) */
    struct pol_args r = *args, *a = &r;
    pol_arg_variant(a, "util_cap", hp ? "none" : "1");
    pol_arg_variant(a, "max_per_gpu", hp ? "3" : "2");
    pol_arg_variant(a, "slice", hp ? "all" : "size");
    pol_arg_variant(a, "requeue", hp ? "front" : "back");
    if (!rc)
        rc = pol_arg_placement(a, &s->mode, err);
    if (!rc)
        rc = pol_arg_long(a, "backfill", 0, 1, &bf, err);
    if (!rc && !strcmp(pol_arg_str(a, "util_cap"), "none"))
        s->util_cap = POL_MAX_SHARE;    /* no job is above 1: no cap */
    else if (!rc)
        rc = pol_arg_double(a, "util_cap", 0, POL_MAX_SHARE, &s->util_cap, err);
    if (!rc)
        rc = pol_arg_long(a, "max_per_gpu", 1, POL_MAX_SHARE, &per, err);
    if (!rc)
        rc = pol_arg_enum(a, "slice", slices, &sl, err);
    if (!rc)
        rc = pol_arg_enum(a, "requeue", requeues, &rq, err);
    if (!rc)
        rc = pol_arg_double(a, "quantum", 0, 1e9, &q, err);
    if (!rc)
        rc = pol_arg_double(a, "preempt_cost", 0, 1e9, &cost, err);
    if (!rc)
        rc = pol_arg_double(a, "profile_s", 0, 1e9, &prof, err);
    if (!rc)
        rc = pol_arg_long(a, "one_start", 0, 1, &one, err);
    if (!rc)
        rc = pol_arg_double(a, "tick", 0, 1e9, &tick, err);
    if (!rc)
        rc = pol_arg_enum(a, "walk", walks, &wk, err);
    if (rc) {
        free(s);
        return rc;
    }
    s->slice_all = sl == 1;
    s->front = rq == 1;
    s->backfill = bf;
    s->max_per_gpu = (uint32_t)per;
    s->quantum = (simtime_t)llround(q * (double)SIM_US_PER_S);
    s->cost = cost * (double)SIM_US_PER_S;
    s->profile = (simtime_t)llround(prof * (double)SIM_US_PER_S);
    s->one_start = one;
    s->tick = (simtime_t)llround(tick * (double)SIM_US_PER_S);
    s->walk_full = wk == 1;
    s->arrivals = !s->quantum && !s->profile && s->backfill && !s->one_start &&
                  !s->walk_full;
    ensure(s, v);
    *state = s;
    return 0;
}

static void destroy(void *state)
{
    struct gandiva *s = state;
    free(s->jb);
    free(s->rekeys);
    for (size_t k = 0; s->sshapes && k < s->nsizes; k++)
        free(s->sshapes[k].a);
    free(s->sshapes);
    free(s->prof_end);
    free(s->prof);
    free(s->usum);
    free(s->tnodes);
    free(s->tfirst);
    free(s->tpos);
    free(s->nc);
    free(s->ndirty);
    free(s->dirty);
    free(s->tup);
    free(s->elog);
    free(s->left);
    free(s->fresh);
    free(s->lnode);
    free(s->lseen);
    for (uint32_t t = 0; s->trees && t < s->ntypes; t++) {
        free(s->trees[t].us);
        free(s->trees[t].mem);
        free(s->trees[t].kk);
        free(s->trees[t].cnt);
        free(s->trees[t].mark);
        free(s->trees[t].cstale);
        free(s->trees[t].on);
        free(s->trees[t].gl);
        free(s->trees[t].rseen);
        free(s->trees[t].rq);
        free(s->trees[t].rlog);
        free(s->trees[t].cdirty);
        free(s->trees[t].umax);
        free(s->trees[t].mmax);
    }
    free(s->trees);
    free(s->tbig);
    free(s->tpass);
    free(s->lfree);
    free(s->ltakes);
    free(s->cand);
    for (size_t k = 0; k < s->nshapes; k++) {
        free(s->shapes[k].q);
        free(s->shapes[k].low);
        free(s->shapes[k].t);
    }
    free(s->shapes);
    free(s->act);
    free(s->walk.a);
    free(s->gone);
    free(s->shidx);
    free(s->sidx);
    for (size_t k = 0; s->heaps && k < s->capsizes * s->ntypes; k++) {
        free(s->heaps[k].a);
        free(s->heaps[k].ex);
        free(s->heaps[k].kt);
        free(s->heaps[k].f);
    }
    free(s->heaps);
    free(s->sizes);
    free(s->sgrow);
    free(s->gpus);
    free(s->gtmp);
    free(s->held);
    free(s->vict);
    free(s->nodes);
    free(s->rank);
    free(s->offers);
    free(s->all);
    free(s);
}

static const struct pol_opt gandiva_opts[] = {
    { "variant", "base", "base: the defaults below; horus-paper: the Gandiva "
                         "of the Horus authors' simulator (util_cap=none, "
                         "max_per_gpu=3, slice=all, requeue=front)" },
    { "util_cap", "variant", "most summed (measured) GPU utilization on a GPU "
                             "a job is packed onto, or none; variant: 1, "
                             "horus-paper: none" },
    { "max_per_gpu", "variant", "most jobs a GPU holds when packing (1 = no "
                                "packing; also at most --models "
                                "max_jobs_per_gpu); variant: 2, horus-paper: 3" },
    { "quantum", "100", "seconds a job runs before it may be time-sliced "
                        "(0 = no time-slicing)" },
    { "slice", "variant", "size: a waiting job takes the GPUs of a job of its "
                          "size whose quantum is over; all: while jobs wait, "
                          "every job whose quantum is over stops; variant: "
                          "size, horus-paper: all" },
    { "requeue", "variant", "where a time-sliced job re-enters the queue: back "
                            "or front; variant: back, horus-paper: front" },
    { "profile_s", "0", "seconds a new job first runs alone on its GPUs to be "
                        "measured before it may share one (0 = no profiling)" },
    { "one_start", "0", "1: at most one start per instant" },
    { "tick", "0", "one_start=1: seconds after a start at which the next is "
                   "tried while jobs wait (0 = at the next event)" },
    { "preempt_cost", "0", "seconds of reference-GPU work added per preemption" },
    { "backfill", "1", "1: jobs behind one that cannot get in still try; 0: it blocks them" },
    { "walk", "auto", "auto: an instant passes over the shapes and jobs its "
                      "remembered failures turn away; full: it visits every "
                      "waiting job (the same schedules, slower: the reference "
                      "for tests)" },
    { NULL, NULL, NULL },
};

const struct policy pol_gandiva = {
    .name = "gandiva",
    .summary = "Gandiva-style: FIFO, packing by measured utilization, "
               "time-slicing among jobs of one size",
    .blocking = "it is packed onto shared GPUs when their summed utilization "
                "allows, else takes the GPUs of a same-size job whose time "
                "slice is over; otherwise backfill=1 (default): later jobs "
                "that fit start before it; backfill=0: it blocks every later job",
    .opts = gandiva_opts,
    .create = create,
    .destroy = destroy,
    .enqueue = enqueue,
    .finished = finished,
    .schedule = schedule,
    .queued = queued,
};
