/*
 * tests/test_sdfile.c - the model files read back for runs (models/sdfile.c):
 * `dlsim fit slowdown -o` and `dlsim fit util -o` reload to predictions
 * identical to the fitter's, bit for bit; hand-computed k-job rates of
 * every form; job and GPU type lookup; one located error per validation
 * rule.
 *
 * cwd is tests/: fixtures are in data/, the shared public data (when
 * present) in ../../shared/data.
 */
#include "tests/testutil.h"
#include "models/perf.h"
#include "models/fit/fit.h"
#include "sim/cli/cli.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GAVEL "../../shared/data/perf/gavel/physical_cluster_throughputs.json"

/* ------------------------------------------------------------ helpers */

TestSuite(sdfile, .fini = tu_tmp_cleanup);
TestSuite(sdrate);
TestSuite(utilfile, .fini = tu_tmp_cleanup);

/* Indices of the pairs of GPU type g. */
static uint32_t of_type(const struct mdl_pairs *ps, uint32_t g, uint32_t *idx)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ps->n; i++)
        if (ps->p[i].gpu == g)
            idx[n++] = i;
    return n;
}

/* `dlsim fit slowdown pairs -o tmp [--form form]`, then the file read
 * back: every parameter and the rate of both jobs of every pair equal the
 * fit's exactly (mdl_sd_rate with one co-runner vs mdl_fit_sd_predict).
 * Returns the pairs compared. */
static uint32_t roundtrip(const char *pairs, const char *form)
{
    const char *out = tu_tmp_path("rt.yaml");
    char *argv[] = { "fit", "slowdown", (char *)pairs, "-o", (char *)out,
                     "--form", (char *)form, NULL };
    cr_assert_eq(tu_main(form ? 7 : 5, argv), 0, "fit %s", pairs);
    struct dl_error err = { 0 };
    struct mdl_pairs ps;
    cr_assert_eq(mdl_pairs_load(pairs, &ps, &err), 0, "%s", err.msg);
    struct mdl_sd_model m;
    cr_assert_eq(mdl_sd_load(out, &m, &err), 0, "%s:%ld:%ld: %s", err.file,
                 err.line, err.col, err.msg);
    cr_assert_eq(m.rate_min, MDL_RATE_MIN);
    cr_assert_eq(m.ntypes, ps.ngpus);
    uint32_t *idx = malloc(ps.n * sizeof *idx), checked = 0;
    for (uint32_t g = 0; g < ps.ngpus; g++) {
        const struct mdl_sd_type *t = mdl_sd_find(&m, ps.gpus[g]);
        cr_assert_not_null(t, "%s", ps.gpus[g]);
        cr_assert_str_eq(t->name, ps.gpus[g]);
        if (form)
            cr_assert_str_eq(mdl_sd_form_name(t->form), form);
        uint32_t n = of_type(&ps, g, idx);
        struct mdl_sd_params fp;
        cr_assert_eq(mdl_fit_sd(&ps, t->form, idx, n, &fp), 0);
        if (t->form == MDL_SD_CONSTANT)
            cr_assert_eq(t->rate, fp.rate);
        if (t->form == MDL_SD_HINGE)
            cr_assert_eq(t->alpha, fp.alpha);
        if (t->form == MDL_SD_SENS_PRESSURE) {
            cr_assert_eq(t->mean_s, fp.mean_s);
            cr_assert_eq(t->mean_p, fp.mean_p);
            for (uint32_t j = 0; j < t->njobs; j++) {
                uint32_t k = 0;
                while (strcmp(ps.jobs[k], t->jobs[j]))
                    k++;
                cr_assert_eq(t->s[j], fp.s[k], "s of %s", t->jobs[j]);
                cr_assert_eq(t->p[j], fp.p[k], "p of %s", t->jobs[j]);
            }
        } else
            cr_assert_eq(t->njobs, 0);
        for (uint32_t i = 0; i < n; i++) {
            const struct mdl_pair *q = &ps.p[idx[i]];
            double ra, rb;
            mdl_fit_sd_predict(&fp, q, &ra, &rb);
            struct mdl_sd_share a = { .util = q->util_a }, b = { .util = q->util_b };
            mdl_sd_job_sp(t, ps.jobs[q->a], &a.s, &a.p);
            mdl_sd_job_sp(t, ps.jobs[q->b], &b.s, &b.p);
            double la = mdl_sd_rate(t, m.rate_min, &a, &b, 1);
            double lb = mdl_sd_rate(t, m.rate_min, &b, &a, 1);
            cr_assert_eq(la, ra, "%s line %ld: rate_a %.17g vs fit %.17g",
                         pairs, q->line, la, ra);
            cr_assert_eq(lb, rb, "%s line %ld: rate_b %.17g vs fit %.17g",
                         pairs, q->line, lb, rb);
            checked++;
        }
        mdl_fit_sd_free(&fp);
    }
    free(idx);
    mdl_sd_free(&m);
    mdl_pairs_free(&ps);
    return checked;
}

