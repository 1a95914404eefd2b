/*
 * tests/test_cli.c - the dlsim command as a user meets it: exit codes,
 * located error messages, no output left behind on bad input, atomic and
 * byte-identical outputs, the policy list.  Runs the built binary ($DLSIM).
 */
#include "testutil.h"
#include "models/perf.h"
#include "sim/simint.h"
#include "sim/base/formats.h"

#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

static const char good_trace[] =
    "job_id,submit_time,num_gpus,duration,deadline\n"
    "a,0,2,100,150\nb,10,4,50,\nc,20,1,30,60\n";
static const char good_cluster[] =
    "name: tiny\ngpu_types:\n  - {name: V100, memory_gb: 32}\n"
    "nodes:\n  - {count: 1, gpus: 4, gpu_type: V100}\n";

TestSuite(cli, .fini = tu_tmp_cleanup);

Test(cli, run_writes_outputs)
{
    tu_tmp_file("t.csv", good_trace);
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --policy fifo --out o --check"),
                 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "fifo"), "%s", tu_out);
    cr_expect(tu_tmp_exists("o/jobs.csv") && tu_tmp_exists("o/summary.json") && tu_tmp_exists("o/timeseries.csv"));
    FILE *f = fopen(tu_tmp_path("o/jobs.csv"), "r");
    char line[512];
    cr_assert(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "job_id,submit_time,start_time,finish_time,wait_time,jct,"
                           "num_gpus,gpu_type,placement,preemptions,deadline,qos_met,"
                           "isolated_runtime,slowdown,model,user,vc\n");
    cr_assert(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "a,0,0,100,0,100,2,V100,n0:0-1,0,150,1,100.000000,1.000000,,,\n");
    cr_assert(fgets(line, sizeof line, f));
    /* b needs all 4 GPUs: waits for a (strict FIFO), 100-150 */
    cr_expect_str_eq(line, "b,10,100,150,90,140,4,V100,n0:0-3,0,,,50.000000,2.800000,,,\n");
    cr_assert(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "c,20,150,180,130,160,1,V100,n0:0,0,60,0,30.000000,5.333333,,,\n");
    fclose(f);
    const char *js = tu_tmp_text("o/summary.json");
    const char *keys[] = { "policy", "trace", "cluster", "seed", "jobs", "jobs_finished",
                           "makespan", "avg_jct", "p50_jct", "p95_jct", "p99_jct",
                           "avg_wait", "p50_wait", "p99_wait", "qos_jobs",
                           "qos_guarantee_rate", "gpu_util_alloc", "gpu_util_effective",
                           "preemptions", "events", "wall_seconds" };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        char k[64];
        snprintf(k, sizeof k, "\"%s\":", keys[i]);
        cr_expect(strstr(js, k), "summary.json lacks %s", keys[i]);
    }
    cr_expect(strstr(js, "\"makespan\": 180,"), "%s", js);
    cr_expect(strstr(js, "\"qos_guarantee_rate\": 0.500000,"), "%s", js);
}

Test(cli, byte_identical_reruns)
{
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("trace gen --cluster c.yaml --jobs 400 --load 0.95 --seed 9 "
                       "--deadline-slack 1.5:3 -o t.csv.gz"), 0, "%s", tu_out);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(tu_dlsim("run --trace t.csv.gz --cluster c.yaml --policy srtf "
                           "--seed 3 --sample 60 --out r%d", i), 0, "%s", tu_out);
    cr_expect_eq(system(NULL), 1);
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && cmp r0/jobs.csv r1/jobs.csv && cmp r0/timeseries.csv "
             "r1/timeseries.csv && diff <(grep -v wall_seconds r0/summary.json) "
             "<(grep -v wall_seconds r1/summary.json) >/dev/null", tu_tmp_dir());
    char full[1200];
    snprintf(full, sizeof full, "bash -c \"%s\"", cmd);
    cr_expect_eq(system(full), 0, "outputs differ between identical runs");
    /* and the generator itself is reproducible */
    cr_assert_eq(tu_dlsim("trace gen --cluster c.yaml --jobs 400 --load 0.95 --seed 9 "
                       "--deadline-slack 1.5:3 -o u.csv.gz"), 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && cmp t.csv.gz u.csv.gz", tu_tmp_dir());
    cr_expect_eq(system(cmd), 0);
}

/* Each bad input: exit 2, a located message, and no output directory. */
struct bad { const char *trace, *cluster, *policy, *expect; };

static void expect_bad(const struct bad *b)
{
    tu_tmp_file("t.csv", b->trace);
    tu_tmp_file("c.yaml", b->cluster);
    int rc = tu_dlsim("run --trace t.csv --cluster c.yaml --policy '%s' --out o", b->policy);
    cr_expect_eq(rc, 2, "exit %d for %s: %s", rc, b->expect, tu_out);
    cr_expect(strstr(tu_out, b->expect), "expected '%s' in: %s", b->expect, tu_out);
    cr_expect(!tu_tmp_exists("o"), "output directory left behind for %s", b->expect);
}

