/*
 * tests/test_sweep.c - `dlsim sweep`: grid expansion (counts, order,
 * scenarios and overrides, run ids), located errors in bad specs, the
 * outputs of a sweep against `dlsim run`'s, a run failing at run time,
 * resume after kill -9, shards and merge, and a 2-rank mpirun against a
 * local sweep.  The expansion tests call swp_ directly; the rest run the
 * built binary ($DLSIM) in a temporary directory.
 */
#include "testutil.h"
#include "sim/sweep/sweep.h"
#include "sim/base/formats.h"

#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <zlib.h>

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Two small generated traces (a.csv.gz, b.csv.gz) on demo-256. */
static void make_traces(int jobs)
{
    cr_assert_eq(tu_sh("$DLSIM trace gen --jobs %d --load 0.9 --seed 1 "
                    "--deadline-slack 1.2:3 -o a.csv.gz && $DLSIM trace gen "
                    "--jobs %d --load 0.9 --seed 2 --deadline-slack 1.5:4 -o "
                    "b.csv.gz", jobs, jobs), 0, "%s", tu_out);
}

TestSuite(sweep, .fini = tu_tmp_cleanup);

/* ------------------------------------------------------------ expansion */

static const char grid_spec[] =
    "policies: [fifo, \"srtf:preempt_cost=5\"]\n"
    "traces: [t/a.csv, /abs/b.csv.gz]\n"
    "loads: [null, 0.9]\n"
    "seeds: 3..5\n"
    "scenarios:\n"
    "  base: {}\n"
    "  hetero:\n"
    "    clusters: [c1.yaml, c2.yaml]\n"
    "    policies: [\"qos:reserve=0,elastic=1\"]\n"
    "    models: [none, [zoo, n.yaml]]\n"
    "    seeds: [7]\n"
    "    check: true\n";

Test(sweep, grid_expansion_counts_order_and_ids)
{
    tu_tmp_file("spec.yaml", grid_spec);
    struct swp_spec s;
    struct dl_error err = { 0 };
    int rc = swp_spec_load(tu_tmp_path("spec.yaml"), &s, &err);
    cr_assert_eq(rc, 0, "%s:%ld:%ld: %s", err.file, err.line, err.col, err.msg);
    /* base: 2 policies x 2 traces x 1 cluster x 1 models x 2 loads x 3
     * seeds = 24; hetero: 1 x 2 x 2 x 2 x 2 x 1 = 16 */
    cr_assert_eq(s.nsc, 2);
    cr_assert_eq(s.nruns, 40);
    cr_expect(!s.sc[0].check);
    cr_expect(s.sc[1].check);
    cr_expect_eq(s.sc[0].sample, 300 * SIM_US_PER_S);
    const char *f[SWP_NCOORD];
    /* the seed varies fastest, then load, ..., the policy slowest */
    swp_coords(&s, 0, f);
    cr_expect_str_eq(f[0], "0000-base-fifo-a-s3");
    cr_expect_str_eq(f[1], "base");
    cr_expect_str_eq(f[2], "fifo");
    cr_expect_str_eq(f[3], "t/a.csv");
    cr_expect_str_eq(f[4], "demo-256");
    cr_expect_str_eq(f[5], "none");     /* never an empty cell */
    cr_expect_str_eq(f[6], "none");
    cr_expect_str_eq(f[7], "3");
    swp_coords(&s, 5, f);               /* load 0.9, seed 5 */
    cr_expect_str_eq(f[0], "0005-base-fifo-a-l0.9-s5");
    cr_expect_str_eq(f[6], "0.9");
    swp_coords(&s, 6, f);               /* next trace */
    cr_expect_str_eq(f[3], "/abs/b.csv.gz");
    cr_expect_str_eq(f[6], "none");
    swp_coords(&s, 12, f);              /* next policy */
    cr_expect_str_eq(f[0], "0012-base-srtf_preempt_cost_5-a-s3");
    cr_expect_str_eq(f[2], "srtf:preempt_cost=5");
    swp_coords(&s, 24, f);              /* hetero starts */
    cr_expect_str_eq(f[1], "hetero");
    cr_expect_str_eq(f[2], "qos:reserve=0,elastic=1");
    cr_expect_str_eq(f[4], "c1.yaml");
    cr_expect_str_eq(f[5], "none");
    cr_expect_str_eq(f[7], "7");
    swp_coords(&s, 26, f);              /* models: the second entry */
    cr_expect_str_eq(f[5], "zoo+n.yaml");
    cr_expect_str_eq(f[0], "0026-hetero-qos_reserve_0_elastic_1-a-mzoo_n-s7");
    cr_expect_str_eq(f[6], "none");
    swp_coords(&s, 28, f);              /* second cluster */
    cr_expect_str_eq(f[4], "c2.yaml");
    swp_coords(&s, 39, f);
    cr_expect_str_eq(f[0], "0039-hetero-qos_reserve_0_elastic_1-b-mzoo_n-l0.9-s7");
    cr_expect_str_eq(f[3], "/abs/b.csv.gz");
    /* paths resolve against the spec's directory, except absolute ones
     * and zoo */
    char want[600];
    snprintf(want, sizeof want, "%s/t/a.csv", tu_tmp_dir());
    cr_expect_str_eq(s.items[SWP_TRACE][0].path, want);
    cr_expect_str_eq(s.items[SWP_TRACE][1].path, "/abs/b.csv.gz");
    const struct swp_item *m = &s.items[SWP_MODELS][s.runs[26].ax[SWP_MODELS]];
    cr_assert_eq(m->nargs, 2);
    cr_expect_str_eq(m->args[0], "zoo");
    snprintf(want, sizeof want, "%s/n.yaml", tu_tmp_dir());
    cr_expect_str_eq(m->args[1], want);
    /* every run id is distinct */
    for (uint32_t i = 0; i < s.nruns; i++)
        for (uint32_t j = i + 1; j < s.nruns; j++)
            cr_assert_str_neq(s.runs[i].id, s.runs[j].id);
    swp_spec_free(&s);
}

