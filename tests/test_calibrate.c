/*
 * tests/test_calibrate.c - dlsim-calibrate without a GPU: the command line,
 * the statistics (median, quartiles, warm-up exclusion) on synthetic
 * timings, the CSV and JSON writers byte for byte, the device-name
 * mapping, the proxies against models/zoo.csv, the NVML loader when the
 * library is absent or wrong, the writers' files accepted by the built
 * `dlsim fit` ($DLSIM), scripts/calibrate.sh --from on them, and, when the
 * tool was built ($DLSIM_CALIBRATE), its --help, bad usage and no-GPU exit
 * status and message.  Needs no CUDA: it links the tool's host-side C.
 */
#include "models/calibrate/calib.h"
#include "models/perf.h"
#include "testutil.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <math.h>

/* The tests that write files remove them as they end; the suites' .fini
 * does it too when one stops on a failed assertion. */
TestSuite(calib_out, .fini = tu_tmp_cleanup);
TestSuite(calib_fit, .fini = tu_tmp_cleanup);
TestSuite(calib_tool, .fini = tu_tmp_cleanup);

/* ---------------------------------------------------------- helpers */

static struct cal_opts O;
static char msg[512];

static int parse(const char *line)
{
    static char buf[1024];
    char *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    argv[argc++] = (char *)"dlsim-calibrate";
    for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    return cal_parse_args(argc, argv, &O, msg, sizeof msg);
}

/* The text fn writes for rows. */
static char *written(void (*fn)(FILE *, const void *, int), const void *rows,
                     int n)
{
    static char buf[8192];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    cr_assert_not_null(f);
    fn(f, rows, n);
    fclose(f);
    return buf;
}

static const char *tool(void)
{
    const char *t = getenv("DLSIM_CALIBRATE");
    if (!t || !*t)
        cr_skip_test("dlsim-calibrate was not built (no CUDA compiler)");
    return t;
}

/* ---------------------------------------------------------- arguments */

Test(calib_args, defaults_and_every_option)
{
    cr_assert_eq(parse("probe"), 0, "%s", msg);
    cr_assert_eq(O.cmd, CAL_CMD_PROBE);
    cr_assert_str_eq(O.out_dir, ".");
    cr_assert_eq(O.warmup, 3);
    cr_assert_eq(O.repeats, 10);
    cr_assert_float_eq(O.min_time_s, 1.0, 1e-12);
    cr_assert_float_eq(O.window_s, 2.0, 1e-12);
    cr_assert_eq(O.mechanisms, CAL_MECH_STREAMS | CAL_MECH_TIMESLICE);
    cr_assert_eq(O.nsel, 0);
    cr_assert_null(O.gpu_type);

    cr_assert_eq(parse("--out d1 pairs --device 1 --gpu-type MyGPU --warmup 0 "
                       "--repeats 7 --min-time 0.5 --window 1.5 "
                       "--mechanism timeslice --proxies bert@64,lstm@20 "
                       "--pair-proxies resnet50@64 --budget 120"), 0, "%s",
                 msg);
    cr_assert_eq(O.cmd, CAL_CMD_PAIRS);
    cr_assert_str_eq(O.out_dir, "d1");
    cr_assert_eq(O.device, 1);
    cr_assert_str_eq(O.gpu_type, "MyGPU");
    cr_assert_eq(O.warmup, 0);
    cr_assert_eq(O.repeats, 7);
    cr_assert_float_eq(O.min_time_s, 0.5, 1e-12);
    cr_assert_float_eq(O.window_s, 1.5, 1e-12);
    cr_assert_float_eq(O.budget_s, 120, 1e-12);
    cr_assert_eq(O.mechanisms, CAL_MECH_TIMESLICE);
    cr_assert_eq(O.nsel, 2);
    cr_assert_str_eq(cal_proxies[O.sel[0]].model, "bert");
    cr_assert_eq(cal_proxies[O.sel[0]].batch, 64);
    cr_assert_str_eq(cal_proxies[O.sel[1]].model, "lstm");
    cr_assert_eq(O.npsel, 1);
    cr_assert_str_eq(cal_proxies[O.psel[0]].model, "resnet50");

    cr_assert_eq(parse("suite --quick --repeats 50"), 0);
    cr_assert_eq(O.repeats, 3, "--quick caps the repeats");
    cr_assert_eq(parse("all --mechanism streams"), 0);
    cr_assert_eq(O.mechanisms, CAL_MECH_STREAMS);
    cr_assert_eq(parse("list"), 0);
    cr_assert_eq(O.cmd, CAL_CMD_LIST);
    cr_assert_eq(parse("proxies -h"), 0);
    cr_assert_eq(O.cmd, CAL_CMD_HELP);
    cr_assert_eq(parse("worker --proxy a3c@1 --ready-fd 5 --go-fd 6 "
                       "--window 0.5"), 0, "%s", msg);
    cr_assert_eq(O.cmd, CAL_CMD_WORKER);
    cr_assert_eq(O.ready_fd, 5);
    cr_assert_eq(O.go_fd, 6);
    cr_assert_str_eq(cal_proxies[O.worker_proxy].model, "a3c");
}