Test(cli, bad_inputs_exit_2_located)
{
    const struct bad cases[] = {
        { "job_id,submit_time,num_gpus\na,0,1\n", good_cluster, "fifo", "t.csv:1:" },
        { "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,x,1,5\n", good_cluster,
          "fifo", "t.csv:3:" },
        { "job_id,submit_time,num_gpus,duration\na,0,-1,10\n", good_cluster, "fifo",
          "t.csv:2:" },
        { "job_id,submit_time,num_gpus,duration\na,5,1,10\nb,1,1,5\n", good_cluster,
          "fifo", "t.csv:3:" },
        { "", good_cluster, "fifo", "t.csv" },
        { good_trace, "name: x\ngpu_types:\n  - {name: V100, memory_gb: 32}\nnodes:\n"
          "  - {count: 1, gpus: 4, gpu_type: V100, colour: red}\n", "fifo", "c.yaml:5:" },
        { good_trace, "gpu_types:\n  - {name: V100, memory_gb: lots}\n", "fifo",
          "c.yaml:2:" },
        { good_trace, good_cluster, "lifo", "unknown policy 'lifo' (valid: fifo, sjf, srtf" },
        { good_trace, good_cluster, "fifo:backfil=1", "valid: placement, backfill" },
        { good_trace, good_cluster, "srtf:preempt_cost=-3", "preempt_cost=-3" },
        { good_trace, good_cluster, "fifo:placement=spread", "placement=spread" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_bad(&cases[i]);
}

/* Gangs that would hold more GPUs in all than a run indexes (2^32 - 1):
 * 43,000 jobs of 100,000 GPUs on a cluster of 100,000, refused at the job
 * where the sum passes it, before any per-job memory is made. */
Test(cli, gangs_past_the_index_limit_are_refused_located)
{
    tu_tmp_file("c.yaml", "name: big\ngpu_types: [{name: V100, memory_gb: 32}]\n"
                "nodes: [{count: 12500, gpus: 8, gpu_type: V100}]\n");
    char *csv = xmalloc(43000 * 32 + 64), *p = csv;
    p += sprintf(p, "job_id,submit_time,num_gpus,duration\n");
    for (int i = 0; i < 43000; i++)
        p += sprintf(p, "j%d,%d,100000,10\n", i, i);
    tu_tmp_file("t.csv", csv);
    free(csv);
    int rc = tu_dlsim("run --trace t.csv --cluster c.yaml --out o");
    cr_expect_eq(rc, 2, "%s", tu_out);
    /* 42,950 gangs make 4,295,000,000 */
    cr_expect(strstr(tu_out, "t.csv:42951: job j42949: the gangs up to here "
                     "would hold 4295000000 GPUs"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("o"));
}

Test(cli, truncated_gzip_is_an_error)
{
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("trace gen --cluster c.yaml --jobs 3000 --seed 1 -o t.csv.gz"), 0);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cd '%s' && head -c 20000 t.csv.gz > cut.csv.gz", tu_tmp_dir());
    cr_assert_eq(system(cmd), 0);
    int rc = tu_dlsim("run --trace cut.csv.gz --cluster c.yaml --out o");
    cr_expect_eq(rc, 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "cut.csv.gz:"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("o"));
}

Test(cli, usage_errors)
{
    cr_expect_eq(tu_dlsim("run"), 2);
    cr_expect(strstr(tu_out, "--trace is required"), "%s", tu_out);
    cr_expect_eq(tu_dlsim("frobnicate"), 2);
    cr_expect_eq(tu_dlsim("run --trace nowhere.csv"), 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "nowhere.csv"), "%s", tu_out);
    cr_expect_eq(tu_dlsim("--help"), 0);
    cr_expect_eq(tu_dlsim("run --help"), 0);
    cr_expect(strstr(tu_out, "--check"));
    cr_expect_eq(tu_dlsim("trace gen --help"), 0);
    cr_expect_eq(tu_dlsim("trace stats --help"), 0);
}

Test(cli, policies_listed)
{
    cr_assert_eq(tu_dlsim("policies"), 0);
    const char *want[] = { "fifo", "sjf", "srtf", "backfill", "preempt_cost",
                           "placement", "does not fit" };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(strstr(tu_out, want[i]), "no %s in: %s", want[i], tu_out);
}

Test(cli, never_fitting_jobs_reported)
{
    tu_tmp_file("t.csv", "job_id,submit_time,num_gpus,duration\nok,0,1,10\nbig,0,64,10\n");
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --out o"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "t.csv:3: job big (64 GPUs) can never fit"), "%s", tu_out);
    FILE *f = fopen(tu_tmp_path("o/jobs.csv"), "r");
    char line[512];
    cr_assert(fgets(line, sizeof line, f) && fgets(line, sizeof line, f) &&
              fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "big,0,,,,,64,,,0,,,,,,,\n");
    fclose(f);
}

Test(cli, demo_runs)
{
    cr_assert_eq(tu_dlsim("demo --jobs 300 --seed 2"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "srtf"));
    cr_expect(strstr(tu_out, "sjf"));
}

/* A failed write leaves no summary.json (so the set does not look whole)
 * and no temporary files. */
Test(cli, failed_write_leaves_no_complete_set)
{
    tu_tmp_file("t.csv", good_trace);
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --out o --quiet"), 0, "%s",
                 tu_out);
    cr_assert_eq(unlink(tu_tmp_path("o/timeseries.csv")), 0);
    cr_assert_eq(mkdir(tu_tmp_path("o/timeseries.csv"), 0777), 0);
    cr_expect_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --out o --quiet"), 1, "%s",
                 tu_out);
    cr_expect(strstr(tu_out, "o/timeseries.csv: not a regular file"), "%s",
              tu_out);
    cr_expect(!tu_tmp_exists("o/summary.json"));
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls '%s/o' | grep -q tmp", tu_tmp_dir());
    cr_expect_neq(system(cmd), 0, "temporary files left behind");
}

/* An output that exists and is not a regular file (a FIFO here; as root,
 * /dev/null) is refused, never replaced by the rename of the atomic write. */
