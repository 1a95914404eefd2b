/*
 * traces/trace.h - the public interface of the trace layer (prefix trc_).
 *
 * A trace is the immutable list of jobs of SPEC section 2, in file order
 * (which is submit order: the reader rejects an unsorted row).  It is read
 * line by line through zlib's gz* interface, so a gzip file and a plain
 * file are told apart by content, and the text is never held whole: only
 * the per-job records and their strings (in the trace's arena) stay.
 *
 * After trc_load returns, the records are const for the rest of the run.
 * Jobs are named by their dense index (uint32_t) everywhere else.
 */
#ifndef DLSIM_TRACE_H
#define DLSIM_TRACE_H

#include "sim/cluster/cluster.h"

struct trc_job {
    const char *id;             /* unique; owned by the trace's arena */
    simtime_t submit;           /* >= 0, non-decreasing in file order */
    simtime_t duration;         /* >0, on num_gpus reference GPUs, alone */
    simtime_t deadline;         /* absolute, or SIM_NEVER when none */
    uint32_t num_gpus;          /* >= 1 */
    int32_t priority;           /* 0 when absent */
    const char *model;          /* NULL when absent */
    const char *gpu_type;       /* required GPU type name, NULL = any */
    const char *user;           /* NULL when absent */
    const char *vc;             /* virtual cluster (tenant), NULL = absent */
    float util;                 /* solo GPU utilization 0..1, <0 = unknown */
    float mem_gb;               /* per GPU, <0 = unknown */
    uint32_t line;              /* line in the file, for messages */
};

/* The largest |time| a trace may hold (submit_time, duration, deadline):
 * 10^12 s (about 31,700 years), so that sums of a few trace times cannot
 * overflow simtime_t.  Larger values are rejected as bad input. */
#define TRC_MAX_TIME (INT64_C(1000000000000) * SIM_US_PER_S)

struct trace {
    const char *path;           /* as given, for messages */
    struct trc_job *jobs;
    uint32_t njobs;
    struct arena *arena;        /* owns the strings */
};

/* Reads a native trace (plain or gzip).  Returns 0, or DL_EINPUT with err
 * naming file:line (an empty file, a missing required column, a bad
 * number, negative or zero GPUs, a duplicate id, an unsorted row, a
 * truncated gzip stream), or DL_EIO.  Unknown columns give one warning in
 * diag (may be NULL).  On failure *t is empty. */
int trc_load(const char *path, struct trace *t, struct dl_error *err,
             struct dl_diag *diag);
/* The same from an open descriptor (taken over and closed). */
int trc_load_fd(int fd, const char *name, struct trace *t,
                struct dl_error *err, struct dl_diag *diag);
/* A trace built in memory (tests): copies nothing; caller fills jobs. */
void trc_init(struct trace *t, const char *name, uint32_t njobs);
void trc_free(struct trace *t);

/* Writes a trace in the native format; gzip when path ends in ".gz".
 * Atomic: a temporary file renamed into place.  0 or DL_EIO (also when
 * path exists and is not a regular file: dl_out_check). */
int trc_write(const struct trace *t, const char *path, struct dl_error *err);

/* -------------------------------------------------------- distributions */

/* A distribution of one positive per-job quantity, from text; the syntax
 * shared by `trace gen` (durations, in seconds) and `trace annotate`
 * (util, mem_gb):
 *   "const:V"            V > 0
 *   "exp:MEAN"           MEAN > 0
 *   "lognormal:MU,SIGMA" of ln units, |MU| <= 50, 0 <= SIGMA <= 20
 *   "uniform:LO,HI"      0 <= LO <= HI, HI > 0
 *   "beta:A,B"           on [0, 1], 0.01 <= A, B <= 10000 (annotate only)
 * Every family is drawn by inversion: one uniform per value. */
