/*
 * sim/cli/trace.c - the `dlsim trace gen`, `stats`, `annotate`, `fit`,
 * `compare` and `scale` command lines (trc_cmd_gen, trc_cmd_stats,
 * trc_cmd_annotate, trc_cmd_fit, trc_cmd_compare, trc_cmd_scale).
 *
 * Owns only what one command uses: the cluster (from --cluster, or the
 * built-in demo cluster) and the trace, both freed before returning.
 * Each entry point takes argv with argv[0] = the subcommand name, parses
 * it with getopt_long (reset on every call, so tests may call it many
 * times) and returns the process exit status of SPEC section 1: 0, 2 for
 * bad usage or bad input (a located message on stderr), 1 for I/O.
 */
#include "sim/cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char gen_usage[] =
    "usage: dlsim trace gen [options] -o OUT.csv[.gz]\n"
    "       dlsim trace gen --like WORKLOAD.yaml [--jobs N] [--seed N]\n"
    "                 [--arrivals replay|poisson|diurnal] [--load X [--cluster C]]\n"
    "                 [--models like|zoo|none|a,b,c] -o OUT.csv[.gz]\n"
    "\n"
    "Generates a synthetic, seeded workload in the native trace format.\n"
    "Jobs arrive as a Poisson process of rate load * capacity / E[gpus *\n"
    "duration] (capacity = sum of GPUs x speed); the gaps are then rescaled\n"
    "by one factor so that the trace's own offered load (as trace stats\n"
    "reports it) is exactly --load, for every seed.  The same options and\n"
    "seed give the same trace.\n"
    "\n"
    "options:\n"
    "  --cluster C.yaml      cluster to size the load for (default: the built-in\n"
    "                        demo-256 cluster)\n"
    "  --jobs N              number of jobs (default 1000)\n"
    "  --load X              target offered load, > 0 (default 0.8)\n"
    "  --seed N              random seed, 0..2^64-1 (default 1)\n"
    "  --gpus SPEC           GPU-count distribution: COUNT:WEIGHT,... (e.g.\n"
    "                        1:0.7,2:0.1,4:0.1,8:0.1; weights are relative), a\n"
    "                        single COUNT, or philly (default: the Microsoft\n"
    "                        Philly trace's frequencies, Jeon et al. ATC'19).\n"
    "                        Counts larger than the cluster are dropped.\n"
    "  --duration SPEC       duration distribution in seconds, on reference GPUs:\n"
    "                        const:V, exp:MEAN, lognormal:MU,SIGMA (of ln s),\n"
    "                        uniform:LO,HI, or philly (default: Philly's\n"
    "                        empirical distribution for the job's GPU count).\n"
    "                        Durations are at least 1 s.\n"
    "  --max-duration S      clamp durations to at most S seconds (default: none)\n"
    "  --deadline-slack LO[:HI]\n"
    "                        give jobs a deadline = submit + slack * duration,\n"
    "                        slack uniform in [LO, HI] (HI defaults to LO;\n"
    "                        default: no deadlines)\n"
    "  --deadline-frac F     fraction of jobs that get a deadline (default 1)\n"
    "  --models a,b,c        assign each job a model name, uniformly at random\n"
    "                        (default: no model column); zoo: the model zoo's\n"
    "                        names, as with --like\n"
    "  -o, --output OUT      output file; gzip-compressed when it ends in .gz\n"
    "  -h, --help            this text\n"
    "\n"
    "With --like W.yaml (a workload fitted by `dlsim trace fit`; format in\n"
    "traces/WORKLOAD.md) the jobs follow the fitted trace instead:\n"
    "  --like W.yaml         the workload description\n"
    "  --jobs N              number of jobs (default: the fitted number).  GPU\n"
    "                        counts, models, GPU types and which jobs have a\n"
    "                        deadline/util/mem are apportioned exactly in the\n"
    "                        fitted proportions (largest remainder, then a\n"
    "                        seeded shuffle): N = the fitted number reproduces\n"
    "                        the fitted counts.  Durations are drawn from the\n"
    "                        fitted quantile table of the job's GPU-count class.\n"
    "  --arrivals P          replay (default): gaps drawn from the fitted gap\n"
    "                        quantiles (zero gaps of batch arrivals included);\n"
    "                        poisson: exponential gaps of the fitted mean gap;\n"
    "                        diurnal: a Poisson process of rate (hourly weight x\n"
    "                        weekly weight, each scaled to mean 1) / mean gap,\n"
    "                        drawn exactly by inverting the cumulative rate.\n"
    "                        The first job arrives at the fitted start.\n"
    "  --load X              afterwards, rescale every gap by one factor so that\n"
    "                        the offered load on --cluster (default: the built-in\n"
    "                        cluster) is X, as dlsim run --load and trace scale\n"
    "  --models M            like (default): the fitted model mix; zoo: the model\n"
    "                        zoo's names in equal shares; none; or a,b,c in equal\n"
    "                        shares\n"
    "  --seed N              random seed (default 1); one stream per column\n"
    "--gpus, --duration, --max-duration, --deadline-slack and --deadline-frac\n"
    "do not apply with --like.\n";

