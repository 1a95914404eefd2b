/*
 * policies/kit.h - the policy kit: what policies build on beyond the
 * contract (sim/policy.h).  Built in and installed as a library
 * (libdlsim-policykit.a, `pkg-config --libs dlsim-policy`), so that a
 * policy outside the tree uses the same pieces as the built-ins:
 *
 *   pol_arg_   typed option getters for create() (policies/args.c)
 *   pq_        the ordered queue of waiting jobs, bucketed by gang shape
 *              (policies/queue.c)
 *   vic_       where a preemptive policy makes room: per-node victim
 *              thresholds in segment trees (policies/victim.c)
 *   HEAP_DEFINE  the one binary heap (sim/base/heap.h), per item type
 *
 * The kit calls the engine only through the services in the view, like
 * any policy.
 */
#ifndef DLSIM_POLICIES_KIT_H
#define DLSIM_POLICIES_KIT_H

#include "sim/policy.h"

/* ------------------------------------------------------ options */

/* Typed option getters for create(); the key must be one of the policy's
 * options (or placement).  DL_EINPUT names key and value. */
int pol_arg_long(const struct pol_args *a, const char *key, long lo, long hi,
                 long *out, struct dl_error *err);
int pol_arg_double(const struct pol_args *a, const char *key, double lo,
                   double hi, double *out, struct dl_error *err);
const char *pol_arg_str(const struct pol_args *a, const char *key);
int pol_arg_placement(const struct pol_args *a, enum plc_mode *out,
                      struct dl_error *err);
/* One of names[] (NULL-terminated): *out = its index; else DL_EINPUT
 * "key=value: expected A, B or C". */
int pol_arg_enum(const struct pol_args *a, const char *key,
                 const char *const *names, int *out, struct dl_error *err);
/* Options whose default depends on another (a policy's variant=) list
 * their default as "variant"; create() resolves them on a copy of its
 * args: key's value becomes val when it is "variant" (else it stays as
 * given), and the getters above then read it as usual. */
void pol_arg_variant(struct pol_args *a, const char *key, const char *val);

/* ------------------------------------------------------ ordered queue */

/* Queued jobs in buckets of equal (ngpus, req_type), each a binary heap on
 * (key, seq).  "The best job that fits now" then costs one placement test
 * per bucket instead of one per queued job. */
struct pq_item {
    double key;
    uint64_t seq;               /* tie-break: the job index */
    uint32_t job;
    int32_t prio;               /* strict class, larger first (0: none) */
};
struct pq_bucket {
    uint32_t ngpus, req_type;
    struct pq_item *a;          /* the heap (sim/base/heap.h), a[0] first */
    size_t n, cap;              /* cap: room from a on */
};
/* A bucket's array: while every push came after the items there (fifo's
 * arrivals), a is sorted, which is a heap: a push appends and a pop steps
 * a forward into the array (base, malloc'd); the first push out of order
 * makes it a heap until the bucket empties.  Kept apart from struct
 * pq_bucket so that a bucket stays 32 bytes (walks over the buckets:
 * tiresias's cost +1 % with them inside, +0.4 % so). */
struct pq_store {
    struct pq_item *base;
    bool heap;
};
struct pq {
    struct pq_bucket *b;
    size_t nb, capb;
    size_t size;
    uint32_t *slots;            /* shape -> bucket + 1 (open addressing) */
    size_t nslots;
    uint32_t *by_size;          /* [nb] buckets by ascending ngpus */
    struct pq_store *st;        /* [nb] */
    uint32_t *gpus;             /* scratch for placements, reused */
    size_t gcap;
    long min;                   /* the bucket with the smallest head (-1:
                                   none), while min_ok: kept over pushes,
                                   found again after a pop */
    bool min_ok;
};
void pq_init(struct pq *q);
void pq_free(struct pq *q);
void pq_push(struct pq *q, uint32_t job, uint32_t ngpus, uint32_t req_type,
             double key);