Test(cli, special_file_outputs_are_not_replaced)
{
    tu_tmp_file("t.csv", good_trace);
    cr_assert_eq(mkfifo(tu_tmp_path("fifo.csv"), 0666), 0);
    cr_expect_eq(tu_dlsim("trace gen --jobs 5 -o fifo.csv"), 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "fifo.csv: not a regular file"), "%s", tu_out);
    cr_expect_eq(tu_dlsim("trace annotate t.csv --util const:0.5 -o fifo.csv"), 1,
                 "%s", tu_out);
    char here[512], args[1024];
    cr_assert(getcwd(here, sizeof here));
    snprintf(args, sizeof args, "fit util '%s/data/util_tiny.csv' -o fifo.csv", here);
    cr_expect_eq(tu_dlsim("%s", args), 1, "%s", tu_out);
    struct stat st;
    cr_assert_eq(stat(tu_tmp_path("fifo.csv"), &st), 0);
    cr_expect(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp", tu_tmp_dir());
    cr_expect_neq(system(cmd), 0, "temporary files left behind");
}

/* --models: the zoo's speeds on a mixed cluster, located errors in a
 * models file (exit 2, nothing written), a missing file (exit 1). */
Test(cli, run_with_models)
{
    tu_tmp_file("t.csv", "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
                 "a,0,1,3600,resnet50@64,K80\nb,0,1,3600,resnet50@64,V100\n"
                 "c,0,1,3600,,K80\n");
    tu_tmp_file("c.yaml", "name: two\nreference_gpu: V100\ngpu_types:\n"
                  "  - {name: V100, memory_gb: 32}\n"
                  "  - {name: K80, memory_gb: 12, speed: 0.25}\n"
                  "nodes:\n  - {count: 1, gpus: 2, gpu_type: V100}\n"
                  "  - {count: 1, gpus: 2, gpu_type: K80}\n");
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --models zoo --out o "
                       "--check"), 0, "%s", tu_out);
    FILE *f = fopen(tu_tmp_path("o/jobs.csv"), "r");
    char line[512];
    cr_assert(fgets(line, sizeof line, f));
    /* Gavel measured resnet50@64 at 0.7458616 it/s on K80, 4.525762 on
     * V100: 3600 s of V100 work take 3600 * 4.525762 / 0.7458616 s */
    cr_assert(fgets(line, sizeof line, f));
    const char *fld = line;
    for (int i = 0; i < 12; i++)        /* isolated_runtime is field 13 */
        fld = strchr(fld, ',') + 1;
    double iso = atof(fld);
    cr_expect(fabs(iso - 3600 * 4.525762 / 0.7458616) < 1e-5, "%s", line);
    cr_assert(fgets(line, sizeof line, f));
    cr_expect(strstr(line, ",3600.000000,1.000000,resnet50@64,,\n"), "%s", line);
    /* no model: the cluster's K80 speed */
    cr_assert(fgets(line, sizeof line, f));
    cr_expect(strstr(line, ",14400.000000,1.000000,,,\n"), "%s", line);
    fclose(f);
    const char *js = tu_tmp_text("o/summary.json");
    cr_expect(strstr(js, "\"colocated_gpu_time_frac\": 0.000000,"), "%s", js);
    cr_expect(strstr(js, "\"interference_slowdown\": 1.000000,"), "%s", js);

    tu_tmp_file("m.yaml", "kind: models\npredict:\n  runtime: psychic\n");
    cr_expect_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --models m.yaml --out p"), 2);
    cr_expect(strstr(tu_out, "m.yaml:3:12: runtime: expected 'model', 'roofline', 'fitted' or 'oracle'"),
              "%s", tu_out);
    cr_expect(!tu_tmp_exists("p"));
    tu_tmp_file("m.yaml", "kind: models\nslowdown: none.yaml\n");
    cr_expect_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --models m.yaml --out p"), 1);
    cr_expect(strstr(tu_out, "none.yaml"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("p"));
}

/* The calibration loop end to end: `dlsim fit` writes model files that
 * `dlsim run --models` reads. */
Test(cli, fitted_models_feed_a_run)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp data/pairs_tiny.csv data/util_tiny.csv '%s'/",
             tu_tmp_dir());
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(tu_dlsim("fit slowdown pairs_tiny.csv --folds 2 -o sd.yaml"), 0,
                 "%s", tu_out);
    cr_assert_eq(tu_dlsim("fit util util_tiny.csv --folds 2 -o util.yaml"), 0,
                 "%s", tu_out);
    tu_tmp_file("m.yaml", "kind: models\nslowdown: sd.yaml\nutil: util.yaml\n"
                  "max_jobs_per_gpu: 2\npredict: {util_noise: 0.1}\n");
    tu_tmp_file("t.csv", "job_id,submit_time,num_gpus,duration,model\n"
                 "a,0,1,100,resnet50@64\nb,5,1,50,vgg16\n");
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --models m.yaml --out o "
                       "--check"), 0, "%s", tu_out);
    cr_expect(tu_tmp_exists("o/summary.json"));
    /* models given twice: the later file's settings win */
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --models m.yaml "
                       "--models sd.yaml --out o2 --check"), 0, "%s", tu_out);
}

/* ---- provenance, warnings and --strict (SPEC 4; issue "numbers a
 * reviewer can trust") */

static const struct dl_json *js_get(const struct dl_json_doc *d,
                                     const char *key)
{
    const struct dl_json *v = dl_json_get(d->root, key);
    cr_assert(v, "summary.json has no %s", key);
    return v;
}