enum trc_dist_kind {
    TRC_DIST_CONST, TRC_DIST_EXP, TRC_DIST_LOGNORMAL, TRC_DIST_UNIFORM,
    TRC_DIST_BETA,
};
struct trc_dist {
    enum trc_dist_kind kind;
    double a, b;                /* parameters in the order written */
};
/* 0, or -1 when spec is none of the above (the caller words the error). */
int trc_dist_parse(const char *spec, struct trc_dist *d);
/* The quantile function at u in (0, 1), unclamped. */
double trc_dist_quantile(const struct trc_dist *d, double u);

/* The seeded random streams of the trace tools, one per component
 * (STYLE 13).  A stream is a GSL mt19937 seeded with
 * trc_stream_seed(seed, component); the values are fixed forever, since
 * changing one changes every trace made with that seed. */
enum trc_stream {
    TRC_S_ARRIVAL, TRC_S_GPUS, TRC_S_DURATION, TRC_S_DEADLINE, TRC_S_MODEL,
    TRC_S_UTIL, TRC_S_MEM,
    TRC_S_GPU_TYPE,             /* trace gen --like: the gpu_type column */
    TRC_S_VC, TRC_S_USER,       /* trace annotate --vc, --user */
    TRC_NSTREAMS,               /* new streams go above this line, never
                                 * between older ones */
};
unsigned long trc_stream_seed(uint64_t seed, enum trc_stream s);

/* ------------------------------------------------------------ generator */

/* The duration distribution is a struct trc_dist spec other than beta
 * (in seconds), or "philly" (the built-in empirical default). */
struct trc_gen_opts {
    uint32_t njobs;
    double load;                /* target offered load on the cluster */
    uint64_t seed;
    const char *gpus;           /* GPU-count distribution, e.g. "1:0.7,2:0.1,..." or "philly" */
    const char *duration;       /* duration distribution (seconds) */
    double max_duration_s;      /* truncate durations (0 = none) */
    double deadline_lo, deadline_hi; /* slack range; lo 0 = no deadlines, hi 0 = lo */
    double deadline_frac;       /* fraction of jobs given a deadline */
    const char *models;         /* comma list of model names, or NULL */
};
void trc_gen_defaults(struct trc_gen_opts *o);
/* The most jobs trace gen (and --like, and demo) makes: the trace is
 * built in memory (about 100 bytes a job) and its gaps rescaled to the
 * target load before a byte is written, so a request over this is
 * refused with a message, rather than streamed: 2^24 jobs take about
 * 1.6 GB, and 10^8 would abort on memory on an ordinary machine. */
#define TRC_GEN_MAX_JOBS (UINT32_C(1) << 24)
/* Generates into t for cluster c.  0 or DL_EINPUT (bad option text). */
int trc_generate(const struct trc_gen_opts *o, const struct cluster *c,
                 struct trace *t, struct dl_error *err);

/* Prints jobs, span, GPU-count and duration distribution, and (when c is
 * non-NULL) the offered load against c: under per-job capacities caps
 * (trc_offered_load_caps; NULL = the cluster file's speeds). */
void trc_print_stats(const struct trace *t, const struct cluster *c,
                     const double *caps, FILE *to);
/* Offered load = total reference GPU-seconds / (capacity * span), where
 * capacity is the sum over GPUs of their speed. */
double trc_offered_load(const struct trace *t, const struct cluster *c);
/* (The span is last submit - first submit; NAN when it is zero or the
 * cluster has no capacity.) */

/* --load: multiplies every gap between submit times (from the first, which
 * stays) by one factor k so that the offered load on c becomes load,
 * keeping each job's size, order and deadline slack (a deadline moves with
 * its submit); times are rounded to the microsecond.  *factor = k.  0, or
 * DL_EINPUT (a load that is not > 0, an undefined offered load, a time
 * past TRC_MAX_TIME). */
int trc_scale_load(struct trace *t, const struct cluster *c, double load,
                   double *factor, struct dl_error *err);
/* The same under per-job capacities: caps[j] is the cluster's capacity at
 * job j's own speeds (the sum over GPUs of its solo rate there, reference
 * GPUs; models/perf.h mdl_perf_caps), and a job's share of the load is
 * its GPU-seconds over caps[j].  caps NULL = the cluster file's speeds for
 * every job (the functions above).  The trace layer knows no models: the
 * caller computes caps. */
