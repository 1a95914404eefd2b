/*
 * sim/simint.h - inside the engine layer only: the event queue (evq_), the
 * engine's state (struct eng), the co-location model (shr_, share.c) and
 * the invariant checks (check.c).  Tests read it too.
 */
#ifndef DLSIM_SIMINT_H
#define DLSIM_SIMINT_H

#include "sim/sim.h"

/* ---------------------------------------------------------- event queue */

enum evq_kind { EV_FINISH, EV_WAKE };

/* Ordered by (t, seq): equal times pop in insertion order. */
struct evq_item {
    simtime_t t;
    uint64_t seq;
    uint32_t job, gen;          /* EV_FINISH: stale unless gen matches */
    uint32_t kind;
    uint32_t slot;              /* EV_FINISH: the job's run-state slot (its
                                   gen is read there, not through the
                                   job's rt_slot: one load less) */
};

struct evq {
    struct evq_item *a;
    size_t n, cap;
    uint64_t seq;
};

void evq_init(struct evq *q);
void evq_free(struct evq *q);
void evq_push(struct evq *q, simtime_t t, uint32_t kind, uint32_t job, uint32_t gen);
void evq_push_slot(struct evq *q, simtime_t t, uint32_t kind, uint32_t job,
                   uint32_t gen, uint32_t slot);
static inline const struct evq_item *evq_top(const struct evq *q)
{
    return q->n ? &q->a[0] : NULL;
}
struct evq_item evq_pop(struct evq *q);
/* Drops every item for which dead(item, ctx) is true and restores the
 * heap, O(n).  The order is a total order on (t, seq), so the result is
 * the same whatever the heap's layout. */
void evq_compact(struct evq *q, bool (*dead)(const struct evq_item *, void *),
                 void *ctx);

/* What stays of job j once it has left the system: what jobs.csv,
 * summary.json and the tests read.  Written as it leaves (record, and
 * gpus_off at its arrival for a gang); while it is in the system its run
 * state says these things instead.  Never read by a policy. */
struct job_end {
    simtime_t first_start;      /* SIM_NEVER until first started */
    simtime_t finish;           /* SIM_NEVER until done */
    simtime_t wait;             /* total time queued */
    uint32_t gpus_off;          /* its allocation's place in eng.slots; for
                                   a job of one GPU, once it has left, that
                                   GPU (eng_first_gpus) */
    uint32_t preemptions;
};

