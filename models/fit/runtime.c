/*
 * models/fit/runtime.c - `dlsim fit runtime` (models/FIT.md, "Runtime
 * model"): reads a runtime measurement file joined with the zoo, fits the
 * roofline's efficiencies, overhead and scaling by a deterministic
 * coordinate search on the squared error of log(throughput), cross-
 * validates it (leave one GPU type out; k-fold) and writes the model file
 * that models/runtime.c reads back.
 */
#include "models/fit/fit.h"
#include "sim/base/formats.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define RT_DEF_EFF_C 0.46
#define RT_DEF_EFF_M 0.21
#define RT_DEF_OVERHEAD 0.024
#define RT_DEF_SCALE_CONS 0.65
#define RT_DEF_SCALE_SPREAD 0.43
#define RT_EFF_MIN 1e-4         /* search bounds */
#define RT_T0_MIN 1e-7
#define RT_T0_MAX 10.0
#define RT_STEP0 1.0            /* initial step, log units */
#define RT_STEP_MIN 1e-4
#define RT_MAX_EVALS 200000     /* per pass */
#define RT_RESTARTS 8

/* ------------------------------------------------------------ data */

enum { C_GPU, C_MODEL, C_BATCH, C_NGPUS, C_PLACE, C_THR, C_N };
static const char *const rt_cols[C_N] = {
    "gpu_type", "model", "batch_size", "num_gpus", "placement", "throughput",
};

void mdl_rt_data_free(struct mdl_rt_data *d)
{
    free(d->r);
    *d = (struct mdl_rt_data){ 0 };
}

int mdl_rt_data_load(const char *path, const struct mdl_zoo *z,
                     struct mdl_rt_data *d, struct dl_error *err)
{
    *d = (struct mdl_rt_data){ 0 };
    struct dl_csv c;
    bool req[C_N] = { true, true, true, true, true, true };
    int idx[C_N];
    size_t cap = 0;
    int rc = dl_csv_open(&c, path, &dl_csv_model_files, err);
    if (rc)
        return rc;
    if ((rc = dl_csv_header(&c, rt_cols, req, C_N, idx, err)))
        goto out;
    while ((rc = dl_csv_row(&c, err)) == 1) {
        long batch, ngpus;
        double thr;
        if ((rc = dl_csv_int(&c, idx[C_BATCH], "batch_size", true, 1,
                           UINT32_MAX - 1, &batch, err)) ||
            (rc = dl_csv_int(&c, idx[C_NGPUS], "num_gpus", true, 1, 1 << 20,
                           &ngpus, err)) ||
            (rc = dl_csv_num(&c, idx[C_THR], "throughput", true, 0, 1e12, &thr,
                           err)))
            goto out;
        if (!(thr > 0)) {
            rc = dl_csv_bad_value(&c, idx[C_THR], "throughput", "must be > 0:",
                                err);
            goto out;
        }
        const char *place = dl_csv_fld(&c, idx[C_PLACE]);
        bool spread = !strcmp(place, "spread");
        if (!spread && strcmp(place, "consolidated")) {
            rc = dl_csv_bad_value(&c, idx[C_PLACE], "placement",
                                "not 'consolidated' or 'spread':", err);
            goto out;
        }
        char ref[DL_CSV_NAME_MAX + 32];
        const char *model = dl_csv_fld(&c, idx[C_MODEL]);
        snprintf(ref, sizeof ref, "%.*s@%ld", DL_CSV_NAME_MAX, model, batch);
        const struct mdl_model *m = mdl_zoo_find(z, ref);
        double flops = m ? m->flops : -1;
        if (!m && (m = mdl_zoo_find(z, model)) && m->flops > 0)
            flops = m->flops * (double)batch / m->batch_size;
        const struct mdl_gpu *g = mdl_zoo_gpu(z, dl_csv_fld(&c, idx[C_GPU]));
        if (!m || !g || !(flops > 0) || !(mdl_rt_peak_tflops(g) > 0) ||
            !(g->mem_bw_gbs > 0)) {
            d->skipped++;
            continue;
        }
        xgrow(&d->r, &cap, d->n + 1, sizeof *d->r);
        d->r[d->n++] = (struct mdl_rt_row){
            .m = m, .flops = flops, .params = m->params,
            .batch = (uint32_t)batch, .gpu = (uint32_t)(g - z->gpus),
            .num_gpus = (uint32_t)ngpus, .spread = spread && ngpus > 1,
            .thr = thr, .line = c.line,
        };
    }
out:
    dl_csv_close(&c);
    if (rc)
        mdl_rt_data_free(d);
    return rc;
}

/* ------------------------------------------------------------ fitting */

