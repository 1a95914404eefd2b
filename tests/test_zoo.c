/*
 * tests/test_zoo.c - the model zoo (models/zoo.c): the shipped data loads,
 * holds the models the field benchmarks with, its figures match their
 * sources, look-ups follow model.h, and malformed files end in a located
 * DL_EINPUT.  Tests run with cwd = tests/, so the zoo is at ../models.
 */
#include "models/perf.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZOO_DIR "../models"

static struct mdl_zoo zoo;

static void load_shipped(void)
{
    struct dl_error err = { 0 };
    int rc = mdl_zoo_load(ZOO_DIR, &zoo, &err);
    if (rc)
        dl_error_print(&err, stderr);
    cr_assert_eq(rc, 0, "shipped zoo did not load: %s", err.msg);
}

static void free_shipped(void)
{
    mdl_zoo_free(&zoo);
}

TestSuite(zoo, .init = load_shipped, .fini = free_shipped);

/* |got - want| within rel * |want|. */
#define ASSERT_REL(got, want, rel)                                          \
    cr_assert(fabs((got) - (want)) <= (rel) * fabs(want),                   \
              "%s = %.10g, expected %.10g", #got, (double)(got), (double)(want))

Test(zoo, loads_all_three_files)
{
    cr_assert_geq(zoo.nmodels, 12);
    cr_assert_geq(zoo.ngpus, 8);
    cr_assert_geq(zoo.nthr, 100);
    cr_assert_leq(zoo.nthr, 5000);
    const char *gpus[] = { "K80", "P100", "V100", "T4", "A100", "A10",
                           "H100", "H200" };
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        const struct mdl_gpu *g = mdl_zoo_gpu(&zoo, gpus[i]);
        cr_assert(g, "no GPU type %s", gpus[i]);
        cr_assert_gt(g->memory_gb, 0);
        cr_assert_gt(g->fp32_tflops, 0);
        cr_assert_geq(g->fp16_tflops, g->fp32_tflops);
        cr_assert_gt(g->mem_bw_gbs, 0);
    }
    /* gpu_peak_specs.csv: V100 SXM2 15.7 fp32, 125 fp16 tensor, 900 GB/s;
     * H200 SXM 141 GB, 4800 GB/s. */
    const struct mdl_gpu *v = mdl_zoo_gpu(&zoo, "v100");
    cr_assert_float_eq(v->fp32_tflops, 15.7, 1e-9);
    cr_assert_float_eq(v->fp16_tflops, 125, 1e-9);
    cr_assert_float_eq(v->mem_bw_gbs, 900, 1e-9);
    const struct mdl_gpu *h = mdl_zoo_gpu(&zoo, "H200");
    cr_assert_float_eq(h->memory_gb, 141, 1e-9);
    cr_assert_float_eq(h->mem_bw_gbs, 4800, 1e-9);
    cr_assert_null(mdl_zoo_gpu(&zoo, "TPUv4"));
}

Test(zoo, required_models_have_features)
{
    const char *want[] = { "ResNet-18", "ResNet-50", "VGG-16", "Inception-v3",
                           "BERT", "GPT-2", "Transformer", "LSTM",
                           "DeepSpeech2", "Recommendation", "CycleGAN", "A3C",
                           "NCF" };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct mdl_model *m = mdl_zoo_find(&zoo, want[i]);
        cr_assert(m, "model %s missing", want[i]);
        cr_assert_gt(m->flops, 0, "%s flops", want[i]);
        cr_assert_gt(m->params, 0, "%s params", want[i]);
        cr_assert_geq(m->conv_layers, 0, "%s conv", want[i]);
        cr_assert_geq(m->linear_layers, 0, "%s linear", want[i]);
        cr_assert_geq(m->activation_layers, 0, "%s act", want[i]);
        cr_assert_geq(m->other_layers, 0, "%s other", want[i]);
        cr_assert_gt(m->conv_layers + m->linear_layers, 0, "%s layers", want[i]);
        cr_assert_gt(m->batch_size, 0);
        cr_assert(*m->task && *m->source, "%s task/source", want[i]);
    }
    /* Every row, not just the first of each model, is complete. */
    for (uint32_t i = 0; i < zoo.nmodels; i++) {
        const struct mdl_model *m = &zoo.models[i];
        cr_assert_gt(m->flops, 0, "%s@%u", m->name, m->batch_size);
        cr_assert_gt(m->params, 0, "%s@%u", m->name, m->batch_size);
    }
}

