/*
 * models/perf.h - the public interface of performance models (mdl_).
 *
 * The engine asks the performance model of a run (struct mdl_perf, at the
 * end of this file) how fast a job runs where it was placed, alone and
 * sharing GPUs; the answer is a rate in work units (reference-GPU
 * microseconds) per microsecond.  Policies ask it for predictions only.
 * Its parts: the model zoo (data), the runtime model (measured tables and a
 * fitted roofline), the slowdown model of co-located jobs, the utilization
 * regressor, and `dlsim fit`, which fits the last three to measurements.
 */
#ifndef DLSIM_MODEL_H
#define DLSIM_MODEL_H

#include "sim/cluster/cluster.h"
#include "traces/trace.h"

/* ------------------------------------------------------------ model zoo
 *
 * The zoo is data, read at run time from a directory (models/ in the
 * source tree) holding four CSV files; models/ZOO.md documents every
 * column and cites where each figure comes from.
 *
 *   zoo.csv         one row per (model, batch_size): task, memory, the
 *                   graph features Horus predicts from
 *   gpus.csv        one row per GPU type: datasheet peaks
 *   throughput.csv  measured iterations/s per (gpu_type, model,
 *                   batch_size, num_gpus, placement) (SPEC 7 format)
 *   util.csv        measured solo utilization per (gpu_type, model,
 *                   batch_size)
 *
 * The directory may also hold util.yaml, the utilization regressor `dlsim
 * fit util` fitted to util_train.csv; a run loads it with the zoo
 * (models/MODELS.md).
 *
 * Units: batch_size is the job's global batch (samples per iteration over
 * all its GPUs); flops are forward FLOPs per iteration (the whole batch),
 * a multiply-add counted as 2 FLOPs, as datasheet peaks count them;
 * throughput is iterations of the whole job per second.  Unknown numbers
 * are -1.
 *
 * Names match case-insensitively with everything but letters and digits
 * ignored ("ResNet-50" = "resnet50"), plus a few aliases used by public
 * traces ("LM" = lstm, "imagenet" = resnet50, "cifar10" = resnet18,
 * "Inception-v3" = inception3, "NeuMF" = ncf).
 */

struct mdl_model {
    const char *name;           /* as written in zoo.csv */
    uint32_t family;            /* index of the model name (all batches) */
    uint32_t batch_size;        /* samples per iteration, >= 1 */
    const char *task;           /* "" when empty */
    double mem_gb;              /* training memory per GPU, or -1 */
    double flops;               /* forward FLOPs per iteration, or -1 */
    double params;              /* parameter count, or -1 */
    int32_t conv_layers;        /* layer counts, each -1 when unknown */
    int32_t linear_layers;
    int32_t activation_layers;
    int32_t other_layers;
    const char *source;         /* citation keys, see ZOO.md */
    long line;                  /* line in zoo.csv */
};

struct mdl_gpu {
    const char *name;
    double memory_gb;
    double fp32_tflops;
    double fp16_tflops;         /* dense tensor-core peak where there is one */
    double mem_bw_gbs;
    const char *source;
};

struct mdl_thr {
    uint32_t family;            /* model name, as in struct mdl_model */
    uint32_t gpu;               /* index into zoo.gpus */
    uint32_t batch_size;        /* global batch */
    uint32_t num_gpus;
    bool spread;                /* false = consolidated */
    double throughput;          /* iterations/s, > 0 */
    long line;                  /* line in throughput.csv */
};

/* A measured solo utilization (util.csv). */
struct mdl_util_meas {
    uint32_t model;             /* zoo row (index into zoo.models) */
    uint32_t gpu;               /* index into zoo.gpus */
    double util;                /* nvidia-smi utilization.gpu / 100, (0, 1] */
    long line;                  /* line in util.csv */
};

struct mdl_zoo {
    const char *dir;
    struct mdl_model *models;   /* file order */
    uint32_t nmodels;
    const char **families;      /* [nfamilies] first spelling of each name */
    const char **family_keys;   /* [nfamilies] their normal forms */
    uint32_t nfamilies;
    struct mdl_gpu *gpus;       /* file order */
    uint32_t ngpus;
    struct mdl_thr *thr;        /* sorted by (family, batch, gpu, n, spread) */
    uint32_t nthr;
    struct mdl_util_meas *utils;/* sorted by (model row, gpu) */
    uint32_t nutils;
    struct arena *arena;        /* owns every string; arrays are malloc'd */
};

