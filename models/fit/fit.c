/*
 * models/fit/fit.c - `dlsim fit`: turns measurements (SPEC 7) into model files,
 * with k-fold cross-validated errors, and converts Gavel's throughput JSON
 * into the SPEC 7 files.  models/FIT.md documents the forms, the fitting
 * methods and the YAML files written here.
 *
 *   convert-gavel  Gavel JSON -> PREFIX-runtime.csv, PREFIX-pairs.csv
 *   slowdown       co-location pairs -> per-GPU-type rate model
 *                  (constant, hinge, timeshare, sensitivity_pressure)
 *   util           utilization + graph features -> ridge regression on
 *                  log1p(features), against a training-mean baseline
 *
 * Determinism: folds come from a GSL mt19937 generator seeded with --seed,
 * one fresh generator per GPU type (so adding a type never moves another
 * type's folds); every fit is a fixed number of deterministic iterations;
 * files are written in a fixed order, so the same inputs and seed give
 * byte-identical output.
 *
 * Errors: bad input is DL_EINPUT with file:line:col (CSV columns count
 * fields' bytes from 1, read by sim/base/csv.c; JSON positions come from
 * sim/base/json.c); GSL's aborting error handler is switched off and its
 * return codes checked.
 * Outputs are written to PATH.tmp.PID and renamed into place.
 *
 * Ownership: loaded pair files own their strings in an arena and their
 * rows in malloc'd arrays; fitted sensitivity/pressure vectors are
 * malloc'd and released by mdl_fit_sd_free.
 */
#include "models/fit/fit.h"
#include "sim/base/formats.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#define NAME_LEN 128

/* sensitivity x pressure fitting (see FIT.md) */
#define SP_SWEEPS 60            /* alternating least-squares sweeps */
#define SP_IRLS_FROM 5          /* sweep from which weights follow |resid| */
#define SP_IRLS_EPS 0.02        /* residual floor of the L1 weights */
#define SP_RIDGE 1e-3           /* penalty on each s_j and p_j */

static void gsl_quiet(void)
{
    gsl_set_error_handler_off();
}

/* ------------------------------------------------------------ files */

/* ------------------------------------------------------------ Gavel */

struct gjob {
    const struct dl_json *node;   /* the job's object */
    char model[DL_CSV_NAME_MAX];    /* zoo normal form */
    uint32_t batch;                /* Gavel's label: per-worker batch */
    uint32_t scale;                /* GPUs */
    double solo;                   /* "null": steps/s summed over workers */
};

/* "('ResNet-50 (batch size 64)', 2)" -> model resnet50, batch 64, scale 2
 * (mdl_gavel_key), located in the JSON on failure. */
static int parse_job_key(const char *file, const struct dl_json *kv,
                         struct gjob *g, struct dl_error *err)
{
    struct mdl_gavel_job j;
    size_t at;
    const char *why;
    if (mdl_gavel_key(kv->key, &j, &at, &why))
        return dl_fail(err, file, kv->key_line, kv->key_col + 1 + (long)at,
                       "job key \"%s\": %s (expected ('Model (batch size N)', "
                       "GPUs))", kv->key, why);
    snprintf(g->model, sizeof g->model, "%s", j.model);
    g->batch = j.batch;
    g->scale = j.scale;
    return 0;
}

static const char *const gavel_types[] = { "k80", "p100", "v100" };
static const char *const gavel_out[] = { "K80", "P100", "V100" };
#define NGAVEL 3

struct rt_row {
    uint32_t gpu, batch, n;
    bool spread;
    double thr;
    const char *model;
    const struct dl_json *at;
};

struct pr_row {
    uint32_t gpu;
    const struct gjob *a, *b;
    double ra, rb;
    uint32_t ia, ib;            /* job indices within the worker type */
    uint32_t owner;             /* job whose entry this is */
    bool placeholder;           /* not a measurement: dropped */
};

static int job_cmp(const struct gjob *a, const struct gjob *b)
{
    int c = strcmp(a->model, b->model);
    if (c)
        return c;
    return (a->batch > b->batch) - (a->batch < b->batch);
}

static int rt_cmp(const void *x, const void *y)
{
    const struct rt_row *a = x, *b = y;
    if (a->gpu != b->gpu)
        return a->gpu < b->gpu ? -1 : 1;
    int c = strcmp(a->model, b->model);
    if (c)
        return c;
    if (a->batch != b->batch)
        return a->batch < b->batch ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    if (a->spread != b->spread)
        return a->spread ? 1 : -1;
    return (a->at > b->at) - (a->at < b->at);
}

/* Orders by (gpu, unordered pair, owner) so that duplicates are adjacent
 * with the entry of the earlier job first. */
static int pr_key_cmp(const void *x, const void *y)
{
    const struct pr_row *a = x, *b = y;
    if (a->gpu != b->gpu)
        return a->gpu < b->gpu ? -1 : 1;
    if (a->ia != b->ia)
        return a->ia < b->ia ? -1 : 1;
    if (a->ib != b->ib)
        return a->ib < b->ib ? -1 : 1;
    return (a->owner > b->owner) - (a->owner < b->owner);
}

static int pr_out_cmp(const void *x, const void *y)
{
    const struct pr_row *a = x, *b = y;
    if (a->gpu != b->gpu)
        return a->gpu < b->gpu ? -1 : 1;
    int c = job_cmp(a->a, b->a);
    return c ? c : job_cmp(a->b, b->b);
}

struct gkey {
    const char *key;
    uint32_t idx;
};

static int gkey_cmp(const void *x, const void *y)
{
    return strcmp(((const struct gkey *)x)->key, ((const struct gkey *)y)->key);
}

struct gavel_counts {
    uint32_t infeasible, placeholder, clamped, unknown_partner;
};

