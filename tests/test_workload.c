/*
 * tests/test_workload.c - `dlsim trace fit`, `trace gen --like`, `trace
 * compare` and `trace scale` (traces/workload.c, like.c, compare.c).
 *
 * Statistics on hand-made samples: the two-sample KS statistic where D is
 * obvious (disjoint, shifted, tied, identical samples), the Kolmogorov
 * survival function at its tabulated points (Q(1) = 0.27, the 10/5/1 %
 * critical values 1.224/1.358/1.628), continuous where the two series
 * meet.  The fit on small traces: exact GPU counts, duration classes and
 * their pooling, quantile tables equal to the sample when it is small,
 * gap mean and zero share, mixes, slack.  The YAML: a write-read-write
 * round trip gives the same bytes; malformed files end in file:line:col
 * errors (exit 2).  The generator: largest-remainder apportioning by
 * hand, exact counts for N = n, byte-identical reruns, one stream per
 * column, an exact diurnal process (no job in a zero-rate hour, the hourly
 * and weekday histograms against the exact expectation by chi-square).
 *
 * Real data (the importer is not here, so the test converts the raw
 * Microsoft ITP cluster04 trace, 15,802 jobs, and its ElasticFlow variant
 * with models and deadlines itself): fitted and regenerated with the same
 * number of jobs for 5 seeds, the GPU counts and model counts are the real
 * ones exactly, and the duration, gap and slack samples are
 * indistinguishable from the real ones at the 1% level (two-sample KS
 * below its 1% critical value for every seed).  A generated sample drawn
 * from the real sample's own (interpolated) distribution is compared with
 * that sample, so D behaves like a one-sample statistic, about
 * 1/sqrt(2) of the two-sample critical scale: exceeding the 1% critical
 * value has probability far below 1% per seed.
 */
#include "testutil.h"

#include <time.h>
#include "traces/trace.h"

#include <criterion/criterion.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

TestSuite(workload, .fini = tu_tmp_cleanup);

#define ITP "../../shared/data/traces/microsoft-itp-elasticflow"

static void fit(const struct trace *t, struct trc_workload *w)
{
    struct dl_error e = {0};
    cr_assert_eq(trc_wl_fit(t, w, &e), 0, "%s", e.msg);
}

static void like(const struct trc_workload *w, uint32_t n, uint64_t seed,
                 enum trc_arrivals arr, const char *models, struct trace *t)
{
    struct trc_like_opts o = {.njobs = n, .seed = seed, .arrivals = arr,
                              .models = models};
    struct dl_error e = {0};
    cr_assert_eq(trc_generate_like(&o, w, t, &e), 0, "%s", e.msg);
}