/* Reads dir/zoo.csv, dir/gpus.csv, dir/throughput.csv and dir/util.csv.  Returns 0, or
 * DL_EINPUT (a malformed file: err holds its path, line and column) or
 * DL_EIO (a file that cannot be read).  On failure *z is left empty, and
 * mdl_zoo_free on it is harmless. */
int mdl_zoo_load(const char *dir, struct mdl_zoo *z, struct dl_error *err);
void mdl_zoo_free(struct mdl_zoo *z);

/* Where the zoo lives when no directory is given: $DLSIM_MODELS if set,
 * else the first of ./models, <exe>/../models, <exe>/models and
 * <exe>/../share/dlsim/models that holds a zoo.csv.  Writes it to buf and
 * returns 0, or returns -1 when none is found (or $DLSIM_MODELS is too
 * long for buf). */
int mdl_zoo_default_dir(char *buf, size_t n);

/* The default zoo's model names (its families, first spelling each),
 * comma-joined (malloc'd): what `--models zoo` of a generator means.
 * NULL with err when no zoo is found (err's file empty) or one of its
 * files cannot be read (err names it). */
char *mdl_zoo_names(struct dl_error *err);

/* A model by name ("resnet50"), or by name and batch ("resnet50@64").
 * Without a batch: the model's first row in zoo.csv.  NULL when absent.
 * The pointer lives as long as the zoo. */
const struct mdl_model *mdl_zoo_find(const struct mdl_zoo *z,
                                     const char *model);
/* A GPU type by name (case-insensitive), or NULL. */
const struct mdl_gpu *mdl_zoo_gpu(const struct mdl_zoo *z, const char *name);
/* The dlsim name (a gpus.csv row) of a GPU type as public traces and
 * machine lists spell it: "V100M32" -> "V100-32GB", "A100-SXM4-80GB" ->
 * "A100-80GB", "MISC" (Alibaba PAI 2020's older K40m/K80/M60 pool) ->
 * "K80", ...  Case-insensitive; NULL when name has no alias (the caller
 * keeps the name as written).  The table is in zoo.c, shared by
 * `dlsim trace import` and `dlsim cluster import` so that a trace's
 * gpu_type and its cluster's type names agree. */
const char *mdl_gpu_alias(const char *name);
/* Measured iterations/s of model at global batch on num_gpus GPUs of
 * gpu_type, consolidated or spread over nodes; -1 when not measured.
 * With num_gpus == 1, spread is ignored.  model may carry "@batch" only
 * if it equals batch.  O(names + GPU types + log rows). */
double mdl_zoo_throughput(const struct mdl_zoo *z, const char *model,
                          uint32_t batch, const char *gpu_type,
                          uint32_t num_gpus, bool spread);
/* Measured solo utilization of zoo row `row` on zoo GPU type `gpu`, or -1.
 * mdl_zoo_utils: all measurements of the row (*n of them, by GPU type). */
double mdl_zoo_util(const struct mdl_zoo *z, uint32_t row, uint32_t gpu);
const struct mdl_util_meas *mdl_zoo_utils(const struct mdl_zoo *z, uint32_t row,
                                          uint32_t *n);

/* Gavel's job names (its throughput JSON's keys "('ResNet-50 (batch size
 * 64)', 2)" and its traces' job types), read one way by `trace import
 * --format gavel` and `fit convert-gavel`. */
struct mdl_gavel_job {
    char type[128];             /* the job type as written */
    char model[128];            /* its zoo normal form ("resnet50") */
    uint32_t batch;             /* "(batch size N)", else 1 */
    uint32_t scale;             /* GPUs (keys only) */
};
/* Parses a key.  0, or -1 with *at the byte offset and *why what is
 * wrong. */
int mdl_gavel_key(const char *key, struct mdl_gavel_job *g, size_t *at,
                  const char **why);
/* A job type type[0..len) -> its zoo normal form (model, DL_CSV_NAME_MAX
 * bytes) and batch.  0, or -1 with *at, *why. */
int mdl_gavel_type(const char *type, size_t len, char *model, uint32_t *batch,
                   size_t *at, const char **why);

/* ------------------------------------------------------------ shared with the fits
 *
 * The pairs file (models/pairs.c), the slowdown forms and the utilization
 * regressor's evaluation (models/sdfile.c): what a run reads; their fitting
 * is models/fit/fit.h. */

