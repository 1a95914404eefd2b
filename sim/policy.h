/*
 * sim/policy.h - the policy contract (prefix pol_): what the engine shows a
 * scheduling policy, what the policy may ask of it, and the vtable it
 * implements.  The engine owns this side of the line (sim/engine.c
 * implements the services); policies, built in or loaded from a shared
 * object (--policy PATH.so), are written against this header alone and
 * the policy kit (policies/kit.h), and link nothing of dlsim: every action,
 * prediction and placement arrives through the services table in the view
 * (as Redis modules get theirs), so one contract serves C built-ins,
 * plug-ins and, later, other languages.  The contract is versioned:
 * DLSIM_POLICY_ABI changes whenever a struct below or the services table
 * changes, and dlsim refuses a plug-in built for another version.
 *
 * A policy is a decision component (Batsim's: events in, decisions out).
 * The engine tells it about jobs that arrive (enqueue, after the optional
 * admit), jobs that complete (finished) and running jobs whose speed
 * changed (rate_changed), and once per simulated instant calls schedule()
 * with a read-only view of the cluster and the jobs.  The policy answers
 * with actions -- start a job on these GPUs, preempt a running job, wake me
 * at time t -- through pol_start, pol_preempt and pol_wake.  The engine
 * validates each action and applies it at once, so the view reflects the
 * policy's own earlier actions of the same call; an invalid action is
 * refused (nonzero return) and fails the run, so a buggy policy cannot
 * corrupt the cluster.
 *
 * No hook runs while that policy's schedule() runs: the policy knows what
 * its own actions did (a job it started, a job it preempted and must queue
 * again), and rate changes its actions cause to other jobs are delivered
 * through rate_changed after schedule() returns, in the order they
 * happened, one call per job.
 *
 * Lifetimes: the view and the pointers in it are valid only during the call
 * they are passed to; state a policy keeps across calls is its own.
 *
 * Job state machine (moved only by the engine, sim/engine.c):
 *
 *     FUTURE --arrival--> QUEUED --start--> RUNNING --complete--> DONE
 *        |                  ^                  |
 *        +--never fits--> REJECTED  <-preempt--+   (back to QUEUED)
 */
#ifndef DLSIM_SIM_POLICY_H
#define DLSIM_SIM_POLICY_H

#include "sim/cluster/cluster.h"
#include "traces/trace.h"

#ifdef DLSIM_RT_AUDIT
#include <stdio.h>
#include <stdlib.h>
#endif

/* The contract's version; a plug-in records the one it was built for. */
#define DLSIM_POLICY_ABI 4      /* 3: pol_resize; job_rt.resizes.  4: run
                                   state by slot (pol_rt), only for jobs
                                   in the system; the state apart
                                   (pol_state) */

/* The most jobs one GPU can ever hold (the run's own limit is the view's
 * max_share, from --models max_jobs_per_gpu). */
#define POL_MAX_SHARE 16

struct pol_services;

enum job_state { JOB_FUTURE, JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_REJECTED };

/* A job's run state while it is in the system, owned by the engine,
 * read-only to policies (pol_rt).  It exists from the job's arrival (its
 * admit and enqueue hooks see it) until its finished hook returns, or
 * until its admit hook refuses it: a job not yet arrived, done or rejected
 * has none, and the engine keeps only what its outputs need.  So a run
 * holds run state for the jobs queued or running at once, not for the
 * whole trace. */
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
    double gpu_us;              /* GPU-time held so far (GPUs x us) */
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
    uint32_t resizes;           /* pol_resize actions applied to it */
};