/* ------------------------------------------------------------ round trips */

Test(sdfile, roundtrip_pairs_tiny)
{
    /* best form per type, then each form that applies to both types */
    cr_assert_eq(roundtrip("data/pairs_tiny.csv", NULL), 5);
    cr_assert_eq(roundtrip("data/pairs_tiny.csv", "constant"), 5);
    cr_assert_eq(roundtrip("data/pairs_tiny.csv", "sensitivity_pressure"), 5);
}

Test(sdfile, roundtrip_every_form)
{
    static const char *const forms[] = { "constant", "hinge", "timeshare",
                                         "sensitivity_pressure" };
    for (size_t f = 0; f < sizeof forms / sizeof *forms; f++)
        cr_assert_eq(roundtrip("data/sd_pairs_util.csv", forms[f]), 11);
    cr_assert_eq(roundtrip("data/sd_pairs_util.csv", NULL), 11);
}

Test(sdfile, roundtrip_gavel, .timeout = 60)
{
    if (access(GAVEL, R_OK))
        cr_skip("no shared data at " GAVEL);
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_fit_convert_gavel(GAVEL, tu_tmp_path("gavel"), NULL, &err),
                 0, "%s", err.msg);
    char pairs[512];
    snprintf(pairs, sizeof pairs, "%s", tu_tmp_path("gavel-pairs.csv"));
    cr_assert_gt(roundtrip(pairs, NULL), 900);
}

/* ------------------------------------------------------------ k-job rates */

static struct mdl_sd_model hand;

static void hand_load(void)
{
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_sd_load("data/sd_hand.yaml", &hand, &err), 0,
                 "%s:%ld:%ld: %s", err.file, err.line, err.col, err.msg);
}

static void hand_free(void)
{
    mdl_sd_free(&hand);
}

static const struct mdl_sd_type *type(const char *name)
{
    const struct mdl_sd_type *t = mdl_sd_find(&hand, name);
    cr_assert_not_null(t, "no type for %s", name);
    return t;
}

static double rate(const char *gpu, const struct mdl_sd_share *x,
                   const struct mdl_sd_share *o, uint32_t n)
{
    return mdl_sd_rate(type(gpu), hand.rate_min, x, o, n);
}

Test(sdrate, hand_file_loads, .init = hand_load, .fini = hand_free)
{
    cr_assert_eq(hand.rate_min, 0.05);
    cr_assert_eq(hand.ntypes, 5);
    const struct mdl_sd_type *t = type("A100");
    cr_assert_eq(t->form, MDL_SD_SENS_PRESSURE);
    cr_assert_eq(t->njobs, 3);
    cr_assert_str_eq(t->jobs[0], "ResNet-50@64");
    cr_assert_eq(t->line, 16);
    cr_assert_eq(type("*")->rate, 0.3, "constant_rate serves as rate");
}

Test(sdrate, constant_each_corunner_multiplies, .init = hand_load,
     .fini = hand_free)
{
    struct mdl_sd_share x = { 1, 0, 0 }, o[3] = { { 1, 0, 0 }, { 1, 0, 0 },
                                                   { 1, 0, 0 } };
    cr_assert_eq(rate("K80", &x, NULL, 0), 1);
    cr_assert_eq(rate("K80", &x, o, 1), 0.5);
    cr_assert_eq(rate("K80", &x, o, 2), 0.25);
    cr_assert_eq(rate("K80", &x, o, 3), 0.125);
    /* "*": 0.3, 0.09, then 0.027 clamped to rate_min 0.05 */
    cr_assert_eq(rate("H100", &x, NULL, 0), 1);
    cr_assert_float_eq(rate("H100", &x, o, 1), 0.3, 1e-15);
    cr_assert_float_eq(rate("H100", &x, o, 2), 0.09, 1e-15);
    cr_assert_eq(rate("H100", &x, o, 3), 0.05);
}

