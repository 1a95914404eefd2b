/*
 * sim/api/dlsim.h - libdlsim.so's public interface (prefix dlsim_): what
 * the Python package (python/dlsim, bound with ctypes) and any other
 * foreign caller use.  Only what this header declares is exported; every
 * other symbol of the shared library is hidden.  Plain C types throughout,
 * so a binding needs no compiler.
 *
 * Errors never end the process: every call returns a DL_ code (0, or
 * negative: DL_EINPUT bad input, DL_EIO an I/O error, DL_ECHECK a failed
 * run) and fills a struct dlsim_error with the file, line, column and
 * message the command line would print.
 *
 * A policy written in another language is a C policy of the contract
 * (sim/policy.h) like any other: a shim (sim/api/pyshim.c) whose
 * schedule() hands the instant's events to one foreign callback, which
 * decides through the dlsim_sched_* calls below; the engine validates
 * every action as it does a built-in's.  The ABI is versioned:
 * DLSIM_API_VERSION changes whenever a struct here changes.
 */
#ifndef DLSIM_API_DLSIM_H
#define DLSIM_API_DLSIM_H

#include "sim/policy.h"

#define DLSIM_API __attribute__((visibility("default")))
#define DLSIM_API_VERSION 2

struct dlsim_error {
    int32_t code;               /* the DL_ code, 0 when none */
    int32_t pad;
    int64_t line, col;          /* 0 when not known */
    char file[512];             /* "" when none */
    char msg[512];
};

/* One foreign policy's hook: called once per simulated instant, inside
 * the engine's schedule() call, with what happened since the last call. */
struct dlsim_sched;             /* opaque: valid only during the call */
enum dlsim_event { DLSIM_EV_ENQUEUE, DLSIM_EV_FINISHED, DLSIM_EV_RATE };
struct dlsim_instant {
    int64_t now_us;
    const uint32_t *events;     /* nevents pairs (enum dlsim_event, job),
                                   in the order the engine raised them */
    uint32_t nevents;
    /* the queued and the running jobs, in no fixed order (the counts are
     * live: the policy's own actions change them during the call) */
    const uint32_t *nqueued, *nrunning;
    const uint32_t *queued, *running;
    const struct trc_job *jobs; /* the trace, by job index */
    /* run state by slot, a job's at rts[rt_slot[j]] while it is queued
     * or running (slot 0, all zero, otherwise); its state always */
    const struct job_rt *rts;
    const uint32_t *rt_slot;
    const uint8_t *state;       /* enum job_state, by job index */
    uint32_t njobs;
};
struct dlsim_py {
    const char *name;           /* the policy's name in messages */
    int32_t pool;               /* the run's placement mode (its arrival
                                   check): 0 consolidated, 1 pool */
    /* 0, or nonzero when the foreign code failed (its exception is its
     * own to report; the run then fails) */
    int (*schedule)(struct dlsim_sched *s, const struct dlsim_instant *in);
};

struct dlsim_opts {
    uint32_t version;           /* DLSIM_API_VERSION */
    uint32_t nmodels;
    const char *trace;          /* native trace file (required) */
    const char *cluster;        /* cluster YAML, NULL = built-in demo-256 */
    const char *policy;         /* NAME[:k=v,...]; with py, what outputs
                                   call the policy */
    const char *out;            /* output directory, NULL = none */
    const char *command;        /* summary.json's command, NULL = none */
    const char *const *models;  /* --models arguments [nmodels] */
    double load;                /* --load, 0 = the trace's own arrivals */
    double pad;
    const char *sample;         /* timeseries interval in seconds, as
                                   --sample takes it; NULL = 300 */
    uint64_t seed;
    int32_t check, strict, quiet;
    const struct dlsim_py *py;  /* a foreign policy, or NULL */
};

struct dlsim_stats {
    double wall_seconds;        /* the engine's */
    double cpu_setup, cpu_engine, cpu_write;
    double load_factor;         /* --load's factor on the gaps, else 1 */
    uint64_t events;
};