double trc_offered_load_caps(const struct trace *t, const struct cluster *c,
                             const double *caps);
int trc_scale_load_caps(struct trace *t, const struct cluster *c,
                        const double *caps, double load, double *factor,
                        struct dl_error *err);

/* ------------------------------------------------------------ annotate */

/* Fills the optional per-job fields policies and models need (deadline,
 * model, util, mem_gb, vc, user) into an existing trace, seeded.  See annotate.c
 * for the draws and their independence. */
struct trc_annot_opts {
    uint64_t seed;
    double deadline_lo, deadline_hi; /* slack range; lo 0 = leave deadlines
                                      * alone, hi 0 = lo */
    double deadline_frac;       /* fraction of jobs given a deadline */
    const char *models;         /* "a,b,c" or "a:W,b:W,..."; NULL = leave */
    const char *vc, *user;      /* tenants, the same way; NULL = leave */
    const char *util;           /* distribution (struct trc_dist), clamped
                                 * to [0.01, 1]; NULL = leave */
    const char *mem;            /* distribution of GB per GPU, clamped to
                                 * [0, 1e6]; NULL = leave */
    bool overwrite;             /* redraw fields that already hold a value */
};

/* The annotated fields, in the order of struct trc_annot_stats. */
enum { TRC_A_DEADLINE, TRC_A_MODEL, TRC_A_UTIL, TRC_A_MEM, TRC_A_VC,
       TRC_A_USER, TRC_NANNOT };
extern const char *const trc_annot_name[TRC_NANNOT]; /* column names */

/* What trc_annotate did to one field, over the jobs. */
struct trc_annot_count {
    bool asked;                 /* the option was given */
    uint32_t filled;            /* set by this call (new or replaced) */
    uint32_t kept;              /* held a value, left alone */
    uint32_t replaced;          /* held a value, overwritten (in filled) */
    uint32_t cleared;           /* held a deadline, removed: overwrite and
                                 * not drawn by deadline_frac */
};
struct trc_annot_stats {
    struct trc_annot_count f[TRC_NANNOT];
};

void trc_annot_defaults(struct trc_annot_opts *o);
/* Checks o without a trace: 0 or DL_EINPUT naming the bad option. */
int trc_annot_check(const struct trc_annot_opts *o, struct dl_error *err);
/* Annotates t in place (drawn model names go into t's arena); st may be
 * NULL.  0, or DL_EINPUT (bad options) with t unchanged. */
int trc_annotate(const struct trc_annot_opts *o, struct trace *t,
                 struct trc_annot_stats *st, struct dl_error *err);

/* ------------------------------------------------------------ workloads */

/* A workload description fitted to a real trace (traces/workload.c; the
 * YAML format is documented in traces/WORKLOAD.md).  Every array and
 * string lives in the arena; trc_wl_free releases them all. */

/* An empirical quantile table: n >= 2 values q[k] at u = k / (n - 1),
 * non-decreasing.  Evaluated by interpolation between neighbours (linear,
 * or log-linear for positive tables such as durations). */
struct trc_qtab {
    uint32_t n;
    double *q;
};
/* The table's quantile at u in [0, 1]; loglin interpolates ln q when both
 * neighbours are > 0 (linearly otherwise). */
double trc_qtab_eval(const struct trc_qtab *t, double u, bool loglin);

/* Durations of the jobs of some GPU counts (a class pools rare counts). */
struct trc_wl_class {
    uint32_t *gpus;             /* the GPU counts, ascending */
    uint32_t ngpus;
    uint32_t jobs;
    double mean_s;              /* of the jobs' durations */
    double ln_mu, ln_sigma;     /* lognormal fit (information only) */
    double ln_ks;               /* its KS distance to the jobs */
    struct trc_qtab dur;        /* seconds, log-linear */
};

/* A categorical column: jobs per name (names ascending by strcmp), and
 * the rest of the jobs without a value. */
struct trc_wl_mix {
    uint32_t n;
    const char **name;
    uint32_t *jobs;
};