/* A co-location pairs file (SPEC 7).  Jobs and GPU types are interned:
 * pairs refer to them by index. */
struct mdl_pair {
    uint32_t gpu;               /* index into gpus */
    uint32_t a, b;              /* indices into jobs */
    double rate_a, rate_b;      /* (0, 1] */
    double util_a, util_b;      /* 0..1, or -1 when not given */
    long line;
};

struct mdl_pairs {
    const char **gpus;          /* [ngpus] first spelling */
    uint32_t ngpus;
    const char **jobs;          /* [njobs] */
    uint32_t njobs;
    struct mdl_pair *p;         /* [n] file order */
    uint32_t n;
    struct arena *arena;
};
int mdl_pairs_load(const char *path, struct mdl_pairs *ps,
                       struct dl_error *err);
void mdl_pairs_free(struct mdl_pairs *ps);
/* The index of s in names[0..*n) (compared case-insensitively with
 * fold_case), appended (copied into a) when new; the pairs file's and the
 * utilization file's interning. */
uint32_t mdl_intern(const char ***names, uint32_t *n, size_t *cap,
                    struct arena *a, const char *s, bool fold_case);

/* The fitted forms come first (MDL_SD_NFITTED of them: what `dlsim fit
 * slowdown` tries); horus-authors is a fixed rule a file names by hand. */
enum mdl_sd_form {
    MDL_SD_CONSTANT, MDL_SD_HINGE, MDL_SD_TIMESHARE, MDL_SD_SENS_PRESSURE,
    MDL_SD_NFITTED,
    MDL_SD_HORUS_AUTHORS = MDL_SD_NFITTED,
    MDL_SD_NFORMS
};
/* "constant", "hinge", "timeshare", "sensitivity_pressure",
 * "horus-authors". */
const char *mdl_sd_form_name(enum mdl_sd_form f);

/* Predicted rates never go below this (and never above 1). */
#define MDL_RATE_MIN 0.01

#define MDL_UTIL_NFEAT 6        /* flops, params, conv, linear, act, other */
/* util = clamp(intercept + sum_i coef[i] * (log1p(x_i) - center[i]) /
 * scale[i], lo, hi); coef[i] = 0 for a feature constant in training;
 * [lo, hi] the range of the training utilizations (a model linear in the
 * log features must not extrapolate past what was measured), within
 * [0.01, 1].
 * gpu_type: the GPU type every training row was measured on, so the one
 * the predictions are for ("" when the rows mix types or the file does not
 * say). */
struct mdl_util_params {
    double intercept;
    double center[MDL_UTIL_NFEAT], scale[MDL_UTIL_NFEAT], coef[MDL_UTIL_NFEAT];
    double lo, hi;
    char gpu_type[64];
};
/* A utilization as the regressor reports it: clamped to [0.01, 1]. */
double mdl_util_clamp(double u);
/* The regressor's prediction from raw features x. */
double mdl_util_predict(const struct mdl_util_params *m,
                            const double x[MDL_UTIL_NFEAT]);

/* ------------------------------------------------------------ model files
 *
 * models/sdfile.c: the slowdown model file (`kind: slowdown`, written by
 * `dlsim fit slowdown` or by hand; models/FIT.md) and the utilization model
 * file (`kind: util`, written by `dlsim fit util`), read back for runs, and
 * the co-location rate of a job sharing a GPU with any number of others.
 */

/* One job on a shared GPU, as the slowdown forms see it. */
struct mdl_sd_share {
    double util;                /* solo utilization 0..1 (1 when unknown) */
    double s, p;                /* sensitivity and pressure on this type */
};

/* One GPU type's slowdown model. */
struct mdl_sd_type {
    const char *name;           /* GPU type; "*" = every type not listed */
    enum mdl_sd_form form;
    double rate;                /* constant: rate while sharing;
                                   horus-authors: 1 / factor */
    double alpha;               /* hinge: slope past summed util 1 */
    double mean_s, mean_p;      /* sensitivity_pressure: unlisted jobs */
    uint32_t njobs;
    const char **jobs;          /* [njobs] names as written ("resnet50@64") */
    double *s, *p;              /* [njobs] */
    long line;                  /* where the entry starts */
};

struct mdl_sd_model {
    double rate_min;            /* predictions never go below (0.01) */
    struct mdl_sd_type *types;  /* [ntypes] file order */
    uint32_t ntypes;
    struct arena *arena;        /* owns names and arrays */
};

