/*
 * tests/test_fit.c - `dlsim fit` (models/fit/fit.c) and the JSON reader
 * (sim/base/json.c): located errors on malformed input, the Gavel converter
 * on a hand-made fixture (exact rows) and on the real file, recovery of
 * known parameters from synthetic data, and determinism.
 *
 * cwd is tests/: fixtures are in data/, the zoo in ../models, the shared
 * public data (when present) in ../../shared/data.
 */
#include "tests/testutil.h"
#include "models/perf.h"
#include "sim/base/formats.h"
#include "models/fit/fit.h"
#include "sim/cli/cli.h"

#include <dirent.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GAVEL "../../shared/data/perf/gavel/physical_cluster_throughputs.json"
/* models/util_train.csv, 5 folds seed 1 and leave-one-model-out, ridge
 * 0.1: RMSLE on log1p(util) and on log1p(100 util) (models/FIT.md) */
#define UTIL_KF 0.0563254
#define UTIL_KF_PCT 0.1560027
#define UTIL_LOMO 0.1312324
#define UTIL_LOMO_PCT 0.3346261

/* ------------------------------------------------------------ helpers */

TestSuite(json, .fini = tu_tmp_cleanup);
TestSuite(convert, .fini = tu_tmp_cleanup);
TestSuite(gavel_real, .fini = tu_tmp_cleanup);
TestSuite(slowdown, .fini = tu_tmp_cleanup);
TestSuite(util, .fini = tu_tmp_cleanup);

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    size_t got;
    while ((got = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2)
            s = realloc(s, cap *= 2);
    }
    fclose(f);
    s[n] = '\0';
    return s;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* Data lines of a file (comments dropped), joined with '\n'. */
static char *data_lines(const char *path)
{
    char *s = slurp(path), *o = malloc(strlen(s) + 1), *w = o;
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n"))
        if (line[0] != '#')
            w += sprintf(w, "%s\n", line);
    *w = '\0';
    free(s);
    return o;
}

static int json_err(const char *text, long *line, long *col)
{
    struct dl_json_doc d;
    struct dl_error err = { 0 };
    int rc = dl_json_parse("t.json", text, strlen(text), &d, &err);
    *line = err.line;
    *col = err.col;
    if (!rc)
        dl_json_free(&d);
    else
        cr_assert_str_eq(err.file, "t.json");
    return rc;
}

/* ------------------------------------------------------------ JSON */