/* The same in strict priority class prio: every job of a larger class
 * comes before any of a smaller one, whatever the keys. */
void pq_push_prio(struct pq *q, uint32_t job, uint32_t ngpus,
                  uint32_t req_type, int32_t prio, double key);
/* Puts back an item popped earlier, keeping its place in the order. */
void pq_push_item(struct pq *q, const struct pq_item *it, uint32_t ngpus,
                  uint32_t req_type);
/* The bucket of a shape (created, empty, if new). */
long pq_bucket(struct pq *q, uint32_t ngpus, uint32_t req_type);
/* Empties every bucket (keeps the buckets and their memory). */
void pq_clear(struct pq *q);
/* Bucket with the smallest head, or -1 if empty (found again only after
 * a pop). */
long pq_min_bucket(struct pq *q);
static inline const struct pq_item *pq_head(const struct pq *q, long b)
{
    return &q->b[b].a[0];
}
struct pq_item pq_pop(struct pq *q, long b);
/* Starts jobs in key order.  backfill=false: stop at the first that does
 * not fit (it blocks the rest); true: pass over it, so smaller jobs behind
 * it may start.  After each start, started(st, v, job) when not NULL (the
 * policy's own bookkeeping: no hook runs inside schedule()).  Returns the
 * number started, or a negative code. */
long pq_fill(struct pq *q, const struct pol_view *v, struct pol_ctx *x,
             enum plc_mode mode, bool backfill,
             void (*started)(void *st, const struct pol_view *v, uint32_t job),
             void *st);

/* ---- vic_: where a preemptive policy makes room (policies/victim.c) */

/* Per-node job lists: each node's jobs in one order, a larger key first
 * and then a larger job (the order of victims, least worth keeping
 * first), kept as jobs start, stop and change key -- where a scan of the
 * node's GPUs and a sort at every read would cost more.  A zeroed struct
 * holds nothing (vic_lists_free may take it). */
struct vic_lists {
    uint8_t *n;                 /* [nnodes] jobs listed */
    uint32_t *job;              /* [ngpus] a node's from its first GPU on */
    uint8_t *gpus;              /* [ngpus] their GPUs on the node */
    int64_t *key;               /* [ngpus] their keys */
    /* Kept only while read: none before the first read (vic_lists_read),
     * and none once the changes since the last read pass the node count
     * (keeping them from there on costs more than making every list
     * again at the next read); every list is made then. */
    bool unkept;
    uint64_t changes;           /* since the last read */
};
void vic_lists_init(struct vic_lists *l, const struct cluster *c);
void vic_lists_free(struct vic_lists *l);
/* Puts job in the lists of the nodes of its current (or last) allocation
 * (sorted, as the engine keeps it) as it is now: with its GPUs there and
 * key where on, else out; mark(ctx, node) for each of those nodes.  While
 * the lists are not kept, nothing; where this change stops keeping them,
 * mark(ctx, node) for every node instead. */
void vic_lists_job(struct vic_lists *l, const struct pol_view *v, uint32_t job,
                   bool on, int64_t key, void (*mark)(void *ctx, uint32_t node),
                   void *ctx);
/* Before reading the lists: where they are not kept, every node's made
 * from its GPUs (one job a GPU, as the cluster records it), each job's key
 * being key(ctx, v, job), as vic_lists_job would have kept it. */
void vic_lists_read(struct vic_lists *l, const struct pol_view *v,
                    int64_t (*key)(const void *ctx, const struct pol_view *v,
                                   uint32_t job),
                    const void *ctx);
/* Whether node nd's list is the one its GPUs give (one job a GPU, as the
 * cluster records it: for policies that do not share GPUs), each job's
 * key being key(ctx, v, job): what a debug build checks before reading
 * one. */
bool vic_lists_match(const struct vic_lists *l, const struct pol_view *v,
                     uint32_t nd, int64_t (*key)(const void *ctx,
                                                 const struct pol_view *v,
                                                 uint32_t job),
                     const void *ctx);

