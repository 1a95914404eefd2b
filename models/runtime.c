/*
 * models/runtime.c - the runtime model (mdl_rt_): how many iterations per
 * second a job (model, global batch) makes on n GPUs of a type,
 * consolidated or spread over nodes, and `dlsim fit runtime`, which fits
 * the model's efficiencies to SPEC 7 runtime measurements.  The formula is
 * in models/perf.h; models/FIT.md ("Runtime model") documents it, the
 * fitting method, the cross-validation and the YAML file.
 *
 * Answers come from, in order: the zoo's measured table (as is); the
 * roofline estimate with fitted (or default) efficiencies; -1 for an
 * unknown model or GPU type.
 *
 * Fitting: a deterministic coordinate search in log-parameter space (each
 * coordinate moved by +-step while that lowers the objective, the step
 * halved when a sweep improves nothing) on sum (log pred - log measured)^2.
 * The max() in the roofline makes the objective non-smooth, which a
 * derivative-free search tolerates.  No randomness except the fold draw
 * (GSL mt19937, --seed).
 *
 * Ownership: struct mdl_rt_params owns its types[] (malloc'd, released by
 * mdl_rt_params_free); struct mdl_rt_data owns its rows, which point into
 * the zoo and live no longer than it.
 */
#include "models/perf.h"
#include "sim/base/formats.h"

#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <yaml.h>

/* Defaults: the global fit of models/throughput.csv (579 rows, FIT.md),
 * rounded. */
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

/* ------------------------------------------------------------ the model */

void mdl_rt_defaults(struct mdl_rt_params *p)
{
    *p = (struct mdl_rt_params){
        .eff_c = RT_DEF_EFF_C, .eff_m = RT_DEF_EFF_M,
        .overhead_s = RT_DEF_OVERHEAD, .scale_cons = RT_DEF_SCALE_CONS,
        .scale_spread = RT_DEF_SCALE_SPREAD,
    };
}

void mdl_rt_params_free(struct mdl_rt_params *p)
{
    free(p->types);
    p->types = NULL;
    p->ntypes = 0;
}

double mdl_rt_peak_tflops(const struct mdl_gpu *g)
{
    /* Tensor cores show as an fp16 peak >= 4x fp32 (V100 8x, T4 8x, A10
     * 4x, A100 16x, H100 15x); P100's 2x half2 and K80's 1x are not used
     * by fp32 training, so those types use fp32. */
    if (g->fp16_tflops > 0 && g->fp32_tflops > 0 &&
        g->fp16_tflops >= 4 * g->fp32_tflops)
        return g->fp16_tflops;
    return g->fp32_tflops > 0 ? g->fp32_tflops : g->fp16_tflops;
}

double mdl_rt_iter_time(double flops, double params, double peak_tf,
                        double bw_gbs, uint32_t n, bool spread, double ec,
                        double em, double t0, double sc, double ss)
{
    double peak = peak_tf * 1e12, bw = bw_gbs * 1e9;
    double tc = 3 * flops / (n * peak * ec);
    double tm = (MDL_RT_BYTES_PER_PARAM * (params > 0 ? params : 0) +
                 3 * flops / (MDL_RT_FLOP_PER_BYTE * n)) / (bw * em);
    double t = (tc > tm ? tc : tm) + t0;
    if (n > 1)
        t /= spread ? ss : sc;
    return t;
}

static const struct mdl_rt_type *type_of(const struct mdl_rt_params *p,
                                         const char *name)
{
    for (uint32_t i = 0; i < p->ntypes; i++)
        if (!strcasecmp(p->types[i].name, name))
            return &p->types[i];
    return NULL;
}

double mdl_rt_estimate(const struct mdl_model *m, const struct mdl_gpu *g,
                       const struct mdl_rt_params *p, uint32_t ngpus,
                       bool spread)
{
    double peak = mdl_rt_peak_tflops(g);
    if (!(m->flops > 0) || !(peak > 0) || !(g->mem_bw_gbs > 0) || !ngpus)
        return -1;
    const struct mdl_rt_type *t = type_of(p, g->name);
    double t_s = mdl_rt_iter_time(m->flops, m->params, peak, g->mem_bw_gbs, ngpus,
                           spread, t ? t->eff_c : p->eff_c,
                           t ? t->eff_m : p->eff_m, p->overhead_s,
                           p->scale_cons, p->scale_spread);
    return 1 / t_s;
}