DLSIM_API uint32_t dlsim_version(void);
/* sizeof of the structs a binding mirrors: "trc_job", "job_rt",
 * "dlsim_instant", "dlsim_error", "dlsim_opts", "dlsim_stats",
 * "dlsim_py"; 0 for another name. */
DLSIM_API size_t dlsim_sizeof(const char *what);
/* One run, as `dlsim run` does it (the same checks in the same order,
 * the same files).  0 or a DL_ code with err. */
DLSIM_API int dlsim_run(const struct dlsim_opts *o, struct dlsim_stats *st,
                        struct dlsim_error *err);
/* The command line in this process (argv[0] = "dlsim"), standard output
 * checked as the executable does; with py, a `run --policy py:...` uses
 * that policy.  The exit status. */
DLSIM_API int dlsim_cli(int argc, char **argv, const struct dlsim_py *py);
/* A sweep (sim/sweep/sweep.h).  0 or a DL_ code; its messages on stderr. */
DLSIM_API int dlsim_sweep(const char *spec, const char *out, long jobs,
                          int32_t resume, int32_t quiet, int32_t strict);

/* The built-in policies: i = 0.. until NULL; *summary and *blocking may
 * be NULL.  dlsim_policy_opt: the k-th option of policy i (i = -1: the
 * options every policy takes), NULL after the last. */
DLSIM_API const char *dlsim_policy(int32_t i, const char **summary,
                                   const char **blocking);
DLSIM_API const char *dlsim_policy_opt(int32_t i, int32_t k, const char **def,
                                       const char **help);

/* ---- during a foreign schedule() call only ---- */

/* Actions, validated by the engine: 0, or DL_ECHECK with the reason in
 * dlsim_sched_failure (the run then fails).  gpus sorted; n = UINT32_MAX:
 * the job's num_gpus.  cost_us: work added (checkpoint). */
DLSIM_API int dlsim_sched_start(struct dlsim_sched *s, uint32_t job,
                                const uint32_t *gpus, uint32_t n, int32_t share);
DLSIM_API int dlsim_sched_preempt(struct dlsim_sched *s, uint32_t job,
                                  double cost_us);
DLSIM_API void dlsim_sched_wake(struct dlsim_sched *s, int64_t at_us);
DLSIM_API const char *dlsim_sched_failure(const struct dlsim_sched *s);
/* plc_find: 1 and the type and sorted GPUs (gpus[ngpus]), or 0. */
DLSIM_API int dlsim_sched_place(const struct dlsim_sched *s, uint32_t ngpus,
                                uint32_t req_type, int32_t pool,
                                uint32_t *type, uint32_t *gpus);
DLSIM_API double dlsim_sched_pred_runtime(const struct dlsim_sched *s,
                                          uint32_t job, uint32_t type,
                                          uint32_t n, int32_t spread);
DLSIM_API double dlsim_sched_pred_util(const struct dlsim_sched *s,
                                       uint32_t job, uint32_t type);
/* The cluster: counts; a type's name, GPUs and free GPUs; a node's type,
 * GPUs, free GPUs and first GPU; the jobs on GPU g (into jobs[max_share],
 * their count returned); the type of a name (UINT32_MAX unknown). */
DLSIM_API void dlsim_sched_cluster(const struct dlsim_sched *s, uint32_t *ntypes,
                                   uint32_t *nnodes, uint32_t *ngpus,
                                   uint32_t *ref_type, uint32_t *max_share);
DLSIM_API const char *dlsim_sched_type(const struct dlsim_sched *s, uint32_t t,
                                       uint32_t *total, uint32_t *nfree);
DLSIM_API void dlsim_sched_node(const struct dlsim_sched *s, uint32_t node,
                                uint32_t *type, uint32_t *ngpus,
                                uint32_t *nfree, uint32_t *first_gpu);
DLSIM_API uint32_t dlsim_sched_gpu_jobs(const struct dlsim_sched *s, uint32_t g,
                                        uint32_t *jobs);
DLSIM_API uint32_t dlsim_sched_type_find(const struct dlsim_sched *s,
                                         const char *name);

#endif