/* One worker type's jobs and (for consolidated types) pairs. */
static int gavel_worker(const char *file, const struct dl_json *w,
                        uint32_t gpu, bool spread, struct gjob **jobs_out,
                        struct rt_row **rt, size_t *nrt, size_t *rtcap,
                        struct pr_row **pr, size_t *npr, size_t *prcap,
                        struct gavel_counts *cnt, struct dl_error *err)
{
    if (w->type != DL_JSON_OBJECT)
        return dl_fail(err, file, w->line, w->col,
                       "worker type \"%s\": expected an object, found %s",
                       w->key, dl_json_type_name(w->type));
    struct gjob *jobs = xcalloc(w->n ? w->n : 1, sizeof *jobs);
    *jobs_out = jobs;
    for (uint32_t i = 0; i < w->n; i++) {
        const struct dl_json *jv = &w->kid[i];
        struct gjob *g = &jobs[i];
        int rc = parse_job_key(file, jv, g, err);
        if (rc)
            return rc;
        g->node = jv;
        if (jv->type != DL_JSON_OBJECT)
            return dl_fail(err, file, jv->line, jv->col,
                           "job \"%s\": expected an object, found %s",
                           jv->key, dl_json_type_name(jv->type));
        const struct dl_json *solo = dl_json_get(jv, "null");
        if (!solo)
            return dl_fail(err, file, jv->line, jv->col,
                           "job \"%s\": no \"null\" (isolated throughput) member",
                           jv->key);
        if (solo->type != DL_JSON_NUMBER || solo->num < 0)
            return dl_fail(err, file, solo->line, solo->col,
                           "job \"%s\": isolated throughput must be a number >= 0",
                           jv->key);
        g->solo = solo->num;
        if (g->solo == 0 || (spread && g->scale == 1))
            continue;       /* infeasible; or one GPU cannot be spread */
        if ((uint64_t)g->batch * g->scale > UINT32_MAX)
            return dl_fail(err, file, jv->key_line, jv->key_col,
                           "job \"%s\": batch x GPUs too large", jv->key);
        xgrow(rt, rtcap, *nrt + 1, sizeof **rt);
        (*rt)[(*nrt)++] = (struct rt_row){
            .gpu = gpu, .batch = g->batch * g->scale, .n = g->scale,
            .spread = spread, .thr = g->solo / g->scale, .model = g->model,
            .at = jv,
        };
    }
    if (spread)
        return 0;
    /* pairs: scale-1 jobs only; partner looked up by its exact key */
    struct gkey *keys = xmalloc((w->n ? w->n : 1) * sizeof *keys);
    for (uint32_t i = 0; i < w->n; i++)
        keys[i] = (struct gkey){ w->kid[i].key, i };
    qsort(keys, w->n, sizeof *keys, gkey_cmp);
    int rc = 0;
    for (uint32_t i = 0; i < w->n && !rc; i++) {
        const struct gjob *g = &jobs[i];
        const struct dl_json *jv = g->node;
        if (g->scale != 1)
            continue;
        for (uint32_t m = 0; m < jv->n && !rc; m++) {
            const struct dl_json *e = &jv->kid[m];
            if (!strcmp(e->key, "null"))
                continue;
            struct gjob o;
            if ((rc = parse_job_key(file, e, &o, err)))
                break;
            if (e->type != DL_JSON_ARRAY || e->n != 2 ||
                e->kid[0].type != DL_JSON_NUMBER ||
                e->kid[1].type != DL_JSON_NUMBER ||
                e->kid[0].num < 0 || e->kid[1].num < 0) {
                rc = dl_fail(err, file, e->line, e->col,
                             "pair \"%s\" + \"%s\": expected [rate, rate] of "
                             "two numbers >= 0", jv->key, e->key);
                break;
            }
            if (o.scale != 1)
                continue;
            struct gkey probe = { e->key, 0 };
            const struct gkey *hit = bsearch(&probe, keys, w->n, sizeof *keys,
                                             gkey_cmp);
            if (!hit) {
                cnt->unknown_partner++;
                continue;
            }
            const struct gjob *h = &jobs[hit->idx];
            double a = e->kid[0].num, b = e->kid[1].num;
            if (a == 0 || b == 0 || g->solo == 0 || h->solo == 0) {
                cnt->infeasible++;
                continue;
            }
            struct pr_row r = { .gpu = gpu, .owner = i };
            bool first = i <= hit->idx;
            double ra = a / g->solo, rb = b / h->solo;
            r.ia = first ? i : hit->idx;
            r.ib = first ? hit->idx : i;
            r.a = &jobs[r.ia];
            r.b = &jobs[r.ib];
            r.ra = first ? ra : rb;
            r.rb = first ? rb : ra;
            /* placeholders: a co-located figure equal to the solo one to
             * the last bit (Gavel's README: not a measurement) */
            r.placeholder = a == g->solo || b == h->solo;
            xgrow(pr, prcap, *npr + 1, sizeof **pr);
            (*pr)[(*npr)++] = r;
        }
    }
    free(keys);
    return rc;
}

int mdl_fit_convert_gavel(const char *in, const char *prefix, FILE *log,
                          struct dl_error *err)
{
    struct dl_json_doc doc;
    int rc = dl_json_load(in, &doc, err);
    if (rc)
        return rc;
    const struct dl_json *root = doc.root;
    struct gjob *jobs[2 * NGAVEL] = { 0 };
    struct rt_row *rt = NULL;
    struct pr_row *pr = NULL;
    size_t nrt = 0, rtcap = 0, npr = 0, prcap = 0;
    struct gavel_counts cnt = { 0 };
    char *tmp_rt = NULL, *tmp_pr = NULL;
    char *path_rt = NULL, *path_pr = NULL;
    FILE *f = NULL;
    if (root->type != DL_JSON_OBJECT) {
        rc = dl_fail(err, in, root->line, root->col,
                     "expected an object of worker types, found %s",
                     dl_json_type_name(root->type));
        goto out;
    }
    for (uint32_t i = 0; i < root->n && !rc; i++) {
        const struct dl_json *w = &root->kid[i];
        uint32_t gpu = NGAVEL;
        bool spread = false;
        for (uint32_t t = 0; t < NGAVEL; t++) {
            size_t l = strlen(gavel_types[t]);
            if (strncmp(w->key, gavel_types[t], l))
                continue;
            if (!w->key[l])
                gpu = t;
            else if (!strcmp(w->key + l, "_unconsolidated"))
                gpu = t, spread = true;
        }
        if (gpu == NGAVEL) {
            rc = dl_fail(err, in, w->key_line, w->key_col,
                         "unknown worker type \"%s\" (expected k80, p100 or "
                         "v100, optionally with _unconsolidated)", w->key);
            break;
        }
        /* member names are unique, so at most 2 * NGAVEL get here */
        DL_ASSERT(i < 2 * NGAVEL);
        rc = gavel_worker(in, w, gpu, spread, &jobs[i], &rt, &nrt, &rtcap,
                          &pr, &npr, &prcap, &cnt, err);
    }
    if (rc)
        goto out;
    /* runtime rows: sorted; a repeated key means two spellings of one job */
    qsort(rt, nrt, sizeof *rt, rt_cmp);
    for (size_t i = 1; i < nrt; i++) {
        const struct rt_row *a = &rt[i - 1], *b = &rt[i];
        if (a->gpu == b->gpu && !strcmp(a->model, b->model) &&
            a->batch == b->batch && a->n == b->n && a->spread == b->spread) {
            rc = dl_fail(err, in, b->at->key_line, b->at->key_col,
                         "job \"%s\" repeats another job's model, batch and "
                         "GPU count", b->at->key);
            goto out;
        }
    }
    /* pairs: one row per unordered pair, from the earlier job's entry */
    qsort(pr, npr, sizeof *pr, pr_key_cmp);
    size_t k = 0;
    for (size_t i = 0; i < npr; i++) {
        if (k && pr[k - 1].gpu == pr[i].gpu && pr[k - 1].ia == pr[i].ia &&
            pr[k - 1].ib == pr[i].ib)
            continue;
        /* a placeholder keeps its slot so its mirror entry is skipped too */
        cnt.placeholder += pr[i].placeholder;
        pr[k++] = pr[i];
    }
    size_t kk = 0;
    for (size_t i = 0; i < k; i++) {
        if (pr[i].placeholder)
            continue;
        struct pr_row r = pr[i];
        if (r.ra > 1 || r.rb > 1)
            cnt.clamped++;
        r.ra = fmin(r.ra, 1.0);
        r.rb = fmin(r.rb, 1.0);
        if (job_cmp(r.a, r.b) > 0) {
            const struct gjob *t = r.a;
            r.a = r.b;
            r.b = t;
            double x = r.ra;
            r.ra = r.rb;
            r.rb = x;
        }
        pr[kk++] = r;
    }
    npr = kk;
    qsort(pr, npr, sizeof *pr, pr_out_cmp);