Test(sdrate, hinge_on_summed_util, .init = hand_load, .fini = hand_free)
{
    /* alpha 0.5; u = 0.4 + 0.3 (+ 0.5 (+ 0.6)) */
    struct mdl_sd_share x = { 0.4, 0, 0 },
                        o[3] = { { 0.3, 0, 0 }, { 0.5, 0, 0 }, { 0.6, 0, 0 } };
    cr_assert_eq(rate("P100", &x, o, 0), 1);
    cr_assert_eq(rate("P100", &x, o, 1), 1, "u = 0.7 fits");
    cr_assert_float_eq(rate("P100", &x, o, 2), 1 - 0.5 * 0.2, 1e-12);
    cr_assert_float_eq(rate("P100", &x, o, 3), 1 - 0.5 * 0.8, 1e-12);
    struct mdl_sd_share full = { 1, 0, 0 }, f3[3] = { { 1, 0, 0 }, { 1, 0, 0 },
                                                      { 1, 0, 0 } };
    cr_assert_eq(rate("P100", &full, f3, 3), 0.05, "1 - 0.5 * 3 clamped");
}

Test(sdrate, timeshare_in_proportion, .init = hand_load, .fini = hand_free)
{
    struct mdl_sd_share x = { 0.4, 0, 0 },
                        o[3] = { { 0.3, 0, 0 }, { 0.5, 0, 0 }, { 0.6, 0, 0 } };
    cr_assert_eq(rate("V100", &x, o, 0), 1);
    cr_assert_float_eq(rate("V100", &x, o, 1), 0.4 / 0.7, 1e-12);
    cr_assert_float_eq(rate("V100", &x, o, 2), 0.4 / 1.2, 1e-12);
    cr_assert_float_eq(rate("V100", &x, o, 3), 0.4 / 1.8, 1e-12);
    struct mdl_sd_share z = { 0, 0, 0 }, z3[3] = { { 0, 0, 0 }, { 0, 0, 0 },
                                                   { 0, 0, 0 } };
    cr_assert_eq(rate("V100", &z, z3, 3), 1, "all utils 0");
    /* a job of util 0 next to busy ones gets nothing: clamped */
    cr_assert_eq(rate("V100", &z, o, 2), 0.05);
}

Test(sdrate, sensitivity_pressure_product, .init = hand_load,
     .fini = hand_free)
{
    const struct mdl_sd_type *t = type("A100");
    /* x = resnet50@64 (s 0.4); co-runners resnet50@128 (p 0.5), lstm@20
     * (listed as "LM": p 2), vgg16@32 (not listed: mean_pressure 1) */
    struct mdl_sd_share x, o[3];
    mdl_sd_job_sp(t, "resnet50@64", &x.s, &x.p);
    mdl_sd_job_sp(t, "resnet50@128", &o[0].s, &o[0].p);
    mdl_sd_job_sp(t, "lstm@20", &o[1].s, &o[1].p);
    mdl_sd_job_sp(t, "vgg16@32", &o[2].s, &o[2].p);
    x.util = o[0].util = o[1].util = o[2].util = 1;
    cr_assert_eq(x.s, 0.4);
    cr_assert_eq(o[0].p, 0.5);
    cr_assert_eq(o[1].p, 2);
    cr_assert_eq(o[2].p, 1);
    cr_assert_eq(rate("A100", &x, o, 0), 1);
    cr_assert_eq(rate("A100", &x, o, 1), exp(-0.4 * 0.5));
    cr_assert_float_eq(rate("A100", &x, o, 2), exp(-(0.2 + 0.8)), 1e-12);
    cr_assert_float_eq(rate("A100", &x, o, 3), exp(-(0.2 + 0.8 + 0.4)), 1e-12);
    /* lstm (s 1) with three co-runners of pressure 2: exp(-6) < 0.05 */
    struct mdl_sd_share l = { 1, 1, 2 }, l3[3] = { l, l, l };
    cr_assert_float_eq(rate("A100", &l, l3, 1), exp(-2), 1e-15);
    cr_assert_eq(rate("A100", &l, l3, 3), 0.05);
    /* zero pressure does not slow anyone down */
    struct mdl_sd_share quiet[2] = { { 1, 0, 0 }, { 1, 0, 0 } };
    cr_assert_eq(rate("A100", &x, quiet, 2), 1);
}

