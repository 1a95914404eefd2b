/*
 * models/perf.c - the performance model of one run (mdl_perf_) and what
 * `--models` names (mdl_spec_).  models/perf.h states the contract;
 * models/MODELS.md documents the file format, truth versus prediction and
 * every fallback.
 *
 * Everything a run asks per event is precomputed here: each job gets a
 * class (zoo row, GPU count), and each class a table of solo rates per
 * cluster GPU type and placement (true and predicted), so the engine's
 * question "how fast does job j run on these GPUs" is one array read.
 * Only co-location evaluates a model form per event, and only for the jobs
 * on a GPU whose occupants changed.
 */
#include "models/perf.h"
#include "sim/base/formats.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ------------------------------------------------------------ the spec */

void mdl_spec_init(struct mdl_spec *s)
{
    memset(s, 0, sizeof *s);
    mdl_rt_defaults(&s->rt);
    s->max_share = 4;
    s->rt_holdout = true;
}

void mdl_spec_free(struct mdl_spec *s)
{
    for (uint32_t i = 0; i < s->nargs; i++)
        free(s->args[i]);
    free(s->args);
    mdl_rt_params_free(&s->rt);
    mdl_rtp_free(&s->rtp);
    mdl_sd_free(&s->sd);
    mdl_pairs_free(&s->pairs);
    mdl_zoo_free(&s->zoo);
    memset(s, 0, sizeof *s);
}