/* Reads a `kind: slowdown` file.  0, DL_EINPUT (file:line:col) or DL_EIO;
 * on failure *m is left empty and mdl_sd_free on it is harmless. */
int mdl_sd_load(const char *path, struct mdl_sd_model *m, struct dl_error *err);
void mdl_sd_free(struct mdl_sd_model *m);
/* The entry of a GPU type (case-insensitive), else the "*" entry, else
 * NULL. */
const struct mdl_sd_type *mdl_sd_find(const struct mdl_sd_model *m,
                                      const char *gpu_type);
/* The sensitivity and pressure of a job named name ("resnet50@64"; names
 * compare in the zoo's normal form) under t: its own when listed, else
 * the type's means.  Forms other than sensitivity_pressure: s = p = 0. */
void mdl_sd_job_sp(const struct mdl_sd_type *t, const char *name, double *s,
                   double *p);
/* Rate, in [rate_min, 1], of job x while it shares a GPU with others[0..n)
 * under t (n = 0: 1).  With n = 1 this is exactly what `dlsim fit
 * slowdown` predicts for the pair; models/FIT.md gives the k-job forms. */
double mdl_sd_rate(const struct mdl_sd_type *t, double rate_min,
                   const struct mdl_sd_share *x,
                   const struct mdl_sd_share *others, uint32_t n);
/* Whether mdl_sd_rate under t depends on n alone (not on the shares). */
bool mdl_sd_by_count(const struct mdl_sd_type *t);

/* Reads a `kind: util` file into m.  0, DL_EINPUT or DL_EIO. */
int mdl_util_load(const char *path, struct mdl_util_params *m,
                  struct dl_error *err);

/* ------------------------------------------------------------ runtime model
 *
 * models/runtime.c (models/FIT.md, "Runtime model"): iterations/s of a job
 * (model, global batch) on n GPUs of a type, consolidated or spread: the
 * zoo's measured figure where there is one, else a roofline estimate
 *
 *   t_c  = 3 * flops / (n * peak * eff_c)            (fwd + bwd = 3x fwd)
 *   t_m  = MDL_RT_BYTES_PER_PARAM * params / (bw * eff_m)   (replicated)
 *        + 3 * flops / (MDL_RT_FLOP_PER_BYTE * n * bw * eff_m)
 *   iter = (max(t_c, t_m) + overhead_s) / (n > 1 ? scaling : 1)
 *
 * peak = fp16_tflops when the type has tensor cores (fp16 >= 4 x fp32 in
 * gpus.csv), else fp32_tflops; bw = mem_bw_gbs; scaling = scale_cons or
 * scale_spread.  Efficiencies come from `dlsim fit runtime` or
 * mdl_rt_defaults.
 */
#define MDL_RT_BYTES_PER_PARAM 16.0 /* fp32 weights fwd + bwd, gradient,
                                       optimizer read/write: 4 x 4 bytes */
#define MDL_RT_FLOP_PER_BYTE 64.0   /* activation traffic: FLOPs per byte */
#define MDL_RT_MIN_ROWS 8           /* rows a type needs for its own effs */

struct mdl_rt_type {
    char name[64];              /* GPU type, matched case-insensitively */
    double eff_c, eff_m;        /* (0, 1] */
    uint32_t n_rows;            /* rows fitted on (informational) */
};

struct mdl_rt_params {
    double eff_c, eff_m;        /* global: types not in types[] */
    double overhead_s;          /* fixed seconds per iteration, >= 0 */
    double scale_cons, scale_spread;    /* multi-GPU efficiency, (0, 1] */
    struct mdl_rt_type *types;  /* [ntypes] malloc'd, or NULL */
    uint32_t ntypes;
};

/* Iteration time (s) of flops/params on n GPUs of peak peak_tf TFLOP/s
 * and bw_gbs GB/s at efficiencies ec, em, overhead t0 and multi-GPU
 * scaling sc (consolidated) or ss (spread): the roofline above. */
double mdl_rt_iter_time(double flops, double params, double peak_tf,
                        double bw_gbs, uint32_t n, bool spread, double ec,
                        double em, double t0, double sc, double ss);
/* The documented defaults (global efficiencies only, no types). */
void mdl_rt_defaults(struct mdl_rt_params *p);
void mdl_rt_params_free(struct mdl_rt_params *p);
/* Reads a model file written by `dlsim fit runtime`.  0, DL_EINPUT (err at
 * file:line:col) or DL_EIO; on failure *p holds the defaults. */
