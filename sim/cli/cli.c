/*
 * sim/cli/cli.c - the `dlsim` command line (the top layer): the command
 * table, `run`, `demo` and `policies`.  The other commands parse their
 * argv in sim/cli/ too (trace.c, import.c, sweep.c, report.c, fit.c) and
 * call the layers below with option structs; only this layer reads argv
 * and turns DL_ codes into exit statuses.
 *
 * Exit status (SPEC 1): 0 success; 1 the run failed (I/O, invariant);
 * 2 bad usage or bad input, with the message naming file:line[:col].
 * All inputs are read and checked before any output is created, so a bad
 * input never leaves an output directory behind.
 */
#include "sim/cli/cli.h"
#include "policies/policy.h"
#include "sim/api/api.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef DLSIM_VERSION
#define DLSIM_VERSION "unknown"
#endif

int cli_usage(const char *cmd, const char *msg)
{
    fprintf(stderr, "dlsim %s: %s (see dlsim %s --help)\n", cmd, msg, cmd);
    return 2;
}
#define usage_error cli_usage

static int report(const struct dl_error *err, int code)
{
    dl_error_print(err, stderr);
    return dl_exit_status(code);
}

/* Runs one simulation, prints its table row (after the header when
 * header is set), writes outputs if dir.  Under --strict (o->diag->strict)
 * a warning of the models (before the run) or of the run (a rejected job)
 * stops it with exit status 2 and nothing written. */
/* Runs one simulation (sim_run), prints its table row (after the header
 * when header is set), writes outputs if dir.  The exit status: 2 bad
 * input (a policy option, a --strict warning: nothing written), 1 a
 * failed run or output. */
static int run_one(const struct trace *t, struct cluster *c,
                   const struct eng_opts *o, const struct out_prov *pv,
                   const char *dir, FILE *table, bool header,
                   struct met_summary *sum, struct sim_result *res)
{
    struct dl_error err = { 0 };
    struct eng_opts oo = *o;
    struct pol_args args;
    if (!oo.pol) {
        if (pol_parse(o->policy, &oo.pol, &args, &err))
            return report(&err, DL_EINPUT);
        oo.args = &args;
    }
    struct sim_result r;
    int rc = sim_run(t, c, &oo, pv, dir, &r, &err);
    if (rc == DL_ECHECK) {
        fprintf(stderr, "dlsim: %s\n", err.msg);
        return 1;
    }
    if (rc)
        return report(&err, rc);
    if (table && header)
        out_table_header(table);
    if (table)
        out_table_row(table, o->policy, &r.m);
    if (sum)
        *sum = r.m;
    if (res)
        *res = r;
    return 0;
}

