/*
 * sim/cli/report.c - `dlsim report DIR [-o OUT] [--plots PDIR]`: the
 * command line of the report (sim/report/report.c does the work).
 */
#include "sim/cli/cli.h"
#include "sim/report/report.h"

#include <getopt.h>

static const char report_help[] =
    "usage: dlsim report DIR [-o OUT] [--plots PDIR]\n"
    "\n"
    "Writes a self-contained HTML page (plots as embedded SVG, drawn by\n"
    "gnuplot) and a Markdown table from a run directory (dlsim run --out DIR:\n"
    "summary.json, jobs.csv, timeseries.csv) or a sweep directory\n"
    "(DIR/summary.csv and DIR/runs/<run_id>/).  For a sweep: per policy, the\n"
    "mean, sample standard deviation and 95 % confidence interval over seeds\n"
    "of the QoS guarantee rate, allocated, effective and useful GPU\n"
    "utilization (also over the arrival window), makespan and its floor,\n"
    "mean and p99 wait and mean JCT, per (scenario, trace, cluster, models,\n"
    "load) group, as tables and bar charts with error bars; paired\n"
    "differences (same seed) against the group's first policy with their 95 %\n"
    "confidence intervals, as tables and bar charts; a flag on a group whose\n"
    "makespans all lie within 2 % of the floor; JCT and wait CDFs;\n"
    "utilization and queue length over time; each metric versus load when\n"
    "the sweep varies load; and the failed runs.  For a run: its table, CDFs\n"
    "and time series.  Needs gnuplot on PATH (Debian package gnuplot-nox).\n"
    "\n"
    "  -o, --out OUT    the HTML page (default DIR/report.html); the Markdown\n"
    "                   tables go next to it, OUT without .html plus .md\n"
    "                   (default DIR/report.md)\n"
    "  --plots PDIR     also keep the gnuplot script (report.gp, data inline)\n"
    "                   and the SVGs it draws in PDIR (created)\n"
    "  -h, --help       this text\n";

int cli_report(int argc, char **argv)
{
    static const struct option lo[] = {
        { "out", required_argument, 0, 'o' },
        { "plots", required_argument, 0, 'P' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *out = NULL, *plots = NULL;
    int ch;
    optind = 0;                 /* full reset (GNU): callable repeatedly */
    while ((ch = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
        switch (ch) {
        case 'o': out = optarg; break;
        case 'P': plots = optarg; break;
        case 'h': fputs(report_help, stdout); return 0;
        default: return cli_usage("report", "bad option");
        }
    }
    if (optind + 1 != argc)
        return cli_usage("report", optind < argc ? "expected one directory"
                                                 : "DIR is required");
    struct dl_error err = { 0 };
    int rc = rpt_write(argv[optind], out, plots, &err);
    if (rc && err.msg[0])
        dl_error_print(&err, stderr);
    return rc ? dl_exit_status(rc) : 0;
}
