/*
 * tests/test_runtime.c - the runtime model (models/runtime.c): measured
 * figures returned as-is, roofline estimates for unmeasured GPU types, the
 * speed ratio, recovery of known efficiencies from synthetic data, the
 * cross-validated error on the zoo's real table, and located errors on
 * malformed model and measurement files.  cwd is tests/, the zoo ../models.
 */
#include "tests/testutil.h"
#include "models/perf.h"
#include "models/fit/fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZOO "../models"

static struct mdl_zoo z;

static void load_zoo(void)
{
    struct dl_error err = { 0 };
    int rc = mdl_zoo_load(ZOO, &z, &err);
    cr_assert_eq(rc, 0, "%s:%ld: %s", err.file, err.line, err.msg);
}

/* The files write_tmp wrote (each name once), removed by the suite's
 * .fini whether or not the test got to unlink them itself. */
static char written[16][256];
static int nwritten;

static const char *write_tmp(const char *name, const char *text)
{
    static char path[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "/tmp/dlsim-test-rt-%ld-%s",
             (long)getpid(), name);
    int w = 0;
    while (w < nwritten && strcmp(written[w], path[k]))
        w++;
    if (w == nwritten) {
        cr_assert_lt(nwritten, 16, "write_tmp: too many names");
        snprintf(written[nwritten++], sizeof written[0], "%s", path[k]);
    }
    FILE *f = fopen(path[k], "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    return path[k];
}

static void fini(void)
{
    mdl_zoo_free(&z);
    for (int w = 0; w < nwritten; w++)
        unlink(written[w]);
    nwritten = 0;
    tu_tmp_cleanup();
}

TestSuite(runtime, .init = load_zoo, .fini = fini);

Test(runtime, measured_as_is)
{
    cr_assert_eq(mdl_rt_throughput(&z, NULL, "resnet50", 16, "K80", 1, false),
                 2.517403);
    cr_assert_eq(mdl_rt_throughput(&z, NULL, "ResNet-50", 64, "V100", 1, false),
                 4.525762);
    cr_assert_eq(mdl_rt_throughput(&z, NULL, "resnet50@64", 64, "V100", 1,
                                   false), 4.525762);
    cr_assert_eq(mdl_rt_throughput(&z, NULL, "nosuchmodel", 64, "V100", 1,
                                   false), -1);
    cr_assert_eq(mdl_rt_throughput(&z, NULL, "resnet50", 64, "NOSUCHGPU", 1,
                                   false), -1);
    cr_assert_eq(mdl_rt_throughput(&z, NULL, "resnet50@32", 64, "V100", 1,
                                   false), -1);
}

Test(runtime, unmeasured_types)
{
    struct mdl_rt_params fitted;
    struct mdl_rt_data d;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_rt_data_load(ZOO "/throughput.csv", &z, &d, &err), 0);
    uint32_t *all = malloc(d.n * sizeof *all);
    for (uint32_t i = 0; i < d.n; i++)
        all[i] = i;
    cr_assert_eq(mdl_rt_fit(&z, &d, all, d.n, true, &fitted), 0);
    const struct mdl_rt_params *ps[2] = { NULL, &fitted };
    for (int k = 0; k < 2; k++) {
        double v100 = mdl_rt_throughput(&z, ps[k], "resnet50", 64, "V100", 1,
                                        false);
        double h100 = mdl_rt_throughput(&z, ps[k], "resnet50", 64, "H100", 1,
                                        false);
        double h200 = mdl_rt_throughput(&z, ps[k], "resnet50", 64, "H200", 1,
                                        false);
        cr_log_info("resnet50@64 1 GPU: V100 %.3f (measured), H100 %.3f, "
                    "H200 %.3f it/s (%s)", v100, h100, h200,
                    k ? "fitted" : "defaults");
        cr_assert_gt(h100, v100);
        cr_assert_geq(h200, h100);
        /* a batch the zoo lacks: flops scaled, still positive */
        cr_assert_gt(mdl_rt_throughput(&z, ps[k], "bert", 96, "H200", 8, true),
                     0);
        /* spread is never faster than consolidated in the estimate */
        cr_assert_leq(mdl_rt_throughput(&z, ps[k], "vgg16", 64, "H100", 4,
                                        true),
                      mdl_rt_throughput(&z, ps[k], "vgg16", 64, "H100", 4,
                                        false));
    }
    free(all);
    mdl_rt_params_free(&fitted);
    mdl_rt_data_free(&d);
}