    size_t plen = strlen(prefix) + 16;
    path_rt = xmalloc(plen);
    path_pr = xmalloc(plen);
    snprintf(path_rt, plen, "%s-runtime.csv", prefix);
    snprintf(path_pr, plen, "%s-pairs.csv", prefix);
    if (!(f = dl_tmp_open(path_rt, &tmp_rt, err))) {
        rc = DL_EIO;
        goto out;
    }
    fprintf(f, "# converted by dlsim fit convert-gavel from %s; batch_size is "
               "the job's global batch, throughput its iterations/s "
               "(models/ZOO.md)\n", in);
    fputs("gpu_type,model,batch_size,num_gpus,placement,throughput\n", f);
    for (size_t i = 0; i < nrt; i++)
        fprintf(f, "%s,%s,%u,%u,%s,%.7g\n", gavel_out[rt[i].gpu], rt[i].model,
                rt[i].batch, rt[i].n, rt[i].spread ? "spread" : "consolidated",
                rt[i].thr);
    rc = dl_tmp_commit(f, tmp_rt, path_rt, false, err);
    f = NULL;
    if (rc) {
        tmp_rt = NULL;
        goto out;
    }
    if (!(f = dl_tmp_open(path_pr, &tmp_pr, err))) {
        rc = DL_EIO;
        goto out;
    }
    fprintf(f, "# converted by dlsim fit convert-gavel from %s; rate_x = "
               "co-located / isolated steps/s of x, one GPU, consolidated "
               "worker types\n", in);
    fputs("gpu_type,job_a,job_b,rate_a,rate_b\n", f);
    for (size_t i = 0; i < npr; i++)
        fprintf(f, "%s,%s@%u,%s@%u,%.9g,%.9g\n", gavel_out[pr[i].gpu],
                pr[i].a->model, pr[i].a->batch, pr[i].b->model, pr[i].b->batch,
                pr[i].ra, pr[i].rb);
    rc = dl_tmp_commit(f, tmp_pr, path_pr, true, err);
    f = NULL;
    tmp_pr = NULL;
    if (rc)
        goto out;
    if (rename(tmp_rt, path_rt)) {
        rc = dl_fail_io(err, path_rt, "cannot rename into place: %s",
                        strerror(errno));
        goto out;
    }
    dl_tmp_forget(tmp_rt);
    free(tmp_rt);
    tmp_rt = NULL;
    if (log)
        fprintf(log, "dlsim fit convert-gavel: %zu runtime rows -> %s; %zu "
                     "pairs -> %s (dropped: %u infeasible entries, %u placeholder "
                     "pairs whose co-located figure equals the solo one; %u "
                     "rates clamped to 1; %u entries naming an unlisted job)\n",
                nrt, path_rt, npr, path_pr, cnt.infeasible, cnt.placeholder,
                cnt.clamped, cnt.unknown_partner);
out:
    if (tmp_rt) {
        unlink(tmp_rt);
        dl_tmp_forget(tmp_rt);
        free(tmp_rt);
    }
    free(path_rt);
    free(path_pr);
    for (int i = 0; i < 2 * NGAVEL; i++)
        free(jobs[i]);
    free(rt);
    free(pr);
    dl_json_free(&doc);
    return rc;
}

/* ------------------------------------------------------------ slowdown */

static double clamp_rate(double r)
{
    if (!(r >= MDL_RATE_MIN))           /* also NAN */
        return MDL_RATE_MIN;
    return r > 1 ? 1 : r;
}

void mdl_fit_sd_free(struct mdl_sd_params *m)
{
    free(m->s);
    free(m->p);
    m->s = m->p = NULL;
}

bool mdl_fit_sd_applicable(const struct mdl_pairs *ps, enum mdl_sd_form f,
                           const uint32_t *idx, uint32_t n)
{
    if ((unsigned)f >= MDL_SD_NFITTED)
        return false;           /* a fixed rule: nothing to fit */
    if (f != MDL_SD_HINGE && f != MDL_SD_TIMESHARE)
        return true;
    for (uint32_t i = 0; i < n; i++)
        if (ps->p[idx[i]].util_a < 0 || ps->p[idx[i]].util_b < 0)
            return false;
    return n > 0;
}

/* Sensitivity x pressure: rate_x = exp(-s_x * p_y), i.e. a rank-one
 * factorization of the observed -log(rate), so that the slowdowns of
 * several co-runners multiply (FIT.md).  Alternating least squares on
 * -log(rate) (each s_j, then each p_j, has a closed form given the other
 * vector), with a small ridge and each update projected onto >= 0 (the
 * exact minimizer of the one-variable problem under that bound).  After a
 * few sweeps the residuals are reweighted by r^2 / max(|rate residual|,
 * eps): a residual d in -log(rate) moves the rate by about r * d, so the
 * weighted squares approximate the absolute error of the rate (IRLS
 * towards least absolute deviations), the error that is reported.  Starts
 * from s = p = 1; no randomness. */