static void js_load(struct dl_json_doc *d, const char *rel)
{
    struct dl_error err = { 0 };
    cr_assert_eq(dl_json_load(tu_tmp_path(rel), d, &err), 0, "%s: %s", rel,
                 err.msg);
}

/* summary.json says how the run was made, with its keys in the writer's
 * order (out_summary_keys: the sweep's header falls back on it). */
Test(cli, summary_records_provenance)
{
    tu_tmp_file("t.csv", good_trace);
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --policy 'fifo:backfill=1' "
                          "--out o --seed 7 --check --quiet"), 0, "%s", tu_out);
    struct dl_json_doc d;
    js_load(&d, "o/summary.json");
    cr_assert_eq(d.root->n, out_nsummary_keys);
    for (uint32_t i = 0; i < d.root->n; i++)
        cr_expect_str_eq(d.root->kid[i].key, out_summary_keys[i]);
    cr_expect_str_eq(js_get(&d, "dlsim_version")->str, DLSIM_VERSION);
    cr_expect_str_eq(js_get(&d, "command")->str,
                     "dlsim run --trace t.csv --cluster c.yaml --policy "
                     "fifo:backfill=1 --seed 7 --check --quiet");
    cr_expect_eq(js_get(&d, "models")->type, DL_JSON_ARRAY);
    cr_expect_eq(js_get(&d, "models")->n, 0);
    cr_expect_eq(js_get(&d, "models_zoo")->type, DL_JSON_NULL);
    cr_expect_eq(js_get(&d, "load")->type, DL_JSON_NULL);
    cr_expect_eq(js_get(&d, "strict")->type, DL_JSON_FALSE);
    /* the CRC-32s of the two files' bytes */
    char want[16];
    size_t n;
    char *b = tu_slurp(tu_tmp_path("t.csv"), &n);
    snprintf(want, sizeof want, "%08lx", crc32(0, (const Bytef *)b, (uInt)n));
    free(b);
    cr_expect_str_eq(js_get(&d, "trace_crc32")->str, want);
    b = tu_slurp(tu_tmp_path("c.yaml"), &n);
    snprintf(want, sizeof want, "%08lx", crc32(0, (const Bytef *)b, (uInt)n));
    free(b);
    cr_expect_str_eq(js_get(&d, "cluster_crc32")->str, want);
    /* a 4-GPU cluster, 3 jobs: a 0-100 (2 GPUs), c 20-50 (1), b 100-150
     * (4); the floor is a's 100 */
    cr_expect_float_eq(js_get(&d, "makespan_floor")->num, 100, 1e-9);
    cr_expect_float_eq(js_get(&d, "makespan")->num, 150, 1e-9);
    cr_expect_eq(js_get(&d, "warnings")->num, 0);
    cr_expect_eq(js_get(&d, "jobs_model_default")->num, 3);
    dl_json_free(&d);
    /* the built-in cluster has no file, and a run elsewhere (--out) writes
     * the same summary.json but for wall_seconds */
    cr_assert_eq(tu_dlsim("run --trace t.csv --out p --quiet"), 0, "%s", tu_out);
    cr_assert_eq(tu_dlsim("run --trace t.csv --out q --quiet"), 0, "%s", tu_out);
    js_load(&d, "p/summary.json");
    cr_expect_eq(js_get(&d, "cluster_crc32")->type, DL_JSON_NULL);
    dl_json_free(&d);
    tu_sh("diff p/summary.json q/summary.json | grep '^[<>]' | grep -v "
          "wall_seconds | wc -l");
    cr_expect_str_eq(tu_out, "0\n");
}

/* A model the zoo lacks is a warning naming it (stderr and summary.json);
 * --strict makes it an error: exit 2, nothing written. */
Test(cli, model_fallback_warns_and_strict_refuses)
{
    tu_tmp_file("t.csv", "job_id,submit_time,num_gpus,duration,model\n"
                "a,0,1,100,resnet5O\nb,10,1,50,resnet50\nc,20,1,30,resnet5O\n"
                "d,30,1,30,\n");
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --models zoo --out o "
                          "--quiet"), 0, "%s", tu_out);
    static const char msg[] = "t.csv: 2 job(s) name a model the zoo lacks and "
        "run at the cluster file's speeds: 'resnet5O' (2 jobs)";
    cr_expect(strstr(tu_out, msg), "%s", tu_out);
    struct dl_json_doc d;
    js_load(&d, "o/summary.json");
    cr_expect_eq(js_get(&d, "warnings")->num, 1);
    const struct dl_json *w = js_get(&d, "warning_messages");
    cr_assert_eq(w->n, 1);
    cr_expect_str_eq(w->kid[0].str, msg);
    cr_expect_eq(js_get(&d, "jobs_model_default")->num, 3);
    cr_expect_eq(js_get(&d, "jobs_model_measured")->num +
                 js_get(&d, "jobs_model_roofline")->num, 1);
    cr_expect_str_eq(js_get(&d, "models")->kid[0].str, "zoo");
    cr_expect_eq(js_get(&d, "models_zoo")->type, DL_JSON_STRING);
    dl_json_free(&d);
    cr_expect_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --models zoo --out p "
                          "--strict"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, msg), "%s", tu_out);
    cr_expect(strstr(tu_out, "--strict: 1 warning above is an error; nothing "
                     "written"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("p"));
}