Test(runtime, speed_ratio)
{
    double v = mdl_rt_speed_ratio(&z, NULL, "resnet50", 16, "V100", 1, false,
                                  "K80");
    cr_assert_float_eq(v, 12.21691 / 2.517403, 1e-12);
    cr_assert_eq(mdl_rt_speed_ratio(&z, NULL, "resnet50", 16, "V100", 1, false,
                                    "NOPE"), -1);
    cr_assert_float_eq(mdl_rt_speed_ratio(&z, NULL, "resnet50", 16, "K80", 1,
                                          false, "K80"), 1.0, 1e-12);
}

/* Data generated from known efficiencies on the real table's rows. */
Test(runtime, recovers_synthetic)
{
    struct mdl_rt_data d;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_rt_data_load(ZOO "/throughput.csv", &z, &d, &err), 0);
    struct mdl_rt_type types[3] = {
        { "K80", 0.55, 0.30, 0 }, { "V100", 0.12, 0.45, 0 },
        { "A100", 0.20, 0.35, 0 },
    };
    struct mdl_rt_params truth = {
        .eff_c = 0.3, .eff_m = 0.3, .overhead_s = 0.005, .scale_cons = 0.9,
        .scale_spread = 0.7, .types = types, .ntypes = 3,
    };
    uint32_t *idx = malloc(d.n * sizeof *idx);
    uint32_t n = 0;
    for (uint32_t i = 0; i < d.n; i++) {
        struct mdl_rt_row *r = &d.r[i];
        const char *g = z.gpus[r->gpu].name;
        if (strcmp(g, "K80") && strcmp(g, "V100") && strcmp(g, "A100"))
            continue;
        struct mdl_model m = *r->m;
        m.flops = r->flops;
        r->thr = mdl_rt_estimate(&m, &z.gpus[r->gpu], &truth, r->num_gpus,
                                 r->spread);
        idx[n++] = i;
    }
    struct mdl_rt_params p;
    cr_assert_eq(mdl_rt_fit(&z, &d, idx, n, true, &p), 0);
    cr_assert_eq(p.ntypes, 3);
    cr_log_info("overhead %.6g scale_cons %.4f scale_spread %.4f", p.overhead_s,
                p.scale_cons, p.scale_spread);
    cr_assert_float_eq(p.overhead_s, 0.005, 0.005 * 0.10);
    cr_assert_float_eq(p.scale_cons, 0.9, 0.9 * 0.02);
    cr_assert_float_eq(p.scale_spread, 0.7, 0.7 * 0.02);
    /* The rows' predictions are recovered.  A type's eff_c and eff_m are
     * only separately identifiable where its rows straddle both bounds
     * (K80 here); on V100 a compute bound at 0.12 x 125 TF/s and a memory
     * bound at eff_m x 900 GB/s x 64 FLOP/B fit the rows almost alike. */
    double sq = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct mdl_rt_row *r = &d.r[idx[i]];
        struct mdl_model m = *r->m;
        m.flops = r->flops;
        double e = log(mdl_rt_estimate(&m, &z.gpus[r->gpu], &p, r->num_gpus,
                                       r->spread) / r->thr);
        sq += e * e;
    }
    cr_log_info("synthetic: RMSE of log throughput %.5f over %u rows",
                sqrt(sq / n), n);
    cr_assert_lt(sqrt(sq / n), 0.05); /* measured 0.033: the search stalls short of 0 */
    for (uint32_t t = 0; t < 3; t++) {
        cr_log_info("%s: eff_c %.4f eff_m %.4f", p.types[t].name,
                    p.types[t].eff_c, p.types[t].eff_m);
        if (!strcmp(p.types[t].name, "K80")) {
            cr_assert_float_eq(p.types[t].eff_c, 0.55, 0.55 * 0.02);
            cr_assert_float_eq(p.types[t].eff_m, 0.30, 0.30 * 0.10);
        }
    }
    mdl_rt_params_free(&p);
    free(idx);
    mdl_rt_data_free(&d);
}