static void fit_sp(const struct mdl_pairs *ps, const uint32_t *idx, uint32_t n,
                   struct mdl_sd_params *m)
{
    uint32_t J = ps->njobs, no = 2 * n;
    double *s = xmalloc(J * sizeof *s), *p = xmalloc(J * sizeof *p);
    double *num = xmalloc(J * sizeof *num), *den = xmalloc(J * sizeof *den);
    bool *seen = xcalloc(J, sizeof *seen);
    uint32_t *who = xmalloc(no * sizeof *who), *oth = xmalloc(no * sizeof *oth);
    double *r = xmalloc(no * sizeof *r), *y = xmalloc(no * sizeof *y);
    double *w = xmalloc(no * sizeof *w);
    for (uint32_t i = 0; i < n; i++) {
        const struct mdl_pair *q = &ps->p[idx[i]];
        who[2 * i] = q->a, oth[2 * i] = q->b, r[2 * i] = q->rate_a;
        who[2 * i + 1] = q->b, oth[2 * i + 1] = q->a, r[2 * i + 1] = q->rate_b;
        seen[q->a] = seen[q->b] = true;
    }
    for (uint32_t o = 0; o < no; o++) {
        y[o] = -log(r[o]);              /* rates are in (0, 1]: y >= 0 */
        w[o] = 1;
    }
    for (uint32_t j = 0; j < J; j++)
        s[j] = p[j] = 1;
    for (int sweep = 0; sweep < SP_SWEEPS; sweep++) {
        for (int half = 0; half < 2; half++) {
            double *upd = half ? p : s, *fix = half ? s : p;
            const uint32_t *row = half ? oth : who, *col = half ? who : oth;
            for (uint32_t j = 0; j < J; j++)
                num[j] = 0, den[j] = SP_RIDGE;
            for (uint32_t o = 0; o < no; o++) {
                double x = fix[col[o]];
                num[row[o]] += w[o] * y[o] * x;
                den[row[o]] += w[o] * x * x;
            }
            for (uint32_t j = 0; j < J; j++)
                upd[j] = fmax(0, num[j] / den[j]);
        }
        if (sweep + 1 >= SP_IRLS_FROM)
            for (uint32_t o = 0; o < no; o++) {
                double d = exp(-s[who[o]] * p[oth[o]]) - r[o];
                w[o] = r[o] * r[o] / fmax(fabs(d), SP_IRLS_EPS);
            }
    }
    /* scale so that the mean pressure over seen jobs is 1 */
    double ms = 0, mp = 0;
    uint32_t ns = 0;
    for (uint32_t j = 0; j < J; j++)
        if (seen[j])
            mp += p[j], ns++;
    mp = ns ? mp / ns : 0;
    if (mp > 1e-12)
        for (uint32_t j = 0; j < J; j++)
            p[j] /= mp, s[j] *= mp;
    mp = 0;
    for (uint32_t j = 0; j < J; j++) {
        if (!seen[j]) {
            s[j] = p[j] = NAN;
            continue;
        }
        ms += s[j];
        mp += p[j];
    }
    m->mean_s = ns ? ms / ns : 0;
    m->mean_p = ns ? mp / ns : 0;
    m->s = s;
    m->p = p;
    m->njobs = J;
    free(num), free(den), free(seen), free(who), free(oth), free(r), free(y);
    free(w);
}

int mdl_fit_sd(const struct mdl_pairs *ps, enum mdl_sd_form f,
               const uint32_t *idx, uint32_t n, struct mdl_sd_params *m)
{
    memset(m, 0, sizeof *m);
    m->form = f;
    if (!n || !mdl_fit_sd_applicable(ps, f, idx, n))
        return -1;
    double sum = 0, sxy = 0, sxx = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct mdl_pair *q = &ps->p[idx[i]];
        sum += q->rate_a + q->rate_b;
        if (f == MDL_SD_HINGE) {
            double x = fmax(0, q->util_a + q->util_b - 1);
            sxy += x * ((1 - q->rate_a) + (1 - q->rate_b));
            sxx += 2 * x * x;
        }
    }
    m->rate = sum / (2.0 * n);
    if (f == MDL_SD_HINGE)
        m->alpha = sxx > 0 ? fmax(0, sxy / sxx) : 0;
    if (f == MDL_SD_SENS_PRESSURE)
        fit_sp(ps, idx, n, m);
    return 0;
}

void mdl_fit_sd_predict(const struct mdl_sd_params *m, const struct mdl_pair *q,
                        double *rate_a, double *rate_b)
{
    double ra = 1, rb = 1;
    switch (m->form) {
    case MDL_SD_CONSTANT:
        ra = rb = m->rate;
        break;
    case MDL_SD_HINGE: {
        double u = q->util_a + q->util_b;
        ra = rb = u <= 1 ? 1 : 1 - m->alpha * (u - 1);
        break;
    }
    case MDL_SD_TIMESHARE: {
        double u = q->util_a + q->util_b;
        ra = u > 0 ? q->util_a / u : 1;
        rb = u > 0 ? q->util_b / u : 1;
        break;
    }
    case MDL_SD_SENS_PRESSURE: {
        bool ka = q->a < m->njobs && !isnan(m->s[q->a]);
        bool kb = q->b < m->njobs && !isnan(m->s[q->b]);
        double sa = ka ? m->s[q->a] : m->mean_s, pa = ka ? m->p[q->a] : m->mean_p;
        double sb = kb ? m->s[q->b] : m->mean_s, pb = kb ? m->p[q->b] : m->mean_p;
        /* the same arithmetic as mdl_sd_rate (models/sdfile.c) */
        ra = exp(-sa * pb);
        rb = exp(-sb * pa);
        break;
    }
    default:
        DL_ASSERT(0);
    }
    *rate_a = clamp_rate(ra);
    *rate_b = clamp_rate(rb);
}

/* Indices of the pairs of GPU type gpu, file order. */
static uint32_t type_pairs(const struct mdl_pairs *ps, uint32_t gpu,
                           uint32_t **out)
{
    uint32_t n = 0;
    *out = xmalloc((ps->n ? ps->n : 1) * sizeof **out);
    for (uint32_t i = 0; i < ps->n; i++)
        if (ps->p[i].gpu == gpu)
            (*out)[n++] = i;
    return n;
}