static const char stats_usage[] =
    "usage: dlsim trace stats TRACE [--cluster C.yaml] [--models M]...\n"
    "\n"
    "Prints a trace's jobs, span, GPU-count table, duration percentiles\n"
    "(nearest rank), total GPU-hours, how many jobs carry each optional\n"
    "column, and the offered load (GPU-seconds / (capacity x span)) against a\n"
    "cluster.  TRACE may be plain or gzip CSV, or - for standard input.\n"
    "\n"
    "options:\n"
    "  --cluster C.yaml      cluster for the offered load (default: the built-in\n"
    "                        demo-256 cluster)\n"
    "  --models M            the offered load under these performance models\n"
    "                        (as dlsim run --models): each job's work at its\n"
    "                        own speed on each GPU type, as dlsim run records\n"
    "                        it in summary.json (offered_load)\n"
    "  -h, --help            this text\n";

static const char annotate_usage[] =
    "usage: dlsim trace annotate IN -o OUT[.gz] [options]\n"
    "\n"
    "Attaches deadlines, model names, solo GPU utilization, GPU memory and\n"
    "tenants to the jobs of a native trace (IN: plain or gzip CSV, or - for\n"
    "standard input), seeded: the same trace, options and seed give the same\n"
    "output.\n"
    "By default only empty (unknown) fields are filled and values already in\n"
    "the trace are kept.  Every job and every other field is kept as read\n"
    "(columns unknown to the native format and comments are not carried\n"
    "over).  OUT is written atomically and may be IN.\n"
    "\n"
    "Each field has its own random stream and takes a fixed number of draws\n"
    "per job, filled or not, so adding one option never changes the values\n"
    "another draws for the same seed.  The deadline draws are trace gen's:\n"
    "on a generated trace without deadlines, the same --seed and\n"
    "--deadline-slack give the deadlines trace gen would have.\n"
    "\n"
    "options (at least one of --deadline-slack, --models, --vc, --user,\n"
    "--util, --mem):\n"
    "  --deadline-slack LO[:HI]\n"
    "                        deadline = submit + slack * duration (duration: run\n"
    "                        time alone on the reference GPUs), slack uniform in\n"
    "                        [LO, HI], 0 < LO <= HI <= 1000 (HI defaults to LO)\n"
    "  --deadline-frac F     fraction of jobs that get a deadline, 0..1 (default\n"
    "                        1); needs --deadline-slack.  With --overwrite, a job\n"
    "                        left out loses any deadline it had.\n"
    "  --models a,b,c        a model name per job, uniformly from the list; or\n"
    "                        a:W,b:W,... with relative weights W >= 0 (names as\n"
    "                        the model zoo spells them, e.g. resnet50@64); zoo:\n"
    "                        the model zoo's names in equal shares\n"
    "  --vc a,b,c            a virtual cluster (tenant) per job, uniformly from\n"
    "                        the list or by weights a:W,b:W,... (fairshare by=vc)\n"
    "  --user a,b,c          a user per job, the same way (fairshare by=user)\n"
    "  --util DIST           solo GPU utilization, clamped to [0.01, 1]\n"
    "  --mem DIST            GPU memory per GPU in GB, clamped to [0, 1e6]\n"

    "                        DIST: const:V, exp:MEAN, lognormal:MU,SIGMA (of ln\n"
    "                        units), uniform:LO,HI, or beta:A,B (on [0, 1],\n"
    "                        0.01 <= A, B <= 10000), e.g. --util beta:2,2\n"
    "  --overwrite           replace values already in the trace too\n"
    "  --seed N              random seed, 0..2^64-1 (default 1)\n"
    "  -o, --output OUT      output file; gzip-compressed when it ends in .gz\n"
    "  -h, --help            this text\n"
    "\n"
    "Prints one line: the jobs written and, per field, how many were filled,\n"
    "kept, replaced or cleared.  Exit status: 0; 2 for a bad option or a\n"
    "malformed trace (file:line); 1 when a file cannot be read or written.\n"
    "No output file is left behind on failure.\n";

/* Prints "dlsim trace CMD: message" and returns 2. */
static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "dlsim trace %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see dlsim trace %s --help)\n", cmd);
    return 2;
}

/* getopt_long returned ':' (missing value) or '?' (unknown option). */
static int getopt_error(const char *cmd, char **argv, int ch)
{
    const char *arg = argv[optind - 1];
    if (ch == ':')
        return usage_error(cmd, "option '%s' needs a value", arg);
    return usage_error(cmd, "unknown option '%s'", arg);
}

/* Makes getopt_long start afresh on a new argv (GNU: optind = 0 is a full
 * reset), silent: the commands print their own errors. */
static void opt_reset(void)
{
    optind = 0;
    opterr = 0;
}

/* The option loop's default case: -h prints usage (0); ':' or '?' are
 * usage errors (2). */
static int opt_other(const char *cmd, const char *usage, char **argv, int ch)
{
    if (ch == 'h') {
        fputs(usage, stdout);
        return 0;
    }
    return getopt_error(cmd, argv, ch);
}

/* Exactly one operand after the options: 0, or 2 after the message
 * (missing names the operand). */
static int one_operand(const char *cmd, int argc, char **argv,
                       const char *missing)
{
    if (optind >= argc)
        return usage_error(cmd, "%s", missing);
    if (optind + 1 < argc)
        return usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    return 0;
}