static void wl_load_ok(const char *path, struct trc_workload *w)
{
    struct dl_error e = {0};
    cr_assert_eq(trc_wl_load(path, w, &e), 0, "%s:%ld:%ld: %s", e.file,
                 e.line, e.col, e.msg);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------ KS by hand */

Test(workload, ks_statistic_by_hand)
{
    double a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
    cr_expect_float_eq(trc_ks2(a, 4, b, 4), 1.0, 1e-15);   /* disjoint */
    double c[] = {4, 3, 2, 1}, d[] = {3, 4, 5, 6};
    /* F_c(2) = 2/4, F_d(2) = 0 */
    cr_expect_float_eq(trc_ks2(c, 4, d, 4), 0.5, 1e-15);
    double e[] = {1, 1, 2}, f[] = {1, 2, 2};
    /* ties step together: at 1, 2/3 against 1/3; at 2 both 1 */
    cr_expect_float_eq(trc_ks2(e, 3, f, 3), 1.0 / 3, 1e-15);
    double g[] = {5, 1, 3}, h[] = {3, 5, 1};
    cr_expect_float_eq(trc_ks2(g, 3, h, 3), 0.0, 1e-15);   /* identical */
    /* unequal sizes: {0} against {0, 1, 2, 3}: at 0, 1 against 1/4 */
    double i[] = {0}, j[] = {3, 2, 1, 0};
    cr_expect_float_eq(trc_ks2(i, 1, j, 4), 0.75, 1e-15);
    /* interleaved: 1,3,5,7 against 2,4,6,8: never more than 1/4 apart */
    double k[] = {1, 3, 5, 7}, l[] = {2, 4, 6, 8};
    cr_expect_float_eq(trc_ks2(k, 4, l, 4), 0.25, 1e-15);
}

Test(workload, kolmogorov_survival_function)
{
    /* tabulated: Q(1) = 0.2699996716; the 10, 5 and 1 % critical values */
    cr_expect_float_eq(trc_ks_q(1.0), 0.2699996716, 1e-9);
    cr_expect_float_eq(trc_ks_q(1.2238), 0.1000, 2e-4);
    cr_expect_float_eq(trc_ks_q(1.3581), 0.0500, 1e-4);
    cr_expect_float_eq(trc_ks_q(1.62762), 0.0100, 1e-5);
    cr_expect_float_eq(trc_ks_q(0.5), 0.9639452436, 1e-9);
    cr_expect_float_eq(trc_ks_q(2.0), 6.70925e-4, 1e-8);
    cr_expect_eq(trc_ks_q(0), 1.0);
    cr_expect_lt(trc_ks_q(5), 1e-20);
    /* the two series agree where they meet */
    cr_expect_float_eq(trc_ks_q(1 - 1e-9), trc_ks_q(1 + 1e-9), 1e-8);
    /* decreasing */
    for (double x = 0.1; x < 3; x += 0.05)
        cr_expect_geq(trc_ks_q(x), trc_ks_q(x + 0.05));
}

Test(workload, compare_traces_by_hand)
{
    struct trace a, b;
    /* durations 1..4 against 3..6; gaps 1,1,1 against 2,2,2; GPUs
     * {1,1,2,4} against {1,2,2,8} */
    tu_trace(&a, "job_id,submit_time,num_gpus,duration\n"
             "a,0,1,1\nb,1,1,2\nc,2,2,3\nd,3,4,4\n");
    tu_trace(&b, "job_id,submit_time,num_gpus,duration\n"
             "a,0,1,3\nb,2,2,4\nc,4,2,5\nd,6,8,6\n");
    struct trc_cmp r;
    struct dl_error e;
    cr_assert_eq(trc_compare(&a, &b, &r, &e), 0);
    cr_expect_float_eq(r.ks_dur, 0.5, 1e-15);
    cr_expect_float_eq(r.ks_gap, 1.0, 1e-15);
    cr_expect_float_eq(r.p_dur, trc_ks_q(0.5 * sqrt(2.0)), 1e-15);
    cr_expect_float_eq(r.crit_dur, 1.62762 * sqrt(0.5), 1e-12);
    /* shares 1: .5/.25, 2: .25/.5, 4: .25/0, 8: 0/.25 */
    cr_expect_float_eq(r.tv_gpus, 0.5, 1e-15);
    cr_expect_float_eq(r.maxdiff_gpus, 0.25, 1e-15);
    trc_free(&b);
    tu_trace(&b, "job_id,submit_time,num_gpus,duration\na,0,1,1\n");
    cr_expect_eq(trc_compare(&a, &b, &r, &e), DL_EINPUT);
    trc_free(&a);
    trc_free(&b);
}

/* --------------------------------------------------------------- the fit */

Test(workload, fit_small_trace_exactly)
{
    struct trace t;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,model,gpu_type,"
             "deadline,util\n"
             "a,0,1,10,bert,V100,20,0.5\n"
             "b,0,2,40,,,,\n"
             "c,5,1,30,vgg,,95,\n"
             "d,10,1,20,bert,,,0.25\n"
             "e,30,2,50,,,,\n");
    struct trc_workload w;
    fit(&t, &w);
    cr_expect_eq(w.njobs, 5);
    cr_expect_float_eq(w.start_s, 0, 1e-15);
    cr_expect_float_eq(w.span_s, 30, 1e-15);
    cr_assert_eq(w.ngpu, 2);
    cr_expect_eq(w.gpus[0], 1);
    cr_expect_eq(w.gpu_jobs[0], 3);
    cr_expect_eq(w.gpus[1], 2);
    cr_expect_eq(w.gpu_jobs[1], 2);
    /* 5 jobs < 100: one class, its table the sorted sample */
    cr_assert_eq(w.nclass, 1);
    cr_expect_eq(w.cls[0].ngpus, 2);
    cr_assert_eq(w.cls[0].dur.n, 5);
    double want[] = {10, 20, 30, 40, 50};
    for (int i = 0; i < 5; i++)
        cr_expect_float_eq(w.cls[0].dur.q[i], want[i], 1e-12);
    cr_expect_float_eq(w.cls[0].mean_s, 30, 1e-12);
    /* gaps 0, 5, 5, 20: mean 7.5, one zero in four */
    cr_expect_float_eq(w.gap_mean_s, 7.5, 1e-12);
    cr_expect_float_eq(w.gap_zero_frac, 0.25, 1e-12);
    cr_assert_eq(w.gap.n, 4);
    cr_expect_float_eq(w.gap.q[0], 0, 0);
    cr_expect_float_eq(w.gap.q[3], 20, 1e-12);
    cr_expect(!w.diurnal);
    /* mixes sorted by name */
    cr_assert_eq(w.models.n, 2);
    cr_expect_str_eq(w.models.name[0], "bert");
    cr_expect_eq(w.models.jobs[0], 2);
    cr_expect_str_eq(w.models.name[1], "vgg");
    cr_assert_eq(w.gpu_types.n, 1);
    cr_expect_eq(w.gpu_types.jobs[0], 1);
    /* slack (20-0)/10 = 2 and (95-5)/30 = 3 */
    cr_expect_eq(w.deadline_jobs, 2);
    cr_assert_eq(w.slack.n, 2);
    cr_expect_float_eq(w.slack.q[0], 2, 1e-12);
    cr_expect_float_eq(w.slack.q[1], 3, 1e-12);
    cr_expect_eq(w.util_jobs, 2);
    cr_expect_float_eq(w.util.q[0], 0.25, 1e-7);
    cr_expect_eq(w.mem_jobs, 0);
    /* quantile evaluation: linear and log-linear between entries */
    cr_expect_float_eq(trc_qtab_eval(&w.cls[0].dur, 0.125, false), 15, 1e-12);
    cr_expect_float_eq(trc_qtab_eval(&w.cls[0].dur, 0.125, true),
                       sqrt(10.0 * 20), 1e-9);
    cr_expect_float_eq(trc_qtab_eval(&w.cls[0].dur, 1, true), 50, 0);
    /* 100 x the jobs: 200 deadlines, 200 utils, 100 gpu_types, 200 bert
     * and 100 vgg exactly; slack in [2, 3], util in [0.25, 0.5] */
    struct trace g;
    like(&w, 500, 2, TRC_ARR_REPLAY, NULL, &g);
    uint32_t nd = 0, nu = 0, nt = 0, nb = 0, nv = 0;
    for (uint32_t i = 0; i < g.njobs; i++) {
        const struct trc_job *j = &g.jobs[i];
        if (j->deadline != SIM_NEVER) {
            nd++;
            double s = (double)(j->deadline - j->submit) / (double)j->duration;
            cr_expect(s >= 2 - 1e-6 && s <= 3 + 1e-6, "slack %g", s);
        }
        if (j->util >= 0) {
            nu++;
            cr_expect(j->util >= 0.25f && j->util <= 0.5f);
        }
        nt += j->gpu_type && !strcmp(j->gpu_type, "V100");
        nb += j->model && !strcmp(j->model, "bert");
        nv += j->model && !strcmp(j->model, "vgg");
        cr_expect_lt(j->mem_gb, 0);
    }
    cr_expect_eq(nd, 200);
    cr_expect_eq(nu, 200);
    cr_expect_eq(nt, 100);
    cr_expect_eq(nb, 200);
    cr_expect_eq(nv, 100);
    trc_free(&g);
    trc_wl_free(&w);
    trc_free(&t);
}

/* A trace of the given GPU counts, job i lasting i+1 s, one per second. */
static void counts_trace(struct trace *t, const uint32_t *g,
                         const uint32_t *jobs, int k)
{
    uint32_t n = 0;
    for (int i = 0; i < k; i++)
        n += jobs[i];
    trc_init(t, "counts", n);
    uint32_t j = 0;
    for (int i = 0; i < k; i++)
        for (uint32_t m = 0; m < jobs[i]; m++, j++) {
            t->jobs[j].id = "x";
            t->jobs[j].submit = (simtime_t)j * SIM_US_PER_S;
            t->jobs[j].num_gpus = g[i];
            t->jobs[j].duration = (simtime_t)(j + 1) * SIM_US_PER_S;
        }
}