/* Shuffles idx[0..n) with a fresh mt19937 seeded with seed; the fold of
 * position i is then i % k. */
static void shuffle(uint32_t *idx, uint32_t n, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        DL_ASSERT(!"out of memory in gsl_rng_alloc");
    gsl_rng_set(r, seed);
    if (n > 1)
        gsl_ran_shuffle(r, idx, n, sizeof *idx);
    gsl_rng_free(r);
}

uint32_t mdl_fit_sd_cv(const struct mdl_pairs *ps, uint32_t gpu,
                       enum mdl_sd_form f, unsigned k, unsigned long seed,
                       double *mae)
{
    uint32_t *idx;
    uint32_t n = type_pairs(ps, gpu, &idx);
    *mae = NAN;
    if (!mdl_fit_sd_applicable(ps, f, idx, n)) {
        free(idx);
        return 0;
    }
    shuffle(idx, n, seed);
    unsigned kk = k < n ? k : n;
    uint32_t *tr = xmalloc((n ? n : 1) * sizeof *tr);
    double err = 0;
    uint32_t cnt = 0;
    for (unsigned fold = 0; kk >= 2 && fold < kk; fold++) {
        uint32_t nt = 0;
        for (uint32_t i = 0; i < n; i++)
            if (i % kk != fold)
                tr[nt++] = idx[i];
        struct mdl_sd_params m;
        if (mdl_fit_sd(ps, f, tr, nt, &m)) {
            mdl_fit_sd_free(&m);
            continue;
        }
        for (uint32_t i = fold; i < n; i += kk) {
            const struct mdl_pair *q = &ps->p[idx[i]];
            double ra, rb;
            mdl_fit_sd_predict(&m, q, &ra, &rb);
            err += fabs(ra - q->rate_a) + fabs(rb - q->rate_b);
            cnt += 2;
        }
        mdl_fit_sd_free(&m);
    }
    if (cnt)
        *mae = err / cnt;
    free(tr);
    free(idx);
    return n;
}

/* ------------------------------------------------------------ util */

static const char *const feat_names[MDL_UTIL_NFEAT] = {
    "flops", "params", "conv_layers", "linear_layers", "activation_layers",
    "other_layers",
};

void mdl_fit_util_data_free(struct mdl_util_data *d)
{
    free(d->r);
    free(d->models);
    free(d->gpus);
    if (d->arena)
        arena_free(d->arena);
    memset(d, 0, sizeof *d);
}

int mdl_fit_util_load(const char *path, struct mdl_util_data *d,
                      struct dl_error *err)
{
    enum { MODEL, BATCH, GPU, UTIL, F0, NCOL = F0 + MDL_UTIL_NFEAT };
    const char *names[NCOL] = { "model", "batch_size", "gpu_type", "util" };
    bool req[NCOL];
    for (int i = 0; i < NCOL; i++)
        req[i] = true;
    for (int i = 0; i < MDL_UTIL_NFEAT; i++)
        names[F0 + i] = feat_names[i];
    memset(d, 0, sizeof *d);
    d->arena = arena_new();
    struct dl_csv c;
    int rc = dl_csv_open(&c, path, &dl_csv_model_files, err);
    if (rc) {
        mdl_fit_util_data_free(d);
        return rc;
    }
    int col[NCOL];
    size_t cap = 0, mcap = 0, gcap = 0;
    if ((rc = dl_csv_header(&c, names, req, NCOL, col, err)))
        goto out;
    while ((rc = dl_csv_row(&c, err)) == 1) {
        struct mdl_util_row r = { .line = c.line };
        double batch;
        char norm[DL_CSV_NAME_MAX];
        const char *mname = c.f[col[MODEL]], *gname = c.f[col[GPU]];
        if (!mname[0] || dl_csv_norm_name(mname, strlen(mname), norm)) {
            rc = dl_fail(err, path, c.line, c.fcol[col[MODEL]],
                         "model: %s", mname[0] ? "not a usable name" : "empty");
            goto out;
        }
        if (!gname[0]) {
            rc = dl_fail(err, path, c.line, c.fcol[col[GPU]], "gpu_type: empty");
            goto out;
        }
        if ((rc = dl_csv_range(&c, col[BATCH], "batch_size", true, 1, 1e12, false,
                          &batch, err)) ||
            (rc = dl_csv_range(&c, col[UTIL], "util", true, 0, 1, false, &r.util, err)))
            goto out;
        for (int i = 0; i < MDL_UTIL_NFEAT; i++)
            if ((rc = dl_csv_range(&c, col[F0 + i], feat_names[i], true, 0, 1e300,
                              false, &r.x[i], err)))
                goto out;
        if (d->n == UINT32_MAX - 1) {
            rc = dl_fail(err, path, c.line, 0, "too many rows");
            goto out;
        }
        r.model = mdl_intern(&d->models, &d->nmodels, &mcap, d->arena, norm, false);
        r.gpu = mdl_intern(&d->gpus, &d->ngpus, &gcap, d->arena, gname, true);
        xgrow(&d->r, &cap, (size_t)d->n + 1, sizeof *d->r);
        d->r[d->n++] = r;
    }
out:
    dl_csv_close(&c);
    if (rc < 0) {
        mdl_fit_util_data_free(d);
        return rc;
    }
    return 0;
}


/* Ridge regression on standardized log1p features, solved as ordinary
 * least squares on the matrix augmented with sqrt(lambda) * I (so it also
 * works with fewer rows than features) by gsl_multifit_linear. */