int mdl_rt_params_load(const char *path, struct mdl_rt_params *p,
                       struct dl_error *err);
/* Peak TFLOP/s the roofline uses for g (the tensor-core rule above). */
double mdl_rt_peak_tflops(const struct mdl_gpu *g);
/* Roofline iterations/s of m on n GPUs of g; -1 if m's flops are unknown. */
double mdl_rt_estimate(const struct mdl_model *m, const struct mdl_gpu *g,
                       const struct mdl_rt_params *p, uint32_t ngpus,
                       bool spread);
/* Iterations/s: measured; else estimated (p NULL = defaults), anchored to
 * the job's measured figure on the type with the nearest peak when there
 * is one; else -1 when the model or GPU type is unknown.  A batch the zoo lacks scales the
 * model's first row's flops linearly. */
double mdl_rt_throughput(const struct mdl_zoo *z, const struct mdl_rt_params *p,
                         const char *model, uint32_t batch,
                         const char *gpu_type, uint32_t ngpus, bool spread);
/* throughput(gpu_type, ngpus, spread) / throughput(ref_type, ngpus,
 * consolidated): the factor dividing a trace duration defined on ref_type;
 * -1 when either is unknown. */
double mdl_rt_speed_ratio(const struct mdl_zoo *z,
                          const struct mdl_rt_params *p, const char *model,
                          uint32_t batch, const char *gpu_type,
                          uint32_t ngpus, bool spread, const char *ref_type);


/* ------------------------------------------------------------ runtime predictor
 *
 * models/rtpred.c (models/FIT.md, "The fitted runtime predictor"): what an
 * offline evaluation module learns from a profiled subset, fitted by
 * `dlsim fit runtime --form loglinear` and read back for predict.runtime:
 * fitted.  Seconds per iteration of a (model, global batch) on n GPUs:
 *
 *   log(iter_s) = coef . x,   x = [1, log(max(t_c, t_m) + T0), log t_c,
 *                                  log t_m, log peak_tflops,
 *                                  log mem_bw_gbs, log n, spread]
 *
 * t_c, t_m: the roofline's bounds (above) at efficiency 1, T0 =
 * MDL_RTP_T0_S; peak as the roofline's (mdl_rt_peak_tflops).  holdout[] holds, per
 * model (the zoo's normal form), the coefficients fitted with every row of
 * that model left out: the leave-one-model-out fits.
 */
#define MDL_RTP_NFEAT 8
#define MDL_RTP_T0_S 0.01          /* s: the fixed overhead in log_t_roof */
extern const char *const mdl_rtp_feature_names[MDL_RTP_NFEAT];
struct mdl_rtp_hold {
    char model[128];            /* normal form (dl_csv_norm_name) */
    double coef[MDL_RTP_NFEAT];
    uint32_t n_rows;            /* rows left out (informational) */
};
struct mdl_rtp {
    double coef[MDL_RTP_NFEAT]; /* fitted on every row */
    struct mdl_rtp_hold *hold;  /* [nhold] malloc'd, or NULL */
    uint32_t nhold;
    double lomo_rmsle;          /* as the file states it, NAN if absent */
    char path[4096];            /* where it was read from */
};
/* The features of (flops, params, batch) on n GPUs of g; -1 when one is
 * unknown (no flops or params, a GPU without peak or bandwidth). */
int mdl_rtp_features(double flops, double params, uint32_t batch,
                     const struct mdl_gpu *g, uint32_t n, bool spread,
                     double x[MDL_RTP_NFEAT]);
/* exp(coef . x): predicted seconds per iteration. */
double mdl_rtp_iter_s(const double coef[MDL_RTP_NFEAT],
                      const double x[MDL_RTP_NFEAT]);
/* The coefficients for a job of model: with holdout, the fit that left
 * that model out when the file has one, else the fit on every row. */
const double *mdl_rtp_coef(const struct mdl_rtp *p, const char *model,
                           bool holdout);
/* Reads a `kind: runtime_predictor` file.  0, DL_EINPUT (file:line:col)
 * or DL_EIO. */
int mdl_rtp_load(const char *path, struct mdl_rtp *p, struct dl_error *err);
void mdl_rtp_free(struct mdl_rtp *p);

