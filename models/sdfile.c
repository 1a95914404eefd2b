/*
 * models/sdfile.c - the model files a run reads back (mdl_sd_, mdl_util_):
 *
 *   kind: slowdown  per GPU type, how fast a job runs while it shares one
 *                   GPU with others (written by `dlsim fit slowdown` or by
 *                   hand; models/FIT.md, "Model file" and "Several
 *                   co-runners")
 *   kind: util      the utilization regression of `dlsim fit util`
 *
 * and the co-location rate of a job sharing a GPU with any number of
 * others (mdl_sd_rate).
 *
 * Owns: a loaded slowdown model keeps every string and array in one arena
 * (struct mdl_sd_model.arena), released at once by mdl_sd_free; pointers
 * into it live as long as the model.  A util model is a plain struct.
 *
 * Invariants of a loaded slowdown model: 0 < rate_min <= 1; type names are
 * non-empty and distinct case-insensitively, "*" at most once; a constant
 * type's rate is in (0, 1]; alpha, mean_s, mean_p and every s, p are
 * finite and >= 0; job names are distinct in normal form (below).  Other
 * forms have njobs = 0.
 *
 * Job names: "MODEL@BATCH" or "MODEL".  Two names are the same job when
 * their models agree in the zoo's normal form (dl_csv_norm_name: "ResNet-50"
 * = "resnet50", "LM" = "lstm") and their batches agree as numbers ("@064"
 * = "@64").  A query finds, in order: the entry with the same model and
 * batch; for a query without a batch, the first listed entry of that model
 * (as mdl_zoo_find takes the model's first row); for a query with a batch
 * that is not listed, an entry of that model without a batch (a
 * hand-written per-model entry); else the type's means.
 *
 * Errors: every bad value, unknown key or missing parameter is DL_EINPUT
 * at the file:line:col of the offending node (sim/base/yaml.c); keys the
 * fitter writes for information only (source, folds, seed, n_pairs,
 * cv_mae; n_rows, lambda, cv_rmsle, baseline_rmsle) are accepted and
 * ignored.
 */
#include "models/perf.h"
#include "sim/base/formats.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ helpers */

/* A finite number >= 0. */
static int num_ge0(struct yload *L, const yaml_node_t *n, const char *key,
                   double *out)
{
    const char *s = yl_scalar(n);
    double v;
    if (!s || sim_parse_double(s, &v) || !(v >= 0))
        return yl_fail(L, n, "%s: expected a number >= 0", key);
    *out = v;
    return 0;
}

/* Any finite number. */
static int num_any(struct yload *L, const yaml_node_t *n, const char *key,
                   double *out)
{
    const char *s = yl_scalar(n);
    if (!s || sim_parse_double(s, out))
        return yl_fail(L, n, "%s: expected a number", key);
    return 0;
}

static bool in_list(const char *key, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(key, list[i]))
            return true;
    return false;
}

/* A job name split into its model's normal form and its batch (0 = none).
 * -1 when the model part is empty or too long, or the batch part is not a
 * positive whole number. */
struct jkey {
    char model[DL_CSV_NAME_MAX];
    unsigned long batch;
};

static int job_key(const char *name, struct jkey *k)
{
    const char *at = strrchr(name, '@');
    size_t mlen = at ? (size_t)(at - name) : strlen(name);
    k->batch = 0;
    if (dl_csv_norm_name(name, mlen, k->model))
        return -1;
    if (!at)
        return 0;
    const char *d = at + 1;
    if (!*d)
        return -1;
    unsigned long v = 0;
    for (; *d; d++) {
        if (!isdigit((unsigned char)*d) || v > 100000000)
            return -1;
        v = v * 10 + (unsigned long)(*d - '0');
    }
    if (!v)
        return -1;
    k->batch = v;
    return 0;
}

/* ------------------------------------------------------------ slowdown */

/* Which parameters each form takes (besides name, form, constant_rate and
 * the informational keys). */
enum { P_RATE = 1, P_ALPHA = 2, P_MEAN_S = 4, P_MEAN_P = 8, P_JOBS = 16,
       P_FACTOR = 32 };
