/*
 * policies/policy.h - the public interface of scheduling policies (pol_),
 * the placement shared by all of them (plc_), and the ordered queue they
 * build on (pq_).
 *
 * A policy is a decision component: the engine tells it about jobs that
 * enter the queue (enqueue) and jobs that complete (finished), and once per
 * simulated instant calls schedule() with a read-only view of the cluster
 * and the jobs.  The policy answers with actions -- start a job on these
 * GPUs, preempt a running job, wake me at time t -- through pol_start,
 * pol_preempt and pol_wake.  The engine validates each action and applies
 * it at once, so the view the policy reads reflects its own earlier
 * actions of the same call; an invalid action is refused (nonzero return)
 * and fails the run, so a buggy policy cannot corrupt the cluster.
 *
 * The pipeline is admission (engine: jobs that can never fit are rejected,
 * then the optional admit hook), ordering (the policy's queue), placement
 * (plc_find, shared, chosen by the common option placement=).
 *
 * Job state machine (moved only by the engine, sim/engine.c):
 *
 *     FUTURE --arrival--> QUEUED --start--> RUNNING --complete--> DONE
 *        |                  ^                  |
 *        +--never fits--> REJECTED  <-preempt--+   (back to QUEUED)
 */
#ifndef DLSIM_POLICY_H
#define DLSIM_POLICY_H

#include "sim/sim.h"
#include "traces/trace.h"

enum job_state { JOB_FUTURE, JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_REJECTED };

/* Per-job run state, owned by the engine, read-only to policies. */
struct job_rt {
    double remaining;           /* work left at `settled`, reference-GPU us */
    double rate;                /* work per us while running, else 0 */
    simtime_t settled;          /* when remaining was last brought up to date */
    simtime_t finish_at;        /* predicted completion while running */
    simtime_t first_start;      /* SIM_NEVER until first started */
    simtime_t finish;           /* SIM_NEVER until done */
    simtime_t queued_since;     /* start of the current wait */
    simtime_t wait;             /* total time queued so far */
    simtime_t last_start;       /* start of the current (or last) run */
    simtime_t prev_start;       /* the run a preemption ended began here */
    simtime_t preempted_at;     /* last preemption, SIM_NEVER if none */
    double last_cost;           /* work added by that preemption */
    double base_rate;           /* solo rate on the current allocation */
    double iso_rate;            /* solo rate on the first allocation */
    double start_remaining;     /* remaining work when the current (or
                                   last) run began */
    double run_us;              /* time spent running so far */
    double solo_us;             /* the same weighted by rate / base_rate:
                                   run_us / solo_us = its interference
                                   slowdown */
    double ufac;                /* rate / base_rate as credited to useful
                                   utilization while running, else 0 */
    uint32_t *gpus;             /* current allocation, sorted [ngpus] */
    uint32_t ngpus;             /* GPUs of the current (or last) run: the
                                   job's num_gpus unless started elastic */
    uint32_t first_ngpus;       /* GPUs of the first run */
    uint32_t req_type;          /* required GPU type, SIM_NONE = any */
    uint32_t type;              /* type of the current/last allocation */
    uint32_t gen;               /* bumped at every stop: stale events skip */
    uint32_t preemptions;
    uint8_t state;              /* enum job_state */
};

struct mdl_perf;

/* What a policy sees.  Valid only during the call it is passed to. */
struct pol_view {
    simtime_t now;
    const struct cluster *clu;
    const struct trc_job *jobs; /* the trace, by job index */
    const struct job_rt *rt;    /* run state, by job index */
    uint32_t njobs;
    uint32_t nqueued, nrunning;
    /* the run's models: predictions only (models/model.h, mdl_perf_pred_*) */
    const struct mdl_perf *perf;
    /* who is on each GPU: occ[g * max_share + k], k < nocc[g] */
    const uint8_t *nocc;
    const uint32_t *occ;
    uint32_t max_share;
    const double *mem_used;     /* [ngpus] GB held by the jobs on a GPU
                                   (jobs of unknown memory count 0) */
};

/* The jobs on GPU g (*n of them). */
static inline const uint32_t *pol_gpu_jobs(const struct pol_view *v,
                                           uint32_t g, uint32_t *n)
{
    *n = v->nocc[g];
    return v->occ + (size_t)g * v->max_share;
}

