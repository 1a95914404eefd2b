/*
 * models/fit/fit.h - `dlsim fit` (libdlsim_fit, a tool above the models
 * layer): the Gavel converter, the slowdown, utilization and runtime fits
 * with their cross-validation, and the model files they write
 * (models/FIT.md).  What a run reads back is models/perf.h.
 */
#ifndef DLSIM_FIT_H
#define DLSIM_FIT_H

#include "models/perf.h"

/* ------------------------------------------------------------ dlsim fit
 *
 * models/fit/fit.c: `dlsim fit` (SPEC 1 and 7; models/FIT.md documents the
 * model files it writes).  The pieces are public so tests can drive them.
 */

/* What `dlsim fit slowdown|util|runtime` asks for (sim/cli/fit.c parses
 * the command line into it). */
struct mdl_fit_opts {
    const char *in;             /* the measurements */
    const char *out;            /* the model file to write, or NULL */
    int form;                   /* slowdown: an enum mdl_sd_form, or -1 =
                                   the best by cross-validated error */
    unsigned folds;             /* >= 2 */
    unsigned long seed;         /* of the fold assignment */
    double ridge;               /* util: the penalty, >= 0 */
    const char *zoo;            /* runtime: the zoo dir (NULL: default) */
};
/* The slowdown fit: every form's k-fold MAE per GPU type as a table on
 * table, the chosen (or asked) form per type written to o->out.  0, or a
 * DL_ code with err. */
int mdl_fit_slowdown_run(const struct mdl_fit_opts *o, FILE *table,
                         struct dl_error *err);
/* The utilization regressor: its k-fold and leave-one-model-out RMSLE on
 * both scales and the mean baseline's on table, the fit on all rows
 * written to o->out.  0 or a DL_ code. */
int mdl_fit_util_run(const struct mdl_fit_opts *o, FILE *table,
                     struct dl_error *err);
/* The runtime model: leave-one-type-out and k-fold errors per GPU type on
 * table, the fit on all rows written to o->out.  0 or a DL_ code. */
int mdl_fit_runtime_run(const struct mdl_fit_opts *o, FILE *table,
                        struct dl_error *err);

/* Gavel's throughput JSON -> prefix-runtime.csv and prefix-pairs.csv (SPEC
 * 7), both written atomically.  Notes (dropped entries) go to log if
 * non-NULL.  0, DL_EINPUT (err located in the JSON) or DL_EIO. */
int mdl_fit_convert_gavel(const char *in, const char *prefix, FILE *log,
                          struct dl_error *err);



/* Fitted parameters of one form on one GPU type. */
struct mdl_sd_params {
    enum mdl_sd_form form;
    double rate;                /* constant: the shared rate */
    double alpha;               /* hinge: slope past summed util 1 */
    double *s, *p;              /* sensitivity_pressure: [njobs], NAN for
                                   jobs unseen in training (malloc'd) */
    double mean_s, mean_p;      /* over the jobs seen; fallback */
    uint32_t njobs;
};
void mdl_fit_sd_free(struct mdl_sd_params *m);
/* Whether form can be fitted to pairs idx[0..n) (hinge and timeshare need
 * util_a and util_b on every pair). */
bool mdl_fit_sd_applicable(const struct mdl_pairs *ps, enum mdl_sd_form f,
                           const uint32_t *idx, uint32_t n);
/* Fits form f to the pairs idx[0..n) (n >= 1).  0, or -1 when not
 * applicable or a GSL routine failed. */
int mdl_fit_sd(const struct mdl_pairs *ps, enum mdl_sd_form f,
               const uint32_t *idx, uint32_t n, struct mdl_sd_params *m);
/* Predicted rates of pair q under m. */
void mdl_fit_sd_predict(const struct mdl_sd_params *m, const struct mdl_pair *q,
                        double *rate_a, double *rate_b);
/* K-fold cross-validated MAE of both rates over the pairs of GPU type gpu
 * (folds from a GSL mt19937 seeded with seed).  Returns the pair count, or
 * 0 when the form is not applicable there (mae then NAN). */
uint32_t mdl_fit_sd_cv(const struct mdl_pairs *ps, uint32_t gpu,
                       enum mdl_sd_form f, unsigned k, unsigned long seed,
                       double *mae);

/* A utilization file (SPEC 7).  Model names are interned in the zoo's
 * normal form (the groups of leave-one-model-out), GPU types as written
 * (case-insensitively). */
struct mdl_util_row {
    double util;                /* (0, 1] */
    double x[MDL_UTIL_NFEAT];   /* raw features, >= 0 */
    uint32_t model;             /* index into models */
    uint32_t gpu;               /* index into gpus */
    long line;
};
struct mdl_util_data {
    struct mdl_util_row *r;
    uint32_t n;
    const char **models;        /* [nmodels] normal forms */
    uint32_t nmodels;
    const char **gpus;          /* [ngpus] first spelling */
    uint32_t ngpus;
    struct arena *arena;
};
int mdl_fit_util_load(const char *path, struct mdl_util_data *d,
                      struct dl_error *err);
void mdl_fit_util_data_free(struct mdl_util_data *d);

/* Ridge regression (penalty lambda on the standardized coefficients) on
 * rows idx[0..n); records the training range of the utilizations and,
 * when every row has one GPU type, that type.  0, or -1 when n == 0 or
 * GSL fails. */
int mdl_fit_util(const struct mdl_util_data *d, const uint32_t *idx,
                 uint32_t n, double lambda, struct mdl_util_params *m);