/* Loads the trace at path: 0, or the exit status after the message. */
static int load_trace(const char *path, struct trace *t)
{
    struct dl_error err;
    struct dl_diag d;
    dl_diag_init(&d, stderr, false);
    int r = trc_load(path, t, &err, &d);
    dl_diag_free(&d);
    if (r) {
        dl_error_print(&err, stderr);
        return dl_exit_status(r);
    }
    return 0;
}

/* Loads --cluster, or the built-in cluster when path is NULL.  0 or the
 * exit status after printing the error. */
static int load_cluster(const char *path, struct cluster *c)
{
    if (!path) {
        clu_builtin_demo(c);
        return 0;
    }
    struct dl_error err;
    int r = cfg_load_cluster(path, c, &err);
    if (r) {
        dl_error_print(&err, stderr);
        return dl_exit_status(r);
    }
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!*s || *s == '-' || *s == ' ')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);   /* "010" is ten */
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

/* "LO" or "LO:HI" with 0 < LO <= HI (hi = lo when absent).  0, or the
 * exit status after the message. */
static int parse_slack(const char *cmd, const char *arg, double *lo,
                       double *hi)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", arg);
    char *colon = strchr(buf, ':');
    if (colon)
        *colon = '\0';
    if (strlen(arg) >= sizeof buf || sim_parse_double(buf, lo) < 0 ||
        !(*lo > 0) || (colon && sim_parse_double(colon + 1, hi) < 0))
        return usage_error(cmd, "bad --deadline-slack '%s': expected "
                           "LO or LO:HI with 0 < LO <= HI", arg);
    if (!colon)
        *hi = *lo;
    if (!(*hi >= *lo))
        return usage_error(cmd, "bad --deadline-slack '%s': HI is "
                           "below LO", arg);
    return 0;
}

enum { OPT_CLUSTER = 256, OPT_JOBS, OPT_LOAD, OPT_SEED, OPT_GPUS,
       OPT_DURATION, OPT_MAXDUR, OPT_SLACK, OPT_FRAC, OPT_MODELS, OPT_UTIL,
       OPT_MEM, OPT_VC, OPT_USER, OPT_OVERWRITE, OPT_LIKE, OPT_ARRIVALS,
       OPT_RUNMODELS };

/* --models M of trace stats and trace scale: adds M to spec (0, or the
 * exit status after the message). */
static int add_models(struct mdl_spec *spec, const char *arg)
{
    struct dl_error err = { 0 };
    int r = mdl_spec_add(spec, arg, &err);
    if (r)
        dl_error_print(&err, stderr);
    return dl_exit_status(r);
}

/* The per-job capacities of t on c under spec (malloc'd; NULL when no
 * --models was given, meaning the cluster file's speeds); *st = 0, or the
 * exit status after the message.  The models' warnings go to stderr. */
static double *models_caps(struct mdl_spec *spec, const struct trace *t,
                           const struct cluster *c, int *st)
{
    *st = 0;
    if (!spec->zoo_on)
        return NULL;
    struct dl_error err = { 0 };
    int r = mdl_spec_finish(spec, &err);
    if (r) {
        dl_error_print(&err, stderr);
        *st = dl_exit_status(r);
        return NULL;
    }
    struct dl_diag d;
    dl_diag_init(&d, stderr, false);
    struct mdl_perf *p = mdl_perf_new(spec, c, t, 0, &d);
    dl_diag_free(&d);
    double *caps = xmalloc((t->njobs ? t->njobs : 1) * sizeof *caps);
    mdl_perf_caps(p, caps);
    mdl_perf_free(p);
    return caps;
}

/* The zoo's model names, comma-joined (malloc'd), or NULL after printing
 * why not. */
static char *zoo_names(const char *cmd)
{
    struct dl_error err = { 0 };
    char *s = mdl_zoo_names(&err);
    if (!s && !err.file[0])                         /* none found */
        fprintf(stderr, "dlsim trace %s: --models zoo: %s\n", cmd, err.msg);
    else if (!s)
        dl_error_print(&err, stderr);
    return s;
}

/* --models of trace gen and trace annotate: "zoo" stands for the zoo's
 * names (in equal shares), as with --like.  *models is replaced by them
 * (*owned, to free); 0, or the exit status after the message. */
static int zoo_models(const char *cmd, const char **models, char **owned)
{
    *owned = NULL;
    if (!*models || strcmp(*models, "zoo"))
        return 0;
    if (!(*owned = zoo_names(cmd)))
        return 2;
    *models = *owned;
    return 0;
}

static int gen_like(const char *like, const char *arrivals,
                    const struct trc_gen_opts *o, bool jobs_given,
                    bool load_given, const char *cluster_path,
                    const char *out);