Test(calib_args, bad_usage_is_status_2_with_a_message)
{
    static const struct { const char *line, *msg; } bad[] = {
        { "", "a command is required (probe, suite, proxies, pairs, all, "
              "list)" },
        { "bogus", "unknown command 'bogus' (probe, suite, proxies, pairs, "
                   "all, list)" },
        { "probe suite", "unexpected argument 'suite'" },
        { "probe --bogus", "unknown option '--bogus'" },
        { "probe --out", "--out needs a value" },
        { "probe --repeats 0", "--repeats: bad value '0'" },
        { "probe --warmup -1", "--warmup: bad value '-1'" },
        { "probe --window abc", "--window: bad value 'abc'" },
        { "probe --window 0.01", "--window: bad value '0.01'" },
        { "probe --device 2x", "--device: bad value '2x'" },
        { "probe --budget -5", "--budget: bad value '-5'" },
        { "pairs --mechanism mps", "--mechanism: 'mps' is not streams, "
                                   "timeslice or both" },
        { "proxies --proxies resnet50@65", "--proxies: unknown proxy "
          "'resnet50@65' (`dlsim-calibrate list` names them)" },
        { "proxies --proxies resnet50", "--proxies: unknown proxy "
          "'resnet50' (`dlsim-calibrate list` names them)" },
        { "proxies --proxies bert@64,bert@64", "--proxies: proxy 'bert@64' "
          "named twice" },
        { "proxies --proxies bert@64,,lstm@20", "--proxies: empty or too "
          "long proxy name in 'bert@64,,lstm@20'" },
        { "probe --gpu-type a,b", "--gpu-type: empty, longer than 63 bytes, "
          "or with a comma, quote or newline" },
        { "worker --proxy a3c@1", "worker needs --proxy, --ready-fd and "
                                  "--go-fd" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(parse(bad[i].line), CAL_EXIT_USAGE, "'%s' accepted",
                     bad[i].line);
        cr_assert_str_eq(msg, bad[i].msg, "'%s'", bad[i].line);
    }
}

/* ---------------------------------------------------------- statistics */

Test(calib_stats, median_and_quartiles_after_warmup)
{
    /* two huge warm-up timings must not show anywhere */
    const double x[] = { 100, 50, 4, 1, 3, 2 };
    struct cal_stats s;
    cr_assert_eq(cal_summarize(x, 6, 2, &s), 0);
    cr_assert_eq(s.n, 4);
    cr_assert_float_eq(s.median, 2.5, 1e-12);
    cr_assert_float_eq(s.p25, 1.75, 1e-12);    /* 1 + 0.75 * (2 - 1) */
    cr_assert_float_eq(s.p75, 3.25, 1e-12);
    cr_assert_float_eq(s.min, 1, 1e-12);
    cr_assert_float_eq(s.max, 4, 1e-12);
    cr_assert_float_eq(s.mean, 2.5, 1e-12);
    cr_assert_float_eq(x[2], 4, 0, "input left as it was");

    const double y[] = { 9, 5, 1, 3 };    /* odd count kept: 5 1 3 */
    cr_assert_eq(cal_summarize(y, 4, 1, &s), 0);
    cr_assert_eq(s.n, 3);
    cr_assert_float_eq(s.median, 3, 1e-12);
    cr_assert_float_eq(s.p25, 2, 1e-12);
    cr_assert_float_eq(s.p75, 4, 1e-12);
    cr_assert_float_eq(s.mean, 3, 1e-12);

    cr_assert_eq(cal_summarize(y, 4, 0, &s), 0);
    cr_assert_float_eq(s.median, 4, 1e-12, "no warm-up: all four count");
    cr_assert_float_eq(s.max, 9, 1e-12);

    cr_assert_eq(cal_summarize(y, 4, 4, &s), -1, "nothing left");
    cr_assert_eq(s.n, 0);
    cr_assert_eq(cal_summarize(y, 1, 0, &s), 0);
    cr_assert_float_eq(s.median, 9, 1e-12);
    cr_assert_float_eq(s.p25, 9, 1e-12);
    cr_assert_float_eq(s.p75, 9, 1e-12);
}

Test(calib_stats, median_resists_outliers)
{
    double x[103];
    for (int i = 0; i < 3; i++)
        x[i] = 1e6;                         /* warm-up */
    for (int i = 0; i < 100; i++)
        x[3 + i] = 10 + (i % 10) * 0.1;     /* 10.0 .. 10.9, ten each */
    x[50] = 1e9;                            /* one stray sample */
    struct cal_stats s;
    cr_assert_eq(cal_summarize(x, 103, 3, &s), 0);
    cr_assert_eq(s.n, 100);
    /* kept: 99 regular values and 1e9; sorted, 10.4 fills positions
     * 40..49 and 10.5 50..59 (one 10.7 was replaced), so the median of 100
     * is halfway between positions 49 and 50 */
    cr_assert_float_eq(s.median, 10.45, 1e-9);
    cr_assert_float_eq(s.max, 1e9, 1);
    cr_assert_float_eq(s.min, 10, 1e-12);
}

/* ---------------------------------------------------------- writers */

static struct cal_stats st(double med)
{
    return (struct cal_stats){ .n = 20, .median = med, .p25 = med * 0.99,
                               .p75 = med * 1.01, .min = med * 0.98,
                               .max = med * 1.5, .mean = med };
}

Test(calib_out, runtime_csv_bytes)
{
    struct cal_rt_row r[2] = {
        { "H200", "resnet50", 64, 250, 0.97, st(4), 1.7239, 1.5702, 7.737,
          1.732 },
        { "H200", "a3c", 1, 1234.5678, -1, st(0.81), 0.0004, 0.0004, 0.067,
          0.04 },
    };
    cr_assert_str_eq(written(cal_fn_runtime, r, 2),
        "gpu_type,model,batch_size,num_gpus,placement,throughput,util,"
        "median_ms,p25_ms,p75_ms,min_ms,max_ms,repeats,proxy_tflop,"
        "target_tflop,proxy_gb,proxy_mem_gb\n"
        "H200,resnet50,64,1,consolidated,250,0.97,4,3.96,4.04,3.92,6,20,"
        "1.7239,1.5702,7.737,1.732\n"
        "H200,a3c,1,1,consolidated,1234.57,,0.81,0.8019,0.8181,0.7938,1.215,"
        "20,0.0004,0.0004,0.067,0.04\n");
}

Test(calib_out, pairs_csv_bytes)
{
    struct cal_pair_row r = {
        "H200", "bert@64", "lstm@20", "timeslice", 0.5, 1, 0.5, 1.02,
        0.9, -1, 40, 300, 20, 306, 2,
    };
    cr_assert_str_eq(written(cal_fn_pairs, &r, 1),
        "gpu_type,job_a,job_b,rate_a,rate_b,util_a,util_b,mechanism,"
        "raw_rate_a,raw_rate_b,solo_a,solo_b,pair_a,pair_b,window_s\n"
        "H200,bert@64,lstm@20,0.5,1,0.9,,timeslice,0.5,1.02,40,300,20,306,"
        "2\n");
}

Test(calib_out, util_and_suite_csv_bytes)
{
    struct cal_util_row u = { "bert", "H200", 64, 0.93, 705524072448.0,
                              109483778, 0, 101, 25, 63 };
    cr_assert_str_eq(written(cal_fn_util, &u, 1),
        "model,batch_size,gpu_type,util,flops,params,conv_layers,"
        "linear_layers,activation_layers,other_layers\n"
        "bert,64,H200,0.93,705524072448,109483778,0,101,25,63\n");
    struct cal_suite_row s = { "bert_qkv", "gemm_transformer", "bf16",
                               "cublas", "m8192_n2304_k768", 2.0e12, 5.0e9,
                               st(2), 0.5 };
    cr_assert_str_eq(written(cal_fn_suite, &s, 1),
        "kernel,category,precision,path,shape,flops,bytes,median_ms,p25_ms,"
        "p75_ms,min_ms,max_ms,repeats,tflops,gbs,util\n"
        "bert_qkv,gemm_transformer,bf16,cublas,m8192_n2304_k768,"
        "2000000000000,5000000000,2,1.98,2.02,1.96,3,20,1000,2500,0.5\n");
}

Test(calib_out, probe_json_bytes)
{
    struct cal_probe p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "NVIDIA \"H200\"");
    snprintf(p.gpu_type, sizeof p.gpu_type, "H200");
    snprintf(p.pci_bus_id, sizeof p.pci_bus_id, "00000000:19:00.0");
    p.cc_major = 9;
    p.sm_count = 132;
    p.mem_gb = 150.0;
    p.sm_clock_mhz = 1980;
    p.mem_clock_mhz = 2619;
    p.bus_width_bits = 6144;
    p.l2_mb = 60;
    p.driver_version = 13000;
    p.runtime_version = 13000;
    p.nvml = "ok";
    p.cudnn = "91000";
    p.d2d_gbs = 4012.5;
    p.d2d_buffer_mb = 1024;
    p.gemm_n = 8192;
    p.gemm_tflops[0] = 51.2;
    p.gemm_tflops[1] = 380;
    p.gemm_tflops[2] = 700.25;
    p.gemm_tflops[3] = -1;
    p.util_gemm = 1;
    cr_assert_str_eq(written(cal_fn_probe, &p, 1),
        "{\n"
        "  \"device\": \"NVIDIA \\\"H200\\\"\",\n"
        "  \"gpu_type\": \"H200\",\n"
        "  \"pci_bus_id\": \"00000000:19:00.0\",\n"
        "  \"compute_capability\": \"9.0\",\n"
        "  \"sm_count\": 132,\n"
        "  \"memory_gb\": 150,\n"
        "  \"sm_clock_mhz\": 1980,\n"
        "  \"memory_clock_mhz\": 2619,\n"
        "  \"memory_bus_bits\": 6144,\n"
        "  \"l2_mb\": 60,\n"
        "  \"driver_version\": 13000,\n"
        "  \"runtime_version\": 13000,\n"
        "  \"nvml\": \"ok\",\n"
        "  \"cudnn\": \"91000\",\n"
        "  \"d2d_copy\": {\"buffer_mb\": 1024, \"gb_per_s\": 4012.5},\n"
        "  \"gemm\": {\"n\": 8192, \"fp32_tflops\": 51.2, \"tf32_tflops\": "
        "380, \"fp16_tflops\": 700.25, \"bf16_tflops\": null, \"util\": 1}\n"
        "}\n");
}