Test(workload, duration_classes_pool_rare_counts)
{
    struct trace t;
    struct trc_workload w;
    /* 150 x 1, 60 x 2, 30 x 4: {1} closes at 100+; the tail {2, 4} holds
     * 90 >= 25 jobs, so it stays a class of its own */
    uint32_t g1[] = {1, 2, 4}, j1[] = {150, 60, 30};
    counts_trace(&t, g1, j1, 3);
    fit(&t, &w);
    cr_assert_eq(w.nclass, 2);
    cr_expect_eq(w.cls[0].ngpus, 1);
    cr_expect_eq(w.cls[0].jobs, 150);
    cr_expect_eq(w.cls[1].ngpus, 2);
    cr_expect_eq(w.cls[1].gpus[1], 4);
    cr_expect_eq(w.cls[1].jobs, 90);
    /* 150 jobs: the table is the sample (149 steps <= 1000) */
    cr_expect_eq(w.cls[0].dur.n, 150);
    trc_wl_free(&w);
    trc_free(&t);
    /* 120 x 1, 10 x 8, 5 x 16: the tail of 15 joins {1} */
    uint32_t g2[] = {1, 8, 16}, j2[] = {120, 10, 5};
    counts_trace(&t, g2, j2, 3);
    fit(&t, &w);
    cr_assert_eq(w.nclass, 1);
    cr_expect_eq(w.cls[0].ngpus, 3);
    cr_expect_eq(w.cls[0].jobs, 135);
    trc_wl_free(&w);
    trc_free(&t);
    /* 3000 jobs of one count: 1001 quantiles, ends exact */
    uint32_t g3[] = {2}, j3[] = {3000};
    counts_trace(&t, g3, j3, 1);
    fit(&t, &w);
    cr_assert_eq(w.cls[0].dur.n, 1001);
    cr_expect_float_eq(w.cls[0].dur.q[0], 1, 0);
    cr_expect_float_eq(w.cls[0].dur.q[1000], 3000, 0);
    /* rank 2999 * 500 / 1000 = 1499.5: between 1500 and 1501 s */
    cr_expect_float_eq(w.cls[0].dur.q[500], 1500.5, 1e-9);
    trc_wl_free(&w);
    trc_free(&t);
}

Test(workload, degenerate_traces)
{
    struct trace t;
    struct trc_workload w;
    struct dl_error e;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\na,5,1,10\n");
    cr_expect_eq(trc_wl_fit(&t, &w, &e), DL_EINPUT);
    cr_expect(strstr(e.msg, "at least 2 jobs"), "%s", e.msg);
    trc_free(&t);
    /* one submit time: all gaps 0; replay repeats it, poisson cannot */
    tu_trace(&t, "job_id,submit_time,num_gpus,duration\n"
             "a,5,1,10\nb,5,2,20\nc,5,1,30\n");
    fit(&t, &w);
    cr_expect_float_eq(w.gap_mean_s, 0, 0);
    cr_expect_float_eq(w.gap_zero_frac, 1, 0);
    struct trace g;
    like(&w, 10, 1, TRC_ARR_REPLAY, NULL, &g);
    for (uint32_t i = 0; i < g.njobs; i++)
        cr_expect_eq(g.jobs[i].submit, US(5));
    trc_free(&g);
    struct trc_like_opts o = {.seed = 1, .arrivals = TRC_ARR_POISSON};
    cr_expect_eq(trc_generate_like(&o, &w, &g, &e), DL_EINPUT);
    cr_expect(strstr(e.msg, "replay"), "%s", e.msg);
    o.arrivals = TRC_ARR_DIURNAL;
    cr_expect_eq(trc_generate_like(&o, &w, &g, &e), DL_EINPUT);
    trc_wl_free(&w);
    trc_free(&t);
}

/* ---------------------------------------------------------- the YAML file */

Test(workload, yaml_round_trip_same_bytes)
{
    struct trace t;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,model,gpu_type,"
             "deadline,util,mem_gb\n"
             "a,0,1,10,\"we\"\"ird\",V100,20,0.5,3\n"
             "b,3600,2,40,,,,,\n"
             "c,90000,1,30,vgg,,90100,,1.5\n"
             "d,100000,1,20,\"we\"\"ird\",,,0.25,\n"
             "e,2000000,2,50,,,,,\n");
    struct trc_workload w, r;
    fit(&t, &w);
    cr_expect(w.diurnal && w.weekly);   /* 23 days */
    w.source_bytes = 123;
    w.source_crc32 = 0xdeadbeef;
    struct dl_error e;
    const char *p1 = tu_tmp_path("a.yaml"), *p2 = tu_tmp_path("b.yaml");
    cr_assert_eq(trc_wl_write(&w, p1, &e), 0, "%s", e.msg);
    wl_load_ok(p1, &r);
    cr_expect_eq(r.njobs, 5);
    cr_expect_eq(r.source_bytes, 123);
    cr_expect_eq(r.source_crc32, 0xdeadbeef);
    cr_expect_str_eq(r.models.name[1], "we\"ird");
    cr_expect_eq(r.mem_jobs, 2);
    cr_expect_eq(r.deadline_jobs, 2);
    for (int h = 0; h < 24; h++)
        cr_expect_float_eq(r.hourly[h], w.hourly[h], 1e-8);
    cr_assert_eq(trc_wl_write(&r, p2, &e), 0, "%s", e.msg);
    cr_expect(tu_same_file(p1, p2), "a second write differs");
    /* and the generator reads the same from both */
    struct trace g1, g2;
    like(&w, 50, 4, TRC_ARR_DIURNAL, NULL, &g1);
    like(&r, 50, 4, TRC_ARR_DIURNAL, NULL, &g2);
    for (uint32_t i = 0; i < 50; i++) {
        cr_expect_eq(g1.jobs[i].num_gpus, g2.jobs[i].num_gpus);
        cr_expect_leq(llabs(g1.jobs[i].duration - g2.jobs[i].duration), 1);
    }
    trc_free(&g1);
    trc_free(&g2);
    trc_wl_free(&r);
    trc_wl_free(&w);
    trc_free(&t);
}

/* A workload text with one line replaced by REPL (NULL: as is). */
static const char base_yaml[] =
    "kind: workload\n"                                  /* 1 */
    "version: 1\n"                                      /* 2 */
    "source: {trace: x.csv}\n"                          /* 3 */
    "jobs: 10\n"                                        /* 4 */
    "start_s: 0\n"                                      /* 5 */
    "span_s: 100\n"                                     /* 6 */
    "gpus:\n"                                           /* 7 */
    "  1: 6\n"                                          /* 8 */
    "  4: 4\n"                                          /* 9 */
    "durations:\n"                                      /* 10 */
    "  - gpus: [1, 4]\n"                                /* 11 */
    "    jobs: 10\n"                                    /* 12 */
    "    quantiles_s: [10, 20, 40]\n"                   /* 13 */
    "interarrival:\n"                                   /* 14 */
    "  mean_s: 11.1\n"                                  /* 15 */
    "  quantiles_s: [0, 10, 30]\n"                      /* 16 */
    "models: {a: 3, b: 2}\n";                           /* 17 */

static const char *yaml_with(int line, const char *repl)
{
    static char buf[4096];
    const char *p = base_yaml;
    char *o = buf;
    for (int l = 1; *p; l++) {
        const char *e = strchr(p, '\n') + 1;
        if (l == line)
            o += sprintf(o, "%s", repl);
        else
            o += sprintf(o, "%.*s", (int)(e - p), p);
        p = e;
    }
    return buf;
}