int cli_trace_gen(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"cluster", required_argument, NULL, OPT_CLUSTER},
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"load", required_argument, NULL, OPT_LOAD},
        {"seed", required_argument, NULL, OPT_SEED},
        {"gpus", required_argument, NULL, OPT_GPUS},
        {"duration", required_argument, NULL, OPT_DURATION},
        {"max-duration", required_argument, NULL, OPT_MAXDUR},
        {"deadline-slack", required_argument, NULL, OPT_SLACK},
        {"deadline-frac", required_argument, NULL, OPT_FRAC},
        {"models", required_argument, NULL, OPT_MODELS},
        {"like", required_argument, NULL, OPT_LIKE},
        {"arrivals", required_argument, NULL, OPT_ARRIVALS},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char shortopts[] = ":o:h";
    const char *cmd = "gen", *cluster_path = NULL, *out = NULL;
    const char *like = NULL, *arrivals = NULL, *classic = NULL;
    bool jobs_given = false, load_given = false;
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    opt_reset();
    int ch, st;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        long l;
        double d;
        switch (ch) {
        case 'o':
            out = optarg;
            break;
        case OPT_CLUSTER:
            cluster_path = optarg;
            break;
        case OPT_JOBS:
            if (sim_parse_long(optarg, &l) < 0 || l < 1)
                return usage_error(cmd, "bad --jobs '%s': expected an "
                                   "integer >= 1", optarg);
            if (l > (long)TRC_GEN_MAX_JOBS) {
                fprintf(stderr, "dlsim trace gen: --jobs %s: at most %u "
                        "jobs (the trace is built in memory before it is "
                        "written)\n", optarg, TRC_GEN_MAX_JOBS);
                return 2;
            }
            o.njobs = (uint32_t)l;
            jobs_given = true;
            break;
        case OPT_LOAD:
            if (sim_parse_double(optarg, &d) < 0 || !(d > 0))
                return usage_error(cmd, "bad --load '%s': expected a number "
                                   "> 0", optarg);
            o.load = d;
            load_given = true;
            break;
        case OPT_LIKE:
            like = optarg;
            break;
        case OPT_ARRIVALS:
            arrivals = optarg;
            break;
        case OPT_SEED:
            if (parse_u64(optarg, &o.seed) < 0)
                return usage_error(cmd, "bad --seed '%s': expected an integer "
                                   "in 0..2^64-1", optarg);
            break;
        case OPT_GPUS:
            o.gpus = optarg;
            classic = "--gpus";
            break;
        case OPT_DURATION:
            o.duration = optarg;
            classic = "--duration";
            break;
        case OPT_MAXDUR:
            if (sim_parse_double(optarg, &d) < 0 || (d != 0 && d < 1))
                return usage_error(cmd, "bad --max-duration '%s': expected "
                                   "seconds >= 1 (or 0 for none)", optarg);
            o.max_duration_s = d;
            classic = "--max-duration";
            break;
        case OPT_SLACK:
            if ((st = parse_slack(cmd, optarg, &o.deadline_lo,
                                  &o.deadline_hi)))
                return st;
            classic = "--deadline-slack";
            break;
        case OPT_FRAC:
            if (sim_parse_double(optarg, &d) < 0 || d < 0 || d > 1)
                return usage_error(cmd, "bad --deadline-frac '%s': expected "
                                   "a number in 0..1", optarg);
            o.deadline_frac = d;
            classic = "--deadline-frac";
            break;
        case OPT_MODELS:
            o.models = optarg;
            break;
        default:
            return opt_other(cmd, gen_usage, argv, ch);
        }
    }
    if (optind < argc)
        return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!out)
        return usage_error(cmd, "%s", "missing -o OUT.csv[.gz]");
    if (like && classic)
        return usage_error(cmd, "%s does not apply with --like (the "
                           "workload file gives it)", classic);
    if (!like && arrivals)
        return usage_error(cmd, "%s", "--arrivals needs --like");
    if (like && cluster_path && !load_given)
        return usage_error(cmd, "%s", "with --like, --cluster only serves "
                           "--load: give --load X too");
    if (like)
        return gen_like(like, arrivals, &o, jobs_given, load_given,
                        cluster_path, out);

    char *zoo;
    if ((st = zoo_models(cmd, &o.models, &zoo)))
        return st;
    struct cluster c;
    st = load_cluster(cluster_path, &c);
    if (st) {
        free(zoo);
        return st;
    }
    struct trace t;
    struct dl_error err;
    int r = trc_generate(&o, &c, &t, &err);
    free(zoo);
    if (r) {
        if (!err.file[0])
            fprintf(stderr, "dlsim trace gen: ");
        dl_error_print(&err, stderr);
        clu_free(&c);
        return dl_exit_status(r);
    }
    r = trc_write(&t, out, &err);
    if (r) {
        dl_error_print(&err, stderr);
    } else {
        char span[32];
        sim_fmt_seconds(span, sizeof span,
                        t.jobs[t.njobs - 1].submit - t.jobs[0].submit);
        double load = trc_offered_load(&t, &c);
        char lb[32];
        snprintf(lb, sizeof lb, isnan(load) ? "n/a" : "%.4f", load);
        fprintf(stderr, "dlsim trace gen: wrote %u jobs to %s: span %s s, "
                "offered load %s on %s (target %g)\n", t.njobs, out, span, lb,
                c.name ? c.name : "?", o.load);
    }
    trc_free(&t);
    clu_free(&c);
    return dl_exit_status(r);
}