static const unsigned form_params[MDL_SD_NFORMS] = {
    P_RATE, P_ALPHA, 0, P_MEAN_S | P_MEAN_P | P_JOBS, P_FACTOR,
};
static const char *const form_takes[MDL_SD_NFORMS] = {
    "rate (or constant_rate)", "alpha", "nothing",
    "mean_sensitivity, mean_pressure, jobs", "factor (default 1.2)",
};

/* The Horus authors' rule: a task's duration x factor, once, while its
 * GPU is shared (models/FIT.md). */
#define HORUS_AUTHORS_FACTOR 1.2

static int load_jobs(struct yload *L, struct arena *a, const yaml_node_t *v,
                     struct mdl_sd_type *t)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return yl_fail(L, v, "jobs: expected a list of {name, s, p}");
    yaml_node_item_t *it = v->data.sequence.items.start;
    size_t cnt = (size_t)(v->data.sequence.items.top - it);
    if (cnt >= UINT32_MAX)
        return yl_fail(L, v, "jobs: too many entries");
    t->jobs = arena_alloc(a, (cnt ? cnt : 1) * sizeof *t->jobs);
    t->s = arena_alloc(a, (cnt ? cnt : 1) * sizeof *t->s);
    t->p = arena_alloc(a, (cnt ? cnt : 1) * sizeof *t->p);
    struct jkey *keys = xmalloc((cnt ? cnt : 1) * sizeof *keys);
    int rc = 0;
    for (size_t i = 0; i < cnt && !rc; i++) {
        const yaml_node_t *e = yl_node(L, it[i]);
        if (e->type != YAML_MAPPING_NODE) {
            rc = yl_fail(L, e, "jobs: each entry must be a mapping {name, s, p}");
            break;
        }
        const char *name = NULL;
        const yaml_node_t *name_node = NULL;
        bool has_s = false, has_p = false;
        for (yaml_node_pair_t *q = e->data.mapping.pairs.start;
             q < e->data.mapping.pairs.top && !rc; q++) {
            const yaml_node_t *k, *val;
            const char *key;
            if ((rc = yl_pair(L, e, q, &k, &val, &key)))
                break;
            if (!strcmp(key, "name")) {
                name = yl_scalar(val);
                name_node = val;
                if (!name || job_key(name, &keys[i]))
                    rc = yl_fail(L, val, "name: expected a job name MODEL "
                                 "or MODEL@BATCH (e.g. \"resnet50@64\")");
            } else if (!strcmp(key, "s")) {
                rc = num_ge0(L, val, "s", &t->s[i]);
                has_s = true;
            } else if (!strcmp(key, "p")) {
                rc = num_ge0(L, val, "p", &t->p[i]);
                has_p = true;
            } else
                rc = yl_fail(L, k, "unknown key '%s' in a jobs entry (valid: "
                             "name, s, p)", key);
        }
        if (rc)
            break;
        if (!name || !has_s || !has_p) {
            rc = yl_fail(L, e, "jobs entry: name, s and p are required");
            break;
        }
        for (size_t j = 0; j < i && !rc; j++)
            if (keys[j].batch == keys[i].batch &&
                !strcmp(keys[j].model, keys[i].model))
                rc = yl_fail(L, name_node, "jobs: '%s' is listed twice "
                             "(as '%s' before)", name, t->jobs[j]);
        if (rc)
            break;
        t->jobs[i] = arena_strndup(a, name, strlen(name));
        t->njobs = (uint32_t)(i + 1);
    }
    free(keys);
    return rc;
}