Test(workload, yaml_reader_is_strict_and_located)
{
    struct trc_workload w;
    struct dl_error e;
    wl_load_ok(tu_tmp_file("ok.yaml", base_yaml), &w);
    cr_expect_eq(w.nclass, 1);
    cr_expect_eq(w.models.n, 2);
    trc_wl_free(&w);
    static const struct {
        int line;
        const char *repl;
        long eline, ecol;
        const char *msg;
    } bad[] = {
        {1, "kind: cluster\n", 1, 7, "kind: expected 'workload'"},
        {2, "version: 2\n", 2, 10, "version"},
        {4, "jobs: 11\n", 8, 3, "add up to 10, not jobs = 11"},
        {8, "  1: 6.5\n", 8, 6, "whole number"},
        {9, "  0: 4\n", 9, 3, "GPU count"},
        {11, "  - gpus: [1]\n", 12, 11, "gpus lists 6 jobs"},
        {11, "  - gpus: [1, 2]\n", 11, 15, "not a GPU count listed"},
        {13, "    quantiles_s: [10, 5, 40]\n", 13, 23, "must not decrease"},
        {13, "    quantiles_s: [10]\n", 13, 18, "at least 2"},
        {13, "    quantile_s: [10, 20]\n", 13, 5, "unknown key 'quantile_s'"},
        {15, "  mean: 11.1\n", 15, 3, "unknown key 'mean'"},
        {16, "  quantiles_s: [-1, 10, 30]\n", 16, 17, "expected a number"},
        {17, "models: {b: 3, a: 2}\n", 17, 16, "ascending"},
        {17, "models: {a: 9, b: 2}\n", 17, 9, "more than jobs"},
        {17, "diurnal: {hourly: [1, 2]}\n", 17, 19, "expected 24 numbers"},
        {17, "deadlines: {jobs: 3}\n", 17, 12, "missing 'slack_quantiles'"},
        {17, "colour: red\n", 17, 1, "unknown key 'colour'"},
        {17, "jobs: 10\n", 17, 1, "repeated"},
        {6, "span_s: [\n", 8, 4, "YAML"},
        {14, "interarrivals:\n", 1, 1, "missing 'interarrival'"},
        /* strtoul would take a sign or a blank; 8 hex digits only */
        {3, "source: {trace: x.csv, crc32: \"-0000001\"}\n", 3, 31,
         "8 hex digits"},
        {3, "source: {trace: x.csv, crc32: \" 0000001\"}\n", 3, 31,
         "8 hex digits"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p = tu_tmp_file("bad.yaml", yaml_with(bad[i].line,
                                                          bad[i].repl));
        memset(&e, 0, sizeof e);
        cr_expect_eq(trc_wl_load(p, &w, &e), DL_EINPUT, "case %zu", i);
        cr_expect_eq(e.line, bad[i].eline, "case %zu: line %ld (%s)", i,
                     e.line, e.msg);
        cr_expect_eq(e.col, bad[i].ecol, "case %zu: col %ld (%s)", i, e.col,
                     e.msg);
        cr_expect(strstr(e.msg, bad[i].msg), "case %zu: '%s'", i, e.msg);
        cr_expect_null(w.arena);
    }
    /* a missing file is an I/O error */
    cr_expect_eq(trc_wl_load(tu_tmp_path("none.yaml"), &w, &e), DL_EIO);
    /* through the command: exit 2, the location, no output */
    tu_tmp_file("bad.yaml", yaml_with(13, "    quantiles_s: [10, 5, 40]\n"));
    cr_expect_eq(tu_dlsim("trace gen --like bad.yaml -o out.csv"), 2, "%s",
                 tu_out);
    cr_expect(strstr(tu_out, "bad.yaml:13:23:"), "%s", tu_out);
    cr_expect(!tu_exists(tu_tmp_path("out.csv")));
}

/* Whatever the trace reader accepts, trace fit writes a file that trace
 * gen --like reads back: a slack of 3e6 (a 1 s job with a 35-day
 * deadline), mem_gb above 1e6, submit times past 1e11 s (the trace limit
 * is 1e12 s). */
Test(workload, fit_of_extreme_trace_reads_back)
{
    struct trace t;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline,mem_gb\n"
             "a,200000000000,1,1,200003000000,1e6\n"
             "b,900000000000,2,5,900000000020,\n");
    struct trc_workload w, r;
    fit(&t, &w);
    cr_expect_float_eq(w.slack.q[w.slack.n - 1], 3e6, 1e-3);
    struct dl_error e;
    const char *p = tu_tmp_path("x.yaml");
    cr_assert_eq(trc_wl_write(&w, p, &e), 0, "%s", e.msg);
    wl_load_ok(p, &r);
    cr_expect_float_eq(r.start_s, 2e11, 1);
    cr_expect_float_eq(r.span_s, 7e11, 1);
    cr_expect_float_eq(r.slack.q[r.slack.n - 1], 3e6, 1e-3);
    cr_expect_float_eq(r.mem.q[0], 1e6, 1);
    /* the generator then refuses times past its limit, with a message */
    struct trc_like_opts o = {.seed = 1, .arrivals = TRC_ARR_REPLAY};
    struct trace g;
    cr_expect_eq(trc_generate_like(&o, &r, &g, &e), DL_EINPUT);
    cr_expect(strstr(e.msg, "exceed"), "%s", e.msg);
    trc_wl_free(&r);
    trc_wl_free(&w);
    trc_free(&t);
    /* and through the commands, a deadline slack of 3e6 generates */
    tu_tmp_file("s.csv", "job_id,submit_time,num_gpus,duration,deadline\n"
                "a,0,1,1,3000000\nb,10,2,5,20\n");
    cr_expect_eq(tu_dlsim("trace fit s.csv -o s.yaml"), 0, "%s", tu_out);
    cr_expect_eq(tu_dlsim("trace gen --like s.yaml -o g.csv"), 0, "%s", tu_out);
}

/* Names in the YAML: Unicode a YAML reader would refuse or fold (C1
 * controls, NEL, LINE SEPARATOR) escaped so the names read back exactly;
 * a name or path that is not UTF-8 at all is written as !!binary and
 * reads back as the same bytes. */
Test(workload, names_survive_the_yaml)
{
    struct trace t;
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
             "a,0,1,10,r\xc2\x85\xc2\x80x\xe2\x80\xa8,caf\xc3\xa9\n"
             "b,5,1,20,ok,\n");
    struct trc_workload w, r;
    fit(&t, &w);
    w.source = "p\xff.csv";                /* a path need not be UTF-8 */
    struct dl_error e;
    const char *p = tu_tmp_path("n.yaml");
    cr_assert_eq(trc_wl_write(&w, p, &e), 0, "%s", e.msg);
    wl_load_ok(p, &r);
    cr_assert_eq(r.models.n, 2);
    cr_expect_str_eq(r.models.name[1], "r\xc2\x85\xc2\x80x\xe2\x80\xa8");
    cr_expect_str_eq(r.gpu_types.name[0], "caf\xc3\xa9");
    cr_expect_str_eq(r.source, "p\xff.csv");
    trc_wl_free(&r);
    trc_wl_free(&w);
    trc_free(&t);
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,model\n"
             "a,0,1,10,ok\nb,5,1,20,r\xffx\n");
    fit(&t, &w);
    cr_assert_eq(trc_wl_write(&w, p, &e), 0, "%s", e.msg);
    wl_load_ok(p, &r);
    cr_assert_eq(r.models.n, 2);
    cr_expect_str_eq(r.models.name[1], "r\xffx");
    trc_wl_free(&r);
    trc_wl_free(&w);
    trc_free(&t);
}