/* ------------------------------------------------------------ lookups */

Test(sdrate, find_case_insensitive_and_fallback, .init = hand_load,
     .fini = hand_free)
{
    cr_assert_str_eq(type("k80")->name, "K80");
    cr_assert_str_eq(type("K80")->name, "K80");
    cr_assert_str_eq(type("a100")->name, "A100");
    cr_assert_str_eq(type("H100")->name, "*");
    cr_assert_str_eq(type("K8")->name, "*", "no prefix matches");
    /* without the "*" entry (the last one) an unlisted type has no model */
    struct mdl_sd_model m = hand;
    m.ntypes = 4;
    cr_assert_null(mdl_sd_find(&m, "H100"));
    cr_assert_not_null(mdl_sd_find(&m, "v100"));
}

Test(sdrate, job_lookup_and_fallback_to_means, .init = hand_load,
     .fini = hand_free)
{
    const struct mdl_sd_type *t = type("A100");
    static const struct {
        const char *name;
        double s, p;
    } cases[] = {
        { "resnet50@64", 0.4, 1.5 },
        { "RESNET-50@064", 0.4, 1.5 },  /* normal form, batch as a number */
        { "resnet50", 0.4, 1.5 },       /* no batch: first listed resnet50 */
        { "resnet50@128", 0.2, 0.5 },
        { "resnet50@32", 0.5, 1 },      /* unlisted batch, no per-model entry */
        { "lstm@20", 1, 2 },            /* per-model entry "LM" */
        { "lstm", 1, 2 },
        { "LM@5", 1, 2 },
        { "vgg16@32", 0.5, 1 },         /* unlisted: the means */
        { "vgg16", 0.5, 1 },
        { "", 0.5, 1 },
        { "@64", 0.5, 1 },
        { "resnet50@x", 0.5, 1 },
        { "resnet50@0", 0.5, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double s = -1, p = -1;
        mdl_sd_job_sp(t, cases[i].name, &s, &p);
        cr_expect(s == cases[i].s && p == cases[i].p,
                  "'%s': s %g p %g, want %g %g", cases[i].name, s, p,
                  cases[i].s, cases[i].p);
    }
    double s = -1, p = -1;
    mdl_sd_job_sp(type("K80"), "resnet50@64", &s, &p);
    cr_assert(s == 0 && p == 0, "constant form: s = p = 0");
}

/* ------------------------------------------------------------ errors */

#define TOP "kind: slowdown\ngpu_types:\n"
#define SPH TOP "  - name: K80\n    form: sensitivity_pressure\n" \
    "    mean_sensitivity: 1\n    mean_pressure: 1\n    jobs:\n"

struct bad {
    const char *text;
    long line;
    const char *at;             /* where on that line (NULL: column 1) */
    const char *msg;            /* a part of the message */
};

/* Column of the first occurrence of at on line `line` of text. */
static long col_of(const char *text, long line, const char *at)
{
    const char *l = text;
    for (long i = 1; i < line; i++) {
        l = strchr(l, '\n');
        cr_assert_not_null(l);
        l++;
    }
    if (!at)
        return 1;
    const char *end = strchr(l, '\n'), *hit = strstr(l, at);
    cr_assert(hit && (!end || hit < end), "'%s' not on line %ld", at, line);
    return (long)(hit - l) + 1;
}

static void check_bad(const struct bad *b, size_t n, bool util)
{
    for (size_t i = 0; i < n; i++) {
        const char *path = tu_tmp_file("bad.yaml", b[i].text);
        struct dl_error err = { 0 };
        struct mdl_sd_model m;
        struct mdl_util_params u;
        int rc = util ? mdl_util_load(path, &u, &err)
                      : mdl_sd_load(path, &m, &err);
        cr_assert_eq(rc, DL_EINPUT, "case %zu loaded:\n%s", i, b[i].text);
        long col = col_of(b[i].text, b[i].line, b[i].at);
        cr_expect(err.line == b[i].line && err.col == col,
                  "case %zu: at %ld:%ld, want %ld:%ld (%s)", i, err.line,
                  err.col, b[i].line, col, err.msg);
        cr_expect_not_null(strstr(err.msg, b[i].msg),
                           "case %zu: message '%s' lacks '%s'", i, err.msg,
                           b[i].msg);
        cr_expect_str_eq(err.file, path);
        if (!util) {
            cr_assert_eq(m.ntypes, 0);
            cr_assert_null(m.arena);
            mdl_sd_free(&m);        /* harmless on the empty model */
        } else
            cr_assert_eq(u.intercept, 0);
    }
}

Test(sdfile, validation_errors_located)
{
    static const struct bad bad[] = {
        { "- 1\n", 1, NULL, "expected a mapping (kind: slowdown" },
        { "gpu_types: []\n", 1, NULL, "kind: slowdown is required" },
        { "kind: util\n", 1, "util", "kind: expected 'slowdown'" },
        { "kind: slowdown\nbogus: 1\n", 2, "bogus",
          "unknown key 'bogus' (valid: kind, rate_min, gpu_types, source" },
        { "kind: slowdown\nrate_min: 0\n", 2, "0",
          "rate_min: expected a number in (0, 1]" },
        { "kind: slowdown\nrate_min: abc\n", 2, "abc",
          "rate_min: expected a number in (0, 1]" },
        { "kind: slowdown\nsource: x\n", 1, NULL, "gpu_types is required" },
        { "kind: slowdown\ngpu_types: []\n", 2, "[",
          "gpu_types: expected a non-empty list" },
        { "kind: slowdown\ngpu_types: {a: 1}\n", 2, "{",
          "gpu_types: expected a non-empty list" },
        { "kind: slowdown\nseed: 1\nseed: 2\n", 3, "seed", "key 'seed' repeated" },
        { "kind: slowdown\ngpu_types: [\n", 3, NULL, "YAML syntax error: " },
        { TOP "  - K80\n", 3, "K80", "each entry must be a mapping" },
        { TOP "  - {form: timeshare}\n", 3, "{", "name is required" },
        { TOP "  - {name: \"\", form: timeshare}\n", 3, "\"\"",
          "name: expected a GPU type name or \"*\"" },
        { TOP "  - {name: K80}\n", 3, "{", "'K80': form is required" },
        { TOP "  - {name: K80, form: linear}\n", 3, "linear",
          "form: expected constant, hinge, timeshare, sensitivity_pressure or horus-authors" },
        { TOP "  - {name: K80, form: timeshare, foo: 1}\n", 3, "foo",
          "unknown key 'foo' in a gpu_types entry (valid: name, form, rate" },
        { TOP "  - name: K80\n    form: constant\n    rate: 0.5\n    rate: 0.6\n",
          6, "rate", "key 'rate' repeated" },
        { TOP "  - {name: K80, form: constant}\n", 3, "{",
          "'K80': form constant needs rate (or constant_rate)" },
        { TOP "  - {name: K80, form: constant, rate: 1.5}\n", 3, "1.5",
          "rate: expected a number in (0, 1]" },
        { TOP "  - {name: K80, form: constant, rate: 0}\n", 3, "0}",
          "rate: expected a number in (0, 1]" },
        { TOP "  - {name: K80, form: constant, constant_rate: -0.5}\n", 3,
          "-0.5", "constant_rate: expected a number in (0, 1]" },
        { TOP "  - {name: K80, form: hinge}\n", 3, "{",
          "'K80': form hinge needs alpha" },
        { TOP "  - {name: K80, form: hinge, alpha: -1}\n", 3, "-1",
          "alpha: expected a number >= 0" },
        { TOP "  - {name: K80, form: hinge, alpha: .nan}\n", 3, ".nan",
          "alpha: expected a number >= 0" },
        { TOP "  - {name: K80, form: timeshare, alpha: 1}\n", 3, "alpha",
          "alpha: not a parameter of form timeshare (it takes nothing)" },
        { TOP "  - {name: K80, form: constant, rate: 0.5, jobs: []}\n", 3,
          "jobs", "jobs: not a parameter of form constant (it takes rate" },
        { TOP "  - {name: K80, form: hinge, alpha: 1, rate: 0.5}\n", 3,
          "rate", "rate: not a parameter of form hinge (it takes alpha)" },
        { TOP "  - {name: K80, form: sensitivity_pressure, "
          "mean_pressure: 1}\n", 3, "{",
          "form sensitivity_pressure needs mean_sensitivity" },
        { TOP "  - {name: K80, form: sensitivity_pressure, "
          "mean_sensitivity: 1}\n", 3, "{",
          "form sensitivity_pressure needs mean_pressure" },
        { TOP "  - {name: K80, form: sensitivity_pressure, "
          "mean_sensitivity: 1, mean_pressure: x}\n", 3, "x}",
          "mean_pressure: expected a number >= 0" },
        { TOP "  - {name: K80, form: sensitivity_pressure, "
          "mean_sensitivity: -2, mean_pressure: 1}\n", 3, "-2",
          "mean_sensitivity: expected a number >= 0" },
        { SPH "      5\n", 8, "5", "jobs: expected a list of {name, s, p}" },
        { SPH "      - a3c\n", 8, "a3c", "jobs: each entry must be a mapping" },
        { SPH "      - {name: a3c, s: 1}\n", 8, "{",
          "jobs entry: name, s and p are required" },
        { SPH "      - {s: 1, p: 1}\n", 8, "{",
          "jobs entry: name, s and p are required" },
        { SPH "      - {name: a3c, s: 1, p: -2}\n", 8, "-2",
          "p: expected a number >= 0" },
        { SPH "      - {name: a3c, s: x, p: 1}\n", 8, "x,",
          "s: expected a number >= 0" },
        { SPH "      - {name: a3c, s: 1, p: 1, q: 1}\n", 8, "q",
          "unknown key 'q' in a jobs entry (valid: name, s, p)" },
        { SPH "      - {name: a3c, s: 1, s: 2, p: 1}\n", 8, "s: 2",
          "key 's' repeated" },
        { SPH "      - {name: \"resnet50@x\", s: 1, p: 1}\n", 8, "\"resnet50",
          "name: expected a job name MODEL or MODEL@BATCH" },
        { SPH "      - {name: \"@64\", s: 1, p: 1}\n", 8, "\"@64",
          "name: expected a job name" },
        { SPH "      - {name: [a], s: 1, p: 1}\n", 8, "[a]",
          "name: expected a job name" },
        { SPH "      - {name: \"ResNet-50@64\", s: 1, p: 1}\n"
              "      - {name: resnet50@064, s: 1, p: 1}\n", 9, "resnet50@064",
          "jobs: 'resnet50@064' is listed twice (as 'ResNet-50@64' before)" },
        { TOP "  - {name: K80, form: timeshare}\n"
              "  - {name: k80, form: timeshare}\n", 4, "{",
          "gpu_types: 'k80' is listed twice (line 3)" },
        { TOP "  - {name: \"*\", form: timeshare}\n"
              "  - {name: \"*\", form: constant, rate: 1}\n", 4, "{",
          "gpu_types: '*' is listed twice" },
    };
    check_bad(bad, sizeof bad / sizeof *bad, false);
    struct mdl_sd_model m;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_sd_load("data/no-such.yaml", &m, &err), DL_EIO);
    mdl_sd_free(&m);
}