static int load_type(struct yload *L, struct arena *a, const yaml_node_t *n,
                     struct mdl_sd_type *t)
{
    static const char *const info[] = { "n_pairs", "cv_mae" };
    if (n->type != YAML_MAPPING_NODE)
        return yl_fail(L, n, "gpu_types: each entry must be a mapping");
    memset(t, 0, sizeof *t);
    t->line = (long)n->start_mark.line + 1;
    int form = -1;
    unsigned given = 0;
    double crate = 0;
    bool has_crate = false;
    const yaml_node_t *at[64] = { 0 };  /* node of each given parameter */
    double factor = HORUS_AUTHORS_FACTOR;
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start;
         q < n->data.mapping.pairs.top; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        int rc = 0;
        if ((rc = yl_pair(L, n, q, &k, &v, &key)))
            return rc;
        if (!strcmp(key, "name")) {
            const char *s = yl_scalar(v);
            if (!s || !*s || strlen(s) >= DL_CSV_NAME_MAX)
                return yl_fail(L, v, "name: expected a GPU type name or \"*\"");
            t->name = arena_strndup(a, s, strlen(s));
        } else if (!strcmp(key, "form")) {
            const char *s = yl_scalar(v);
            for (int f = 0; s && f < MDL_SD_NFORMS; f++)
                if (!strcmp(s, mdl_sd_form_name((enum mdl_sd_form)f)))
                    form = f;
            if (form < 0)
                return yl_fail(L, v, "form: expected constant, hinge, "
                               "timeshare, sensitivity_pressure or "
                               "horus-authors");
        } else if (!strcmp(key, "rate")) {
            rc = yl_num(L, v, key, 0, 1, true, &t->rate);
            given |= P_RATE, at[P_RATE] = k;
        } else if (!strcmp(key, "constant_rate")) {
            rc = yl_num(L, v, key, 0, 1, true, &crate);
            has_crate = true;
        } else if (!strcmp(key, "alpha")) {
            rc = num_ge0(L, v, key, &t->alpha);
            given |= P_ALPHA, at[P_ALPHA] = k;
        } else if (!strcmp(key, "mean_sensitivity")) {
            rc = num_ge0(L, v, key, &t->mean_s);
            given |= P_MEAN_S, at[P_MEAN_S] = k;
        } else if (!strcmp(key, "mean_pressure")) {
            rc = num_ge0(L, v, key, &t->mean_p);
            given |= P_MEAN_P, at[P_MEAN_P] = k;
        } else if (!strcmp(key, "jobs")) {
            rc = load_jobs(L, a, v, t);
            given |= P_JOBS, at[P_JOBS] = k;
        } else if (!strcmp(key, "factor")) {
            if (!(rc = yl_num(L, v, key, 1, 1e6, false, &factor)) &&
                !isfinite(factor))
                rc = yl_fail(L, v, "factor: expected a number >= 1");
            given |= P_FACTOR, at[P_FACTOR] = k;
        } else if (!in_list(key, info, sizeof info / sizeof *info))
            return yl_fail(L, k, "unknown key '%s' in a gpu_types entry "
                           "(valid: name, form, rate, constant_rate, alpha, "
                           "mean_sensitivity, mean_pressure, jobs, factor, "
                           "n_pairs, cv_mae)", key);
        if (rc)
            return rc;
    }
    if (!t->name)
        return yl_fail(L, n, "gpu_types entry: name is required");
    if (form < 0)
        return yl_fail(L, n, "gpu_types entry '%s': form is required",
                       t->name);
    t->form = (enum mdl_sd_form)form;
    unsigned extra = given & ~form_params[form];
    if (extra) {
        unsigned bit = extra & -extra;
        static const char *const pname[] = {
            [P_RATE] = "rate", [P_ALPHA] = "alpha",
            [P_MEAN_S] = "mean_sensitivity", [P_MEAN_P] = "mean_pressure",
            [P_JOBS] = "jobs", [P_FACTOR] = "factor",
        };
        return yl_fail(L, at[bit], "%s: not a parameter of form %s (it takes "
                       "%s)", pname[bit], mdl_sd_form_name(t->form),
                       form_takes[form]);
    }
    const char *missing = NULL;
    switch (t->form) {
    case MDL_SD_CONSTANT:
        if (!(given & P_RATE)) {
            if (has_crate)
                t->rate = crate;
            else
                missing = "rate (or constant_rate)";
        }
        break;
    case MDL_SD_HINGE:
        if (!(given & P_ALPHA))
            missing = "alpha";
        break;
    case MDL_SD_TIMESHARE:
        break;
    case MDL_SD_HORUS_AUTHORS:
        t->rate = 1 / factor;
        break;
    case MDL_SD_SENS_PRESSURE:
        if (!(given & P_MEAN_S))
            missing = "mean_sensitivity";
        else if (!(given & P_MEAN_P))
            missing = "mean_pressure";
        break;
    default:
        DL_ASSERT(0);
    }
    if (missing)
        return yl_fail(L, n, "gpu_types entry '%s': form %s needs %s",
                       t->name, mdl_sd_form_name(t->form), missing);
    return 0;
}

