/*
 * tests/test_report.c - `dlsim report` (sim/report/report.c): the statistics and
 * CDF points by hand; hand-made sweep directories (error bars = the
 * standard deviation of three seeds, CDF points at known quantiles, the
 * versus-load plots only when the load varies, failed runs, no QoS jobs);
 * located errors with exit status 2 and nothing written; a missing gnuplot
 * (exit 1); byte-identical reruns; a 150,000-job run cut to few CDF points;
 * and an end-to-end sweep of real runs whose page opens in headless
 * Chromium with every image loaded, a non-blank screenshot, and numbers
 * equal to those recomputed from the summary.csv the test wrote.
 */
#include "testutil.h"
#include "sim/report/report.h"
#include "models/perf.h"
#include "sim/base/formats.h"

#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

/* The rows of gnuplot data block name in script: up to max rows of up to
 * six numbers.  Returns the row count; asserts the block exists. */
static int block(const char *script, const char *name, double (*row)[6], int max)
{
    char head[128];
    snprintf(head, sizeof head, "$%s << EOD\n", name);
    const char *p = strstr(script, head);
    cr_assert(p, "no data block %s", name);
    p += strlen(head);
    int n = 0;
    while (strncmp(p, "EOD\n", 4)) {
        double v[6] = { NAN, NAN, NAN, NAN, NAN, NAN };
        int k = sscanf(p, "%lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3],
                       &v[4], &v[5]);
        cr_assert(k >= 2, "bad row in %s", name);
        if (n < max)
            memcpy(row[n], v, sizeof v);
        n++;
        p = strchr(p, '\n') + 1;
    }
    return n;
}

static void expect_rel(double got, double want, const char *what)
{
    double tol = 1e-6 * fmax(fabs(want), 1e-9);
    cr_expect(fabs(got - want) <= tol, "%s: %.17g, expected %.17g", what, got,
              want);
}

/* ---------------------------------------------------------- by hand */

Test(report, mean_and_sample_std_by_hand)
{
    double x[] = { 1, 2, 4 }, m, s;
    rpt_mean_std(x, 3, &m, &s);
    expect_rel(m, 7.0 / 3, "mean");
    /* squares of deviations 16/9 + 1/9 + 25/9 = 42/9, over n - 1 = 2 */
    expect_rel(s, sqrt(7.0 / 3), "std");
    rpt_mean_std(x, 1, &m, &s);
    cr_expect_eq(m, 1);
    cr_expect_eq(s, 0);
    rpt_mean_std(x, 0, &m, &s);
    cr_expect(isnan(m));
    /* huge values: neither the sum nor the squares may overflow */
    double h[] = { 1e308, 1.7e308, 1.3e308 };
    rpt_mean_std(h, 3, &m, &s);
    expect_rel(m, 1.3333333333333333e308, "huge mean");
    /* deviations -1/3, 11/30, -1/30 (x 1e308): squares sum 0.2467, / 2 */
    expect_rel(s, sqrt((1.0 / 9 + 121.0 / 900 + 1.0 / 900) / 2) * 1e308,
               "huge std");
}

/* The t quantiles against a printed table of Student's t (two-sided 95 %:
 * 12.706, 4.303, 3.182, 2.228 for 10, 2.042 for 30), and a CI by hand. */
Test(report, t_quantiles_and_confidence_intervals_by_hand)
{
    static const struct { unsigned df; double t; } tab[] = {
        { 1, 12.706204736174707 }, { 2, 4.302652729749464 },
        { 3, 3.182446305284263 }, { 10, 2.228138851986274 },
        { 30, 2.042272456301238 },
    };
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
        expect_rel(rpt_t975(tab[i].df), tab[i].t, "t(0.975)");
    /* 1, 2, 4: mean 7/3, s = sqrt(7/3), half-width 4.302653 s / sqrt(3) */
    double x[] = { 1, 2, 4 }, lo, hi;
    rpt_ci95(x, 3, &lo, &hi);
    expect_rel(lo, 7.0 / 3 - 4.302652729749464 * sqrt(7.0 / 9), "lo");
    expect_rel(hi, 7.0 / 3 + 4.302652729749464 * sqrt(7.0 / 9), "hi");
    /* 10, 12: mean 11, s = sqrt(2), half-width 12.7062 * sqrt(2) / sqrt(2) */
    double y[] = { 10, 12 };
    rpt_ci95(y, 2, &lo, &hi);
    expect_rel(lo, 11 - 12.706204736174707, "lo2");
    expect_rel(hi, 11 + 12.706204736174707, "hi2");
    rpt_ci95(y, 1, &lo, &hi);
    cr_expect(isnan(lo) && isnan(hi), "one value has no interval");
}

/* Table cells of absurdly large values stay whole: four significant
 * digits in e-notation rather than a 300-digit number cut at 63 bytes. */
Test(report, huge_values_fit_the_cells, .fini = tu_tmp_cleanup)
{
    tu_tmp_file("h/summary.csv", "run_id,policy,status,seed,qos_guarantee_rate,"
        "gpu_util_alloc,gpu_util_effective,makespan,avg_wait,p99_wait,avg_jct\n"
        "a,fifo,ok,1,0.5,0.5,0.5,1e308,1,2,3\n"
        "b,fifo,ok,2,0.5,0.5,0.5,1.7e308,1,2,3\n");
    cr_assert_eq(tu_sh("$DLSIM report h"), 0, "%s", tu_out);
    char *md = tu_slurp(tu_tmp_path("h/report.md"), NULL);
    cr_expect(strstr(md, "| 3.75e+304 ± 1.375e+304 [-8.603e+304, 1.61e+305] |"),
              "%s", md);
    free(md);
}

Test(report, cdf_points_at_nearest_ranks)
{
    double x[1000], px[400], pf[400];
    for (int i = 0; i < 1000; i++)
        x[i] = i + 1;
    /* four points: the quartiles by nearest rank */
    cr_assert_eq(rpt_cdf_points(x, 1000, 4, px, pf), 4);
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(px[i], 250 * (i + 1));
        cr_expect_eq(pf[i], 0.25 * (i + 1));
    }
    /* ten samples, four points: ranks ceil(10 i / 4) = 3, 5, 8, 10 */
    cr_assert_eq(rpt_cdf_points(x, 10, 4, px, pf), 4);
    cr_expect_eq(px[0], 3);
    cr_expect_eq(px[1], 5);
    cr_expect_eq(px[2], 8);
    cr_expect_eq(px[3], 10);
    cr_expect_eq(pf[2], 0.8);
    /* fewer samples than points: every sample */
    cr_assert_eq(rpt_cdf_points(x, 3, 400, px, pf), 3);
    cr_expect_eq(px[2], 3);
    cr_expect_eq(pf[0], 1.0 / 3);
    cr_expect_eq(pf[2], 1);
}

/* ---------------------------------------------------------- hand sweeps */

static const char sum_head[] =
    "run_id,scenario,policy,trace,cluster,models,load,seed,status,error,jobs,"
    "jobs_finished,makespan,avg_jct,p50_jct,avg_wait,p99_wait,qos_jobs,"
    "qos_guarantee_rate,gpu_util_alloc,gpu_util_effective,extra\n";

/* A run directory: jobs.csv with jct base+1 .. base+4 hours (wait 0), an
 * unfinished job when unfinished, and a three-row timeseries.csv. */
static void hand_run(const char *sweep, const char *id, int base, bool unfinished)
{
    char name[600], text[2048];
    size_t k = (size_t)snprintf(text, sizeof text,
        "job_id,submit_time,start_time,finish_time,wait_time,jct,num_gpus,"
        "gpu_type,placement,preemptions,deadline,qos_met,isolated_runtime,"
        "slowdown\n");
    for (int i = 1; i <= 4; i++) {
        int jct = (base + i) * 3600;
        k += (size_t)snprintf(text + k, sizeof text - k,
                              "\"j,%d\",0,0,%d,0,%d,1,V100,n0:0,0,,,%d,1\n",
                              i, jct, jct, jct);
    }
    if (unfinished)
        k += (size_t)snprintf(text + k, sizeof text - k,
                              "late,0,,,,,1,,,0,,,,\n");
    snprintf(name, sizeof name, "%s/runs/%s/jobs.csv", sweep, id);
    tu_tmp_file(name, text);
    snprintf(name, sizeof name, "%s/runs/%s/timeseries.csv", sweep, id);
    tu_tmp_file(name, "time,queued_jobs,running_jobs,busy_gpus,util_alloc,util_effective\n"
              "0,2,1,1,0.25,0.2\n3600,1,2,2,0.5,0.4\n7200,0,1,1,0.25,0.2\n");
}

/* fifo: avg_jct 1, 2, 4 h; qos 0.5, 0.75, 1; util 0.2, 0.4, 0.6.
 * sjf (options, quoted): no QoS jobs; avg_jct 1 h each seed.
 * srtf: one failed run.  load is the load column of every row. */