/* ------------------------------------------------------------ a run's models
 *
 * models/perf.c: what `dlsim run --models M` reads (struct mdl_spec) and the
 * per-run performance model built from it for one cluster and one trace
 * (struct mdl_perf).  models/MODELS.md documents the `kind: models` file,
 * ground truth versus prediction and every fallback.
 *
 * Ground truth (the engine's rates): a job of trace duration d (on the
 * reference type, consolidated) runs alone on n GPUs of type t at rate
 * ratio(model, n, t, spread) in reference work per microsecond, where ratio
 * is the runtime model's throughput there over its throughput on the
 * reference type, consolidated: measured where the zoo has the figure,
 * else the roofline.  Jobs without a known model, and GPU types the zoo
 * lacks, run at the cluster file's speed.  Sharing a GPU multiplies a job's
 * rate by the slowdown model's factor; a job on several GPUs advances at
 * the pace of its slowest GPU.
 *
 * Predictions (what policies see): runtime from the runtime model (an
 * offline profile where measured, the roofline elsewhere: the same as the
 * truth) or, with predict.runtime: roofline, from the roofline alone (jobs
 * never profiled); utilization from the regressor over the zoo's graph
 * features (or the truth); each times a seeded lognormal noise factor
 * exp(sigma z) drawn per job.
 */
#define MDL_MAX_SHARE 16        /* jobs one GPU can ever hold */

struct mdl_spec {
    bool zoo_on;                /* use the zoo (any --models given) */
    bool wants_runtime;         /* asked for the zoo's runtime data: 'zoo',
                                   a runtime file, or a models file naming
                                   zoo: or runtime: (a file of predictions or
                                   slowdowns alone does not) */
    char zoo_dir[4096];         /* "" = mdl_zoo_default_dir */
    struct mdl_rt_params rt;    /* defaults unless a runtime file */
    bool has_sd, has_pairs, has_util;
    struct mdl_sd_model sd;
    char pairs_path[4096];
    struct mdl_pairs pairs;     /* read by mdl_spec_finish */
    struct mdl_zoo zoo;         /* read by mdl_spec_finish when zoo_on */
    struct mdl_util_params util;
    uint32_t max_share;         /* jobs per GPU, 1..MDL_MAX_SHARE */
    bool rt_roofline;           /* predicted runtime: the roofline alone
                                   (default: the runtime model, as the
                                   truth, before noise) */
    bool rt_fitted;             /* predicted runtime: the fitted predictor
                                   (predict.runtime: fitted) */
    bool rt_holdout;            /* with it, each job's model's held-out
                                   fit (predict.runtime_holdout, default
                                   true) */
    char rtp_path[4096];        /* predict.runtime_fit ("" = the zoo
                                   directory's runtime_fit.yaml) */
    struct mdl_rtp rtp;         /* read by mdl_spec_finish when fitted */
    bool util_oracle;           /* predicted util = truth (before noise) */
    bool util_same;             /* util_transfer: none (a utilization
                                   measured or predicted for one GPU type
                                   holds on every type) */
    bool util_default;          /* util came from the zoo's util.yaml */
    double rt_noise, util_noise;/* lognormal sigmas, >= 0 */
    char **args;                /* [nargs] the --models arguments as given,
                                   for provenance (malloc'd) */
    uint32_t nargs;
};
void mdl_spec_init(struct mdl_spec *s);
void mdl_spec_free(struct mdl_spec *s);
/* Adds one --models argument: "zoo" (the built-in zoo and defaults), or a
 * YAML file of kind models, runtime, slowdown or util; later arguments
 * override earlier ones.  0, DL_EINPUT (file:line:col) or DL_EIO. */
int mdl_spec_add(struct mdl_spec *s, const char *arg, struct dl_error *err);
/* After the last add: reads the zoo and the pairs file.  0, DL_EINPUT or
 * DL_EIO. */
int mdl_spec_finish(struct mdl_spec *s, struct dl_error *err);

/* Default slowdown while sharing, when no slowdown model covers a GPU type:
 * each co-runner multiplies a job's rate by 0.8 (dlsim's own default; the
 * Horus authors' rule is the horus-authors form, models/FIT.md). */
#define MDL_DEFAULT_SHARED_RATE 0.8

/* Where a job's solo rate on a GPU type comes from (summary.json counts
 * jobs per source: jobs_model_measured, ..._roofline, ..._default). */
enum mdl_src {
    MDL_SRC_DEFAULT,            /* the cluster file's speed: no model, a
                                   model or GPU type the zoo lacks */
    MDL_SRC_ROOFLINE,           /* the runtime model's estimate (on the
                                   type or on the reference type) */
    MDL_SRC_MEASURED,           /* the zoo's measured throughput on both
                                   the type and the reference type */
    MDL_NSRC
};