static int load_sd_top(struct yload *L, struct mdl_sd_model *m)
{
    static const char *const info[] = { "source", "folds", "seed" };
    const yaml_node_t *root = yl_root(L);
    int rc = yl_kind(L, "slowdown");
    if (rc)
        return rc;
    const yaml_node_t *types = NULL;
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start;
         q < root->data.mapping.pairs.top; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        if ((rc = yl_pair(L, root, q, &k, &v, &key)))
            return rc;
        if (!strcmp(key, "kind"))
            continue;                   /* checked by yl_kind */
        if (!strcmp(key, "rate_min")) {
            if ((rc = yl_num(L, v, key, 0, 1, true, &m->rate_min)))
                return rc;
        } else if (!strcmp(key, "gpu_types")) {
            if (v->type != YAML_SEQUENCE_NODE ||
                v->data.sequence.items.top == v->data.sequence.items.start)
                return yl_fail(L, v, "gpu_types: expected a non-empty list");
            types = v;
        } else if (!in_list(key, info, sizeof info / sizeof *info))
            return yl_fail(L, k, "unknown key '%s' (valid: kind, rate_min, "
                           "gpu_types, source, folds, seed)", key);
    }
    if (!types)
        return yl_fail(L, root, "gpu_types is required");
    yaml_node_item_t *it = types->data.sequence.items.start;
    size_t cnt = (size_t)(types->data.sequence.items.top - it);
    if (cnt >= UINT32_MAX)
        return yl_fail(L, types, "gpu_types: too many entries");
    m->types = arena_alloc(m->arena, cnt * sizeof *m->types);
    for (size_t i = 0; i < cnt; i++) {
        const yaml_node_t *e = yl_node(L, it[i]);
        struct mdl_sd_type *t = &m->types[i];
        if ((rc = load_type(L, m->arena, e, t)))
            return rc;
        for (size_t j = 0; j < i; j++)
            if (!strcasecmp(m->types[j].name, t->name))
                return yl_fail(L, e, "gpu_types: '%s' is listed twice (line "
                               "%ld)", t->name, m->types[j].line);
        m->ntypes = (uint32_t)(i + 1);
    }
    return 0;
}

void mdl_sd_free(struct mdl_sd_model *m)
{
    if (m->arena)
        arena_free(m->arena);
    memset(m, 0, sizeof *m);
}

int mdl_sd_load(const char *path, struct mdl_sd_model *m, struct dl_error *err)
{
    memset(m, 0, sizeof *m);
    struct yload L;
    int rc = yl_open(&L, path, err);
    if (!rc) {
        m->arena = arena_new();
        m->rate_min = MDL_RATE_MIN;
        rc = load_sd_top(&L, m);
    }
    yl_close(&L);
    if (rc)
        mdl_sd_free(m);
    return rc;
}

const struct mdl_sd_type *mdl_sd_find(const struct mdl_sd_model *m,
                                      const char *gpu_type)
{
    const struct mdl_sd_type *any = NULL;
    for (uint32_t i = 0; i < m->ntypes; i++) {
        if (!strcasecmp(m->types[i].name, gpu_type))
            return &m->types[i];
        if (!strcmp(m->types[i].name, "*"))
            any = &m->types[i];
    }
    return any;
}

/* O(njobs * name length): names are normalized on each call (the struct
 * keeps them as written); a caller asks once per job and type. */
void mdl_sd_job_sp(const struct mdl_sd_type *t, const char *name, double *s,
                   double *p)
{
    *s = *p = 0;
    if (t->form != MDL_SD_SENS_PRESSURE)
        return;
    *s = t->mean_s;
    *p = t->mean_p;
    struct jkey want, k;
    if (!name || job_key(name, &want))
        return;
    int64_t model_first = -1, model_nobatch = -1;
    for (uint32_t i = 0; i < t->njobs; i++) {
        if (job_key(t->jobs[i], &k) || strcmp(k.model, want.model))
            continue;
        if (k.batch == want.batch) {
            *s = t->s[i];
            *p = t->p[i];
            return;
        }
        if (model_first < 0)
            model_first = i;
        if (!k.batch && model_nobatch < 0)
            model_nobatch = i;
    }
    int64_t hit = want.batch ? model_nobatch : model_first;
    if (hit >= 0) {
        *s = t->s[hit];
        *p = t->p[hit];
    }
}