static void hand_sweep(const char *sweep, const char *load, int copies)
{
    char text[8192], name[256];
    size_t k = (size_t)snprintf(text, sizeof text, "%s", sum_head);
    static const double jct[] = { 3600, 7200, 14400 }, qos[] = { 0.5, 0.75, 1 };
    for (int c = 0; c < copies; c++) {
        const char *ld = c ? "1" : load;
        for (int s = 0; s < 3; s++) {
            k += (size_t)snprintf(text + k, sizeof text - k,
                "f%d_%d,,fifo,t.csv,tiny,,%s,%d,ok,,4,4,%g,%g,0,0,0,4,%g,%g,%g,x\n",
                c, s, ld, s + 1, 36000.0 * (s + 1), jct[s] * (c + 1), qos[s],
                0.2 * (s + 1), 0.1 * (s + 1));
            k += (size_t)snprintf(text + k, sizeof text - k,
                "s%d_%d,,\"sjf:backfill=1,predicted=0\",t.csv,tiny,,%s,%d,ok,,"
                "4,4,36000,3600,0,0,0,0,,0.5,0.5,y\n", c, s, ld, s + 1);
            snprintf(name, sizeof name, "f%d_%d", c, s);
            hand_run(sweep, name, 4 * s, s == 0);
            snprintf(name, sizeof name, "s%d_%d", c, s);
            hand_run(sweep, name, 0, false);
        }
    }
    k += (size_t)snprintf(text + k, sizeof text - k,     /* not run yet */
        "later,,horus,t.csv,tiny,,%s,1,pending,,,,,,,,,,,,,\n", load);
    k += (size_t)snprintf(text + k, sizeof text - k,
        "bad,,srtf,t.csv,tiny,,%s,1,failed,\"out of memory, \"\"badly\"\"\",,,,,,,,,,,,\n",
        load);
    snprintf(name, sizeof name, "%s/summary.csv", sweep);
    tu_tmp_file(name, text);
}

/* Every SVG stays well-formed XML whatever the names: gnuplot escapes only
 * & and <, so a byte that is not UTF-8, U+FFFE and "]]>" in a policy name
 * are made harmless in the script. */
Test(report, odd_names_keep_svgs_well_formed, .fini = tu_tmp_cleanup)
{
    hand_run("x", "a", 0, false);
    tu_tmp_file("x/summary.csv", "run_id,policy,status,seed,qos_guarantee_rate,"
        "gpu_util_alloc,gpu_util_effective,makespan,avg_wait,p99_wait,avg_jct\n"
        "a,\"a<b&c\xff]]>\xef\xbf\xbe\",ok,1,0.5,0.5,0.5,10,1,2,3\n");
    cr_assert_eq(tu_sh("$DLSIM report x --plots p"), 0, "%s", tu_out);
    char *gp = tu_slurp(tu_tmp_path("p/report.gp"), NULL);
    cr_expect(strstr(gp, "title 'a<b&c\xef\xbf\xbd]] >\xef\xbf\xbd'\n"),
              "%s", gp);
    free(gp);
    int svgs = 0;
    for (int i = 0; i < 20; i++) {
        char name[32];
        snprintf(name, sizeof name, "p/f%03d.svg", i);
        if (!tu_tmp_exists(name))
            continue;
        svgs++;
        char *svg = tu_slurp(tu_tmp_path(name), NULL);
        cr_expect_null(strstr(svg, "]]>"), "%s", name);
        uint32_t c;
        for (const char *q = svg; *q;) {
            int n = sim_utf8_char(q, &c);
            if (!n || c == 0xfffe || c == 0xffff) {
                cr_expect_fail("%s: not UTF-8 XML text at byte %td", name,
                               q - svg);
                break;
            }
            q += n;
        }
        free(svg);
    }
    /* the headline, 7 bar charts, 2 CDFs, 2 time series, the occupancy */
    cr_expect_eq(svgs, 13);
}

Test(report, hand_sweep_error_bars_cdfs_and_tables, .fini = tu_tmp_cleanup)
{
    hand_sweep("sw", "0.8", 1);
    /* a run whose jobs.csv is gone: left out of the CDFs, with a note; a
     * stale figure in the plots directory is replaced */
    tu_tmp_file("plots/f099.svg", "old");
    cr_assert_eq(tu_sh("rm sw/runs/s0_2/jobs.csv && $DLSIM report sw --plots plots"),
                 0, "%s", tu_out);
    cr_assert(tu_tmp_exists("sw/report.html") && tu_tmp_exists("sw/report.md"));
    cr_expect(!tu_tmp_exists("plots/f099.svg") && tu_tmp_exists("plots/f018.svg") &&
              !tu_tmp_exists("plots/f019.svg"));
    char *gp = tu_slurp(tu_tmp_path("plots/report.gp"), NULL);
    double r[500][6];
    /* bars "i mean lo hi n rgb": fifo's mean JCT 1, 2, 4 h over three
     * seeds, error bar mean +- the sample std; sjf's equal seeds: lo = hi;
     * the failed srtf has no bar */
    cr_assert_eq(block(gp, "bars_avg_jct_s0", r, 500), 2);
    cr_expect_eq(r[0][0], 0);
    expect_rel(r[0][1], 7.0 / 3, "bar mean");
    expect_rel(r[0][2], 7.0 / 3 - sqrt(7.0 / 3), "bar error low (sample std)");
    expect_rel(r[0][3], 7.0 / 3 + sqrt(7.0 / 3), "bar error high");
    cr_expect_eq(r[0][4], 3);
    cr_expect_eq(r[0][5], 0x1f77b4);
    expect_rel(r[1][2], 1, "sjf: equal seeds, no spread");
    expect_rel(r[1][3], 1, "sjf: equal seeds, no spread");
    /* the policies are named on the x axis, in bar order */
    cr_expect(strstr(gp, "scale 0 ('fifo' 0, 'sjf:backfill=1,predicted=0' 1)\n"),
              "%s", gp);
    /* sjf has no QoS jobs: no QoS bar */
    cr_assert_eq(block(gp, "bars_qos_s0", r, 500), 1);
    expect_rel(r[0][1], 0.75, "qos mean");
    expect_rel(r[0][3] - r[0][1], 0.25, "qos std");
    cr_assert_eq(block(gp, "bars_util_alloc_s0", r, 500), 2);
    expect_rel(r[0][3] - r[0][1], 0.2, "util std");
    /* error bars are drawn only where there are two seeds or more */
    cr_expect(strstr(gp, "using 1:($5 > 1 ? $2 : NaN):3:4 with yerrorbars"));
    /* paired differences: sjf - fifo on each seed, CI over three pairs */
    cr_assert_eq(block(gp, "diff_avg_jct_s0", r, 500), 1);
    expect_rel(r[0][1], -4.0 / 3, "paired mean");
    expect_rel(r[0][2], -4.0 / 3 - 4.302652729749464 * sqrt(7.0 / 3) / sqrt(3),
               "paired CI low");
    /* JCT CDF of fifo: 12 finished jobs pooled over seeds, 1..12 h, each a
     * point at rank/12 (after the F = 0 start); the unfinished job is out */
    int n = block(gp, "cdf_jct_s0_p0", r, 500);
    cr_assert_eq(n, 13);
    expect_rel(r[0][0], 1, "cdf start");
    cr_expect_eq(r[0][1], 0);
    for (int i = 1; i <= 12; i++) {
        expect_rel(r[i][0], i, "cdf x");
        expect_rel(r[i][1], i / 12.0, "cdf F");
    }
    /* every wait is 0: the curve is its mass at zero, one point at the
     * tic '0' half a decade left of the decade below 1 s (1e-4 h) */
    cr_assert_eq(block(gp, "cdf_wait_s0_p0", r, 500), 1);
    expect_rel(r[0][0], pow(10, -4.5), "the zero tic");
    cr_expect_eq(r[0][1], 1);
    cr_expect(strstr(gp, "set xtics add ('0' 3.16227766e-05)"), "%s", gp);
    /* time series: the smallest seed's rows, hours */
    cr_assert_eq(block(gp, "ts_s0_p0", r, 500), 3);
    expect_rel(r[1][0], 1, "ts hour");
    /* one load: no versus-load curves */
    cr_expect_null(strstr(gp, "$load_"));
    free(gp);

    char *md = tu_slurp(tu_tmp_path("sw/report.md"), NULL);
    /* 95 % CIs by hand: mean +- t(0.975, 2) s / sqrt(3), t = 4.302653 (a
     * table of Student's t): QoS 0.75 +- 4.302653 * 0.25 / sqrt(3) */
    cr_expect(strstr(md, "| fifo | 0.7500 ± 0.2500 [0.1290, 1.3710] | "
                     "0.4000 ± 0.2000 [-0.0968, 0.8968] | 0.2000 ± 0.1000 "
                     "[-0.0484, 0.4484] | 20.00 ± 10.00 [-4.84, 44.84] | 0 ± 0 "
                     "[0, 0] | 0 ± 0 [0, 0] | 2.333 ± 1.528 [-1.461, 6.128] | 3 | "
                     "0 |"), "%s", md);
    /* paired differences against fifo (seeds 1..3): sjf's JCT 1 h each
     * seed against fifo's 1, 2, 4 h: differences 0, -1, -3, mean -4/3,
     * s = sqrt(7/3), CI -4/3 +- 4.302653 sqrt(7/3) / sqrt(3); util alloc
     * 0.5 - (0.2, 0.4, 0.6) = 0.3, 0.1, -0.1 */
    cr_expect(strstr(md, "Paired differences against fifo, the first policy of "
                     "this comparison"), "%s", md);
    cr_expect(strstr(md, "| sjf:backfill=1,predicted=0 | – | +0.1000 [-0.3968, "
                     "+0.5968] | +0.3000 [+0.0516, +0.5484] | -10.00 [-34.84, "
                     "+14.84] | +0 [+0, +0] | +0 [+0, +0] | -1.333 [-5.128, "
                     "+2.461] | 3 |"), "%s", md);
    cr_expect_null(strstr(md, "| srtf | – | – | – | – | – | – | – | 0 |\n"),
                   "a policy without pairs has a row of differences");
    cr_expect(strstr(md, "| sjf:backfill=1,predicted=0 | – |"), "%s", md);
    cr_expect(strstr(md, "| srtf | – | – | – | – | – | – | – | 0 | 1 |"), "%s", md);
    cr_expect(strstr(md, "### trace t.csv, cluster tiny, load 0.8"), "%s", md);
    free(md);

    char *html = tu_slurp(tu_tmp_path("sw/report.html"), NULL);
    cr_expect(strstr(html, "<h2 id=\"failed\">Failed runs</h2>"));
    cr_expect(strstr(html, "out of memory, &quot;badly&quot;"));
    cr_expect(strstr(html, "<li>sjf:backfill=1,predicted=0: no run has QoS jobs"));
    cr_expect(strstr(html, "<li>Run later (horus, seed 1) has status 'pending' "
                     "and no metrics; left out.</li>"));
    cr_expect_null(strstr(html, "<td>horus</td>"));
    cr_expect(strstr(html, "<li>Run s0_2 (sjf:backfill=1,predicted=0, seed 3): "
                     "runs/s0_2/jobs.csv is missing; left out.</li>"));
    cr_expect_null(strstr(html, "id=\"versus-load\""));
    cr_expect(strstr(html, "data-metric=\"avg_jct\" data-mean=\"2.3333333333333335\""));
    /* the headline, 7 bar charts, 6 of paired differences (sjf has no
     * QoS rate), 2 CDFs, 2 time series, the occupancy, all embedded */
    cr_expect(strstr(html, "<body data-images=\"19\">"));
    int imgs = 0;
    for (const char *p = html; (p = strstr(p, "src=\"data:image/svg+xml;base64,")); p++)
        imgs++;
    cr_expect_eq(imgs, 19);
    /* the bar charts say which figures are paired differences */
    cr_expect(strstr(html, "<figcaption>Paired differences in Mean JCT (hours) "
                     "against fifo (the first policy): each policy minus the "
                     "baseline on the same seed (the same workload), mean over "
                     "the pairs; error bars: 95 % confidence interval of the paired "
                     "difference"), "%s",
              strstr(html, "Paired differences in Mean JCT") ?
              strstr(html, "Paired differences in Mean JCT") : "none");
    cr_expect(strstr(html, "<figcaption>Mean JCT (hours) per policy (mean over "
                     "seeds, not a difference; error bars: sample standard "
                     "deviation over seeds, drawn where there are two seeds or "
                     "more)"));
    /* full precision of the CIs in the page */
    const char *want = "data-metric=\"avg_jct\" data-mean=\"2.3333333333333335\" "
                       "data-std=\"";
    const char *ci = strstr(html, want);
    cr_assert(ci, "%s", want);
    double sd, lo, hi;
    cr_assert_eq(sscanf(ci + strlen(want), "%lf\" data-ci-lo=\"%lf\" data-ci-hi=\"%lf",
                        &sd, &lo, &hi), 3);
    expect_rel(sd, sqrt(7.0 / 3), "std");
    expect_rel(lo, 7.0 / 3 - 4.302652729749464 * sqrt(7.0 / 3) / sqrt(3), "ci lo");
    expect_rel(hi, 7.0 / 3 + 4.302652729749464 * sqrt(7.0 / 3) / sqrt(3), "ci hi");
    free(html);
    /* nothing left behind but the outputs */
    cr_expect_eq(tu_sh("ls sw | tr '\\n' ' '"), 0);
    cr_expect_str_eq(tu_out, "report.html report.md runs summary.csv ");
}

