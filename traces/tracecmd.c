/*
 * traces/tracecmd.c - the `dlsim trace gen`, `dlsim trace stats` and
 * `dlsim trace annotate` command lines (trc_cmd_gen, trc_cmd_stats,
 * trc_cmd_annotate).
 *
 * Owns only what one command uses: the cluster (from --cluster, or the
 * built-in demo cluster) and the trace, both freed before returning.
 * Each entry point takes argv with argv[0] = the subcommand name, parses
 * it with getopt_long (reset on every call, so tests may call it many
 * times) and returns the process exit status of SPEC section 1: 0, 2 for
 * bad usage or bad input (a located message on stderr), 1 for I/O.
 */
#include "traces/trace.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char gen_usage[] =
    "usage: dlsim trace gen [options] -o OUT.csv[.gz]\n"
    "\n"
    "Generates a synthetic, seeded workload in the native trace format.\n"
    "Jobs arrive as a Poisson process whose rate makes the offered load on\n"
    "the cluster equal --load: rate = load * capacity / E[gpus * duration],\n"
    "capacity = sum of GPUs x speed.  The same options and seed give the same\n"
    "trace.\n"
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
    "                        (default: no model column)\n"
    "  -o, --output OUT      output file; gzip-compressed when it ends in .gz\n"
    "  -h, --help            this text\n";

static const char stats_usage[] =
    "usage: dlsim trace stats TRACE [--cluster C.yaml]\n"
    "\n"
    "Prints a trace's jobs, span, GPU-count table, duration percentiles\n"
    "(nearest rank), total GPU-hours, how many jobs carry each optional\n"
    "column, and the offered load (GPU-seconds / (capacity x span)) against a\n"
    "cluster.  TRACE may be plain or gzip CSV, or - for standard input.\n"
    "\n"
    "options:\n"
    "  --cluster C.yaml      cluster for the offered load (default: the built-in\n"
    "                        demo-256 cluster)\n"
    "  -h, --help            this text\n";

static const char annotate_usage[] =
    "usage: dlsim trace annotate IN -o OUT[.gz] [options]\n"
    "\n"
    "Attaches deadlines, model names, solo GPU utilization and GPU memory to\n"
    "the jobs of a native trace (IN: plain or gzip CSV, or - for standard\n"
    "input), seeded: the same trace, options and seed give the same output.\n"
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
    "options (at least one of the first four):\n"
    "  --deadline-slack LO[:HI]\n"
    "                        deadline = submit + slack * duration (duration: run\n"
    "                        time alone on the reference GPUs), slack uniform in\n"
    "                        [LO, HI], 0 < LO <= HI <= 1000 (HI defaults to LO)\n"
    "  --deadline-frac F     fraction of jobs that get a deadline, 0..1 (default\n"
    "                        1); needs --deadline-slack.  With --overwrite, a job\n"
    "                        left out loses any deadline it had.\n"
    "  --models a,b,c        a model name per job, uniformly from the list; or\n"
    "                        a:W,b:W,... with relative weights W >= 0 (names as\n"
    "                        the model zoo spells them, e.g. resnet50@64)\n"
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
    fprintf(stderr, "\n(see dlsim trace %s --help)\n", cmd);
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
    unsigned long long v = strtoull(s, &end, 0);
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
       OPT_MEM, OPT_OVERWRITE };

int trc_cmd_gen(int argc, char **argv)
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
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char shortopts[] = ":o:h";
    const char *cmd = "gen", *cluster_path = NULL, *out = NULL;
    struct trc_gen_opts o;
    trc_gen_defaults(&o);
    optind = 0;                 /* full reset (GNU): callable repeatedly */
    opterr = 0;
    int ch, st;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        long l;
        double d;
        switch (ch) {
        case 'h':
            fputs(gen_usage, stdout);
            return 0;
        case 'o':
            out = optarg;
            break;
        case OPT_CLUSTER:
            cluster_path = optarg;
            break;
        case OPT_JOBS:
            if (sim_parse_long(optarg, &l) < 0 || l < 1 ||
                l >= (long)SIM_NONE - 1)
                return usage_error(cmd, "bad --jobs '%s': expected an "
                                   "integer >= 1", optarg);
            o.njobs = (uint32_t)l;
            break;
        case OPT_LOAD:
            if (sim_parse_double(optarg, &d) < 0 || !(d > 0))
                return usage_error(cmd, "bad --load '%s': expected a number "
                                   "> 0", optarg);
            o.load = d;
            break;
        case OPT_SEED:
            if (parse_u64(optarg, &o.seed) < 0)
                return usage_error(cmd, "bad --seed '%s': expected an integer "
                                   "in 0..2^64-1", optarg);
            break;
        case OPT_GPUS:
            o.gpus = optarg;
            break;
        case OPT_DURATION:
            o.duration = optarg;
            break;
        case OPT_MAXDUR:
            if (sim_parse_double(optarg, &d) < 0 || (d != 0 && d < 1))
                return usage_error(cmd, "bad --max-duration '%s': expected "
                                   "seconds >= 1 (or 0 for none)", optarg);
            o.max_duration_s = d;
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
            break;
        case OPT_MODELS:
            o.models = optarg;
            break;
        default:
            return getopt_error(cmd, argv, ch);
        }
    }
    if (optind < argc)
        return usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!out)
        return usage_error(cmd, "%s", "missing -o OUT.csv[.gz]");

    struct cluster c;
    st = load_cluster(cluster_path, &c);
    if (st)
        return st;
    struct trace t;
    struct dl_error err;
    int r = trc_generate(&o, &c, &t, &err);
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
        printf("wrote %u jobs to %s: span %s s, offered load %s on %s "
               "(target %g)\n", t.njobs, out, span, lb,
               c.name ? c.name : "?", o.load);
    }
    trc_free(&t);
    clu_free(&c);
    return dl_exit_status(r);
}