/* Leave-one-GPU-type-out on models/throughput.csv.  Bound (FIT.md): the
 * pooled RMSE of log throughput below 0.75 (measured 0.68 when written:
 * a typical error under a factor 2.1, what a per-type-free roofline with
 * one overhead can do on data whose small models are CPU- or
 * launch-bound) and at most half the baseline's (1.84); every type beats
 * the baseline. */
Test(runtime, leave_one_type_out)
{
    struct mdl_rt_data d;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_rt_data_load(ZOO "/throughput.csv", &z, &d, &err), 0);
    cr_assert_eq(d.n, 579);
    struct mdl_rt_err *e = calloc(z.ngpus + 1, sizeof *e);
    mdl_rt_cv_loto(&z, &d, e);
    for (uint32_t g = 0; g <= z.ngpus; g++) {
        if (!e[g].n)
            continue;
        cr_log_info("loto %-5s n %3u MAPE %.1f%% RMSE_log %.4f (baseline "
                    "%.1f%% %.4f)", g < z.ngpus ? z.gpus[g].name : "all",
                    e[g].n, 100 * e[g].mape, e[g].rmse_log,
                    100 * e[g].base_mape, e[g].base_rmse_log);
        cr_assert_lt(e[g].rmse_log, e[g].base_rmse_log);
    }
    cr_assert_lt(e[z.ngpus].rmse_log, 0.75);
    cr_assert_lt(e[z.ngpus].rmse_log, 0.5 * e[z.ngpus].base_rmse_log);
    free(e);
    mdl_rt_data_free(&d);
}