static int stats_with(int argc, char **argv, struct mdl_spec *spec)
{
    static const struct option longopts[] = {
        {"cluster", required_argument, NULL, OPT_CLUSTER},
        {"models", required_argument, NULL, OPT_RUNMODELS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char shortopts[] = ":h";
    const char *cmd = "stats", *cluster_path = NULL;
    opt_reset();
    int ch, st;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (ch) {
        case OPT_CLUSTER:
            cluster_path = optarg;
            break;
        case OPT_RUNMODELS:
            if ((st = add_models(spec, optarg)))
                return st;
            break;
        default:
            return opt_other(cmd, stats_usage, argv, ch);
        }
    }
    if ((st = one_operand(cmd, argc, argv, "missing the trace file")))
        return st;
    const char *path = argv[optind];

    struct trace t;
    if ((st = load_trace(path, &t)))
        return st;
    struct cluster c;
    if ((st = load_cluster(cluster_path, &c))) {
        trc_free(&t);
        return st;
    }
    double *caps = models_caps(spec, &t, &c, &st);
    if (!st) {
        trc_print_stats(&t, &c, caps, stdout);
        if (!cluster_path)
            printf("(offered load against the built-in cluster; use "
                   "--cluster for yours)\n");
    }
    free(caps);
    trc_free(&t);
    clu_free(&c);
    return st;
}

int cli_trace_stats(int argc, char **argv)
{
    struct mdl_spec spec;
    mdl_spec_init(&spec);
    int st = stats_with(argc, argv, &spec);
    mdl_spec_free(&spec);
    return st;
}

/* Appends " NAME filled F kept K" (", " after the first; replaced instead
 * of kept with --overwrite; cleared when some were) for one field. */
static void print_count(const char *name, const struct trc_annot_count *c,
                        bool overwrite, bool *first)
{
    if (!c->asked)
        return;
    fprintf(stderr, "%s%s filled %u", *first ? " " : ", ", name, c->filled);
    if (overwrite)
        fprintf(stderr, " replaced %u", c->replaced);
    else
        fprintf(stderr, " kept %u", c->kept);
    if (c->cleared)
        fprintf(stderr, " cleared %u", c->cleared);
    *first = false;
}

int cli_trace_annotate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"deadline-slack", required_argument, NULL, OPT_SLACK},
        {"deadline-frac", required_argument, NULL, OPT_FRAC},
        {"models", required_argument, NULL, OPT_MODELS},
        {"util", required_argument, NULL, OPT_UTIL},
        {"mem", required_argument, NULL, OPT_MEM},
        {"vc", required_argument, NULL, OPT_VC},
        {"user", required_argument, NULL, OPT_USER},
        {"overwrite", no_argument, NULL, OPT_OVERWRITE},
        {"seed", required_argument, NULL, OPT_SEED},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char shortopts[] = ":o:h";
    const char *cmd = "annotate", *out = NULL;
    bool frac_given = false;
    struct trc_annot_opts o;
    trc_annot_defaults(&o);
    opt_reset();
    int ch, st;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        double d;
        switch (ch) {
        case 'o':
            out = optarg;
            break;
        case OPT_SLACK:
            if ((st = parse_slack(cmd, optarg, &o.deadline_lo,
                                  &o.deadline_hi)))
                return st;
            break;
        case OPT_FRAC:
            if (sim_parse_double(optarg, &d) < 0 || d < 0 || d > 1)
                return usage_error(cmd, "bad --deadline-frac '%s': expected "
                                   "a number in 0..1", optarg);
            o.deadline_frac = d;
            frac_given = true;
            break;
        case OPT_MODELS:
            o.models = optarg;
            break;
        case OPT_UTIL:
            o.util = optarg;
            break;
        case OPT_MEM:
            o.mem = optarg;
            break;
        case OPT_VC:
            o.vc = optarg;
            break;
        case OPT_USER:
            o.user = optarg;
            break;
        case OPT_OVERWRITE:
            o.overwrite = true;
            break;
        case OPT_SEED:
            if (parse_u64(optarg, &o.seed) < 0)
                return usage_error(cmd, "bad --seed '%s': expected an integer "
                                   "in 0..2^64-1", optarg);
            break;
        default:
            return opt_other(cmd, annotate_usage, argv, ch);
        }
    }
    if ((st = one_operand(cmd, argc, argv, "missing the input trace IN")))
        return st;
    if (!out)
        return usage_error(cmd, "%s", "missing -o OUT.csv[.gz]");
    if (!o.deadline_lo && !o.models && !o.util && !o.mem && !o.vc && !o.user)
        return usage_error(cmd, "%s", "nothing to annotate: give "
                           "--deadline-slack, --models, --util, --mem, --vc "
                           "or --user");
    if (frac_given && !o.deadline_lo)
        return usage_error(cmd, "%s", "--deadline-frac needs "
                           "--deadline-slack");
    char *zoo;
    if ((st = zoo_models(cmd, &o.models, &zoo)))
        return st;
    struct dl_error err;
    int r = trc_annot_check(&o, &err);
    if (r) {
        fprintf(stderr, "dlsim trace annotate: ");
        dl_error_print(&err, stderr);
        free(zoo);
        return dl_exit_status(r);
    }

    const char *in = argv[optind];
    struct trace t;
    if ((st = load_trace(in, &t))) {
        free(zoo);
        return st;
    }
    struct trc_annot_stats sts;
    r = trc_annotate(&o, &t, &sts, &err);
    free(zoo);
    DL_ASSERT(r == 0);          /* the options were checked above */
    r = trc_write(&t, out, &err);
    if (r) {
        dl_error_print(&err, stderr);
    } else {
        fprintf(stderr, "dlsim trace annotate: wrote %u jobs to %s:", t.njobs,
                out);
        bool first = true;
        for (int k = 0; k < TRC_NANNOT; k++)
            print_count(trc_annot_name[k], &sts.f[k], o.overwrite, &first);
        fputc('\n', stderr);
    }
    trc_free(&t);
    return dl_exit_status(r);
}

