/*
 * traces/tracecmd.c - the `dlsim trace gen` and `dlsim trace stats`
 * command lines (trc_cmd_gen, trc_cmd_stats).
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

enum { OPT_CLUSTER = 256, OPT_JOBS, OPT_LOAD, OPT_SEED, OPT_GPUS,
       OPT_DURATION, OPT_MAXDUR, OPT_SLACK, OPT_FRAC, OPT_MODELS };

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
    int ch;
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
        case OPT_SLACK: {
            char buf[64];
            snprintf(buf, sizeof buf, "%s", optarg);
            char *colon = strchr(buf, ':');
            if (colon)
                *colon = '\0';
            if (strlen(optarg) >= sizeof buf ||
                sim_parse_double(buf, &o.deadline_lo) < 0 ||
                !(o.deadline_lo > 0) ||
                (colon && sim_parse_double(colon + 1, &o.deadline_hi) < 0))
                return usage_error(cmd, "bad --deadline-slack '%s': expected "
                                   "LO or LO:HI with 0 < LO <= HI", optarg);
            if (!colon)
                o.deadline_hi = o.deadline_lo;
            if (!(o.deadline_hi >= o.deadline_lo))
                return usage_error(cmd, "bad --deadline-slack '%s': HI is "
                                   "below LO", optarg);
            break;
        }
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
    int st = load_cluster(cluster_path, &c);
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
