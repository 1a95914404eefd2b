/*
 * models/rtpred.c - the fitted runtime predictor (mdl_rtp_): what a
 * scheduler's offline evaluation module (QoS, Luo, Chen & Wang 2021) knows
 * of a job's speed when it was never profiled.  `dlsim fit runtime --form
 * loglinear` (models/fit/runtime.c) fits it; a run reads it back here for
 * `predict.runtime: fitted` (models/MODELS.md).  models/FIT.md documents
 * the form, the features and the file.
 *
 * The predictor is a log-linear regression of the seconds per iteration
 * of a (model, global batch) on n GPUs of a type:
 *
 *   log(iter_s) = coef . x(model, gpu, n, spread)
 *
 * with x = mdl_rtp_features: an intercept; the logs of the roofline's
 * compute and memory bounds at full efficiency and of their maximum plus a
 * fixed 10 ms (the roofline's shape, which a linear form cannot make);
 * the logs of the GPU's peak, its memory bandwidth and the GPU count; a
 * spread flag.  No parameter inside a feature is fitted, so the fit is
 * linear least squares (GSL).  Besides the fit on every row, the file holds one fit per
 * model with that model's rows left out (`holdout`): a run predicting a
 * job of model M with M's held-out coefficients sees exactly the error of
 * the leave-one-model-out validation, the error for a model never
 * profiled.
 *
 * Ownership: struct mdl_rtp owns its holdout array (malloc'd, released by
 * mdl_rtp_free).
 */
#include "models/perf.h"
#include "sim/base/formats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

const char *const mdl_rtp_feature_names[MDL_RTP_NFEAT] = {
    "intercept", "log_t_roof", "log_t_compute", "log_t_memory",
    "log_peak_tflops", "log_mem_bw_gbs", "log_gpus", "spread",
};

int mdl_rtp_features(double flops, double params, uint32_t batch,
                     const struct mdl_gpu *g, uint32_t n, bool spread,
                     double x[MDL_RTP_NFEAT])
{
    double peak = g ? mdl_rt_peak_tflops(g) : -1;
    if (!(flops > 0) || !(params > 0) || !g || !(peak > 0) ||
        !(g->mem_bw_gbs > 0) || n < 1 || batch < 1)
        return -1;
    /* the roofline's two bounds at full efficiency (models/perf.h) */
    double tc = 3 * flops / (n * peak * 1e12);
    double tm = (MDL_RT_BYTES_PER_PARAM * params +
                 3 * flops / (MDL_RT_FLOP_PER_BYTE * n)) /
                (g->mem_bw_gbs * 1e9);
    x[0] = 1;
    x[1] = log((tc > tm ? tc : tm) + MDL_RTP_T0_S);
    x[2] = log(tc);
    x[3] = log(tm);
    x[4] = log(peak);
    x[5] = log(g->mem_bw_gbs);
    x[6] = log((double)n);
    x[7] = spread && n > 1 ? 1 : 0;
    return 0;
}

double mdl_rtp_iter_s(const double coef[MDL_RTP_NFEAT],
                      const double x[MDL_RTP_NFEAT])
{
    double s = 0;
    for (int i = 0; i < MDL_RTP_NFEAT; i++)
        s += coef[i] * x[i];
    return exp(s);
}

const double *mdl_rtp_coef(const struct mdl_rtp *p, const char *model,
                           bool holdout)
{
    char norm[DL_CSV_NAME_MAX];
    if (holdout && model && !dl_csv_norm_name(model, strlen(model), norm))
        for (uint32_t i = 0; i < p->nhold; i++)
            if (!strcmp(p->hold[i].model, norm))
                return p->hold[i].coef;
    return p->coef;
}