static double clamp_to(double r, double rate_min)
{
    if (!(r >= rate_min))               /* also NAN */
        return rate_min;
    return r > 1 ? 1 : r;
}

bool mdl_sd_by_count(const struct mdl_sd_type *t)
{
    return t->form == MDL_SD_CONSTANT || t->form == MDL_SD_HORUS_AUTHORS;
}

/* The k-job forms (FIT.md, "Several co-runners"); for n = 1 each is the
 * pair prediction of mdl_fit_sd_predict with the same operations in the
 * same order, so the two agree to the bit. */
double mdl_sd_rate(const struct mdl_sd_type *t, double rate_min,
                   const struct mdl_sd_share *x,
                   const struct mdl_sd_share *others, uint32_t n)
{
    DL_ASSERT(t && x && (others || !n));
    if (!n)
        return 1;
    double r = 1;
    switch (t->form) {
    case MDL_SD_CONSTANT:
        for (uint32_t i = 0; i < n; i++)
            r *= t->rate;               /* rate^n */
        break;
    case MDL_SD_HINGE: {
        double u = x->util;
        for (uint32_t i = 0; i < n; i++)
            u += others[i].util;
        r = u <= 1 ? 1 : 1 - t->alpha * (u - 1);
        break;
    }
    case MDL_SD_TIMESHARE: {
        double u = x->util;
        for (uint32_t i = 0; i < n; i++)
            u += others[i].util;
        r = u > 0 ? x->util / u : 1;
        break;
    }
    case MDL_SD_HORUS_AUTHORS:
        r = t->rate;                    /* 1 / factor, once, any n */
        break;
    case MDL_SD_SENS_PRESSURE:
        /* prod_y clamp(exp(-s_x p_y)) = exp(-s_x sum_y p_y) unless a
         * factor is clamped */
        for (uint32_t i = 0; i < n; i++)
            r *= clamp_to(exp(-x->s * others[i].p), rate_min);
        break;
    default:
        DL_ASSERT(0);
    }
    return clamp_to(r, rate_min);
}

/* ------------------------------------------------------------ util */

/* The feature order of `dlsim fit util` (SPEC 7; models/fit/fit.c feat_names):
 * a file whose `features` differ is refused rather than misread. */
static const char *const util_feats[MDL_UTIL_NFEAT] = {
    "flops", "params", "conv_layers", "linear_layers", "activation_layers",
    "other_layers",
};

/* A list of MDL_UTIL_NFEAT numbers; scale entries must be > 0. */
static int util_array(struct yload *L, const yaml_node_t *v, const char *key,
                      bool positive, double out[MDL_UTIL_NFEAT])
{
    if (v->type != YAML_SEQUENCE_NODE ||
        v->data.sequence.items.top - v->data.sequence.items.start !=
            MDL_UTIL_NFEAT)
        return yl_fail(L, v, "%s: expected a list of %d numbers (one per "
                       "feature)", key, MDL_UTIL_NFEAT);
    for (int i = 0; i < MDL_UTIL_NFEAT; i++) {
        const yaml_node_t *e = yl_node(L, v->data.sequence.items.start[i]);
        int rc = num_any(L, e, key, &out[i]);
        if (rc)
            return rc;
        if (positive && !(out[i] > 0))
            return yl_fail(L, e, "%s: expected a number > 0", key);
    }
    return 0;
}