Test(zoo, resnet50_matches_published_figures)
{
    /* He et al. 2016 / torchvision: 25.6 M parameters, 4.1 G multiply-adds
     * per 224x224 image.  The zoo counts a multiply-add as 2 FLOPs and
     * stores FLOPs per iteration, so per image = flops / batch ~ 8.2 G. */
    const struct mdl_model *m = mdl_zoo_find(&zoo, "resnet50@64");
    cr_assert(m);
    cr_assert_eq(m->batch_size, 64);
    ASSERT_REL(m->params, 25.6e6, 0.02);
    ASSERT_REL(m->flops / m->batch_size, 2 * 4.1e9, 0.10);
    cr_assert_eq(m->conv_layers, 53);
    cr_assert_eq(m->linear_layers, 1);
    /* FLOPs scale with the batch. */
    const struct mdl_model *m128 = mdl_zoo_find(&zoo, "ResNet-50@128");
    cr_assert(m128);
    ASSERT_REL(m128->flops, 2 * m->flops, 1e-12);
}

Test(zoo, find_by_name_and_batch)
{
    const struct mdl_model *a = mdl_zoo_find(&zoo, "RESNET_50");
    const struct mdl_model *b = mdl_zoo_find(&zoo, "resnet50");
    cr_assert(a && a == b);
    cr_assert_str_eq(a->name, "resnet50");
    /* Without a batch: the first row of the model in zoo.csv. */
    cr_assert_eq(a->batch_size, 16);
    const struct mdl_model *lm = mdl_zoo_find(&zoo, "LM@20");   /* alias */
    cr_assert(lm);
    cr_assert_str_eq(lm->name, "lstm");
    cr_assert_eq(lm->batch_size, 20);
    cr_assert(mdl_zoo_find(&zoo, "imagenet@3200"));
    cr_assert_null(mdl_zoo_find(&zoo, "resnet50@7"));
    cr_assert_null(mdl_zoo_find(&zoo, "resnet50@"));
    cr_assert_null(mdl_zoo_find(&zoo, "resnet50@x"));
    cr_assert_null(mdl_zoo_find(&zoo, "alexnet"));
    cr_assert_null(mdl_zoo_find(&zoo, ""));
    /* resnet50_cifar10 is its own model, with MISO's A100 utilization
     * (util_collection/util_sm_resnet.json "64": 41.56) in util.csv. */
    const struct mdl_model *rc = mdl_zoo_find(&zoo, "resnet50_cifar10@64");
    cr_assert(rc && rc != a);
    const struct mdl_gpu *a100 = mdl_zoo_gpu(&zoo, "A100");
    uint32_t row = (uint32_t)(rc - zoo.models), ga = (uint32_t)(a100 - zoo.gpus);
    ASSERT_REL(mdl_zoo_util(&zoo, row, ga), 0.4156, 1e-9);
    cr_assert_eq(mdl_zoo_util(&zoo, row, ga + 1), -1);
}

/* util.csv: every row names a zoo row and a GPU type and agrees with MISO's
 * raw JSON (../shared/data/perf/miso/util_collection; percent / 100): the
 * hand-checked lookups below, and the count.  The zoo's memory of those
 * rows is MISO's memory.used (MiB / 1024, 2 decimals). */
Test(zoo, util_csv_matches_miso)
{
    static const struct { const char *model; double util, mem; } want[] = {
        { "resnet50_cifar10@64", 0.4156, 9933 / 1024.0 },
        { "resnet50_cifar10@128", 0.4308, 9933 / 1024.0 },
        { "resnet50_cifar10@256", 0.6098, 9933 / 1024.0 },
        { "cyclegan@1", 0.7833, 5581 / 1024.0 },
    };
    const struct mdl_gpu *a100 = mdl_zoo_gpu(&zoo, "a100");
    cr_assert(a100);
    cr_assert_eq(zoo.nutils, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct mdl_model *m = mdl_zoo_find(&zoo, want[i].model);
        cr_assert(m, "%s", want[i].model);
        uint32_t row = (uint32_t)(m - zoo.models), n;
        const struct mdl_util_meas *u = mdl_zoo_utils(&zoo, row, &n);
        cr_assert_eq(n, 1, "%s", want[i].model);
        cr_assert_eq(u->gpu, (uint32_t)(a100 - zoo.gpus));
        cr_assert_float_eq(u->util, want[i].util, 1e-12, "%s", want[i].model);
        cr_assert_float_eq(m->mem_gb, want[i].mem, 0.005, "%s", want[i].model);
    }
    /* a model with no measurement */
    const struct mdl_model *v = mdl_zoo_find(&zoo, "vgg16@64");
    uint32_t n;
    mdl_zoo_utils(&zoo, (uint32_t)(v - zoo.models), &n);
    cr_assert_eq(n, 0);
}