Test(calib_out, files_are_renamed_into_place)
{
    struct cal_util_row u = { "bert", "H200", 64, 0.5, 1, 2, 0, 1, 2, 3 };
    char dir[512];
    snprintf(dir, sizeof dir, "%s", tu_tmp_path(""));
    cr_assert_eq(cal_write_file(dir, "u.csv", cal_fn_util, &u, 1, msg,
                                sizeof msg), 0, "%s", msg);
    cr_assert_eq(tu_tmp_files(false), 1, "no temporary file left");
    FILE *f = fopen(tu_tmp_path("u.csv"), "r");
    cr_assert_not_null(f);
    char line[256];
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_not_null(fgets(line, sizeof line, f));
    fclose(f);
    cr_assert_str_eq(line, "bert,64,H200,0.5,1,2,0,1,2,3\n");
    cr_assert_eq(cal_write_file("/nonexistent-dir", "u.csv", cal_fn_util, &u,
                                1, msg, sizeof msg), -1);
    cr_assert(strstr(msg, "/nonexistent-dir/u.csv.tmp."), "%s", msg);
    cr_assert(strstr(msg, "No such file or directory"), "%s", msg);
    tu_tmp_cleanup();
}

Test(calib_out, device_names_map_to_gpus_csv)
{
    static const struct { const char *dev; double mem; const char *type; }
    t[] = {
        { "NVIDIA H200", 150, "H200" },
        { "NVIDIA H100 80GB HBM3", 85, "H100" },
        { "NVIDIA H100 PCIe", 85, "H100-PCIe" },
        { "NVIDIA A100-SXM4-40GB", 42, "A100" },
        { "NVIDIA A100-SXM4-80GB", 85, "A100-80GB" },
        { "NVIDIA A10", 24, "A10" },
        { "Tesla V100-SXM2-16GB", 16.9, "V100" },
        { "Tesla V100-PCIE-16GB", 16.9, "V100-PCIe" },
        { "Tesla P100-PCIE-16GB", 16, "P100" },
        { "Tesla P100-SXM2-16GB", 16, "P100-SXM2" },
        { "Tesla T4", 15.8, "T4" },
        { "Tesla K80", 12, "K80" },
        { "NVIDIA A10G", 24, "A10G" },
        { "NVIDIA GeForce RTX 4090", 25, "GeForce-RTX-4090" },
        { "NVIDIA L40S (eng. sample)", 48, "L40S-eng-sample" },
        { "!!", 1, "unknown" },
    };
    char out[64];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        cal_gpu_type_name(t[i].dev, t[i].mem, out, sizeof out);
        cr_assert_str_eq(out, t[i].type, "%s", t[i].dev);
    }
    /* every mapped name is one models/gpus.csv knows */
    struct mdl_zoo z;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_zoo_load("../models", &z, &err), 0, "%s", err.msg);
    for (size_t i = 0; i < 12; i++)
        cr_assert_not_null(mdl_zoo_gpu(&z, t[i].type), "%s", t[i].type);
    mdl_zoo_free(&z);
}