struct eng {
    const struct trace *tr;
    struct cluster *clu;
    struct eng_opts o;
    const struct policy *pol;
    void *pst;
    struct pol_args args;
    enum plc_mode mode;
    struct pol_ctx ctx;         /* {services, this engine} */
    bool in_schedule;           /* the policy's schedule() is running */
    uint32_t *pending;          /* jobs whose rate changed meanwhile, to
                                   tell the policy after it returns */
    size_t npending, cappending;
    uint32_t *pending_mark;     /* by slot: 1 when listed (NULL: the
                                   policy has no rate_changed) */
    struct mdl_perf *perf;      /* the run's models (owned) */
    struct out_stream *stream;  /* jobs.csv as the run goes, or NULL (not
                                   owned) */
    uint32_t ready;             /* jobs [0, ready) are done or rejected */
    uint32_t published;         /* the last ready told to the stream */
    /* run state by slot, only for the jobs in the system (queued or
     * running): job j's is rts[rt_slot[j]] from its arrival to its end
     * (eng_rt); a slot is reused once its job has left.  The pool has
     * room for every job (all may wait at once), in memory that is only
     * touched as far as the most jobs in the system at once. */
    struct job_rt *rts;
    uint32_t *rt_slot;          /* [njobs], written at each arrival */
    uint32_t *free_slots;       /* slots given back, reused last in first out */
    uint32_t nfree_slots;
    uint32_t nslots;            /* slots ever used: [1, nslots); slot 0
                                   is every absent job's, zero */
    uint64_t slot_next;         /* the next arrival's allocation in slots */
    uint8_t *state;             /* [njobs] each job's enum job_state (the
                                   policies' view: pol_state) */
    struct job_end *end;        /* [njobs] each job's outcome */
    /* per job, only where a run needs them: the GPU time each job held
     * (GPUs x us), where a trace names tenants (their figures), else NULL;
     * run_us / solo_us of each job that ran slower than alone for a while,
     * reserved zero at the first such job (0: it never did, 1), else NULL */
    double *gpu_us, *interf;
    /* log(predicted / true solo run time) of each job at its first start,
     * reserved zero at the first that is not 0 (a prediction that is not
     * the truth), else NULL: every started job's is 0 */
    float *perr;
    /* the GPUs of each job's first run where it held fewer than it asks
     * (an elastic start), reserved zero at the first such job (0: all,
     * eng_first_ngpus); the type of each job's last run + 1 where that is
     * not its first run's, reserved zero at the first such job (0: the
     * first's, eng_last_type) */
    uint32_t *first_n, *last_type;
    struct job_rt *kept;        /* [njobs] with eng_opts.keep_rt: each
                                   job's run state as it left (tests) */
    bool any_user, any_vc;      /* some job names a user (a vc): the
                                   tenant tables are not empty */
    /* occupancy: occ[g * max_share + k], k < nocc[g]; the cluster's
     * gpu_job[g] is occ[g * max_share] (SIM_NONE when empty) */
    uint8_t *nocc;
    uint32_t *occ;
    uint32_t max_share;
    double *usum;               /* [ngpus] sum of solo utils on the GPU */
    double *uuse;               /* [ngpus] sum of solo util x rate / solo
                                   rate of the jobs on the GPU (each
                                   job's credited factor: job_rt.ufac) */
    double *mem_used;           /* [ngpus] GB (unknown = 0) */
    /* the slowdown of the job in occ slot k of GPU g given its co-runners
     * there, sfac[g * max_share + k], or 0 where unknown (a factor is
     * above 0): calloc'd, and every slot of a GPU whose jobs change is
     * cleared (shr_join, shr_leave), in the line its jobs are read from */
    double *sfac;
    /* per running job, by its place in running (running_pos): its factor
     * (the minimum over its GPUs) and a GPU + 1 where it is reached, 0
     * where it is 1 (shr_neighbours); NULL until the first co-location,
     * then room for as many jobs as can run at once (ngpus x max_share,
     * at most njobs) */
    struct shr_jf {
        double fmin;
        uint32_t at;
    } *jf;
    uint32_t *touched;          /* scratch: jobs whose co-runners changed */
    size_t ntouched, captouched;
    uint32_t *touch_mark;       /* by slot: touch_cur when listed in
                                   touched (calloc'd at the first
                                   co-location) */
    uint32_t touch_cur;
    uint32_t *scratch;          /* scratch: GPUs, [max gang] */
    uint32_t shared_gpus;       /* GPUs with >= 2 jobs */
    double shared_gpu_us;       /* integral of shared_gpus dt */
    uint32_t *slots;            /* current allocations of the jobs of more
                                   than one GPU, sum(num_gpus): job j's
                                   from job_end.gpus_off */
    uint32_t *gpu1;             /* by slot: the GPU of a job of one */
    /* first-start placements: a job's is its current allocation (gpus)
     * until a restart or a resize overwrites that; then it is saved in
     * first_pool, at first_off[j] - 1 (first_off is calloc'd: pages of
     * jobs never restarted are never touched) */
    uint64_t *first_off;        /* [njobs] 0 = not saved */
    uint32_t *first_pool;       /* moves as it grows: under the stream's
                                   lock while jobs.csv is streamed */
    size_t nfirst_pool, capfirst_pool;
    uint32_t *running;          /* ids of running jobs (unordered) */
    uint32_t *running_pos;      /* by slot: index into running */
    struct evq evq;

    simtime_t now;
    uint32_t next_arrival;
    uint32_t nqueued, nrunning, ndone, nrejected, nfuture;
    uint32_t nrefused;          /* of the rejected: by the policy's admit */
    uint64_t instants, events, preemptions;
    uint64_t nstale;            /* completion events made stale by
                                   preemption and still in the heap */  /* events: arrivals,
                                   completions, wake-ups, preemptions */
    uint32_t busy_gpus;         /* GPUs holding at least one job */
    double eff_gpus;            /* sum over GPUs of min(1, usum) */
    double alloc_gpu_us;        /* integral of busy_gpus dt */
    double eff_gpu_us;          /* integral of eff_gpus dt */
    double useful_gpus;         /* sum over GPUs of min(1, uuse) */
    double useful_gpu_us;       /* integral of useful_gpus dt */
    /* the three integrals at the last arrival instant (the arrival
     * window: first to last submit), once it has been reached */
    double win_alloc_us, win_eff_us, win_useful_us;
    double offered_load;        /* of the trace that runs, under the run's
                                   models (NAN when undefined) */
    double work_rate;           /* sum over running jobs of gpus*rate */
    uint64_t resizes;           /* pol_resize actions applied */
    double work_done;           /* integral of work_rate dt: GPU work done,
                                   reference-GPU us (tests compare it) */
    simtime_t first_submit, last_finish, last_instant;