/* Search vector (all logs): 0 eff_c, 1 eff_m, 2 overhead, 3 scale_cons,
 * 4 scale_spread (global), then eff_c, eff_m of each own type. */
#define X_SHARED 5

struct fitctx {
    const struct mdl_zoo *z;
    const struct mdl_rt_data *d;
    const uint32_t *idx;
    uint32_t n;
    const int *slot;            /* [z->ngpus]: own-type slot, or -1 */
};

static double row_pred(const struct fitctx *F, const double *x,
                       const struct mdl_rt_row *r)
{
    const struct mdl_gpu *g = &F->z->gpus[r->gpu];
    int s = F->slot ? F->slot[r->gpu] : -1;
    double ec = exp(s >= 0 ? x[X_SHARED + 2 * s] : x[0]);
    double em = exp(s >= 0 ? x[X_SHARED + 2 * s + 1] : x[1]);
    return 1 / mdl_rt_iter_time(r->flops, r->params, mdl_rt_peak_tflops(g),
                         g->mem_bw_gbs, r->num_gpus, r->spread, ec, em,
                         exp(x[2]), exp(x[3]), exp(x[4]));
}

static double objective(const struct fitctx *F, const double *x)
{
    double s = 0;
    for (uint32_t i = 0; i < F->n; i++) {
        const struct mdl_rt_row *r = &F->d->r[F->idx[i]];
        double e = log(row_pred(F, x, r)) - log(r->thr);
        s += e * e;
    }
    return s;
}

static double search1(const struct fitctx *F, double *x, const double *lo,
                      const double *hi, int nx)
{
    double best = objective(F, x);
    long evals = 1;
    for (double step = RT_STEP0; step > RT_STEP_MIN && evals < RT_MAX_EVALS;) {
        bool improved = false;
        for (int i = 0; i < nx; i++)
            for (int dir = -1; dir <= 1; dir += 2)
                for (;;) {
                    double old = x[i];
                    double v = fmin(hi[i], fmax(lo[i], old + dir * step));
                    if (v == old)
                        break;
                    x[i] = v;
                    double o = objective(F, x);
                    evals++;
                    if (o < best - 1e-12 * (1 + best)) {
                        best = o;
                        improved = true;
                    } else {
                        x[i] = old;
                        break;
                    }
                }
        if (!improved)
            step /= 2;
    }
    return best;
}

/* Coordinate search, restarted from the full step while a restart still
 * lowers the objective (the parameters are correlated, so one pass can
 * stall in a narrow valley). */
static void search(const struct fitctx *F, double *x, const double *lo,
                   const double *hi, int nx)
{
    double prev = HUGE_VAL;
    for (int r = 0; r < RT_RESTARTS; r++) {
        double o = search1(F, x, lo, hi, nx);
        if (!(o < prev - 1e-9 * (1 + o)))
            break;
        prev = o;
    }
}

int mdl_rt_fit(const struct mdl_zoo *z, const struct mdl_rt_data *d,
               const uint32_t *idx, uint32_t n, bool per_type,
               struct mdl_rt_params *p)
{
    mdl_rt_defaults(p);
    if (!n)
        return -1;
    uint32_t *cnt = xcalloc(z->ngpus + 1, sizeof *cnt);
    int *slot = xmalloc((z->ngpus + 1) * sizeof *slot);
    int nslots = 0;
    for (uint32_t i = 0; i < n; i++)
        cnt[d->r[idx[i]].gpu]++;
    for (uint32_t g = 0; g < z->ngpus; g++)
        slot[g] = per_type && cnt[g] >= MDL_RT_MIN_ROWS ? nslots++ : -1;
    int nx = X_SHARED + 2 * nslots;
    double *x = xmalloc(nx * sizeof *x), *lo = xmalloc(nx * sizeof *lo),
           *hi = xmalloc(nx * sizeof *hi);
    x[0] = log(p->eff_c), x[1] = log(p->eff_m), x[2] = log(p->overhead_s);
    x[3] = log(p->scale_cons), x[4] = log(p->scale_spread);
    for (int i = 0; i < nx; i++)
        lo[i] = log(RT_EFF_MIN), hi[i] = 0;
    lo[2] = log(RT_T0_MIN), hi[2] = log(RT_T0_MAX);
    /* stage 1: global; stage 2: own types start from it, shared refined */
    struct fitctx F = { z, d, idx, n, NULL };
    search(&F, x, lo, hi, X_SHARED);
    if (nslots) {
        for (int s = 0; s < nslots; s++)
            x[X_SHARED + 2 * s] = x[0], x[X_SHARED + 2 * s + 1] = x[1];
        struct fitctx F2 = { z, d, idx, n, slot };
        double g0 = x[0], g1 = x[1];
        /* the global pair stays the stage-1 fit (it serves unseen types) */
        lo[0] = hi[0] = g0;
        lo[1] = hi[1] = g1;
        search(&F2, x, lo, hi, nx);
        p->types = xcalloc(nslots, sizeof *p->types);
        for (uint32_t g = 0; g < z->ngpus; g++) {
            int s = slot[g];
            if (s < 0)
                continue;
            struct mdl_rt_type *t = &p->types[s];
            snprintf(t->name, sizeof t->name, "%s", z->gpus[g].name);
            t->eff_c = exp(x[X_SHARED + 2 * s]);
            t->eff_m = exp(x[X_SHARED + 2 * s + 1]);
            t->n_rows = cnt[g];
        }
        p->ntypes = (uint32_t)nslots;
    }
    p->eff_c = exp(x[0]), p->eff_m = exp(x[1]), p->overhead_s = exp(x[2]);
    p->scale_cons = exp(x[3]), p->scale_spread = exp(x[4]);
    free(x), free(lo), free(hi), free(cnt), free(slot);
    return 0;
}