Test(runtime, yaml_roundtrip_and_errors)
{
    struct mdl_rt_params p;
    struct dl_error err = { 0 };
    const char *ok = write_tmp("ok.yaml",
        "kind: runtime\nsource: \"x\"\neff_compute: 0.5\neff_memory: 0.25\n"
        "overhead_s: 0.001\nscaling_consolidated: 0.9\nscaling_spread: 0.8\n"
        "gpu_types:\n  - {name: \"K80\", eff_compute: 0.4, eff_memory: 0.2, "
        "n_rows: 10}\ncv: {}\n");
    cr_assert_eq(mdl_rt_params_load(ok, &p, &err), 0, "%s", err.msg);
    cr_assert_eq(p.eff_c, 0.5);
    cr_assert_eq(p.ntypes, 1);
    cr_assert_eq(p.types[0].eff_m, 0.2);
    mdl_rt_params_free(&p);
    unlink(ok);

    static const struct {
        const char *text;
        long line;
    } bad[] = {
        { "kind: runtime\neff_compute: 1.5\n", 2 },
        { "kind: runtime\neff_memory: abc\n", 2 },
        { "kind: slowdown\n", 1 },
        { "eff_compute: 0.5\n", 1 },
        { "kind: runtime\nbogus: 1\n", 2 },
        { "kind: runtime\ngpu_types:\n  - {name: K80, eff_compute: 0.1}\n", 3 },
        { "kind: runtime\ngpu_types:\n  - {name: K80, eff_compute: 0.1, "
          "eff_memory: 0.1}\n  - {name: k80, eff_compute: 0.1, "
          "eff_memory: 0.1}\n", 4 },
        { "kind: runtime\neff_compute: [0.5\n", 3 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *path = write_tmp("bad.yaml", bad[i].text);
        memset(&err, 0, sizeof err);
        int rc = mdl_rt_params_load(path, &p, &err);
        cr_assert_eq(rc, DL_EINPUT, "case %zu", i);
        cr_assert_eq(err.line, bad[i].line, "case %zu: %s:%ld: %s", i,
                     err.file, err.line, err.msg);
        cr_assert_str_eq(err.file, path);
        cr_assert_eq(p.ntypes, 0);
        unlink(path);
    }
    cr_assert_eq(mdl_rt_params_load("/nonexistent/x.yaml", &p, &err), DL_EIO);
}

Test(runtime, csv_errors)
{
    static const struct {
        const char *text;
        long line;
    } bad[] = {
        { "gpu_type,model,batch_size,num_gpus,placement,throughput\n"
          "K80,resnet50,16,1,consolidated,abc\n", 2 },
        { "gpu_type,model,batch_size,num_gpus,placement,throughput\n"
          "K80,resnet50,16,1,consolidated,1\nK80,resnet50,16,1,sideways,1\n",
          3 },
        { "gpu_type,model,batch_size,num_gpus,placement,throughput\n"
          "K80,resnet50,0,1,consolidated,1\n", 2 },
        { "gpu_type,model,batch_size,num_gpus,placement,throughput\n"
          "K80,resnet50,16,1,consolidated,0\n", 2 },
        { "gpu_type,model,batch_size,placement,throughput\n", 1 },
        { "gpu_type,model,batch_size,num_gpus,placement,throughput\n"
          "K80,resnet50,16,1\n", 2 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *path = write_tmp("bad.csv", bad[i].text);
        struct mdl_rt_data d;
        struct dl_error err = { 0 };
        int rc = mdl_rt_data_load(path, &z, &d, &err);
        cr_assert_eq(rc, DL_EINPUT, "case %zu", i);
        cr_assert_eq(err.line, bad[i].line, "case %zu: %s:%ld: %s", i,
                     err.file, err.line, err.msg);
        cr_assert_str_eq(err.file, path);
        cr_assert_eq(d.n, 0);
        unlink(path);
    }
    /* unknown models and GPU types are skipped and counted */
    const char *path = write_tmp("skip.csv",
        "gpu_type,model,batch_size,num_gpus,placement,throughput\n"
        "K80,resnet50,16,1,consolidated,2\nB200,resnet50,16,1,consolidated,9\n"
        "K80,nosuch,16,1,consolidated,2\n");
    struct mdl_rt_data d;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_rt_data_load(path, &z, &d, &err), 0);
    cr_assert_eq(d.n, 1);
    cr_assert_eq(d.skipped, 2);
    mdl_rt_data_free(&d);
    unlink(path);
}

/* ---- the fitted runtime predictor (models/rtpred.c, `dlsim fit runtime
 * --form loglinear`) */

/* Synthetic rows that follow a log-linear law exactly: the fit recovers
 * its coefficients, and every leave-one-model-out fit does too, so the
 * held-out error is 0 (to rounding). */
Test(runtime, predictor_recovers_synthetic)
{
    static const double coef[MDL_RTP_NFEAT] = { -1.5, 0.4, 0.2, 0.3, -0.25,
                                                0.1, -0.3, 0.35 };
    static const char *const gpus[] = { "K80", "P100", "V100", "T4", "A100" };
    static const uint32_t ns[] = { 1, 2, 4, 8 };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fputs("gpu_type,model,batch_size,num_gpus,placement,throughput\n", f);
    uint32_t fams = 0, last = SIM_NONE, rows = 0;
    for (uint32_t i = 0; i < z.nmodels && fams < 6; i++) {
        const struct mdl_model *m = &z.models[i];
        if (!(m->flops > 0) || !(m->params > 0))
            continue;
        fams += m->family != last;
        last = m->family;
        for (size_t g = 0; g < 5; g++)
            for (size_t k = 0; k < 4; k++)
                for (int sp = 0; sp < 2 - (ns[k] == 1); sp++) {
                    double x[MDL_RTP_NFEAT];
                    cr_assert_eq(mdl_rtp_features(m->flops, m->params,
                                                  m->batch_size,
                                                  mdl_zoo_gpu(&z, gpus[g]),
                                                  ns[k], sp, x), 0);
                    fprintf(f, "%s,%s,%u,%u,%s,%.17g\n", gpus[g], m->name,
                            m->batch_size, ns[k], sp ? "spread" : "consolidated",
                            1 / mdl_rtp_iter_s(coef, x));
                    rows++;
                }
    }
    fclose(f);
    const char *path = write_tmp("rtp.csv", buf);
    free(buf);
    struct mdl_rt_data d;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_rt_data_load(path, &z, &d, &err), 0, "%s", err.msg);
    unlink(path);
    cr_assert_eq(d.n, rows);
    struct mdl_rtp p = { 0 };
    struct mdl_rtp_cv cv;
    cr_assert_eq(mdl_rtp_cv_lomo(&z, &d, &cv, &p), 0);
    cr_expect_eq(cv.nmodels, 6);
    cr_expect_eq(p.nhold, 6);
    cr_expect_eq(cv.n, rows);
    cr_expect_lt(cv.rmsle, 1e-9, "LOMO RMSLE %g", cv.rmsle);
    cr_expect_lt(cv.train_rmsle, 1e-9);
    for (int i = 0; i < MDL_RTP_NFEAT; i++) {
        cr_expect_float_eq(p.coef[i], coef[i], 1e-7, "coef %d: %.17g", i, p.coef[i]);
        for (uint32_t h = 0; h < p.nhold; h++)
            cr_expect_float_eq(p.hold[h].coef[i], coef[i], 1e-7);
    }
    /* a held-out fit is found by the model's normal form */
    cr_expect_eq(mdl_rtp_coef(&p, p.hold[1].model, true), p.hold[1].coef);
    cr_expect_eq(mdl_rtp_coef(&p, p.hold[1].model, false), p.coef);
    cr_expect_eq(mdl_rtp_coef(&p, "no-such-model", true), p.coef);
    mdl_rtp_cv_free(&cv);
    mdl_rtp_free(&p);
    mdl_rt_data_free(&d);
}