/* ---------------------------------------------------------- proxies */

Test(calib_proxies, features_are_the_zoos_and_flops_match)
{
    struct mdl_zoo z;
    struct dl_error err = { 0 };
    cr_assert_eq(mdl_zoo_load("../models", &z, &err), 0, "%s", err.msg);
    cr_assert_geq(cal_nproxies, 20);
    for (int i = 0; i < cal_nproxies; i++) {
        const struct cal_proxy *p = &cal_proxies[i];
        char name[80];
        snprintf(name, sizeof name, "%s@%d", p->model, p->batch);
        cr_assert_eq(cal_proxy_find(name), i, "%s", name);
        const struct mdl_model *m = mdl_zoo_find(&z, name);
        cr_assert_not_null(m, "%s not in the zoo", name);
        cr_assert_eq(m->batch_size, (uint32_t)p->batch, "%s", name);
        cr_assert_float_eq(m->flops, p->flops, 0.5, "%s", name);
        cr_assert_float_eq(m->params, p->params, 0.5, "%s", name);
        cr_assert_eq(m->conv_layers, p->conv, "%s", name);
        cr_assert_eq(m->linear_layers, p->linear, "%s", name);
        cr_assert_eq(m->activation_layers, p->act, "%s", name);
        cr_assert_eq(m->other_layers, p->other, "%s", name);
        /* the plan's GEMM FLOPs are 3x the forward FLOPs within 15 % */
        struct cal_plan pl;
        cal_proxy_plan(p, &pl);
        double ratio = pl.flops / (3 * p->flops);
        cr_assert(ratio > 0.85 && ratio < 1.15, "%s: plan/target %.3f", name,
                  ratio);
        cr_assert_geq(pl.reps, 1);
        cr_assert(pl.block0 < pl.block1 && pl.block1 < pl.nops, "%s", name);
        cr_assert_eq(pl.params, (int64_t)p->params, "%s", name);
        /* every GEMM fits the buffers; sizes are multiples of 8 */
        for (int k = 0; k < pl.nops; k++) {
            const struct cal_op *o = &pl.op[k];
            if (o->kind != CAL_OP_GEMM)
                continue;
            cr_assert(o->m % 8 == 0 && o->n % 8 == 0 && o->k % 8 == 0);
            cr_assert_leq(o->m * o->k, pl.max_a);
            cr_assert_leq(o->k * o->n, pl.max_b);
            cr_assert_leq(o->m * o->n, pl.max_c);
        }
        cr_assert_lt(cal_plan_mem_bytes(&pl), 8e9, "%s fits small GPUs",
                     name);
    }
    mdl_zoo_free(&z);
    cr_assert_eq(cal_proxy_find("resnet50@64x"), -1);
    cr_assert_eq(cal_proxy_find("@64"), -1);
    cr_assert_eq(cal_proxy_find("resnet50"), -1);
}