Test(sdfile, informational_keys_ignored)
{
    /* what the fitter writes for information, in a hand-made file */
    const char *path = tu_tmp_file("info.yaml",
        "kind: slowdown\nsource: \"x.csv\"\nfolds: 5\nseed: 1\n"
        "gpu_types:\n"
        "  - name: K80\n    form: timeshare\n    n_pairs: 3\n"
        "    cv_mae: {constant: 0.1, hinge: null}\n    constant_rate: 0.5\n");
    struct mdl_sd_model m;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_sd_load(path, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(m.rate_min, MDL_RATE_MIN, "default rate_min");
    cr_assert_eq(m.types[0].form, MDL_SD_TIMESHARE);
    cr_assert_eq(m.types[0].line, 6);
    mdl_sd_free(&m);
}

/* ------------------------------------------------------------ util files */

Test(utilfile, roundtrip_util_tiny)
{
    const char *out = tu_tmp_path("util.yaml");
    char *argv[] = { "fit", "util", "data/util_tiny.csv", "-o", (char *)out,
                     NULL };
    cr_assert_eq(tu_main(5, argv), 0);
    struct dl_error err = { 0 };
    struct mdl_util_data d;
    cr_assert_eq(mdl_fit_util_load("data/util_tiny.csv", &d, &err), 0);
    uint32_t idx[64];
    for (uint32_t i = 0; i < d.n; i++)
        idx[i] = i;
    struct mdl_util_params fit, got;
    cr_assert_eq(mdl_fit_util(&d, idx, d.n, 0.1, &fit), 0);
    cr_assert_eq(mdl_util_load(out, &got, &err), 0, "%s:%ld:%ld: %s",
                 err.file, err.line, err.col, err.msg);
    cr_assert_eq(got.intercept, fit.intercept);
    cr_assert_eq(got.lo, fit.lo);
    cr_assert_eq(got.hi, fit.hi);
    cr_assert_float_eq(fit.lo, 0.20, 1e-12);   /* util_tiny.csv's range */
    cr_assert_float_eq(fit.hi, 0.90, 1e-12);
    cr_assert_str_eq(got.gpu_type, "A100");
    cr_assert_str_eq(fit.gpu_type, "A100");
    for (int f = 0; f < MDL_UTIL_NFEAT; f++) {
        cr_assert_eq(got.center[f], fit.center[f]);
        cr_assert_eq(got.scale[f], fit.scale[f]);
        cr_assert_eq(got.coef[f], fit.coef[f]);
    }
    for (uint32_t i = 0; i < d.n; i++)
        cr_assert_eq(mdl_util_predict(&got, d.r[i].x),
                     mdl_util_predict(&fit, d.r[i].x), "row %u", i);
    mdl_fit_util_data_free(&d);
}

#define UFEAT "features: [flops, params, conv_layers, linear_layers, " \
    "activation_layers, other_layers]\n"

Test(utilfile, hand_written)
{
    const char *path = tu_tmp_file("u.yaml", "kind: util\n" UFEAT "intercept: 0.5\n"
                            "center: [0, 0, 0, 0, 0, 0]\n"
                            "scale: [1, 1, 1, 1, 1, 2]\n"
                            "coef: [0.1, 0, 0, 0, 0, 0.2]\nlambda: 0.1\n"
                            "cv_rmsle: null\n");
    struct mdl_util_params m;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_util_load(path, &m, &err), 0, "%s", err.msg);
    double x[MDL_UTIL_NFEAT] = { expm1(1), 5, 5, 5, 5, expm1(1) };
    /* 0.5 + 0.1 * 1 + 0.2 * 1 / 2 */
    cr_assert_float_eq(mdl_util_predict(&m, x), 0.7, 1e-12);
    cr_assert_str_eq(m.gpu_type, "");           /* for no type in particular */
    /* a range clamps the prediction; a GPU type is kept */
    path = tu_tmp_file("u2.yaml", "kind: util\n" UFEAT "intercept: 0.5\n"
                       "center: [0, 0, 0, 0, 0, 0]\n"
                       "scale: [1, 1, 1, 1, 1, 2]\n"
                       "coef: [0.1, 0, 0, 0, 0, 0.2]\nrange: [0.2, 0.65]\n"
                       "gpu_type: V100\n");
    cr_assert_eq(mdl_util_load(path, &m, &err), 0, "%s", err.msg);
    cr_assert_float_eq(mdl_util_predict(&m, x), 0.65, 1e-12);
    cr_assert_str_eq(m.gpu_type, "V100");
}