static int load_util_top(struct yload *L, struct mdl_util_params *m)
{
    static const char *const info[] = {
        "source", "n_rows", "n_models", "folds", "seed", "lambda",
        "cv_rmsle", "baseline_rmsle", "cv_rmsle_pct", "cv_baseline_rmsle",
        "cv_baseline_rmsle_pct", "lomo_rmsle", "lomo_rmsle_pct",
        "lomo_baseline_rmsle", "lomo_baseline_rmsle_pct",
    };
    enum { F_FEAT = 1, F_ICPT = 2, F_CENTER = 4, F_SCALE = 8, F_COEF = 16,
           F_ALL = 31 };
    const yaml_node_t *root = yl_root(L);
    int rc = yl_kind(L, "util");
    if (rc)
        return rc;
    unsigned have = 0;
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start;
         q < root->data.mapping.pairs.top && !rc; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        if ((rc = yl_pair(L, root, q, &k, &v, &key)))
            return rc;
        if (!strcmp(key, "kind"))
            continue;
        if (!strcmp(key, "features")) {
            if (!yl_names_are(L, v, util_feats, MDL_UTIL_NFEAT))
                return yl_fail(L, v, "features: expected [flops, params, "
                               "conv_layers, linear_layers, activation_layers, "
                               "other_layers] (this order)");
            have |= F_FEAT;
        } else if (!strcmp(key, "intercept")) {
            rc = num_any(L, v, key, &m->intercept);
            have |= F_ICPT;
        } else if (!strcmp(key, "center")) {
            rc = util_array(L, v, key, false, m->center);
            have |= F_CENTER;
        } else if (!strcmp(key, "scale")) {
            rc = util_array(L, v, key, true, m->scale);
            have |= F_SCALE;
        } else if (!strcmp(key, "coef")) {
            rc = util_array(L, v, key, false, m->coef);
            have |= F_COEF;
        } else if (!strcmp(key, "range")) {
            double r[2];
            bool ok = v->type == YAML_SEQUENCE_NODE &&
                      v->data.sequence.items.top - v->data.sequence.items.start == 2;
            for (int i = 0; ok && i < 2; i++)
                ok = !yl_num(L, yl_node(L, v->data.sequence.items.start[i]), key,
                             0.01, 1, false, &r[i]);
            if (!ok || r[0] > r[1])
                return yl_fail(L, v, "range: expected [lo, hi] with "
                               "0.01 <= lo <= hi <= 1");
            m->lo = r[0], m->hi = r[1];
        } else if (!strcmp(key, "gpu_type")) {
            const char *t = yl_scalar(v);
            if (!t || !*t || strlen(t) >= sizeof m->gpu_type)
                return yl_fail(L, v, "gpu_type: expected a GPU type name");
            snprintf(m->gpu_type, sizeof m->gpu_type, "%s", t);
        } else if (!in_list(key, info, sizeof info / sizeof *info))
            return yl_fail(L, k, "unknown key '%s' (valid: kind, features, "
                           "intercept, center, scale, coef, range, gpu_type, and "
                           "the informational source, n_rows, n_models, "
                           "folds, seed, lambda, cv_*, lomo_*)", key);
    }
    if (!rc && have != F_ALL)
        rc = yl_fail(L, root, "features, intercept, center, scale and coef "
                     "are required");
    return rc;
}

int mdl_util_load(const char *path, struct mdl_util_params *m,
                  struct dl_error *err)
{
    memset(m, 0, sizeof *m);
    m->lo = 0.01, m->hi = 1;    /* files without a range */
    struct yload L;
    int rc = yl_open(&L, path, err);
    if (!rc)
        rc = load_util_top(&L, m);
    yl_close(&L);
    if (rc)
        memset(m, 0, sizeof *m);
    return rc;
}

/* ------------------------------------------------------------ forms and the
 * utilization regressor, shared with models/fit/ */

static const char *const form_names[MDL_SD_NFORMS] = {
    "constant", "hinge", "timeshare", "sensitivity_pressure", "horus-authors",
};

const char *mdl_sd_form_name(enum mdl_sd_form f)
{
    return (unsigned)f < MDL_SD_NFORMS ? form_names[f] : "?";
}

double mdl_util_clamp(double u)
{
    if (!(u >= 0.01))
        return 0.01;
    return u > 1 ? 1 : u;
}

double mdl_util_predict(const struct mdl_util_params *m,
                            const double x[MDL_UTIL_NFEAT])
{
    double u = m->intercept;
    for (int f = 0; f < MDL_UTIL_NFEAT; f++)
        u += m->coef[f] * (log1p(x[f]) - m->center[f]) / m->scale[f];
    return mdl_util_clamp(u < m->lo ? m->lo : u > m->hi ? m->hi : u);
}