Test(json, good)
{
    const char *text =
        "{\"a\": [1, -2.5e1, 0, true, false, null],\n"
        " \"s\": \"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\", \"o\": {}, \"e\": []}";
    struct dl_json_doc d;
    struct dl_error err = { 0 };
    cr_assert_eq(dl_json_parse("t.json", text, strlen(text), &d, &err), 0,
                 "%ld:%ld %s", err.line, err.col, err.msg);
    const struct dl_json *a = dl_json_get(d.root, "a");
    cr_assert_eq(a->type, DL_JSON_ARRAY);
    cr_assert_eq(a->n, 6);
    cr_assert_eq(a->kid[1].num, -25.0);
    cr_assert_eq(a->kid[3].type, DL_JSON_TRUE);
    cr_assert_eq(a->kid[5].type, DL_JSON_NULL);
    const struct dl_json *s = dl_json_get(d.root, "s");
    cr_assert_str_eq(s->str, "x\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
    cr_assert_eq(s->line, 2);
    cr_assert_eq(s->col, 7);
    cr_assert_eq(s->key_col, 2);
    cr_assert_eq(dl_json_get(d.root, "o")->n, 0);
    cr_assert_null(dl_json_get(d.root, "zz"));
    dl_json_free(&d);
}

Test(json, malformed_located)
{
    static const struct {
        const char *text;
        long line, col;
    } cases[] = {
        { "", 1, 1 },
        { "   \n  ", 2, 3 },
        { "{\"a\": 1,}", 1, 9 },
        { "[1, 2,]", 1, 7 },
        { "[1, 2", 1, 6 },
        { "{\"a\":1,\"a\":2}", 1, 8 },
        { "\n  [01]", 2, 5 },
        { "[\"ab\ncd\"]", 1, 5 },
        { "[1] x", 1, 5 },
        { "[nul]", 1, 2 },
        { "[\"\\ud800\"]", 1, 3 },
        { "[\"\\u0000\"]", 1, 3 },
        { "[\"\\x\"]", 1, 4 },
        { "[\"\\u12\"]", 1, 7 },
        { "[1e999]", 1, 2 },
        { "{\"a\" 1}", 1, 6 },
        { "{a: 1}", 1, 2 },
        { "[-]", 1, 3 },
        { "[1.]", 1, 4 },
        { "[NaN]", 1, 2 },
        { "[\"abc", 1, 6 },
        { "{\"k\": [1 2]}", 1, 10 },
        { "\xff", 1, 1 },
        { "[1]\n\n  ]", 3, 3 },
        { "'a'", 1, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long line, col;
        cr_assert_eq(json_err(cases[i].text, &line, &col), DL_EINPUT,
                     "case %zu parsed", i);
        cr_expect(line == cases[i].line && col == cases[i].col,
                  "case %zu: got %ld:%ld, want %ld:%ld", i, line, col,
                  cases[i].line, cases[i].col);
    }
}

Test(json, depth_and_nul_bounded)
{
    char deep[300];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    long line, col;
    cr_assert_eq(json_err(deep, &line, &col), DL_EINPUT);
    cr_assert_eq(col, DL_JSON_MAX_DEPTH + 1);
    /* an embedded NUL is a byte like any other: an error, not the end */
    struct dl_json_doc d;
    struct dl_error err = { 0 };
    cr_assert_eq(dl_json_parse("t.json", "[1]\0x", 5, &d, &err), DL_EINPUT);
    cr_assert_eq(err.col, 4);
    /* every prefix of a valid document fails cleanly or parses */
    const char *doc = "{\"a\": [1.5e-3, \"\\u00e9\", {\"b\": null}], \"c\": true}";
    for (size_t n = 0; n < strlen(doc); n++) {
        int rc = dl_json_parse("t.json", doc, n, &d, &err);
        cr_assert_eq(rc, DL_EINPUT, "prefix %zu", n);
    }
}

Test(json, missing_file_is_io)
{
    struct dl_json_doc d;
    struct dl_error err = { 0 };
    cr_assert_eq(dl_json_load("data/no-such.json", &d, &err), DL_EIO);
}

/* ------------------------------------------------------------ converter */

Test(convert, fixture_exact_rows)
{
    struct dl_error err = { 0 };
    const char *prefix = tu_tmp_path("tiny");
    int rc = mdl_fit_convert_gavel("data/gavel_tiny.json", prefix, NULL, &err);
    cr_assert_eq(rc, 0, "%s:%ld:%ld: %s", err.file, err.line, err.col, err.msg);
    char *rt = data_lines(tu_tmp_path("tiny-runtime.csv"));
    cr_assert_str_eq(rt,
        "gpu_type,model,batch_size,num_gpus,placement,throughput\n"
        "K80,a3c,1,1,consolidated,2\n"
        "K80,lstm,5,1,consolidated,10\n"
        "K80,resnet18,16,1,consolidated,4\n"
        "K80,resnet18,32,2,consolidated,3\n"
        "K80,resnet18,32,2,spread,2.5\n"
        "P100,cyclegan,1,1,consolidated,0.5\n");
    char *pr = data_lines(tu_tmp_path("tiny-pairs.csv"));
    cr_assert_str_eq(pr,
        "gpu_type,job_a,job_b,rate_a,rate_b\n"
        "K80,a3c@1,lstm@5,0.5,1\n"
        "K80,lstm@5,resnet18@16,0.5,0.75\n"
        "K80,resnet18@16,resnet18@16,0.5,0.5\n");
    free(rt);
    free(pr);
    /* no temporary files left behind */
    cr_assert_eq(tu_tmp_files(false), 2);
}

Test(convert, bad_inputs_located)
{
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_fit_convert_gavel("data/gavel_badkey.json",
                                       tu_tmp_path("bad"), NULL, &err), DL_EINPUT);
    cr_assert_str_eq(err.file, "data/gavel_badkey.json");
    cr_assert_eq(err.line, 4);
    cr_assert_eq(err.col, 30, "col %ld: %s", err.col, err.msg);
    cr_assert_eq(mdl_fit_convert_gavel("data/gavel_badpair.json",
                                       tu_tmp_path("bad"), NULL, &err), DL_EINPUT);
    cr_assert_eq(err.line, 5);
    cr_assert_eq(err.col, 21, "col %ld: %s", err.col, err.msg);
    cr_assert_neq(access(tu_tmp_path("bad-runtime.csv"), F_OK), 0);
    const char *p = tu_tmp_path("badroot.json");
    spit(p, "{\"a100\": {}}");
    cr_assert_eq(mdl_fit_convert_gavel(p, tu_tmp_path("bad"), NULL, &err), DL_EINPUT);
    cr_assert_eq(err.line, 1);
    cr_assert_eq(err.col, 2);
    spit(p, "{\"k80\": {\"('A3C', 1)\": {\"null\": -1}}}");
    cr_assert_eq(mdl_fit_convert_gavel(p, tu_tmp_path("bad"), NULL, &err), DL_EINPUT);
    cr_assert_eq(err.col, 33, "col %ld: %s", err.col, err.msg);
    spit(p, "{\"k80\": {\"('A3C', 1)\": {\"nul\": 1}}}");
    cr_assert_eq(mdl_fit_convert_gavel(p, tu_tmp_path("bad"), NULL, &err), DL_EINPUT);
}

/* ------------------------------------------------------------ real Gavel */

static uint32_t gpu_index(const struct mdl_pairs *ps, const char *name)
{
    for (uint32_t g = 0; g < ps->ngpus; g++)
        if (!strcmp(ps->gpus[g], name))
            return g;
    cr_assert_fail("GPU type %s not in the pairs", name);
    return 0;
}

Test(gavel_real, converter_matches_zoo_and_sp_beats_constant, .timeout = 60)
{
    if (access(GAVEL, R_OK))
        cr_skip("no shared data at " GAVEL);
    struct dl_error err = { 0 };
    int rc = mdl_fit_convert_gavel(GAVEL, tu_tmp_path("gavel"), NULL, &err);
    cr_assert_eq(rc, 0, "%s:%ld:%ld: %s", err.file, err.line, err.col, err.msg);

    /* every runtime row is the zoo's figure (models/ZOO.md conventions) */
    struct mdl_zoo z;
    cr_assert_eq(mdl_zoo_load("../models", &z, &err), 0, "%s", err.msg);
    char *rt = data_lines(tu_tmp_path("gavel-runtime.csv"));
    int rows = 0;
    for (char *line = strtok(rt, "\n"); line; line = strtok(NULL, "\n")) {
        char gpu[16], model[64], place[16];
        unsigned batch, n;
        double thr;
        if (sscanf(line, "%15[^,],%63[^,],%u,%u,%15[^,],%lf", gpu, model,
                   &batch, &n, place, &thr) != 6)
            continue;   /* header */
        double want = mdl_zoo_throughput(&z, model, batch, gpu, n,
                                         !strcmp(place, "spread"));
        cr_expect(fabs(want - thr) <= 1e-6 * thr, "%s: zoo has %g", line, want);
        rows++;
    }
    free(rt);
    mdl_zoo_free(&z);
    cr_assert_gt(rows, 300);

    struct mdl_pairs ps;
    cr_assert_eq(mdl_pairs_load(tu_tmp_path("gavel-pairs.csv"), &ps, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(ps.ngpus, 3);
    static const char *const types[] = { "K80", "P100", "V100" };
    double sp[3], cst[3];
    for (int t = 0; t < 3; t++) {
        uint32_t g = gpu_index(&ps, types[t]);
        double h;
        uint32_t n = mdl_fit_sd_cv(&ps, g, MDL_SD_SENS_PRESSURE, 5, 1, &sp[t]);
        cr_assert_gt(n, 200);
        cr_assert_gt(mdl_fit_sd_cv(&ps, g, MDL_SD_CONSTANT, 5, 1, &cst[t]), 0);
        cr_assert_eq(mdl_fit_sd_cv(&ps, g, MDL_SD_HINGE, 5, 1, &h), 0,
                     "hinge needs util columns, Gavel has none");
        cr_log_info("Gavel %s: %u pairs, CV MAE sensitivity_pressure %.4f, "
                    "constant %.4f", types[t], n, sp[t], cst[t]);
        /* issue 3: beats the constant model on every GPU type */
        cr_expect_lt(sp[t], cst[t], "%s", types[t]);
    }
    /* issue 3: <= 0.05 on K80 and P100.  With rate = exp(-s_x p_y)
     * (models/FIT.md) K80 0.0314 and P100 0.0423 with 5 folds, seed 1
     * (the linear form 1 - s_x p_y had 0.0353 and 0.0541). */
    cr_expect_leq(sp[0], 0.05, "K80 MAE %.4f", sp[0]);
    cr_expect_leq(sp[1], 0.05, "P100 MAE %.4f", sp[1]);
    /* regression guards at the documented figures (FIT.md table) */
    cr_expect_float_eq(sp[0], 0.0314, 5e-4, "K80 %.4f", sp[0]);
    cr_expect_float_eq(sp[1], 0.0423, 5e-4, "P100 %.4f", sp[1]);
    cr_expect_float_eq(sp[2], 0.1098, 5e-4, "V100 %.4f", sp[2]);
    mdl_pairs_free(&ps);
}

/* ------------------------------------------------------------ slowdown */

Test(slowdown, fixture_forms_by_hand)
{
    struct mdl_pairs ps;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_pairs_load("data/pairs_tiny.csv", &ps, &err), 0,
                 "%ld:%ld %s", err.line, err.col, err.msg);
    cr_assert_eq(ps.n, 5);
    cr_assert_eq(ps.ngpus, 2);
    cr_assert_eq(ps.njobs, 3);
    uint32_t g1[] = { 0, 1, 2 }, g2[] = { 3, 4 };
    struct mdl_sd_params m;
    double ra, rb;
    /* constant: the mean of all rates */
    cr_assert_eq(mdl_fit_sd(&ps, MDL_SD_CONSTANT, g1, 3, &m), 0);
    cr_assert_float_eq(m.rate, (0.8 * 2 + 2 + 0.5 * 2) / 6, 1e-12);
    /* hinge: alpha = sum x (ya + yb) / (2 sum x^2), x = util sum - 1 */
    cr_assert_eq(mdl_fit_sd(&ps, MDL_SD_HINGE, g1, 3, &m), 0);
    cr_assert_float_eq(m.alpha, 1.0, 1e-12);
    mdl_fit_sd_predict(&m, &ps.p[0], &ra, &rb);
    cr_assert_float_eq(ra, 0.8, 1e-12);
    mdl_fit_sd_predict(&m, &ps.p[1], &ra, &rb);
    cr_assert_float_eq(ra, 1.0, 1e-12);
    /* timeshare: util_x / (util_a + util_b) */
    cr_assert_eq(mdl_fit_sd(&ps, MDL_SD_TIMESHARE, g1, 3, &m), 0);
    mdl_fit_sd_predict(&m, &ps.p[2], &ra, &rb);
    cr_assert_float_eq(ra, 0.6, 1e-12);
    cr_assert_float_eq(rb, 0.4, 1e-12);
    /* G2 has no util: hinge and timeshare are not applicable */
    cr_assert_not(mdl_fit_sd_applicable(&ps, MDL_SD_HINGE, g2, 2));
    cr_assert_eq(mdl_fit_sd(&ps, MDL_SD_TIMESHARE, g2, 2, &m), -1);
    double mae;
    cr_assert_eq(mdl_fit_sd_cv(&ps, 1, MDL_SD_HINGE, 5, 1, &mae), 0);
    cr_assert(isnan(mae));
    cr_assert_eq(mdl_fit_sd_cv(&ps, 0, MDL_SD_HINGE, 5, 1, &mae), 3);
    cr_assert(isfinite(mae));
    /* sensitivity_pressure: unseen jobs fall back to the means */
    cr_assert_eq(mdl_fit_sd(&ps, MDL_SD_SENS_PRESSURE, g2, 2, &m), 0);
    cr_assert(isnan(m.s[2]));                   /* z only on G1 */
    struct mdl_pair q = { .a = 2, .b = 2 };
    mdl_fit_sd_predict(&m, &q, &ra, &rb);
    cr_assert_float_eq(ra, exp(-m.mean_s * m.mean_p), 1e-12);
    mdl_fit_sd_free(&m);
    mdl_pairs_free(&ps);

    cr_assert_eq(mdl_pairs_load("data/pairs_bad.csv", &ps, &err), DL_EINPUT);
    cr_assert_eq(err.line, 3);
    cr_assert_eq(err.col, 8);
}

/* Rates exp(-s_x p_y) from known s and p over all unordered pairs of J
 * jobs. */
static void synth_pairs(const char *path, int J, double *s, double *p)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    for (int j = 0; j < J; j++) {
        s[j] = 0.2 + 0.6 * gsl_rng_uniform(r);
        p[j] = 0.3 + 0.9 * gsl_rng_uniform(r);
    }
    gsl_rng_free(r);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("gpu_type,job_a,job_b,rate_a,rate_b\n", f);
    for (int a = 0; a < J; a++)
        for (int b = a; b < J; b++)
            fprintf(f, "S,j%d,j%d,%.12g,%.12g\n", a, b, exp(-s[a] * p[b]),
                    exp(-s[b] * p[a]));
    fclose(f);
}

Test(slowdown, synthetic_recovered)
{
    enum { J = 12 };
    double s[J], p[J];
    const char *path = tu_tmp_path("synth-pairs.csv");
    synth_pairs(path, J, s, p);
    struct mdl_pairs ps;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_pairs_load(path, &ps, &err), 0, "%s", err.msg);
    uint32_t idx[J * (J + 1) / 2];
    for (uint32_t i = 0; i < ps.n; i++)
        idx[i] = i;
    struct mdl_sd_params m;
    cr_assert_eq(mdl_fit_sd(&ps, MDL_SD_SENS_PRESSURE, idx, ps.n, &m), 0);
    double mp = 0;
    for (int j = 0; j < J; j++)
        mp += p[j] / J;
    for (int j = 0; j < J; j++) {
        char name[8];
        snprintf(name, sizeof name, "j%d", j);
        uint32_t k = 0;
        while (strcmp(ps.jobs[k], name))
            k++;
        cr_expect_float_eq(m.s[k], s[j] * mp, 0.01, "s of %s", name);
        cr_expect_float_eq(m.p[k], p[j] / mp, 0.01, "p of %s", name);
    }
    mdl_fit_sd_free(&m);
    double mae, mc;
    mdl_fit_sd_cv(&ps, 0, MDL_SD_SENS_PRESSURE, 5, 3, &mae);
    mdl_fit_sd_cv(&ps, 0, MDL_SD_CONSTANT, 5, 3, &mc);
    cr_expect_lt(mae, 0.005, "CV MAE %g", mae);
    cr_expect_lt(mae, mc / 10);
    mdl_pairs_free(&ps);
}