Test(utilfile, validation_errors_located)
{
#define UOK "intercept: 0.5\ncenter: [0, 0, 0, 0, 0, 0]\n"
    static const struct bad bad[] = {
        { "kind: slowdown\n", 1, "slowdown", "kind: expected 'util'" },
        { "intercept: 1\n", 1, NULL, "kind: util is required" },
        { "kind: util\nfeatures: [flops]\n", 2, "[",
          "features: expected [flops, params, conv_layers" },
        { "kind: util\nfeatures: [params, flops, conv_layers, linear_layers, "
          "activation_layers, other_layers]\n", 2, "[", "(this order)" },
        { "kind: util\n" UFEAT UOK "scale: [1, 1]\n", 5, "[",
          "scale: expected a list of 6 numbers" },
        { "kind: util\n" UFEAT UOK "scale: [1, 1, 0, 1, 1, 1]\n", 5, "0",
          "scale: expected a number > 0" },
        { "kind: util\n" UFEAT UOK "coef: [1, 1, a, 1, 1, 1]\n", 5, "a",
          "coef: expected a number" },
        { "kind: util\n" UFEAT "intercept: null\n", 3, "null",
          "intercept: expected a number" },
        { "kind: util\n" UFEAT UOK "scale: [1, 1, 1, 1, 1, 1]\n", 1, NULL,
          "features, intercept, center, scale and coef are required" },
        { "kind: util\nweights: 1\n", 2, "weights",
          "unknown key 'weights' (valid: kind, features, intercept" },
        { "kind: util\nintercept: 1\nintercept: 2\n", 3, "intercept",
          "key 'intercept' repeated" },
        { "kind: util\nrange: [0.5, 0.4]\n", 2, "[",
          "range: expected [lo, hi] with 0.01 <= lo <= hi <= 1" },
        { "kind: util\nrange: [0, 0.4]\n", 2, "[", "range: expected [lo, hi]" },
        { "kind: util\nrange: 0.5\n", 2, "0.5", "range: expected [lo, hi]" },
        { "kind: util\ngpu_type: ''\n", 2, "''", "gpu_type: expected a GPU type" },
    };
#undef UOK
    check_bad(bad, sizeof bad / sizeof *bad, true);
    struct mdl_util_params m;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_util_load("data/no-such.yaml", &m, &err), DL_EIO);
}