/* A comparison whose makespans all lie within 2 % of their floors is
 * flagged (decided by the floor, not the policies), one with a makespan
 * beyond is not; useful and window utilizations are shown next to
 * allocated and effective; the makespan chart marks the floor; a run to
 * retry is listed with the failed ones. */
Test(report, makespan_floor_flag_and_new_metrics, .fini = tu_tmp_cleanup)
{
    static const char head[] = "run_id,scenario,policy,trace,cluster,models,load,"
        "seed,status,error,qos_guarantee_rate,gpu_util_alloc,gpu_util_effective,"
        "gpu_util_useful,gpu_util_alloc_window,gpu_util_effective_window,"
        "gpu_util_useful_window,makespan,makespan_floor,avg_wait,p99_wait,avg_jct\n";
    char text[4096];
    size_t k = (size_t)snprintf(text, sizeof text, "%s", head);
    /* load 1: makespans 101, 102, 100.5, 101.9 h over floors of 100 h
     * (within 2 %); load 2: one makespan 103 h over 100 */
    static const double mk[2][4] = { { 101, 102, 100.5, 101.9 },
                                     { 101, 103, 100.5, 101 } };
    static const char *const pol[2] = { "fifo", "sjf" };
    for (int l = 0; l < 2; l++)
        for (int p = 0; p < 2; p++)
            for (int sd = 1; sd <= 2; sd++) {
                char id[32];
                snprintf(id, sizeof id, "r%d%d%d", l, p, sd);
                k += (size_t)snprintf(text + k, sizeof text - k,
                    "%s,default,%s,gen(x),demo-256,none,%d,%d,ok,,,0.5,0.4,%.2f,"
                    "0.6,0.5,%.2f,%.1f,%.1f,1,2,3\n", id, pol[p], l + 1, sd,
                    0.3 + 0.01 * sd, 0.35 + 0.01 * sd, mk[l][2 * p + sd - 1] * 3600,
                    100.0 * 3600);
                hand_run("sw", id, sd, false);
            }
    k += (size_t)snprintf(text + k, sizeof text - k, "r9,default,fifo,gen(x),"
                          "demo-256,none,2,3,retry,killed by signal 9 (Killed),"
                          ",,,,,,,,,,,\n");
    tu_tmp_file("sw/summary.csv", text);
    tu_tmp_file("sw/runs/r101/timeseries.csv", "time,queued_jobs,running_jobs,"
                "busy_gpus,util_alloc,util_effective,util_useful\n"
                "0,2,1,1,0.25,0.2,0.1\n3600,1,2,2,0.5,0.4,0.3\n");
    cr_assert_eq(tu_sh("$DLSIM report sw --plots p"), 0, "%s", tu_out);
    char *md = tu_slurp(tu_tmp_path("sw/report.md"), NULL);
    const char *g1 = strstr(md, "### default, trace gen(x), cluster demo-256, load 1");
    const char *g2 = strstr(md, "### default, trace gen(x), cluster demo-256, load 2");
    cr_assert(g1 && g2 && g1 < g2, "%s", md);
    const char *flag = strstr(md, "> **Makespan set by one job: every makespan lies "
                              "within 2 % of its floor");
    cr_expect(flag && flag > g1 && flag < g2, "flag of load 1: %s", md);
    cr_expect_null(strstr(g2, "Makespan set by one job"), "load 2 flagged: %s", g2);
    cr_expect(strstr(md, "| policy | QoS rate | util alloc | util eff | util useful | "
                     "alloc (window) | eff (window) | useful (window) | makespan (h) "
                     "| floor (h) | mean wait (h) |"), "%s", md);
    /* useful 0.31, 0.32: mean 0.315 */
    cr_expect(strstr(md, "| fifo | – | 0.5000 ± 0.0000 [0.5000, 0.5000] | 0.4000 ± "
                     "0.0000 [0.4000, 0.4000] | 0.3150 ± 0.0071 [0.2515, 0.3785] |"),
              "%s", md);
    /* the paired table has no floor column (the policies share it) */
    cr_expect(strstr(md, "| policy − baseline | QoS rate | util alloc | util eff | "
                     "util useful | alloc (window) | eff (window) | useful (window) "
                     "| makespan (h) | mean wait (h) |"), "%s", md);
    free(md);
    char *gp = tu_slurp(tu_tmp_path("p/report.gp"), NULL);
    double r[8][6];
    cr_assert_eq(block(gp, "floor_makespan", r, 8), 1);
    expect_rel(r[0][1], 100, "floor mark at the highest load");
    cr_expect(strstr(gp, "$bars_util_useful_s0 << EOD"));
    cr_expect(strstr(gp, "$diff_util_useful_s0 << EOD"));
    cr_expect(strstr(gp, "using 1:5 with lines"), "the useful time series");
    free(gp);
    char *html = tu_slurp(tu_tmp_path("sw/report.html"), NULL);
    cr_expect(strstr(html, "<p class=\"floor-flag\" data-group=\"0\">"));
    cr_expect_null(strstr(html, "<p class=\"floor-flag\" data-group=\"1\">"));
    cr_expect(strstr(html, "<td>killed by signal 9 (Killed)</td>"), "retry runs are "
              "listed with the failed ones");
    cr_expect(strstr(html, "dashed black line: the makespan floor"));
    free(html);
}