/* ------------------------------------------------------ trace gen --like */

static int gen_like(const char *like, const char *arrivals,
                    const struct trc_gen_opts *o, bool jobs_given,
                    bool load_given, const char *cluster_path,
                    const char *out)
{
    const char *cmd = "gen";
    struct trc_like_opts lo = {
        .njobs = jobs_given ? o->njobs : 0, .seed = o->seed,
        .arrivals = TRC_ARR_REPLAY, .models = NULL,
    };
    if (!arrivals || !strcmp(arrivals, "replay"))
        lo.arrivals = TRC_ARR_REPLAY;
    else if (!strcmp(arrivals, "poisson"))
        lo.arrivals = TRC_ARR_POISSON;
    else if (!strcmp(arrivals, "diurnal"))
        lo.arrivals = TRC_ARR_DIURNAL;
    else
        return usage_error(cmd, "bad --arrivals '%s': expected replay, "
                           "poisson or diurnal", arrivals);
    char *zoo = NULL;
    if (o->models && !strcmp(o->models, "zoo")) {
        if (!(zoo = zoo_names("gen")))
            return 2;
        lo.models = zoo;
    } else if (o->models && !strcmp(o->models, "none")) {
        lo.models = "";
    } else if (o->models && strcmp(o->models, "like")) {
        lo.models = o->models;
    }
    struct trc_workload w;
    struct dl_error err;
    int r = trc_wl_load(like, &w, &err);
    if (r) {
        dl_error_print(&err, stderr);
        free(zoo);
        return dl_exit_status(r);
    }
    struct cluster c;
    int st = load_given ? load_cluster(cluster_path, &c) : 0;
    if (st) {
        trc_wl_free(&w);
        free(zoo);
        return st;
    }
    struct trace t;
    double k = 1;
    r = trc_generate_like(&lo, &w, &t, &err);
    if (!r && load_given && (r = trc_scale_load(&t, &c, o->load, &k, &err)))
        trc_free(&t);
    if (r) {
        if (!err.file[0])
            fprintf(stderr, "dlsim trace gen: %s: ", like);
        dl_error_print(&err, stderr);
    } else if (!(r = trc_write(&t, out, &err))) {
        char span[32];
        sim_fmt_seconds(span, sizeof span,
                        t.jobs[t.njobs - 1].submit - t.jobs[0].submit);
        static const char *const an[] = {"replay", "poisson", "diurnal"};
        fprintf(stderr, "dlsim trace gen: wrote %u jobs like %s (%s arrivals) "
                "to %s: span %s s", t.njobs, like, an[lo.arrivals], out, span);
        if (load_given)
            fprintf(stderr, ", gaps x %.6g for offered load %.4f on %s", k,
                    trc_offered_load(&t, &c), c.name ? c.name : "?");
        fputc('\n', stderr);
        trc_free(&t);
    } else {
        dl_error_print(&err, stderr);
        trc_free(&t);
    }
    if (load_given)
        clu_free(&c);
    trc_wl_free(&w);
    free(zoo);
    return dl_exit_status(r);
}

/* -------------------------------------------------------------- trace fit */

static const char fit_usage[] =
    "usage: dlsim trace fit TRACE -o WORKLOAD.yaml\n"
    "\n"
    "Fits a workload description to a native trace (plain or gzip CSV) and\n"
    "writes it as YAML (kind: workload; format in traces/WORKLOAD.md), for\n"
    "dlsim trace gen --like.  It holds: the source's path, size and CRC-32;\n"
    "the number of jobs, first submit and span; the exact job count per GPU\n"
    "count; per class of GPU counts (ascending counts pooled until a class\n"
    "has 100 jobs; a last class under 25 jobs joins the one before) an\n"
    "empirical quantile table of durations (up to 1001 values)\n"
    "and, for information, a fitted lognormal with its KS distance; the\n"
    "quantile table of inter-arrival gaps; when the span covers a day (14\n"
    "days), the relative arrival rate per hour of day (day of week) of the\n"
    "trace clock; the model and gpu_type mixes; the share of jobs with a\n"
    "deadline and the table of slack = (deadline - submit) / duration; util\n"
    "and mem_gb tables.  The same trace gives the same file, byte for byte.\n"
    "\n"
    "options:\n"
    "  -o, --output W.yaml   the workload file (written atomically)\n"
    "  -h, --help            this text\n"
    "\n"
    "Exit status: 0; 2 for a malformed trace or one of fewer than 2 jobs; 1\n"
    "when a file cannot be read or written.\n";