Test(calib_proxies, a_plan_by_hand)
{
    /* recommendation@2048: MLP 20108 -> 200 -> 20108, one block */
    int i = cal_proxy_find("recommendation@2048");
    cr_assert_geq(i, 0);
    struct cal_plan pl;
    cal_proxy_plan(&cal_proxies[i], &pl);
    cr_assert_eq(pl.reps, 1);
    cr_assert_eq(pl.nops, 13);      /* 2 layers x 5 ops, softmax, sum, sgd */
    cr_assert_eq(pl.op[0].kind, CAL_OP_GEMM);
    cr_assert_eq(pl.op[0].m, 2048);
    cr_assert_eq(pl.op[0].n, 200);
    cr_assert_eq(pl.op[0].k, 20112);        /* 20108 rounded up to 8 */
    cr_assert_eq(pl.op[2].m, 2048);         /* dX: m, k, n */
    cr_assert_eq(pl.op[2].n, 20112);
    cr_assert_eq(pl.op[2].k, 200);
    cr_assert_eq(pl.op[3].m, 20112);        /* dW: k, n, m */
    cr_assert_eq(pl.op[3].n, 200);
    cr_assert_eq(pl.op[3].k, 2048);
    /* FLOPs: 6 GEMMs of 2 * 2048 * 200 * 20112 */
    cr_assert_float_eq(pl.flops, 6 * 2.0 * 2048 * 200 * 20112, 1);
    /* bytes: activations 2048*200 and 2048*20112 halves, fwd (4 B) and bwd
     * (6 B); softmax 2048 x 1000 fp32 (8 B); sum 2048000 x 4 B; SGD 20 B
     * per parameter */
    double b = 10.0 * 2048 * 200 + 10.0 * 2048 * 20112 + 8.0 * 2048000 +
               4.0 * 2048000 + 20.0 * 8063508;
    cr_assert_float_eq(pl.bytes, b, 1);
    for (int k = 0; k < cal_ndefault_pairs; k++) {
        cr_assert(cal_default_pairs[k] >= 0 &&
                  cal_default_pairs[k] < cal_nproxies);
        for (int j = 0; j < k; j++)
            cr_assert_neq(cal_default_pairs[j], cal_default_pairs[k]);
    }
}