/* Values hand-copied from the public sources (see models/ZOO.md); the
 * table keeps 7 significant digits. */
#define REL 1e-6

Test(zoo, throughput_rows_match_sources)
{
    /* perf/gavel/physical_cluster_throughputs.json, "null" (isolated) entry
     * of "('ResNet-50 (batch size 64)', 1)" under v100 / p100 / k80. */
    double v = mdl_zoo_throughput(&zoo, "resnet50", 64, "V100", 1, false);
    double p = mdl_zoo_throughput(&zoo, "resnet50", 64, "P100", 1, false);
    double k = mdl_zoo_throughput(&zoo, "resnet50", 64, "K80", 1, false);
    ASSERT_REL(v, 4.525762041224065, REL);
    ASSERT_REL(p, 2.6194694075770055, REL);
    ASSERT_REL(k, 0.7458616001066279, REL);
    cr_assert(v > p && p > k);
    /* One GPU: spread is ignored. */
    cr_assert_eq(mdl_zoo_throughput(&zoo, "resnet50", 64, "V100", 1, true), v);

    /* Same file, "('ResNet-50 (batch size 16)', 4)": 4 workers of batch 16
     * = global batch 64; Gavel's steps/s summed over workers / 4. */
    ASSERT_REL(mdl_zoo_throughput(&zoo, "ResNet-50", 64, "v100", 4, false),
               23.195585654383645 / 4, REL);      /* under v100 */
    ASSERT_REL(mdl_zoo_throughput(&zoo, "ResNet-50", 64, "v100", 4, true),
               14.90134065234992 / 4, REL);       /* v100_unconsolidated */

    /* traces/pkusys-elasticflow/throughputs_A100/resnet50.csv, row
     * global_batch_size 128, column 8: iterations/s as is. */
    ASSERT_REL(mdl_zoo_throughput(&zoo, "resnet50@128", 128, "A100", 8, false),
               16.53414011075494, REL);
    /* throughputs_T4/imagenet.csv, row 3200, column 16 (alias imagenet). */
    ASSERT_REL(mdl_zoo_throughput(&zoo, "imagenet", 3200, "T4", 16, false),
               0.9557776593890407, REL);
    /* throughputs_T4/cifar10.csv row 2048 column 1 (ResNet-18). */
    ASSERT_REL(mdl_zoo_throughput(&zoo, "resnet18", 2048, "T4", 1, false),
               0.7124343161725541, REL);

    /* Not measured. */
    cr_assert_eq(mdl_zoo_throughput(&zoo, "resnet50", 64, "H100", 1, false), -1);
    cr_assert_eq(mdl_zoo_throughput(&zoo, "resnet50", 63, "V100", 1, false), -1);
    cr_assert_eq(mdl_zoo_throughput(&zoo, "alexnet", 64, "V100", 1, false), -1);
    cr_assert_eq(mdl_zoo_throughput(&zoo, "resnet50", 64, "TPU", 1, false), -1);
    cr_assert_eq(mdl_zoo_throughput(&zoo, "resnet50@32", 64, "V100", 1, false), -1);
    cr_assert_eq(mdl_zoo_throughput(&zoo, "resnet50", 64, "V100", 0, false), -1);
    /* ElasticFlow measured consolidated placements only. */
    cr_assert_eq(mdl_zoo_throughput(&zoo, "resnet50", 128, "A100", 8, true), -1);
}

Test(zoo, faster_gpus_are_faster_for_resnet50)
{
    uint32_t batches[] = { 16, 32, 64 };
    for (size_t i = 0; i < 3; i++) {
        double v = mdl_zoo_throughput(&zoo, "resnet50", batches[i], "V100", 1, false);
        double p = mdl_zoo_throughput(&zoo, "resnet50", batches[i], "P100", 1, false);
        double k = mdl_zoo_throughput(&zoo, "resnet50", batches[i], "K80", 1, false);
        cr_assert(v > p && p > k && k > 0, "batch %u: %g %g %g", batches[i], v, p, k);
    }
    /* Batch 128 does not fit a K80 (the physical file's "null" is 0.0,
     * infeasible), so it is not in the table. */
    cr_assert_gt(mdl_zoo_throughput(&zoo, "resnet50", 128, "P100", 1, false), 0);
    cr_assert_eq(mdl_zoo_throughput(&zoo, "resnet50", 128, "K80", 1, false), -1);
}