/* Cross-validated error of the regression and of the training-mean
 * baseline, as RMSLE on the fraction scale (log1p(u), u in [0, 1]) and on
 * the percent scale (log1p(100 u), nvidia-smi's figure), pooled over all
 * held-out rows. */
struct mdl_util_cv {
    double rmsle, rmsle_pct;    /* the regression */
    double base, base_pct;      /* the training mean */
    uint32_t n;                 /* held-out rows */
    uint32_t folds;             /* folds (or models left out) */
};
/* by_model false: k folds over the rows (GSL mt19937 seeded with seed);
 * true: leave one model out (every batch of one model held out together:
 * the error for a model never measured).  0, or -1 when there are fewer
 * than 2 rows (2 models) or GSL fails. */
int mdl_fit_util_cv(const struct mdl_util_data *d, unsigned k,
                    unsigned long seed, double lambda, bool by_model,
                    struct mdl_util_cv *cv);


/* ------------------------------------------------------------ runtime fit
 * (models/fit/runtime.c) */

/* A runtime measurement file (SPEC 7) joined with the zoo. */
struct mdl_rt_row {
    const struct mdl_model *m;  /* zoo row (model, batch), or the model's
                                   first row when the zoo lacks the batch */
    double flops, params;       /* of this row's batch (flops scaled
                                   linearly from m when m's batch differs) */
    uint32_t batch;
    uint32_t gpu;               /* index into zoo.gpus */
    uint32_t num_gpus;
    bool spread;
    double thr;                 /* iterations/s, > 0 */
    long line;
};
struct mdl_rt_data {
    struct mdl_rt_row *r;       /* malloc'd, file order */
    uint32_t n;
    uint32_t skipped;           /* rows whose model or GPU type the zoo
                                   lacks, or without flops */
};
int mdl_rt_data_load(const char *path, const struct mdl_zoo *z,
                     struct mdl_rt_data *d, struct dl_error *err);
void mdl_rt_data_free(struct mdl_rt_data *d);
/* Fits p on rows idx[0..n): global efficiencies, overhead and scaling;
 * with per_type, also eff_c/eff_m of every type with >= MDL_RT_MIN_ROWS
 * rows.  Deterministic coordinate search on the squared error of
 * log(throughput).  0, or -1 when n == 0. */
int mdl_rt_fit(const struct mdl_zoo *z, const struct mdl_rt_data *d,
               const uint32_t *idx, uint32_t n, bool per_type,
               struct mdl_rt_params *p);
/* Cross-validated errors; e[g] for zoo GPU type g, e[z->ngpus] pooled. */
struct mdl_rt_err {
    uint32_t n;
    double mape, rmse_log;          /* the model */
    double base_mape, base_rmse_log;/* median compute efficiency only */
};
/* Leave-one-GPU-type-out: each type predicted by a global fit on the
 * others.  K-fold over rows (GSL mt19937 seeded with seed). */
void mdl_rt_cv_loto(const struct mdl_zoo *z, const struct mdl_rt_data *d,
                    struct mdl_rt_err *e);
void mdl_rt_cv_kfold(const struct mdl_zoo *z, const struct mdl_rt_data *d,
                     unsigned k, unsigned long seed, struct mdl_rt_err *e);

/* The fitted runtime predictor (models/rtpred.c evaluates it). */
/* Least squares of log(seconds per iteration) on the features of rows
 * idx[0..n) (each usable: mdl_rtp_features), by truncated SVD.  0, or -1
 * when n == 0 or GSL fails. */
int mdl_rtp_fit(const struct mdl_zoo *z, const struct mdl_rt_data *d,
                const uint32_t *idx, uint32_t n, double coef[MDL_RTP_NFEAT]);
struct mdl_rtp_model {          /* one model's held-out error */
    const char *name;           /* the zoo's spelling */
    uint32_t n;
    double rmsle, mdape, base_rmsle;
};
/* Leave-one-model-out errors of the predicted time per iteration, pooled
 * over the held-out rows: RMSLE (RMS of log(pred / actual)), median
 * absolute percentage error, 90th percentile of |log(pred / actual)|;
 * base_*: the roofline's (a global mdl_rt_fit on the other models). */
struct mdl_rtp_cv {
    uint32_t nrows;             /* usable rows */
    uint32_t n;                 /* held-out rows (models with others) */
    double rmsle, mdape, p90;
    double base_rmsle, base_mdape, base_p90;
    double train_rmsle;         /* the fit on every row, in sample */
    struct mdl_rtp_model *models;   /* [nmodels] malloc'd */
    uint32_t nmodels;
};
/* Fills cv, and out with the fit on every usable row and one held-out fit
 * per model (out->hold, malloc'd).  0, or -1 when a fit fails or no row
 * is usable. */
int mdl_rtp_cv_lomo(const struct mdl_zoo *z, const struct mdl_rt_data *d,
                    struct mdl_rtp_cv *cv, struct mdl_rtp *out);
void mdl_rtp_cv_free(struct mdl_rtp_cv *cv);
/* `dlsim fit runtime --form loglinear`: the predictor's leave-one-model-out
 * errors per model on table, the predictor (with its held-out fits)
 * written to o->out.  0 or a DL_ code. */
int mdl_fit_rtp_run(const struct mdl_fit_opts *o, FILE *table,
                    struct dl_error *err);
/* A double in the fewest digits (<= 17) that read back to it; null for
 * NaN. */
void mdl_fit_put_exact(FILE *f, double x);


#endif