int mdl_fit_util(const struct mdl_util_data *d, const uint32_t *idx,
                 uint32_t n, double lambda, struct mdl_util_params *m)
{
    memset(m, 0, sizeof *m);
    if (!n)
        return -1;
    bool one_type = d->gpus != NULL;
    for (uint32_t i = 1; i < n && one_type; i++)
        one_type = d->r[idx[i]].gpu == d->r[idx[0]].gpu;
    if (one_type)
        snprintf(m->gpu_type, sizeof m->gpu_type, "%s", d->gpus[d->r[idx[0]].gpu]);
    double ybar = 0;
    m->lo = 1, m->hi = 0.01;
    for (uint32_t i = 0; i < n; i++) {
        double u = d->r[idx[i]].util;
        ybar += u;
        m->lo = fmin(m->lo, u), m->hi = fmax(m->hi, u);
    }
    ybar /= n;
    m->intercept = ybar;
    m->lo = mdl_util_clamp(m->lo), m->hi = mdl_util_clamp(m->hi);
    int used[MDL_UTIL_NFEAT], nu = 0;
    for (int f = 0; f < MDL_UTIL_NFEAT; f++) {
        double mu = 0, v = 0;
        for (uint32_t i = 0; i < n; i++)
            mu += log1p(d->r[idx[i]].x[f]);
        mu /= n;
        for (uint32_t i = 0; i < n; i++) {
            double z = log1p(d->r[idx[i]].x[f]) - mu;
            v += z * z;
        }
        double sd = sqrt(v / n);
        m->center[f] = mu;
        m->scale[f] = sd > 1e-9 * (1 + fabs(mu)) ? sd : 1;
        if (sd > 1e-9 * (1 + fabs(mu)))
            used[nu++] = f;
    }
    if (!nu)
        return 0;
    size_t rows = (size_t)n + (size_t)nu;
    gsl_matrix *X = gsl_matrix_calloc(rows, (size_t)nu);
    gsl_vector *y = gsl_vector_calloc(rows);
    gsl_vector *c = gsl_vector_alloc((size_t)nu);
    gsl_matrix *cov = gsl_matrix_alloc((size_t)nu, (size_t)nu);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(rows, (size_t)nu);
    if (!X || !y || !c || !cov || !w)
        DL_ASSERT(!"out of memory in GSL");
    for (uint32_t i = 0; i < n; i++) {
        const struct mdl_util_row *r = &d->r[idx[i]];
        for (int u = 0; u < nu; u++) {
            int f = used[u];
            gsl_matrix_set(X, i, (size_t)u,
                           (log1p(r->x[f]) - m->center[f]) / m->scale[f]);
        }
        gsl_vector_set(y, i, r->util - ybar);
    }
    double sl = sqrt(lambda > 0 ? lambda : 0);
    for (int u = 0; u < nu; u++)
        gsl_matrix_set(X, n + (size_t)u, (size_t)u, sl);
    double chisq;
    int rc = gsl_multifit_linear(X, y, c, cov, &chisq, w);
    if (!rc)
        for (int u = 0; u < nu; u++) {
            double v = gsl_vector_get(c, (size_t)u);
            if (!isfinite(v))
                rc = -1;
            m->coef[used[u]] = v;
        }
    gsl_multifit_linear_free(w);
    gsl_matrix_free(cov);
    gsl_vector_free(c);
    gsl_vector_free(y);
    gsl_matrix_free(X);
    return rc ? -1 : 0;
}


int mdl_fit_util_cv(const struct mdl_util_data *d, unsigned k,
                    unsigned long seed, double lambda, bool by_model,
                    struct mdl_util_cv *cv)
{
    memset(cv, 0, sizeof *cv);
    cv->rmsle = cv->rmsle_pct = cv->base = cv->base_pct = NAN;
    uint32_t n = d->n;
    if (n < 2 || (by_model && d->nmodels < 2))
        return -1;
    uint32_t *idx = xmalloc(n * sizeof *idx), *tr = xmalloc(n * sizeof *tr);
    uint32_t *fold = xmalloc(n * sizeof *fold);
    for (uint32_t i = 0; i < n; i++)
        idx[i] = i;
    unsigned kk;
    if (by_model) {             /* fold = model */
        kk = d->nmodels;
        for (uint32_t i = 0; i < n; i++)
            fold[i] = d->r[i].model;
    } else {                    /* fold of shuffled position i = i mod k */
        shuffle(idx, n, seed);
        kk = k < n ? k : n;
        for (uint32_t i = 0; i < n; i++)
            fold[idx[i]] = i % kk;
    }
    double e = 0, ep = 0, eb = 0, ebp = 0;
    uint32_t cnt = 0;
    int rc = 0;
    for (unsigned f = 0; f < kk && !rc; f++) {
        uint32_t nt = 0;
        for (uint32_t i = 0; i < n; i++)
            if (fold[idx[i]] != f)
                tr[nt++] = idx[i];
        if (nt == n)
            continue;
        struct mdl_util_params m;
        if ((rc = mdl_fit_util(d, tr, nt, lambda, &m)))
            break;
        for (uint32_t i = 0; i < n; i++) {
            const struct mdl_util_row *r = &d->r[idx[i]];
            if (fold[idx[i]] != f)
                continue;
            double p = mdl_util_predict(&m, r->x), b = mdl_util_clamp(m.intercept);
            double a1 = log1p(p) - log1p(r->util);
            double a2 = log1p(100 * p) - log1p(100 * r->util);
            double b1 = log1p(b) - log1p(r->util);
            double b2 = log1p(100 * b) - log1p(100 * r->util);
            e += a1 * a1, ep += a2 * a2, eb += b1 * b1, ebp += b2 * b2;
            cnt++;
        }
    }
    free(idx);
    free(tr);
    free(fold);
    if (rc || !cnt)
        return -1;
    cv->rmsle = sqrt(e / cnt);
    cv->rmsle_pct = sqrt(ep / cnt);
    cv->base = sqrt(eb / cnt);
    cv->base_pct = sqrt(ebp / cnt);
    cv->n = cnt;
    cv->folds = kk;
    return 0;
}

/* ------------------------------------------------------------ YAML out */

/* A fitted parameter in the fewest significant digits (at most 17) that
 * strtod reads back to the same double, so that models/sdfile.c reloads
 * the parameters bit for bit and predicts exactly what was fitted; null
 * for NaN. */