struct mdl_perf {
    const struct cluster *clu;
    const struct trace *tr;
    uint32_t ntypes, max_share;
    bool zoo_on;
    const struct mdl_zoo *zoo;  /* the spec's, or an empty one */
    /* per job */
    uint32_t *cls;              /* [njobs] (model row, num_gpus) class, or
                                   SIM_NONE: cluster speeds (NULL without
                                   the zoo: mdl_perf_cls) */
    uint32_t *row;              /* [njobs] zoo row, or SIM_NONE (NULL
                                   without the zoo: mdl_perf_row) */
    float *util;                /* [njobs] the trace's solo util, -1 none
                                   (NULL: no job has one) */
    double *unoise;             /* [njobs] predicted-util noise factor
                                   (NULL: no noise, 1) */
    /* per zoo row and cluster type: [row * ntypes + t], -1 unknown */
    double *tutil;              /* true solo util (MODELS.md) */
    double *putil;              /* predicted (the regressor), before noise */
    bool util_reg;              /* predictions come from the regressor */
    float *prt;                 /* [njobs] runtime prediction noise factor
                                   (NULL: no noise, 1) */
    float *mem;                 /* [njobs] GB per GPU, -1 unknown (NULL:
                                   no job's is known) */
    /* per class: [cls][type][spread] */
    uint32_t nclass;
    double *ratio, *pratio;
    uint8_t *src;               /* enum mdl_src, same layout as ratio */
    /* slowdown per cluster type */
    const struct mdl_sd_type **sd;  /* [ntypes], NULL = constant default */
    struct mdl_sd_type *sd_default; /* the constant default (owned) */
    double rate_min;
    /* [ntypes][MDL_MAX_SHARE + 1]: the rate beside k co-runners where the
     * type's form depends on their count alone (mdl_sd_by_count), the
     * model's own answer made once; else the row is NAN */
    double *bycount;
    double *s, *p;              /* [ntypes][zoo rows + 1]; last = no row */
    /* measured pairs: rate of a sharing with b on type t */
    uint64_t *pkey;             /* open addressing, 0 = empty */
    double *pval;
    size_t npslots;
    uint32_t unknown_models;    /* jobs naming a model the zoo lacks */
    uint32_t with_model;        /* jobs naming a model at all */
    const struct mdl_rt_params *rt; /* the spec's runtime model (or NULL) */
    bool rt_roofline;
    /* predict.runtime: fitted (NULL otherwise): predicted throughput from
     * the predictor; a job's work in iterations from its true throughput
     * on the reference type (models/MODELS.md) */
    const struct mdl_rtp *rtp;
    bool rtp_holdout;
    uint8_t *cunpred;           /* [nclass] the predictor cannot predict
                                   this class (its prediction is the
                                   runtime model's) */
    uint32_t unpredicted;       /* jobs the predictor cannot predict */
};
/* The name of the runtime predictions' source: "model", "roofline" or
 * "fitted". */
const char *mdl_perf_predictor(const struct mdl_perf *p);
/* Whether job j's runtime predictions come from the predictor asked for
 * (false: predict.runtime: fitted cannot predict it, and it is predicted
 * by the runtime model instead, as the run's warning says). */
bool mdl_perf_predicted(const struct mdl_perf *p, uint32_t j);

/* Builds the run's model for cluster c and trace t from a finished spec
 * (NULL: no models: cluster speeds, trace utils, the default slowdown).
 * Every fallback is a warning in diag (may be NULL): jobs naming models the
 * zoo lacks (the first names), a trace that names no model at all while
 * the zoo's runtime data was asked for (it then changes nothing), GPU types
 * the zoo lacks, unused pairs.  The spec must outlive the result. */
struct mdl_perf *mdl_perf_new(const struct mdl_spec *spec,
                              const struct cluster *c, const struct trace *t,
                              uint64_t seed, struct dl_diag *diag);
void mdl_perf_free(struct mdl_perf *p);
/* After the run: gives back what only a running job's speed, memory and
 * utilization are read from (the per-job utils, memory and noise); the
 * rates and sources (mdl_perf_rate, mdl_perf_source) stay. */
void mdl_perf_drop_run(struct mdl_perf *p);

/* Job j's zoo row and (model row, num_gpus) class, SIM_NONE when it has
 * none (without the zoo, no job has one: the arrays are NULL). */