/* --models on a trace that names no model changes no speed: said so. */
Test(cli, models_on_a_trace_without_models_warns)
{
    tu_tmp_file("t.csv", good_trace);
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --models zoo --quiet"), 0,
                 "%s", tu_out);
    cr_expect(strstr(tu_out, "t.csv: no job names a model (no model column, or "
                     "every one empty): the zoo's runtime data changes nothing "
                     "here"), "%s", tu_out);
    cr_expect_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --models zoo --strict "
                          "--out o"), 2, "%s", tu_out);
    cr_expect(!tu_tmp_exists("o"));
    /* every kind of warning: a job that never fits, unknown columns */
    tu_tmp_file("u.csv", "job_id,submit_time,num_gpus,duration,colour\n"
                "ok,0,1,10,red\nbig,0,64,10,blue\n");
    cr_expect_eq(tu_dlsim("run --trace u.csv --cluster c.yaml --out o"), 0, "%s",
                 tu_out);
    struct dl_json_doc d;
    js_load(&d, "o/summary.json");
    cr_expect_eq(js_get(&d, "warnings")->num, 3);   /* column, job, total */
    dl_json_free(&d);
    cr_expect_eq(tu_dlsim("run --trace u.csv --cluster c.yaml --strict --out s"), 2,
                 "%s", tu_out);
    cr_expect(!tu_tmp_exists("s"));
}

/* A gzip input with bytes after its last member, read by a reader that
 * has no diag of its own (the cluster file, a models file's pairs): a
 * warning of the run like any other, in summary.json, an error under
 * --strict; and in a sweep, in each run's summary.json, and bad input
 * for a strict scenario before anything runs. */
Test(cli, trailing_gzip_bytes_of_every_input_warn)
{
    tu_tmp_file("t.csv", good_trace);
    tu_tmp_file("c.yaml", good_cluster);
    tu_tmp_file("p.csv", "gpu_type,job_a,job_b,rate_a,rate_b\n"
                "V100,a,b,0.6,0.6\n");
    cr_assert_eq(tu_sh("gzip -c c.yaml > cz.yaml.gz && echo junk >> cz.yaml.gz && "
                       "gzip -c p.csv > p.csv.gz && echo junk >> p.csv.gz"), 0);
    char models[4200], cwd[4096];     /* the test runs in tests/ */
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(models, sizeof models, "kind: models\nzoo: %s/../models\n"
             "pairs: p.csv.gz\n", cwd);
    tu_tmp_file("m.yaml", models);
    static const char *const runs[] = {
        "--cluster cz.yaml.gz", "--cluster c.yaml --models m.yaml" };
    static const char *const file[] = { "cz.yaml.gz", "p.csv.gz" };
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(tu_dlsim("run --trace t.csv %s --out o%d --quiet", runs[i], i),
                     0, "%s", tu_out);
        cr_expect(strstr(tu_out, "5 bytes after the last gzip member"), "%s", tu_out);
        char path[32];
        snprintf(path, sizeof path, "o%d/summary.json", i);
        char *js = tu_slurp(tu_tmp_path(path), NULL);
        char want[128];
        snprintf(want, sizeof want, "\"%s: warning: 5 bytes after the last gzip "
                 "member", file[i]);
        cr_expect(strstr(js, want), "%s", js);
        free(js);
        cr_expect_eq(tu_dlsim("run --trace t.csv %s --out s%d --strict", runs[i], i),
                     2, "%s", tu_out);
        snprintf(path, sizeof path, "s%d", i);
        cr_expect(!tu_tmp_exists(path));
    }
    tu_tmp_file("sw.yaml", "policies: [fifo]\ntraces: [t.csv]\n"
                "clusters: [cz.yaml.gz]\nseeds: [1]\n");
    cr_assert_eq(tu_dlsim("sweep sw.yaml --out sw --quiet"), 0, "%s", tu_out);
    cr_expect_eq(tu_sh("grep -l '5 bytes after the last gzip member' "
                       "sw/runs/*/summary.json | wc -l"), 0);
    cr_expect_str_eq(tu_out, "1\n");
    tu_tmp_file("st.yaml", "policies: [fifo]\ntraces: [t.csv]\n"
                "clusters: [cz.yaml.gz]\nseeds: [1]\nstrict: true\n");
    cr_expect_eq(tu_dlsim("sweep st.yaml --out st --quiet"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "is strict: cluster 'cz.yaml.gz' gave 1 warning"),
              "%s", tu_out);
}

/* --load X holds under --models: the run's summary.json records offered
 * load X, measured as trace stats --models measures it, for every seed. */