Test(slowdown, command_deterministic_and_located)
{
    double s[10], p[10];
    const char *in = tu_tmp_path("det-pairs.csv");
    synth_pairs(in, 10, s, p);
    char a[512], b[512], c[512];
    snprintf(a, sizeof a, "%s", tu_tmp_path("det-a.yaml"));
    snprintf(b, sizeof b, "%s", tu_tmp_path("det-b.yaml"));
    snprintf(c, sizeof c, "%s", tu_tmp_path("det-c.yaml"));
    char *argv1[] = { "fit", "slowdown", (char *)in, "-o", a, "--seed", "5", NULL };
    char *argv2[] = { "fit", "slowdown", "--seed", "5", "-o", b, (char *)in, NULL };
    char *argv3[] = { "fit", "slowdown", (char *)in, "-o", c, "--form",
                      "constant", "--folds", "3", NULL };
    cr_assert_eq(tu_main(7, argv1), 0);
    cr_assert_eq(tu_main(7, argv2), 0);
    cr_assert_eq(tu_main(9, argv3), 0);
    char *ya = slurp(a), *yb = slurp(b), *yc = slurp(c);
    cr_assert_str_eq(ya, yb);
    cr_assert_not_null(strstr(ya, "form: sensitivity_pressure"));
    cr_assert_not_null(strstr(ya, "constant_rate: "));
    cr_assert_not_null(strstr(yc, "form: constant"));
    free(ya), free(yb), free(yc);
    char *bad[] = { "fit", "slowdown", "data/pairs_bad.csv", NULL };
    cr_assert_eq(tu_main(3, bad), 2);
    char *badform[] = { "fit", "slowdown", "data/pairs_tiny.csv", "--form", "hinge", NULL };
    cr_assert_eq(tu_main(5, badform), 2, "G2 has no util");
    char *unk[] = { "fit", "nosuch", NULL };
    cr_assert_eq(tu_main(2, unk), 2);
}

