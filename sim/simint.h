/*
 * sim/simint.h - shared inside sim/ only: the event queue (evq_), the
 * engine's state (eng_), metrics (met_) and writers (out_).
 */
#ifndef DLSIM_SIMINT_H
#define DLSIM_SIMINT_H

#include "sim/sim.h"
#include "sim/policy.h"
#include "traces/trace.h"
#include "models/model.h"

/* ---------------------------------------------------------- event queue */

enum evq_kind { EV_FINISH, EV_WAKE };

/* Ordered by (t, seq): equal times pop in insertion order. */
struct evq_item {
    simtime_t t;
    uint64_t seq;
    uint32_t job, gen;          /* EV_FINISH: stale unless gen matches */
    uint32_t kind;
};

struct evq {
    struct evq_item *a;
    size_t n, cap;
    uint64_t seq;
};

void evq_init(struct evq *q);
void evq_free(struct evq *q);
void evq_push(struct evq *q, simtime_t t, uint32_t kind, uint32_t job, uint32_t gen);
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

/* --------------------------------------------------------------- engine */

struct eng_opts {
    const char *policy;         /* "NAME[:k=v,...]" as given, for outputs */
    const struct policy *pol;   /* the policy (parsed by the caller:
                                   pol_parse in policies/policy.h) */
    const struct pol_args *args;    /* its options, defaults filled in
                                   (NULL: none, consolidated placement) */
    uint64_t seed;
    bool check;                 /* verify invariants after every instant */
    simtime_t sample;           /* timeseries interval; 0 = none */
    struct dl_diag *diag;       /* warnings (may be NULL) */
    const struct mdl_spec *models;  /* --models; NULL = none */
    FILE *progress;             /* a terminal: after 1 s of wall time, a
                                   redrawn line of simulated time, events
                                   and jobs done (NULL = none) */
};

/* The most timeseries rows a run keeps (about 160 MB); a run that would
 * need more fails with a message asking for a larger --sample. */
#define ENG_MAX_TS_ROWS 4000000

struct ts_row {
    simtime_t t;
    uint32_t queued, running, busy;
    double util_alloc, util_eff, util_useful;
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
    uint32_t *pending_mark;     /* [njobs] npending + 1 at when listed */
    struct mdl_perf *perf;      /* the run's models (owned) */
    struct job_rt *rt;          /* [njobs] */
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
    uint32_t *touched;          /* scratch: jobs whose co-runners changed */
    size_t ntouched, captouched;
    uint32_t *scratch;          /* scratch: GPUs, [max gang] */
    uint32_t shared_gpus;       /* GPUs with >= 2 jobs */
    double shared_gpu_us;       /* integral of shared_gpus dt */
    uint32_t *slots;            /* current allocations, sum(num_gpus) */
    uint32_t *first;            /* first-start placements, same layout */
    uint32_t *running;          /* ids of running jobs (unordered) */
    uint32_t *running_pos;      /* [njobs] index into running */
    struct evq evq;

    simtime_t now;
    uint32_t next_arrival;
    uint32_t nqueued, nrunning, ndone, nrejected, nfuture;
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
    double work_done;           /* integral of work_rate dt: GPU work done,
                                   reference-GPU us (tests compare it) */
    simtime_t first_submit, last_finish, last_instant;

    struct ts_row *ts;
    size_t nts, capts;
    simtime_t next_sample;

    int failed;
    char fail_msg[512];
    double wall_seconds;
};

/* Creates an engine for one run; NULL and err filled on a bad policy. */
struct eng *eng_new(const struct trace *t, struct cluster *c,
                    const struct eng_opts *o, struct dl_error *err);
/* Whether policy p accepts options a: creates it once on cluster c with
 * no jobs (its create() sees that initial view) and destroys it.  0 or
 * DL_EINPUT with err. */
int eng_check_policy(const struct policy *p, const struct pol_args *a,
                     struct cluster *c, struct dl_error *err);
/* Runs to the end.  0, or DL_ECHECK with e->fail_msg. */
int eng_run(struct eng *e);
void eng_free(struct eng *e);
/* Changes a running job's solo rate (work units per us) from now on; it
 * runs at that times its co-location factor: settles its remaining work
 * at the old rate, predicts its completion at the new one (the old
 * completion event goes stale) and tells the policy.  (Co-location changes
 * rates through the same path.)  0 or DL_ECHECK if j is not running or
 * rate is not positive. */
int eng_set_rate(struct eng *e, uint32_t j, double rate);
/* --load under the run's models: rescales t's arrival gaps by one factor
 * (*factor) so that its offered load, each job's work at its own speeds
 * under models (NULL: the cluster file's speeds), is exactly load (SPEC 5;
 * trc_scale_load_caps).  0 or DL_EINPUT. */