Test(cli, load_holds_under_models)
{
    tu_tmp_file("c.yaml", "name: two\nreference_gpu: V100\ngpu_types:\n"
                "  - {name: V100, memory_gb: 32}\n"
                "  - {name: K80, memory_gb: 12, speed: 0.25}\n"
                "nodes:\n  - {count: 2, gpus: 4, gpu_type: V100}\n"
                "  - {count: 2, gpus: 4, gpu_type: K80}\n");
    for (int seed = 1; seed <= 3; seed++) {
        cr_assert_eq(tu_dlsim("trace gen --cluster c.yaml --jobs 300 --seed %d --gpus "
                              "1:4,2:1 --models resnet50,vgg16,transformer --load 0.7 "
                              "-o t%d.csv", seed, seed), 0, "%s", tu_out);
        cr_assert_eq(tu_dlsim("trace stats t%d.csv --cluster c.yaml", seed), 0);
        cr_expect(strstr(tu_out, "offered load   0.700000\n"), "%s", tu_out);
        cr_assert_eq(tu_dlsim("run --trace t%d.csv --cluster c.yaml --models zoo "
                              "--load 1.3 --out r%d --quiet", seed, seed), 0, "%s",
                     tu_out);
        struct dl_json_doc d;
        char rel[32];
        snprintf(rel, sizeof rel, "r%d/summary.json", seed);
        js_load(&d, rel);
        cr_expect_float_eq(js_get(&d, "offered_load")->num, 1.3, 1e-6);
        cr_expect_float_eq(js_get(&d, "load")->num, 1.3, 1e-15);
        dl_json_free(&d);
        /* the same rescaling, materialized, and measured by trace stats */
        cr_assert_eq(tu_dlsim("trace scale t%d.csv --cluster c.yaml --models zoo "
                              "--load 1.3 -o s%d.csv", seed, seed), 0, "%s", tu_out);
        cr_assert_eq(tu_dlsim("trace stats s%d.csv --cluster c.yaml --models zoo",
                              seed), 0);
        cr_expect(strstr(tu_out, "offered load   1.300000 (each job at its own "
                         "speeds under the models)"), "%s", tu_out);
        /* the plain figure differs: the zoo's speeds are not the file's */
        cr_assert_eq(tu_dlsim("trace stats s%d.csv --cluster c.yaml", seed), 0);
        cr_expect(!strstr(tu_out, "offered load   1.300000"), "%s", tu_out);
    }
}

/* Write errors on standard output are exit 1 with a message, for every
 * command (one check in main): a full disk, a closed descriptor. */
Test(cli, stdout_write_errors_exit_1)
{
    tu_tmp_file("t.csv", good_trace);
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("trace gen --jobs 50 --seed 3 -o u.csv"), 0, "%s",
                 tu_out);
    char cwd[512], fit[1024], ci[1024];
    cr_assert(getcwd(cwd, sizeof cwd));     /* tests/ */
    snprintf(fit, sizeof fit, "fit slowdown '%s/data/pairs_tiny.csv'", cwd);
    snprintf(ci, sizeof ci, "cluster import --format tiresias '%s/../../"
             "shared/data/traces/tiresias/cluster_spec.csv'", cwd);
    const char *const cmds[] = {
        "--help", "run --help", "policies", "--version",
        "run --trace t.csv --cluster c.yaml",
        "trace stats t.csv", "trace compare t.csv u.csv",
        "demo --jobs 40", fit, ci,
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        /* the command works; then into /dev/full; then with stdout closed */
        cr_expect_eq(tu_dlsim("%s >/dev/null", cmds[i]), 0, "%s: %s", cmds[i],
                     tu_out);
        /* (tu_sh appends 2>&1: the braces keep stderr on the pipe) */
        cr_expect_eq(tu_sh("{ \"$DLSIM\" %s >/dev/full; }", cmds[i]), 1,
                     "%s: %s", cmds[i], tu_out);
        cr_expect(strstr(tu_out, "dlsim: cannot write to standard output: "
                         "No space left on device"), "%s: %s", cmds[i],
                  tu_out);
        cr_expect_eq(tu_sh("{ \"$DLSIM\" %s >&-; }", cmds[i]), 1, "%s: %s",
                     cmds[i], tu_out);
        cr_expect(strstr(tu_out, "cannot write to standard output: Bad file "
                         "descriptor"), "%s: %s", cmds[i], tu_out);
    }
    /* a closed stdout must not become an output file's descriptor: a
     * message would be written into the trace (trace gen prints nothing
     * on stdout, so a closed one is no error) */
    cr_expect_eq(tu_sh("{ \"$DLSIM\" trace gen --jobs 30 -o w.csv >&-; }"), 0,
                 "%s", tu_out);
    struct trace t;
    struct dl_error e;
    cr_expect_eq(trc_load(tu_tmp_path("w.csv"), &t, &e, NULL), 0, "%s", e.msg);
    trc_free(&t);
    /* nothing written to stdout: a closed one is no error */
    cr_expect_eq(tu_sh("{ \"$DLSIM\" run --trace t.csv --quiet >&-; }"), 0,
                 "%s", tu_out);
}

