/*
 * sim/cli/fit.c - the `dlsim fit` command lines: convert-gavel, slowdown,
 * util and runtime.  They parse argv into struct mdl_fit_opts and run the
 * fits of models/fit/ (which print their tables and write the model files).
 */
#include "sim/cli/cli.h"
#include "models/fit/fit.h"

#include <getopt.h>
#include <string.h>


static const char convert_help[] =
    "usage: dlsim fit convert-gavel IN.json -o PREFIX\n"
    "\n"
    "Converts Gavel's physical_cluster_throughputs.json (or a file of the\n"
    "same shape) into SPEC 7 files, each written atomically:\n"
    "  PREFIX-runtime.csv  gpu_type,model,batch_size,num_gpus,placement,\n"
    "                      throughput: k80/p100/v100 -> K80/P100/V100,\n"
    "                      *_unconsolidated -> spread; batch_size is the\n"
    "                      global batch (label x GPUs) and throughput the\n"
    "                      job's iterations/s (figure / GPUs), as in\n"
    "                      models/ZOO.md; zero (infeasible) entries dropped\n"
    "  PREFIX-pairs.csv    gpu_type,job_a,job_b,rate_a,rate_b: one row per\n"
    "                      unordered pair of one-GPU jobs on a consolidated\n"
    "                      type, rate = co-located / isolated, clamped to 1;\n"
    "                      infeasible [0, 0] entries and placeholders (a\n"
    "                      co-located figure equal to the solo one) dropped\n"
    "Job names are the zoo's: \"ResNet-50 (batch size 64)\" -> resnet50@64.\n";

static const char slowdown_help[] =
    "usage: dlsim fit slowdown PAIRS.csv [-o MODEL.yaml] [--form F]\n"
    "                          [--folds K] [--seed N]\n"
    "\n"
    "Fits co-location rate models to a SPEC 7 pairs file, per GPU type, and\n"
    "prints each form's k-fold cross-validated mean absolute error of the\n"
    "predicted rates (both rates of every held-out pair).\n"
    "\n"
    "  -o MODEL.yaml  write the fitted model (best form per type, or --form)\n"
    "  --form F       constant | hinge | timeshare | sensitivity_pressure\n"
    "                 (hinge and timeshare need util_a and util_b)\n"
    "  --folds K      folds (default 5; at most the pairs of a type)\n"
    "  --seed N       seed of the fold assignment (default 1)\n";

static const char util_help[] =
    "usage: dlsim fit util FEATURES.csv [-o MODEL.yaml] [--folds K] [--seed N]\n"
    "                      [--ridge L]\n"
    "\n"
    "Fits utilization as a ridge regression on log1p of the graph features\n"
    "(flops, params, conv/linear/activation/other layer counts; SPEC 7),\n"
    "predictions clamped to the training utilizations' range, and prints its\n"
    "cross-validated RMSLE -- k-fold over rows, and leave-one-model-out (every\n"
    "batch of a model held out together: the error for a model never\n"
    "measured) -- on the fraction scale (log1p(util)) and the percent scale\n"
    "(log1p(100 util)), next to that of a baseline predicting the training\n"
    "mean.\n"
    "\n"
    "  -o MODEL.yaml  write the model fitted on all rows\n"
    "  --folds K      folds (default 5; at most the rows)\n"
    "  --seed N       seed of the fold assignment (default 1)\n"
    "  --ridge L      penalty on the standardized coefficients (default 0.1)\n";

static int usage(const char *kind, const char *msg)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "fit %s", kind);
    return cli_usage(cmd, msg);
}

static int report(const struct dl_error *err, int code)
{
    dl_error_print(err, stderr);
    return dl_exit_status(code);
}

struct fit_opts {
    const char *in, *out, *form;
    long folds, seed;
    double ridge;
};

/* Common options and the one input operand (GNU getopt permutes, so
 * options may follow it).  Returns -1 on success, else an exit status. */