/* ------------------------------------------------------------ util */

Test(util, fixture_loads_and_bad_rows_located)
{
    struct mdl_util_data d;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_fit_util_load("data/util_tiny.csv", &d, &err), 0, "%s", err.msg);
    cr_assert_eq(d.n, 6);
    cr_assert_eq(d.r[2].x[0], 3e10);
    cr_assert_eq(d.nmodels, 3);
    cr_assert_eq(d.r[3].model, 1);
    cr_assert_eq(d.ngpus, 1);
    struct mdl_util_cv cv;
    cr_assert_eq(mdl_fit_util_cv(&d, 3, 1, 0.1, false, &cv), 0);
    cr_assert(isfinite(cv.rmsle) && isfinite(cv.base));
    cr_assert_eq(cv.n, 6);
    cr_assert_eq(mdl_fit_util_cv(&d, 0, 0, 0.1, true, &cv), 0);
    cr_assert_eq(cv.folds, 3);
    /* the percent scale is log1p(100 u): larger than the fraction scale's */
    cr_assert_gt(cv.rmsle_pct, cv.rmsle);
    mdl_fit_util_data_free(&d);
    const char *p = tu_tmp_path("util-bad.csv");
    spit(p, "model,batch_size,gpu_type,util,flops,params,conv_layers,"
            "linear_layers,activation_layers,other_layers\n"
            "a,1,G,0.5,1,1,1,1,1,1\n"
            "a,2,G,0.5,1,-1,1,1,1,1\n");
    cr_assert_eq(mdl_fit_util_load(p, &d, &err), DL_EINPUT);
    cr_assert_eq(err.line, 3);
    cr_assert_eq(err.col, 13);
    spit(p, "model,batch_size,gpu_type,util\n");
    cr_assert_eq(mdl_fit_util_load(p, &d, &err), DL_EINPUT);
    cr_assert_eq(err.line, 1);
}