/* The YAML model files share the readers' limits (#13): a key repeated in
 * a mapping of 100,000 keys is found at once (the check scanned the
 * earlier keys per key), and 100,000 nested lists are refused at level
 * 65 instead of after a minute in libyaml. */
Test(sdfile, big_and_deep_files_are_refused_quickly, .timeout = 60)
{
    enum { N = 100000 };
    size_t cap = (size_t)N * 16 + 64, o = 0;
    char *y = malloc(cap);
    o += (size_t)snprintf(y + o, cap - o, "kind: slowdown\nextra:\n");
    for (int i = 0; i < N; i++)
        o += (size_t)snprintf(y + o, cap - o, "  k%d: 1\n", i == N - 1 ? 5 : i);
    FILE *f = fopen(tu_tmp_path("dup.yaml"), "w");
    fwrite(y, 1, o, f);
    fclose(f);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct mdl_sd_model m;
    struct dl_error e;
    cr_expect_eq(mdl_sd_load(tu_tmp_path("dup.yaml"), &m, &e), DL_EINPUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cr_expect_eq(e.line, N + 2, "%s", e.msg);
    cr_expect(strstr(e.msg, "key 'k5' repeated"), "%s", e.msg);
    double s = (double)(t1.tv_sec - t0.tv_sec) +
               1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_expect(s < 10, "%.1f s", s);
    o = (size_t)snprintf(y, cap, "kind: slowdown\ngpu_types: ");
    memset(y + o, '[', N);
    y[o + N] = '\n';
    f = fopen(tu_tmp_path("deep.yaml"), "w");
    fwrite(y, 1, o + N + 1, f);
    fclose(f);
    cr_expect_eq(mdl_sd_load(tu_tmp_path("deep.yaml"), &m, &e), DL_EINPUT);
    cr_expect_eq(e.line, 2);
    cr_expect(strstr(e.msg, "nested deeper than 64"), "%s", e.msg);
    free(y);
}