    struct ts_row *ts;
    size_t nts, capts;
    simtime_t next_sample;

    int failed;
    char fail_msg[512];
    double wall_seconds;
    double cpu_seconds;         /* CPU time of eng_run's thread (jobs.csv
                                   written meanwhile is not counted) */
};

/* Once job j has left: the GPUs of its first run (if it ever started),
 * and the type of its last (SIM_NONE if it never started). */
uint32_t eng_first_ngpus(const struct eng *e, uint32_t j);
uint32_t eng_last_type(const struct eng *e, uint32_t j);

/* The solo rate of started job j on its first allocation (job_rt's
 * iso_rate as it was), from its first GPUs: what its isolated run time
 * divides its duration by.  Reads only what stays fixed while the run goes
 * (jobs.csv's writer calls it). */
double eng_iso_rate(const struct eng *e, uint32_t j);

/* The most GPUs job j can hold: its num_gpus, at most the cluster's. */
static inline uint32_t eng_room(const struct eng *e, uint32_t j)
{
    uint32_t g = e->tr->jobs[j].num_gpus;
    return g < e->clu->ngpus ? g : e->clu->ngpus;
}

/* The GPU type job j requires (its trace's gpu_type), or SIM_NONE: any,
 * or a name the cluster lacks. */
static inline uint32_t eng_req_type(const struct eng *e, uint32_t j)
{
    const char *name = e->tr->jobs[j].gpu_type;
    return name ? clu_type_find(e->clu, name) : SIM_NONE;
}

/* Job j's run state, while it is in the system (queued or running). */
static inline struct job_rt *eng_rt(const struct eng *e, uint32_t j)
{
    return &e->rts[e->rt_slot[j]];
}

/* Inside sim/: the engine's failure (fills fail_msg, returns DL_ECHECK),
 * the jobs on GPU g, and the checks of --check (sim/check.c). */
int eng_fail(struct eng *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline const uint32_t *eng_gpu_jobs(const struct eng *e, uint32_t g)
{
    return e->occ + (size_t)g * e->max_share;
}
int eng_check(struct eng *e, simtime_t prev);
int eng_check_final(struct eng *e);

/* ------------------------------------------------- co-location (share.c) */

/* The factor in (0, 1] job j runs at on gpus[0..n) of type: that of its
 * slowest GPU given the co-runners there (j itself skipped), *at a GPU + 1
 * where it is reached (0 where it is 1).  A GPU that j occupies and whose
 * jobs did not change since the last call reuses the model's answer
 * (sfac).  For a job starting beside others: from then on its factor is
 * kept (shr_keep) and followed (shr_neighbours), not walked again. */
double shr_factor(struct eng *e, uint32_t j, uint32_t type,
                  const uint32_t *gpus, uint32_t n, uint32_t *at);
/* The same, every factor asked of the model again (--check's reference). */
double shr_factor_fresh(const struct eng *e, uint32_t j, uint32_t type,
                        const uint32_t *gpus, uint32_t n);
/* Keeps running job j's factor f, reached at GPU at - 1 (at = 0: f = 1),
 * once j has its place among the running. */
static inline void shr_keep(struct eng *e, uint32_t j, double f, uint32_t at)
{
    if (e->jf)
        e->jf[e->running_pos[e->rt_slot[j]]] = (struct shr_jf){ f, at };
}
/* Running job j's factor as kept: what a walk (shr_factor) would give
 * now, once shr_neighbours has run over every GPU whose jobs changed. */
static inline double shr_kept_factor(const struct eng *e, uint32_t j)
{
    const struct shr_jf *k = e->jf ? &e->jf[e->running_pos[e->rt_slot[j]]] : NULL;
    return k && k->at ? k->fmin : 1;
}
/* Job j joins gpus[0..n), credited at factor f (rate / solo rate); the
 * GPUs that were empty are left in e->scratch, their count returned. */
uint32_t shr_join(struct eng *e, uint32_t j, const uint32_t *gpus, uint32_t n,
                  double f);
/* Job j leaves its GPUs; those left empty in e->scratch (count returned),
 * *nshared = those still holding co-runners. */
uint32_t shr_leave(struct eng *e, uint32_t j, uint32_t *nshared);
/* Running job j's useful credit follows its rate / base_rate. */
void shr_credit(struct eng *e, uint32_t j);
/* The distinct jobs on gpus[0..n) but skip, into e->touched, their kept
 * factors brought up to date with those GPUs' jobs (just changed). */
void shr_neighbours(struct eng *e, const uint32_t *gpus, uint32_t n,
                    uint32_t skip);

#endif