Test(util, synthetic_log_linear_recovered)
{
    enum { N = 80 };
    const char *path = tu_tmp_path("util-synth.csv");
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("model,batch_size,gpu_type,util,flops,params,conv_layers,"
          "linear_layers,activation_layers,other_layers\n", f);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    for (int i = 0; i < N; i++) {
        double lf = 18 + 4 * gsl_rng_uniform(r), lp = 13 + 4 * gsl_rng_uniform(r);
        int conv = (int)gsl_rng_uniform_int(r, 60);
        int lin = (int)gsl_rng_uniform_int(r, 40), act = (int)gsl_rng_uniform_int(r, 40);
        int oth = (int)gsl_rng_uniform_int(r, 40);
        double u = 0.5 + 0.04 * (lf - 20) - 0.03 * (lp - 15) +
                   0.05 * (log1p(conv) - 2.5);
        fprintf(f, "m%d,1,A100,%.12g,%.12g,%.12g,%d,%d,%d,%d\n", i, u,
                expm1(lf), expm1(lp), conv, lin, act, oth);
    }
    gsl_rng_free(r);
    fclose(f);
    struct mdl_util_data d;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_fit_util_load(path, &d, &err), 0, "%s", err.msg);
    uint32_t idx[N];
    for (int i = 0; i < N; i++)
        idx[i] = (uint32_t)i;
    struct mdl_util_params m;
    cr_assert_eq(mdl_fit_util(&d, idx, N, 1e-8, &m), 0);
    cr_expect_float_eq(m.coef[0] / m.scale[0], 0.04, 1e-4);
    cr_expect_float_eq(m.coef[1] / m.scale[1], -0.03, 1e-4);
    cr_expect_float_eq(m.coef[2] / m.scale[2], 0.05, 1e-4);
    for (int k = 3; k < 6; k++)
        cr_expect_float_eq(m.coef[k] / m.scale[k], 0, 1e-4);
    struct mdl_util_cv cv;
    cr_assert_eq(mdl_fit_util_cv(&d, 5, 1, 0.1, false, &cv), 0);
    double e = cv.rmsle, eb = cv.base;
    cr_log_info("synthetic util: RMSLE %.5f, mean baseline %.5f", e, eb);
    cr_expect_lt(e, 0.01);
    cr_expect_lt(e, eb / 5);
    /* the command writes a model and is deterministic */
    char a[512], b[512];
    snprintf(a, sizeof a, "%s", tu_tmp_path("util-a.yaml"));
    snprintf(b, sizeof b, "%s", tu_tmp_path("util-b.yaml"));
    char *argv1[] = { "fit", "util", (char *)path, "-o", a, NULL };
    char *argv2[] = { "fit", "util", "-o", b, (char *)path, NULL };
    cr_assert_eq(tu_main(5, argv1), 0);
    cr_assert_eq(tu_main(5, argv2), 0);
    char *ya = slurp(a), *yb = slurp(b);
    cr_assert_str_eq(ya, yb);
    cr_assert_not_null(strstr(ya, "kind: util"));
    free(ya), free(yb);
    mdl_fit_util_data_free(&d);
}