int cli_trace_fit(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "fit", *out = NULL;
    opt_reset();
    int ch, st;
    while ((ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            out = optarg;
            break;
        default:
            return opt_other(cmd, fit_usage, argv, ch);
        }
    }
    if ((st = one_operand(cmd, argc, argv, "missing the trace file")))
        return st;
    if (!out)
        return usage_error(cmd, "%s", "missing -o WORKLOAD.yaml");
    const char *path = argv[optind];
    if (!strcmp(path, "-"))
        return usage_error(cmd, "%s", "the trace must be a file (its size "
                           "and CRC-32 are recorded)");
    struct trace t;
    if ((st = load_trace(path, &t)))
        return st;
    struct dl_error err;
    int r;
    struct trc_workload w;
    if (!(r = trc_wl_fit(&t, &w, &err)) &&
        !(r = dl_file_crc32(path, &w.source_bytes, &w.source_crc32, &err)))
        r = trc_wl_write(&w, out, &err);
    if (r) {
        dl_error_print(&err, stderr);
    } else {
        printf("fitted %u jobs of %s (span %.0f s) to %s:\n", w.njobs, path,
               w.span_s, out);
        printf("  %u GPU count%s in %u duration class%s\n", w.ngpu,
               DL_PLURAL(w.ngpu), w.nclass, w.nclass == 1 ? "" : "es");
        for (uint32_t c = 0; c < w.nclass; c++) {
            const struct trc_wl_class *cl = &w.cls[c];
            printf("    gpus %u", cl->gpus[0]);
            if (cl->ngpus > 1)
                printf("..%u", cl->gpus[cl->ngpus - 1]);
            printf(": %u jobs, mean %.6g s, lognormal mu %.4g sigma %.4g "
                   "(KS %.4f)\n", cl->jobs, cl->mean_s, cl->ln_mu,
                   cl->ln_sigma, cl->ln_ks);
        }
        printf("  gaps: mean %.6g s, %.2f%% zero; diurnal profile: %s\n",
               w.gap_mean_s, 100 * w.gap_zero_frac,
               w.weekly ? "hourly and weekly" : w.diurnal ? "hourly"
               : "none (span under a day)");
        printf("  models %u, gpu types %u; with deadline %u, util %u, mem_gb "
               "%u jobs\n", w.models.n, w.gpu_types.n, w.deadline_jobs,
               w.util_jobs, w.mem_jobs);
    }
    trc_wl_free(&w);
    trc_free(&t);
    return dl_exit_status(r);
}

/* ---------------------------------------------------------- trace compare */

static const char compare_usage[] =
    "usage: dlsim trace compare A B [--cluster C.yaml]\n"
    "\n"
    "How alike two native traces are: for each, the jobs, span, reference\n"
    "GPU-hours and offered load on the cluster; between them, the two-sample\n"
    "Kolmogorov-Smirnov statistic D = sup |F_A - F_B| of the durations and of\n"
    "the inter-arrival gaps, with its asymptotic p-value Q(D sqrt(nm/(n+m)))\n"
    "(Q: the Kolmogorov distribution's survival function) and the critical D\n"
    "at the 1% level, 1.628 sqrt((n+m)/(nm)); and for the GPU counts the total\n"
    "variation distance 1/2 sum |p_A - p_B| and the largest |p_A - p_B| of the\n"
    "shares of jobs per GPU count.  p-values assume continuous samples: with\n"
    "many ties (whole seconds, batch arrivals) they are conservative.\n"
    "\n"
    "options:\n"
    "  --cluster C.yaml      cluster for the offered load (default: the built-in\n"
    "                        demo-256 cluster)\n"
    "  -h, --help            this text\n";

static double gpu_hours(const struct trace *t)
{
    double s = 0;
    for (uint32_t i = 0; i < t->njobs; i++)
        s += (double)t->jobs[i].num_gpus * (double)t->jobs[i].duration /
             SIM_US_PER_S / 3600;
    return s;
}