/* The roofline's estimate for m on g, anchored to the measured figure of
 * the same job (batch, GPU count, placement) on the type whose peak is
 * nearest g's: measured(h) * estimate(g) / estimate(h).  The roofline is
 * better at ratios between types than at absolute speeds (it has no
 * per-model terms), so this keeps what the measurement knows about the
 * job.  Plain estimate when no type measured the job. */
static double anchored(const struct mdl_zoo *z, const struct mdl_rt_params *p,
                       const struct mdl_model *m, const struct mdl_gpu *g,
                       uint32_t ngpus, bool spread)
{
    double est = mdl_rt_estimate(m, g, p, ngpus, spread);
    if (!(est > 0))
        return est;
    double best = INFINITY, out = est, lg = log(mdl_rt_peak_tflops(g));
    for (uint32_t h = 0; h < z->ngpus; h++) {
        const struct mdl_gpu *gh = &z->gpus[h];
        if (gh == g)
            continue;
        double d = fabs(log(mdl_rt_peak_tflops(gh)) - lg);
        if (!(d < best))
            continue;
        double meas = mdl_zoo_throughput(z, m->name, m->batch_size, gh->name,
                                         ngpus, spread);
        double eh = meas > 0 ? mdl_rt_estimate(m, gh, p, ngpus, spread) : -1;
        if (eh > 0) {
            best = d;
            out = meas * est / eh;
        }
    }
    return out;
}

double mdl_rt_throughput(const struct mdl_zoo *z, const struct mdl_rt_params *p,
                         const char *model, uint32_t batch,
                         const char *gpu_type, uint32_t ngpus, bool spread)
{
    struct mdl_rt_params def;
    if (!p) {
        mdl_rt_defaults(&def);
        p = &def;
    }
    const struct mdl_gpu *g = mdl_zoo_gpu(z, gpu_type);
    if (!g || !batch || !ngpus)
        return -1;
    double thr = mdl_zoo_throughput(z, model, batch, gpu_type, ngpus, spread);
    if (thr > 0)
        return thr;
    /* model may carry "@batch": then it must equal batch */
    char ref[DL_CSV_NAME_MAX + 32];
    const char *at = strchr(model, '@');
    size_t len = at ? (size_t)(at - model) : strlen(model);
    if (len > DL_CSV_NAME_MAX)
        return -1;
    snprintf(ref, sizeof ref, "%.*s@%u", (int)len, model, batch);
    const struct mdl_model *m = mdl_zoo_find(z, ref);
    if (at && (!m || strcmp(at, strchr(ref, '@'))))
        return -1;
    if (m)
        return anchored(z, p, m, g, ngpus, spread);
    snprintf(ref, sizeof ref, "%.*s", (int)len, model);
    if (!(m = mdl_zoo_find(z, ref)))
        return -1;
    struct mdl_model scaled = *m;   /* flops scale with the batch */
    if (scaled.flops > 0)
        scaled.flops *= (double)batch / m->batch_size;
    scaled.batch_size = batch;
    return mdl_rt_estimate(&scaled, g, p, ngpus, spread);
}

double mdl_rt_speed_ratio(const struct mdl_zoo *z,
                          const struct mdl_rt_params *p, const char *model,
                          uint32_t batch, const char *gpu_type,
                          uint32_t ngpus, bool spread, const char *ref_type)
{
    double a = mdl_rt_throughput(z, p, model, batch, gpu_type, ngpus, spread);
    double b = mdl_rt_throughput(z, p, model, batch, ref_type, ngpus, false);
    return a > 0 && b > 0 ? a / b : -1;
}

/* ------------------------------------------------------------ YAML in */