/* trace scale / --load: a deadline moves with its submit, so it must stay
 * within the largest time a trace may hold, or the written trace would
 * not read back */
Test(workload, scale_keeps_deadlines_in_range)
{
    struct trace t;
    struct cluster c;
    tu_simple_cluster(&c, 1, 1);
    /* 2000 GPU-s over a 1000 s span on 1 GPU: load 2; load 4e-9 stretches
     * gaps 5e8 times: b at 5e11 s, its deadline at 1.4e12 s */
    tu_trace(&t, "job_id,submit_time,num_gpus,duration,deadline\n"
             "a,0,1,1000,\nb,1000,1,1000,900000001000\n");
    double k = 0;
    struct dl_error e = {0};
    cr_expect_eq(trc_scale_load(&t, &c, 4e-9, &k, &e), DL_EINPUT);
    cr_expect(strstr(e.msg, "past the largest time"), "%s", e.msg);
    cr_expect_eq(t.jobs[1].submit, US(1000));      /* untouched */
    /* a smaller stretch fits: b at 5e10 s, deadline 9.5e11 s */
    cr_expect_eq(trc_scale_load(&t, &c, 4e-8, &k, &e), 0, "%s", e.msg);
    cr_expect_eq(t.jobs[1].submit, US(50000000000));
    cr_expect_eq(t.jobs[1].deadline, US(950000000000));
    trc_free(&t);
    clu_free(&c);
}

/* ------------------------------------------------------------ generation */

Test(workload, apportioning_by_largest_remainder)
{
    struct trace t;
    struct trc_workload w;
    /* 5 x 1, 3 x 2, 2 x 4 */
    uint32_t g[] = {1, 2, 4}, j[] = {5, 3, 2};
    counts_trace(&t, g, j, 3);
    fit(&t, &w);
    static const struct { uint32_t n, c1, c2, c4; } want[] = {
        {10, 5, 3, 2},          /* the fitted counts */
        {7, 4, 2, 1},           /* 3.5 2.1 1.4: remainders .5 .1 .4 */
        {20, 10, 6, 4},
        {1, 1, 0, 0},           /* .5 .3 .2 */
        {3, 1, 1, 1},           /* 1.5 .9 .6: floors 1 0 0; then .9 .6 */
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        struct trace o;
        like(&w, want[k].n, 7, TRC_ARR_REPLAY, NULL, &o);
        uint32_t c[5] = {0};
        for (uint32_t i = 0; i < o.njobs; i++)
            c[o.jobs[i].num_gpus]++;
        cr_expect_eq(c[1], want[k].c1, "n %u", want[k].n);
        cr_expect_eq(c[2], want[k].c2, "n %u", want[k].n);
        cr_expect_eq(c[4], want[k].c4, "n %u", want[k].n);
        trc_free(&o);
    }
    trc_wl_free(&w);
    trc_free(&t);
}

Test(workload, generation_deterministic_and_streams_independent)
{
    const char *p = tu_tmp_file("w.yaml", base_yaml);
    struct trc_workload w;
    wl_load_ok(p, &w);
    struct trace a, b, c;
    like(&w, 500, 3, TRC_ARR_REPLAY, NULL, &a);
    like(&w, 500, 3, TRC_ARR_REPLAY, "x,y,z", &b);
    like(&w, 500, 4, TRC_ARR_REPLAY, NULL, &c);
    uint32_t same = 0, nx = 0, na = 0;
    for (uint32_t i = 0; i < 500; i++) {
        /* another model list changes no other column */
        cr_expect_eq(a.jobs[i].submit, b.jobs[i].submit);
        cr_expect_eq(a.jobs[i].duration, b.jobs[i].duration);
        cr_expect_eq(a.jobs[i].num_gpus, b.jobs[i].num_gpus);
        same += a.jobs[i].duration == c.jobs[i].duration;
        nx += !strcmp(b.jobs[i].model, "x");
        na += a.jobs[i].model && !strcmp(a.jobs[i].model, "a");
        /* durations within the table, gaps within theirs */
        cr_expect_geq(a.jobs[i].duration, US(10));
        cr_expect_leq(a.jobs[i].duration, US(40));
        if (i)
            cr_expect_leq(a.jobs[i].submit - a.jobs[i - 1].submit, US(30));
    }
    cr_expect_lt(same, 10, "another seed gave the same durations");
    cr_expect_eq(nx, 167);      /* 500 / 3 = 166.67: x gets the extra one */
    cr_expect_eq(na, 150);      /* 3 of 10 jobs */
    cr_expect_eq(a.jobs[0].submit, 0);
    trc_free(&a);
    trc_free(&b);
    trc_free(&c);
    trc_wl_free(&w);
    /* the command: the same bytes for a seed, others for another */
    cr_assert_eq(tu_dlsim("trace gen --like w.yaml --jobs 300 --seed 5 "
                       "-o a.csv"), 0, "%s", tu_out);
    cr_assert_eq(tu_dlsim("trace gen --seed 5 -o b.csv --like w.yaml --jobs "
                       "300"), 0, "%s", tu_out);
    cr_assert_eq(tu_dlsim("trace gen --like w.yaml --jobs 300 --seed 6 "
                       "-o c.csv"), 0, "%s", tu_out);
    cr_expect(tu_same_file(tu_tmp_path("a.csv"), tu_tmp_path("b.csv")));
    cr_expect(!tu_same_file(tu_tmp_path("a.csv"), tu_tmp_path("c.csv")));
}

/* The exact share of arrivals by hour of day (and weekday) over [t0, t1]
 * under w's diurnal rate; returns the integral of the relative rate
 * (trc_wl_rate) over [t0, t1] in seconds. */
static double expected_shares(const struct trc_workload *w, double t0,
                              double t1, double *hour, double *day)
{
    double tot = 0;
    memset(hour, 0, 24 * sizeof *hour);
    memset(day, 0, 7 * sizeof *day);
    for (double h = floor(t0 / 3600) * 3600; h < t1; h += 3600) {
        double lo = fmax(h, t0), hi = fmin(h + 3600, t1);
        double m = trc_wl_rate(w, h + 1) * (hi - lo);
        hour[(long)(h / 3600) % 24] += m;
        day[(long)(h / 86400) % 7] += m;
        tot += m;
    }
    for (int i = 0; i < 24; i++)
        hour[i] /= tot;
    for (int i = 0; i < 7; i++)
        day[i] /= tot;
    return tot;
}