Test(cli, sample_below_the_clock_is_refused)
{
    tu_tmp_file("t.csv", good_trace);
    cr_expect_eq(tu_dlsim("run --trace t.csv --sample 1e-7 --out o"), 2, "%s",
                 tu_out);
    cr_expect(strstr(tu_out, "--sample"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("o"));
    cr_expect_eq(tu_dlsim("run --trace t.csv --sample 0x10 --out o"), 2);
    cr_expect_eq(tu_dlsim("run --trace t.csv --sample 0.000001 --quiet --out o"),
                 2, "%s", tu_out);      /* 180 s at 1 us: over 4M rows */
    cr_expect_eq(tu_dlsim("run --trace t.csv --sample 0 --quiet --out o"), 0,
                 "%s", tu_out);
}

/* What a new user reads: which cluster a run uses (the built-in one is
 * never used silently), status lines on stderr and the table alone on
 * stdout, counts in the singular, `zoo` as a model list meaning the zoo's
 * names everywhere, the command list and the policy list aligned. */
Test(cli, messages_a_user_reads)
{
    tu_tmp_file("t.csv", good_trace);
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("run --trace t.csv"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "dlsim run: cluster demo-256 (256 GPUs, 2 types, 40 "
                     "nodes): the built-in default (--cluster C.yaml for "
                     "another)\n"), "%s", tu_out);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --load 0.5"), 0);
    cr_expect(strstr(tu_out, "dlsim run: cluster tiny (4 GPUs, 1 type, 1 node) "
                     "from c.yaml\n"), "%s", tu_out);
    cr_expect(strstr(tu_out, "dlsim run: --load 0.5: arrival gaps x "), "%s",
              tu_out);
    /* stdout alone: the table's header and one row, nothing else */
    cr_assert_eq(tu_sh("{ { \"$DLSIM\" run --trace t.csv --cluster c.yaml "
                       "--load 0.5; } 2>/dev/null; }"), 0);
    cr_expect(!strstr(tu_out, "dlsim run:"), "%s", tu_out);
    cr_expect(!strncmp(tu_out, "policy ", 7), "%s", tu_out);
    int lines = 0;
    for (const char *s = tu_out; *s; s++)
        lines += *s == '\n';
    cr_expect_eq(lines, 2, "%s", tu_out);
    cr_assert_eq(tu_dlsim("run --trace t.csv --load 0.5 --quiet"), 0);
    cr_expect_str_eq(tu_out, "");
    /* commands that write a file say so on stderr, stdout stays empty */
    tu_tmp_file("w.yaml", "");
    const char *const quiet_out[] = {
        "trace gen --jobs 20 -o g.csv", "trace annotate g.csv --models a,b -o n.csv",
        "trace scale g.csv --load 0.5 -o s.csv", "trace fit g.csv -o w.yaml",
        "trace gen --like w.yaml --jobs 10 -o l.csv",
    };
    for (size_t i = 0; i < sizeof quiet_out / sizeof *quiet_out; i++) {
        cr_assert_eq(tu_dlsim("%s", quiet_out[i]), 0, "%s: %s", quiet_out[i], tu_out);
        cr_expect(strstr(tu_out, "dlsim trace ") == tu_out || i == 3, "%s: %s",
                  quiet_out[i], tu_out);
        if (i == 3)
            continue;           /* trace fit: its summary is the result */
        cr_assert_eq(tu_sh("{ { \"$DLSIM\" %s; } 2>/dev/null; }", quiet_out[i]), 0);
        cr_expect_str_eq(tu_out, "", "%s", quiet_out[i]);
    }

    /* --models zoo: the zoo's names, in trace gen as with --like and in
     * trace annotate; never a model called "zoo" */
    cr_assert_eq(tu_dlsim("trace gen --jobs 200 --models zoo -o z.csv"), 0, "%s",
                 tu_out);
    const char *z = tu_tmp_text("z.csv");
    cr_expect(!strstr(z, ",zoo\n"), "%.300s", z);
    cr_expect(strstr(z, ",resnet50\n") && strstr(z, ",bert\n"), "%.300s", z);
    cr_assert_eq(tu_dlsim("trace annotate z.csv --models zoo --overwrite "
                          "--seed 2 -o a.csv"), 0, "%s", tu_out);
    z = tu_tmp_text("a.csv");
    cr_expect(!strstr(z, ",zoo\n") && strstr(z, ",resnet50\n"), "%.300s", z);

    /* one type, one rack, one duration class: no "1 racks" */
    tu_tmp_file("sw.csv", "num_switch,num_node_p_switch,num_gpu_p_node\n1,2,4\n");
    cr_assert_eq(tu_dlsim("cluster import --format tiresias sw.csv -o k.yaml"), 0,
                 "%s", tu_out);
    cr_expect(strstr(tu_out, "2 machines, 8 GPUs of 1 type, 1 rack; skipped 0 "
                     "machines without GPUs\n"), "%s", tu_out);
    cr_expect(strstr(tu_tmp_text("k.yaml"), "# 2 machines with GPUs, 8 GPUs; 0 "
                     "machines without GPUs skipped.\n"));
    tu_tmp_file("one.csv", "job_id,submit_time,num_gpus,duration\n"
                "a,0,1,100\nb,10,1,200\nc,30,1,50\n");
    cr_assert_eq(tu_dlsim("trace fit one.csv -o w.yaml"), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "  1 GPU count in 1 duration class\n"), "%s", tu_out);

    /* a usage error is one line, as for every command */
    cr_expect_eq(tu_dlsim("trace gen --jobs 5"), 2);
    cr_expect_str_eq(tu_out, "dlsim trace gen: missing -o OUT.csv[.gz] (see dlsim "
                     "trace gen --help)\n");
    cr_expect_eq(tu_dlsim("trace import --format itp"), 2);
    cr_expect_str_eq(tu_out, "dlsim trace import: missing the input file IN (see "
                     "dlsim trace import --help)\n");

    /* every command in the list; the policies' option defaults in one column */
    cr_assert_eq(tu_dlsim("--help"), 0);
    cr_expect(strstr(tu_out, "  --version ") && strstr(tu_out, "  fit runtime "),
              "%s", tu_out);
    cr_assert_eq(tu_dlsim("policies"), 0);
    int col = -1, n = 0;
    for (const char *s = tu_out; *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : "") {
        const char *d = strstr(s, " default ");
        const char *e = strchr(s, '\n');
        if (strncmp(s, "    ", 4) || !d || (e && d > e) || s[4] == ' ')
            continue;
        if (col < 0)
            col = (int)(d - s);
        cr_expect_eq((int)(d - s), col, "misaligned: %.60s", s);
        n++;
    }
    cr_expect_gt(n, 40);
}

/* jobs.csv is written while the run goes (in batches of rows whose jobs
 * are all done): with jobs finishing far out of order (srtf on an
 * overloaded cluster, 20,000 jobs: many batches and many steps of the
 * engine's publication), every job has exactly one row, in trace order,
 * and a rerun gives the same bytes. */