/* ---------------------------------------------------------- NVML */

Test(calib_nvml, absent_library_is_reported_not_fatal)
{
    char why[256];
    struct cal_nvml *n = cal_nvml_open("libdlsim-no-such-nvml.so.1", NULL,
                                       why, sizeof why);
    cr_assert_null(n);
    cr_assert(!strncmp(why, "cannot load libdlsim-no-such-nvml.so.1: ", 40),
              "%s", why);
    /* the environment variable names the library */
    setenv("DLSIM_NVML_LIB", "libdlsim-other-nvml.so", 1);
    cr_assert_str_eq(cal_nvml_default_lib(), "libdlsim-other-nvml.so");
    n = cal_nvml_open(NULL, "00000000:01:00.0", why, sizeof why);
    cr_assert_null(n);
    cr_assert(!strncmp(why, "cannot load libdlsim-other-nvml.so: ", 36),
              "%s", why);
    unsetenv("DLSIM_NVML_LIB");
    cr_assert_str_eq(cal_nvml_default_lib(), "libnvidia-ml.so.1");
    /* a library that is not NVML */
    n = cal_nvml_open("libm.so.6", NULL, why, sizeof why);
    cr_assert_null(n);
    cr_assert_str_eq(why, "libm.so.6 lacks nvmlInit_v2");
    /* without a handle, sampling reports "unknown" */
    cal_nvml_start(NULL, 20);
    cr_assert_float_eq(cal_nvml_stop(NULL), -1, 0);
    cr_assert_float_eq(cal_nvml_mem_used_gb(NULL), -1, 0);
    cal_nvml_close(NULL);
}

Test(calib_nvml, the_real_library_if_any_fails_cleanly_without_a_gpu)
{
    if (tu_exists("/dev/nvidia0"))
        cr_skip_test("a GPU is present");
    char why[256] = "";
    struct cal_nvml *n = cal_nvml_open(NULL, NULL, why, sizeof why);
    cr_assert_null(n);
    cr_assert(why[0], "a reason is given");
}

/* ---------------------------------------------------------- dlsim fit */

/* Synthetic measurements of a GPU through the writers: runtime rows for
 * every proxy (iteration time = FLOPs at 300 TFLOP/s + 2 ms), pairs of six
 * proxies with rates that follow exp(-s_a p_b), utilizations. */