/* What a policy sees.  Valid only during the call it is passed to. */
struct pol_view {
    simtime_t now;
    const struct cluster *clu;
    const struct trc_job *jobs; /* the trace, by job index */
    /* run state, by slot: a job's is rts[rt_slot[j]] while it is in the
     * system (pol_rt); a slot is reused once its job has left */
    const struct job_rt *rts;
    const uint32_t *rt_slot;    /* [njobs] */
    const uint8_t *state;       /* [njobs] enum job_state (pol_state) */
    uint32_t njobs;
    uint32_t nqueued, nrunning;
    /* who is on each GPU: occ[g * max_share + k], k < nocc[g] */
    const uint8_t *nocc;
    const uint32_t *occ;
    uint32_t max_share;
    const double *mem_used;     /* [ngpus] GB held by the jobs on a GPU
                                   (jobs of unknown memory count 0) */
    const float *mem;           /* [njobs] a job's GB per GPU under the
                                   run's models, < 0 unknown; NULL where
                                   no job's is known (pol_mem_gb) */
    /* the engine's services (actions, predictions, placement) and its
     * handle for them; policies go through the pol_ functions below */
    const struct pol_services *svc;
    const void *impl;
};

/* The jobs on GPU g (*n of them). */
static inline const uint32_t *pol_gpu_jobs(const struct pol_view *v,
                                           uint32_t g, uint32_t *n)
{
    *n = v->nocc[g];
    return v->occ + (size_t)g * v->max_share;
}

/* Job j's state (enum job_state), whatever it is: a job's run state
 * (pol_rt) is there only while it is queued or running. */
static inline enum job_state pol_state(const struct pol_view *v, uint32_t j)
{
    return (enum job_state)v->state[j];
}

/* The run state of job j, queued or running (or in its own admit or
 * finished hook).  Any other job's reads as that of no job (slot 0): never
 * started, holding nothing, at generation 0 (its state: pol_state).  Built with -DDLSIM_RT_AUDIT (the sanitizer
 * test build), such a read aborts with the job's id: a policy's tests
 * show where it reads what is no longer there. */
static inline const struct job_rt *pol_rt(const struct pol_view *v, uint32_t j)
{
#ifdef DLSIM_RT_AUDIT
    if (!v->rt_slot[j]) {
        fprintf(stderr, "DLSIM_RT_AUDIT: the run state of job %u, which is "
                "not in the system (state %d), was read\n", j, v->state[j]);
        abort();
    }
#endif
    return &v->rts[v->rt_slot[j]];
}

/* Remaining work of job j at v->now (reference-GPU microseconds). */
static inline double pol_remaining(const struct pol_view *v, uint32_t j)
{
    const struct job_rt *r = pol_rt(v, j);
    double w = r->remaining - r->rate * (double)(v->now - r->settled);
    return w > 0 ? w : 0;
}