/* ------------------------------------------------------------ CV */

/* Compute efficiency implied by one row: roofline compute time at peak
 * over the measured time. */
static double implied_eff(const struct mdl_zoo *z, const struct mdl_rt_row *r)
{
    const struct mdl_gpu *g = &z->gpus[r->gpu];
    return 3 * r->flops * r->thr /
           (r->num_gpus * mdl_rt_peak_tflops(g) * 1e12);
}

static double median_eff(const struct mdl_zoo *z, const struct mdl_rt_data *d,
                         const uint32_t *idx, uint32_t n)
{
    double *v = xmalloc(n * sizeof *v);
    for (uint32_t i = 0; i < n; i++)
        v[i] = implied_eff(z, &d->r[idx[i]]);
    gsl_sort(v, 1, n);
    double med = gsl_stats_median_from_sorted_data(v, 1, n);
    free(v);
    return med;
}

struct acc {
    double ape, sq, bape, bsq;
    uint32_t n;
};

static void add_err(struct acc *a, double pred, double base, double thr)
{
    double e = log(pred) - log(thr), eb = log(base) - log(thr);
    a->ape += fabs(pred - thr) / thr;
    a->sq += e * e;
    a->bape += fabs(base - thr) / thr;
    a->bsq += eb * eb;
    a->n++;
}

static void finish(const struct acc *a, uint32_t ng, struct mdl_rt_err *e)
{
    for (uint32_t g = 0; g <= ng; g++) {
        uint32_t n = a[g].n;
        e[g] = (struct mdl_rt_err){
            .n = n,
            .mape = n ? a[g].ape / n : NAN,
            .rmse_log = n ? sqrt(a[g].sq / n) : NAN,
            .base_mape = n ? a[g].bape / n : NAN,
            .base_rmse_log = n ? sqrt(a[g].bsq / n) : NAN,
        };
    }
}

static void predict_into(const struct mdl_zoo *z, const struct mdl_rt_data *d,
                         const struct mdl_rt_params *p, double med,
                         const uint32_t *idx, uint32_t n, struct acc *a)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct mdl_rt_row *r = &d->r[idx[i]];
        const struct mdl_gpu *g = &z->gpus[r->gpu];
        struct mdl_model m = *r->m;
        m.flops = r->flops, m.batch_size = r->batch;
        double pred = mdl_rt_estimate(&m, g, p, r->num_gpus, r->spread);
        double base = med * r->num_gpus * mdl_rt_peak_tflops(g) * 1e12 /
                      (3 * r->flops);
        add_err(&a[r->gpu], pred, base, r->thr);
        add_err(&a[z->ngpus], pred, base, r->thr);
    }
}

void mdl_rt_cv_loto(const struct mdl_zoo *z, const struct mdl_rt_data *d,
                    struct mdl_rt_err *e)
{
    struct acc *a = xcalloc(z->ngpus + 1, sizeof *a);
    uint32_t *tr = xmalloc((d->n + 1) * sizeof *tr);
    uint32_t *te = xmalloc((d->n + 1) * sizeof *te);
    for (uint32_t g = 0; g < z->ngpus; g++) {
        uint32_t ntr = 0, nte = 0;
        for (uint32_t i = 0; i < d->n; i++)
            if (d->r[i].gpu == g)
                te[nte++] = i;
            else
                tr[ntr++] = i;
        if (!nte || !ntr)
            continue;
        struct mdl_rt_params p;
        mdl_rt_fit(z, d, tr, ntr, false, &p);
        predict_into(z, d, &p, median_eff(z, d, tr, ntr), te, nte, a);
        mdl_rt_params_free(&p);
    }
    finish(a, z->ngpus, e);
    free(a), free(tr), free(te);
}