static void synthetic(const char *dir)
{
    struct cal_rt_row rt[64];
    struct cal_util_row ut[64];
    int n = cal_nproxies;
    for (int i = 0; i < n; i++) {
        const struct cal_proxy *p = &cal_proxies[i];
        double t = 3 * p->flops / 300e12 + 2e-3;
        rt[i] = (struct cal_rt_row){ "H200", p->model, p->batch, 1 / t,
                                     0.5 + 0.02 * i, st(t * 1e3),
                                     3 * p->flops / 1e12,
                                     3 * p->flops / 1e12, 1, 1 };
        ut[i] = (struct cal_util_row){ p->model, "H200", p->batch,
                                       0.3 + 0.025 * i, p->flops, p->params,
                                       p->conv, p->linear, p->act, p->other };
    }
    struct cal_pair_row pr[64];
    static char nm[8][64];
    int np = 0, six[6] = { 1, 4, 7, 11, 16, 19 };
    for (int a = 0; a < 6; a++)
        snprintf(nm[a], sizeof nm[a], "%s@%d", cal_proxies[six[a]].model,
                 cal_proxies[six[a]].batch);
    for (int a = 0; a < 6; a++)
        for (int b = a; b < 6; b++) {
            double ra = exp(-(0.3 + 0.1 * a) * (0.5 + 0.2 * b)),
                   rb = exp(-(0.3 + 0.1 * b) * (0.5 + 0.2 * a));
            pr[np++] = (struct cal_pair_row){
                "H200", nm[a], nm[b], "timeslice", ra, rb, ra, rb,
                0.5 + 0.05 * a, 0.5 + 0.05 * b, 10, 10, 10 * ra, 10 * rb, 2,
            };
        }
    cr_assert_eq(cal_write_file(dir, "runtime.csv", cal_fn_runtime, rt, n,
                                msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(cal_write_file(dir, "util.csv", cal_fn_util, ut, n, msg,
                                sizeof msg), 0, "%s", msg);
    cr_assert_eq(cal_write_file(dir, "pairs-timeslice.csv", cal_fn_pairs, pr,
                                np, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(cal_write_file(dir, "pairs-streams.csv", cal_fn_pairs, pr,
                                np, msg, sizeof msg), 0, "%s", msg);
    struct cal_probe p;
    memset(&p, 0, sizeof p);
    snprintf(p.name, sizeof p.name, "NVIDIA H200");
    snprintf(p.gpu_type, sizeof p.gpu_type, "H200");
    p.nvml = "ok";
    p.cudnn = "91000";
    cr_assert_eq(cal_write_file(dir, "probe.json", cal_fn_probe, &p, 1, msg,
                                sizeof msg), 0, "%s", msg);
}

static bool file_has(const char *path, const char *text)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return strstr(buf, text) != NULL;
}

Test(calib_fit, dlsim_fit_accepts_the_written_csvs)
{
    const char *bin = getenv("DLSIM");
    cr_assert(bin, "DLSIM is not set (run through meson test)");
    char dir[512];
    snprintf(dir, sizeof dir, "%s", tu_tmp_path(""));
    synthetic(dir);
    char cwd[1024];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(tu_sh_here("cd '%s' && '%s' fit runtime runtime.csv --zoo "
                    "'%s/../models' -o rt.yaml", dir, bin, cwd),
                 0, "%s", tu_out);
    cr_assert(file_has(tu_tmp_path("rt.yaml"), "kind: runtime"));
    cr_assert(file_has(tu_tmp_path("rt.yaml"), "name: \"H200\""),
              "H200 has its own efficiencies (>= 8 rows)");
    cr_assert_eq(tu_sh_here("cd '%s' && '%s' fit slowdown pairs-timeslice.csv -o "
                    "sd.yaml", dir, bin), 0, "%s", tu_out);
    cr_assert(strstr(tu_out, "H200"), "%s", tu_out);
    cr_assert(file_has(tu_tmp_path("sd.yaml"), "kind: slowdown"));
    /* the synthetic rates are exactly rank one: the form fits them */
    cr_assert(file_has(tu_tmp_path("sd.yaml"), "form: sensitivity_pressure"));
    cr_assert_eq(tu_sh_here("cd '%s' && '%s' fit util util.csv -o ut.yaml", dir, bin),
                 0, "%s", tu_out);
    cr_assert(file_has(tu_tmp_path("ut.yaml"), "kind: util"));
    tu_tmp_cleanup();
}

Test(calib_fit, script_from_dir_fits_and_ties_the_models)
{
    const char *bin = getenv("DLSIM");
    const char *src = getenv("DLSIM_SOURCE");
    cr_assert(bin && src, "DLSIM, DLSIM_SOURCE unset (run through meson)");
    char dir[512];
    snprintf(dir, sizeof dir, "%s", tu_tmp_path(""));
    synthetic(dir);
    cr_assert_eq(tu_sh_here("'%s/scripts/calibrate.sh' --from '%s' --dlsim '%s'", src,
                    dir, bin), 0, "%s", tu_out);
    cr_assert(file_has(tu_tmp_path("runtime-H200.yaml"), "kind: runtime"));
    cr_assert(file_has(tu_tmp_path("slowdown-H200.yaml"), "kind: slowdown"));
    cr_assert(file_has(tu_tmp_path("slowdown-streams-H200.yaml"),
                       "kind: slowdown"));
    cr_assert(file_has(tu_tmp_path("util-H200.yaml"), "kind: util"));
    cr_assert(file_has(tu_tmp_path("models-H200.yaml"), "kind: models"));
    cr_assert(file_has(tu_tmp_path("models-H200.yaml"),
                       "pairs: pairs-timeslice.csv"));
    /* the tied file is one a run accepts: a 2-job trace on H200 */
    FILE *f = fopen(tu_tmp_path("c.yaml"), "w");
    cr_assert_not_null(f);
    fputs("name: one\ngpu_types:\n  - name: H200\n    memory_gb: 141\n"
          "    speed: 1\nnodes:\n  - count: 1\n    gpus: 1\n"
          "    gpu_type: H200\n", f);
    fclose(f);
    f = fopen(tu_tmp_path("t.csv"), "w");
    cr_assert_not_null(f);
    fputs("job_id,submit_time,num_gpus,duration,model\n"
          "a,0,1,100,bert@64\nb,0,1,100,lstm@20\n", f);
    fclose(f);
    cr_assert_eq(tu_sh_here("cd '%s' && '%s' run --trace t.csv --cluster c.yaml "
                    "--models models-H200.yaml --out run --quiet", dir, bin),
                 0, "%s", tu_out);
    cr_assert(tu_exists(tu_tmp_path("run/summary.json")));
    /* a bad directory fails early with a message */
    cr_assert_eq(tu_sh_here("'%s/scripts/calibrate.sh' --from /nonexistent-dir "
                    "--dlsim '%s'", src, bin), 2, "%s", tu_out);
    cr_assert(strstr(tu_out, "/nonexistent-dir"), "%s", tu_out);
    tu_sh_here("rm -rf '%s/run'", dir);
    tu_tmp_cleanup();
}

/* ---------------------------------------------------------- the tool */

Test(calib_tool, help_usage_and_list)
{
    const char *t = tool();
    cr_assert_eq(tu_sh_here("'%s' --help", t), 0, "%s", tu_out);
    cr_assert(!strncmp(tu_out, cal_usage_text, strlen(cal_usage_text)),
                       "%s", tu_out);
    cr_assert_eq(tu_sh_here("'%s' probe --repeats 0", t), 2);
    cr_assert_str_eq(tu_out, "dlsim-calibrate: --repeats: bad value '0' "
                     "(see dlsim-calibrate --help)\n");
    cr_assert_eq(tu_sh_here("'%s'", t), 2);
    cr_assert_eq(tu_sh_here("'%s' bogus", t), 2);
    cr_assert_eq(tu_sh_here("'%s' list", t), 0, "%s", tu_out);
    int lines = 0;
    for (const char *p = tu_out; (p = strchr(p, '\n')); p++)
        lines++;
    cr_assert_eq(lines, 1 + cal_nproxies);
    cr_assert(strstr(tu_out, "\nresnet50@64 "), "%s", tu_out);
}

Test(calib_tool, no_gpu_is_exit_3_with_one_line)
{
    const char *t = tool();
    if (tu_exists("/dev/nvidia0"))
        cr_skip_test("a GPU is present");
    static const char *const cmds[] = { "probe", "suite", "proxies", "pairs",
                                        "all" };
    char dir[512];
    snprintf(dir, sizeof dir, "%s", tu_tmp_path("out"));
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        cr_assert_eq(tu_sh_here("'%s' %s --out '%s'", t, cmds[i], dir), 3, "%s: %s",
                     cmds[i], tu_out);
        /* this machine has the CUDA runtime but no driver */
        cr_assert_str_eq(tu_out, "dlsim-calibrate: no usable GPU: CUDA "
                         "driver version is insufficient for CUDA runtime "
                         "version\n", "%s", cmds[i]);
        cr_assert(!tu_exists(dir), "nothing is written");
    }
    /* the script fails as early, with the same line */
    const char *src = getenv("DLSIM_SOURCE");
    cr_assert_eq(tu_sh_here("'%s/scripts/calibrate.sh' --out '%s' --tool '%s' "
                    "--dlsim '%s'", src, dir, t, getenv("DLSIM")), 3, "%s",
                 tu_out);
    cr_assert(strstr(tu_out, "dlsim-calibrate: no usable GPU: "), "%s",
              tu_out);
    tu_tmp_cleanup();
}