void mdl_fit_put_exact(FILE *f, double x)
{
    if (isnan(x)) {
        fputs("null", f);
        return;
    }
    char buf[40];
    for (int d = 1; d <= 17; d++) {
        snprintf(buf, sizeof buf, "%.*g", d, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    fputs(buf, f);
}

static const char slowdown_header[] =
    "# dlsim co-location slowdown model, written by `dlsim fit slowdown`\n"
    "# and read by models/sdfile.c (models/FIT.md documents every field).\n"
    "# Per GPU type, the rate of a job x sharing one GPU with job y\n"
    "# (throughput shared / alone, clamped to [rate_min, 1]) under the\n"
    "# chosen form:\n"
    "#   constant              rate_x = rate\n"
    "#   hinge                 u = util_x + util_y; rate_x = 1 if u <= 1,\n"
    "#                         else 1 - alpha * (u - 1)\n"
    "#   timeshare             rate_x = util_x / (util_x + util_y)\n"
    "#   sensitivity_pressure  rate_x = exp(-s_x * p_y), with (s, p) from\n"
    "#                         the jobs list; a job not listed uses\n"
    "#                         mean_sensitivity / mean_pressure\n"
    "# With several co-runners: FIT.md, \"Several co-runners\".\n"
    "# cv_mae: k-fold cross-validated mean absolute error of both rates of\n"
    "# each held-out pair (null = form not applicable: no util columns).\n"
    "# constant_rate is always the fitted constant form, a fallback.\n"
    "# Parameters are written with enough digits to reload exactly.\n";

static int write_slowdown(const char *path, const char *src,
                          const struct mdl_pairs *ps, const int *chosen,
                          double (*mae)[MDL_SD_NFITTED], const uint32_t *npairs,
                          unsigned k, unsigned long seed, struct dl_error *err)
{
    char *tmp;
    FILE *f = dl_tmp_open(path, &tmp, err);
    if (!f)
        return DL_EIO;
    fputs(slowdown_header, f);
    fputs("kind: slowdown\nsource: ", f);
    dl_yaml_put_str(f, src, 4);
    fprintf(f, "\nfolds: %u\nseed: %lu\nrate_min: ", k, seed);
    mdl_fit_put_exact(f, MDL_RATE_MIN);
    fputs("\ngpu_types:\n", f);
    for (uint32_t g = 0; g < ps->ngpus; g++) {
        uint32_t *idx;
        uint32_t n = type_pairs(ps, g, &idx);
        fputs("  - name: ", f);
        dl_yaml_put_str(f, ps->gpus[g], 4);
        fprintf(f, "\n    form: %s\n    n_pairs: %u\n    cv_mae: {",
                mdl_sd_form_name((enum mdl_sd_form)chosen[g]), npairs[g]);
        for (int fm = 0; fm < MDL_SD_NFITTED; fm++) {
            fprintf(f, "%s%s: ", fm ? ", " : "", mdl_sd_form_name((enum mdl_sd_form)(fm)));
            dl_yaml_put_num(f, mae[g][fm]);
        }
        fputs("}\n", f);
        struct mdl_sd_params c, m;
        mdl_fit_sd(ps, MDL_SD_CONSTANT, idx, n, &c);
        fputs("    constant_rate: ", f);
        mdl_fit_put_exact(f, c.rate);
        fputc('\n', f);
        mdl_fit_sd_free(&c);
        if (mdl_fit_sd(ps, (enum mdl_sd_form)chosen[g], idx, n, &m) == 0) {
            if (chosen[g] == MDL_SD_CONSTANT) {
                fputs("    rate: ", f);
                mdl_fit_put_exact(f, m.rate);
                fputc('\n', f);
            } else if (chosen[g] == MDL_SD_HINGE) {
                fputs("    alpha: ", f);
                mdl_fit_put_exact(f, m.alpha);
                fputc('\n', f);
            } else if (chosen[g] == MDL_SD_SENS_PRESSURE) {
                fputs("    mean_sensitivity: ", f);
                mdl_fit_put_exact(f, m.mean_s);
                fputs("\n    mean_pressure: ", f);
                mdl_fit_put_exact(f, m.mean_p);
                fputs("\n    jobs:", f);
                bool any = false;
                for (uint32_t j = 0; j < ps->njobs; j++) {
                    if (isnan(m.s[j]))
                        continue;
                    fputs(any ? "      - {name: " : "\n      - {name: ", f);
                    any = true;
                    dl_yaml_put_str(f, ps->jobs[j], 4);
                    fputs(", s: ", f);
                    mdl_fit_put_exact(f, m.s[j]);
                    fputs(", p: ", f);
                    mdl_fit_put_exact(f, m.p[j]);
                    fputs("}\n", f);
                }
                if (!any)
                    fputs(" []\n", f);
            }
        }
        mdl_fit_sd_free(&m);
        free(idx);
    }
    return dl_tmp_commit(f, tmp, path, true, err);
}

static void put_cv(FILE *f, const char *prefix, const struct mdl_util_cv *cv)
{
    const double v[4] = { cv->rmsle, cv->rmsle_pct, cv->base, cv->base_pct };
    const char *nm[4] = { "rmsle", "rmsle_pct", "baseline_rmsle",
                          "baseline_rmsle_pct" };
    for (int i = 0; i < 4; i++) {
        fprintf(f, "%s%s: ", prefix, nm[i]);
        dl_yaml_put_num(f, v[i]);
        fputc('\n', f);
    }
}

static int write_util(const char *path, const char *src,
                      const struct mdl_util_params *m, uint32_t n,
                      uint32_t nmodels, double lambda,
                      const struct mdl_util_cv *kf, const struct mdl_util_cv *lomo,
                      unsigned long seed, struct dl_error *err)
{
    char *tmp;
    FILE *f = dl_tmp_open(path, &tmp, err);
    if (!f)
        return DL_EIO;
    fputs("# dlsim utilization model, written by `dlsim fit util` (models/FIT.md)\n"
          "# util = clamp(intercept + sum_i coef[i] * (log1p(x_i) - center[i])\n"
          "#             / scale[i], 0.01, 1)\n"
          "# with x_i the graph features in the order of `features` (flops:\n"
          "# forward FLOPs per iteration; models/ZOO.md).  Ridge penalty lambda\n"
          "# on the standardized coefficients; coef 0 = constant in training;\n"
          "# range: the training utilizations' (predictions are clamped to it).\n"
          "# gpu_type: the type all training rows were measured on (absent when\n"
          "# they mix types).  cv_*: k-fold over rows; lomo_*: leave one model\n"
          "# out; *rmsle on log1p(util), *rmsle_pct on log1p(100 util);\n"
          "# baseline: the training mean.  Read back by models/sdfile.c\n"
          "# (mdl_util_load); parameters are written with enough digits to\n"
          "# reload exactly.\n", f);
    fputs("kind: util\nsource: ", f);
    dl_yaml_put_str(f, src, 4);
    if (m->gpu_type[0]) {
        fputs("\ngpu_type: ", f);
        dl_yaml_put_str(f, m->gpu_type, 4);
    }
    fprintf(f, "\nn_rows: %u\nn_models: %u\nfolds: %u\nseed: %lu\nlambda: %.9g\n",
            n, nmodels, kf->folds, seed, lambda);
    put_cv(f, "cv_", kf);
    if (lomo)
        put_cv(f, "lomo_", lomo);
    fputs("features: [", f);
    for (int i = 0; i < MDL_UTIL_NFEAT; i++)
        fprintf(f, "%s%s", i ? ", " : "", feat_names[i]);
    fputs("]\nrange: [", f);
    mdl_fit_put_exact(f, m->lo);
    fputs(", ", f);
    mdl_fit_put_exact(f, m->hi);
    fputs("]\nintercept: ", f);
    mdl_fit_put_exact(f, m->intercept);
    const double *v[3] = { m->center, m->scale, m->coef };
    const char *nm[3] = { "center", "scale", "coef" };
    for (int a = 0; a < 3; a++) {
        fprintf(f, "\n%s: [", nm[a]);
        for (int i = 0; i < MDL_UTIL_NFEAT; i++) {
            fputs(i ? ", " : "", f);
            mdl_fit_put_exact(f, v[a][i]);
        }
        fputc(']', f);
    }
    fputc('\n', f);
    return dl_tmp_commit(f, tmp, path, true, err);
}

/* ------------------------------------------------------------ commands */

/* ------------------------------------------------------------ the fits as
 * `dlsim fit` runs them (sim/cli/fit.c parses the options) */

int mdl_fit_slowdown_run(const struct mdl_fit_opts *o, FILE *table,
                         struct dl_error *err)
{
    gsl_quiet();
    int rc;
    struct mdl_pairs ps;
    if ((rc = mdl_pairs_load(o->in, &ps, err)))
        return rc;
    if (!ps.n) {
        mdl_pairs_free(&ps);
        return dl_fail(err, o->in, 0, 0, "no pairs: a header "
                                    "and no measurement rows");
    }
    double (*mae)[MDL_SD_NFITTED] = xmalloc(ps.ngpus * sizeof *mae);
    uint32_t *npairs = xmalloc(ps.ngpus * sizeof *npairs);
    int *chosen = xmalloc(ps.ngpus * sizeof *chosen);
    fprintf(table, "%-10s %-22s %8s %8s\n", "gpu_type", "form", "MAE_cv", "n_pairs");
    for (uint32_t g = 0; g < ps.ngpus && !rc; g++) {
        uint32_t *idx;
        npairs[g] = type_pairs(&ps, g, &idx);
        chosen[g] = -1;
        for (int f = 0; f < MDL_SD_NFITTED; f++) {
            uint32_t n = mdl_fit_sd_cv(&ps, g, (enum mdl_sd_form)f,
                                       (unsigned)o->folds, (unsigned long)o->seed,
                                       &mae[g][f]);
            bool ok = n && !isnan(mae[g][f]);
            if (ok)
                fprintf(table, "%-10s %-22s %8.4f %8u\n", ps.gpus[g], mdl_sd_form_name((enum mdl_sd_form)f),
                       mae[g][f], npairs[g]);
            else
                fprintf(table, "%-10s %-22s %8s %8u\n", ps.gpus[g], mdl_sd_form_name((enum mdl_sd_form)f),
                       n ? "-" : "n/a", npairs[g]);
            if (o->form >= 0 ? f == o->form
                          : ok && (chosen[g] < 0 || mae[g][f] < mae[g][chosen[g]]))
                chosen[g] = f;
        }
        if (o->form >= 0 && !mdl_fit_sd_applicable(&ps, (enum mdl_sd_form)o->form,
                                                idx, npairs[g]))
            rc = dl_fail(err, o->in, 0, 0, "--form %s: not applicable to GPU "
                         "type %s (needs util_a and util_b on every pair)",
                         mdl_sd_form_name((enum mdl_sd_form)o->form), ps.gpus[g]);
        if (chosen[g] < 0)
            chosen[g] = MDL_SD_CONSTANT;
        free(idx);
    }
    if (!rc && o->out)
        rc = write_slowdown(o->out, o->in, &ps, chosen, mae, npairs,
                            (unsigned)o->folds, (unsigned long)o->seed, err);
    free(mae);
    free(npairs);
    free(chosen);
    mdl_pairs_free(&ps);
    return rc;
}


static void print_cv(FILE *table, const char *how, const struct mdl_util_cv *cv)
{
    fprintf(table, "%-22s %-13s %10.4f %10.4f %7u\n", how, "ridge_log1p",
            cv->rmsle, cv->rmsle_pct, cv->n);
    fprintf(table, "%-22s %-13s %10.4f %10.4f %7u\n", how, "mean_baseline",
            cv->base, cv->base_pct, cv->n);
}

int mdl_fit_util_run(const struct mdl_fit_opts *o, FILE *table,
                     struct dl_error *err)
{
    gsl_quiet();
    int rc;
    struct mdl_util_data d;
    if ((rc = mdl_fit_util_load(o->in, &d, err)))
        return rc;
    if (d.n < 2) {
        mdl_fit_util_data_free(&d);
        return dl_fail(err, o->in, 0, 0,
                       "at least 2 rows are needed to cross-validate");
    }
    struct mdl_util_cv kf, lomo;
    bool has_lomo = d.nmodels >= 2;
    if (mdl_fit_util_cv(&d, (unsigned)o->folds, (unsigned long)o->seed, o->ridge,
                        false, &kf) ||
        (has_lomo && mdl_fit_util_cv(&d, 0, 0, o->ridge, true, &lomo))) {
        mdl_fit_util_data_free(&d);
        return dl_fail_io(err, "dlsim fit util", "the regression failed (GSL)");
    }
    char how[32];
    snprintf(how, sizeof how, "%u-fold", kf.folds);
    fprintf(table, "%-22s %-13s %10s %10s %7s\n", "validation", "model", "RMSLE",
            "RMSLE_pct", "n_rows");
    print_cv(table, how, &kf);
    if (has_lomo)
        print_cv(table, "leave-one-model-out", &lomo);
    if (o->out) {
        uint32_t *all = xmalloc(d.n * sizeof *all);
        for (uint32_t i = 0; i < d.n; i++)
            all[i] = i;
        struct mdl_util_params m;
        rc = mdl_fit_util(&d, all, d.n, o->ridge, &m);
        free(all);
        if (rc) {
            mdl_fit_util_data_free(&d);
            return dl_fail_io(err, "dlsim fit util", "the regression failed (GSL)");
        }
        rc = write_util(o->out, o->in, &m, d.n, d.nmodels, o->ridge, &kf,
                        has_lomo ? &lomo : NULL, (unsigned long)o->seed, err);
    }
    mdl_fit_util_data_free(&d);
    return rc;
}

