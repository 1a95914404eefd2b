/*
 * sim/sim.h - the engine layer (libdlsim_engine, above sim/base,
 * sim/cluster, traces and models): one simulation of a trace over a
 * cluster under a policy, its metrics (SPEC 5) and its outputs (SPEC 4).
 * Not in this header = not API; the engine's internals are sim/simint.h.
 *
 *   sim_run  a whole run: engine, strictness, metrics, output files
 *   eng_     the event loop, for callers that drive it themselves
 *   met_     the metrics of SPEC 5 (metrics.c)
 *   out_     the files of SPEC 4, provenance, the stdout table (output.c)
 *
 * The policy contract the engine serves is sim/policy.h.
 */
#ifndef DLSIM_SIM_H
#define DLSIM_SIM_H

#include "sim/cluster/cluster.h"
#include "sim/policy.h"
#include "traces/trace.h"
#include "models/perf.h"

struct eng;                     /* opaque: sim/simint.h */

/* --------------------------------------------------------------- engine */

struct eng_opts {
    const char *policy;         /* "NAME[:k=v,...]" as given, for outputs */
    const struct policy *pol;   /* the policy (parsed by the caller:
                                   pol_parse in policies/policy.h) */
    const struct pol_args *args;    /* its options, defaults filled in
                                   (NULL: none, consolidated placement) */
    uint64_t seed;
    bool check;                 /* verify invariants after every instant */
    bool keep_rt;               /* keep each job's run state as it left
                                   (eng.kept: tests read its last run) */
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
/* After a run that ended with no job left in the system: gives back the
 * run states, everything kept per slot and the models' per-job speeds,
 * memory and utilizations (what the outputs and metrics read stays), so
 * that the metrics' own arrays do not come on top. */
void eng_drop_run_state(struct eng *e);
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
/* For a policy that forwards its decisions to another language (the
 * Python binding, sim/api/pyshim.c), given the handle x its schedule()
 * got: the engine's failure message ("t=...: why"), "" when the run has
 * not failed -- the reason an action was refused; and a failure of the
 * policy's own (an exception in its Python code), which ends the run as a
 * refused action does.  eng_policy_fail returns DL_ECHECK. */
const char *eng_policy_failure(const struct pol_ctx *x);
int eng_policy_fail(struct pol_ctx *x, const char *msg);
/* The first-start placement of job j (NULL if it never started). */
const uint32_t *eng_first_gpus(const struct eng *e, uint32_t j);

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
    double fairness_jain;       /* Jain's index over the users' mean
                                   slowdowns, NAN without users */
    double worst_user_slowdown; /* the largest of them, NAN without */
    double fairness_jain_vc;    /* the same over the VCs' mean slowdowns */
    double worst_vc_slowdown;
    uint32_t jobs_src[MDL_NSRC];/* jobs per model source (enum mdl_src):
                                   of the type it last ran on, else of the
                                   reference type */
    uint64_t preemptions, events;
    double colocated_frac;      /* shared GPU-time over held GPU-time */
    uint32_t colocated_jobs;    /* finished jobs ever slowed by sharing */
    double interference;        /* mean over finished jobs of run time
                                   over run time at their solo rates */
    /* the runtime predictions the policy saw: |log(predicted / true solo
     * run time)| on each started job's first allocation (nearest rank;
     * NAN without started jobs) */
    uint32_t pred_jobs;
    double pred_err_median, pred_err_p90;
    uint64_t resizes;           /* pol_resize actions applied */
};
void met_summarize(const struct eng *e, struct met_summary *m);

/* One tenant's figures: a user's or a virtual cluster's jobs. */
struct met_group {
    const char *name;           /* the trace's string */
    uint32_t jobs, finished, qos_jobs, qos_met;
    double avg_jct, p99_jct, avg_wait, p99_wait;   /* seconds, finished */
    double gpu_hours;           /* GPU-time held */
    double mean_slowdown;       /* of finished jobs: jct / run time alone */
};
/* The tenants (by user, or by vc when by_vc), sorted by name, malloc'd;
 * *n of them (0 when no job names one).  Jobs without the field are in
 * none. */