static const char run_help[] =
    "usage: dlsim run --trace T [--cluster C.yaml] [--policy P] [--models M]...\n"
    "                 [--load X] [--out DIR] [--seed N] [--sample SECONDS]\n"
    "                 [--check] [--strict] [--quiet] [--timing]\n"
    "\n"
    "Replays trace T (native CSV, plain or gzip) over cluster C under policy P\n"
    "and prints a summary; with --out, writes DIR/jobs.csv, DIR/timeseries.csv\n"
    "and DIR/summary.json (SPEC section 4).\n"
    "\n"
    "  --trace T        the workload (required)\n"
    "  --cluster C      cluster YAML (default: the built-in demo-256 cluster)\n"
    "  --policy P       NAME or NAME:key=value,... (default fifo); see\n"
    "                   `dlsim policies`; py:FILE.py:CLASS[:key=value,...] a\n"
    "                   Python policy (runs as /usr/bin/python3 -m dlsim run)\n"
    "  --load X         rescale the arrivals (every gap by one factor, order,\n"
    "                   sizes and deadline slack kept) so that the offered load\n"
    "                   on the cluster is exactly X: each job's work at its own\n"
    "                   speed on each GPU type under --models (without: the\n"
    "                   cluster file's speeds), over capacity x arrival span\n"
    "  --out DIR        output directory (created; files replaced atomically)\n"
    "  --seed N         seed of the run's random streams (default 1; recorded in\n"
    "                   summary.json -- fifo, sjf and srtf draw no random numbers)\n"
    "  --sample S       timeseries interval in seconds (default 300; 0 = none)\n"
    "  --check          verify invariants after every instant; a violation\n"
    "                   fails the run (exit 1)\n"
    "  --models M       performance models (models/MODELS.md): 'zoo' (the\n"
    "                   built-in zoo, runtime model and defaults), or a YAML\n"
    "                   file of kind models, runtime, slowdown or util; may be\n"
    "                   repeated, later files override earlier ones.  Without\n"
    "                   it jobs run at the cluster file's per-type speeds\n"
    "  --strict         every warning is an error (exit 2, nothing written): a\n"
    "                   model the zoo lacks, a trace that names no model under\n"
    "                   --models, a GPU type the zoo lacks, unknown columns, a\n"
    "                   job that can never fit\n"
    "  --quiet          no summary table (and no progress line)\n"
    "  --timing         print the CPU seconds of each phase (reading, setup,\n"
    "                   the engine with its cost per event, metrics and files)\n"
    "                   on stderr; the engine's is its own thread's, and the\n"
    "                   helper threads (gzip input, jobs.csv written during\n"
    "                   the run, the metrics) count in the total; a second\n"
    "                   line gives each phase's wall-clock seconds\n"
    "\n"
    "Stderr names the cluster used (the built-in one as such) and --load's\n"
    "factor, unless --quiet; stdout holds only the table (a header, one row).\n"
    "Warnings go to stderr and into summary.json (warnings, warning_messages),\n"
    "with how the run was made: dlsim_version, command, models, load,\n"
    "offered_load, the CRC-32 of the trace and cluster files.\n"
    "\n"
    "On a terminal, a run that takes over a second shows a progress line on\n"
    "stderr (simulated time against the last arrival, then the drain; events,\n"
    "jobs done, an ETA).\n";

/* `dlsim run --policy py:FILE.py:CLASS[:key=value,...]`: a Python policy
 * (docs/python.md).  The executable embeds no Python and links no
 * libpython: it re-executes the same command line as
 * `/usr/bin/python3 -m dlsim run ARGS` ($DLSIM_PYTHON overrides the
 * interpreter), whose package (python/dlsim) loads libdlsim.so, builds
 * the policy and runs this same command line in its own process with it
 * (dlsim_cli), so the options, checks, outputs and exit statuses are
 * these.  The package and the library are found from this executable:
 * beside it in a build tree (the package from the source tree), else
 * under the install prefix it lies in. */
#ifndef DLSIM_REL_LIBDIR
#define DLSIM_REL_LIBDIR "lib"
#define DLSIM_REL_PYDIR "lib/python3/dist-packages"
#define DLSIM_SOURCE_PYDIR "python"
#endif
static int cli_exec_python(int argc, char **argv)
{
    char exe[4096], lib[8192], pkg[8192];
    if (dl_exe_dir(exe, sizeof exe))            /* its directory */
        return fprintf(stderr, "dlsim run: cannot find this executable "
                       "(/proc/self/exe) to run a Python policy\n"), 1;
    snprintf(lib, sizeof lib, "%s/libdlsim.so", exe);
    if (!access(lib, R_OK)) {                   /* a build tree */
        snprintf(pkg, sizeof pkg, "%s", DLSIM_SOURCE_PYDIR);
    } else {                                    /* PREFIX/BINDIR/dlsim */
        dl_dir_to_prefix(exe);
        snprintf(lib, sizeof lib, "%s/%s/libdlsim.so", exe, DLSIM_REL_LIBDIR);
        snprintf(pkg, sizeof pkg, "%s/%s", exe, DLSIM_REL_PYDIR);
    }
    const char *old = getenv("PYTHONPATH");
    char *path = xmalloc(strlen(pkg) + (old ? strlen(old) : 0) + 2);
    sprintf(path, "%s%s%s", pkg, old && *old ? ":" : "", old ? old : "");
    setenv("PYTHONPATH", path, 1);
    free(path);
    setenv("DLSIM_LIB", lib, 1);
    const char *py = getenv("DLSIM_PYTHON");
    if (!py || !*py)
        py = "/usr/bin/python3";
    char **av = xcalloc((size_t)argc + 4, sizeof *av);
    av[0] = (char *)py;
    av[1] = "-m";
    av[2] = "dlsim";
    for (int i = 0; i < argc; i++)
        av[3 + i] = argv[i];
    fflush(NULL);
    execv(py, av);
    fprintf(stderr, "dlsim run: --policy py:...: cannot run %s: %s\n", py,
            strerror(errno));
    free(av);
    return 1;
}