/* Chi-square of counts against n * shares; bins of share 0 must be
 * empty.  *df = non-empty bins - 1. */
static double chi2(const uint32_t *obs, const double *share, int k,
                   uint32_t n, int *df)
{
    double x = 0;
    *df = -1;
    for (int i = 0; i < k; i++) {
        if (share[i] == 0) {
            cr_expect_eq(obs[i], 0, "a job in bin %d of rate 0", i);
            continue;
        }
        double e = n * share[i];
        x += (obs[i] - e) * (obs[i] - e) / e;
        (*df)++;
    }
    return x;
}

Test(workload, diurnal_process_follows_the_profile)
{
    /* work 8:00-18:00 only, a quiet weekend (days 5, 6 of the clock) */
    const char *y =
        "kind: workload\nversion: 1\njobs: 2\nstart_s: 0\nspan_s: 60\n"
        "gpus: {1: 2}\ndurations:\n  - {gpus: [1], jobs: 2, "
        "quantiles_s: [60, 60]}\ninterarrival: {mean_s: 60, "
        "quantiles_s: [60, 60]}\ndiurnal:\n  hourly: [0, 0, 0, 0, 0, 0, 0, "
        "0, 1, 2, 2, 2, 1, 1, 2, 2, 2, 1, 0, 0, 0, 0, 0, 0]\n"
        "  weekly: [1, 1, 1, 1, 1, 0.25, 0.25]\n";
    struct trc_workload w;
    wl_load_ok(tu_tmp_file("d.yaml", y), &w);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        struct trace t;
        const uint32_t n = 40000;
        like(&w, n, seed, TRC_ARR_DIURNAL, NULL, &t);
        uint32_t hour[24] = {0}, day[7] = {0};
        for (uint32_t i = 1; i < n; i++) {
            simtime_t s = t.jobs[i].submit;
            cr_assert_geq(s, t.jobs[i - 1].submit);
            hour[(s / US(3600)) % 24]++;
            day[(s / US(86400)) % 7]++;
        }
        double eh[24], ed[7];
        double area = expected_shares(&w, 0, (double)t.jobs[n - 1].submit /
                                      SIM_US_PER_S, eh, ed);
        int df;
        double x = chi2(hour, eh, 24, n - 1, &df);
        cr_expect_eq(df, 9);
        cr_expect_lt(x, gsl_cdf_chisq_Qinv(0.001, df), "hourly chi2 %g", x);
        x = chi2(day, ed, 7, n - 1, &df);
        cr_expect_lt(x, gsl_cdf_chisq_Qinv(0.001, df), "weekly chi2 %g", x);
        /* the rate is (h / mean h) (w / mean w) / 60 s, so the cumulative
         * rate up to the last arrival, a sum of n - 1 Exp(1) draws, is
         * n - 1 within 5 standard deviations */
        double hm = 0, dm = 0;
        for (int i = 0; i < 24; i++)
            hm += w.hourly[i] / 24;
        for (int i = 0; i < 7; i++)
            dm += w.daily[i] / 7;
        double cum = area / (60 * hm * dm);
        cr_expect_lt(fabs(cum - (n - 1)), 5 * sqrt(n - 1.0), "%g", cum);
        trc_free(&t);
    }
    trc_wl_free(&w);
}

/* --------------------------------------------------------------- real data */

/* Converts the ITP CSV (job_id,submission_time,duration,num_gpu) or its
 * ElasticFlow variant (adds model_name and deadline) to a native trace at
 * out; false when the data is absent. */
static bool convert_itp(const char *in, const char *out, bool elastic)
{
    gzFile z = gzopen(in, "rb");
    if (!z)
        return false;
    FILE *f = fopen(out, "w");
    cr_assert(f);
    fputs(elastic ? "job_id,submit_time,num_gpus,duration,model,deadline\n"
                  : "job_id,submit_time,num_gpus,duration\n", f);
    char line[512];
    cr_assert(gzgets(z, line, sizeof line));   /* header */
    while (gzgets(z, line, sizeof line)) {
        char *fld[8], *save = NULL;
        int k = 0;
        line[strcspn(line, "\r\n")] = 0;
        for (char *s = strtok_r(line, ",", &save); s && k < 8;
             s = strtok_r(NULL, ",", &save))
            fld[k++] = s;
        if (elastic) {
            /* job_id,submission_time,num_iteration,model_name,deadline,
             * batch_size,num_gpu,duration */
            cr_assert_eq(k, 8);
            fprintf(f, "%s,%s,%s,%s,%s,%s\n", fld[0], fld[1], fld[6], fld[7],
                    fld[3], fld[4]);
        } else {
            cr_assert_eq(k, 4);
            fprintf(f, "%s,%s,%s,%s\n", fld[0], fld[1], fld[3], fld[2]);
        }
    }
    gzclose(z);
    fclose(f);
    return true;
}

static void load_path(const char *p, struct trace *t)
{
    struct dl_error e = {0};
    cr_assert_eq(trc_load(p, t, &e, NULL), 0, "%s:%ld: %s", e.file, e.line,
                 e.msg);
}

/* Sorted GPU counts of t equal those of u. */
static void same_gpu_counts(const struct trace *t, const struct trace *u)
{
    cr_assert_eq(t->njobs, u->njobs);
    uint32_t *a = malloc(t->njobs * sizeof *a), *b = malloc(t->njobs * sizeof *b);
    for (uint32_t i = 0; i < t->njobs; i++) {
        a[i] = t->jobs[i].num_gpus;
        b[i] = u->jobs[i].num_gpus;
    }
    qsort(a, t->njobs, sizeof *a, cmp_u32);
    qsort(b, t->njobs, sizeof *b, cmp_u32);
    cr_expect_arr_eq(a, b, t->njobs * sizeof *a, "GPU counts differ");
    free(a);
    free(b);
}