struct met_group *met_groups(const struct eng *e, bool by_vc, uint32_t *n);


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

/* jobs.csv of a run, written while it runs (sim/output.c says how):
 * out_stream_start opens DIR/jobs.csv's temporary file (creating DIR)
 * and starts the writer; the engine calls out_stream_publish as rows
 * become final and holds out_stream_lock while it moves its pool of first
 * placements; out_stream_abort removes the file (and the directories it
 * made, if empty) and frees the stream.  out_stream_start: 0, or
 * DL_EINPUT (an empty or over-long directory name) or DL_EIO with err. */
struct out_stream;
int out_stream_start(const struct eng *e, const char *dir,
                     struct out_stream **out, struct dl_error *err);
/* Whether a writer thread runs (a run of fewer jobs writes every row at
 * the end, and its engine need not publish or lock). */
bool out_stream_threaded(const struct out_stream *s);
void out_stream_publish(struct out_stream *s, uint32_t rows);
void out_stream_lock(struct out_stream *s);
void out_stream_unlock(struct out_stream *s);
void out_stream_abort(struct out_stream *s, const char *dir);
/* Takes the run's metrics into *m (met_summarize, on a second thread
 * while the last of jobs.csv is written), finishes and frees js, and
 * writes timeseries.csv and summary.json into dir, each through a
 * temporary file renamed into place, jobs.csv first, summary.json last.
 * *m is filled whatever happens.  pv may be NULL (no provenance known).
 * 0 or DL_EIO with err. */
int out_write_run(const struct eng *e, struct met_summary *m,
                  struct out_stream *js, const char *dir, const char *policy,
                  const char *trace, const char *cluster,
                  const struct out_prov *pv, struct dl_error *err);
/* mkdir -p: dir and its missing parents (mode 0777).  0, or -1 with
 * errno. */
int out_mkdirs(const char *dir);
/* The stdout table: one header line, then out_table_row per run. */
void out_table_header(FILE *to);
void out_table_row(FILE *to, const char *policy, const struct met_summary *m);

/* ------------------------------------------------------------- sim_run */

/* What a failed sim_run was: bad input (DL_EINPUT: a policy option, a
 * --strict warning), an invariant or an action the engine refused
 * (DL_ECHECK), or the outputs' I/O (DL_EIO). */
struct sim_result {
    struct met_summary m;       /* when 0 */
    double wall_seconds;
    /* process CPU seconds (not in any output: for `run --timing` and the
     * benchmarks): creating the engine and the policy, the run, the
     * metrics and the files */
    double cpu_setup, cpu_engine, cpu_write;
    double wall_setup, wall_write;      /* the same phases' wall time */
    uint64_t events;
};

/* This process's CPU time so far, in seconds. */
double sim_cpu_seconds(void);
/* A monotonic clock, in seconds. */
double sim_wall_seconds(void);

/* One whole run: the engine for t on c under o (o->pol parsed by the
 * caller), stopped with DL_EINPUT when o->diag is strict and holds a
 * warning (before the run: the models'; after it: a rejected job), the
 * metrics, and when dir is not NULL the outputs with provenance pv.  0, or
 * a DL_ code with err filled (nothing written). */
int sim_run(const struct trace *t, struct cluster *c, const struct eng_opts *o,
            const struct out_prov *pv, const char *dir, struct sim_result *res,
            struct dl_error *err);

/* The policies `dlsim demo` compares, in its order (its first is the
 * baseline `dlsim report` of a demo directory pairs the others with): an
 * initializer list, so that the report (which links no engine) and the
 * command share it. */
#define SIM_DEMO_POLICIES "fifo", "fifo:backfill=1", "sjf", "srtf", \
    "srtf:preempt_cost=60", "edf", "tiresias", "qos", "horus"

#endif