int eng_scale_load(struct trace *t, const struct cluster *c,
                   const struct mdl_spec *models, double load,
                   double *factor, struct dl_error *err);
/* The first-start placement of job j (NULL if it never started). */
const uint32_t *eng_first_gpus(const struct eng *e, uint32_t j);

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
 * slowest GPU given the co-runners there (j itself skipped). */
double shr_factor(const struct eng *e, uint32_t j, uint32_t type,
                  const uint32_t *gpus, uint32_t n);
/* Job j joins gpus[0..n), credited at factor f (rate / solo rate); the
 * GPUs that were empty are left in e->scratch, their count returned. */
uint32_t shr_join(struct eng *e, uint32_t j, const uint32_t *gpus, uint32_t n,
                  double f);
/* Job j leaves its GPUs; those left empty in e->scratch (count returned),
 * *nshared = those still holding co-runners. */
uint32_t shr_leave(struct eng *e, uint32_t j, uint32_t *nshared);
/* Running job j's useful credit follows its rate / base_rate. */
void shr_credit(struct eng *e, uint32_t j);
/* The distinct jobs on gpus[0..n) but skip, into e->touched. */
void shr_neighbours(struct eng *e, const uint32_t *gpus, uint32_t n,
                    uint32_t skip);

/* -------------------------------------------------------------- metrics */

struct met_summary {
    uint32_t jobs, finished, rejected;
    simtime_t makespan;
    double avg_jct, p50_jct, p95_jct, p99_jct;     /* seconds */
    double avg_wait, p50_wait, p99_wait;            /* seconds */
    uint32_t qos_jobs, qos_met;
    double qos_rate;            /* NaN-free: 0 jobs -> 0 (json: null) */
    double util_alloc, util_eff, util_useful;
    /* the same over the arrival window (first to last submit); NAN when
     * the window is empty */
    double util_alloc_win, util_eff_win, util_useful_win;
    simtime_t makespan_floor;   /* max over finished jobs of submit + solo
                                   run time on the fastest type it may use,
                                   minus the first submit */
    double offered_load;        /* NAN when undefined */
    uint32_t jobs_src[MDL_NSRC];/* jobs per model source (enum mdl_src):
                                   of the type it last ran on, else of the
                                   reference type */
    uint64_t preemptions, events;
    double colocated_frac;      /* shared GPU-time over held GPU-time */
    uint32_t colocated_jobs;    /* finished jobs ever slowed by sharing */
    double interference;        /* mean over finished jobs of run time
                                   over run time at their solo rates */
};
void met_summarize(const struct eng *e, struct met_summary *m);

/* -------------------------------------------------------------- outputs */

/* How a run was made, for summary.json (SPEC 4): enough to redo it and to
 * tell two runs' inputs apart. */
struct out_prov {
    const char *command;        /* the command line, shell-quoted; NULL =
                                   not recorded */
    const struct mdl_spec *models;  /* --models, NULL = none */
    double load;                /* --load, 0 = the trace's own arrivals */
    bool has_trace_crc, has_cluster_crc;    /* false: no file (generated,
                                               built-in) */
    uint32_t trace_crc32, cluster_crc32;    /* of the files' bytes */
    bool strict;                /* --strict */
    const struct dl_diag *diag; /* the run's warnings (NULL = none) */
};

/* The provenance of a run of trace file trace_path (NULL: none) on
 * cluster file cluster_path (NULL: the built-in one): computes the two
 * CRC-32s.  0 or DL_EIO. */
int out_prov_files(struct out_prov *p, const char *trace_path,
                   const char *cluster_path, struct dl_error *err);
/* "dlsim ARG ..." with each argument shell-quoted where it needs it,
 * less --out DIR (the outputs do not depend on where they go, so a rerun
 * elsewhere writes the same summary.json); malloc'd. */
char *out_command_line(int argc, char **argv);

/* s as a JSON string, with summary.json's escapes (\" \\ and \u00XX for
 * bytes below 0x20). */
void out_json_str(FILE *f, const char *s);

/* summary.json's keys in the order out_write_run writes them. */
extern const char *const out_summary_keys[];
extern const size_t out_nsummary_keys;

/* Writes jobs.csv, timeseries.csv and summary.json into dir (created if
 * missing), each through a temporary file renamed into place, summary.json
 * last.  pv may be NULL (no provenance known).  0 or DL_EIO with err. */
int out_write_run(const struct eng *e, const struct met_summary *m,
                  const char *dir, const char *policy, const char *trace,
                  const char *cluster, const struct out_prov *pv,
                  struct dl_error *err);
/* mkdir -p: dir and its missing parents (mode 0777).  0, or -1 with
 * errno. */
int out_mkdirs(const char *dir);
/* The stdout table: one header line, then out_table_row per run. */
void out_table_header(FILE *to);
void out_table_row(FILE *to, const char *policy, const struct met_summary *m);

#endif