struct vic_index;
struct vic_index *vic_new(const struct cluster *c);
void vic_free(struct vic_index *x);
/* Marks the nodes of job's current (or last) allocation (sorted, as the
 * engine keeps it) as changed, and puts job in their lists as it is now
 * (vic_lists_job); call whenever a job starts or stops, and when a running
 * job's finish time moves. */
void vic_touch_job(struct vic_index *x, const struct pol_view *v, uint32_t job);
/* The node of type t (in a group of nodes of >= d GPUs) where stopping the
 * latest-finishing jobs frees d GPUs with the latest possible last victim;
 * *threshold_job is that last victim (SIM_NONE if the node has d GPUs
 * free).  SIM_NONE if type t has no such node. */
uint32_t vic_best_node(struct vic_index *x, const struct pol_view *v,
                       uint32_t d, uint32_t t, uint32_t *threshold_job);
/* The jobs to stop on node for d free GPUs, latest finish first, from the
 * index's list of the node; jobs has room for the node's GPU count.
 * Returns how many. */
uint32_t vic_victims(struct vic_index *x, const struct pol_view *v,
                     uint32_t node, uint32_t d, uint32_t *jobs);
/* The same from the node's GPUs, without an index (a scan and a sort). */
uint32_t vic_node_victims(const struct pol_view *v, uint32_t node, uint32_t d,
                          uint32_t *jobs);

/* The k nodes of group with the latest thresholds for d GPUs, best first
 * (thresholds as in vic_best_node, ties: lower node), among those whose
 * threshold job passes ok (which must be monotone in the threshold: if a
 * job passes, every later-finishing one does; SIM_NONE means no victim).
 * Returns how many (fewer when fewer qualify). */
uint32_t vic_top_nodes(struct vic_index *x, const struct pol_view *v,
                       uint32_t group, uint32_t d, uint32_t k, uint32_t *nodes,
                       uint32_t *tjobs, bool (*ok)(const struct pol_view *,
                                                   uint32_t job, void *),
                       void *ctx);

/* Whether pol_place would find room were some busy GPUs free too (a
 * reclaim's victims, say), with no preemption and no change to the
 * cluster: vic_freed_add marks GPUs gpus[0..n) (each busy now, none
 * marked twice: all the jobs on each would stop); vic_freed_fits applies
 * the placement rules' test of existence to the free counts the cluster
 * has now with those marked added; vic_freed_clear drops the marks.  The
 * marks hold while the GPUs marked stay busy (other GPUs may change: each
 * test reads the cluster as it is).  Existence only grows with the free
 * GPUs, so where it says no, no subset of the GPUs marked makes room
 * either.  Costs O(n) a mark and O(nodes marked x groups + groups x node
 * size) a test.  A zeroed struct to start; vic_freed_free after. */
struct vic_freed {
    uint32_t *a;                /* the nodes marked */
    size_t n, cap;
    uint32_t *add;              /* [nnodes] GPUs marked on each */
    uint32_t *tadd;             /* [ntypes] GPUs marked of each type */
};
void vic_freed_add(struct vic_freed *s, const struct pol_view *v,
                   const uint32_t *gpus, uint32_t n);
bool vic_freed_fits(struct vic_freed *s, const struct pol_view *v,
                    uint32_t ngpus, uint32_t req_type, enum plc_mode mode);
void vic_freed_clear(struct vic_freed *s, const struct pol_view *v);
void vic_freed_free(struct vic_freed *s);

/* ------------------------------------------------------ heaps */

#include "sim/base/heap.h"     /* HEAP_DEFINE: one heap for everything */

/* The lower and the higher of a and b (no NaN in a policy's sums and
 * bounds: fmin's library call is not needed). */
static inline double pol_dmin(double a, double b)
{
    return b < a ? b : a;
}

static inline double pol_dmax(double a, double b)
{
    return b > a ? b : a;
}

#endif