static int load_type(struct yload *L, const yaml_node_t *n,
                     struct mdl_rt_type *t)
{
    if (n->type != YAML_MAPPING_NODE)
        return yl_fail(L, n, "gpu_types: each entry must be a mapping");
    bool has_name = false;
    t->eff_c = t->eff_m = -1;
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start;
         q < n->data.mapping.pairs.top; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        double num = 0;
        int rc = yl_pair(L, n, q, &k, &v, &key);
        if (rc)
            return rc;
        if (!strcmp(key, "name")) {
            const char *s = yl_scalar(v);
            if (!s || !*s || strlen(s) >= sizeof t->name)
                return yl_fail(L, v, "name: expected a GPU type name");
            snprintf(t->name, sizeof t->name, "%s", s);
            has_name = true;
        } else if (!strcmp(key, "eff_compute"))
            rc = yl_num(L, v, key, 0, 1, true, &t->eff_c);
        else if (!strcmp(key, "eff_memory"))
            rc = yl_num(L, v, key, 0, 1, true, &t->eff_m);
        else if (!strcmp(key, "n_rows")) {
            if (!(rc = yl_num(L, v, key, 0, 4e9, false, &num)))
                t->n_rows = (uint32_t)num;
        } else
            return yl_fail(L, k, "unknown key '%s' in a gpu_types entry (valid: "
                         "name, eff_compute, eff_memory, n_rows)", key);
        if (rc)
            return rc;
    }
    if (!has_name || t->eff_c < 0 || t->eff_m < 0)
        return yl_fail(L, n, "gpu_types entry: name, eff_compute and eff_memory "
                     "are required");
    return 0;
}

static int load_top(struct yload *L, const yaml_node_t *root,
                    struct mdl_rt_params *p)
{
    static const char *const info[] = {
        "source", "zoo", "n_rows", "n_skipped", "folds", "seed",
        "bytes_per_param", "flop_per_byte", "min_rows", "cv",
    };
    if (!root || root->type != YAML_MAPPING_NODE)
        return yl_fail(L, root, "expected a mapping (kind: runtime, ...)");
    bool kind = false;
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start;
         q < root->data.mapping.pairs.top; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        int rc = yl_pair(L, root, q, &k, &v, &key);
        if (rc)
            return rc;
        if (!strcmp(key, "kind")) {
            if (!yl_scalar(v) || strcmp(yl_scalar(v), "runtime"))
                return yl_fail(L, v, "kind: expected 'runtime'");
            kind = true;
        } else if (!strcmp(key, "eff_compute"))
            rc = yl_num(L, v, key, 0, 1, true, &p->eff_c);
        else if (!strcmp(key, "eff_memory"))
            rc = yl_num(L, v, key, 0, 1, true, &p->eff_m);
        else if (!strcmp(key, "overhead_s"))
            rc = yl_num(L, v, key, 0, 1e6, false, &p->overhead_s);
        else if (!strcmp(key, "scaling_consolidated"))
            rc = yl_num(L, v, key, 0, 1, true, &p->scale_cons);
        else if (!strcmp(key, "scaling_spread"))
            rc = yl_num(L, v, key, 0, 1, true, &p->scale_spread);
        else if (!strcmp(key, "gpu_types")) {
            if (v->type != YAML_SEQUENCE_NODE)
                return yl_fail(L, v, "gpu_types: expected a list");
            yaml_node_item_t *it = v->data.sequence.items.start;
            size_t cnt = (size_t)(v->data.sequence.items.top - it);
            free(p->types);
            p->types = xcalloc(cnt + 1, sizeof *p->types);
            p->ntypes = 0;
            for (size_t i = 0; i < cnt && !rc; i++) {
                const yaml_node_t *e = yl_node(L, it[i]);
                rc = load_type(L, e, &p->types[i]);
                if (!rc && type_of(p, p->types[i].name))
                    rc = yl_fail(L, e, "gpu_types: '%s' listed twice",
                               p->types[i].name);
                if (!rc)
                    p->ntypes++;
            }
        } else {
            bool known = false;
            for (size_t i = 0; i < sizeof info / sizeof *info; i++)
                known |= !strcmp(key, info[i]);
            if (!known)
                return yl_fail(L, k, "unknown key '%s' (models/FIT.md lists "
                             "the runtime model's keys)", key);
        }
        if (rc)
            return rc;
    }
    if (!kind)
        return yl_fail(L, root, "kind: runtime is required");
    return 0;
}

int mdl_rt_params_load(const char *path, struct mdl_rt_params *p,
                       struct dl_error *err)
{
    mdl_rt_defaults(p);
    struct yload L;
    int rc = yl_open(&L, path, err);
    if (!rc)
        rc = load_top(&L, yl_root(&L), p);
    yl_close(&L);
    if (rc) {
        mdl_rt_params_free(p);
        mdl_rt_defaults(p);
    }
    return rc;
}