Test(cli, jobs_csv_streamed_in_trace_order)
{
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("trace gen --cluster c.yaml --jobs 20000 --load 3 "
                          "--seed 5 -o t.csv.gz"), 0, "%s", tu_out);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(tu_dlsim("run --trace t.csv.gz --cluster c.yaml --policy "
                              "srtf --sample 0 --quiet --out r%d", i), 0, "%s",
                     tu_out);
    cr_expect_eq(tu_sh("zcat t.csv.gz | tail -n +2 | cut -d, -f1 > ids && "
                       "tail -n +2 r0/jobs.csv | cut -d, -f1 | cmp - ids && "
                       "test $(wc -l < r0/jobs.csv) = 20001"), 0,
                 "jobs.csv rows are not the trace's jobs in order: %s", tu_out);
    cr_expect(tu_same_file(tu_tmp_path("r0/jobs.csv"), tu_tmp_path("r1/jobs.csv")));
    /* srtf did reorder the finishes: the streaming had to wait */
    cr_expect_eq(tu_sh("tail -n +2 r0/jobs.csv | cut -d, -f4 | sort -c -g "
                       "2>/dev/null"), 1, "finishes in trace order: a weak test");
}

/* When the first job runs to the end, every row waits for it, and the
 * rows are formatted after the run by two threads a chunk at a time and
 * written in order (more chunks than the ring holds).  Fifo on a cluster
 * that never fills: every other job starts at its submit and ends its
 * duration later, so each row's times are known from the trace. */
Test(cli, jobs_csv_tail_after_a_long_first_job)
{
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_sh("awk 'BEGIN { print \"job_id,submit_time,num_gpus,duration\";"
                       " print \"long,0,1,100000\";"
                       " for (i = 1; i < 45000; i++)"
                       " printf \"j%%d,%%d,1,%%d\\n\", i, i, 1 + i %% 2 }' > t.csv"),
                 0, "%s", tu_out);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --policy fifo "
                          "--sample 0 --quiet --out r"), 0, "%s", tu_out);
    /* id, submit, start, finish of each row against the trace's */
    cr_expect_eq(tu_sh("tail -n +2 t.csv | awk -F, '{ e = $2 + $4;"
                       " if ($1 == \"long\") e = 100000;"
                       " print $1 \",\" $2 \",\" $2 \",\" e }' > want && "
                       "tail -n +2 r/jobs.csv | cut -d, -f1-4 | "
                       "sed 's/\\.000000//g' | cmp - want"), 0,
                 "jobs.csv's rows are not the trace's jobs, in order, with "
                 "their times: %s", tu_out);
}

/* A run that fails after jobs.csv was begun (--strict, a warning at the
 * end of the run) leaves neither the file nor the directories it made;
 * a directory that was there stays. */
Test(cli, failed_run_leaves_no_stream)
{
    tu_tmp_file("t.csv", "job_id,submit_time,duration,num_gpus\n"
                         "a,0,10,1\nb,1,10,999\n");
    tu_tmp_file("c.yaml", good_cluster);
    cr_expect_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --strict --quiet "
                          "--out new/deeper/o"), 2, "%s", tu_out);
    cr_expect(!tu_tmp_exists("new"), "directories made for a failed run stay");
    cr_assert_eq(mkdir(tu_tmp_path("was"), 0777), 0);
    cr_expect_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --strict --quiet "
                          "--out was/o/"), 2, "%s", tu_out);
    cr_expect(tu_tmp_exists("was") && !tu_tmp_exists("was/o"));
}

/* SIGTERM while the run writes jobs.csv: the temporary file goes, and
 * the --out directory the run made, and the process ends by the
 * signal. */
Test(cli, signal_during_streamed_run_removes_the_file)
{
    tu_tmp_file("c.yaml", good_cluster);
    cr_assert_eq(tu_dlsim("trace gen --cluster c.yaml --jobs 500000 --load 0.9 "
                          "--seed 5 -o t.csv.gz"), 0, "%s", tu_out);
    /* wait (up to 60 s) for rows in the temporary file, then SIGTERM
     * (fifo: the rows become final as the run goes) */
    int rc = tu_sh("true; \"$DLSIM\" run --trace t.csv.gz --cluster c.yaml "
                   "--policy fifo --sample 0 --quiet --out o & p=$!; "
                   "for i in $(seq 6000); do "
                   "  [ -n \"$(find o -name 'jobs.csv.tmp.*' -size +1k 2>/dev/null)\" ] && break; "
                   "  sleep 0.01; done; "
                   "kill -TERM $p; wait $p; echo status=$?");
    cr_expect_eq(rc, 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "status=143"), "not ended by the signal: %s",
              tu_out);
    cr_expect(!tu_tmp_exists("o"), "the run's directory (or a file in it) "
              "was left");
}

/* An --out name that is empty, or too long for the paths made below it,
 * is bad input (exit 2, a message, nothing made), not a cut name. */
Test(cli, out_names_empty_or_too_long)
{
    tu_tmp_file("t.csv", good_trace);
    tu_tmp_file("c.yaml", good_cluster);
    cr_expect_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --quiet --out ''"),
                 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "empty name"), "%s", tu_out);
    char name[4200];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = 0;
    for (size_t i = 200; i < sizeof name - 1; i += 200)
        name[i] = '/';
    cr_expect_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --quiet --out %s",
                          name), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "at most 4,000"), "%s", tu_out);
    cr_expect_neq(tu_sh("ls | grep -q aaaa"), 0,
                  "directories made for a refused name");
}