static int parse_opts(const char *kind, int argc, char **argv,
                      const char *help, bool has_form, bool has_ridge,
                      struct fit_opts *o)
{
    static const struct option lo[] = {
        { "out", required_argument, 0, 'o' },
        { "form", required_argument, 0, 'F' },
        { "folds", required_argument, 0, 'k' },
        { "seed", required_argument, 0, 's' },
        { "ridge", required_argument, 0, 'r' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    *o = (struct fit_opts){ .folds = 5, .seed = 1, .ridge = 0.1 };
    int ch;
    optind = 0;                 /* full reset: the tests call us repeatedly */
    while ((ch = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
        switch (ch) {
        case 'o': o->out = optarg; break;
        case 'F':
            if (!has_form)
                return usage(kind, "--form is not an option here");
            o->form = optarg;
            break;
        case 'k':
            if (sim_parse_long(optarg, &o->folds) || o->folds < 2 ||
                o->folds > 1000000)
                return usage(kind, "--folds expects an integer >= 2");
            break;
        case 's':
            if (sim_parse_long(optarg, &o->seed) || o->seed < 0)
                return usage(kind, "--seed expects a non-negative integer");
            break;
        case 'r':
            if (!has_ridge)
                return usage(kind, "--ridge is not an option here");
            if (sim_parse_double(optarg, &o->ridge) || o->ridge < 0)
                return usage(kind, "--ridge expects a number >= 0");
            break;
        case 'h': fputs(help, stdout); return 0;
        default: return usage(kind, "bad option");
        }
    }
    if (optind >= argc)
        return usage(kind, "an input file is required");
    if (optind + 1 < argc)
        return usage(kind, "unexpected argument");
    o->in = argv[optind];
    return -1;
}

int cli_fit_convert(int argc, char **argv)
{
    struct fit_opts o;
    int rc = parse_opts("convert-gavel", argc, argv, convert_help, false,
                        false, &o);
    if (rc >= 0)
        return rc;
    if (!o.out)
        return usage("convert-gavel", "-o PREFIX is required");
    struct dl_error err = { 0 };
    rc = mdl_fit_convert_gavel(o.in, o.out, stderr, &err);
    return rc ? report(&err, rc) : 0;
}

/* The common options as the library takes them. */
static struct mdl_fit_opts lib_opts(const struct fit_opts *o)
{
    return (struct mdl_fit_opts){ .in = o->in, .out = o->out, .form = -1,
                                  .folds = (unsigned)o->folds,
                                  .seed = (unsigned long)o->seed,
                                  .ridge = o->ridge };
}

int cli_fit_slowdown(int argc, char **argv)
{
    struct fit_opts o;
    int rc = parse_opts("slowdown", argc, argv, slowdown_help, true, false, &o);
    if (rc >= 0)
        return rc;
    struct mdl_fit_opts m = lib_opts(&o);
    if (o.form) {
        for (int f = 0; f < MDL_SD_NFITTED; f++)
            if (!strcmp(o.form, mdl_sd_form_name((enum mdl_sd_form)f)))
                m.form = f;
        if (m.form < 0)
            return usage("slowdown", "--form: unknown form (valid: constant, "
                                     "hinge, timeshare, sensitivity_pressure)");
    }
    struct dl_error err = { 0 };
    rc = mdl_fit_slowdown_run(&m, stdout, &err);
    return rc ? report(&err, rc) : 0;
}

int cli_fit_util(int argc, char **argv)
{
    struct fit_opts o;
    int rc = parse_opts("util", argc, argv, util_help, false, true, &o);
    if (rc >= 0)
        return rc;
    struct mdl_fit_opts m = lib_opts(&o);
    struct dl_error err = { 0 };
    rc = mdl_fit_util_run(&m, stdout, &err);
    return rc ? report(&err, rc) : 0;
}

static const char rt_help[] =
    "usage: dlsim fit runtime THROUGHPUT.csv [--zoo DIR] [-o MODEL.yaml]\n"
    "                         [--form roofline|loglinear] [--folds K] [--seed N]\n"
    "\n"
    "Fits the roofline runtime model (models/FIT.md) to SPEC 7 runtime\n"
    "measurements joined with the model zoo (model@batch_size, gpu_type;\n"
    "rows the zoo lacks are skipped and counted), and prints the\n"
    "leave-one-GPU-type-out and k-fold errors (MAPE and RMSE of\n"
    "log throughput) per GPU type, next to a baseline predicting with the\n"
    "median compute efficiency only.\n"
    "\n"
    "--form loglinear instead fits the runtime predictor of predict.runtime:\n"
    "fitted (a log-linear regression of the seconds per iteration on the\n"
    "model's FLOPs, parameters and batch, the GPU's peak and bandwidth, the\n"
    "GPU count and placement), validated leave-one-model-out (every row of a\n"
    "model held out together: the error for a model never profiled); it\n"
    "prints each model's held-out RMSLE and median absolute error next to the\n"
    "roofline's, and -o writes the predictor with one held-out fit per model.\n"
    "\n"
    "  --zoo DIR      the zoo (default: $DLSIM_MODELS, ./models, ...)\n"
    "  -o MODEL.yaml  write the parameters fitted on all rows\n"
    "  --form F       roofline (default: the runtime model) | loglinear\n"
    "                 (the fitted predictor, kind: runtime_predictor)\n"
    "  --folds K      folds (default 5; at most the rows)\n"
    "  --seed N       seed of the fold assignment (default 1)\n";

static int rt_usage(const char *msg)
{
    return usage("runtime", msg);
}

int cli_fit_runtime(int argc, char **argv)
{
    static const struct option lo[] = {
        { "out", required_argument, 0, 'o' },
        { "zoo", required_argument, 0, 'z' },
        { "form", required_argument, 0, 'F' },
        { "folds", required_argument, 0, 'k' },
        { "seed", required_argument, 0, 's' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *out = NULL, *zdir = NULL;
    long folds = 5, seed = 1;
    bool loglinear = false;
    int ch;
    optind = 0;
    while ((ch = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
        switch (ch) {
        case 'o': out = optarg; break;
        case 'z': zdir = optarg; break;
        case 'F':
            if (!strcmp(optarg, "loglinear"))
                loglinear = true;
            else if (!strcmp(optarg, "roofline"))
                loglinear = false;
            else
                return rt_usage("--form: unknown form (valid: roofline, "
                                "loglinear)");
            break;
        case 'k':
            if (sim_parse_long(optarg, &folds) || folds < 2 || folds > 1000000)
                return rt_usage("--folds expects an integer >= 2");
            break;
        case 's':
            if (sim_parse_long(optarg, &seed) || seed < 0)
                return rt_usage("--seed expects a non-negative integer");
            break;
        case 'h': fputs(rt_help, stdout); return 0;
        default: return rt_usage("bad option");
        }
    }
    if (optind >= argc)
        return rt_usage("an input file is required");
    if (optind + 1 < argc)
        return rt_usage("unexpected argument");
    struct mdl_fit_opts m = { .in = argv[optind], .out = out, .form = -1,
                              .folds = (unsigned)folds,
                              .seed = (unsigned long)seed, .zoo = zdir };
    struct dl_error err = { 0 };
    int rc = loglinear ? mdl_fit_rtp_run(&m, stdout, &err)
                       : mdl_fit_runtime_run(&m, stdout, &err);
    return rc ? report(&err, rc) : 0;
}