/* ------------------------------------------------------------ malformed */

static const char good_zoo[] =
    "# comment\n"
    "model,batch_size,task,mem_gb,flops,params,conv_layers,linear_layers,"
    "activation_layers,other_layers,source\n"
    "net,8,t,1.5,100,10,1,1,1,1,s\n"
    "net,16,t,,200,10,1,1,1,1,s\n";
static const char good_gpus[] =
    "name,memory_gb,fp32_tflops,fp16_tflops,mem_bw_gbs,source\n"
    "G1,16,10,20,900,x\n"
    "G2,32,20,40,1000,x\n";
static const char good_thr[] =
    "gpu_type,model,batch_size,num_gpus,placement,throughput\n"
    "G1,net,8,1,consolidated,2.5\n"
    "G2,NET,16,2,spread,1.25\n";
static const char good_util[] =
    "gpu_type,model,batch_size,util,source\n"
    "G1,net,8,0.5,s\n"
    "g2,Net,8,0.25,s\n";
/* the util.csv load_texts writes; NULL = leave it out */
static const char *util_text = good_util;

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

static void remove_files(void)
{
    const char *names[] = { "zoo.csv", "gpus.csv", "throughput.csv", "util.csv" };
    for (size_t i = 0; i < 4; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        unlink(path);
    }
    rmdir(tmpdir);
}

/* Loads a zoo made of the three texts (NULL = leave that file out);
 * returns the code and fills err. */