int trc_cmd_stats(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"cluster", required_argument, NULL, OPT_CLUSTER},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char shortopts[] = ":h";
    const char *cmd = "stats", *cluster_path = NULL;
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (ch) {
        case 'h':
            fputs(stats_usage, stdout);
            return 0;
        case OPT_CLUSTER:
            cluster_path = optarg;
            break;
        default:
            return getopt_error(cmd, argv, ch);
        }
    }
    if (optind >= argc)
        return usage_error(cmd, "%s", "missing the trace file");
    if (optind + 1 < argc)
        return usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    const char *path = argv[optind];

    struct trace t;
    struct dl_error err;
    int r = trc_load(path, &t, &err, stderr);
    if (r) {
        dl_error_print(&err, stderr);
        return dl_exit_status(r);
    }
    struct cluster c;
    int st = load_cluster(cluster_path, &c);
    if (st) {
        trc_free(&t);
        return st;
    }
    trc_print_stats(&t, &c, stdout);
    if (!cluster_path)
        printf("(offered load against the built-in cluster; use --cluster "
               "for yours)\n");
    trc_free(&t);
    clu_free(&c);
    return 0;
}

/* Appends " NAME filled F kept K" (", " after the first; replaced instead
 * of kept with --overwrite; cleared when some were) for one field. */
static void print_count(const char *name, const struct trc_annot_count *c,
                        bool overwrite, bool *first)
{
    if (!c->asked)
        return;
    printf("%s%s filled %u", *first ? " " : ", ", name, c->filled);
    if (overwrite)
        printf(" replaced %u", c->replaced);
    else
        printf(" kept %u", c->kept);
    if (c->cleared)
        printf(" cleared %u", c->cleared);
    *first = false;
}

int trc_cmd_annotate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"deadline-slack", required_argument, NULL, OPT_SLACK},
        {"deadline-frac", required_argument, NULL, OPT_FRAC},
        {"models", required_argument, NULL, OPT_MODELS},
        {"util", required_argument, NULL, OPT_UTIL},
        {"mem", required_argument, NULL, OPT_MEM},
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
    optind = 0;
    opterr = 0;
    int ch, st;
    while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        double d;
        switch (ch) {
        case 'h':
            fputs(annotate_usage, stdout);
            return 0;
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
        case OPT_OVERWRITE:
            o.overwrite = true;
            break;
        case OPT_SEED:
            if (parse_u64(optarg, &o.seed) < 0)
                return usage_error(cmd, "bad --seed '%s': expected an integer "
                                   "in 0..2^64-1", optarg);
            break;
        default:
            return getopt_error(cmd, argv, ch);
        }
    }
    if (optind >= argc)
        return usage_error(cmd, "%s", "missing the input trace IN");
    if (optind + 1 < argc)
        return usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
    if (!out)
        return usage_error(cmd, "%s", "missing -o OUT.csv[.gz]");
    if (!o.deadline_lo && !o.models && !o.util && !o.mem)
        return usage_error(cmd, "%s", "nothing to annotate: give "
                           "--deadline-slack, --models, --util or --mem");
    if (frac_given && !o.deadline_lo)
        return usage_error(cmd, "%s", "--deadline-frac needs "
                           "--deadline-slack");
    struct dl_error err;
    int r = trc_annot_check(&o, &err);
    if (r) {
        fprintf(stderr, "dlsim trace annotate: ");
        dl_error_print(&err, stderr);
        return dl_exit_status(r);
    }

    const char *in = argv[optind];
    struct trace t;
    r = trc_load(in, &t, &err, stderr);
    if (r) {
        dl_error_print(&err, stderr);
        return dl_exit_status(r);
    }
    struct trc_annot_stats sts;
    r = trc_annotate(&o, &t, &sts, &err);
    DL_ASSERT(r == 0);          /* the options were checked above */
    r = trc_write(&t, out, &err);
    if (r) {
        dl_error_print(&err, stderr);
    } else {
        printf("wrote %u jobs to %s:", t.njobs, out);
        bool first = true;
        for (int k = 0; k < TRC_NANNOT; k++)
            print_count(trc_annot_name[k], &sts.f[k], o.overwrite, &first);
        putchar('\n');
    }
    trc_free(&t);
    return dl_exit_status(r);
}