void mdl_rt_cv_kfold(const struct mdl_zoo *z, const struct mdl_rt_data *d,
                     unsigned k, unsigned long seed, struct mdl_rt_err *e)
{
    struct acc *a = xcalloc(z->ngpus + 1, sizeof *a);
    uint32_t n = d->n;
    uint32_t *perm = xmalloc((n + 1) * sizeof *perm);
    uint32_t *tr = xmalloc((n + 1) * sizeof *tr);
    uint32_t *te = xmalloc((n + 1) * sizeof *te);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        DL_ASSERT(!"out of memory in gsl_rng_alloc");
    gsl_rng_set(rng, seed);
    if (n > 1)
        gsl_ran_shuffle(rng, perm, n, sizeof *perm);
    gsl_rng_free(rng);
    if (k > n)
        k = n;
    for (unsigned f = 0; f < k && n >= 2; f++) {
        uint32_t ntr = 0, nte = 0;
        for (uint32_t i = 0; i < n; i++)
            if (i % k == f)
                te[nte++] = perm[i];
            else
                tr[ntr++] = perm[i];
        struct mdl_rt_params p;
        mdl_rt_fit(z, d, tr, ntr, true, &p);
        predict_into(z, d, &p, median_eff(z, d, tr, ntr), te, nte, a);
        mdl_rt_params_free(&p);
    }
    finish(a, z->ngpus, e);
    free(a), free(perm), free(tr), free(te);
}

/* ------------------------------------------------------------ YAML out */

static void yaml_err(FILE *f, const char *name, const struct mdl_rt_err *e)
{
    fputs("    - {gpu_type: ", f);
    dl_yaml_put_str(f, name, 4);
    fprintf(f, ", n_rows: %u, mape: ", e->n);
    dl_yaml_put_num(f, e->mape);
    fputs(", rmse_log: ", f);
    dl_yaml_put_num(f, e->rmse_log);
    fputs(", baseline_mape: ", f);
    dl_yaml_put_num(f, e->base_mape);
    fputs(", baseline_rmse_log: ", f);
    dl_yaml_put_num(f, e->base_rmse_log);
    fputs("}\n", f);
}

static int write_model(const char *path, const char *src,
                       const struct mdl_zoo *z, const struct mdl_rt_data *d,
                       const struct mdl_rt_params *p,
                       const struct mdl_rt_err *loto,
                       const struct mdl_rt_err *kf, unsigned k,
                       unsigned long seed, struct dl_error *err)
{
    char *tmp;
    FILE *f = dl_tmp_open(path, &tmp, err);
    if (!f)
        return DL_EIO;
    fputs("# dlsim runtime model, written by `dlsim fit runtime`\n"
          "# (models/FIT.md, \"Runtime model\").  Iteration time on n GPUs:\n"
          "#   t_c = 3 flops / (n peak eff_compute)\n"
          "#   t_m = (bytes_per_param params + 3 flops / (flop_per_byte n))\n"
          "#         / (mem_bw eff_memory)\n"
          "#   t   = (max(t_c, t_m) + overhead_s) / scaling (n > 1)\n"
          "# peak = fp16 tensor peak if fp16 >= 4 fp32 in gpus.csv, else fp32.\n"
          "# Types not listed use the global eff_compute / eff_memory.\n"
          "# cv: leave-one-GPU-type-out (global fit) and k-fold errors; the\n"
          "# baseline predicts with the median compute efficiency only.\n", f);
    fputs("kind: runtime\nsource: ", f);
    dl_yaml_put_str(f, src, 4);
    fputs("\nzoo: ", f);
    dl_yaml_put_str(f, z->dir ? z->dir : "", 4);
    fprintf(f, "\nn_rows: %u\nn_skipped: %u\nfolds: %u\nseed: %lu\n"
            "bytes_per_param: %g\nflop_per_byte: %g\nmin_rows: %d\n",
            d->n, d->skipped, k, seed, MDL_RT_BYTES_PER_PARAM,
            MDL_RT_FLOP_PER_BYTE, MDL_RT_MIN_ROWS);
    fprintf(f, "eff_compute: %.6g\neff_memory: %.6g\noverhead_s: %.6g\n"
            "scaling_consolidated: %.6g\nscaling_spread: %.6g\ngpu_types:%s\n",
            p->eff_c, p->eff_m, p->overhead_s, p->scale_cons,
            p->scale_spread, p->ntypes ? "" : " []");
    for (uint32_t i = 0; i < p->ntypes; i++) {
        fputs("  - {name: ", f);
        dl_yaml_put_str(f, p->types[i].name, 4);
        fprintf(f, ", eff_compute: %.6g, eff_memory: %.6g, n_rows: %u}\n",
                p->types[i].eff_c, p->types[i].eff_m, p->types[i].n_rows);
    }
    const struct mdl_rt_err *all[2] = { loto, kf };
    const char *nm[2] = { "leave_one_type_out", "kfold" };
    fputs("cv:\n", f);
    for (int a = 0; a < 2; a++) {
        fprintf(f, "  %s:\n", nm[a]);
        for (uint32_t g = 0; g < z->ngpus; g++)
            if (all[a][g].n)
                yaml_err(f, z->gpus[g].name, &all[a][g]);
        yaml_err(f, "all", &all[a][z->ngpus]);
    }
    return dl_tmp_commit(f, tmp, path, true, err);
}