/* Tenants and fairness by hand.  One node of 2 GPUs, fifo: a (u1, 1 GPU,
 * 10 s) and b (u2, 1 GPU, 20 s) run at 0; c (u3, 2 GPUs, 5 s, at 1)
 * waits for both: 20-25; d (u1, 1 GPU, 7 s, at 2) is behind it: 25-32.
 * Slowdowns: a 1, b 1, c 24/5 = 4.8, d 30/7; users' means u1 (1 + 30/7)
 * / 2 = 37/14, u2 1, u3 4.8; Jain (sum)^2 / (3 sum of squares) =
 * 0.765861, worst 4.8.  u1: 2 jobs, mean JCT 20 s, p99 30 s, mean wait
 * 11.5 s, 17 GPU-s.  VCs: v1 = {a, b}, v2 = {c, d}. */
Test(report, tenants_and_fairness_by_hand, .fini = tu_tmp_cleanup)
{
    tu_tmp_file("t.csv", "job_id,submit_time,num_gpus,duration,user,vc\n"
                "a,0,1,10,u1,v1\nb,0,1,20,u2,v1\nc,1,2,5,u3,v2\nd,2,1,7,u1,v2\n");
    tu_tmp_file("c.yaml", "gpu_types: [{name: V100, memory_gb: 32}]\n"
                "nodes: [{count: 1, gpus: 2, gpu_type: V100}]\n");
    tu_tmp_file("s.yaml", "policies: [fifo]\ntraces: [t.csv]\nclusters: [c.yaml]\n"
                "seeds: [1, 2]\n");
    cr_assert_eq(tu_dlsim("sweep s.yaml --out sw --quiet"), 0, "%s", tu_out);
    cr_assert_eq(tu_sh("$DLSIM report sw --format html"), 0, "%s", tu_out);
    char *md = tu_slurp(tu_tmp_path("sw/report.md"), NULL);
    cr_expect(strstr(md, "| Jain (users) | worst user slowdown | Jain (VCs) | "
                     "worst VC slowdown |"), "%s", md);
    cr_expect(strstr(md, "| 0.7659 ± 0.0000 [0.7659, 0.7659] | 4.800 ± 0.000 "
                     "[4.800, 4.800] |"), "%s", md);
    /* most GPU-hours first: u2 (20 GPU-s), u1 (17), u3 (10) */
    const char *u2 = strstr(md, "| u2 | 1 | 1 | – | 0.005556 | 0.005556 | 0 | 0 | "
                            "1 | 0.005556 |");
    const char *u1 = strstr(md, "| u1 | 2 | 2 | – | 0.005556 | 0.008333 | 0.003194 "
                            "| 0.006389 | 2.643 | 0.004722 |");
    const char *u3 = strstr(md, "| u3 | 1 | 1 | – | 0.006667 | 0.006667 | 0.005278 "
                            "| 0.005278 | 4.8 | 0.002778 |");
    cr_expect(u2 && u1 && u3 && u2 < u1 && u1 < u3, "%s", md);
    cr_expect(strstr(md, "fifo, seed 1: 2 VCs"), "%s", md);
    cr_expect(strstr(md, "| v2 | 2 | 2 | – | 0.0075 |"), "%s", md);
    free(md);
    char *html = tu_slurp(tu_tmp_path("sw/report.html"), NULL);
    cr_expect(strstr(html, "<table class=\"tenants\" data-kind=\"users\" "
                     "data-policy=\"fifo\">"), "users table");
    /* summary.json's six decimals of 37/14: 2.642857 */
    cr_expect(strstr(html, "<td data-col=\"mean_slowdown\" data-value=\""
                     "2.64285"), "u1's mean slowdown 37/14");
    cr_expect(strstr(html, "data-metric=\"fairness_jain_user_slowdown\" "
                     "data-mean=\"0.76586"), "the fairness column");
    cr_expect(strstr(html, "Fairness over users (Jain) per policy"), "its figure");
    free(html);
    /* tenants are read from the shown runs' summary.json: a malformed
     * list is bad input there, located; a missing file a note */
    cr_assert_eq(tu_sh("f=$(ls -d sw/runs/*-s1)/summary.json && cp $f keep.json && "
                       "sed -i 's/\"users\": \\[/\"users\": [1, /' $f && "
                       "$DLSIM report sw -o bad.html"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "summary.json:") &&
              strstr(tu_out, "'users'[0]: expected an object with a name"),
              "%s", tu_out);
    cr_expect(!tu_tmp_exists("bad.html"));
    cr_assert_eq(tu_sh("rm $(ls -d sw/runs/*-s1)/summary.json"), 0, "%s", tu_out);
    cr_assert_eq(tu_sh("$DLSIM report sw -o gone.html"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "dlsim report: note: Run ") &&
              strstr(tu_out, "no summary.json; no tenant tables"),
              "the note on stderr too: %s", tu_out);
    cr_expect_eq(tu_sh("grep -c 'no summary.json; no tenant tables' gone.html"),
                 0, "%s", tu_out);
    /* without users or VCs: no fairness columns, no tenant tables */
    tu_tmp_file("t2.csv", "job_id,submit_time,num_gpus,duration\na,0,1,10\n");
    cr_assert_eq(tu_dlsim("run --trace t2.csv --cluster c.yaml --out r --quiet"), 0);
    cr_assert_eq(tu_sh("$DLSIM report r --format html"), 0, "%s", tu_out);
    md = tu_slurp(tu_tmp_path("r/report.md"), NULL);
    cr_expect_null(strstr(md, "Jain"), "%s", md);
    cr_expect_null(strstr(md, "Tenants"), "%s", md);
    free(md);
}

Test(report, two_loads_draw_metric_versus_load, .fini = tu_tmp_cleanup)
{
    hand_sweep("sw", "0.5", 2);     /* loads 0.5 and 1 */
    cr_assert_eq(tu_sh("$DLSIM report sw --plots plots"), 0, "%s", tu_out);
    char *gp = tu_slurp(tu_tmp_path("plots/report.gp"), NULL);
    double r[8][6];
    cr_assert_eq(block(gp, "load_avg_jct_s0_p0", r, 8), 2);
    expect_rel(r[0][0], 0.5, "load");
    expect_rel(r[0][1], 7.0 / 3, "mean at 0.5");
    expect_rel(r[1][0], 1, "load");
    expect_rel(r[1][1], 14.0 / 3, "mean at 1");
    expect_rel(r[1][2], 2 * sqrt(7.0 / 3), "std at 1");
    /* bars at the highest load */
    cr_assert_eq(block(gp, "bars_avg_jct_s0", r, 8), 2);
    expect_rel(r[0][1], 14.0 / 3, "bar at load 1");
    free(gp);
    char *html = tu_slurp(tu_tmp_path("sw/report.html"), NULL);
    cr_expect(strstr(html, "<h2 id=\"versus-load\">"));
    /* headline + 7 bars + 6 paired + 7 versus load + 2 CDFs + 2 time
     * series + occupancy */
    cr_expect(strstr(html, "<body data-images=\"26\">"));
    free(html);
}