Test(sweep, grid_defaults_without_scenarios)
{
    tu_tmp_file("spec.yaml", "policies: sjf\ntraces: [x.csv]\nsample: 60\n");
    struct swp_spec s;
    struct dl_error err = { 0 };
    cr_assert_eq(swp_spec_load(tu_tmp_path("spec.yaml"), &s, &err), 0, "%s", err.msg);
    cr_assert_eq(s.nruns, 1);
    const char *f[SWP_NCOORD];
    swp_coords(&s, 0, f);
    cr_expect_str_eq(f[0], "0000-sjf-x-s1");
    cr_expect_str_eq(f[1], "default");
    cr_expect_str_eq(f[4], "demo-256");
    cr_expect_str_eq(f[7], "1");
    cr_expect_eq(s.sc[0].sample, 60 * SIM_US_PER_S);
    swp_spec_free(&s);
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The grid is counted before it is expanded: 8 policies x 1000 traces x
 * seeds 1..100000 (800 million runs) is refused at once (it took 38 s of
 * interning seeds one by one), at the place that makes it too large; a
 * legitimate seeds range of 100,000 interns in a blink (a linear search
 * took 5e9 comparisons; the bound leaves room for sanitizer builds). */
Test(sweep, huge_grids_are_counted_before_expansion)
{
    char *text = xmalloc(20000), *p = text;
    p += sprintf(p, "policies: [fifo, sjf, srtf, edf, tiresias, qos, horus, "
                 "gandiva]\ntraces: [");
    for (int i = 0; i < 1000; i++)
        p += sprintf(p, "%st%d.csv", i ? ", " : "", i);
    sprintf(p, "]\nseeds: 1..100000\n");
    tu_tmp_file("huge.yaml", text);
    struct swp_spec s;
    struct dl_error err = { 0 };
    double t0 = wall_now();
    int rc = swp_spec_load(tu_tmp_path("huge.yaml"), &s, &err);
    double dt = wall_now() - t0;
    swp_spec_free(&s);
    cr_expect_eq(rc, DL_EINPUT);
    cr_expect(strstr(err.msg, "the grid has over 10000000 runs"), "%s", err.msg);
    cr_expect(err.line == 1 && err.col == 1, "%ld:%ld", err.line, err.col);
    cr_expect(dt < 1.0, "refusing took %.2f s", dt);
    /* a scenario that makes it too large is named by its key */
    tu_tmp_file("huge2.yaml", "policies: [fifo]\ntraces: [a.csv]\nscenarios:\n"
                "  small: {seeds: 1..10}\n  big: {seeds: 1..9999995}\n");
    rc = swp_spec_load(tu_tmp_path("huge2.yaml"), &s, &err);
    swp_spec_free(&s);
    cr_expect_eq(rc, DL_EINPUT);
    cr_expect(err.line == 5 && err.col == 3, "%ld:%ld: %s", err.line, err.col,
              err.msg);
    /* a long but legal range: fast, every seed distinct */
    tu_tmp_file("long.yaml", "policies: [fifo]\ntraces: [a.csv]\nseeds: 0..99999\n");
    t0 = wall_now();
    rc = swp_spec_load(tu_tmp_path("long.yaml"), &s, &err);
    dt = wall_now() - t0;
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_expect_eq(s.nruns, 100000);
    cr_expect_eq(s.nitems[SWP_SEED], 100000);
    cr_expect_eq(s.items[SWP_SEED][s.runs[99999].ax[SWP_SEED]].seed, 99999);
    cr_expect(dt < 5, "a 100,000-seed grid took %.2f s", dt);
    swp_spec_free(&s);
    free(text);
}

/* A spec that must fail to load at line:col with msg in the message. */
static void bad_spec(const char *text, long line, long col, const char *msg)
{
    tu_tmp_file("bad.yaml", text);
    struct swp_spec s;
    struct dl_error err = { 0 };
    int rc = swp_spec_load(tu_tmp_path("bad.yaml"), &s, &err);
    swp_spec_free(&s);
    cr_expect_eq(rc, DL_EINPUT, "accepted: %s", text);
    cr_expect_eq(err.line, line, "%s: line %ld, expected %ld (%s)", text,
                 err.line, line, err.msg);
    cr_expect_eq(err.col, col, "%s: col %ld, expected %ld (%s)", text, err.col,
                 col, err.msg);
    cr_expect(strstr(err.msg, msg), "'%s' lacks '%s'", err.msg, msg);
}

Test(sweep, bad_specs_are_located)
{
    bad_spec("policies: [fifo]\ntraces: [a.csv]\nloads: [0.5, -1]\n", 3, 14,
             "loads[1]");
    bad_spec("policies: [fifo]\ntraces: [a.csv]\nseeds: 5..2\n", 3, 8, "A..B");
    bad_spec("policies: [fifo]\ntraces: [a.csv]\nseeds: [1, x]\n", 3, 12,
             "seeds[1]");
    bad_spec("policies: [fifo]\ntraces: [a.csv]\nsurprise: 1\n", 3, 1,
             "unknown key 'surprise'");
    bad_spec("policies: [fifo]\ntraces: []\n", 2, 9, "empty list");
    bad_spec("policies: [fifo]\n", 1, 1, "no traces");
    bad_spec("traces: [a.csv]\nscenarios:\n  s1: {policies: [fifo]}\n  s2: {}\n",
             4, 3, "scenario 's2': no policies");
    bad_spec("policies: [fifo]\ntraces: [a.csv]\nscenarios:\n  s1: {scenarios: {}}\n",
             4, 8, "unknown key 'scenarios'");
    bad_spec("policies: [fifo]\ntraces: [a.csv]\ncheck: maybe\n", 3, 8,
             "true or false");
    bad_spec("policies: [fifo]\ntraces: [a.csv]\nstrict: 1\n", 3, 9,
             "strict: expected true or false");
    bad_spec("policies: [fifo]\ntraces: [a.csv]\nsample: -5\n", 3, 9, "sample");
    bad_spec("policies: [fifo]\ntraces: [a.csv]\nmodels: [[zoo, {a: 1}]]\n", 3,
             16, "models[0][1]");
    bad_spec("policies: [fifo\n", 2, 1, "YAML");
    bad_spec("policies: [fifo]\ntraces: [a.csv]\npolicies: [sjf]\n", 3, 1,
             "policies");
}

/* Validation: every file and policy is checked before anything runs, at
 * the spec's line:col, exit 2, no output directory. */
Test(sweep, validation_errors_exit_2_before_running)
{
    make_traces(50);
    tu_tmp_file("p.yaml", "policies: [fifo, \"srtf:nope=1\"]\ntraces: [a.csv.gz]\n");
    cr_expect_eq(tu_sh("$DLSIM sweep p.yaml --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "p.yaml:1:18: policies:"), "%s", tu_out);
    cr_expect(strstr(tu_out, "nope"), "%s", tu_out);
    tu_tmp_file("t.yaml", "policies: [fifo]\ntraces: [a.csv.gz,\n   missing.csv]\n");
    cr_expect_eq(tu_sh("$DLSIM sweep t.yaml --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "t.yaml:3:4: trace 'missing.csv'"), "%s", tu_out);
    tu_tmp_file("c.yaml", "policies: [fifo]\ntraces: [a.csv.gz]\nclusters: [bad.yaml]\n");
    tu_tmp_file("bad.yaml", "name: x\ngpu_types: []\n");
    cr_expect_eq(tu_sh("$DLSIM sweep c.yaml --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "bad.yaml:"), "%s", tu_out);
    cr_expect(strstr(tu_out, "c.yaml:3:12: cluster 'bad.yaml'"), "%s", tu_out);
    tu_tmp_file("m.yaml", "policies: [fifo]\ntraces: [a.csv.gz]\nmodels: [[nomodel.yaml]]\n");
    cr_expect_eq(tu_sh("$DLSIM sweep m.yaml --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "m.yaml:3:10: models 'nomodel.yaml'"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("o"), "an output directory was left behind");
    cr_expect_eq(tu_sh("$DLSIM sweep"), 2);
    cr_expect_eq(tu_sh("$DLSIM sweep p.yaml --jobs 0"), 2);
    cr_expect_eq(tu_sh("$DLSIM sweep p.yaml --shard 2/2"), 2);
    cr_expect_eq(tu_sh("$DLSIM sweep --help"), 0);
    cr_expect(strstr(tu_out, "--resume") && strstr(tu_out, "--shard") &&
              strstr(tu_out, "--merge") && strstr(tu_out, "--jobs") &&
              strstr(tu_out, "--quiet") && strstr(tu_out, "--out"));
}

/* ------------------------------------------------------------ running */

static const char run_spec[] =
    "policies: [fifo, \"qos:reserve=1,elastic=1\"]\n"
    "traces: [a.csv.gz, b.csv.gz]\n"
    "loads: [null, 1.1]\n"
    "seeds: [1, 2]\n"
    "sample: 3600\n";

Test(sweep, outputs_match_dlsim_run)
{
    make_traces(200);
    tu_tmp_file("s.yaml", run_spec);
    cr_assert_eq(tu_sh("$DLSIM sweep s.yaml --jobs 2 --out o"), 0, "%s", tu_out);
    /* plain log lines when stderr is no terminal: one per run, then the end */
    cr_expect(strstr(tu_out, "sweep: [16/16] "), "%s", tu_out);
    cr_expect(strstr(tu_out, "sweep: 16 runs, 0 failed; o/summary.csv"), "%s",
              tu_out);
    const char *sum = tu_tmp_text("o/summary.csv");
    cr_expect_eq(count_lines(sum), 17);
    static const char head[] = "run_id,scenario,policy,trace,cluster,models,"
        "load,seed,status,error,dlsim_version,command,models_zoo,trace_crc32,"
        "cluster_crc32,strict,jobs,jobs_finished,jobs_rejected,makespan,"
        "makespan_floor,avg_jct,";
    cr_expect_eq(strncmp(sum, head, sizeof head - 1), 0, "%.200s", sum);
    cr_expect(strstr(sum, ",events,warnings,warning_messages,"
                     "fairness_jain_user_slowdown,worst_user_slowdown,"
                     "fairness_jain_vc_slowdown,worst_vc_slowdown,users,vcs\n"), "the header ends with the tenants");
    cr_expect(!strstr(sum, "wall_seconds"));
    /* run 11 = policy qos (index 1), trace a, load 1.1, seed 2: quoted */
    cr_expect(strstr(sum, "\n0011-qos_reserve_1_elastic_1-a-l1.1-s2,default,"
                     "\"qos:reserve=1,elastic=1\",a.csv.gz,demo-256,none,1.1,2,ok,,"),
              "%s", sum);
    /* the run directory holds exactly what dlsim run --out writes */
    cr_assert_eq(tu_sh("$DLSIM run --trace a.csv.gz --policy qos:reserve=1,elastic=1"
                    " --load 1.1 --seed 2 --sample 3600 --out r --quiet"), 0, "%s",
                 tu_out);
    const char *id = "o/runs/0011-qos_reserve_1_elastic_1-a-l1.1-s2";
    cr_expect_eq(tu_sh("cmp r/jobs.csv %s/jobs.csv && cmp r/timeseries.csv "
                    "%s/timeseries.csv && ls %s | tr '\\n' ' '", id, id, id), 0,
                 "%s", tu_out);
    cr_expect_str_eq(tu_out, "jobs.csv summary.json timeseries.csv ");
    /* summary.json equal but for the trace path, the command line (the
     * run's own: --out and --quiet, no --strict) and wall_seconds */
    cr_expect_eq(tu_sh("diff r/summary.json %s/summary.json | grep '^[<>]' | "
                    "grep -v wall_seconds | grep -v '\"trace\"' | "
                    "grep -v '\"command\"' | wc -l", id), 0);
    cr_expect_str_eq(tu_out, "0\n");
    /* no journal or temporary directory left; grid and spec kept */
    cr_expect(!tu_tmp_exists("o/summary.csv.partial"));
    cr_expect_eq(tu_sh("ls -a o/runs | grep -c tmp"), 1);
    cr_expect_str_eq(tu_out, "0\n");
    cr_expect(tu_tmp_exists("o/grid.csv") && tu_tmp_exists("o/sweep.yaml"));
    cr_expect_eq(count_lines(tu_tmp_text("o/grid.csv")), 17);
    /* same inputs, another worker count: the same bytes */
    cr_assert_eq(tu_sh("$DLSIM sweep s.yaml --jobs 1 --out o1 --quiet"), 0, "%s",
                 tu_out);
    cr_expect_str_eq(tu_out, "", "--quiet printed: %s", tu_out);
    cr_expect_eq(tu_sh("cmp o/summary.csv o1/summary.csv"), 0, "%s", tu_out);
    /* an existing sweep directory is refused without --resume */
    cr_expect_eq(tu_sh("$DLSIM sweep s.yaml --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "--resume"), "%s", tu_out);
    /* --resume of a finished sweep runs nothing and rewrites the same file */
    cr_expect_eq(tu_sh("$DLSIM sweep s.yaml --out o --resume"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "16 of 16 runs already done"), "%s", tu_out);
    cr_expect_eq(tu_sh("cmp o/summary.csv o1/summary.csv"), 0);
    /* a changed spec cannot resume into the old directory */
    tu_tmp_file("s.yaml", "policies: [sjf]\ntraces: [a.csv.gz]\n");
    cr_expect_eq(tu_sh("$DLSIM sweep s.yaml --out o --resume"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "holds another sweep"), "%s", tu_out);
}

/* Every run records how it was made, as dlsim run does: its command is
 * the equivalent dlsim run line, and running that line writes the same
 * summary.json but for wall_seconds (so the same version, models, load,
 * CRCs, strict flag and warnings, including the trace's loading warning
 * that the sweep printed once and replayed into each run).  Run ids carry
 * a models tag; no coordinate cell of summary.csv is empty. */
Test(sweep, runs_record_provenance_as_dlsim_run, .timeout = 300)
{
    FILE *f = fopen(tu_tmp_path("w.csv"), "w");
    cr_assert(f);
    fputs("job_id,submit_time,num_gpus,duration,model,deadline,color\n", f);
    static const char *const mod[] = { "resnet50", "vgg16", "bert_base", "lstm" };
    for (int j = 0; j < 120; j++)
        fprintf(f, "j%d,%d,%d,%d,%s,%d,x\n", j, j * 97, 1 << (j % 3),
                600 + 37 * (j % 11), mod[j % 4], j * 97 + 2000 + 91 * (j % 7));
    fclose(f);
    tu_tmp_file("m/noise.yaml", "kind: models\npredict:\n  runtime_noise: 0.3\n");
    tu_tmp_file("p.yaml", "policies: [fifo, \"qos:reserve=1\"]\ntraces: [w.csv]\n"
                "models: [none, [zoo, m/noise.yaml]]\nloads: [null, 1.1]\n"
                "seeds: 1..2\nsample: 1800\ncheck: true\n");
    cr_assert_eq(tu_sh("$DLSIM sweep p.yaml --out o --quiet"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "w.csv:1: warning: ignoring 1 unknown column: 'color'"),
              "the loading warning is shown once: %s", tu_out);
    const char *sum = tu_tmp_text("o/summary.csv");
    cr_expect(strstr(sum, "\n0000-fifo-w-s1,default,fifo,w.csv,demo-256,none,none,1,"
                     "ok,,"), "%s", sum);
    cr_expect(strstr(sum, "\n0007-fifo-w-mzoo+noise-l1.1-s2,") == NULL);
    cr_expect(strstr(sum, "\n0007-fifo-w-mzoo_noise-l1.1-s2,default,fifo,w.csv,"
                     "demo-256,zoo+m/noise.yaml,1.1,2,ok,,"), "%s", sum);
    /* no empty coordinate (the first 8 fields; none is quoted here) */
    cr_expect_eq(tu_sh("awk -F, 'NR > 1 { for (i = 1; i <= 8; i++) if ($i == \"\") "
                       "n++ } END { print n + 0 }' o/summary.csv"), 0);
    cr_expect_str_eq(tu_out, "0\n");
    for (int i = 0; i < 16; i++) {
        cr_assert_eq(tu_sh("ls -d o/runs/%04d-*", i), 0);
        char dir[256];
        snprintf(dir, sizeof dir, "%.*s", (int)strcspn(tu_out, "\n"), tu_out);
        struct dl_json_doc d;
        struct dl_error err = { 0 };
        cr_assert_eq(dl_json_load(tu_tmp_pathf("%s/summary.json", dir), &d, &err),
                     0, "%s", err.msg);
        const struct dl_json *cmd = dl_json_get(d.root, "command");
        const struct dl_json *w = dl_json_get(d.root, "warnings");
        const struct dl_json *wm = dl_json_get(d.root, "warning_messages");
        const struct dl_json *crc = dl_json_get(d.root, "trace_crc32");
        cr_assert(cmd && cmd->type == DL_JSON_STRING && w && wm && crc);
        cr_expect_geq(w->num, 1, "%s: the trace's warning is not counted", dir);
        cr_expect(wm->n >= 1 && strstr(wm->kid[0].str, "unknown column: 'color'"),
                  "%s", dir);
        cr_expect(crc->type == DL_JSON_STRING && strlen(crc->str) == 8);
        cr_expect(!strstr(cmd->str, "--out"));
        char line[2048];
        snprintf(line, sizeof line, "%s", cmd->str);
        dl_json_free(&d);
        cr_assert_eq(tu_sh("PATH=\"$(dirname \"$DLSIM\"):$PATH\" %s --out again%d "
                           ">/dev/null 2>&1", line, i), 0,
                     "%s: %s", line, tu_out);
        cr_expect_eq(tu_sh("diff %s/summary.json again%d/summary.json | grep '^[<>]' "
                           "| grep -v wall_seconds | grep -c . ; cmp %s/jobs.csv "
                           "again%d/jobs.csv", dir, i, dir, i), 0, "%s: %s", line,
                     tu_out);
        cr_expect_str_eq(tu_out, "0\n", "%s: summary.json differs: %s", line, tu_out);
    }
}

/* --strict and the spec key strict: true make every run strict: a trace
 * that warns on loading is refused before anything runs (every run of it
 * would fail), and a run that warns (a model the zoo lacks) fails with
 * exit status 2 while the others complete. */
Test(sweep, strict_sweeps)
{
    tu_tmp_file("w.csv", "job_id,submit_time,num_gpus,duration,model,color\n"
                "j1,0,1,100,resnet50,red\nj2,10,2,300,resnet50,blue\n");
    tu_tmp_file("u.csv", "job_id,submit_time,num_gpus,duration,model\n"
                "j1,0,1,100,resnet50\nj2,10,2,300,resnet5O\n");
    tu_tmp_file("s.yaml", "policies: [fifo]\ntraces: [u.csv,\n  w.csv]\n");
    cr_expect_eq(tu_sh("$DLSIM sweep s.yaml --strict --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "s.yaml:3:3: scenario 'default' is strict: trace "
                     "'w.csv' gave 1 warning (above)"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("o"));
    tu_tmp_file("k.yaml", "policies: [fifo]\ntraces: [u.csv, w.csv]\nstrict: false\n"
                "scenarios:\n  a: {traces: [u.csv]}\n  b: {strict: true}\n");
    cr_expect_eq(tu_sh("$DLSIM sweep k.yaml --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "scenario 'b' is strict: trace 'w.csv'"), "%s", tu_out);
    /* run-time warnings: only the zoo runs of u.csv warn */
    tu_tmp_file("r.yaml", "policies: [fifo]\ntraces: [u.csv]\nmodels: [none, zoo]\n"
                "strict: true\n");
    cr_expect_eq(tu_sh("$DLSIM sweep r.yaml --out o --quiet"), 1, "%s", tu_out);
    const char *sum = tu_tmp_text("o/summary.csv");
    cr_expect(strstr(sum, "\n0000-fifo-u-s1,default,fifo,u.csv,demo-256,none,none,1,"
                     "ok,,0.1.0,dlsim run --trace u.csv --policy fifo --seed 1 "
                     "--sample 300 --strict,,"), "%s", sum);
    cr_expect(strstr(sum, "\n0001-fifo-u-mzoo-s1,default,fifo,u.csv,demo-256,zoo,none,1,"
                     "failed,dlsim run: --strict: 1 warning above is an error; nothing "
                     "written (exit status 2),"), "%s", sum);
    cr_expect(strstr(tu_tmp_text("o/logs/0001-fifo-u-mzoo-s1.log"), "resnet5O"));
    /* the failure is deterministic: --resume keeps it */
    cr_expect_eq(tu_sh("$DLSIM sweep r.yaml --out o --resume"), 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "2 of 2 runs already done"), "%s", tu_out);
}

/* Splits one RFC 4180 record of text at *p into f[] (unquoted copies in
 * buf); returns the field count and advances *p. */
static int csv_record(const char **p, char *buf, char **f, int max)
{
    const char *s = *p;
    int n = 0;
    char *w = buf;
    for (;;) {
        f[n < max ? n : max - 1] = w;
        n++;
        if (*s == '"') {
            for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
                if (*s == '"')
                    s++;
                *w++ = *s;
            }
            if (*s)
                s++;
        } else {
            while (*s && *s != ',' && *s != '\n')
                *w++ = *s++;
        }
        *w++ = 0;
        if (*s != ',')
            break;
        s++;
    }
    *p = *s ? s + 1 : s;
    return n;
}

/* The value of column name in row (1 = the first data row) of a CSV file
 * under the temporary directory. */
static const char *csv_cell(const char *file, int row, const char *name)
{
    static char out[4096];
    const char *text = tu_tmp_text(file), *p = text;
    size_t n = strlen(text) + 1;
    char *hb = xmalloc(n), *rb = xmalloc(n), *hf[256], *rf[256];
    int nh = csv_record(&p, hb, hf, 256), k = 0;
    while (k < nh && strcmp(hf[k], name))
        k++;
    cr_assert(k < nh, "%s: no column %s", file, name);
    for (int r = 1; r <= row; r++)
        cr_assert(*p && csv_record(&p, rb, rf, 256) == nh, "%s: row %d", file, r);
    snprintf(out, sizeof out, "%s", rf[k]);
    free(hb);
    free(rb);
    return out;
}

/* Seeds that vary the workload: a spec names generated traces (trace gen
 * options, and trace gen --like options of a fitted workload); each seed
 * draws its own workload, written to DIR/traces/ with the bytes that
 * dlsim trace gen writes for the same options, and runs at exactly the
 * load of the loads axis on its cluster, under its models too (the
 * recorded offered_load).  The file's CRC is recorded; the same spec
 * gives the same files; --resume reuses them, or writes them again
 * byte for byte when one is gone. */
Test(sweep, generated_traces_vary_with_the_seed, .timeout = 300)
{
    tu_tmp_file("c.yaml", "name: c\ngpu_types:\n  - {name: V100, memory_gb: 32, "
                "speed: 1}\n  - {name: K80, memory_gb: 12, speed: 0.4}\nnodes:\n"
                "  - {count: 4, gpus: 8, gpu_type: V100}\n"
                "  - {count: 4, gpus: 4, gpu_type: K80}\n");
    cr_assert_eq(tu_sh("$DLSIM trace gen --jobs 500 --seed 9 --models "
                       "resnet50,vgg16 --deadline-slack 1.5:4 -o src.csv && $DLSIM "
                       "trace fit src.csv -o fit.yaml"), 0, "%s", tu_out);
    tu_tmp_file("g.yaml", "policies: [fifo, sjf]\n"
                "traces:\n"
                "  - {gen: {jobs: 300, gpus: philly, duration: \"exp:3600\", "
                "deadline_slack: \"1.2:3\", models: \"resnet50,vgg16\"}}\n"
                "  - {like: fit.yaml, arrivals: poisson, jobs: 200, name: fitted}\n"
                "clusters: [c.yaml]\nmodels: [none, zoo]\nloads: [0.9]\n"
                "seeds: 1..2\nstrict: true\nsample: 3600\n");
    cr_assert_eq(tu_sh("$DLSIM sweep g.yaml --out o --quiet"), 0, "%s", tu_out);
    cr_expect_eq(tu_sh("ls o/traces | tr '\\n' ' '"), 0);
    cr_expect_str_eq(tu_out, "fitted-s1.csv.gz fitted-s2.csv.gz gen-c-l0.9-s1.csv.gz "
                     "gen-c-l0.9-s2.csv.gz ");
    /* the bytes of dlsim trace gen, for each seed; seeds differ */
    for (int seed = 1; seed <= 2; seed++) {
        cr_assert_eq(tu_sh("$DLSIM trace gen --jobs 300 --gpus philly --duration "
                           "exp:3600 --deadline-slack 1.2:3 --models resnet50,vgg16 "
                           "--cluster c.yaml --load 0.9 --seed %d -o g%d.csv.gz && "
                           "cmp g%d.csv.gz o/traces/gen-c-l0.9-s%d.csv.gz", seed,
                           seed, seed, seed), 0, "%s", tu_out);
        cr_assert_eq(tu_sh("$DLSIM trace gen --like fit.yaml --arrivals poisson "
                           "--jobs 200 --seed %d -o f%d.csv.gz && cmp f%d.csv.gz "
                           "o/traces/fitted-s%d.csv.gz", seed, seed, seed, seed), 0,
                     "%s", tu_out);
    }
    cr_expect_neq(tu_sh("cmp -s g1.csv.gz g2.csv.gz"), 0, "seeds 1 and 2 drew one "
                  "workload");
    const char *sum = tu_tmp_text("o/summary.csv");
    cr_expect(strstr(sum, "\n0000-fifo-gen-l0.9-s1,default,fifo,\"gen(jobs=300,"
                     "gpus=philly,duration=exp:3600,deadline_slack=1.2:3,"
                     "models=resnet50,vgg16)\",c.yaml,none,0.9,1,ok,,0.1.0,dlsim run "
                     "--trace o/traces/gen-c-l0.9-s1.csv.gz --cluster c.yaml "
                     "--policy fifo --load 0.9 --seed 1 --sample 3600 --strict,"),
              "%s", sum);
    cr_expect(strstr(sum, "\n0006-fifo-fitted-mzoo-l0.9-s1,default,fifo,"
                     "\"like(fit.yaml,jobs=200,arrivals=poisson,name=fitted)\","),
              "%s", sum);
    /* every run at exactly the load, under its models too; the CRC is the
     * file's */
    for (int row = 1; row <= 16; row++)
        cr_expect_str_eq(csv_cell("o/summary.csv", row, "offered_load"), "0.900000",
                         "row %d", row);
    size_t gzn;
    char *gz = tu_slurp(tu_tmp_path("o/traces/gen-c-l0.9-s2.csv.gz"), &gzn);
    char crc[16];
    snprintf(crc, sizeof crc, "%08lx", crc32(0, (const unsigned char *)gz, (uInt)gzn));
    free(gz);
    cr_expect_str_eq(csv_cell("o/summary.csv", 2, "trace_crc32"), crc);
    /* the same spec: the same workloads; a resume reuses them or, when one
     * is gone, writes it again byte for byte */
    cr_assert_eq(tu_sh("$DLSIM sweep g.yaml --out o2 --quiet && for f in o/traces/*; "
                       "do cmp $f o2/traces/${f#o/traces/} || exit 1; done"), 0,
                 "%s", tu_out);
    cr_assert_eq(tu_sh("cp o/summary.csv full.csv && cp o/traces/gen-c-l0.9-s2.csv.gz "
                       "keep.gz && rm -r o/summary.csv o/traces/gen-c-l0.9-s2.csv.gz "
                       "o/runs/0001-* o/runs/0004-* && $DLSIM sweep g.yaml --out o "
                       "--resume"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "sweep: generated 1 trace into o/traces"), "%s", tu_out);
    cr_expect_eq(tu_sh("cmp full.csv o/summary.csv && cmp keep.gz "
                       "o/traces/gen-c-l0.9-s2.csv.gz"), 0, "%s", tu_out);
}

/* The example sweep (examples/sweep/): every run succeeds under its
 * strict: true, each seed of scenario base draws its own workloads, and
 * the report reads it. */
Test(sweep, the_example_sweep_runs_strict, .timeout = 300)
{
    char spec[4096];
    cr_assert(realpath("../examples/sweep/sweep.yaml", spec), "no example spec");
    cr_assert_eq(tu_sh("$DLSIM sweep '%s' --out ex --quiet", spec), 0, "%s", tu_out);
    cr_expect_eq(tu_sh("grep -c ',ok,' ex/summary.csv; ls ex/traces | wc -l; "
                       "grep -c ',true,' ex/summary.csv"), 0);
    cr_expect_str_eq(tu_out, "56\n9\n56\n", "ok runs, workloads, strict runs");
    cr_expect_eq(tu_sh("$DLSIM report ex --plots p"), 0, "%s", tu_out);
    /* a generated trace's panel title is its name, not its options */
    const char *gp = tu_tmp_text("p/report.gp");
    cr_expect(strstr(gp, "set title 'base philly qos-small @ load 1.2'") &&
              strstr(gp, "set title 'base mixed-fit qos-small @ load 1.2'"),
              "labels");
}

/* models: zoo in a generated trace means the zoo's names, as `trace gen
 * --models zoo` (and --like ... --models zoo): the same bytes, and no job
 * named "zoo". */
Test(sweep, generated_models_zoo_are_the_zoos_names, .timeout = 300)
{
    tu_tmp_file("c.yaml", "name: c\ngpu_types: [{name: V100, memory_gb: 32}]\n"
                "nodes: [{count: 4, gpus: 8, gpu_type: V100}]\n");
    cr_assert_eq(tu_sh("$DLSIM trace gen --jobs 200 --seed 4 -o src.csv && $DLSIM "
                       "trace fit src.csv -o fit.yaml"), 0, "%s", tu_out);
    tu_tmp_file("z.yaml", "policies: [fifo]\ntraces:\n"
                "  - {gen: {jobs: 60, models: zoo}, name: g}\n"
                "  - {like: fit.yaml, jobs: 60, models: zoo, name: f}\n"
                "clusters: [c.yaml]\nloads: [0.9]\nseeds: [1]\n");
    cr_assert_eq(tu_sh("$DLSIM sweep z.yaml --out o --quiet"), 0, "%s", tu_out);
    cr_assert_eq(tu_sh("$DLSIM trace gen --jobs 60 --models zoo --cluster c.yaml "
                       "--load 0.9 --seed 1 -o g.csv.gz && cmp g.csv.gz "
                       "o/traces/g-c-l0.9-s1.csv.gz && $DLSIM trace gen --like "
                       "fit.yaml --jobs 60 --models zoo --seed 1 -o f.csv.gz && cmp "
                       "f.csv.gz o/traces/f-s1.csv.gz"), 0, "%s", tu_out);
    cr_expect_neq(tu_sh("zcat o/traces/*.csv.gz | grep -q ',zoo,'"), 0,
                  "a job named zoo");
    cr_expect_eq(tu_sh("zcat o/traces/g-c-l0.9-s1.csv.gz | grep -c resnet"), 0,
                 "%s", tu_out);
}

/* Generated traces are checked with the spec: located errors, exit 2,
 * nothing written. */
Test(sweep, generated_trace_errors_are_located)
{
    bad_spec("policies: [fifo]\ntraces: [{gen: {jobs: 0}}]\n", 2, 23, "jobs");
    bad_spec("policies: [fifo]\ntraces: [{gen: {seed: 3}}]\n", 2, 17,
             "unknown option 'seed'");
    bad_spec("policies: [fifo]\ntraces: [{gen: {}, jobs: 5}]\n", 2, 10,
             "go inside it");
    bad_spec("policies: [fifo]\ntraces: [{like: w.yaml, arrivals: weekly}]\n", 2,
             35, "arrivals");
    bad_spec("policies: [fifo]\ntraces: [{gen: {deadline_slack: \"3:1\"}}]\n", 2,
             33, "deadline_slack");
    bad_spec("policies: [fifo]\ntraces: [{lke: w.yaml}]\n", 2, 11,
             "unknown key 'lke'");
    tu_tmp_file("n.yaml", "policies: [fifo]\ntraces: [{gen: {jobs: 50}}]\n");
    cr_expect_eq(tu_sh("$DLSIM sweep n.yaml --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "n.yaml:2:10: scenario 'default': generated trace "
                     "'gen(jobs=50)' needs a load"), "%s", tu_out);
    tu_tmp_file("d.yaml", "policies: [fifo]\nloads: [1]\ntraces: [{gen: {jobs: 50}},"
                "\n  {gen: {jobs: 60}}]\n");
    cr_expect_eq(tu_sh("$DLSIM sweep d.yaml --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "d.yaml:4:3: generated traces 'gen(jobs=60)' and "
                     "'gen(jobs=50)' (line 3) have one name 'gen'"), "%s", tu_out);
    tu_tmp_file("b.yaml", "policies: [fifo]\nloads: [1]\ntraces: [{gen: {gpus: "
                "\"9999:1\"}}]\n");
    cr_expect_eq(tu_sh("$DLSIM sweep b.yaml --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "b.yaml:3:10: trace 'gen(gpus=9999:1)': cannot be "
                     "generated (see above)"), "%s", tu_out);
    tu_tmp_file("w.yaml", "policies: [fifo]\nloads: [1]\ntraces: [{like: nope.yaml}]\n");
    cr_expect_eq(tu_sh("$DLSIM sweep w.yaml --out o"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "nope.yaml"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("o"));
}

/* A run that fails at run time (not at validation): a job of 10^7 s after
 * a 1 s span with sample: 1 needs 10 million timeseries rows. */
Test(sweep, failing_run_is_recorded_and_others_complete)
{
    make_traces(100);
    tu_tmp_file("tail.csv", "job_id,submit_time,num_gpus,duration\n"
                    "long,0,1,10000000\nshort,1,1,5\n");
    tu_tmp_file("f.yaml", "policies: [fifo, sjf]\ntraces: [a.csv.gz, tail.csv]\n"
                  "sample: 1\n");
    int rc = tu_sh("$DLSIM sweep f.yaml --jobs 2 --out o");
    cr_expect_eq(rc, 1, "exit %d: %s", rc, tu_out);
    cr_expect(strstr(tu_out, "failed"), "%s", tu_out);
    const char *sum = tu_tmp_text("o/summary.csv");
    cr_expect_eq(count_lines(sum), 5);
    cr_expect(strstr(sum, "\n0000-fifo-a-s1,default,fifo,a.csv.gz,demo-256,none,none,"
                     "1,ok,,"), "%s", sum);
    cr_expect(strstr(sum, "\n0001-fifo-tail-s1,default,fifo,tail.csv,demo-256,none,none,1,"
                     "failed,run failed: t=6: the timeseries would exceed "
                     "4000000 rows: use a larger --sample (or --sample 0) (exit "
                     "status 1),,,,"), "%s", sum);
    cr_expect(strstr(sum, "\n0002-sjf-a-s1,default,sjf,a.csv.gz,demo-256,none,none,1,"
                     "ok,,"), "%s", sum);
    cr_expect(strstr(sum, "\n0003-sjf-tail-s1,default,sjf,tail.csv,demo-256,none,none,1,"
                     "failed,"), "%s", sum);
    cr_expect(tu_tmp_exists("o/runs/0001-fifo-tail-s1/error.txt"));
    cr_expect(!tu_tmp_exists("o/runs/0001-fifo-tail-s1/summary.json"));
    cr_expect(strstr(tu_tmp_text("o/logs/0001-fifo-tail-s1.log"), "run failed"));
    /* failed rows have as many fields as the header (empty metrics) */
    cr_expect_eq(tu_sh("awk -F, 'NR==1{n=NF} NR==3{print (NF==n)}' o/summary.csv"),
                 0);
    cr_expect_str_eq(tu_out, "1\n");
    /* a sweep whose every run fails still has the full header */
    tu_tmp_file("g.yaml", "policies: [fifo]\ntraces: [tail.csv]\nsample: 1\n");
    cr_expect_eq(tu_sh("$DLSIM sweep g.yaml --out g --quiet"), 1);
    cr_expect_eq(tu_sh("head -1 g/summary.csv > h1 && head -1 o/summary.csv > h2 && "
                    "cmp h1 h2"), 0, "%s", tu_out);
}

/* summary.csv is built from each run's summary.json by the JSON reader,
 * whatever its layout and however many members: here one line of 70
 * numbers as written, strings, true, null, and arrays and an object, each
 * array or object one cell of compact JSON. */
Test(sweep, merge_reads_any_summary_json_layout)
{
    tu_tmp_file("m/grid.csv", "run_id,scenario,policy,trace,cluster,models,load,"
                "seed\n0000-fifo-a-s1,default,fifo,a.csv,demo-256,none,none,1\n");
    char json[8192], *p = json;
    p += sprintf(p, "{\"policy\":\"fifo\",\"trace\":\"a.csv\",\"cluster\":"
                 "\"demo-256\",\"seed\":1");
    for (int i = 0; i < 70; i++)
        p += sprintf(p, ",\"k%d\":%d.500000", i, i);
    sprintf(p, ",\"s\":\"a,b\\\"c\\u00e9\",\"strict\":true,\"n\":null,"
            "\"warning_messages\":[\"x \\\"q\\\", y\",\"line\\nbreak\"],"
            "\"o\":{\"e\":[1,-2.5e3,[]]},\"wall_seconds\":0.1}");
    tu_tmp_file("m/runs/0000-fifo-a-s1/summary.json", json);
    cr_assert_eq(tu_sh("$DLSIM sweep --merge m"), 0, "%s", tu_out);
    char *sum = tu_slurp(tu_tmp_path("m/summary.csv"), NULL);
    cr_expect(strstr(sum, "run_id,scenario,policy,trace,cluster,models,load,seed,"
                     "status,error,k0,k1,"), "%s", sum);
    cr_expect(strstr(sum, ",k69,s,strict,n,warning_messages,o\n"), "%s", sum);
    cr_expect(strstr(sum, ",1,ok,,0.500000,1.500000,"), "%s", sum);
    cr_expect(strstr(sum, ",69.500000,\"a,b\"\"c\xc3\xa9\",true,,\"[\"\"x "
                     "\\\"\"q\\\"\", y\"\",\"\"line\\u000abreak\"\"]\","
                     "\"{\"\"e\"\":[1,-2.5e3,[]]}\"\n"), "%s", sum);
    free(sum);
    /* a summary.json that is not JSON is named with its position */
    tu_tmp_file("m/runs/0000-fifo-a-s1/summary.json", "{\"policy\": \"fifo\",\n"
                "  \"jobs\": 01}\n");
    cr_expect_eq(tu_sh("$DLSIM sweep --merge m"), 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "m/runs/0000-fifo-a-s1/summary.json:2:"), "%s", tu_out);
}

/* Starts a sweep in its own process group and kills the group with
 * SIGKILL once at least min runs are complete.  Returns how many were. */
static int sweep_and_kill(const char *spec, const char *out, int min, bool resume)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        if (chdir(tu_tmp_dir()))
            _exit(127);
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        execl(getenv("DLSIM"), "dlsim", "sweep", spec, "--jobs", "2", "--out", out,
              resume ? "--resume" : (char *)NULL, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    char runs[600];
    snprintf(runs, sizeof runs, "%s/%s/runs", tu_tmp_dir(), out);
    int done = 0;
    for (int k = 0; k < 30000; k++) {
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
        done = 0;
        DIR *d = opendir(runs);
        struct dirent *e;
        while (d && (e = readdir(d)))
            done += e->d_name[0] != '.';
        if (d)
            closedir(d);
        if (done >= min)
            break;
    }
    kill(-pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st), "the sweep ended before it was killed");
    return done;
}

Test(sweep, resume_after_kill_is_byte_identical, .timeout = 300)
{
    cr_assert_eq(tu_sh("$DLSIM trace gen --jobs 20000 --load 0.95 --seed 3 -o "
                    "k.csv.gz"), 0, "%s", tu_out);
    tu_tmp_file("k.yaml", "policies: [srtf, \"fifo:backfill=1\"]\ntraces: [k.csv.gz]\n"
                  "loads: [0.8, 0.9, 1.0, 1.1, 1.2]\nseeds: 1..2\n");
    cr_assert_eq(tu_sh("$DLSIM sweep k.yaml --jobs 1 --out full --quiet"), 0, "%s",
                 tu_out);
    int done = sweep_and_kill("k.yaml", "cut", 3, false);
    cr_expect(done >= 3 && done < 20, "%d runs were done at the kill", done);
    cr_expect(!tu_tmp_exists("cut/summary.csv"), "killed, yet summary.csv exists");
    cr_expect(tu_tmp_exists("cut/summary.csv.partial"));
    /* kill it a second time, mid-resume */
    int again = sweep_and_kill("k.yaml", "cut", done + 2, true);
    cr_expect(again >= done + 2 && again < 20, "%d runs done at the second kill",
              again);
    cr_expect(!tu_tmp_exists("cut/summary.csv"));
    cr_assert_eq(tu_sh("$DLSIM sweep k.yaml --out cut --resume --jobs 2"), 0, "%s",
                 tu_out);
    cr_expect(strstr(tu_out, "already done in cut"), "%s", tu_out);
    cr_expect_eq(tu_sh("cmp full/summary.csv cut/summary.csv"), 0, "%s", tu_out);
    cr_expect_eq(tu_sh("ls -a cut/runs | grep -c tmp"), 1);
    cr_expect_str_eq(tu_out, "0\n", "temporary directories left");
}

Test(sweep, shards_and_merge_equal_a_local_sweep)
{
    make_traces(100);
    tu_tmp_file("s.yaml", run_spec);
    cr_assert_eq(tu_sh("$DLSIM sweep s.yaml --out local --quiet"), 0, "%s", tu_out);
    cr_assert_eq(tu_sh("$DLSIM sweep s.yaml --out sh --shard 1/2 --jobs 1 --quiet"), 0,
                 "%s", tu_out);
    cr_expect_eq(count_lines(tu_tmp_text("sh/summary.shard-1-of-2.csv")), 9);
    cr_expect(strstr(tu_tmp_text("sh/summary.shard-1-of-2.csv"), "\n0001-"));
    cr_expect(!strstr(tu_tmp_text("sh/summary.shard-1-of-2.csv"), "\n0000-"));
    /* a merge before every shard is done names what is missing */
    cr_expect_eq(tu_sh("$DLSIM sweep --merge sh"), 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "8 of 16 runs missing"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("sh/summary.csv"));
    cr_assert_eq(tu_sh("$DLSIM sweep s.yaml --out sh --shard 0/2 --quiet"), 0, "%s",
                 tu_out);
    cr_assert_eq(tu_sh("$DLSIM sweep --merge sh"), 0, "%s", tu_out);
    cr_expect_eq(tu_sh("cmp local/summary.csv sh/summary.csv"), 0, "%s", tu_out);
    /* a shard run again keeps its finished runs */
    cr_assert_eq(tu_sh("$DLSIM sweep s.yaml --out sh --shard 0/2"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "8 of 8 runs already done"), "%s", tu_out);
    cr_expect_eq(tu_sh("$DLSIM sweep --merge nothere"), 2);
}

Test(sweep, mpirun_two_ranks_equal_a_local_sweep, .timeout = 300)
{
#ifndef DLSIM_MPI
    cr_skip_test("this build has no MPI (meson -Dmpi=enabled needs libopenmpi-dev)");
#else
    if (tu_sh("command -v mpirun"))
        cr_skip_test("mpirun is not installed (openmpi-bin)");
    make_traces(100);
    tu_tmp_file("s.yaml", run_spec);
    cr_assert_eq(tu_sh("$DLSIM sweep s.yaml --out local --quiet"), 0, "%s", tu_out);
    /* (OpenMPI's own allocations outlive MPI_Finalize: no leak reports
     * from the ranks of a sanitizer build) */
    int rc = tu_sh("mpirun --allow-run-as-root --oversubscribe -n 2 -x "
                "ASAN_OPTIONS=detect_leaks=0 $DLSIM sweep s.yaml --out mpi");
    cr_assert_eq(rc, 0, "exit %d: %s", rc, tu_out);
    cr_expect(strstr(tu_out, "sweep: 16 runs, 0 failed"), "%s", tu_out);
    /* both ranks ran runs (the plain log lines name the rank) */
    cr_expect(strstr(tu_out, "s, rank 0)"), "%s", tu_out);
    cr_expect(strstr(tu_out, "s, rank 1)"), "%s", tu_out);
    cr_expect_eq(tu_sh("cmp local/summary.csv mpi/summary.csv"), 0, "%s", tu_out);
    cr_expect_eq(tu_sh("ls mpi/runs | wc -l"), 0);
    cr_expect_str_eq(tu_out, "16\n");
    /* a failing run under MPI: recorded, exit status 1 */
    tu_tmp_file("tail.csv", "job_id,submit_time,num_gpus,duration\n"
                    "long,0,1,10000000\nshort,1,1,5\n");
    tu_tmp_file("f.yaml", "policies: [fifo, sjf]\ntraces: [a.csv.gz, tail.csv]\nsample: 1\n");
    cr_assert_eq(tu_sh("$DLSIM sweep f.yaml --out flocal --quiet"), 1, "%s", tu_out);
    rc = tu_sh("mpirun --allow-run-as-root --oversubscribe -n 2 -x "
            "ASAN_OPTIONS=detect_leaks=0 $DLSIM sweep f.yaml --out fmpi --quiet");
    cr_expect_neq(rc, 0, "%s", tu_out);
    cr_expect_eq(tu_sh("cmp flocal/summary.csv fmpi/summary.csv"), 0, "%s", tu_out);
    /* generated workloads: rank 0 writes them before any rank runs; the
     * summaries differ only in the directory their command names */
    tu_tmp_file("g.yaml", "policies: [fifo, sjf]\ntraces: [{gen: {jobs: 100}}]\n"
                "loads: [0.9]\nseeds: 1..3\n");
    cr_assert_eq(tu_sh("$DLSIM sweep g.yaml --out glocal --quiet"), 0, "%s", tu_out);
    rc = tu_sh("mpirun --allow-run-as-root --oversubscribe -n 2 -x "
               "ASAN_OPTIONS=detect_leaks=0 $DLSIM sweep g.yaml --out gmpi --quiet");
    cr_assert_eq(rc, 0, "exit %d: %s", rc, tu_out);
    cr_expect_eq(tu_sh("sed s,gmpi/,glocal/,g gmpi/summary.csv | cmp - "
                       "glocal/summary.csv && for f in glocal/traces/*; do cmp $f "
                       "gmpi/traces/${f#glocal/traces/} || exit 1; done"), 0, "%s",
                 tu_out);
#endif
}

/* Starts `dlsim sweep spec --out out [extra]` in the background in its own
 * process group, stdout and stderr to log; returns its pid. */
static pid_t sweep_bg(const char *spec, const char *out, const char *extra,
                      const char *log)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        if (chdir(tu_tmp_dir()))
            _exit(127);
        freopen("/dev/null", "w", stdout);
        freopen(log, "w", stderr);
        char *av[8] = { "dlsim", "sweep", (char *)spec, "--out", (char *)out };
        int n = 5;
        if (extra)
            av[n++] = (char *)extra;
        av[n] = NULL;
        execv(getenv("DLSIM"), av);
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

/* Waits (up to 60 s) until path exists under the temporary directory. */
static void wait_for(const char *name)
{
    for (int k = 0; k < 6000 && !tu_tmp_exists(name); k++) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    cr_assert(tu_tmp_exists(name), "%s never appeared", name);
}

/* The process of run id of the sweep writing to out, once it is running:
 * each run writes into out/runs/.tmp-<id>.<pid>/ until it is renamed
 * into place, so the pid there is the run's own (the sweep's newest child
 * may still be the run before, which has renamed its directory and is
 * about to be reaped).  Waits up to 60 s. */
static pid_t run_pid(const char *out, const char *id)
{
    char pre[256];
    snprintf(pre, sizeof pre, ".tmp-%s.", id);
    size_t np = strlen(pre);
    for (int k = 0; k < 6000; k++) {
        DIR *d = opendir(tu_tmp_pathf("%s/runs", out));
        struct dirent *e;
        long pid = 0;
        while (d && (e = readdir(d)))
            if (!strncmp(e->d_name, pre, np))
                pid = strtol(e->d_name + np, NULL, 10);
        if (d)
            closedir(d);
        if (pid > 0)
            return (pid_t)pid;
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    cr_assert_fail("run %s of %s never started", id, out);
    return 0;
}

/* gandiva swapping every 6 s on a 3x overloaded cluster: a run of about
 * 1 s (jobs 3000) of a 2026 server's CPU, long enough to be caught alive;
 * the tests that need it alive for longer stop it (hold_run) */
/* Run id of the sweep writing to out, stopped (SIGSTOP) so that it stays
 * alive for as long as the test needs; SIGCONT it after. */
static pid_t hold_run(const char *out, const char *id)
{
    pid_t run = run_pid(out, id);
    cr_assert(!kill(run, SIGSTOP), "run %s (pid %ld) ended before it could "
              "be held", id, (long)run);
    return run;
}

static void make_slow_spec(int jobs)
{
    cr_assert_eq(tu_sh("$DLSIM trace gen --jobs %d --load 0.95 --seed 3 -o "
                       "k.csv.gz", jobs), 0, "%s", tu_out);
    tu_tmp_file("k.yaml", "policies: [fifo, \"gandiva:quantum=6\"]\n"
                "traces: [k.csv.gz]\nloads: [3]\nsample: 0\n");
}

/* A run that dies of a signal sent from outside (SIGKILL, as the OOM
 * killer sends) failed for a reason of its environment: it is recorded as
 * retry (exit status 1), the rest of the sweep completes, and --resume
 * runs it again, giving the summary.csv of an uninterrupted sweep.  A run
 * that failed for a reason of its inputs stays failed (strict_sweeps,
 * failing_run_...). */
Test(sweep, run_killed_by_a_signal_is_retried, .timeout = 300)
{
    make_slow_spec(2000);
    cr_assert_eq(tu_sh("$DLSIM sweep k.yaml --jobs 1 --out full --quiet"), 0, "%s",
                 tu_out);
    pid_t pid = sweep_bg("k.yaml", "o", "--jobs=2", "o.log");
    pid_t victim = hold_run("o", "0001-gandiva_quantum_6-k-l3-s1");
    kill(victim, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "sweep status %d", st);
    const char *sum = tu_tmp_text("o/summary.csv");
    cr_expect(strstr(sum, "\n0000-fifo-k-l3-s1,default,fifo,k.csv.gz,demo-256,none,3,1,"
                     "ok,,"), "%s", sum);
    cr_expect(strstr(sum, "\n0001-gandiva_quantum_6-k-l3-s1,default,gandiva:quantum=6,"
                     "k.csv.gz,demo-256,none,3,1,retry,killed by signal 9 "
                     "(Killed),"), "%s", sum);
    cr_expect(strstr(tu_tmp_text("o.log"), "0 failed, 1 to retry"), "%s",
              tu_tmp_text("o.log"));
    cr_expect(tu_tmp_exists("o/runs/0001-gandiva_quantum_6-k-l3-s1/retry.txt"));
    cr_expect_eq(tu_sh("ls -a o/runs | grep -c tmp"), 1);
    cr_expect_str_eq(tu_out, "0\n", "the dead run's temporary directory is left");
    cr_assert_eq(tu_sh("$DLSIM sweep k.yaml --out o --resume"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "1 of 2 runs already done"), "%s", tu_out);
    cr_expect_eq(tu_sh("cmp full/summary.csv o/summary.csv"), 0, "%s", tu_out);
}

/* The sweep command fmt is refused (exit 2) with want in its message. */
__attribute__((format(printf, 2, 3)))
static void refused(const char *want, const char *fmt, ...)
{
    char cmd[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    cr_expect_eq(tu_sh("%s", cmd), 2, "%s: %s", cmd, tu_out);
    cr_expect(strstr(tu_out, want), "%s: '%s' not in: %s", cmd, want, tu_out);
}

/* One lock per sweep directory, tried with two real processes: while a
 * sweep runs, a second one on its directory (with --resume or without)
 * and a --merge are refused with the holder's pid, and nothing of the
 * first is touched; once it has ended (or been killed with kill -9: a
 * dead sweep holds no lock) the directory is free again. */
Test(sweep, a_second_live_sweep_is_refused, .timeout = 300)
{
    make_slow_spec(3000);
    pid_t pid = sweep_bg("k.yaml", "o", "--jobs=1", "o.log");
    pid_t held = hold_run("o", "0001-gandiva_quantum_6-k-l3-s1");
    char want[128];
    snprintf(want, sizeof want, "o is in use by another dlsim sweep (pid %ld on "
             "host ", (long)pid);
    refused(want, "$DLSIM sweep k.yaml --out o --resume");
    refused(want, "$DLSIM sweep k.yaml --out o");
    refused(want, "$DLSIM sweep --merge o");
    kill(held, SIGCONT);
    int st;
    waitpid(pid, &st, 0);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the first sweep was disturbed: "
              "%d: %s", st, tu_tmp_text("o.log"));
    cr_expect(strstr(tu_tmp_text("o.log"), "sweep: 2 runs, 0 failed"), "%s",
              tu_tmp_text("o.log"));
    cr_expect_eq(tu_sh("$DLSIM sweep k.yaml --out o --resume --quiet"), 0, "%s",
                 tu_out);
    /* killed: its lock dies with it, and --resume takes the directory */
    pid = sweep_bg("k.yaml", "cut", "--jobs=1", "cut.log");
    hold_run("cut", "0001-gandiva_quantum_6-k-l3-s1");
    kill(-pid, SIGKILL);
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st));
    cr_assert_eq(tu_sh("$DLSIM sweep k.yaml --out cut --resume"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "1 of 2 runs already done"), "%s", tu_out);
    cr_expect_eq(tu_sh("cmp o/summary.csv cut/summary.csv"), 0, "%s", tu_out);
}

/* Shards share a directory on purpose: two shards of one --shard I/N run
 * side by side; the same shard twice, a shard of another N and a plain
 * sweep are refused while they run. */
Test(sweep, shards_share_the_directory_lock, .timeout = 300)
{
    make_slow_spec(3000);
    tu_tmp_file("k2.yaml", "policies: [\"gandiva:quantum=6\", fifo]\n"
                "traces: [k.csv.gz]\nloads: [3]\nsample: 0\n");
    pid_t a = sweep_bg("k2.yaml", "sh", "--shard=0/2", "a.log");
    wait_for("sh/shard-0-of-2.lock");
    pid_t held = hold_run("sh", "0000-gandiva_quantum_6-k-l3-s1");
    cr_assert_eq(tu_sh("$DLSIM sweep k2.yaml --out sh --shard 1/2"), 0,
                 "a shard was refused beside another: %s", tu_out);
    char want[128];
    snprintf(want, sizeof want, "shard 0/2 of sh is already running (pid %ld on "
             "host ", (long)a);
    refused(want, "$DLSIM sweep k2.yaml --out sh --shard 0/2");
    refused("sh is being swept in another number of shards: shard 0/2 (pid ",
            "$DLSIM sweep k2.yaml --out sh --shard 1/3");
    refused("sh is in use by running shards of a sweep: shard 0/2 (pid ",
            "$DLSIM sweep k2.yaml --out sh --resume");
    kill(held, SIGCONT);
    int st;
    waitpid(a, &st, 0);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", tu_tmp_text("a.log"));
    cr_expect_eq(tu_sh("$DLSIM sweep --merge sh"), 0, "%s", tu_out);
}

/* Environmental failures are retried, not kept: a disk that fills up
 * during a sweep (a real tmpfs of 160 kB, where root may mount one; else
 * that part is skipped), and a file-size limit (ulimit -f, which anyone
 * can set: writes fail with EFBIG) make runs retry (or leave them
 * undone); once there is room, --resume gives the summary.csv of an
 * uninterrupted sweep. */
static void umount_disk(void)
{
    if (tu_tmpdir[0]) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "umount '%s/disk' 2>/dev/null", tu_tmpdir);
        if (system(cmd)) {
            /* not mounted */
        }
    }
    tu_tmp_cleanup();
}

Test(sweep, full_disk_runs_are_retried, .fini = umount_disk, .timeout = 300)
{
    cr_assert_eq(tu_sh("$DLSIM trace gen --jobs 40 --seed 1 -o small.csv && "
                       "$DLSIM trace gen --jobs 700 --seed 2 -o big.csv"), 0, "%s",
                 tu_out);
    tu_tmp_file("d.yaml", "policies: [fifo, sjf, srtf]\ntraces: [small.csv, big.csv]\n"
                "seeds: 1..2\nsample: 0\n");
    cr_assert_eq(tu_sh("$DLSIM sweep d.yaml --out full --quiet"), 0, "%s", tu_out);
    /* the file-size limit: every big run's jobs.csv (about 70 kB) fails */
    int rc = tu_sh("trap '' XFSZ; ulimit -f 24 && $DLSIM sweep d.yaml --out lim");
    cr_expect_eq(rc, 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "0 failed, 6 to retry"), "%s", tu_out);
    const char *sum = tu_tmp_text("lim/summary.csv");
    cr_expect(strstr(sum, "\n0002-fifo-big-s1,default,fifo,big.csv,demo-256,none,none,"
                     "1,retry,"), "%s", sum);
    cr_expect(strstr(sum, "File too large (exit status 75)"), "%s", sum);
    cr_expect(strstr(sum, "\n0000-fifo-small-s1,default,fifo,small.csv,demo-256,none,"
                     "none,1,ok,"), "%s", sum);
    cr_assert_eq(tu_sh("$DLSIM sweep d.yaml --out lim --resume"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "6 of 12 runs already done"), "%s", tu_out);
    cr_expect_eq(tu_sh("cmp full/summary.csv lim/summary.csv"), 0, "%s", tu_out);

    /* a real full disk */
    if (tu_sh("mkdir disk && mount -t tmpfs -o size=160k tmpfs disk"))
        cr_skip_test("cannot mount a tmpfs here (not root?): %s", tu_out);
    rc = tu_sh("$DLSIM sweep d.yaml --out disk/o --jobs 1");
    cr_expect_eq(rc, 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "No space left on device"), "%s", tu_out);
    cr_expect_eq(tu_sh("ls disk/o/runs | wc -l"), 0);
    int done = atoi(tu_out);
    cr_expect(done < 12, "every run fit on the small disk");
    cr_assert_eq(tu_sh("mount -o remount,size=4m disk"), 0, "%s", tu_out);
    cr_assert_eq(tu_sh("$DLSIM sweep d.yaml --out disk/o --resume"), 0, "%s", tu_out);
    cr_expect_eq(tu_sh("cmp full/summary.csv disk/o/summary.csv"), 0, "%s", tu_out);
    cr_expect_eq(tu_sh("ls -a disk/o/runs | grep -c tmp"), 1);
    cr_expect_str_eq(tu_out, "0\n", "temporary directories left");
}

/* scripts/slurm-sweep.sh without Slurm.  A fake sbatch on PATH records
 * its arguments, checks that the merge depends on the array job it
 * printed, and runs each job at once as Slurm would (a task per array
 * index with SLURM_ARRAY_TASK_ID set, under /bin/sh, output to --output
 * with %a replaced); FAKE_SKIP=I leaves task I out (a killed task). */
static const char fake_sbatch[] =
    "#!/bin/sh\n"
    "printf '%s\\n' \"$*\" >> sbatch.log\n"
    "id=$(( $(cat sbatch.id 2>/dev/null || echo 100) + 1 )); echo $id > sbatch.id\n"
    "array= wrap= dep= log=/dev/null\n"
    "for a; do case $a in\n"
    "  --array=*) array=${a#--array=} ;; --wrap=*) wrap=${a#--wrap=} ;;\n"
    "  --dependency=*) dep=${a#--dependency=} ;; --output=*) log=${a#--output=} ;;\n"
    "  --parsable|--job-name=*|--time=*) ;;\n"
    "  *) echo \"fake sbatch: unexpected argument $a\" >&2; exit 1 ;;\n"
    "esac; done\n"
    "if [ -n \"$dep\" ] && [ \"$dep\" != \"afterany:$((id - 1))\" ]; then\n"
    "  echo \"fake sbatch: dependency $dep is not the array job\" >&2; exit 1; fi\n"
    "if [ -n \"$array\" ]; then\n"
    "  i=${array%-*}; while [ $i -le ${array#*-} ]; do\n"
    "    [ \"$i\" = \"${FAKE_SKIP:-}\" ] || SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_JOB_ID=$id \\\n"
    "      sh -c \"$wrap\" > \"$(echo \"$log\" | sed \"s/%a/$i/\")\" 2>&1\n"
    "    i=$((i + 1)); done\n"
    "else sh -c \"$wrap\" > \"$log\" 2>&1; fi\n"
    "echo \"$id;fakecluster\"\n";

Test(sweep, slurm_script_array_and_dependent_merge)
{
    char src[1024];
    cr_assert(getcwd(src, sizeof src));          /* tests/ */
    make_traces(100);
    tu_tmp_file("s.yaml", run_spec);
    tu_tmp_file("bin/sbatch", fake_sbatch);
    cr_assert_eq(tu_sh("chmod +x bin/sbatch"), 0);
    cr_assert_eq(tu_sh("$DLSIM sweep s.yaml --out local --quiet --strict"), 0, "%s", tu_out);

    /* submitted: 3 array tasks, then the merge after them */
    cr_assert_eq(tu_sh("PATH=$PWD/bin:$PATH '%s/../scripts/slurm-sweep.sh' --shards 3 "
                       "--dlsim \"$DLSIM\" --sbatch --time=5 s.yaml sl -- --strict",
                       src), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "slurm-sweep: array job 101 (3 shards of s.yaml into "
                     "sl), merge job 102; logs in sl.slurm/"), "%s", tu_out);
    const char *log = tu_tmp_text("sbatch.log");
    cr_expect(strstr(log, "--parsable --job-name=dlsim-sweep --array=0-2 "
                     "--output=sl.slurm/shard-%a.log --time=5 --wrap="), "%s", log);
    cr_expect(strstr(log, "--shard \"$SLURM_ARRAY_TASK_ID\"/3 --jobs "
                     "\"${SLURM_CPUS_PER_TASK:-1}\" '--strict'\n"), "%s", log);
    cr_expect(strstr(log, "--dependency=afterany:101 --output=sl.slurm/merge.log "
                     "--time=5 --wrap="), "%s", log);
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "sl/summary.shard-%d-of-3.csv", i);
        cr_expect(tu_tmp_exists(name), "%s", name);
    }
    cr_expect(strstr(tu_tmp_text("sl.slurm/merge.log"), "merged 16 runs"), "%s",
              tu_tmp_text("sl.slurm/merge.log"));
    cr_expect_eq(tu_sh("cmp local/summary.csv sl/summary.csv"), 0, "%s", tu_out);

    /* a task that never ran: the merge names what is missing and writes
     * nothing; that shard again, and the merge, give the same bytes */
    cr_assert_eq(tu_sh("rm -f sbatch.id && FAKE_SKIP=1 PATH=$PWD/bin:$PATH "
                       "'%s/../scripts/slurm-sweep.sh' --shards 3 --dlsim \"$DLSIM\" "
                       "s.yaml k -- --strict", src), 0, "%s", tu_out);
    cr_expect(strstr(tu_tmp_text("k.slurm/merge.log"), "runs missing"), "%s",
              tu_tmp_text("k.slurm/merge.log"));
    cr_expect(!tu_tmp_exists("k/summary.csv"));
    cr_assert_eq(tu_sh("$DLSIM sweep s.yaml --out k --shard 1/3 --quiet --strict && "
                       "$DLSIM sweep --merge k --quiet && cmp local/summary.csv "
                       "k/summary.csv"), 0, "%s", tu_out);

    /* the same steps here, without Slurm; what would be submitted */
    cr_assert_eq(tu_sh("'%s/../scripts/slurm-sweep.sh' --local --shards 4 --dlsim "
                       "\"$DLSIM\" s.yaml lo -- --quiet --strict", src), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "slurm-sweep: shard 3/4: "), "%s", tu_out);
    cr_expect_eq(tu_sh("cmp local/summary.csv lo/summary.csv"), 0, "%s", tu_out);
    cr_assert_eq(tu_sh("'%s/../scripts/slurm-sweep.sh' --dry-run --shards 2 "
                       "--dlsim \"$DLSIM\" s.yaml dr", src), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "sbatch --parsable --job-name=dlsim-sweep --array=0-1 ")
              && strstr(tu_out, "--dependency=afterany:ARRAY_JOB_ID"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("dr") && !tu_tmp_exists("dr.slurm"));
    /* bad usage */
    cr_expect_eq(tu_sh("'%s/../scripts/slurm-sweep.sh' --shards 0 s.yaml x", src), 2);
    cr_expect(strstr(tu_out, "--shards expects a whole number >= 1"), "%s", tu_out);
    cr_expect_eq(tu_sh("PATH=/usr/bin:/bin '%s/../scripts/slurm-sweep.sh' --dlsim "
                       "\"$DLSIM\" s.yaml x", src), 2);
    cr_expect(strstr(tu_out, "no sbatch on PATH"), "%s", tu_out);
}