int cli_trace_compare(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"cluster", required_argument, NULL, OPT_CLUSTER},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "compare", *cluster_path = NULL;
    opt_reset();
    int ch;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (ch) {
        case OPT_CLUSTER:
            cluster_path = optarg;
            break;
        default:
            return opt_other(cmd, compare_usage, argv, ch);
        }
    }
    if (argc - optind != 2)
        return usage_error(cmd, "%s", "expected two traces A B");
    struct trace t[2];
    struct dl_error err;
    int r = 0, st;
    for (int k = 0; k < 2; k++)
        if ((st = load_trace(argv[optind + k], &t[k]))) {
            if (k)
                trc_free(&t[0]);
            return st;
        }
    struct cluster c;
    if ((st = load_cluster(cluster_path, &c))) {
        trc_free(&t[0]);
        trc_free(&t[1]);
        return st;
    }
    struct trc_cmp cmp;
    if ((r = trc_compare(&t[0], &t[1], &cmp, &err))) {
        dl_error_print(&err, stderr);
    } else {
        printf("%-24s %16s %16s\n", "", "A", "B");
        printf("%-24s %16u %16u\n", "jobs", t[0].njobs, t[1].njobs);
        double span[2], load[2];
        for (int k = 0; k < 2; k++) {
            span[k] = (double)(t[k].jobs[t[k].njobs - 1].submit -
                               t[k].jobs[0].submit) / SIM_US_PER_S;
            load[k] = trc_offered_load(&t[k], &c);
        }
        printf("%-24s %16.6g %16.6g\n", "span_s", span[0], span[1]);
        printf("%-24s %16.6g %16.6g\n", "gpu_hours", gpu_hours(&t[0]),
               gpu_hours(&t[1]));
        printf("%-24s %16.4f %16.4f\n", "offered_load", load[0], load[1]);
        printf("(A = %s, B = %s; offered load on %s)\n\n", argv[optind],
               argv[optind + 1], c.name ? c.name : "?");
        printf("%-24s %10s %10s %12s\n", "two-sample KS", "D", "p", "D_crit(1%)");
        printf("%-24s %10.5f %10.4g %12.5f\n", "durations", cmp.ks_dur,
               cmp.p_dur, cmp.crit_dur);
        printf("%-24s %10.5f %10.4g %12.5f\n", "inter-arrival gaps",
               cmp.ks_gap, cmp.p_gap, cmp.crit_gap);
        printf("\n%-24s %10.5f\n%-24s %10.5f\n", "GPU counts: TV distance",
               cmp.tv_gpus, "GPU counts: max |dp|", cmp.maxdiff_gpus);
    }
    clu_free(&c);
    trc_free(&t[0]);
    trc_free(&t[1]);
    return dl_exit_status(r);
}

/* ------------------------------------------------------------ trace scale */

static const char scale_usage[] =
    "usage: dlsim trace scale IN --load X [--cluster C.yaml] [--models M]...\n"
    "                         -o OUT[.gz]\n"
    "\n"
    "Writes a copy of a native trace whose offered load on the cluster is X:\n"
    "every gap between submit times (from the first, which stays) is\n"
    "multiplied by one factor k = (offered load now) / X, times rounded to the\n"
    "microsecond; every job's size, order and deadline slack are kept (a\n"
    "deadline moves with its submit).  The same rescaling as dlsim run --load,\n"
    "materialized.  Offered load = reference GPU-seconds / (capacity x span),\n"
    "as dlsim trace stats prints it; with --models, each job's work at its\n"
    "own speeds under those models (as dlsim run --models M --load X).\n"
    "\n"
    "options:\n"
    "  --load X              target offered load, > 0 (required)\n"
    "  --cluster C.yaml      the cluster (default: the built-in demo-256)\n"
    "  --models M            performance models the load is measured under\n"
    "  -o, --output OUT      output file; gzip-compressed when it ends in .gz\n"
    "  -h, --help            this text\n";

static int scale_with(int argc, char **argv, struct mdl_spec *spec)
{
    static const struct option longopts[] = {
        {"load", required_argument, NULL, OPT_LOAD},
        {"cluster", required_argument, NULL, OPT_CLUSTER},
        {"models", required_argument, NULL, OPT_RUNMODELS},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "scale", *cluster_path = NULL, *out = NULL;
    double load = 0;
    opt_reset();
    int ch, st;
    while ((ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            out = optarg;
            break;
        case OPT_CLUSTER:
            cluster_path = optarg;
            break;
        case OPT_RUNMODELS:
            if ((st = add_models(spec, optarg)))
                return st;
            break;
        case OPT_LOAD:
            if (sim_parse_double(optarg, &load) < 0 || !(load > 0) ||
                !isfinite(load))
                return usage_error(cmd, "bad --load '%s': expected a number "
                                   "> 0", optarg);
            break;
        default:
            return opt_other(cmd, scale_usage, argv, ch);
        }
    }
    if ((st = one_operand(cmd, argc, argv, "missing the input trace IN")))
        return st;
    if (!(load > 0))
        return usage_error(cmd, "%s", "missing --load X");
    if (!out)
        return usage_error(cmd, "%s", "missing -o OUT.csv[.gz]");
    struct trace t;
    if ((st = load_trace(argv[optind], &t)))
        return st;
    struct cluster c;
    if ((st = load_cluster(cluster_path, &c))) {
        trc_free(&t);
        return st;
    }
    struct dl_error err;
    int r;
    double *caps = models_caps(spec, &t, &c, &st);
    if (st) {
        trc_free(&t);
        clu_free(&c);
        return st;
    }
    double before = trc_offered_load_caps(&t, &c, caps), k = 1;
    if (!(r = trc_scale_load_caps(&t, &c, caps, load, &k, &err)) &&
        !(r = trc_write(&t, out, &err)))
        fprintf(stderr, "dlsim trace scale: wrote %u jobs to %s: gaps x %.6g, "
                "offered load %.4f -> %.6f on %s%s\n", t.njobs, out, k, before,
                trc_offered_load_caps(&t, &c, caps), c.name ? c.name : "?",
                caps ? " under the models" : "");
    free(caps);
    if (r)
        dl_error_print(&err, stderr);
    clu_free(&c);
    trc_free(&t);
    return dl_exit_status(r);
}

int cli_trace_scale(int argc, char **argv)
{
    struct mdl_spec spec;
    mdl_spec_init(&spec);
    int st = scale_with(argc, argv, &spec);
    mdl_spec_free(&spec);
    return st;
}