Test(report, bad_inputs_are_located_exit_2, .fini = tu_tmp_cleanup)
{
    cr_assert_eq(tu_sh("mkdir empty && $DLSIM report empty"), 2);
    cr_expect(strstr(tu_out, "empty: neither summary.csv"), "%s", tu_out);

    hand_sweep("sw", "0.8", 1);
    /* a non-number in avg_jct on line 4 */
    cr_assert_eq(tu_sh("sed -i '4s/,7200,/,7x00,/' sw/summary.csv && "
                    "$DLSIM report sw"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "sw/summary.csv:4:"), "%s", tu_out);
    cr_expect(strstr(tu_out, "column 'avg_jct': not a number"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("sw/report.html") && !tu_tmp_exists("sw/report.md"));

    tu_tmp_file("s2/summary.csv", "run_id,policy,status\nx,fifo,ok\n");
    cr_assert_eq(tu_sh("$DLSIM report s2"), 2);
    cr_expect(strstr(tu_out, "s2/summary.csv:1: missing column"), "%s", tu_out);

    hand_sweep("s3", "0.8", 1);
    cr_assert_eq(tu_sh("sed -i '4s/,x$//' s3/summary.csv && $DLSIM report s3"), 2);
    cr_expect(strstr(tu_out, "s3/summary.csv:4: row has 21 fields, expected "
                     "22"), "%s", tu_out);

    hand_sweep("s4", "0.8", 1);
    cr_assert_eq(tu_sh("sed -i '2s/^f0_0,/..,/' s4/summary.csv && $DLSIM report s4"), 2);
    cr_expect(strstr(tu_out, "s4/summary.csv:2:1: column 'run_id'"), "%s", tu_out);

    hand_sweep("s5", "0.8", 1);
    cr_assert_eq(tu_sh("sed -i '2s/,fifo,/,\"fi\"fo,/' s5/summary.csv && "
                    "$DLSIM report s5"), 2);
    cr_expect(strstr(tu_out, "s5/summary.csv:2:"), "%s", tu_out);

    tu_tmp_file("r/summary.json", "{\"policy\": \"fifo\", \"trace\": \"t\"}\n");
    cr_assert_eq(tu_sh("$DLSIM report r"), 2);
    cr_expect(strstr(tu_out, "r/summary.json:1:1: missing member 'cluster'"),
              "%s", tu_out);
    cr_expect(!tu_tmp_exists("r/report.html"));

    /* one run_id twice: that run would count as two seeds */
    hand_sweep("s6", "0.8", 1);
    cr_assert_eq(tu_sh("sed -n 3p s6/summary.csv >> s6/summary.csv && "
                    "$DLSIM report s6"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "s6/summary.csv:10:1: run_id 's0_0' repeated "
                     "(first on line 3)"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("s6/report.html") && !tu_tmp_exists("s6/report.md"));

    /* a run's QoS rate above 1 is refused as in summary.csv */
    tu_tmp_file("r2/summary.json", "{\"policy\": \"fifo\", \"trace\": \"t\", "
        "\"cluster\": \"c\", \"seed\": 1, \"qos_guarantee_rate\": 7,\n"
        "\"gpu_util_alloc\": 0.5, \"gpu_util_effective\": 0.5, "
        "\"makespan\": 10, \"avg_wait\": 1, \"p99_wait\": 2, "
        "\"avg_jct\": 3}\n");
    cr_assert_eq(tu_sh("$DLSIM report r2"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "r2/summary.json:1:83: 'qos_guarantee_rate': "
                     "above 1"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("r2/report.html"));

    cr_expect_eq(tu_sh("$DLSIM report"), 2);
    cr_expect_eq(tu_sh("$DLSIM report a b"), 2);
    cr_expect_eq(tu_sh("$DLSIM report --bogus sw"), 2);
    cr_expect_eq(tu_sh("$DLSIM report --help"), 0);
    cr_expect(strstr(tu_out, "--plots PDIR") && strstr(tu_out, "-o, --out OUT"));
}

Test(report, missing_gnuplot_exit_1, .fini = tu_tmp_cleanup)
{
    hand_sweep("sw", "0.8", 1);
    cr_assert_eq(tu_sh("PATH=/nonexistent \"$DLSIM\" report sw"), 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "gnuplot not found") &&
              strstr(tu_out, "gnuplot-nox"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("sw/report.html"));

    /* a gnuplot that fails: exit 1, its output shown; the message names
     * the script only where it is kept (--plots), else says how to keep it */
    tu_tmp_file("bin/gnuplot", "#!/bin/sh\necho 'line 7: boom' >&2\nexit 3\n");
    cr_assert_eq(tu_sh("chmod +x bin/gnuplot && PATH=\"$PWD/bin:$PATH\" "
                    "\"$DLSIM\" report sw"), 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "gnuplot: failed (exit status 3) on the "
                     "report's report.gp (rerun with --plots DIR to keep "
                     "it):\nline 7: boom"), "%s", tu_out);
    cr_assert_eq(tu_sh("PATH=\"$PWD/bin:$PATH\" \"$DLSIM\" report sw --plots p"),
                 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "failed (exit status 3) on p/report.gp:"),
              "%s", tu_out);
    cr_expect(tu_tmp_exists("p/report.gp"));
    cr_expect(!tu_tmp_exists("sw/report.html") && !tu_tmp_exists("sw/report.md"));
}

Test(report, same_input_same_bytes, .fini = tu_tmp_cleanup)
{
    hand_sweep("sw", "0.8", 2);
    cr_assert_eq(tu_sh("$DLSIM report sw -o a.html && $DLSIM report sw -o b.html && "
                    "cmp a.html b.html && cmp a.md b.md"), 0, "%s", tu_out);
    cr_expect(!tu_tmp_exists("sw/report.html"));
}

/* A run of 150,000 jobs (jct = job number in seconds): the CDF gets 400
 * points at nearest ranks, never the whole file. */
Test(report, huge_jobs_csv_downsampled, .fini = tu_tmp_cleanup)
{
    FILE *f = fopen(tu_tmp_pathf("big.csv"), "w");
    cr_assert(f);
    fputs("job_id,wait_time,jct\n", f);
    for (int i = 1; i <= 150000; i++)
        fprintf(f, "j%d,%d,%d\n", i, i % 7, i);
    fclose(f);
    tu_tmp_file("run/summary.json",
        "{\"policy\": \"sjf\", \"trace\": \"t.csv\", \"cluster\": \"c\", "
        "\"seed\": 3, \"makespan\": 7200, \"avg_jct\": 75000.5, \"avg_wait\": 3, "
        "\"p99_wait\": 6, \"qos_guarantee_rate\": null, \"gpu_util_alloc\": 0.5, "
        "\"gpu_util_effective\": 0.25}\n");
    tu_tmp_file("run/timeseries.csv", "time,queued_jobs,util_alloc,util_effective\n");
    cr_assert_eq(tu_sh("mv big.csv run/jobs.csv && $DLSIM report run --plots p"), 0,
                 "%s", tu_out);
    char *gp = tu_slurp(tu_tmp_path("p/report.gp"), NULL);
    static double r[500][6];
    cr_assert_eq(block(gp, "cdf_jct_s0_p0", r, 500), 401);
    /* point i at rank ceil(150000 i / 400) = 375 i: jct 375 i s */
    expect_rel(r[200][0], 75000.0 / 3600, "median");
    expect_rel(r[200][1], 0.5, "median F");
    expect_rel(r[400][0], 150000.0 / 3600, "max");
    free(gp);
    char *md = tu_slurp(tu_tmp_path("run/report.md"), NULL);
    cr_expect(strstr(md, "| sjf | – | 0.5000 | 0.2500 | 2.000 | 0.0008333 | "
                     "0.001667 | 20.83 | 1 | 0 |"), "%s", md);
    free(md);
    char *html = tu_slurp(tu_tmp_path("run/report.html"), NULL);
    /* the headline and the CDFs: no time series (no rows), no occupancy
     * (no placement column) */
    cr_expect(strstr(html, "<body data-images=\"3\">"));
    cr_expect(strstr(html, "no start_time, finish_time or placement column"));
    cr_expect(strstr(html, "no rows"));
    free(html);
}

/* ---------------------------------------------------------- round trip */

/* A CSV field, always quoted. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Whatever dlsim writes, dlsim reads back: job ids, users and VCs drawn
 * from hostile pieces (quotes, commas, line breaks, CR LF, '#', tabs,
 * UTF-8) go through dlsim run into jobs.csv, quoted across lines, and
 * dlsim report reads every job back (the JCT CDF has one point per
 * finished job); a sweep whose scenario name holds a line break and a
 * quote writes a summary.csv that the report reads too. */
Test(report, reads_back_hostile_names_across_lines, .fini = tu_tmp_cleanup)
{
    static const char *const piece[] = {
        ",", "\"", "\n", "\r\n", " ", "\t", "#", "\xc3\xa9", "'", ";", "|",
        "<&>", "\"\"", "\n#", "a", "\\", ",\n,",
    };
    const size_t np = sizeof piece / sizeof *piece;
    unsigned long long x = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 4; round++) {
        FILE *f = fopen(tu_tmp_pathf("h%d.csv", round), "w");
        cr_assert(f);
        fputs("job_id,submit_time,num_gpus,duration,user,vc\n", f);
        int njobs = 40;
        for (int j = 0; j < njobs; j++) {
            char id[256], user[128];
            int k = snprintf(id, sizeof id, "%d", j);
            int u = 0;
            for (int q = 0; q < 6; q++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                const char *pc = piece[(x >> 33) % np];
                k += snprintf(id + k, sizeof id - (size_t)k, "%s", pc);
                if (q < 3)
                    u += snprintf(user + u, sizeof user - (size_t)u, "%s", pc);
            }
            snprintf(id + k, sizeof id - (size_t)k, "%d", j);
            snprintf(user + u, sizeof user - (size_t)u, "u");
            put_quoted(f, id);
            fprintf(f, ",%d,%d,%d,", j * 10, 1 + j % 4, 100 + j);
            put_quoted(f, user);
            fputc(',', f);
            put_quoted(f, piece[j % np]);
            fputc('\n', f);
        }
        fclose(f);
        cr_assert_eq(tu_sh("$DLSIM run --trace h%d.csv --quiet --out r%d", round,
                           round), 0, "round %d: %s", round, tu_out);
        /* some job id really spans lines in jobs.csv */
        cr_assert_eq(tu_sh("awk 'END { print NR }' r%d/jobs.csv", round), 0);
        cr_expect_gt(atoi(tu_out), njobs + 1, "no line break in jobs.csv");
        cr_assert_eq(tu_sh("$DLSIM report r%d --plots p%d", round, round), 0,
                     "round %d: %s", round, tu_out);
        char *gp = tu_slurp(tu_tmp_pathf("p%d/report.gp", round), NULL);
        static double r[500][6];
        cr_expect_eq(block(gp, "cdf_jct_s0_p0", r, 500), njobs + 1,
                     "round %d: not every job was read back", round);
        free(gp);
    }
    /* a sweep: the scenario name holds a line break, a quote and a comma */
    tu_tmp_file("s.yaml", "policies: [fifo, sjf]\ntraces: [h0.csv]\nseeds: 1..2\n"
                "scenarios:\n  \"two\\nlines, \\\"q\\\"\": {}\n");
    cr_assert_eq(tu_sh("$DLSIM sweep s.yaml --out sw --quiet"), 0, "%s", tu_out);
    cr_expect(strstr(tu_tmp_text("sw/summary.csv"), ",\"two\nlines, \"\"q\"\"\","),
              "%s", tu_tmp_text("sw/summary.csv"));
    cr_assert_eq(tu_sh("$DLSIM report sw"), 0, "%s", tu_out);
    char *md = tu_slurp(tu_tmp_path("sw/report.md"), NULL);
    cr_expect(strstr(md, "### two lines, \"q\", trace h0.csv"), "%s", md);
    cr_expect(strstr(md, "| sjf |"), "%s", md);
    free(md);
}

/* ---------------------------------------------------------- end to end */