/* Remaining work of job j at v->now (reference-GPU microseconds). */
static inline double pol_remaining(const struct pol_view *v, uint32_t j)
{
    const struct job_rt *r = &v->rt[j];
    double w = r->remaining - r->rate * (double)(v->now - r->settled);
    return w > 0 ? w : 0;
}

/* Work (reference-GPU us) job j has done since its current run began. */
static inline double pol_gained(const struct pol_view *v, uint32_t j)
{
    return v->rt[j].start_remaining - pol_remaining(v, j);
}

/* Whether a preemption costing cost (reference-GPU us) may stop running
 * job j: always without a cost; with one, only once the job has gained
 * twice the cost since it last started, so that every turn keeps at least
 * half its progress and a job cannot be preempted forever. */
static inline bool pol_may_preempt(const struct pol_view *v, uint32_t j,
                                   double cost)
{
    return cost <= 0 || pol_gained(v, j) > 2 * cost;
}

/* ----------------------------------------------------------- actions */

struct pol_ctx;   /* the engine's; opaque */
/* Starts queued job on gpus[0..num_gpus) of one type.  0 or DL_ECHECK. */
int pol_start(struct pol_ctx *x, uint32_t job, const uint32_t *gpus);
/* Elastic start: queued job on n GPUs, 1 <= n <= its num_gpus, each free;
 * it runs at the runtime model's speed for n GPUs (mdl_perf_rate_n) until
 * it stops.  0 or DL_ECHECK. */
int pol_start_n(struct pol_ctx *x, uint32_t job, const uint32_t *gpus, uint32_t n);
/* Starts queued job on gpus[0..num_gpus) of one type, each free or already
 * running other jobs: co-location.  Each GPU then holds at most the run's
 * max_share jobs (the models' max_jobs_per_gpu) and, where the jobs'
 * memory is known, no more GB than the type has.  The jobs sharing a GPU
 * run at the rates of the slowdown model.  0 or DL_ECHECK. */
int pol_colocate(struct pol_ctx *x, uint32_t job, const uint32_t *gpus);
/* Stops running job and returns it to the queue; extra_work (reference-GPU
 * us) is added to its remaining work (checkpoint/restore cost).  Within
 * one instant, actions cancel out: a job preempted and restarted counts no
 * preemption and pays no cost, and a job started and then preempted was
 * never started (no cost, no count, no start time). */
int pol_preempt(struct pol_ctx *x, uint32_t job, double extra_work);
/* Asks for a schedule() call at time at (> now). */
void pol_wake(struct pol_ctx *x, simtime_t at);

/* ------------------------------------------------------ options/registry */

struct pol_opt {
    const char *key;
    const char *def;            /* default value, as text */
    const char *help;
};

#define POL_MAX_ARGS 16
struct pol_args {
    uint32_t n;
    char key[POL_MAX_ARGS][32];
    char val[POL_MAX_ARGS][64];
    const char *spec;           /* the whole --policy text, for messages */
};

enum plc_mode { PLC_CONSOLIDATED, PLC_POOL };

struct policy {
    const char *name;
    const char *summary;        /* one line */
    const char *blocking;       /* what happens to a job next in order
                                   that does not fit */
    const struct pol_opt *opts; /* NULL-key terminated; placement= is
                                   common to all and not listed here */
    /* Creates the policy's state from validated args; DL_EINPUT on a bad
     * value, with err naming it. */
    int (*create)(void **state, const struct pol_args *a, struct dl_error *err);
    void (*destroy)(void *state);
    /* Optional: false rejects the arriving job. */
    bool (*admit)(void *state, const struct pol_view *v, uint32_t job);
    /* A job entered the queue (arrival, or preemption -- possibly from
     * inside this policy's own schedule()). */
    void (*enqueue)(void *state, const struct pol_view *v, uint32_t job);
    /* Optional: a job started (called from inside pol_start). */
    void (*started)(void *state, const struct pol_view *v, uint32_t job);
    /* Optional: a running job's rate (so its finish_at) changed. */
    void (*rate_changed)(void *state, const struct pol_view *v, uint32_t job);
    /* A running job completed. */
    void (*finished)(void *state, const struct pol_view *v, uint32_t job);
    void (*schedule)(void *state, const struct pol_view *v, struct pol_ctx *x);
    /* How many jobs the policy holds queued (checked by --check). */
    uint32_t (*queued)(void *state);
};