/* The shipped training file (models/util_train.csv, MISO's A100
 * measurements with the measured programs' graph features, written by
 * scripts/util-data.py): its rows of zoo models are the zoo's own (same
 * utilization as util.csv, same features as zoo.csv), its cross-validated
 * errors are the ones pinned in models/FIT.md and recorded in the shipped
 * models/util.yaml, and that file is exactly what `dlsim fit util` writes
 * from it. */
Test(util, shipped_training_file)
{
    struct mdl_zoo z;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_zoo_load("../models", &z, &err), 0, "%s", err.msg);
    struct mdl_util_data d;
    cr_assert_eq(mdl_fit_util_load("../models/util_train.csv", &d, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(d.n, 33);
    cr_assert_eq(d.nmodels, 9);
    cr_assert_eq(d.ngpus, 1);
    uint32_t joined = 0;
    for (uint32_t i = 0; i < z.nutils; i++) {
        const struct mdl_model *m = &z.models[z.utils[i].model];
        uint32_t k = 0;         /* names in normal form, as the zoo's */
        while (k < d.n && (strcmp(d.models[d.r[k].model], z.family_keys[m->family]) ||
                           d.r[k].x[0] != m->flops))
            k++;
        cr_assert_lt(k, d.n, "%s@%u is not in util_train.csv", m->name,
                     m->batch_size);
        const struct mdl_util_row *r = &d.r[k];
        cr_assert_eq(r->util, z.utils[i].util, "%s@%u", m->name, m->batch_size);
        const double x[6] = { m->flops, m->params, m->conv_layers,
                              m->linear_layers, m->activation_layers,
                              m->other_layers };
        for (int f = 0; f < 6; f++)
            cr_assert_eq(r->x[f], x[f], "%s@%u feature %d", m->name,
                         m->batch_size, f);
        joined++;
    }
    cr_assert_eq(joined, 4);
    /* the cross-validated errors (models/FIT.md) */
    struct mdl_util_cv kf, lomo;
    cr_assert_eq(mdl_fit_util_cv(&d, 5, 1, 0.1, false, &kf), 0);
    cr_assert_eq(mdl_fit_util_cv(&d, 0, 0, 0.1, true, &lomo), 0);
    cr_log_info("util_train.csv 5-fold RMSLE %.4f (percent %.4f), mean %.4f "
                "(%.4f); leave-one-model-out %.4f (%.4f), mean %.4f (%.4f)",
                kf.rmsle, kf.rmsle_pct, kf.base, kf.base_pct, lomo.rmsle,
                lomo.rmsle_pct, lomo.base, lomo.base_pct);
    cr_expect_float_eq(kf.rmsle, UTIL_KF, 5e-5);
    cr_expect_float_eq(kf.rmsle_pct, UTIL_KF_PCT, 5e-5);
    cr_expect_float_eq(lomo.rmsle, UTIL_LOMO, 5e-5);
    cr_expect_float_eq(lomo.rmsle_pct, UTIL_LOMO_PCT, 5e-5);
    cr_expect_lt(kf.rmsle, kf.base);
    /* models/util.yaml is the command's output (the source line aside) */
    const char *out = tu_tmp_path("util-shipped.yaml");
    char *argv[] = { "fit", "util", "../models/util_train.csv", "-o",
                     (char *)out, NULL };
    cr_assert_eq(tu_main(5, argv), 0);
    char *got = slurp(out), *want = slurp("../models/util.yaml");
    char *gs = strstr(got, "\nsource: "), *ws = strstr(want, "\nsource: ");
    cr_assert(gs && ws);
    cr_assert_str_eq(strchr(gs + 1, '\n'), strchr(ws + 1, '\n'));
    free(got), free(want);
    mdl_fit_util_data_free(&d);
    mdl_zoo_free(&z);
}

/* Content errors name the file (#13): a header and no rows, a NUL byte,
 * an endless line. */
Test(slowdown, empty_and_binary_inputs_are_located)
{
    tu_tmp_file("h.csv", "gpu_type,job_a,job_b,rate_a,rate_b\n");
    cr_expect_eq(tu_dlsim("fit slowdown h.csv -o s.yaml"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "h.csv: no pairs"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("s.yaml"));
    cr_expect_eq(tu_dlsim("fit slowdown /dev/zero -o s.yaml"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "/dev/zero:1:1: NUL byte"), "%s", tu_out);
    cr_expect_eq(tu_dlsim("fit util /dev/urandom -o s.yaml"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "/dev/urandom:"), "%s", tu_out);
    /* a byte order mark before the header is skipped */
    char cwd[512], cmd[1200];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(cmd, sizeof cmd, "cd '%s' && printf '\\357\\273\\277' > b.csv && "
             "cat '%s/data/pairs_tiny.csv' >> b.csv", tu_tmp_dir(), cwd);
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(tu_dlsim("fit slowdown b.csv -o b.yaml"), 0, "%s", tu_out);
}