/* A few real runs (two policies, one with a comma, two seeds, two loads),
 * summary.csv written here from their summary.json files as the sweep
 * writes it; returns the run count.  Keeps each run's policy, load and
 * metrics for the check. */
struct e2e_run {
    const char *policy;
    double load;
    int seed;
    double v[7];
    bool has[7];
};
static const char *const e2e_met[7] = {
    "qos_guarantee_rate", "gpu_util_alloc", "gpu_util_effective", "makespan",
    "avg_wait", "p99_wait", "avg_jct" };

/* The summary.json keys that summary.csv holds as coordinates or drops. */
static bool e2e_excluded(const char *k)
{
    static const char *const ex[] = { "policy", "trace", "cluster", "seed",
                                      "models", "load", "wall_seconds" };
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++)
        if (!strcmp(k, ex[i]))
            return true;
    return false;
}

static int e2e_sweep(struct e2e_run *runs)
{
    static const char *const pol[2] = { "fifo", "sjf:backfill=1,predicted=0" };
    static const char *const loads[2] = { "0.9", "1.6" };
    cr_assert_eq(tu_sh("$DLSIM trace gen --jobs 300 --seed 5 --deadline-slack 1.2:3 "
                    "--deadline-frac 0.5 "
                    "-o t.csv"), 0, "%s", tu_out);
    FILE *f = fopen(tu_tmp_pathf("sw.csv"), "w");
    cr_assert(f);
    int n = 0;
    for (int p = 0; p < 2; p++)
        for (int l = 0; l < 2; l++)
            for (int s = 1; s <= 2; s++, n++) {
                cr_assert_eq(tu_sh("$DLSIM run --trace t.csv --policy '%s' --seed %d "
                                "--load %s --sample 3600 --quiet --out sw/runs/r%d",
                                pol[p], s, loads[l], n), 0, "%s", tu_out);
                struct dl_json_doc d;
                struct dl_error err = { 0 };
                cr_assert_eq(dl_json_load(tu_tmp_pathf("sw/runs/r%d/summary.json", n), &d,
                                           &err), 0, "%s", err.msg);
                const struct dl_json *o = d.root;
                if (!n) {
                    fputs("run_id,scenario,policy,trace,cluster,models,load,seed,"
                          "status,error", f);
                    for (uint32_t k = 0; k < o->n; k++)
                        if (!e2e_excluded(o->kid[k].key))
                            fprintf(f, ",%s", o->kid[k].key);
                    fputc('\n', f);
                }
                fprintf(f, "r%d,,%s%s%s,t.csv,demo-256,,%s,%d,ok,", n,
                        strchr(pol[p], ',') ? "\"" : "", pol[p],
                        strchr(pol[p], ',') ? "\"" : "", loads[l], s);
                for (uint32_t k = 0; k < o->n; k++) {
                    const struct dl_json *v = &o->kid[k];
                    if (e2e_excluded(v->key))
                        continue;
                    if (v->type == DL_JSON_NUMBER)
                        fprintf(f, ",%.17g", v->num);
                    else if (v->type == DL_JSON_STRING && !strpbrk(v->str, ",\"\n"))
                        fprintf(f, ",%s", v->str);
                    else
                        fputc(',', f);
                }
                fputc('\n', f);
                runs[n].policy = pol[p];
                runs[n].load = atof(loads[l]);
                runs[n].seed = s;
                for (int m = 0; m < 7; m++) {
                    const struct dl_json *v = dl_json_get(o, e2e_met[m]);
                    cr_assert(v);
                    runs[n].has[m] = v->type == DL_JSON_NUMBER;
                    runs[n].v[m] = v->num / (m >= 3 ? 3600 : 1);
                }
                dl_json_free(&d);
            }
    fclose(f);
    cr_assert_eq(rename(tu_tmp_pathf("sw.csv"), tu_tmp_pathf("sw/summary.csv")), 0);
    return n;
}

/* Checks every data-mean/data-std of the page's tables against the runs. */
static void check_numbers(const char *html, const struct e2e_run *runs, int n)
{
    int cells = 0;
    for (const char *t = strstr(html, "<h3>"); t; t = strstr(t + 1, "<h3>")) {
        const char *ld = strstr(t, ", load ");
        cr_assert(ld);
        double load = atof(ld + 7);
        const char *end = strstr(t, "</table>");
        for (const char *tr = strstr(t, "<tr><td>"); tr && tr < end;
             tr = strstr(tr + 1, "<tr><td>")) {
            char pol[128];
            cr_assert_eq(sscanf(tr + 8, "%127[^<]", pol), 1);
            for (int m = 0; m < 7; m++) {
                char key[64];
                snprintf(key, sizeof key, "data-metric=\"%s\"", e2e_met[m]);
                const char *c = strstr(tr, key);
                cr_assert(c && c < end);
                /* recompute: the runs of this policy and load */
                double x[8], sum = 0, sq = 0;
                int k = 0;
                for (int i = 0; i < n; i++)
                    if (!strcmp(runs[i].policy, pol) && runs[i].load == load &&
                        runs[i].has[m])
                        x[k++] = runs[i].v[m];
                int dn = -1;
                cr_assert_eq(sscanf(strstr(c, "data-n=\"") + 8, "%d", &dn), 1);
                cr_expect_eq(dn, k, "%s %s load %g: n", pol, e2e_met[m], load);
                if (!k)
                    continue;
                for (int i = 0; i < k; i++)
                    sum += x[i];
                double mean = sum / k;
                for (int i = 0; i < k; i++)
                    sq += (x[i] - mean) * (x[i] - mean);
                double sd = k > 1 ? sqrt(sq / (k - 1)) : 0, gm, gs;
                cr_assert_eq(sscanf(c, "data-metric=\"%*[^\"]\" data-mean=\"%lf\" "
                                    "data-std=\"%lf\"", &gm, &gs), 2);
                expect_rel(gm, mean, e2e_met[m]);
                cr_expect(fabs(gs - sd) <= 1e-6 * fmax(sd, fabs(mean)) + 1e-12,
                          "%s std %.17g, expected %.17g", e2e_met[m], gs, sd);
                cells++;
            }
        }
    }
    cr_expect_eq(cells, 4 * 7, "checked cells");
}

/* The 95 % CIs of the tables and the paired differences against the first
 * policy, recomputed from the runs (two seeds: t(0.975, 1) = 12.7062). */
static void check_ci_and_pairs(const char *html, const struct e2e_run *runs, int n)
{
    const double t1 = 12.706204736174707;
    int checked = 0, paired = 0;
    for (const char *t = strstr(html, "<h3>"); t; t = strstr(t + 1, "<h3>")) {
        double load = atof(strstr(t, ", load ") + 7);
        const char *next = strstr(t + 1, "<h3>");
        const char *pt = strstr(t, "<table class=\"paired\"");
        cr_assert(pt && (!next || pt < next), "no paired table at load %g", load);
        const char *pend = strstr(pt, "</table>");
        const char *bl = strstr(pt, "data-baseline=\"fifo\"");
        cr_expect(bl && bl < pend, "the baseline is not the first policy");
        for (int m = 0; m < 7; m++) {
            /* the main table's CI of fifo */
            double x[2], d[2];
            int k = 0, kd = 0;
            for (int i = 0; i < n; i++)
                if (!strcmp(runs[i].policy, "fifo") && runs[i].load == load &&
                    runs[i].has[m])
                    x[k++] = runs[i].v[m];
            for (int i = 0; i < n; i++) {
                if (strcmp(runs[i].policy, "fifo") == 0 || runs[i].load != load ||
                    !runs[i].has[m])
                    continue;
                for (int j = 0; j < n; j++)
                    if (!strcmp(runs[j].policy, "fifo") && runs[j].load == load &&
                        runs[j].seed == runs[i].seed && runs[j].has[m])
                        d[kd++] = runs[i].v[m] - runs[j].v[m];
            }
            char key[80];
            snprintf(key, sizeof key, "data-metric=\"%s\"", e2e_met[m]);
            if (k == 2) {
                const char *c = strstr(strstr(t, "<tr><td>fifo</td>"), key);
                double mean = (x[0] + x[1]) / 2, sd = fabs(x[0] - x[1]) / sqrt(2);
                double lo, hi;
                const char *ci = strstr(c, "data-ci-lo=\"");
                cr_assert(ci && ci < strstr(c, "</td>"), "%s: no CI", e2e_met[m]);
                cr_assert_eq(sscanf(ci, "data-ci-lo=\"%lf\" data-ci-hi=\"%lf", &lo,
                                    &hi), 2);
                cr_expect(fabs(lo - (mean - t1 * sd / sqrt(2))) <= 1e-9 *
                          fmax(1, fabs(mean)) + 1e-12, "%s lo", e2e_met[m]);
                cr_expect(fabs(hi - (mean + t1 * sd / sqrt(2))) <= 1e-9 *
                          fmax(1, fabs(mean)) + 1e-12, "%s hi", e2e_met[m]);
                checked++;
            }
            if (kd) {
                const char *c = strstr(pt, key);
                cr_assert(c && c < pend, "%s: no paired cell", e2e_met[m]);
                double gm, gs;
                cr_assert_eq(sscanf(c, "data-metric=\"%*[^\"]\" data-mean=\"%lf\" "
                                    "data-std=\"%lf\"", &gm, &gs), 2);
                double mean = kd == 2 ? (d[0] + d[1]) / 2 : d[0];
                cr_expect(fabs(gm - mean) <= 1e-9 * fmax(1, fabs(mean)),
                          "%s: paired mean %.17g, expected %.17g", e2e_met[m], gm,
                          mean);
                if (kd == 2) {
                    double lo, hi, sd = fabs(d[0] - d[1]) / sqrt(2);
                    cr_assert_eq(sscanf(strstr(c, "data-ci-lo="), "data-ci-lo=\"%lf\" "
                                        "data-ci-hi=\"%lf", &lo, &hi), 2);
                    cr_expect(fabs(lo - (mean - t1 * sd / sqrt(2))) <= 1e-9 *
                              fmax(1, fabs(mean)) + 1e-12, "%s paired lo", e2e_met[m]);
                    cr_expect(fabs(hi - (mean + t1 * sd / sqrt(2))) <= 1e-9 *
                              fmax(1, fabs(mean)) + 1e-12, "%s paired hi", e2e_met[m]);
                }
                paired++;
            }
        }
    }
    cr_expect_geq(checked, 2 * 6, "CIs checked");
    cr_expect_geq(paired, 2 * 6, "paired differences checked");
}