/* The static table of policies, NULL-terminated. */
extern const struct policy *const pol_table[];
const struct policy *pol_find(const char *name);
/* Parses "NAME" or "NAME:k=v,k=v"; checks names and keys (listing the
 * valid ones on error) and fills in defaults.  0 or DL_EINPUT. */
int pol_parse(const char *spec, const struct policy **p, struct pol_args *a,
              struct dl_error *err);
/* Typed option getters for create(); DL_EINPUT names key and value. */
int pol_arg_long(const struct pol_args *a, const char *key, long lo, long hi,
                 long *out, struct dl_error *err);
int pol_arg_double(const struct pol_args *a, const char *key, double lo,
                   double hi, double *out, struct dl_error *err);
const char *pol_arg_str(const struct pol_args *a, const char *key);
int pol_arg_placement(const struct pol_args *a, enum plc_mode *out,
                      struct dl_error *err);
/* `dlsim policies`. */
void pol_print_list(FILE *to);

/* ----------------------------------------------------------- placement */

/* Finds GPUs for a gang of ngpus on one GPU type (req_type, or any type,
 * fastest first).  consolidated: a gang of up to the size of the type's
 * largest node on one node (best fit: the fullest node that still fits;
 * never split over smaller nodes); a larger gang on floor(ngpus/n) wholly
 * free nodes of one size n (the largest that can take it) plus, for the
 * remainder, the best-fitting node of that size.  pool: any free GPUs of the type,
 * taken from the fullest nodes first.  Writes the sorted GPU ids to gpus
 * (may be NULL to only ask) and the type to *type (may be NULL).
 * Returns true when found. */
bool plc_find(const struct cluster *c, uint32_t ngpus, uint32_t req_type,
              enum plc_mode mode, uint32_t *type, uint32_t *gpus);
/* Whether the gang could be placed on the empty cluster. */
bool plc_ever_fits(const struct cluster *c, uint32_t ngpus, uint32_t req_type,
                   enum plc_mode mode);

/* ------------------------------------------------------ ordered queue */

/* Queued jobs in buckets of equal (ngpus, req_type), each a binary heap on
 * (key, seq).  "The best job that fits now" then costs one placement test
 * per bucket instead of one per queued job. */
struct pq_item {
    double key;
    uint64_t seq;               /* tie-break: the job index */
    uint32_t job;
};
struct pq_bucket {
    uint32_t ngpus, req_type;
    struct pq_item *heap;
    size_t n, cap;
};
struct pq {
    struct pq_bucket *b;
    size_t nb, capb;
    size_t size;
    uint32_t *slots;            /* shape -> bucket + 1 (open addressing) */
    size_t nslots;
    uint32_t *by_size;          /* [nb] buckets by ascending ngpus */
    uint32_t *gpus;             /* scratch for placements, reused */
    size_t gcap;
};
void pq_init(struct pq *q);
void pq_free(struct pq *q);
void pq_push(struct pq *q, uint32_t job, uint32_t ngpus, uint32_t req_type,
             double key);
/* Puts back an item popped earlier, keeping its place in the order. */
void pq_push_item(struct pq *q, const struct pq_item *it, uint32_t ngpus,
                  uint32_t req_type);
/* The bucket of a shape (created, empty, if new). */
long pq_bucket(struct pq *q, uint32_t ngpus, uint32_t req_type);
/* Empties every bucket (keeps the buckets and their memory). */
void pq_clear(struct pq *q);
/* Bucket with the smallest head, or -1 if empty. */
long pq_min_bucket(const struct pq *q);
static inline const struct pq_item *pq_head(const struct pq *q, long b)
{
    return &q->b[b].heap[0];
}
struct pq_item pq_pop(struct pq *q, long b);
/* Starts jobs in key order.  backfill=false: stop at the first that does
 * not fit (it blocks the rest); true: pass over it, so smaller jobs behind
 * it may start.  Returns the number started, or a negative code. */
long pq_fill(struct pq *q, const struct pol_view *v, struct pol_ctx *x,
             enum plc_mode mode, bool backfill);

#endif