Test(workload, itp_cluster04_replay_matches, .timeout = 300)
{
    const char *csv = tu_tmp_path("c04.csv");
    if (!convert_itp(ITP "/raw/cluster04.csv.gz", csv, false))
        cr_skip_test("no ITP data at " ITP);
    struct trace real;
    load_path(csv, &real);
    cr_assert_eq(real.njobs, 15802);
    struct trc_workload w;
    fit(&real, &w);
    cr_expect(w.diurnal && w.weekly);
    for (uint64_t seed = 1; seed <= 5; seed++) {
        struct trace g;
        like(&w, 0, seed, TRC_ARR_REPLAY, NULL, &g);
        same_gpu_counts(&real, &g);
        struct trc_cmp r;
        struct dl_error e;
        cr_assert_eq(trc_compare(&real, &g, &r, &e), 0);
        cr_expect_eq(r.tv_gpus, 0);
        cr_expect_lt(r.ks_dur, r.crit_dur, "seed %lu: durations D %g >= %g",
                     (unsigned long)seed, r.ks_dur, r.crit_dur);
        cr_expect_lt(r.ks_gap, r.crit_gap, "seed %lu: gaps D %g >= %g",
                     (unsigned long)seed, r.ks_gap, r.crit_gap);
        /* the share of zero gaps (batch arrivals) is kept within 1 point */
        uint32_t z = 0;
        for (uint32_t i = 1; i < g.njobs; i++)
            z += g.jobs[i].submit == g.jobs[i - 1].submit;
        cr_expect_float_eq((double)z / (g.njobs - 1), w.gap_zero_frac, 0.01);
        trc_free(&g);
    }
    /* a different N keeps the proportions: 3 x the jobs, 3 x each count */
    struct trace g;
    like(&w, 3 * real.njobs, 1, TRC_ARR_POISSON, NULL, &g);
    uint32_t c1 = 0;
    for (uint32_t i = 0; i < g.njobs; i++)
        c1 += g.jobs[i].num_gpus == 1;
    cr_expect_eq(c1, 3 * w.gpu_jobs[0]);
    trc_free(&g);
    trc_wl_free(&w);
    trc_free(&real);
}

Test(workload, itp_elasticflow_models_and_deadlines, .timeout = 300)
{
    const char *csv = tu_tmp_path("e04.csv");
    if (!convert_itp(ITP "/elasticflow/cluster04.csv.gz", csv, true))
        cr_skip_test("no ITP data at " ITP);
    struct trace real;
    load_path(csv, &real);
    struct trc_workload w;
    fit(&real, &w);
    cr_assert_eq(w.models.n, 6);
    cr_assert_eq(w.deadline_jobs, real.njobs);
    /* the real slacks, sorted */
    double *rs = malloc(real.njobs * sizeof *rs);
    double *gs = malloc(real.njobs * sizeof *gs);
    for (uint64_t seed = 1; seed <= 5; seed++) {
        struct trace g;
        like(&w, 0, seed, TRC_ARR_REPLAY, NULL, &g);
        same_gpu_counts(&real, &g);
        /* model counts exactly the real ones */
        for (uint32_t m = 0; m < w.models.n; m++) {
            uint32_t cr = 0, cg = 0;
            for (uint32_t i = 0; i < real.njobs; i++) {
                cr += !strcmp(real.jobs[i].model, w.models.name[m]);
                cg += !strcmp(g.jobs[i].model, w.models.name[m]);
            }
            cr_expect_eq(cg, cr, "model %s", w.models.name[m]);
        }
        for (uint32_t i = 0; i < real.njobs; i++) {
            const struct trc_job *a = &real.jobs[i], *b = &g.jobs[i];
            cr_assert_neq(b->deadline, SIM_NEVER);
            rs[i] = (double)(a->deadline - a->submit) / (double)a->duration;
            gs[i] = (double)(b->deadline - b->submit) / (double)b->duration;
        }
        double d = trc_ks2(rs, real.njobs, gs, g.njobs);
        double crit = 1.62762 * sqrt(2.0 / real.njobs);
        cr_expect_lt(d, crit, "seed %lu: slack D %g", (unsigned long)seed, d);
        struct trc_cmp r;
        struct dl_error e;
        cr_assert_eq(trc_compare(&real, &g, &r, &e), 0);
        cr_expect_lt(r.ks_dur, r.crit_dur);
        cr_expect_lt(r.ks_gap, r.crit_gap);
        trc_free(&g);
    }
    free(rs);
    free(gs);
    /* --models none drops them; a list shares them equally */
    struct trace g;
    like(&w, 600, 1, TRC_ARR_REPLAY, "", &g);
    for (uint32_t i = 0; i < g.njobs; i++)
        cr_expect_null(g.jobs[i].model);
    trc_free(&g);
    trc_wl_free(&w);
    trc_free(&real);
}

/* ------------------------------------------------------------- commands */

Test(workload, commands_fit_gen_compare_scale)
{
    /* a trace of 400 jobs over 3 days, from the classic generator */
    cr_assert_eq(tu_dlsim("trace gen --jobs 400 --load 0.05 --seed 2 "
                       "--deadline-slack 2:3 --models a,b -o real.csv"), 0,
                 "%s", tu_out);
    cr_assert_eq(tu_dlsim("trace fit real.csv -o w.yaml"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "fitted 400 jobs"), "%s", tu_out);
    cr_assert_eq(tu_dlsim("trace fit real.csv -o w2.yaml"), 0);
    cr_expect(tu_same_file(tu_tmp_path("w.yaml"), tu_tmp_path("w2.yaml")));
    size_t n;
    char *y = tu_slurp(tu_tmp_path("w.yaml"), &n);
    cr_expect(strstr(y, "kind: workload\nversion: 1\n"), "%s", y);
    cr_expect(strstr(y, "  trace: \"real.csv\"\n"), "%s", y);
    free(y);
    /* --like with --load: the offered load on the cluster is exactly X */
    cr_assert_eq(tu_dlsim("trace gen --like w.yaml --arrivals poisson --load 0.7 "
                       "-o g.csv"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "offered load 0.7000 on demo-256"), "%s",
              tu_out);
    struct trace g;
    struct cluster c;
    load_path(tu_tmp_path("g.csv"), &g);
    clu_builtin_demo(&c);
    cr_expect_float_eq(trc_offered_load(&g, &c), 0.7, 1e-5);
    trc_free(&g);
    /* --models zoo: the zoo's names in equal shares (within one) */
    cr_assert_eq(tu_dlsim("trace gen --like w.yaml --models zoo --jobs 1000 "
                       "-o z.csv"), 0, "%s", tu_out);
    load_path(tu_tmp_path("z.csv"), &g);
    const char *names[64];
    uint32_t cnt[64] = {0}, nn = 0;
    for (uint32_t i = 0; i < g.njobs; i++) {
        uint32_t k;
        cr_assert_not_null(g.jobs[i].model);
        for (k = 0; k < nn && strcmp(names[k], g.jobs[i].model); k++)
            ;
        if (k == nn) {
            cr_assert_lt(nn, 64);
            names[nn++] = g.jobs[i].model;
        }
        cnt[k]++;
    }
    cr_expect_geq(nn, 10, "only %u zoo models", nn);
    for (uint32_t k = 0; k < nn; k++)
        cr_expect_leq(abs((int)cnt[k] - (int)(1000 / nn)), 1, "%s: %u",
                      names[k], cnt[k]);
    trc_free(&g);
    /* trace scale materializes --load */
    cr_assert_eq(tu_dlsim("trace scale real.csv --load 1.3 -o s.csv.gz"), 0,
                 "%s", tu_out);
    load_path(tu_tmp_path("s.csv.gz"), &g);
    cr_expect_float_eq(trc_offered_load(&g, &c), 1.3, 1e-5);
    trc_free(&g);
    clu_free(&c);
    /* compare prints the statistics */
    cr_assert_eq(tu_dlsim("trace compare real.csv g.csv"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "durations"), "%s", tu_out);
    const char *tv = strstr(tu_out, "GPU counts: TV distance");
    double tvd = -1;
    cr_expect(tv && sscanf(tv + 23, "%lf", &tvd) == 1 && tvd == 0, "%s",
              tu_out);
    /* usage errors: exit 2 and no output */
    cr_expect_eq(tu_dlsim("trace gen --like w.yaml --gpus 1 -o x.csv"), 2);
    cr_expect(strstr(tu_out, "--gpus does not apply with --like"), "%s",
              tu_out);
    cr_expect_eq(tu_dlsim("trace gen --arrivals poisson -o x.csv"), 2);
    cr_expect_eq(tu_dlsim("trace gen --like w.yaml --arrivals hourly -o x.csv"),
                 2);
    cr_expect_eq(tu_dlsim("trace gen --like w.yaml --models a,,b -o x.csv"), 2);
    cr_expect_eq(tu_dlsim("trace gen --like w.yaml --cluster c.yaml -o x.csv"),
                 2);
    cr_expect(strstr(tu_out, "--cluster only serves --load"), "%s",
              tu_out);
    cr_expect_eq(tu_dlsim("trace gen --like none.yaml -o x.csv"), 1);
    cr_expect_eq(tu_dlsim("trace scale real.csv -o x.csv"), 2);
    cr_expect_eq(tu_dlsim("trace compare real.csv"), 2);
    cr_expect(!tu_exists(tu_tmp_path("x.csv")));
    tu_tmp_file("bad.csv", "job_id,submit_time,num_gpus,duration\na,0,1,1\n"
                "b,x,1,1\n");
    cr_expect_eq(tu_dlsim("trace fit bad.csv -o b.yaml"), 2);
    cr_expect(strstr(tu_out, "bad.csv:3"), "%s", tu_out);
    cr_expect(!tu_exists(tu_tmp_path("b.yaml")));
    tu_tmp_file("one.csv", "job_id,submit_time,num_gpus,duration\na,0,1,1\n");
    cr_expect_eq(tu_dlsim("trace fit one.csv -o b.yaml"), 2);
    cr_expect(!tu_exists(tu_tmp_path("b.yaml")));
}