/* Counts pixels of an 8-bit RGB(A) PNG that are not near-white, so a
 * blank screenshot fails.  Returns -1 if the PNG cannot be read. */
static long png_ink(const unsigned char *p, size_t len, long *total)
{
    if (len < 8 || memcmp(p, "\x89PNG\r\n\x1a\n", 8))
        return -1;
    uint32_t w = 0, h = 0;
    int ch = 0;
    unsigned char *idat = NULL;
    size_t ni = 0;
    for (size_t o = 8; o + 12 <= len;) {
        uint32_t n = (uint32_t)p[o] << 24 | p[o + 1] << 16 | p[o + 2] << 8 | p[o + 3];
        const unsigned char *d = p + o + 8;
        if (o + 12 + n > len)
            break;
        if (!memcmp(p + o + 4, "IHDR", 4)) {
            w = (uint32_t)d[0] << 24 | d[1] << 16 | d[2] << 8 | d[3];
            h = (uint32_t)d[4] << 24 | d[5] << 16 | d[6] << 8 | d[7];
            if (d[8] != 8 || (d[9] != 2 && d[9] != 6) || d[12])
                return -1;
            ch = d[9] == 2 ? 3 : 4;
        } else if (!memcmp(p + o + 4, "IDAT", 4)) {
            idat = realloc(idat, ni + n);
            memcpy(idat + ni, d, n);
            ni += n;
        }
        o += 12 + n;
    }
    if (!w || !h)
        return -1;
    size_t stride = (size_t)w * (size_t)ch, rawn = (stride + 1) * h;
    unsigned char *raw = malloc(rawn), *img = calloc(stride * h, 1);
    uLongf got = rawn;
    if (uncompress(raw, &got, idat, ni) != Z_OK || got != rawn) {
        free(raw), free(img), free(idat);
        return -1;
    }
    long ink = 0;
    for (uint32_t y = 0; y < h; y++) {
        const unsigned char *in = raw + y * (stride + 1) + 1;
        unsigned char *row = img + y * stride, *up = y ? row - stride : NULL;
        int ft = in[-1];
        for (size_t x = 0; x < stride; x++) {
            int a = x >= (size_t)ch ? row[x - ch] : 0, b = up ? up[x] : 0;
            int c = up && x >= (size_t)ch ? up[x - ch] : 0, pr;
            int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
            pr = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            int v = ft == 0 ? 0 : ft == 1 ? a : ft == 2 ? b : ft == 3 ? (a + b) / 2 : pr;
            row[x] = (unsigned char)(in[x] + v);
        }
        for (uint32_t x = 0; x < w; x++)
            ink += row[x * ch] < 200 || row[x * ch + 1] < 200 || row[x * ch + 2] < 200;
    }
    *total = (long)w * h;
    free(raw), free(img), free(idat);
    return ink;
}

Test(report, end_to_end_in_headless_chromium, .fini = tu_tmp_cleanup,
     .timeout = 580)
{
    struct e2e_run runs[8];
    int n = e2e_sweep(runs);
    cr_assert_eq(tu_sh("$DLSIM report sw"), 0, "%s", tu_out);
    char *html = tu_slurp(tu_tmp_path("sw/report.html"), NULL);
    check_numbers(html, runs, n);
    check_ci_and_pairs(html, runs, n);
    cr_expect(strstr(html, "<h2 id=\"versus-load\">"));
    int images = 0;
    const char *bd = strstr(html, "<body data-images=\"");
    cr_assert(bd);
    cr_assert_eq(sscanf(bd + strlen("<body data-images=\""), "%d", &images), 1);
    /* the headline, 8 bars (useful utilization too), 8 of paired
     * differences, 8 versus load, 2 CDFs, 2 time series, the occupancy */
    cr_expect_eq(images, 1 + 8 + 8 + 8 + 2 + 2 + 1);
    free(html);

    /* Chromium must be there (scripts/setup.sh installs it) */
    cr_assert_eq(tu_sh("command -v chromium || command -v chromium-browser"), 0,
                 "chromium is not installed (scripts/setup.sh installs it)");
    char browser[512];
    size_t bl = strcspn(tu_out, "\n");
    cr_assert(bl < sizeof browser);
    memcpy(browser, tu_out, bl);
    browser[bl] = 0;
    /* 1: the page's own script records how many images loaded */
    cr_assert_eq(tu_sh("timeout 240 '%s' --no-sandbox --headless --disable-gpu "
                    "--user-data-dir=\"$(mktemp -d -p .)\" --virtual-time-budget=15000 "
                    "--dump-dom sw/report.html > dom.html 2>/dev/null", browser), 0,
                 "%s", tu_out);
    char *dom = tu_slurp(tu_tmp_path("dom.html"), NULL), want[64];
    snprintf(want, sizeof want, "data-images-loaded=\"%d/%d\"", images, images);
    cr_expect(strstr(dom, want), "not every image loaded: %.300s",
              strstr(dom, "<body") ? strstr(dom, "<body") : dom);
    free(dom);
    /* 2: a screenshot that is not blank */
    cr_assert_eq(tu_sh("timeout 240 '%s' --no-sandbox --headless --disable-gpu "
                    "--user-data-dir=\"$(mktemp -d -p .)\" --screenshot=shot.png "
                    "--window-size=1400,4000 sw/report.html >/dev/null 2>&1",
                    browser), 0, "%s", tu_out);
    size_t len;
    unsigned char *png = (unsigned char *)tu_slurp(tu_tmp_path("shot.png"), &len);
    long total = 0, ink = png_ink(png, len, &total);
    cr_assert(ink >= 0, "cannot decode the screenshot");
    cr_expect_eq(total, 1400L * 4000);
    cr_expect(ink > total / 50, "screenshot is blank: %ld of %ld pixels inked",
              ink, total);
    free(png);
}

Test(report, every_run_failed_still_reports, .fini = tu_tmp_cleanup)
{
    tu_tmp_file("sw/summary.csv",
        "run_id,policy,status,error,qos_guarantee_rate,gpu_util_alloc,"
        "gpu_util_effective,makespan,avg_wait,p99_wait,avg_jct\n"
        "a,fifo,failed,\"trace.csv:3: bad <num_gpus>\",,,,,,,\n");
    cr_assert_eq(tu_sh("$DLSIM report sw"), 0, "%s", tu_out);
    char *html = tu_slurp(tu_tmp_path("sw/report.html"), NULL);
    cr_expect(strstr(html, "<body data-images=\"0\">"));
    cr_expect(strstr(html, "<td>trace.csv:3: bad &lt;num_gpus&gt;</td>"));
    cr_expect(strstr(html, "Every run failed"));
    free(html);
    char *md = tu_slurp(tu_tmp_path("sw/report.md"), NULL);
    cr_expect(strstr(md, "| fifo | – | – | – | – | – | – | – | 0 | 1 |"), "%s", md);
    free(md);
}

/* ---------------------------------------------------------- occupancy */

/* The occupancy chart by hand: a 2-GPU job on n0:0-1 for an hour, a
 * 1-GPU job sharing n0:1 for its first half hour; a preempted job (only
 * its first placement is known) and a job that never started are not
 * drawn.  400 bins of 9 s: GPU 0 holds one job throughout, GPU 1 two in
 * bins 0..199 and one after. */