struct trc_workload {
    /* provenance */
    const char *source;         /* the trace's path as given */
    uint64_t source_bytes;      /* its size in bytes (0 = unknown) */
    uint32_t source_crc32;      /* zlib crc32 of its bytes */
    uint32_t njobs;
    double start_s, span_s;     /* first submit; last - first */
    /* GPU counts: exact job counts, ascending by count */
    uint32_t ngpu;
    uint32_t *gpus, *gpu_jobs;
    /* durations per class; each GPU count is in exactly one class */
    uint32_t nclass;
    struct trc_wl_class *cls;
    /* inter-arrival gaps (seconds, linear), njobs - 1 of them */
    double gap_mean_s, gap_zero_frac;
    struct trc_qtab gap;
    /* relative arrival rate by hour of day (mean 1) and day of week
     * (mean 1) of the trace clock; present when the span covers 1 day,
     * resp. 14 days */
    bool diurnal, weekly;
    double hourly[24], daily[7];
    struct trc_wl_mix models, gpu_types;
    /* deadlines: jobs with one, and slack = (deadline - submit) /
     * duration (linear); util and mem_gb likewise */
    uint32_t deadline_jobs, util_jobs, mem_jobs;
    struct trc_qtab slack, util, mem;
    struct arena *arena;
};

/* Fits w to t.  0, or DL_EINPUT (fewer than 2 jobs).  The provenance
 * fields other than source are left 0 for the caller. */
int trc_wl_fit(const struct trace *t, struct trc_workload *w,
               struct dl_error *err);
/* Writes w as YAML, deterministically and atomically.  0 or DL_EIO. */
int trc_wl_write(const struct trc_workload *w, const char *path,
                 struct dl_error *err);
/* Reads a workload file strictly (unknown or missing keys, bad values:
 * DL_EINPUT at file:line:col; DL_EIO when unreadable).  On failure *w is
 * empty (trc_wl_free is harmless). */
int trc_wl_load(const char *path, struct trc_workload *w,
                struct dl_error *err);
void trc_wl_free(struct trc_workload *w);
/* The relative arrival rate (hourly x daily weight; 1 without a profile)
 * at trace time t_s seconds. */
double trc_wl_rate(const struct trc_workload *w, double t_s);

/* How `trace gen --like` makes arrivals (traces/like.c). */
enum trc_arrivals { TRC_ARR_REPLAY, TRC_ARR_POISSON, TRC_ARR_DIURNAL };
struct trc_like_opts {
    uint32_t njobs;             /* 0 = the fitted number */
    uint64_t seed;
    enum trc_arrivals arrivals;
    /* NULL = the fitted model mix; "" = no models; else a comma list of
     * names given equal shares */
    const char *models;
};
/* Generates a trace like w.  0 or DL_EINPUT (an arrival process the
 * workload cannot drive, a bad model list, times past TRC_MAX_TIME). */
int trc_generate_like(const struct trc_like_opts *o,
                      const struct trc_workload *w, struct trace *t,
                      struct dl_error *err);

/* ------------------------------------------------------------- compare */

/* Two-sample Kolmogorov-Smirnov statistic sup |F_a - F_b| of a[0..n) and
 * b[0..m) (n, m >= 1; the arrays are sorted in place). */
double trc_ks2(double *a, size_t n, double *b, size_t m);
/* The Kolmogorov distribution's survival function Q(lambda) = P(K >
 * lambda); the asymptotic p-value of D is Q(D sqrt(nm / (n + m))). */
double trc_ks_q(double lambda);

/* What `trace compare` prints, for tests. */
struct trc_cmp {
    double ks_dur, p_dur, ks_gap, p_gap;   /* durations, inter-arrival gaps */
    double crit_dur, crit_gap;  /* the 1% critical values of D */
    double tv_gpus, maxdiff_gpus;   /* GPU-count proportions */
};
/* 0, or DL_EINPUT when a trace has fewer than 2 jobs. */
int trc_compare(const struct trace *a, const struct trace *b,
                struct trc_cmp *r, struct dl_error *err);

#endif