Test(workload, help_documents_every_flag)
{
    static const struct { const char *cmd; const char *flags[8]; } h[] = {
        {"trace gen", {"--like", "--arrivals", "replay", "poisson",
                       "diurnal", "--models", "--load", "--jobs"}},
        {"trace fit", {"--output", "--help", "quantile", "CRC-32"}},
        {"trace compare", {"--cluster", "--help", "Kolmogorov", "1%"}},
        {"trace scale", {"--load", "--cluster", "--output", "--help"}},
    };
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++) {
        cr_assert_eq(tu_dlsim("%s --help", h[i].cmd), 0);
        for (int k = 0; k < 8 && h[i].flags[k]; k++)
            cr_expect(strstr(tu_out, h[i].flags[k]), "%s: no %s",
                      h[i].cmd, h[i].flags[k]);
    }
    cr_assert_eq(tu_dlsim("trace --help"), 0);
    cr_expect(strstr(tu_out, "  trace fit ") && strstr(tu_out, "  trace compare ") &&
              strstr(tu_out, "  trace scale "), "%s", tu_out);
}

/* Many categories (issue 13, quadratic time): 100,000 distinct GPU
 * counts and model names fit, read back and generate (half as many jobs
 * again, so that every category has a remainder) in about 2 s, where the
 * reader scanned every count per class entry and the generator picked
 * each largest remainder by a scan over all categories (some 20 s). */
#ifdef __SANITIZE_ADDRESS__
#define SLOW 5                  /* the sanitizers' slowdown, with margin */
#else
#define SLOW 1
#endif

Test(workload, many_categories_in_linear_time, .timeout = 300)
{
    enum { N = 100000 };
    struct trace t;
    trc_init(&t, "many.csv", N);
    char name[32];
    for (uint32_t i = 0; i < N; i++) {
        snprintf(name, sizeof name, "m%05u", i);
        t.jobs[i].id = arena_strndup(t.arena, name, strlen(name));
        t.jobs[i].model = t.jobs[i].id;
        t.jobs[i].submit = (simtime_t)i * 1000;
        t.jobs[i].duration = 1000000 + i;
        t.jobs[i].num_gpus = i == N - 1 ? UINT32_C(1) << 31 : 1 + i;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct trc_workload w, r;
    fit(&t, &w);
    struct dl_error e;
    const char *p = tu_tmp_path("many.yaml");
    cr_assert_eq(trc_wl_write(&w, p, &e), 0, "%s", e.msg);
    wl_load_ok(p, &r);
    cr_expect_eq(r.ngpu, N);
    cr_expect_eq(r.gpus[N - 1], UINT32_C(1) << 31);
    struct trace g;
    like(&r, N + N / 2, 3, TRC_ARR_REPLAY, NULL, &g);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) +
               1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_expect(s < 8 * SLOW, "%.1f s", s);
    /* every category at least once, the 2^31-GPU job among them */
    uint32_t big = 0;
    for (uint32_t i = 0; i < g.njobs; i++)
        big += g.jobs[i].num_gpus == UINT32_C(1) << 31;
    cr_expect_geq(big, 1);
    trc_free(&g);
    like(&r, 0, 3, TRC_ARR_REPLAY, NULL, &g);
    big = 0;
    for (uint32_t i = 0; i < g.njobs; i++)
        big += g.jobs[i].num_gpus == UINT32_C(1) << 31;
    cr_expect_eq(big, 1);
    trc_free(&g);
    trc_wl_free(&r);
    trc_wl_free(&w);
    trc_free(&t);
}

/* A 2^31-GPU job (the trace reader takes up to 2^32 - 2) fits, and trace
 * gen --like takes the fit: the reader's bound was 10^9. */
Test(workload, huge_gpu_counts_round_trip_through_the_commands)
{
    tu_tmp_file("big.csv", "job_id,submit_time,num_gpus,duration\n"
                "a,0,2147483648,10\nb,5,4294967294,20\nc,9,1,5\n");
    cr_expect_eq(tu_dlsim("trace fit big.csv -o big.yaml"), 0, "%s", tu_out);
    cr_expect_eq(tu_dlsim("trace gen --like big.yaml -o g.csv"), 0, "%s",
                 tu_out);
    cr_expect_eq(tu_dlsim("trace stats g.csv"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "4294967294"), "%s", tu_out);
    /* a workload asking for more jobs than the generator holds */
    cr_expect_eq(tu_dlsim("trace gen --like big.yaml --jobs 20000000 -o h.csv"),
                 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "at most 16777216"), "%s", tu_out);
}