static inline uint32_t mdl_perf_row(const struct mdl_perf *p, uint32_t j)
{
    return p->row ? p->row[j] : SIM_NONE;
}
static inline uint32_t mdl_perf_cls(const struct mdl_perf *p, uint32_t j)
{
    return p->cls ? p->cls[j] : SIM_NONE;
}

/* Solo rate of job j on type t (true), spread = over more nodes than the
 * fewest that can hold it. */
static inline double mdl_perf_rate(const struct mdl_perf *p, uint32_t j,
                                   uint32_t t, bool spread)
{
    uint32_t c = mdl_perf_cls(p, j);
    if (c == SIM_NONE)
        return p->clu->types[t].speed;
    return p->ratio[((size_t)c * p->ntypes + t) * 2 + spread];
}
/* The source of job j's solo rate on type t (consolidated). */
static inline enum mdl_src mdl_perf_source(const struct mdl_perf *p,
                                           uint32_t j, uint32_t t)
{
    uint32_t c = mdl_perf_cls(p, j);
    if (c == SIM_NONE)
        return MDL_SRC_DEFAULT;
    return (enum mdl_src)p->src[((size_t)c * p->ntypes + t) * 2];
}
/* The cluster's capacity as job j sees it: the sum over its GPUs of j's
 * solo rate there, consolidated (reference GPUs).  Without a model, the
 * sum of the cluster file's speeds.  caps[j] for every job: what the
 * offered load under the run's models divides each job's work by
 * (trc_offered_load_caps). */
void mdl_perf_caps(const struct mdl_perf *p, double *caps);
/* Solo rate of job j on n GPUs of type t: mdl_perf_rate when n is its
 * num_gpus; otherwise (an elastic start or a resize) the runtime model's
 * throughput on (t, n, spread) over its throughput on the reference type
 * with num_gpus GPUs, consolidated; without a model, the type's speed x n
 * / num_gpus (linear scaling). */
double mdl_perf_rate_n(const struct mdl_perf *p, uint32_t j, uint32_t t,
                       uint32_t n, bool spread);
/* Predicted solo run time (us) of job j on n GPUs of type t. */
double mdl_perf_pred_runtime_n(const struct mdl_perf *p, uint32_t j, uint32_t t,
                               uint32_t n, bool spread);
/* Job j's GB per GPU, < 0 unknown. */
static inline double mdl_perf_mem(const struct mdl_perf *p, uint32_t j)
{
    return p->mem ? p->mem[j] : -1;
}

/* True solo utilization of job j on GPU type t, for metrics, slowdown
 * forms and policies that measure (unknown = 1): the trace's, else the
 * zoo's for its model on t (models/MODELS.md: measured, transferred from
 * another type, or the regressor's). */
static inline double mdl_perf_util(const struct mdl_perf *p, uint32_t j,
                                   uint32_t t)
{
    if (p->util && p->util[j] >= 0)
        return p->util[j];
    uint32_t r = mdl_perf_row(p, j);
    double u = r == SIM_NONE ? -1 : p->tutil[(size_t)r * p->ntypes + t];
    return u < 0 ? 1.0 : (double)(float)u;
}
/* Factor in [rate_min, 1] of job x on one GPU of type t that it shares
 * with jobs[0..n) (x among them or not; x is skipped). */
double mdl_perf_shared(const struct mdl_perf *p, uint32_t t, uint32_t x,
                       const uint32_t *jobs, uint32_t n);
/* Predicted solo run time (us) of job j on its num_gpus GPUs of type t. */
double mdl_perf_pred_runtime(const struct mdl_perf *p, uint32_t j, uint32_t t,
                             bool spread);
/* Predicted solo utilization of job j on type t, in [0.01, 1]: the
 * regressor's (predict.util: model, with a util model and the model's
 * graph features), else the truth, times the job's noise factor. */
static inline double mdl_perf_pred_util(const struct mdl_perf *p, uint32_t j,
                                        uint32_t t)
{
    uint32_t r = mdl_perf_row(p, j);
    double u = p->util_reg && r != SIM_NONE
                   ? p->putil[(size_t)r * p->ntypes + t] : -1;
    if (u < 0)
        u = mdl_perf_util(p, j, t);
    if (p->unoise)
        u *= p->unoise[j];
    return (double)(float)(u < 0.01 ? 0.01 : u > 1 ? 1 : u);
}

#endif