/* The zoo's measured table: the leave-one-model-out error models/FIT.md
 * reports, reproducible, and models/runtime_fit.yaml is the command's
 * output (the source and zoo lines aside). */
#define RTP_LOMO_RMSLE 0.5697
#define RTP_LOMO_MDAPE 0.3830
#define RTP_ROOF_RMSLE 0.6266

Test(runtime, predictor_on_the_zoo_table)
{
    struct mdl_rt_data d;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_rt_data_load(ZOO "/throughput.csv", &z, &d, &err), 0,
                 "%s", err.msg);
    struct mdl_rtp p = { 0 };
    struct mdl_rtp_cv cv;
    cr_assert_eq(mdl_rtp_cv_lomo(&z, &d, &cv, &p), 0);
    cr_log_info("LOMO RMSLE %.4f, MdAPE %.4f, p90 %.4f; roofline %.4f",
                cv.rmsle, cv.mdape, cv.p90, cv.base_rmsle);
    cr_expect_eq(cv.nrows, 579);
    cr_expect_eq(cv.nmodels, 15);
    cr_expect_float_eq(cv.rmsle, RTP_LOMO_RMSLE, 5e-5);
    cr_expect_float_eq(cv.mdape, RTP_LOMO_MDAPE, 5e-5);
    cr_expect_float_eq(cv.base_rmsle, RTP_ROOF_RMSLE, 5e-5);
    cr_expect_lt(cv.rmsle, cv.base_rmsle);
    mdl_rtp_cv_free(&cv);
    mdl_rtp_free(&p);
    mdl_rt_data_free(&d);
    const char *out = tu_tmp_path("rtp-shipped.yaml");
    char *argv[] = { "fit", "runtime", ZOO "/throughput.csv", "--zoo", ZOO,
                     "--form", "loglinear", "-o", (char *)out, NULL };
    cr_assert_eq(tu_main(9, argv), 0);
    char *got = tu_slurp(out, NULL), *want = tu_slurp(ZOO "/runtime_fit.yaml", NULL);
    char *gs = strstr(got, "\nn_rows: "), *ws = strstr(want, "\nn_rows: ");
    cr_assert(gs && ws);
    cr_assert_str_eq(gs, ws);
    /* and it reads back to the same coefficients */
    struct mdl_rtp a, b;
    cr_assert_eq(mdl_rtp_load(out, &a, &err), 0, "%s", err.msg);
    cr_assert_eq(mdl_rtp_load(ZOO "/runtime_fit.yaml", &b, &err), 0, "%s", err.msg);
    cr_expect_eq(a.nhold, 15);
    cr_expect_eq(memcmp(a.coef, b.coef, sizeof a.coef), 0);
    mdl_rtp_free(&a);
    mdl_rtp_free(&b);
    free(got), free(want);
}