int mdl_spec_finish(struct mdl_spec *s, struct dl_error *err)
{
    if (s->rtp.path[0] && !s->rt_fitted)
        return dl_fail(err, s->rtp.path, 0, 0, "predict.runtime_fit is given "
                       "but predict.runtime is not fitted: the predictor "
                       "would not be used");
    if (s->zoo_on && !s->zoo.nmodels) {
        char dir[sizeof s->zoo_dir];
        if (s->zoo_dir[0])
            snprintf(dir, sizeof dir, "%s", s->zoo_dir);
        else if (mdl_zoo_default_dir(dir, sizeof dir))
            return dl_fail_io(err, "--models", "no model zoo found: set "
                              "DLSIM_MODELS or give zoo: in a kind: models file");
        int rc = mdl_zoo_load(dir, &s->zoo, err);
        if (rc)
            return rc;
        /* the zoo's own regressor, unless a util model was given */
        char path[sizeof s->zoo_dir + 32];
        snprintf(path, sizeof path, "%s/util.yaml", dir);
        if (!s->has_util && access(path, R_OK) == 0) {
            if ((rc = mdl_util_load(path, &s->util, err)))
                return rc;
            s->has_util = s->util_default = true;
        }
        /* predict.runtime: fitted without runtime_fit: the zoo's own */
        if (s->rt_fitted && !s->rtp.path[0]) {
            snprintf(path, sizeof path, "%s/runtime_fit.yaml", dir);
            if ((rc = mdl_rtp_load(path, &s->rtp, err)))
                return rc;
        }
    }
    if (s->has_pairs && !s->pairs.n) {
        int rc = mdl_pairs_load(s->pairs_path, &s->pairs, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* dir of file + rel, unless rel is absolute. */
static int resolve(const char *file, const char *rel, char *out, size_t n)
{
    if (rel[0] == '/')
        return snprintf(out, n, "%s", rel) >= (int)n ? -1 : 0;
    const char *slash = strrchr(file, '/');
    int len = slash ? (int)(slash - file) + 1 : 0;
    return snprintf(out, n, "%.*s%s", len, file, rel) >= (int)n ? -1 : 0;
}

static int load_runtime(struct mdl_spec *s, const char *path,
                        struct dl_error *err)
{
    struct mdl_rt_params p;
    int rc = mdl_rt_params_load(path, &p, err);
    if (rc) {
        mdl_rt_params_free(&p);
        return rc;
    }
    mdl_rt_params_free(&s->rt);
    s->rt = p;
    return 0;
}

static int load_slowdown(struct mdl_spec *s, const char *path,
                         struct dl_error *err)
{
    struct mdl_sd_model m;
    int rc = mdl_sd_load(path, &m, err);
    if (rc)
        return rc;
    mdl_sd_free(&s->sd);
    s->sd = m;
    s->has_sd = true;
    return 0;
}

static int load_util(struct mdl_spec *s, const char *path, struct dl_error *err)
{
    struct mdl_util_params u;
    int rc = mdl_util_load(path, &u, err);
    if (rc)
        return rc;
    s->util = u;
    s->has_util = true;
    return 0;
}

static int path_value(struct yload *L, const yaml_node_t *v, const char *key,
                      char *out, size_t n)
{
    const char *t = yl_scalar(v);
    if (!t || !*t)
        return yl_fail(L, v, "%s: expected a path", key);
    if (resolve(L->file, t, out, n))
        return yl_fail(L, v, "%s: path too long", key);
    return 0;
}

static int load_predict(struct yload *L, const yaml_node_t *n,
                        struct mdl_spec *s)
{
    if (n->type != YAML_MAPPING_NODE)
        return yl_fail(L, n, "predict: expected a mapping (runtime, "
                       "runtime_fit, runtime_holdout, runtime_noise, util, "
                       "util_noise)");
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start;
         q < n->data.mapping.pairs.top; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        int rc = yl_pair(L, n, q, &k, &v, &key);
        if (rc)
            return rc;
        const char *val = yl_scalar(v);
        if (!strcmp(key, "runtime")) {
            /* model: the runtime model the truth uses (an offline profile
             * where measured); roofline: the roofline alone (jobs never
             * profiled); fitted: the fitted predictor (dlsim fit runtime
             * --form loglinear); oracle: the same as model */
            s->rt_roofline = s->rt_fitted = false;
            if (val && (!strcmp(val, "model") || !strcmp(val, "oracle")))
                ;
            else if (val && !strcmp(val, "roofline"))
                s->rt_roofline = true;
            else if (val && !strcmp(val, "fitted"))
                s->rt_fitted = true;
            else
                return yl_fail(L, v, "%s: expected 'model', 'roofline', "
                               "'fitted' or 'oracle'", key);
        } else if (!strcmp(key, "runtime_fit")) {
            rc = path_value(L, v, key, s->rtp_path, sizeof s->rtp_path);
            if (!rc) {
                mdl_rtp_free(&s->rtp);
                rc = mdl_rtp_load(s->rtp_path, &s->rtp, L->err);
            }
        } else if (!strcmp(key, "runtime_holdout")) {
            if (val && (!strcmp(val, "true") || !strcmp(val, "1")))
                s->rt_holdout = true;
            else if (val && (!strcmp(val, "false") || !strcmp(val, "0")))
                s->rt_holdout = false;
            else
                return yl_fail(L, v, "%s: expected true or false", key);
        } else if (!strcmp(key, "util")) {
            if (val && !strcmp(val, "model"))
                s->util_oracle = false;
            else if (val && !strcmp(val, "oracle"))
                s->util_oracle = true;
            else
                return yl_fail(L, v, "%s: expected 'model' or 'oracle'", key);
        } else if (!strcmp(key, "runtime_noise"))
            rc = yl_num(L, v, key, 0, 10, false, &s->rt_noise);
        else if (!strcmp(key, "util_noise"))
            rc = yl_num(L, v, key, 0, 10, false, &s->util_noise);
        else
            return yl_fail(L, k, "unknown key '%s' in predict (valid: "
                           "runtime, runtime_fit, runtime_holdout, "
                           "runtime_noise, util, util_noise)", key);
        if (rc)
            return rc;
    }
    return 0;
}

/* A `kind: models` file: every path relative to the file's directory. */
static int load_models(struct mdl_spec *s, struct yload *L)
{
    const yaml_node_t *root = yl_root(L);
    char path[sizeof s->zoo_dir];
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start;
         q < root->data.mapping.pairs.top; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        int rc = yl_pair(L, root, q, &k, &v, &key);
        if (rc)
            return rc;
        if (!strcmp(key, "kind") || !strcmp(key, "name") ||
            !strcmp(key, "description"))
            continue;
        if (!strcmp(key, "zoo")) {
            rc = path_value(L, v, key, s->zoo_dir, sizeof s->zoo_dir);
            s->wants_runtime = true;
        } else if (!strcmp(key, "runtime")) {
            if (!(rc = path_value(L, v, key, path, sizeof path)))
                rc = load_runtime(s, path, L->err);
            s->wants_runtime = true;
        } else if (!strcmp(key, "slowdown")) {
            if (!(rc = path_value(L, v, key, path, sizeof path)))
                rc = load_slowdown(s, path, L->err);
        } else if (!strcmp(key, "util")) {
            if (!(rc = path_value(L, v, key, path, sizeof path)))
                rc = load_util(s, path, L->err);
        } else if (!strcmp(key, "pairs")) {
            if (!(rc = path_value(L, v, key, s->pairs_path,
                                  sizeof s->pairs_path)))
                s->has_pairs = true;
        } else if (!strcmp(key, "max_jobs_per_gpu")) {
            double x;
            if (!(rc = yl_num(L, v, key, 1, MDL_MAX_SHARE, false, &x))) {
                if (x != floor(x))
                    return yl_fail(L, v, "%s: expected a whole number", key);
                s->max_share = (uint32_t)x;
            }
        } else if (!strcmp(key, "util_transfer")) {
            const char *t = yl_scalar(v);
            if (t && !strcmp(t, "busy"))
                s->util_same = false;
            else if (t && !strcmp(t, "none"))
                s->util_same = true;
            else
                return yl_fail(L, v, "util_transfer: expected busy or none");
        } else if (!strcmp(key, "predict"))
            rc = load_predict(L, v, s);
        else
            return yl_fail(L, k, "unknown key '%s' (valid: kind, name, "
                           "description, zoo, runtime, slowdown, pairs, util, "
                           "util_transfer, max_jobs_per_gpu, predict)", key);
        if (rc)
            return rc;
    }
    return 0;
}

int mdl_spec_add(struct mdl_spec *s, const char *arg, struct dl_error *err)
{
    s->zoo_on = true;
    s->args = xrealloc(s->args, (s->nargs + 1) * sizeof *s->args);
    s->args[s->nargs++] = xstrdup(arg);
    if (!strcmp(arg, "zoo")) {
        s->wants_runtime = true;
        return 0;
    }
    struct yload L;
    int rc = yl_open(&L, arg, err);
    if (rc) {
        yl_close(&L);
        return rc;
    }
    const char *kind = yl_peek_kind(&L);
    if (!kind)
        rc = yl_fail(&L, yl_root(&L), "expected a mapping with a kind: "
                     "models, runtime, slowdown or util");
    else if (!strcmp(kind, "models"))
        rc = load_models(s, &L);
    else if (!strcmp(kind, "runtime"))
        rc = load_runtime(s, arg, err), s->wants_runtime = true;
    else if (!strcmp(kind, "slowdown"))
        rc = load_slowdown(s, arg, err);
    else if (!strcmp(kind, "util"))
        rc = load_util(s, arg, err);
    else
        rc = yl_kind(&L, "models, runtime, slowdown or util");
    yl_close(&L);
    return rc;
}

/* ------------------------------------------------------------ noise */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* A standard normal drawn from (seed, stream, job) alone, so a job's
 * noise never depends on the order anything is asked in. */
static double normal(uint64_t seed, uint64_t stream, uint32_t j)
{
    uint64_t a = mix64(seed ^ mix64(stream * 0x100000001b3ULL + j));
    uint64_t b = mix64(a);
    double u1 = ((double)(a >> 11) + 0.5) * 0x1p-53;
    double u2 = (double)(b >> 11) * 0x1p-53;
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* ------------------------------------------------------------ the run */

/* Model names seen in the trace, by string, so a million jobs cost a
 * million hash lookups and not a million zoo scans. */
struct name_map {
    const char **key;
    uint32_t *val;
    size_t n;                   /* power of two */
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h;
}

static uint32_t find_row(struct name_map *m, const struct mdl_zoo *z,
                         const char *name)
{
    size_t i = hash_str(name) & (m->n - 1);
    while (m->key[i]) {
        if (!strcmp(m->key[i], name))
            return m->val[i];
        i = (i + 1) & (m->n - 1);
    }
    const struct mdl_model *r = mdl_zoo_find(z, name);
    uint32_t row = r ? (uint32_t)(r - z->models) : SIM_NONE;
    if (m->n < 4096) {          /* bounded: a pathological trace of unique
                                   names only loses the cache */
        m->key[i] = name;
        m->val[i] = row;
    }
    return row;
}

struct class_map {
    uint64_t *key;              /* row << 32 | ngpus, +1; 0 = empty */
    uint32_t *val;
    size_t n, used;
};

static uint32_t class_of(struct class_map *m, uint32_t row, uint32_t ngpus,
                         uint32_t *next)
{
    if (2 * (m->used + 1) > m->n) {
        struct class_map b = { xcalloc(m->n * 2, 8), xcalloc(m->n * 2, 4),
                               m->n * 2, 0 };
        for (size_t i = 0; i < m->n; i++)
            if (m->key[i]) {
                size_t k = mix64(m->key[i]) & (b.n - 1);
                while (b.key[k])
                    k = (k + 1) & (b.n - 1);
                b.key[k] = m->key[i], b.val[k] = m->val[i], b.used++;
            }
        free(m->key), free(m->val);
        *m = b;
    }
    uint64_t key = ((uint64_t)row << 32 | ngpus) + 1;
    size_t i = mix64(key) & (m->n - 1);
    while (m->key[i]) {
        if (m->key[i] == key)
            return m->val[i];
        i = (i + 1) & (m->n - 1);
    }
    m->key[i] = key;
    m->val[i] = (*next)++;
    m->used++;
    return m->val[i];
}

static uint64_t pair_key(uint32_t t, uint32_t a, uint32_t b)
{
    return ((uint64_t)t << 42 | (uint64_t)a << 21 | b) + 1;
}

static double *pair_slot(const struct mdl_perf *p, uint64_t key, bool add)
{
    size_t i = mix64(key) & (p->npslots - 1);
    while (p->pkey[i] && p->pkey[i] != key)
        i = (i + 1) & (p->npslots - 1);
    if (!p->pkey[i]) {
        if (!add)
            return NULL;
        p->pkey[i] = key;
    }
    return &p->pval[i];
}

static void load_pairs(struct mdl_perf *p, const struct mdl_pairs *ps,
                       const char *path, struct dl_diag *diag)
{
    p->npslots = 16;
    while (p->npslots < 4 * (size_t)ps->n + 16)
        p->npslots *= 2;
    p->pkey = xcalloc(p->npslots, sizeof *p->pkey);
    p->pval = xcalloc(p->npslots, sizeof *p->pval);
    uint32_t unknown = 0;
    const char *first = NULL;
    for (uint32_t i = 0; i < ps->n; i++) {
        const struct mdl_pair *q = &ps->p[i];
        uint32_t t = SIM_NONE;
        for (uint32_t k = 0; k < p->ntypes; k++)
            if (!strcasecmp(p->clu->types[k].name, ps->gpus[q->gpu]))
                t = k;
        if (t == SIM_NONE)
            continue;           /* another cluster's type: does not apply */
        const struct mdl_model *a = mdl_zoo_find(p->zoo, ps->jobs[q->a]);
        const struct mdl_model *b = mdl_zoo_find(p->zoo, ps->jobs[q->b]);
        if (!a || !b) {
            if (!unknown++)
                first = ps->jobs[a ? q->b : q->a];
            continue;
        }
        uint32_t ra = (uint32_t)(a - p->zoo->models);
        uint32_t rb = (uint32_t)(b - p->zoo->models);
        *pair_slot(p, pair_key(t, ra, rb), true) = q->rate_a;
        *pair_slot(p, pair_key(t, rb, ra), true) = q->rate_b;
    }
    if (unknown)
        dl_warn(diag, "%s: %u of %u pairs name a job the zoo lacks (first: "
                "'%s') and are not used", path, unknown, ps->n, first);
}

static bool features(const struct mdl_model *m, double x[MDL_UTIL_NFEAT])
{
    x[0] = m->flops, x[1] = m->params, x[2] = m->conv_layers;
    x[3] = m->linear_layers, x[4] = m->activation_layers;
    x[5] = m->other_layers;
    for (int i = 0; i < MDL_UTIL_NFEAT; i++)
        if (x[i] < 0)
            return false;
    return true;
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* Utilization u_h measured (or predicted) on zoo GPU type h, moved to
 * type t: the GPU-busy part of an iteration runs s = thr(t) / thr(h) times
 * faster on t (the runtime model's throughputs of the row on one GPU),
 * the rest (input pipeline, host work) takes as long, so
 * u_t = u_h / (u_h + s (1 - u_h)).  As it is when either throughput is
 * unknown, when t is h, or under util_transfer: none. */
static double transfer(const struct mdl_perf *p, const struct mdl_spec *s,
                       const struct mdl_model *m, const struct mdl_gpu *h,
                       const struct mdl_gpu *t, double u)
{
    if (!h || !t || h == t || s->util_same)
        return u;
    double a = mdl_rt_throughput(p->zoo, p->rt, m->name, m->batch_size,
                                 t->name, 1, false);
    double b = mdl_rt_throughput(p->zoo, p->rt, m->name, m->batch_size,
                                 h->name, 1, false);
    if (!(a > 0 && b > 0))
        return u;
    double r = a / b;
    return u / (u + r * (1 - u));
}

/* Each zoo row's true and predicted solo utilization on each cluster
 * type.  Truth: measured on the type (util.csv); else measured on the type
 * whose peak is nearest, transferred; else the regressor's prediction
 * (for the type its training rows were measured on), transferred; else
 * unknown.  Prediction: the regressor's, transferred, when predictions
 * come from it (predict.util: model with a util model). */
static void util_tables(struct mdl_perf *p, const struct mdl_spec *s)
{
    size_t nr = (size_t)p->zoo->nmodels, nt = p->ntypes;
    p->tutil = xmalloc((nr * nt > 0 ? nr * nt : 1) * sizeof *p->tutil);
    p->putil = xmalloc((nr * nt > 0 ? nr * nt : 1) * sizeof *p->putil);
    p->util_reg = s && s->has_util && !s->util_oracle;
    const struct mdl_gpu *rg = s && s->has_util && s->util.gpu_type[0]
                                   ? mdl_zoo_gpu(p->zoo, s->util.gpu_type) : NULL;
    for (size_t r = 0; r < nr; r++) {
        const struct mdl_model *m = &p->zoo->models[r];
        double x[MDL_UTIL_NFEAT], reg = -1;
        if (s && s->has_util && features(m, x))
            reg = mdl_util_predict(&s->util, x);
        uint32_t nm;
        const struct mdl_util_meas *ms = mdl_zoo_utils(p->zoo, (uint32_t)r, &nm);
        for (size_t t = 0; t < nt; t++) {
            const struct mdl_gpu *g = mdl_zoo_gpu(p->zoo, p->clu->types[t].name);
            double u = -1, best = INFINITY;
            const struct mdl_gpu *from = NULL;
            for (uint32_t i = 0; i < nm; i++) {
                const struct mdl_gpu *h = &p->zoo->gpus[ms[i].gpu];
                double d = g ? fabs(log(mdl_rt_peak_tflops(h)) -
                                    log(mdl_rt_peak_tflops(g))) : 0;
                if (h == g || d < best) {
                    best = h == g ? -1 : d;
                    u = ms[i].util, from = h;
                }
            }
            if (u >= 0)
                u = transfer(p, s, m, from, g, u);
            else if (reg >= 0)
                u = transfer(p, s, m, rg, g, reg);
            p->tutil[r * nt + t] = u < 0 ? -1 : clamp(u, 0, 1);
            p->putil[r * nt + t] = reg < 0 || !p->util_reg ? -1
                : clamp(transfer(p, s, m, rg, g, reg), 0.01, 1);
        }
    }
}

/* predict.runtime: fitted: the predicted throughput of zoo row m on n GPUs
 * of g over its true throughput on ngang GPUs of the reference type gref
 * (consolidated): a job's work, known in iterations (the true throughput
 * on the reference type times its duration there), over the iterations per
 * second the predictor expects.  -1 when the predictor cannot say. */
static double fitted_ratio(const struct mdl_perf *p, const struct mdl_model *m,
                           const struct mdl_gpu *g, uint32_t n, bool spread,
                           uint32_t ngang, const struct mdl_gpu *gref)
{
    double x[MDL_RTP_NFEAT];
    if (mdl_rtp_features(m->flops, m->params, m->batch_size, g, n, spread, x))
        return -1;
    double ref = mdl_rt_throughput(p->zoo, p->rt, m->name, m->batch_size,
                                   gref->name, ngang, false);
    if (!(ref > 0))
        return -1;
    const double *coef = mdl_rtp_coef(p->rtp, p->zoo->families[m->family],
                                      p->rtp_holdout);
    /* coefficients far out of range give a time of 0 or infinity: no
     * prediction (counted and warned as one), not a run time of 0 */
    double r = 1 / (mdl_rtp_iter_s(coef, x) * ref);
    return isfinite(r) && r > 0 ? r : -1;
}

/* True and predicted solo rates of every class on every type. */
static void class_rates(struct mdl_perf *p, const struct mdl_spec *s,
                        const uint32_t *crow, const uint32_t *cn,
                        struct dl_diag *diag)
{
    const struct cluster *c = p->clu;
    const char *ref = c->types[c->ref_type].name;
    const struct mdl_gpu *gref = mdl_zoo_gpu(p->zoo, ref);
    bool warned_ref = false;
    for (uint32_t t = 0; t < p->ntypes; t++) {
        const struct mdl_gpu *g = mdl_zoo_gpu(p->zoo, c->types[t].name);
        if (!g && p->nclass)
            dl_warn(diag, "%s: GPU type %s is not in the zoo's gpus.csv: jobs "
                    "run on it at its cluster speed %g", c->path ? c->path
                    : c->name, c->types[t].name, c->types[t].speed);
        if (g && !gref && !warned_ref && p->nclass) {
            dl_warn(diag, "%s: the reference GPU type %s is not in the zoo's "
                    "gpus.csv: every job runs at the cluster speeds",
                    c->path ? c->path : c->name, ref);
            warned_ref = true;
        }
        for (uint32_t k = 0; k < p->nclass; k++)
            for (int sp = 0; sp < 2; sp++) {
                const struct mdl_model *m = &p->zoo->models[crow[k]];
                size_t at = ((size_t)k * p->ntypes + t) * 2 + sp;
                double r = -1, pr = -1;
                uint8_t src = MDL_SRC_DEFAULT;
                if (g && gref) {
                    r = mdl_rt_speed_ratio(p->zoo, &s->rt, m->name,
                                           m->batch_size, g->name, cn[k],
                                           sp, gref->name);
                    if (r > 0)
                        src = mdl_zoo_throughput(p->zoo, m->name,
                                                 m->batch_size, g->name,
                                                 cn[k], sp) > 0 &&
                              mdl_zoo_throughput(p->zoo, m->name,
                                                 m->batch_size, gref->name,
                                                 cn[k], false) > 0
                                  ? MDL_SRC_MEASURED : MDL_SRC_ROOFLINE;
                    double a = mdl_rt_estimate(m, g, &s->rt, cn[k], sp);
                    double b = mdl_rt_estimate(m, gref, &s->rt, cn[k], false);
                    if (a > 0 && b > 0)
                        pr = a / b;
                }
                if (!(r > 0))
                    r = c->types[t].speed;
                if (!s->rt_roofline)
                    pr = -1;
                if (p->rtp) {
                    pr = g && gref ? fitted_ratio(p, m, g, cn[k], sp, cn[k],
                                                  gref) : -1;
                    if (!(pr > 0))
                        p->cunpred[k] = 1;
                }
                if (!(pr > 0))
                    pr = r;
                p->ratio[at] = r;
                p->pratio[at] = pr;
                p->src[at] = src;
            }
    }
}

static void slowdown_tables(struct mdl_perf *p, const struct mdl_spec *s)
{
    uint32_t nr = p->zoo->nmodels + 1;
    p->sd_default = xcalloc(1, sizeof *p->sd_default);
    p->sd_default->name = "*";
    p->sd_default->form = MDL_SD_CONSTANT;
    p->sd_default->rate = MDL_DEFAULT_SHARED_RATE;
    p->rate_min = s && s->has_sd ? s->sd.rate_min : MDL_RATE_MIN;
    p->sd = xcalloc(p->ntypes, sizeof *p->sd);
    p->s = xcalloc((size_t)p->ntypes * nr, sizeof *p->s);
    p->p = xcalloc((size_t)p->ntypes * nr, sizeof *p->p);
    char name[DL_CSV_NAME_MAX + 16];
    for (uint32_t t = 0; t < p->ntypes; t++) {
        const struct mdl_sd_type *st = s && s->has_sd
            ? mdl_sd_find(&s->sd, p->clu->types[t].name) : NULL;
        p->sd[t] = st ? st : p->sd_default;
        for (uint32_t r = 0; r < nr; r++) {
            if (r < p->zoo->nmodels)
                snprintf(name, sizeof name, "%s@%u", p->zoo->models[r].name,
                         p->zoo->models[r].batch_size);
            else
                name[0] = 0;
            mdl_sd_job_sp(p->sd[t], name, &p->s[(size_t)t * nr + r],
                          &p->p[(size_t)t * nr + r]);
        }
    }
    p->bycount = xmalloc((size_t)p->ntypes * (MDL_MAX_SHARE + 1) *
                         sizeof *p->bycount);
    struct mdl_sd_share none[MDL_MAX_SHARE + 1] = { { 0, 0, 0 } };
    for (uint32_t t = 0; t < p->ntypes; t++)
        for (uint32_t k = 0; k <= MDL_MAX_SHARE; k++)
            p->bycount[(size_t)t * (MDL_MAX_SHARE + 1) + k] =
                mdl_sd_by_count(p->sd[t])
                    ? mdl_sd_rate(p->sd[t], p->rate_min, &none[0], none + 1, k)
                    : NAN;
}

/* predict.runtime: fitted: the jobs the predictor cannot predict (no
 * model, one the zoo lacks, one without FLOPs or parameters, a GPU type
 * without peaks) are predicted by the runtime model instead; said once,
 * with the first few model names. */
static void warn_unpredicted(struct mdl_perf *p, struct dl_diag *diag)
{
    enum { NAMED = 5 };
    const char *names[NAMED];
    uint32_t nn = 0;
    bool more = false;
    for (uint32_t j = 0; j < p->tr->njobs; j++) {
        if (mdl_perf_predicted(p, j))
            continue;
        p->unpredicted++;
        const char *m = p->tr->jobs[j].model ? p->tr->jobs[j].model : "(none)";
        uint32_t k = 0;
        while (k < nn && strcmp(names[k], m))
            k++;
        if (k == nn) {
            if (nn < NAMED)
                names[nn++] = m;
            else
                more = true;
        }
    }
    if (!p->unpredicted)
        return;
    char list[512];
    size_t off = 0;
    for (uint32_t k = 0; k < nn && off < sizeof list; k++)
        off += (size_t)snprintf(list + off, sizeof list - off, "%s'%.80s'",
                                k ? ", " : "", names[k]);
    dl_warn(diag, "%s: predict.runtime: fitted cannot predict %u job(s) (no "
            "model, a model the zoo lacks or one without FLOPs and "
            "parameters, a GPU type not in gpus.csv, or a prediction that is "
            "not a positive finite time: check runtime_fit's coefficients): "
            "their run times are "
            "predicted by the runtime model instead; models: %s%s",
            p->tr->path, p->unpredicted, list, more ? ", ..." : "");
}

/* An array of n floats whose first k are -1 (unknown): the per-job
 * utils or memory, made at the first job that has one. */
static float *unknown_floats(uint32_t n, uint32_t k)
{
    float *a = xmalloc(n * sizeof *a);
    for (uint32_t i = 0; i < k; i++)
        a[i] = -1;
    return a;
}

struct mdl_perf *mdl_perf_new(const struct mdl_spec *s,
                              const struct cluster *c, const struct trace *t,
                              uint64_t seed, struct dl_diag *diag)
{
    static const struct mdl_zoo empty;
    struct mdl_perf *p = xcalloc(1, sizeof *p);
    p->clu = c;
    p->tr = t;
    p->ntypes = c->ntypes;
    p->max_share = s ? s->max_share : 4;
    p->zoo_on = s && s->zoo_on;
    p->zoo = p->zoo_on ? &s->zoo : &empty;
    p->rt = s ? &s->rt : NULL;
    p->rt_roofline = s && s->rt_roofline;
    p->rtp = s && s->rt_fitted && p->zoo_on ? &s->rtp : NULL;
    p->rtp_holdout = s && s->rt_holdout;
    uint32_t n = t->njobs ? t->njobs : 1;
    /* a job's class and zoo row only with the zoo (else NULL: none) */
    p->cls = p->zoo_on ? xmalloc(n * sizeof *p->cls) : NULL;
    p->row = p->zoo_on ? xmalloc(n * sizeof *p->row) : NULL;
    /* the noise factors only where there is noise (else NULL: 1) */
    bool unoise = s && s->util_noise > 0, rnoise = s && s->rt_noise > 0;
    p->unoise = unoise ? xmalloc(n * sizeof *p->unoise) : NULL;
    p->prt = rnoise ? xmalloc(n * sizeof *p->prt) : NULL;
    struct name_map nm = { xcalloc(8192, sizeof(char *)),
                           xcalloc(8192, sizeof(uint32_t)), 8192 };
    struct class_map cm = { xcalloc(64, 8), xcalloc(64, 4), 64, 0 };
    uint32_t *crow = NULL, *cn = NULL;
    size_t ccap = 0, ccap2 = 0;
    /* the first few distinct model names the zoo lacks, for the warning */
    enum { NAMED = 5 };
    const char *unknown[NAMED];
    uint32_t nunknown = 0, unknown_jobs[NAMED];
    bool more_unknown = false;
    for (uint32_t j = 0; j < t->njobs; j++) {
        const struct trc_job *tj = &t->jobs[j];
        uint32_t row = SIM_NONE;
        p->with_model += tj->model != NULL;
        if (p->zoo_on && tj->model) {
            row = find_row(&nm, p->zoo, tj->model);
            if (row == SIM_NONE) {
                p->unknown_models++;
                uint32_t k = 0;
                while (k < nunknown && strcmp(unknown[k], tj->model))
                    k++;
                if (k < nunknown)
                    unknown_jobs[k]++;
                else if (nunknown < NAMED)
                    unknown[nunknown] = tj->model, unknown_jobs[nunknown++] = 1;
                else
                    more_unknown = true;
            }
        }
        const struct mdl_model *m = row == SIM_NONE ? NULL : &p->zoo->models[row];
        if (p->zoo_on)          /* row: SIM_NONE unless a model */
            p->row[j] = row, p->cls[j] = SIM_NONE;
        if (m) {
            uint32_t before = p->nclass;
            uint32_t k = class_of(&cm, row, tj->num_gpus, &p->nclass);
            if (p->nclass != before) {
                xgrow(&crow, &ccap, k + 1, sizeof *crow);
                xgrow(&cn, &ccap2, k + 1, sizeof *cn);
                crow[k] = row, cn[k] = tj->num_gpus;
            }
            p->cls[j] = k;
        }
        /* utilization: the trace's here; the zoo's per type in util_tables */
        if (tj->util >= 0 && !p->util)
            p->util = unknown_floats(n, j);
        if (p->util)
            p->util[j] = tj->util < 0 ? -1.0f : (float)clamp(tj->util, 0, 1);
        if (unoise)
            p->unoise[j] = exp(s->util_noise * normal(seed, 1, j));
        if (rnoise)
            p->prt[j] = (float)exp(s->rt_noise * normal(seed, 2, j));
        double mem = tj->mem_gb >= 0 ? tj->mem_gb : m ? m->mem_gb : -1;
        if (mem >= 0 && !p->mem)
            p->mem = unknown_floats(n, j);
        if (p->mem)
            p->mem[j] = (float)(mem >= 0 ? mem : -1);
    }
    free(nm.key), free(nm.val), free(cm.key), free(cm.val);
    if (p->unknown_models) {
        char names[512];
        size_t off = 0;
        for (uint32_t k = 0; k < nunknown && off < sizeof names; k++)
            off += (size_t)snprintf(names + off, sizeof names - off,
                                    "%s'%.80s' (%u job%s)", k ? ", " : "",
                                    unknown[k], unknown_jobs[k],
                                    unknown_jobs[k] == 1 ? "" : "s");
        dl_warn(diag, "%s: %u job(s) name a model the zoo lacks and run at "
                "the cluster file's speeds: %s%s", t->path, p->unknown_models,
                names, more_unknown ? ", ..." : "");
    }
    if (s && s->wants_runtime && t->njobs && !p->with_model)
        dl_warn(diag, "%s: no job names a model (no model column, or every "
                "one empty): the zoo's runtime data changes nothing here, "
                "every job runs at the cluster file's speeds", t->path);
    size_t nr = (size_t)p->nclass * p->ntypes * 2;
    p->ratio = xmalloc((nr ? nr : 1) * sizeof *p->ratio);
    p->pratio = xmalloc((nr ? nr : 1) * sizeof *p->pratio);
    p->src = xmalloc(nr ? nr : 1);
    p->cunpred = xcalloc(p->nclass ? p->nclass : 1, 1);
    class_rates(p, s, crow, cn, diag);
    free(crow), free(cn);
    if (p->rtp)
        warn_unpredicted(p, diag);
    util_tables(p, s);
    slowdown_tables(p, s);
    if (s && s->has_pairs)
        load_pairs(p, &s->pairs, s->pairs_path, diag);
    return p;
}

void mdl_perf_drop_run(struct mdl_perf *p)
{
    free(p->util), free(p->unoise), free(p->prt), free(p->mem);
    p->util = p->mem = p->prt = NULL;
    p->unoise = NULL;
}

void mdl_perf_free(struct mdl_perf *p)
{
    if (!p)
        return;
    free(p->cls), free(p->row), free(p->util), free(p->unoise);
    free(p->tutil), free(p->putil);
    free(p->prt), free(p->mem), free(p->ratio), free(p->pratio), free(p->src);
    free(p->cunpred);
    free(p->sd), free(p->sd_default), free(p->s), free(p->p);
    free(p->bycount);
    free(p->pkey), free(p->pval);
    free(p);
}

/* ------------------------------------------------------------ queries */

void mdl_perf_caps(const struct mdl_perf *p, double *caps)
{
    const struct cluster *c = p->clu;
    double plain = 0;
    for (uint32_t t = 0; t < c->ntypes; t++)
        plain += c->types[t].total_gpus * c->types[t].speed;
    for (uint32_t j = 0; j < p->tr->njobs; j++) {
        if (mdl_perf_cls(p, j) == SIM_NONE) {
            caps[j] = plain;
            continue;
        }
        double cap = 0;
        for (uint32_t t = 0; t < c->ntypes; t++)
            cap += c->types[t].total_gpus * mdl_perf_rate(p, j, t, false);
        caps[j] = cap;
    }
}

double mdl_perf_shared(const struct mdl_perf *p, uint32_t t, uint32_t x,
                       const uint32_t *jobs, uint32_t n)
{
    uint32_t o[MDL_MAX_SHARE], k = 0;
    for (uint32_t i = 0; i < n && k < MDL_MAX_SHARE; i++)
        if (jobs[i] != x)
            o[k++] = jobs[i];
    if (!k)
        return 1;
    /* measured pairs, as they are, when they cover every co-runner */
    if (p->npslots && mdl_perf_row(p, x) != SIM_NONE) {
        double r = 1;
        uint32_t i = 0;
        for (; i < k; i++) {
            uint32_t ro = mdl_perf_row(p, o[i]);
            const double *v = ro == SIM_NONE ? NULL
                : pair_slot(p, pair_key(t, p->row[x], ro), false);
            if (!v)
                break;
            r *= *v;
        }
        if (i == k)
            return clamp(r, p->rate_min, 1);
    }
    double byk = p->bycount[(size_t)t * (MDL_MAX_SHARE + 1) + k];
    if (byk == byk)             /* not NAN: its count decides */
        return byk;
    size_t nr = p->zoo->nmodels + 1, base = (size_t)t * nr;
    struct mdl_sd_share xs, os[MDL_MAX_SHARE];
    uint32_t rx = mdl_perf_row(p, x) == SIM_NONE ? p->zoo->nmodels : p->row[x];
    xs = (struct mdl_sd_share){ mdl_perf_util(p, x, t), p->s[base + rx],
                                p->p[base + rx] };
    for (uint32_t i = 0; i < k; i++) {
        uint32_t ro = mdl_perf_row(p, o[i]);
        uint32_t r = ro == SIM_NONE ? p->zoo->nmodels : ro;
        os[i] = (struct mdl_sd_share){ mdl_perf_util(p, o[i], t), p->s[base + r],
                                       p->p[base + r] };
    }
    return mdl_sd_rate(p->sd[t], p->rate_min, &xs, os, k);
}

double mdl_perf_pred_runtime(const struct mdl_perf *p, uint32_t j, uint32_t t,
                             bool spread)
{
    uint32_t c = mdl_perf_cls(p, j);
    double r = c == SIM_NONE ? p->clu->types[t].speed
                             : p->pratio[((size_t)c * p->ntypes + t) * 2 + spread];
    return (double)p->tr->jobs[j].duration * (p->prt ? p->prt[j] : 1.0f) / r;
}

/* Ratio of job j's throughput on n GPUs of t to its throughput on the
 * reference type with num_gpus; roofline: the plain roofline's.  <= 0 when
 * the model cannot say. */
static double ratio_n(const struct mdl_perf *p, uint32_t j, uint32_t t,
                      uint32_t n, bool spread, bool roofline)
{
    const struct cluster *c = p->clu;
    uint32_t row = mdl_perf_row(p, j);
    if (row == SIM_NONE)
        return -1;
    const struct mdl_model *m = &p->zoo->models[row];
    const char *ref = c->types[c->ref_type].name;
    uint32_t g = p->tr->jobs[j].num_gpus;
    if (roofline) {
        const struct mdl_gpu *gt = mdl_zoo_gpu(p->zoo, c->types[t].name);
        const struct mdl_gpu *gr = mdl_zoo_gpu(p->zoo, ref);
        double a = gt ? mdl_rt_estimate(m, gt, p->rt, n, spread) : -1;
        double b = gr ? mdl_rt_estimate(m, gr, p->rt, g, false) : -1;
        return a > 0 && b > 0 ? a / b : -1;
    }
    double a = mdl_rt_throughput(p->zoo, p->rt, m->name, m->batch_size,
                                 c->types[t].name, n, spread);
    double b = mdl_rt_throughput(p->zoo, p->rt, m->name, m->batch_size, ref, g,
                                 false);
    return a > 0 && b > 0 ? a / b : -1;
}

const char *mdl_perf_predictor(const struct mdl_perf *p)
{
    return p->rtp ? "fitted" : p->rt_roofline ? "roofline" : "model";
}

bool mdl_perf_predicted(const struct mdl_perf *p, uint32_t j)
{
    if (!p->rtp)
        return true;
    uint32_t c = mdl_perf_cls(p, j);
    return c != SIM_NONE && !p->cunpred[c];
}

double mdl_perf_rate_n(const struct mdl_perf *p, uint32_t j, uint32_t t,
                       uint32_t n, bool spread)
{
    if (n == p->tr->jobs[j].num_gpus)
        return mdl_perf_rate(p, j, t, spread);
    double r = ratio_n(p, j, t, n, spread, false);
    return r > 0 ? r : p->clu->types[t].speed * n / p->tr->jobs[j].num_gpus;
}

double mdl_perf_pred_runtime_n(const struct mdl_perf *p, uint32_t j, uint32_t t,
                               uint32_t n, bool spread)
{
    if (n == p->tr->jobs[j].num_gpus)
        return mdl_perf_pred_runtime(p, j, t, spread);
    double r = p->rt_roofline ? ratio_n(p, j, t, n, spread, true) : -1;
    if (p->rtp && mdl_perf_predicted(p, j)) {
        const struct cluster *c = p->clu;
        const struct mdl_gpu *g = mdl_zoo_gpu(p->zoo, c->types[t].name);
        const struct mdl_gpu *gr = mdl_zoo_gpu(p->zoo,
                                               c->types[c->ref_type].name);
        r = g && gr ? fitted_ratio(p, &p->zoo->models[p->row[j]], g, n, spread,
                                   p->tr->jobs[j].num_gpus, gr) : -1;
    }
    if (!(r > 0))
        r = mdl_perf_rate_n(p, j, t, n, spread);
    return (double)p->tr->jobs[j].duration * (p->prt ? p->prt[j] : 1.0f) / r;
}