static int load_cluster(const char *path, struct cluster *c)
{
    struct dl_error err = { 0 };
    if (!path) {
        clu_builtin_demo(c);
        return 0;
    }
    int rc = cfg_load_cluster(path, c, &err);
    return rc ? report(&err, rc) : 0;
}

static int cmd_run_with(int argc, char **argv, struct mdl_spec *spec,
                        struct dl_diag *diag)
{
    static const struct option lo[] = {
        { "trace", required_argument, 0, 't' },
        { "cluster", required_argument, 0, 'c' },
        { "policy", required_argument, 0, 'p' },
        { "models", required_argument, 0, 'm' },
        { "load", required_argument, 0, 'L' },
        { "out", required_argument, 0, 'o' },
        { "seed", required_argument, 0, 's' },
        { "sample", required_argument, 0, 'S' },
        { "check", no_argument, 0, 'k' },
        { "strict", no_argument, 0, 'X' },
        { "quiet", no_argument, 0, 'q' },
        { "timing", no_argument, 0, 'T' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *trace = NULL, *cluster = NULL, *out = NULL;
    struct eng_opts o = { .policy = "fifo", .seed = 1,
                          .sample = 300 * SIM_US_PER_S, .diag = diag };
    double load = 0, c0 = sim_cpu_seconds(), w0 = sim_wall_seconds();
    bool quiet = false, timing = false;
    long seed;
    int ch, rc;
    struct dl_error err = { 0 };
    optind = 0;                 /* full reset (GNU): callable repeatedly */
    while ((ch = getopt_long(argc, argv, "t:c:p:m:L:o:s:S:kqh", lo, NULL)) != -1) {
        switch (ch) {
        case 't': trace = optarg; break;
        case 'c': cluster = optarg; break;
        case 'p': o.policy = optarg; break;
        case 'L':
            if (sim_parse_double(optarg, &load) || !(load > 0) || !isfinite(load))
                return usage_error("run", "--load expects an offered load > 0");
            break;
        case 'm':
            if ((rc = mdl_spec_add(spec, optarg, &err)))
                return report(&err, rc);
            o.models = spec;
            break;
        case 'o': out = optarg; break;
        case 's':
            if (sim_parse_long(optarg, &seed) || seed < 0)
                return usage_error("run", "--seed expects a non-negative integer");
            o.seed = (uint64_t)seed;
            break;
        case 'S':
            if (sim_parse_interval(optarg, &o.sample))
                return usage_error("run", "--sample expects seconds >= 0 "
                                   "(0 = none; at least 1e-6, the clock's "
                                   "resolution)");
            break;
        case 'k': o.check = true; break;
        case 'X': diag->strict = true; break;
        case 'q': quiet = true; break;
        case 'T': timing = true; break;
        case 'h': fputs(run_help, stdout); return 0;
        default: return usage_error("run", "bad option");
        }
    }
    if (optind < argc)
        return usage_error("run", "unexpected argument");
    if (!trace)
        return usage_error("run", "--trace is required");
    if (api_is_foreign(o.policy) && !api_host())
        return cli_exec_python(argc, argv);
    if (!quiet && isatty(2))
        o.progress = stderr;    /* never when not a terminal: scripts and
                                   tests see the same output as before */
    char *command = out_command_line(argc, argv);
    struct api_run r = { .trace = trace, .cluster = cluster, .out = out,
                         .command = command, .load = load, .announce = !quiet,
                         .o = o, .py = api_is_foreign(o.policy) ? api_host()
                                                                : NULL };
    struct sim_result res;
    double k;
    double c1 = 0;
    rc = api_run(&r, &res, &k, &c1, &err);
    free(command);
    if (rc == DL_ECHECK) {
        fprintf(stderr, "dlsim: %s\n", err.msg);
        return 1;
    }
    if (rc)
        return report(&err, rc);
    if (!quiet) {               /* what the performance models did */
        const uint32_t *n = res.m.jobs_src;
        if (o.models)
            fprintf(stderr, "dlsim run: models: %u job%s at measured "
                    "throughputs, %u by the runtime model (roofline), %u at the "
                    "cluster's speeds\n", n[MDL_SRC_MEASURED],
                    DL_PLURAL(n[MDL_SRC_MEASURED]), n[MDL_SRC_ROOFLINE],
                    n[MDL_SRC_DEFAULT]);
        else
            fprintf(stderr, "dlsim run: models: none (no --models): %u job%s "
                    "at the cluster's speeds\n", n[MDL_SRC_DEFAULT],
                    DL_PLURAL(n[MDL_SRC_DEFAULT]));
    }
    if (!quiet) {
        out_table_header(stdout);
        out_table_row(stdout, o.policy, &res.m);
    }
    if (timing) {
        double w = sim_wall_seconds() - w0;
        fprintf(stderr, "dlsim run: CPU seconds: read %.3f, setup %.3f, engine "
                "%.3f (%llu events, %.4f us/event), metrics and files %.3f, "
                "total %.3f\n", c1 - c0, res.cpu_setup, res.cpu_engine,
                (unsigned long long)res.events,
                res.events ? 1e6 * res.cpu_engine / (double)res.events : 0.0,
                res.cpu_write, sim_cpu_seconds() - c0);
        /* the helper threads (gzip, set-up, jobs.csv, metrics) make the
         * CPU seconds above more than the time they take */
        fprintf(stderr, "dlsim run: wall seconds: read and the rest %.3f, "
                "setup %.3f, engine %.3f, metrics and files %.3f, total %.3f\n",
                w - res.wall_setup - res.wall_seconds - res.wall_write,
                res.wall_setup, res.wall_seconds, res.wall_write, w);
    }
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    struct mdl_spec spec;
    struct dl_diag diag;
    mdl_spec_init(&spec);
    dl_diag_init(&diag, stderr, false);
    int rc = cmd_run_with(argc, argv, &spec, &diag);
    dl_diag_free(&diag);
    mdl_spec_free(&spec);
    return rc;
}

static const char demo_help[] =
    "usage: dlsim demo [--jobs N] [--load X] [--seed N] [--cluster C] [--out DIR]\n"
    "\n"
    "The built-in default job: generates a workload that follows the published\n"
    "statistics of Microsoft's Philly cluster (trace gen's defaults) at the\n"
    "given offered load, each job with a deadline (QoS target) of 1.2x to 3x\n"
    "its run time, and compares fifo, fifo:backfill=1, sjf, srtf, edf,\n"
    "tiresias, qos and horus on it (no --models: the cluster's speeds),\n"
    "printing one row of metrics per policy.\n"
    "\n"
    "  --jobs N     jobs to generate (default 10000)\n"
    "  --load X     offered load on the cluster (default 0.95)\n"
    "  --seed N     workload seed (default 1)\n"
    "  --cluster C  cluster YAML (default: built-in demo-256, 24x8 V100 + 16x4 P100)\n"
    "  --out DIR    also write each run's files to DIR/<policy>/\n";

static int cmd_demo(int argc, char **argv)
{
    static const struct option lo[] = {
        { "jobs", required_argument, 0, 'n' },
        { "load", required_argument, 0, 'l' },
        { "seed", required_argument, 0, 's' },
        { "cluster", required_argument, 0, 'c' },
        { "out", required_argument, 0, 'o' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    struct trc_gen_opts g;
    trc_gen_defaults(&g);
    g.njobs = 10000;
    g.load = 0.95;
    g.seed = 1;
    g.deadline_lo = 1.2;        /* QoS targets: 1.2x to 3x the run time */
    g.deadline_hi = 3.0;
    const char *cluster = NULL, *out = NULL;
    long v;
    double d;
    int ch;
    optind = 0;                 /* full reset (GNU): callable repeatedly */
    while ((ch = getopt_long(argc, argv, "n:l:s:c:o:h", lo, NULL)) != -1) {
        switch (ch) {
        case 'n':
            if (sim_parse_long(optarg, &v) || v < 1 || v > 100000000)
                return usage_error("demo", "--jobs expects a positive integer");
            g.njobs = (uint32_t)v;
            break;
        case 'l':
            if (sim_parse_double(optarg, &d) || d <= 0 || d > 100)
                return usage_error("demo", "--load expects a positive number");
            g.load = d;
            break;
        case 's':
            if (sim_parse_long(optarg, &v) || v < 0)
                return usage_error("demo", "--seed expects a non-negative integer");
            g.seed = (uint64_t)v;
            break;
        case 'c': cluster = optarg; break;
        case 'o': out = optarg; break;
        case 'h': fputs(demo_help, stdout); return 0;
        default: return usage_error("demo", "bad option");
        }
    }
    if (optind < argc)
        return usage_error("demo", "unexpected argument");
    struct cluster c;
    int rc = load_cluster(cluster, &c);
    if (rc)
        return rc;
    struct trace t;
    struct dl_error err = { 0 };
    if ((rc = trc_generate(&g, &c, &t, &err))) {
        clu_free(&c);
        return report(&err, rc);
    }
    printf("dlsim demo: %u jobs (Philly-like, seed %llu, deadlines at 1.2-3x "
           "run time) at offered load %.2f on cluster %s (%u GPU%s)\n\n", t.njobs,
           (unsigned long long)g.seed, trc_offered_load(&t, &c), c.name, c.ngpus,
           DL_PLURAL(c.ngpus));
    static const char *const policies[] = { SIM_DEMO_POLICIES };
    char *command = out_command_line(argc, argv);
    simtime_t mk_floor = 0, mk_lo = SIM_NEVER, mk_hi = 0;
    for (size_t i = 0; i < sizeof policies / sizeof *policies && !rc; i++) {
        char dir[4096];
        struct dl_diag diag;
        dl_diag_init(&diag, stderr, false);
        struct eng_opts o = { .policy = policies[i], .seed = g.seed,
                              .sample = 300 * SIM_US_PER_S, .diag = &diag };
        struct out_prov pv = { .command = command, .diag = &diag };
        if (cluster && (rc = out_prov_files(&pv, NULL, cluster, &err))) {
            rc = report(&err, rc);
            dl_diag_free(&diag);
            break;
        }
        if (out) {
            snprintf(dir, sizeof dir, "%s/%s", out, policies[i]);
            for (char *p = dir + strlen(out) + 1; *p; p++)
                if (*p == ':' || *p == ',' || *p == '=')
                    *p = '_';
        }
        struct met_summary m = { 0 };
        rc = run_one(&t, &c, &o, &pv, out ? dir : NULL, stdout, i == 0,
                     &m, NULL);
        dl_diag_free(&diag);
        if (!rc) {
            mk_floor = m.makespan_floor;
            mk_lo = m.makespan < mk_lo ? m.makespan : mk_lo;
            mk_hi = m.makespan > mk_hi ? m.makespan : mk_hi;
        }
    }
    free(command);
    printf("\nTimes in hours; util = allocated GPU utilization, eff = effective,\n"
           "useful = effective counting co-located jobs at the rate their\n"
           "co-runners leave them (SPEC 5).\n");
    if (!rc && mk_floor > 0)
        printf("Makespan floor %.3f h (every job alone on the fastest GPU it may "
               "use, from its submit): the makespans lie %.1f-%.1f %% above it%s\n",
               (double)mk_floor / SIM_US_PER_S / 3600,
               100.0 * (double)(mk_lo - mk_floor) / (double)mk_floor,
               100.0 * (double)(mk_hi - mk_floor) / (double)mk_floor,
               (double)mk_hi <= 1.02 * (double)mk_floor
                   ? ", within 2 %: set by one long job, not by the policies" : ".");
    trc_free(&t);
    clu_free(&c);
    return rc;
}

static const char policies_help[] =
    "usage: dlsim policies [--load PATH.so]...\n"
    "\n"
    "Lists the built-in policies and their options; with --load, the\n"
    "policies of the plug-ins PATH.so instead (docs/policies.md).\n";

static int cmd_policies(int argc, char **argv)
{
    bool loaded = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(policies_help, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--load") || i + 1 == argc)
            return usage_error("policies", "expected --load PATH.so");
        struct dl_error err = { 0 };
        const struct pol_plugin *pl;
        if (pol_load(argv[++i], &pl, &err))
            return report(&err, DL_EINPUT);
        loaded = true;
    }
    pol_print_list(stdout, loaded);
    return 0;
}

/* ------------------------------------------------------ the command table
 *
 * Every command, in the order `dlsim --help` lists them: (group, name) ->
 * the function that parses its argv (argv[0] is the name) and returns the
 * exit status.  The help is printed from this table, so a command cannot
 * be missing from it. */
struct command {
    const char *group;          /* "trace", "cluster", "fit", or NULL */
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *what;
};

static const struct command commands[] = {
    { NULL, "run", cmd_run, "replay a trace over a cluster under one policy" },
    { NULL, "demo", cmd_demo, "compare the policies on a generated Philly-like workload" },
    { NULL, "sweep", cli_sweep, "run a grid of runs (YAML spec) on all cores, or under mpirun" },
    { NULL, "report", cli_report, "HTML page and Markdown tables from a run or sweep directory" },
    { NULL, "policies", cmd_policies, "list the policies and their options (--load PATH.so)" },
    { "trace", "import", cli_trace_import, "convert a public trace (Philly, ITP, PAI, openb, ...)" },
    { "trace", "gen", cli_trace_gen, "generate a seeded synthetic workload (or --like a fit)" },
    { "trace", "fit", cli_trace_fit, "fit a workload description (YAML) to a trace" },
    { "trace", "compare", cli_trace_compare, "KS statistics and GPU-count distance of two traces" },
    { "trace", "scale", cli_trace_scale, "rescale a trace's arrivals to an offered load" },
    { "trace", "annotate", cli_trace_annotate, "add seeded deadlines, models, tenants, util, memory to a trace" },
    { "trace", "stats", cli_trace_stats, "describe a trace and its offered load on a cluster" },
    { "cluster", "import", cli_cluster_import, "a cluster file from a public machine list" },
    { "fit", "convert-gavel", cli_fit_convert, "Gavel's throughput JSON to runtime and pair CSVs" },
    { "fit", "slowdown", cli_fit_slowdown, "fit co-location slowdown forms to measured pairs" },
    { "fit", "util", cli_fit_util, "fit the utilization regressor to graph features" },
    { "fit", "runtime", cli_fit_runtime, "fit the roofline runtime model to throughputs" },
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static void print_help(FILE *to, const char *group)
{
    if (!group)
        fputs("usage: dlsim COMMAND [options]   (dlsim COMMAND --help for "
              "each)\n\n", to);
    else
        fprintf(to, "usage: dlsim %s COMMAND [options]   (dlsim %s COMMAND "
                "--help for each)\n\n", group, group);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const struct command *c = &commands[i];
        if (group && (!c->group || strcmp(c->group, group)))
            continue;
        char name[40];
        snprintf(name, sizeof name, "%s%s%s", c->group ? c->group : "",
                 c->group ? " " : "", c->name);
        fprintf(to, "  %-22s %s\n", name, c->what);
    }
    if (!group)
        fputs("  --version              print dlsim's version\n"
              "\nExit status: 0 success, 1 the run failed, 2 bad usage or "
              "bad input.\n", to);
}

int dl_main(int argc, char **argv)
{
    if (argc < 2)
        return print_help(stderr, NULL), 2;
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version")) {
        puts("dlsim " DLSIM_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        print_help(stdout, NULL);
        return 0;
    }
    bool group = false;
    for (size_t i = 0; i < NCOMMANDS; i++) {
        const struct command *c = &commands[i];
        if (!c->group && !strcmp(c->name, cmd))
            return c->fn(argc - 1, argv + 1);
        if (!c->group || strcmp(c->group, cmd))
            continue;
        group = true;
        if (argc >= 3 && !strcmp(c->name, argv[2]))
            return c->fn(argc - 2, argv + 2);
    }
    if (group && argc >= 3 && (!strcmp(argv[2], "--help") ||
                               !strcmp(argv[2], "-h"))) {
        print_help(stdout, cmd);
        return 0;
    }
    if (group) {
        if (argc >= 3)
            fprintf(stderr, "dlsim %s: unknown command '%s'\n", cmd, argv[2]);
        print_help(stderr, cmd);
        return 2;
    }
    fprintf(stderr, "dlsim: unknown command '%s'\n", cmd);
    print_help(stderr, NULL);
    return 2;
}

/* libdlsim.so's command line (sim/api/dlsim.h): what the executable's
 * main does, with a Python policy for `run --policy py:...`. */
int dlsim_cli(int argc, char **argv, const struct dlsim_py *py)
{
    api_set_host(py);
    dl_stdout_guard();
    int rc = dl_stdout_finish(dl_main(argc, argv));
    api_set_host(NULL);
    return rc;
}