/* ------------------------------------------------------------ the fit as
 * `dlsim fit runtime` runs it (sim/cli/fit.c parses the options) */

static void print_err(FILE *table, const char *cv, const char *name,
                      const struct mdl_rt_err *e)
{
    fprintf(table, "%-6s %-10s %6u %8.1f %9.4f %10.1f %14.4f\n", cv, name, e->n,
            100 * e->mape, e->rmse_log, 100 * e->base_mape, e->base_rmse_log);
}

/* The zoo (o->zoo, else the default directory, its path into dbuf) and
 * the measurements joined with it: what both `dlsim fit runtime` forms
 * start from.  0, or a DL_ code with nothing left to free. */
static int load_inputs(const struct mdl_fit_opts *o, char *dbuf, size_t n,
                       const char **zdir, struct mdl_zoo *z,
                       struct mdl_rt_data *d, struct dl_error *err)
{
    gsl_set_error_handler_off();
    *zdir = o->zoo;
    if (!*zdir) {
        if (mdl_zoo_default_dir(dbuf, n))
            return dl_fail_io(err, "dlsim fit runtime", "no model zoo found; "
                              "give --zoo DIR or set DLSIM_MODELS");
        *zdir = dbuf;
    }
    int rc = mdl_zoo_load(*zdir, z, err);
    if (rc)
        return rc;
    if ((rc = mdl_rt_data_load(o->in, z, d, err)))
        mdl_zoo_free(z);
    return rc;
}

int mdl_fit_runtime_run(const struct mdl_fit_opts *o, FILE *table,
                        struct dl_error *err)
{
    const char *in = o->in, *zdir;
    char dbuf[4096];
    struct mdl_zoo z;
    struct mdl_rt_data d;
    int rc = load_inputs(o, dbuf, sizeof dbuf, &zdir, &z, &d, err);
    if (rc)
        return rc;
    if (d.n < 2) {
        rc = dl_fail(err, in, 0, 0, "%u usable rows (%u skipped: model@batch "
                     "or GPU type not in the zoo); at least 2 are needed",
                     d.n, d.skipped);
        goto done;
    }
    struct mdl_rt_err *loto = xcalloc(z.ngpus + 1, sizeof *loto);
    struct mdl_rt_err *kf = xcalloc(z.ngpus + 1, sizeof *kf);
    mdl_rt_cv_loto(&z, &d, loto);
    mdl_rt_cv_kfold(&z, &d, o->folds, o->seed, kf);
    fprintf(table, "dlsim fit runtime: %u rows (%u skipped), zoo %s\n", d.n, d.skipped,
           zdir);
    fprintf(table, "%-6s %-10s %6s %8s %9s %10s %14s\n", "cv", "gpu_type", "n_rows",
           "MAPE_%", "RMSE_log", "base_MAPE_%", "base_RMSE_log");
    for (int a = 0; a < 2; a++) {
        const struct mdl_rt_err *e = a ? kf : loto;
        for (uint32_t g = 0; g < z.ngpus; g++)
            if (e[g].n)
                print_err(table, a ? "kfold" : "loto", z.gpus[g].name, &e[g]);
        print_err(table, a ? "kfold" : "loto", "all", &e[z.ngpus]);
    }
    uint32_t *all = xmalloc(d.n * sizeof *all);
    for (uint32_t i = 0; i < d.n; i++)
        all[i] = i;
    struct mdl_rt_params p;
    mdl_rt_fit(&z, &d, all, d.n, true, &p);
    free(all);
    fprintf(table, "global: eff_compute %.4g eff_memory %.4g overhead_s %.4g "
           "scaling_consolidated %.4g scaling_spread %.4g\n", p.eff_c, p.eff_m,
           p.overhead_s, p.scale_cons, p.scale_spread);
    for (uint32_t i = 0; i < p.ntypes; i++)
        fprintf(table, "%-10s eff_compute %.4g eff_memory %.4g (%u rows)\n",
               p.types[i].name, p.types[i].eff_c, p.types[i].eff_m,
               p.types[i].n_rows);
    if (o->out)
        rc = write_model(o->out, in, &z, &d, &p, loto, kf, o->folds,
                         o->seed, err);
    mdl_rt_params_free(&p);
    free(loto), free(kf);
done:
    mdl_rt_data_free(&d);
    mdl_zoo_free(&z);
    return rc;
}