static int load_texts(const char *z, const char *g, const char *t,
                      struct dl_error *err)
{
    strcpy(tmpdir, "/tmp/dlsim-zoo-XXXXXX");
    cr_assert(mkdtemp(tmpdir));
    if (z)
        write_file("zoo.csv", z);
    if (g)
        write_file("gpus.csv", g);
    if (t)
        write_file("throughput.csv", t);
    if (util_text)
        write_file("util.csv", util_text);
    struct mdl_zoo tz;
    memset(err, 0, sizeof *err);
    int rc = mdl_zoo_load(tmpdir, &tz, err);
    if (!rc) {
        double thr = mdl_zoo_throughput(&tz, "net", 16, "g2", 2, true);
        cr_assert_float_eq(thr, 1.25, 1e-12);
        if (util_text == good_util) {   /* sorted by (row, type) */
            cr_assert_eq(tz.nutils, 2);
            cr_assert_float_eq(mdl_zoo_util(&tz, 0, 0), 0.5, 1e-12);
            cr_assert_float_eq(mdl_zoo_util(&tz, 0, 1), 0.25, 1e-12);
            cr_assert_eq(mdl_zoo_util(&tz, 1, 0), -1);
        }
    }
    mdl_zoo_free(&tz);
    mdl_zoo_free(&tz);          /* harmless twice */
    remove_files();
    return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

#define BAD(z, g, t, file_, line_)                                           \
    do {                                                                    \
        struct dl_error e;                                                  \
        int rc_ = load_texts(z, g, t, &e);                                  \
        cr_assert_eq(rc_, DL_EINPUT, "rc %d (%s)", rc_, e.msg);             \
        cr_assert(ends_with(e.file, "/" file_), "file %s", e.file);         \
        cr_assert_eq(e.line, line_, "line %ld: %s", e.line, e.msg);         \
    } while (0)

Test(zoo_bad, small_good_zoo_loads)
{
    struct dl_error e;
    cr_assert_eq(load_texts(good_zoo, good_gpus, good_thr, &e), 0, "%s", e.msg);
}

Test(zoo_bad, zoo_csv_errors)
{
    /* missing column: reported on the header line (2, after a comment) */
    BAD("# c\nmodel,batch_size,task,mem_gb,params,conv_layers,linear_layers,"
        "activation_layers,other_layers,source\n",
        good_gpus, good_thr, "zoo.csv", 2);
    /* a non-number batch size, on line 5 (after good_zoo's four) */
    {
        char buf[1024];
        snprintf(buf, sizeof buf, "%snet,sixty,t,,1,1,1,1,1,1,s\n", good_zoo);
        BAD(buf, good_gpus, good_thr, "zoo.csv", 5);
        struct dl_error e;
        load_texts(buf, good_gpus, good_thr, &e);
        cr_assert_eq(e.col, 5, "col %ld", e.col);
        cr_assert(strstr(e.msg, "batch_size") && strstr(e.msg, "sixty"), "%s", e.msg);
    }
    /* too few fields */
    BAD("model,batch_size,task,mem_gb,flops,params,conv_layers,linear_layers,"
        "activation_layers,other_layers,source\n"
        "net,8,t,,100,10,1,1,1\n", good_gpus, good_thr, "zoo.csv", 2);
    /* the util_a100 column of before util.csv: refused, never dropped */
    BAD("model,batch_size,task,mem_gb,flops,params,conv_layers,linear_layers,"
        "activation_layers,other_layers,util_a100,source\n"
        "net,8,t,,100,10,1,1,1,1,0.5,s\n", good_gpus, good_thr, "zoo.csv", 1);
    /* negative layer count */
    BAD("model,batch_size,task,mem_gb,flops,params,conv_layers,linear_layers,"
        "activation_layers,other_layers,source\n"
        "net,8,t,,100,10,-1,1,1,1,s\n", good_gpus, good_thr, "zoo.csv", 2);
    /* the same model and batch twice (names match as "Net" = "net") */
    {
        char buf[1024];
        snprintf(buf, sizeof buf, "%sNet,8,t,,1,1,1,1,1,1,s\n", good_zoo);
        BAD(buf, good_gpus, good_thr, "zoo.csv", 5);
    }
    /* a quoted field */
    BAD("model,batch_size,task,mem_gb,flops,params,conv_layers,linear_layers,"
        "activation_layers,other_layers,source\n"
        "net,8,\"a,b\",,100,10,1,1,1,1,s\n", good_gpus, good_thr, "zoo.csv", 2);
    /* a header repeated */
    BAD("model,model,batch_size,task,mem_gb,flops,params,conv_layers,"
        "linear_layers,activation_layers,other_layers,source\n",
        good_gpus, good_thr, "zoo.csv", 1);
    /* empty file */
    BAD("", good_gpus, good_thr, "zoo.csv", 1);
}

Test(zoo_bad, gpus_csv_errors)
{
    BAD(good_zoo, "name,memory_gb,fp32_tflops,fp16_tflops,mem_bw_gbs,source\n"
        "G1,16,10,20,900,x\ng1,16,10,20,900,x\n", good_thr, "gpus.csv", 3);
    BAD(good_zoo, "name,memory_gb,fp32_tflops,fp16_tflops,mem_bw_gbs,source\n"
        "G1,16,10,,900,x\n", good_thr, "gpus.csv", 2);
    BAD(good_zoo, "name,memory_gb,fp32_tflops,fp16_tflops,mem_bw_gbs,source\n"
        "G1,16,0,20,900,x\n", good_thr, "gpus.csv", 2);
    BAD(good_zoo, "name,memory_gb,fp32_tflops,fp16_tflops,source\n",
        good_thr, "gpus.csv", 1);
}

Test(zoo_bad, throughput_csv_errors)
{
    const char *h = "gpu_type,model,batch_size,num_gpus,placement,throughput\n";
    char buf[1024];
#define THR(rows) (snprintf(buf, sizeof buf, "%s%s", h, rows), buf)
    BAD(good_zoo, good_gpus, THR("G1,net,8,1,consolidated,1\nG9,net,8,1,consolidated,1\n"),
        "throughput.csv", 3);                           /* unknown GPU type */
    BAD(good_zoo, good_gpus, THR("G1,alexnet,8,1,consolidated,1\n"),
        "throughput.csv", 2);                           /* model not in zoo */
    BAD(good_zoo, good_gpus, THR("G1,net,8,2,packed,1\n"),
        "throughput.csv", 2);                           /* placement */
    BAD(good_zoo, good_gpus, THR("G1,net,8,1,spread,1\n"),
        "throughput.csv", 2);                           /* one GPU spread */
    BAD(good_zoo, good_gpus, THR("G1,net,8,1,consolidated,0\n"),
        "throughput.csv", 2);                           /* not > 0 */
    BAD(good_zoo, good_gpus, THR("G1,net,8,0,consolidated,1\n"),
        "throughput.csv", 2);                           /* zero GPUs */
    BAD(good_zoo, good_gpus,
        THR("G1,net,8,2,spread,1\nG2,net,8,2,spread,1\nG1,NET,8,2,spread,2\n"),
        "throughput.csv", 4);                           /* duplicate key */
#undef THR
}

Test(zoo_bad, util_csv_errors)
{
    const char *h = "gpu_type,model,batch_size,util,source\n";
    char buf[1024];
#define UTIL(rows) (snprintf(buf, sizeof buf, "%s%s", h, rows), util_text = buf)
    UTIL("G1,net,8,0.5,s\nG9,net,8,0.5,s\n");
    BAD(good_zoo, good_gpus, good_thr, "util.csv", 3);  /* unknown GPU type */
    UTIL("G1,alexnet,8,0.5,s\n");
    BAD(good_zoo, good_gpus, good_thr, "util.csv", 2);  /* model not in zoo */
    UTIL("G1,net,32,0.5,s\n");
    BAD(good_zoo, good_gpus, good_thr, "util.csv", 2);  /* batch not in zoo */
    UTIL("G1,net,8,0,s\n");
    BAD(good_zoo, good_gpus, good_thr, "util.csv", 2);  /* util 0 */
    UTIL("G1,net,8,1.5,s\n");
    BAD(good_zoo, good_gpus, good_thr, "util.csv", 2);  /* util above 1 */
    UTIL("G1,net,8,0.5,s\ng1,NET,8,0.6,s\n");
    BAD(good_zoo, good_gpus, good_thr, "util.csv", 3);  /* same row and type */
    snprintf(buf, sizeof buf, "gpu_type,model,util,source\nG1,net,0.5,s\n");
    util_text = buf;
    BAD(good_zoo, good_gpus, good_thr, "util.csv", 1);  /* no batch_size */
#undef UTIL
    {   /* the message names the row's model and batch */
        snprintf(buf, sizeof buf, "%sG1,net,32,0.5,s\n", h);
        util_text = buf;
        struct dl_error e;
        load_texts(good_zoo, good_gpus, good_thr, &e);
        cr_assert(strstr(e.msg, "'net'") && strstr(e.msg, "32"), "%s", e.msg);
    }
    util_text = NULL;           /* a zoo without util.csv cannot be read */
    {
        struct dl_error e;
        cr_assert_eq(load_texts(good_zoo, good_gpus, good_thr, &e), DL_EIO);
        cr_assert(ends_with(e.file, "/util.csv"), "%s", e.file);
    }
    util_text = good_util;
}

Test(zoo_bad, missing_file_is_io_error)
{
    struct dl_error e;
    cr_assert_eq(load_texts(good_zoo, good_gpus, NULL, &e), DL_EIO);
    cr_assert(ends_with(e.file, "/throughput.csv"), "%s", e.file);
}

Test(zoo_bad, default_dir_from_environment)
{
    char buf[256];
    setenv("DLSIM_MODELS", ZOO_DIR, 1);
    cr_assert_eq(mdl_zoo_default_dir(buf, sizeof buf), 0);
    cr_assert_str_eq(buf, ZOO_DIR);
    cr_assert_eq(mdl_zoo_default_dir(buf, 4), -1);     /* does not fit */
    unsetenv("DLSIM_MODELS");
    /* From tests/ there is no ./models; the build tree's binary is in
     * build/tests, so <exe>/../models is build/models: absent too, unless
     * a build directory lies elsewhere.  Either way the answer holds a
     * zoo.csv when it is 0. */
    if (mdl_zoo_default_dir(buf, sizeof buf) == 0) {
        char p[512];
        snprintf(p, sizeof p, "%s/zoo.csv", buf);
        cr_assert_eq(access(p, R_OK), 0);
    }
}

/* A NUL byte in zoo.csv: its line and column, not just the file (#13) */
Test(zoo_bad, nul_byte_is_located)
{
    char dir[64] = "/tmp/dlsim-zoo-XXXXXX", path[128];
    cr_assert(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/zoo.csv", dir);
    FILE *f = fopen(path, "wb");
    fputs(good_zoo, f);
    fputs("net,3", f);
    fputc(0, f);
    fputs("2,t,,1,1,1,1,1,1,,s\n", f);
    fclose(f);
    const char *names[] = { "gpus.csv", "throughput.csv" };
    const char *texts[] = { good_gpus, good_thr };
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        f = fopen(path, "w");
        fputs(texts[i], f);
        fclose(f);
    }
    struct mdl_zoo z;
    struct dl_error e;
    cr_expect_eq(mdl_zoo_load(dir, &z, &e), DL_EINPUT);
    cr_expect(ends_with(e.file, "/zoo.csv"), "%s", e.file);
    cr_expect_eq(e.line, 5);
    cr_expect_eq(e.col, 6);
    cr_expect(strstr(e.msg, "NUL byte"), "%s", e.msg);
    mdl_zoo_free(&z);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