Test(runtime, predictor_file_errors)
{
    static const struct { const char *yaml, *says; } bad[] = {
        { "kind: runtime\n", "kind: expected 'runtime_predictor'" },
        { "kind: runtime_predictor\nfeatures: [intercept]\ncoef: [1]\n",
          "2:11: features: expected [intercept, log_t_roof" },
        { "kind: runtime_predictor\nfeatures: [intercept, log_t_roof, "
          "log_t_compute, log_t_memory, log_peak_tflops, log_mem_bw_gbs, "
          "log_gpus, spread]\ncoef: [1, 2]\n", "3:7: coef: expected a list of 8" },
        { "kind: runtime_predictor\nfeatures: [intercept, log_t_roof, "
          "log_t_compute, log_t_memory, log_peak_tflops, log_mem_bw_gbs, "
          "log_gpus, spread]\ncoef: [1, 2, 3, 4, 5, 6, 7, 8]\nwhat: 1\n",
          "4:1: unknown key 'what'" },
        { "kind: runtime_predictor\nfeatures: [intercept, log_t_roof, "
          "log_t_compute, log_t_memory, log_peak_tflops, log_mem_bw_gbs, "
          "log_gpus, spread]\ncoef: [1, 2, 3, 4, 5, 6, 7, 8]\nholdout:\n"
          "  - {model: ResNet-50, coef: [1, 2, 3, 4, 5, 6, 7, 8]}\n"
          "  - {model: resnet50, coef: [1, 2, 3, 4, 5, 6, 7, 8]}\n",
          "6:5: holdout: model 'resnet50' listed twice" },
        { "kind: runtime_predictor\n", "features and coef are required" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct mdl_rtp p;
        struct dl_error err = { 0 };
        const char *path = write_tmp("bad.yaml", bad[i].yaml);
        cr_expect_eq(mdl_rtp_load(path, &p, &err), DL_EINPUT, "case %zu", i);
        unlink(path);
        char msg[600];
        snprintf(msg, sizeof msg, "%ld:%ld: %s", err.line, err.col, err.msg);
        cr_expect(strstr(msg, bad[i].says), "case %zu: %s", i, msg);
    }
}

/* predict.runtime: fitted in a run: a job's predicted run time on n GPUs
 * of t is its work in iterations (true reference throughput x duration)
 * times the predictor's seconds per iteration there, from the fit that
 * left its model out; jobs the predictor cannot predict are counted and
 * named in a warning. */
Test(runtime, fitted_predictions_in_a_run)
{
    struct mdl_spec s;
    tu_spec_from(&s, "fit.yaml", "kind: models\npredict: {runtime: fitted}\n");
    cr_assert(s.rt_fitted && s.rt_holdout && s.rtp.nhold == 15);
    struct trace t;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,model\n"
                 "a,0,2,100,resnet50\nb,0,1,50,nosuchmodel\nc,0,1,50,\n");
    struct cluster c;
    clu_init(&c, "two");
    uint32_t v100 = clu_add_type(&c, "V100", 32, 1.0);
    uint32_t k80 = clu_add_type(&c, "K80", 12, 0.3);
    clu_add_nodes(&c, 1, 4, v100, NULL);
    clu_add_nodes(&c, 1, 4, k80, NULL);
    clu_finish(&c);
    struct dl_diag diag;
    dl_diag_init(&diag, NULL, false);
    struct mdl_perf *p = mdl_perf_new(&s, &c, &t, 1, &diag);
    cr_expect_str_eq(mdl_perf_predictor(p), "fitted");
    cr_expect_eq(p->unpredicted, 2);
    bool warned = false;
    for (uint32_t i = 0; i < diag.nkept; i++)
        warned |= strstr(diag.kept[i], "predict.runtime: fitted cannot predict 2 "
                         "job(s)") && strstr(diag.kept[i], "'nosuchmodel'");
    cr_expect(warned);
    cr_expect(mdl_perf_predicted(p, 0));
    cr_expect(!mdl_perf_predicted(p, 1));
    const struct mdl_model *m = mdl_zoo_find(&s.zoo, "resnet50");
    cr_assert(m);
    const double *coef = mdl_rtp_coef(&s.rtp, "resnet50", true);
    cr_expect_neq(coef, s.rtp.coef);
    double ref = mdl_rt_throughput(&s.zoo, &s.rt, m->name, m->batch_size,
                                   "V100", 2, false);
    for (uint32_t n = 1; n <= 2; n++) {
        double x[MDL_RTP_NFEAT];
        cr_assert_eq(mdl_rtp_features(m->flops, m->params, m->batch_size,
                                      mdl_zoo_gpu(&s.zoo, "K80"), n, false, x), 0);
        double want = (double)US(100) * ref * mdl_rtp_iter_s(coef, x);
        double got = n == 2 ? mdl_perf_pred_runtime(p, 0, k80, false)
                            : mdl_perf_pred_runtime_n(p, 0, k80, 1, false);
        cr_expect_float_eq(got, want, 1e-9 * want, "n=%u: %.17g vs %.17g", n,
                           got, want);
    }
    /* the truth is untouched */
    cr_expect_float_eq(mdl_perf_rate(p, 0, v100, false), 1.0, 1e-12);
    mdl_perf_free(p);
    dl_diag_free(&diag);
    /* runtime_holdout: false uses the fit on every row */
    mdl_spec_free(&s);
    tu_spec_from(&s, "fit2.yaml", "kind: models\npredict: {runtime: fitted, "
                                  "runtime_holdout: false}\n");
    p = mdl_perf_new(&s, &c, &t, 1, NULL);
    m = mdl_zoo_find(&s.zoo, "resnet50");       /* the new spec's zoo */
    double x[MDL_RTP_NFEAT];
    mdl_rtp_features(m->flops, m->params, m->batch_size,
                     mdl_zoo_gpu(&s.zoo, "V100"), 2, false, x);
    double want = (double)US(100) * ref * mdl_rtp_iter_s(s.rtp.coef, x);
    cr_expect_float_eq(mdl_perf_pred_runtime(p, 0, v100, false), want, 1e-9 * want);
    mdl_perf_free(p);
    mdl_spec_free(&s);
    trc_free(&t);
    clu_free(&c);
}