/* ------------------------------------------------------------ the fitted
 * runtime predictor (`dlsim fit runtime --form loglinear`; models/rtpred.c
 * reads and evaluates it; models/FIT.md) */

/* Row r's features (-1: unusable, no params). */
static int rtp_x(const struct mdl_zoo *z, const struct mdl_rt_row *r,
                 double x[MDL_RTP_NFEAT])
{
    return mdl_rtp_features(r->flops, r->params, r->batch, &z->gpus[r->gpu],
                            r->num_gpus, r->spread, x);
}

int mdl_rtp_fit(const struct mdl_zoo *z, const struct mdl_rt_data *d,
                const uint32_t *idx, uint32_t n, double coef[MDL_RTP_NFEAT])
{
    memset(coef, 0, MDL_RTP_NFEAT * sizeof *coef);
    if (!n)
        return -1;
    gsl_matrix *X = gsl_matrix_alloc(n, MDL_RTP_NFEAT);
    gsl_vector *y = gsl_vector_alloc(n);
    gsl_vector *c = gsl_vector_alloc(MDL_RTP_NFEAT);
    gsl_matrix *cov = gsl_matrix_alloc(MDL_RTP_NFEAT, MDL_RTP_NFEAT);
    gsl_multifit_linear_workspace *w =
        gsl_multifit_linear_alloc(n, MDL_RTP_NFEAT);
    if (!X || !y || !c || !cov || !w)
        DL_ASSERT(!"out of memory in GSL");
    for (uint32_t i = 0; i < n; i++) {
        double x[MDL_RTP_NFEAT];
        const struct mdl_rt_row *r = &d->r[idx[i]];
        DL_ASSERT(!rtp_x(z, r, x));
        for (int f = 0; f < MDL_RTP_NFEAT; f++)
            gsl_matrix_set(X, i, (size_t)f, x[f]);
        gsl_vector_set(y, i, -log(r->thr));     /* log seconds/iteration */
    }
    /* least squares by SVD: a feature constant in training (every row
     * consolidated, say) gets the minimum-norm solution, not a failure */
    size_t rank;
    double chisq;
    int rc = gsl_multifit_linear_tsvd(X, y, 1e-12, c, cov, &chisq, &rank, w);
    if (!rc)
        for (int f = 0; f < MDL_RTP_NFEAT; f++)
            coef[f] = gsl_vector_get(c, (size_t)f);
    gsl_matrix_free(X), gsl_vector_free(y), gsl_vector_free(c);
    gsl_matrix_free(cov), gsl_multifit_linear_free(w);
    return rc ? -1 : 0;
}

/* RMS and 90th percentile of the errors e[0..n) (|log(pred / actual)|;
 * sorts e). */
static void abs_log_stats(double *e, uint32_t n, double *rmsle, double *p90)
{
    if (!n) {
        *rmsle = *p90 = NAN;
        return;
    }
    double sq = 0;
    for (uint32_t i = 0; i < n; i++)
        sq += e[i] * e[i];
    *rmsle = sqrt(sq / n);
    gsl_sort(e, 1, n);
    *p90 = gsl_stats_quantile_from_sorted_data(e, 1, n, 0.9);
}