void mdl_rtp_free(struct mdl_rtp *p)
{
    free(p->hold);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------ YAML in */

static int coef_list(struct yload *L, const yaml_node_t *v, double *out)
{
    if (v->type != YAML_SEQUENCE_NODE ||
        v->data.sequence.items.top - v->data.sequence.items.start !=
            MDL_RTP_NFEAT)
        return yl_fail(L, v, "coef: expected a list of %d numbers (one per "
                       "feature)", MDL_RTP_NFEAT);
    for (int i = 0; i < MDL_RTP_NFEAT; i++) {
        const yaml_node_t *e = yl_node(L, v->data.sequence.items.start[i]);
        const char *s = yl_scalar(e);
        if (!s || sim_parse_double(s, &out[i]) || !isfinite(out[i]) ||
            fabs(out[i]) > 1e6)
            return yl_fail(L, e, "coef: expected a number");
    }
    return 0;
}

static int load_hold(struct yload *L, const yaml_node_t *n,
                     struct mdl_rtp_hold *h)
{
    if (n->type != YAML_MAPPING_NODE)
        return yl_fail(L, n, "holdout: each entry must be a mapping "
                       "{model, n_rows, coef}");
    bool has_model = false, has_coef = false;
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start;
         q < n->data.mapping.pairs.top; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        double num;
        int rc = yl_pair(L, n, q, &k, &v, &key);
        if (rc)
            return rc;
        if (!strcmp(key, "model")) {
            const char *s = yl_scalar(v);
            if (!s || dl_csv_norm_name(s, strlen(s), h->model))
                return yl_fail(L, v, "model: expected a model name");
            has_model = true;
        } else if (!strcmp(key, "coef")) {
            rc = coef_list(L, v, h->coef);
            has_coef = true;
        } else if (!strcmp(key, "n_rows")) {
            if (!(rc = yl_num(L, v, key, 0, 4e9, false, &num)))
                h->n_rows = (uint32_t)num;
        } else
            return yl_fail(L, k, "unknown key '%s' in a holdout entry (valid: "
                           "model, n_rows, coef)", key);
        if (rc)
            return rc;
    }
    if (!has_model || !has_coef)
        return yl_fail(L, n, "holdout entry: model and coef are required");
    return 0;
}

static int load_top(struct yload *L, struct mdl_rtp *p)
{
    static const char *const info[] = {
        "source", "zoo", "n_rows", "n_skipped", "n_models", "lomo", "kfold",
        "folds", "seed",
    };
    const yaml_node_t *root = yl_root(L);
    int rc = yl_kind(L, "runtime_predictor");
    if (rc)
        return rc;
    bool has_coef = false, has_feat = false;
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start;
         q < root->data.mapping.pairs.top && !rc; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        if ((rc = yl_pair(L, root, q, &k, &v, &key)))
            return rc;
        if (!strcmp(key, "kind"))
            continue;
        if (!strcmp(key, "form")) {
            if (!yl_scalar(v) || strcmp(yl_scalar(v), "loglinear"))
                return yl_fail(L, v, "form: expected 'loglinear'");
        } else if (!strcmp(key, "features")) {
            if (!yl_names_are(L, v, mdl_rtp_feature_names, MDL_RTP_NFEAT))
                return yl_fail(L, v, "features: expected [intercept, "
                               "log_t_roof, log_t_compute, log_t_memory, "
                               "log_peak_tflops, log_mem_bw_gbs, log_gpus, "
                               "spread] (this order)");
            has_feat = true;
        } else if (!strcmp(key, "coef")) {
            rc = coef_list(L, v, p->coef);
            has_coef = true;
        } else if (!strcmp(key, "lomo_rmsle")) {
            rc = yl_num(L, v, key, 0, 1e6, false, &p->lomo_rmsle);
        } else if (!strcmp(key, "holdout")) {
            if (v->type != YAML_SEQUENCE_NODE)
                return yl_fail(L, v, "holdout: expected a list");
            yaml_node_item_t *it = v->data.sequence.items.start;
            size_t cnt = (size_t)(v->data.sequence.items.top - it);
            free(p->hold);
            p->hold = xcalloc(cnt + 1, sizeof *p->hold);
            p->nhold = 0;
            for (size_t i = 0; i < cnt && !rc; i++) {
                const yaml_node_t *e = yl_node(L, it[i]);
                rc = load_hold(L, e, &p->hold[i]);
                for (uint32_t m = 0; !rc && m < p->nhold; m++)
                    if (!strcmp(p->hold[m].model, p->hold[i].model))
                        rc = yl_fail(L, e, "holdout: model '%s' listed twice",
                                     p->hold[i].model);
                if (!rc)
                    p->nhold++;
            }
        } else {
            bool known = false;
            for (size_t i = 0; i < sizeof info / sizeof *info; i++)
                known |= !strcmp(key, info[i]);
            if (!known)
                return yl_fail(L, k, "unknown key '%s' (valid: kind, form, "
                               "features, coef, holdout, and the "
                               "informational source, zoo, n_rows, "
                               "n_skipped, n_models, folds, seed, "
                               "lomo_rmsle, lomo, kfold)", key);
        }
    }
    if (!rc && (!has_coef || !has_feat))
        rc = yl_fail(L, root, "features and coef are required");
    return rc;
}

int mdl_rtp_load(const char *path, struct mdl_rtp *p, struct dl_error *err)
{
    memset(p, 0, sizeof *p);
    p->lomo_rmsle = NAN;
    struct yload L;
    int rc = yl_open(&L, path, err);
    if (!rc)
        rc = load_top(&L, p);
    yl_close(&L);
    if (rc)
        mdl_rtp_free(p);
    else
        snprintf(p->path, sizeof p->path, "%s", path);
    return rc;
}