Test(report, occupancy_by_hand_from_jobs_csv, .fini = tu_tmp_cleanup)
{
    tu_tmp_file("r/jobs.csv", "job_id,submit_time,start_time,finish_time,"
        "wait_time,jct,num_gpus,gpu_type,placement,preemptions,deadline,qos_met,"
        "isolated_runtime,slowdown\n"
        "a,0,0,3600,0,3600,2,V100,n0:0-1,0,,,3600,1\n"
        "b,0,0,1800,0,1800,1,V100,n0:1,0,,,1800,1\n"
        "c,0,100,3000,50,3000,1,V100,n1:0,2,,,2000,1.5\n"
        "d,0,,,,,1,,,0,,,,\n");
    tu_tmp_file("r/summary.json",
        "{\"policy\": \"fifo\", \"trace\": \"t.csv\", \"cluster\": \"c\", "
        "\"seed\": 1, \"makespan\": 3600, \"avg_jct\": 2800, \"avg_wait\": 17, "
        "\"p99_wait\": 50, \"qos_guarantee_rate\": null, \"gpu_util_alloc\": 0.5, "
        "\"gpu_util_effective\": 0.5}\n");
    tu_tmp_file("r/timeseries.csv", "time,queued_jobs,util_alloc,util_effective\n"
                "0,0,1,1\n");
    cr_assert_eq(tu_sh("$DLSIM report r --plots p"), 0, "%s", tu_out);
    char *gp = tu_slurp(tu_tmp_path("p/report.gp"), NULL);
    const char *b = strstr(gp, "$occ_s0_p0 << EOD\n");
    cr_assert(b, "%s", gp);
    b = strchr(b, '\n') + 1;
    for (int row = 0; row < 2; row++) {
        for (int i = 0; i < 400; i++) {
            char *e;
            double v = strtod(b, &e);
            cr_assert(e != b, "row %d: %d numbers", row, i);
            double want = row == 0 ? 1 : i < 200 ? 2 : 1;
            cr_expect_eq(v, want, "GPU %d bin %d: %g, expected %g", row, i, v, want);
            b = e;
        }
        cr_assert_eq(*b, '\n', "row %d has more than 400 bins", row);
        b++;
    }
    cr_expect(!strncmp(b, "EOD\n", 4), "more than 2 GPU rows");
    cr_expect(strstr(gp, "'fifo (1 preempted not drawn)'"), "%s", gp);
    cr_expect(strstr(gp, "matrix using (($1 + 0.5) * 0.0025):(($2 + 0.5) * 1):3 "
                     "with image"), "%s", gp);
    free(gp);
    char *html = tu_slurp(tu_tmp_path("r/report.html"), NULL);
    cr_expect(strstr(html, "not drawn: 1 preempted job(s) (jobs.csv holds only a "
                     "job's first placement) and 0 still running"), "%s", html);
    free(html);
}

/* ---------------------------------------------------------- demo, formats */

/* Whether svg has a text element with exactly s. */
static bool svg_text(const char *svg, const char *s)
{
    char want[600];
    snprintf(want, sizeof want, "<text>%s</text>", s);
    return strstr(svg, want) != NULL;
}

/* `dlsim report` of a `dlsim demo --out` directory, in every format: the
 * headline table's numbers equal each run's summary.json; each exported
 * SVG has its axis labels and names every policy; a PDF figure renders
 * (pdftoppm) to a page that is not blank; the same inputs give the same
 * bytes in every format; pandas reads every table of the page (when
 * python3-pandas is there). */
Test(report, demo_directory_in_every_format, .fini = tu_tmp_cleanup, .timeout = 300)
{
    /* (the demo's order puts fifo, the baseline, first) */
    static const char *const pol[] = { "fifo", "edf", "fifo:backfill=1", "horus",
        "qos", "sjf", "srtf", "srtf:preempt_cost=60", "tiresias" };
    static const char *const dir[] = { "fifo", "edf", "fifo_backfill_1", "horus",
        "qos", "sjf", "srtf", "srtf_preempt_cost_60", "tiresias" };
    cr_assert_eq(tu_sh("$DLSIM demo --jobs 150 --load 1.5 --out dm > /dev/null"), 0,
                 "%s", tu_out);
    cr_assert_eq(tu_sh("$DLSIM report dm --format html,pdf,png,svg --plots p && "
                    "$DLSIM report dm --format html,pdf,png,svg --plots q -o b.html"),
                 0, "%s", tu_out);
    char *html = tu_slurp(tu_tmp_path("dm/report.html"), NULL);
    /* the page opens with the headline table, before any other */
    const char *ht = strstr(html, "<table class=\"headline\">");
    cr_assert(ht, "no headline table");
    cr_expect(ht < strstr(html, "<table class=\"summary\""));
    cr_expect(strstr(html, "<figure id=\"f000\">") < strstr(html, "<table class=\"summary\""),
              "the headline figure comes before the full tables");
    cr_expect(strstr(html, "data-baseline=\"fifo\""), "fifo is the baseline");
    for (int p = 0; p < 9; p++) {
        char row[128];
        snprintf(row, sizeof row, "<tr><td>%s</td>", pol[p]);
        const char *r = strstr(ht, row);
        cr_assert(r, "headline: no row of %s", pol[p]);
        struct dl_json_doc d;
        struct dl_error err = { 0 };
        cr_assert_eq(dl_json_load(tu_tmp_pathf("dm/%s/summary.json", dir[p]), &d,
                                  &err), 0, "%s", err.msg);
        const char *m[] = { "gpu_util_effective", "makespan", "avg_jct" };
        for (int k = 0; k < 3; k++) {
            char key[64];
            snprintf(key, sizeof key, "data-metric=\"%s\" data-mean=\"", m[k]);
            const char *c = strstr(r, key);
            cr_assert(c, "%s %s", pol[p], m[k]);
            double want = dl_json_get(d.root, m[k])->num / (k ? 3600 : 1);
            expect_rel(atof(c + strlen(key)), want, m[k]);
        }
        dl_json_free(&d);
    }
    free(html);
    /* every exported figure: SVG, PDF and PNG, the same bytes on a rerun */
    cr_assert_eq(tu_sh("ls p | grep -c -- '-.*\\.pdf$'"), 0);
    int nfig = atoi(tu_out);
    /* headline, 8 bars, 8 paired, 2 CDFs, 2 time series, occupancy */
    cr_expect_eq(nfig, 1 + 8 + 8 + 2 + 2 + 1);
    cr_expect_eq(tu_sh("cd p && for f in f*-*.*; do cmp \"$f\" ../q/\"$f\" || exit 1; "
                       "done && cmp ../dm/report.html ../b.html"), 0, "%s", tu_out);
    /* axis labels and legend entries in the SVGs */
    cr_assert_eq(tu_sh("ls p/f*-*.svg | tr '\\n' ' '"), 0);
    char *list = xstrdup(tu_out);
    int checked = 0;
    for (char *f = strtok(list, " "); f; f = strtok(NULL, " ")) {
        char *svg = tu_slurp(tu_tmp_path(f), NULL);
        const char *what = strchr(f, '-') + 1;
        /* (the paired differences have no bar of the baseline, fifo) */
        for (int p = !strncmp(what, "diff", 4); p < 9; p++)
            cr_expect(svg_text(svg, pol[p]), "%s does not name %s", f, pol[p]);
        if (!strncmp(what, "bars-avg_jct", 12))
            cr_expect(svg_text(svg, "mean JCT (hours)"), "%s: y label", f);
        if (!strncmp(what, "diff-avg_wait", 13))
            cr_expect(svg_text(svg, "difference in mean wait (hours)"), "%s", f);
        if (!strncmp(what, "headline", 8))
            cr_expect(svg_text(svg, "QoS guarantee rate (fraction of QoS jobs)") &&
                      svg_text(svg, "makespan (hours)"), "%s", f);
        if (!strncmp(what, "cdf-wait", 8))
            cr_expect(svg_text(svg, "wait time (hours, log scale; 0 at the left)") &&
                      svg_text(svg, "fraction of jobs (CDF)") && svg_text(svg, "0"),
                      "%s", f);
        if (!strncmp(what, "util", 4))
            cr_expect(svg_text(svg, "allocated") && svg_text(svg, "effective") &&
                      svg_text(svg, "time (hours)") &&
                      svg_text(svg, "GPU utilization"), "%s", f);
        if (!strncmp(what, "occupancy", 9))
            cr_expect(svg_text(svg, "GPU (node)") && svg_text(svg, "jobs on the GPU")
                      && svg_text(svg, "time (hours)") && strstr(svg, "<image"),
                      "%s", f);
        free(svg);
        checked++;
    }
    free(list);
    cr_expect_eq(checked, nfig);
    /* a PDF renders to a page that is not blank */
    cr_assert_eq(tu_sh("command -v pdftoppm"), 0, "pdftoppm is not installed "
                 "(scripts/setup.sh installs poppler-utils)");
    cr_assert_eq(tu_sh("pdftoppm -r 60 -png -singlefile p/f000-headline.pdf page"),
                 0, "%s", tu_out);
    size_t len;
    unsigned char *png = (unsigned char *)tu_slurp(tu_tmp_path("page.png"), &len);
    long total = 0, ink = png_ink(png, len, &total);
    cr_expect(ink > total / 100, "blank PDF page: %ld of %ld inked", ink, total);
    free(png);
    /* pandas reads every table of the page, with the headline's 9 rows */
    if (tu_sh("/usr/bin/python3 -c 'import pandas, lxml'") == 0) {
        cr_assert_eq(tu_sh("/usr/bin/python3 -c 'import io, pandas; "
                        "t = pandas.read_html(io.StringIO(open(\"dm/report.html\", "
                        "encoding=\"utf-8\").read())); "
                        "print(len(t), len(t[0]), list(t[0].columns)[0])'"), 0,
                     "%s", tu_out);
        int ntab = 0, rows = 0;
        char first[32] = "";
        cr_assert_eq(sscanf(tu_out, "%d %d %31s", &ntab, &rows, first), 3, "%s",
                     tu_out);
        char *page = tu_slurp(tu_tmp_path("dm/report.html"), NULL);
        int want = 0;
        for (const char *q = page; (q = strstr(q, "<table")); q++)
            want++;
        free(page);
        cr_expect_eq(ntab, want, "pandas read %d of %d tables", ntab, want);
        cr_expect_eq(rows, 9);
        cr_expect_str_eq(first, "policy");
    }
}