static double median_of(double *v, uint32_t n)
{
    if (!n)
        return NAN;
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

int mdl_rtp_cv_lomo(const struct mdl_zoo *z, const struct mdl_rt_data *d,
                    struct mdl_rtp_cv *cv, struct mdl_rtp *out)
{
    memset(cv, 0, sizeof *cv);
    uint32_t n = d->n, nu = 0;
    uint32_t *use = xmalloc((n + 1) * sizeof *use);
    double x[MDL_RTP_NFEAT];
    for (uint32_t i = 0; i < n; i++)
        if (!rtp_x(z, &d->r[i], x))
            use[nu++] = i;
    uint32_t nf = z->nfamilies;
    uint32_t *tr = xmalloc((nu + 1) * sizeof *tr);
    uint32_t *te = xmalloc((nu + 1) * sizeof *te);
    double *el = xmalloc((nu + 1) * sizeof *el), *ep = xmalloc((nu + 1) * sizeof *ep);
    double *bl = xmalloc((nu + 1) * sizeof *bl), *bp = xmalloc((nu + 1) * sizeof *bp);
    double *tmp = xmalloc((nu + 1) * sizeof *tmp);
    cv->models = xcalloc(nf + 1, sizeof *cv->models);
    out->hold = xcalloc(nf + 1, sizeof *out->hold);
    out->nhold = 0;
    uint32_t k = 0;
    int rc = 0;
    for (uint32_t f = 0; f < nf && !rc; f++) {
        uint32_t ntr = 0, nte = 0;
        for (uint32_t i = 0; i < nu; i++)
            if (d->r[use[i]].m->family == f)
                te[nte++] = use[i];
            else
                tr[ntr++] = use[i];
        if (!nte || !ntr)
            continue;
        struct mdl_rtp_hold *h = &out->hold[out->nhold++];
        snprintf(h->model, sizeof h->model, "%s", z->family_keys[f]);
        h->n_rows = nte;
        if (mdl_rtp_fit(z, d, tr, ntr, h->coef)) {
            rc = -1;
            break;
        }
        /* the comparison: the roofline fitted (globally) on the others */
        struct mdl_rt_params p;
        mdl_rt_fit(z, d, tr, ntr, false, &p);
        struct mdl_rtp_model *pm = &cv->models[cv->nmodels++];
        pm->name = z->families[f];
        pm->n = nte;
        double sq = 0, bsq = 0;
        for (uint32_t i = 0; i < nte; i++, k++) {
            const struct mdl_rt_row *r = &d->r[te[i]];
            rtp_x(z, r, x);
            double pred = 1 / mdl_rtp_iter_s(h->coef, x);
            struct mdl_model m = *r->m;
            m.flops = r->flops, m.batch_size = r->batch;
            double base = mdl_rt_estimate(&m, &z->gpus[r->gpu], &p,
                                          r->num_gpus, r->spread);
            /* errors of the predicted time = actual thr / predicted thr */
            el[k] = fabs(log(r->thr / pred));
            ep[k] = fabs(r->thr / pred - 1);
            bl[k] = fabs(log(r->thr / base));
            bp[k] = fabs(r->thr / base - 1);
            sq += el[k] * el[k], bsq += bl[k] * bl[k];
        }
        pm->rmsle = sqrt(sq / nte);
        pm->base_rmsle = sqrt(bsq / nte);
        memcpy(tmp, ep + k - nte, nte * sizeof *tmp);
        pm->mdape = median_of(tmp, nte);
        mdl_rt_params_free(&p);
    }
    cv->n = k;
    if (!rc && k) {
        abs_log_stats(el, k, &cv->rmsle, &cv->p90);
        abs_log_stats(bl, k, &cv->base_rmsle, &cv->base_p90);
        cv->mdape = median_of(ep, k);
        cv->base_mdape = median_of(bp, k);
    }
    /* and the fit on every usable row */
    if (!rc && (nu == 0 || mdl_rtp_fit(z, d, use, nu, out->coef)))
        rc = -1;
    if (!rc) {
        double sq = 0;
        for (uint32_t i = 0; i < nu; i++) {
            const struct mdl_rt_row *r = &d->r[use[i]];
            rtp_x(z, r, x);
            double e = log(r->thr * mdl_rtp_iter_s(out->coef, x));
            sq += e * e;
        }
        cv->train_rmsle = sqrt(sq / nu);
    }
    cv->nrows = nu;
    out->lomo_rmsle = cv->rmsle;
    free(use), free(tr), free(te), free(el), free(ep), free(bl), free(bp);
    free(tmp);
    return rc;
}

void mdl_rtp_cv_free(struct mdl_rtp_cv *cv)
{
    free(cv->models);
    memset(cv, 0, sizeof *cv);
}

static void put_coef(FILE *f, const double *c)
{
    fputc('[', f);
    for (int i = 0; i < MDL_RTP_NFEAT; i++) {
        if (i)
            fputs(", ", f);
        mdl_fit_put_exact(f, c[i]);
    }
    fputc(']', f);
}

static int write_rtp(const char *path, const char *src, const struct mdl_zoo *z,
                     const struct mdl_rt_data *d, const struct mdl_rtp *p,
                     const struct mdl_rtp_cv *cv, struct dl_error *err)
{
    char *tmp;
    FILE *f = dl_tmp_open(path, &tmp, err);
    if (!f)
        return DL_EIO;
    fputs("# dlsim runtime predictor, written by `dlsim fit runtime --form "
          "loglinear`\n# (models/FIT.md, \"The fitted runtime predictor\"):\n"
          "#   log(seconds per iteration) = coef . features\n"
          "# holdout: per model, the fit with that model's rows left out "
          "(what\n# predict.runtime: fitted uses for a job of that model, "
          "by default).\n", f);
    fputs("kind: runtime_predictor\nform: loglinear\nsource: ", f);
    dl_yaml_put_str(f, src, 4);
    fputs("\nzoo: ", f);
    dl_yaml_put_str(f, z->dir ? z->dir : "", 4);
    fprintf(f, "\nn_rows: %u\nn_skipped: %u\nn_models: %u\nfeatures: [",
            cv->nrows, d->skipped + (d->n - cv->nrows), cv->nmodels);
    for (int i = 0; i < MDL_RTP_NFEAT; i++)
        fprintf(f, "%s%s", i ? ", " : "", mdl_rtp_feature_names[i]);
    fputs("]\ncoef: ", f);
    put_coef(f, p->coef);
    fputs("\nlomo_rmsle: ", f);
    dl_yaml_put_num(f, cv->rmsle);
    fputs("\nlomo: {rows: ", f);
    fprintf(f, "%u, median_ape: ", cv->n);
    dl_yaml_put_num(f, cv->mdape);
    fputs(", p90_abs_log: ", f);
    dl_yaml_put_num(f, cv->p90);
    fputs(", train_rmsle: ", f);
    dl_yaml_put_num(f, cv->train_rmsle);
    fputs(", roofline_rmsle: ", f);
    dl_yaml_put_num(f, cv->base_rmsle);
    fputs(", roofline_median_ape: ", f);
    dl_yaml_put_num(f, cv->base_mdape);
    fputs("}\nholdout:\n", f);
    for (uint32_t i = 0; i < p->nhold; i++) {
        fputs("  - {model: ", f);
        dl_yaml_put_str(f, p->hold[i].model, 4);
        fprintf(f, ", n_rows: %u, coef: ", p->hold[i].n_rows);
        put_coef(f, p->hold[i].coef);
        fputs("}\n", f);
    }
    return dl_tmp_commit(f, tmp, path, true, err);
}

int mdl_fit_rtp_run(const struct mdl_fit_opts *o, FILE *table,
                    struct dl_error *err)
{
    const char *in = o->in, *zdir;
    char dbuf[4096];
    struct mdl_zoo z;
    struct mdl_rt_data d;
    int rc = load_inputs(o, dbuf, sizeof dbuf, &zdir, &z, &d, err);
    if (rc)
        return rc;
    struct mdl_rtp p = { 0 };
    struct mdl_rtp_cv cv;
    if (mdl_rtp_cv_lomo(&z, &d, &cv, &p) || cv.nmodels < 2) {
        rc = dl_fail(err, in, 0, 0, "%u usable rows of %u models (rows "
                     "need a zoo model with flops and params, and a GPU type "
                     "of gpus.csv); at least 2 models are needed",
                     cv.nrows, cv.nmodels);
        goto done;
    }
    fprintf(table, "dlsim fit runtime --form loglinear: %u rows, %u models "
            "(%u skipped), zoo %s\n", cv.nrows, cv.nmodels,
            d.skipped + (d.n - cv.nrows), zdir);
    fputs("leave-one-model-out: each model predicted by the fit on the "
          "others;\nerror of the predicted time per iteration "
          "(RMSLE = RMSE of log(pred/actual))\n", table);
    fprintf(table, "%-16s %6s %9s %10s %14s\n", "model", "n_rows", "RMSLE",
            "MdAPE_%", "roofline_RMSLE");
    for (uint32_t i = 0; i < cv.nmodels; i++)
        fprintf(table, "%-16s %6u %9.4f %10.1f %14.4f\n", cv.models[i].name,
                cv.models[i].n, cv.models[i].rmsle, 100 * cv.models[i].mdape,
                cv.models[i].base_rmsle);
    fprintf(table, "%-16s %6u %9.4f %10.1f %14.4f\n", "all", cv.n, cv.rmsle,
            100 * cv.mdape, cv.base_rmsle);
    fprintf(table, "lomo: RMSLE %.4f, median abs error %.1f %%, p90 "
            "|log(pred/actual)| %.4f; the roofline (global fit on the other "
            "models): RMSLE %.4f, median %.1f %%; in-sample RMSLE %.4f\n",
            cv.rmsle, 100 * cv.mdape, cv.p90, cv.base_rmsle,
            100 * cv.base_mdape, cv.train_rmsle);
    if (o->out)
        rc = write_rtp(o->out, in, &z, &d, &p, &cv, err);
done:
    mdl_rtp_cv_free(&cv);
    mdl_rtp_free(&p);
    mdl_rt_data_free(&d);
    mdl_zoo_free(&z);
    return rc;
}