/* Work (reference-GPU us) job j has done since its current run began. */
static inline double pol_gained(const struct pol_view *v, uint32_t j)
{
    return pol_rt(v, j)->start_remaining - pol_remaining(v, j);
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

/* ----------------------------------------------------------- services */

/* The engine's handle for a policy's actions during schedule(). */
struct pol_ctx {
    const struct pol_services *svc;
    void *impl;
};

/* What the engine offers a policy.  Policies call the pol_ wrappers below
 * rather than these pointers. */
struct pol_services {
    uint32_t abi;               /* DLSIM_POLICY_ABI of the engine */
    /* actions (schedule() only) */
    int (*start)(struct pol_ctx *x, uint32_t job, const uint32_t *gpus,
                 uint32_t n, bool share);
    int (*preempt)(struct pol_ctx *x, uint32_t job, double extra_work);
    void (*wake)(struct pol_ctx *x, simtime_t at);
    /* predictions: what the run's models let a policy know */
    double (*pred_runtime)(const struct pol_view *v, uint32_t job,
                           uint32_t type, uint32_t n, bool spread);
    /* utilizations are per GPU type; type SIM_NONE = the job's current
     * (or last) type once it has started, else its required type, else
     * the cluster's reference type */
    double (*pred_util)(const struct pol_view *v, uint32_t job, uint32_t type);
    /* ground truth a policy reads on purpose: a job's solo utilization as
     * measured while it runs (Gandiva profiles it); unknown = 1 */
    double (*measured_util)(const struct pol_view *v, uint32_t job,
                            uint32_t type);
    /* placement (sim/placement.c) */
    bool (*place)(const struct cluster *c, uint32_t ngpus, uint32_t req_type,
                  enum plc_mode mode, uint32_t *type, uint32_t *gpus);
    bool (*ever_fits)(const struct cluster *c, uint32_t ngpus,
                      uint32_t req_type, enum plc_mode mode);
    bool (*spread)(const struct cluster *c, uint32_t type,
                   const uint32_t *gpus, uint32_t n);
    /* actions, ABI 3 */
    int (*resize)(struct pol_ctx *x, uint32_t job, const uint32_t *gpus,
                  uint32_t n);
};

/* Starts queued job on gpus[0..num_gpus) of one type.  0 or DL_ECHECK. */
static inline int pol_start(struct pol_ctx *x, uint32_t job, const uint32_t *gpus)
{
    return x->svc->start(x, job, gpus, UINT32_MAX, false);
}
/* Elastic start: queued job on n GPUs, 1 <= n <= its num_gpus, each free;
 * it runs at the runtime model's speed for n GPUs until it stops.  0 or
 * DL_ECHECK. */
static inline int pol_start_n(struct pol_ctx *x, uint32_t job,
                              const uint32_t *gpus, uint32_t n)
{
    return x->svc->start(x, job, gpus, n, false);
}
/* Starts queued job on gpus[0..num_gpus) of one type, each free or already
 * running other jobs: co-location.  Each GPU then holds at most the run's
 * max_share jobs (the models' max_jobs_per_gpu) and, where the jobs'
 * memory is known, no more GB than the type has.  The jobs sharing a GPU
 * run at the rates of the slowdown model.  0 or DL_ECHECK. */
static inline int pol_colocate(struct pol_ctx *x, uint32_t job,
                               const uint32_t *gpus)
{
    return x->svc->start(x, job, gpus, UINT32_MAX, true);
}
/* Stops running job and returns it to the QUEUED state (the policy queues
 * it again itself: no enqueue hook runs); extra_work (reference-GPU us) is
 * added to its remaining work (checkpoint/restore cost).  Within one
 * instant, actions cancel out: a job preempted and restarted on the same
 * GPUs counts no preemption and pays no cost, and a job started and then
 * preempted was never started (no cost, no count, no start time).  One
 * restarted on other GPUs moved: a preemption, counted and paid. */
static inline int pol_preempt(struct pol_ctx *x, uint32_t job, double extra_work)
{
    return x->svc->preempt(x, job, extra_work);
}
/* Resizes running job to gpus[0..n) (sorted, 1 <= n <= its num_gpus, all
 * of the type it runs on, each either one of its own GPUs or free): an
 * elastic gang grows into idle GPUs, or shrinks.  The job must hold its
 * GPUs alone (a co-located gang is not resized).  Its work done so far is
 * settled at its old rate; the rest runs at the runtime model's solo
 * speed for n GPUs on that placement (as pol_start_n), so the remaining
 * time scales by exactly the ratio of the two speeds.  GPUs it no longer
 * holds are free at once.  No preemption is counted and no cost is paid
 * (job_rt.resizes counts it); the policy hears no rate_changed for it.
 * Resizing to the GPUs it holds does nothing.  0 or DL_ECHECK (refused,
 * with the reason: not running, a GPU busy, another type, ...). */
static inline int pol_resize(struct pol_ctx *x, uint32_t job,
                             const uint32_t *gpus, uint32_t n)
{
    return x->svc->resize(x, job, gpus, n);
}
/* Asks for a schedule() call at time at (> now). */
static inline void pol_wake(struct pol_ctx *x, simtime_t at)
{
    x->svc->wake(x, at);
}

/* Predicted solo run time (us) of job on its num_gpus GPUs of type,
 * consolidated or spread: the runtime model's, or the roofline's, times
 * the seeded noise of --models predict.* (models/MODELS.md). */
static inline double pol_pred_runtime(const struct pol_view *v, uint32_t job,
                                      uint32_t type, bool spread)
{
    return v->svc->pred_runtime(v, job, type, v->jobs[job].num_gpus, spread);
}
/* The same on n GPUs (an elastic start). */
static inline double pol_pred_runtime_n(const struct pol_view *v, uint32_t job,
                                        uint32_t type, uint32_t n, bool spread)
{
    return v->svc->pred_runtime(v, job, type, n, spread);
}
/* Predicted solo utilization, (0, 1], on the job's current (or last)
 * GPU type once it has started, else on its required type, else on the
 * reference type. */
static inline double pol_pred_util(const struct pol_view *v, uint32_t job)
{
    return v->svc->pred_util(v, job, SIM_NONE);
}
/* The same on GPU type `type` (a job's utilization differs by type:
 * models/MODELS.md). */
static inline double pol_pred_util_on(const struct pol_view *v, uint32_t job,
                                      uint32_t type)
{
    return v->svc->pred_util(v, job, type);
}
/* Measured (true) solo utilization, for policies that profile jobs: on the
 * type it runs or last ran on (what a profiler saw), before its first
 * start on its required type, else the reference type. */
static inline double pol_measured_util(const struct pol_view *v, uint32_t job)
{
    return v->svc->measured_util(v, job, SIM_NONE);
}
/* GB per GPU job uses, 0 when unknown. */
static inline double pol_mem_gb(const struct pol_view *v, uint32_t job)
{
    return v->mem && v->mem[job] > 0 ? v->mem[job] : 0;
}
/* plc_find (sim/sim.h) through the engine. */
static inline bool pol_place(const struct pol_view *v, uint32_t ngpus,
                             uint32_t req_type, enum plc_mode mode,
                             uint32_t *type, uint32_t *gpus)
{
    return v->svc->place(v->clu, ngpus, req_type, mode, type, gpus);
}
static inline bool pol_ever_fits(const struct pol_view *v, uint32_t ngpus,
                                 uint32_t req_type, enum plc_mode mode)
{
    return v->svc->ever_fits(v->clu, ngpus, req_type, mode);
}
/* Whether gpus[0..n) (sorted, one type) lie on more nodes than the fewest
 * that can hold n GPUs of that type. */
static inline bool pol_spread(const struct pol_view *v, uint32_t type,
                              const uint32_t *gpus, uint32_t n)
{
    return v->svc->spread(v->clu, type, gpus, n);
}

/* ----------------------------------------------------------- the vtable */

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

struct policy {
    const char *name;
    const char *summary;        /* one line */
    const char *blocking;       /* what happens to a job next in order
                                   that does not fit */
    const struct pol_opt *opts; /* NULL-key terminated; placement= is
                                   common to all and not listed here */
    /* Creates the policy's state from validated args (every option of
     * opts present, defaults filled in) for the run whose initial view is
     * v (the cluster, the jobs, all FUTURE); DL_EINPUT on a bad value, with
     * err naming it. */
    int (*create)(void **state, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *err);
    void (*destroy)(void *state);
    /* Optional: false rejects the arriving job. */
    bool (*admit)(void *state, const struct pol_view *v, uint32_t job);
    /* A job arrived and is queued. */
    void (*enqueue)(void *state, const struct pol_view *v, uint32_t job);
    /* Optional: a running job's rate (so its finish_at) changed, by a
     * co-runner's start or stop (outside schedule(), or, for the policy's
     * own actions, after schedule() returns). */
    void (*rate_changed)(void *state, const struct pol_view *v, uint32_t job);
    /* Optional: a running job completed. */
    void (*finished)(void *state, const struct pol_view *v, uint32_t job);
    void (*schedule)(void *state, const struct pol_view *v, struct pol_ctx *x);
    /* How many jobs the policy holds queued (checked by --check). */
    uint32_t (*queued)(void *state);
};

/* What a plug-in exports, under the name DLSIM_POLICY_SYMBOL: the contract
 * version it was built for and its policies.  DLSIM_POLICY_PLUGIN(...)
 * defines it:
 *
 *     DLSIM_POLICY_PLUGIN(&my_policy, &my_other_policy);
 */
struct pol_plugin {
    uint32_t abi;               /* DLSIM_POLICY_ABI when it was built */
    const struct policy *const *policies;   /* NULL-terminated */
};
#define DLSIM_POLICY_SYMBOL "dlsim_policy_plugin"
#define DLSIM_POLICY_PLUGIN(...)                                             \
    const struct pol_plugin dlsim_policy_plugin = {                          \
        DLSIM_POLICY_ABI,                                                    \
        (const struct policy *const[]){ __VA_ARGS__, NULL },                 \
    }

#endif
