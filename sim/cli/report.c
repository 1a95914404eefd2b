/*
 * sim/cli/report.c - `dlsim report DIR [-o OUT] [--plots PDIR] [--format
 * LIST] [--figures FDIR]`: the command line of the report
 * (sim/report/report.c does the work).
 */
#include "sim/cli/cli.h"
#include "sim/report/report.h"

#include <getopt.h>

static const char report_help[] =
    "usage: dlsim report DIR [-o OUT] [--plots PDIR] [--format LIST]\n"
    "                    [--figures FDIR]\n"
    "\n"
    "Writes a self-contained HTML page (plots as embedded SVG, drawn by\n"
    "gnuplot) and Markdown tables from a run directory (dlsim run --out DIR:\n"
    "summary.json, jobs.csv, timeseries.csv), a sweep directory\n"
    "(DIR/summary.csv and DIR/runs/<run_id>/) or a demo directory (dlsim demo\n"
    "--out DIR: DIR/<policy>/, one run each).  The page opens with the\n"
    "headline table (the first setting at its highest load) and its figure.\n"
    "For a sweep: per policy, the mean, sample standard deviation and 95 %\n"
    "confidence interval over seeds of the QoS guarantee rate, allocated,\n"
    "effective and useful GPU utilization (also over the arrival window),\n"
    "makespan and its floor, mean and p99 wait and mean JCT, per (scenario,\n"
    "trace, cluster, models, load) group, as tables and bar charts (policies\n"
    "named on the axis, a panel per setting, error bars only where there are\n"
    "two seeds or more); paired differences (same seed) against the group's\n"
    "first policy with their 95 % confidence intervals; a flag on a group\n"
    "whose makespans all lie within 2 % of the floor; each metric versus load\n"
    "when the sweep varies load; and for every setting: JCT and wait CDFs\n"
    "(log axis with the jobs at 0 shown), utilization and queue length over\n"
    "time (a panel per policy) and the GPU occupancy (GPUs x time, coloured\n"
    "by how many jobs share each GPU); then the failed runs.  Needs gnuplot\n"
    "on PATH (Debian package gnuplot-nox).\n"
    "\n"
    "  -o, --out OUT    the HTML page (default DIR/report.html); the Markdown\n"
    "                   tables go next to it, OUT without .html plus .md\n"
    "                   (default DIR/report.md)\n"
    "  --plots PDIR     also keep the gnuplot script (report.gp, data inline)\n"
    "                   and the SVGs it draws in PDIR (created)\n"
    "  --format LIST    comma-separated, of html (the page), svg, pdf, png\n"
    "                   (each figure as a file, gnuplot's svg and cairo\n"
    "                   terminals); default html\n"
    "  --figures FDIR   where svg, pdf and png figures go (created; default\n"
    "                   PDIR with --plots, else OUT without .html plus\n"
    "                   -figures, e.g. DIR/report-figures)\n"
    "  -h, --help       this text\n";

int cli_report(int argc, char **argv)
{
    static const struct option lo[] = {
        { "out", required_argument, 0, 'o' },
        { "plots", required_argument, 0, 'P' },
        { "format", required_argument, 0, 'F' },
        { "figures", required_argument, 0, 'G' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *out = NULL, *plots = NULL, *formats = NULL, *figs = NULL;
    int ch;
    unsigned bits;
    optind = 0;                 /* full reset (GNU): callable repeatedly */
    while ((ch = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
        switch (ch) {
        case 'o': out = optarg; break;
        case 'P': plots = optarg; break;
        case 'F':
            if (rpt_formats(optarg, &bits) || !bits)
                return cli_usage("report", "--format expects a comma-separated "
                                 "list of html, svg, pdf, png");
            formats = optarg;
            break;
        case 'G': figs = optarg; break;
        case 'h': fputs(report_help, stdout); return 0;
        default: return cli_usage("report", "bad option");
        }
    }
    if (optind + 1 != argc)
        return cli_usage("report", optind < argc ? "expected one directory"
                                                 : "DIR is required");
    struct dl_error err = { 0 };
    int rc = rpt_write(argv[optind], out, plots, formats, figs, &err);
    if (rc && err.msg[0])
        dl_error_print(&err, stderr);
    return rc ? dl_exit_status(rc) : 0;
}
