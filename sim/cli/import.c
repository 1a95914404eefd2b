/*
 * sim/cli/import.c - `dlsim trace import --format F IN... -o OUT`: the
 * command line of the trace importers (traces/import/ does the work).
 */
#include "sim/cli/cli.h"
#include "traces/import/import.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char import_usage[] =
    "usage: dlsim trace import --format F IN... -o OUT.csv[.gz] [options]\n"
    "\n"
    "Converts a public trace to the native format (SPEC 2): rows sorted by\n"
    "submit time (ties keep the input order), times in seconds, the clock's\n"
    "zero at the first kept submit.  Several IN files are merged: each\n"
    "file's name (without directories and extensions) is its virtual\n"
    "cluster when the format has none, and prefixes its job ids (FILE:ID)\n"
    "so they stay unique.  Prints\n"
    "a report on stderr: jobs read, kept, skipped per reason, GPU-hours,\n"
    "span.  The duration a trace records is taken as the run time on the\n"
    "reference GPU type.  docs/traces.md gives each format's\n"
    "mapping.\n"
    "\n"
    "options:\n"
    "  --format F            the input format (--format list: all of them)\n"
    "  -o, --output OUT      output trace; gzip-compressed when it ends in .gz\n"
    "  --filter EXPR         keep only some jobs; EXPR is key=value,...:\n"
    "                        vc=A[,B...] virtual clusters (the trace's VC\n"
    "                        column, or the input file's name); start=T and\n"
    "                        end=T a window [start, end) on the submit time,\n"
    "                        T in seconds of the input's clock (after unit\n"
    "                        conversion) or, for wall-clock traces, a date\n"
    "                        YYYY-MM-DD[THH:MM:SS].  Repeatable.\n"
    "  --keep-failed         keep jobs that failed, were killed or cancelled\n"
    "                        (default: only jobs that completed normally, in\n"
    "                        formats that record a status)\n"
    "  --epoch first|trace   the output clock's zero: the first kept submit\n"
    "                        (default), or the input's own zero (wall-clock\n"
    "                        traces: 1970-01-01 00:00:00)\n"
    "  --time-unit s|ms|min|h  unit of the input's numeric times (default per\n"
    "                        format: muri ms, chronus min, others s)\n"
    "  --force               import even when the result looks implausible\n"
    "                        (a submit span over 20 years or a median\n"
    "                        duration over a year: usually a wrong\n"
    "                        --time-unit, which is an error otherwise)\n"
    "  --tasks FILE          pai: the pai_task_table file (required)\n"
    "  --throughputs FILE    gavel: Gavel's throughput JSON, plain or gzip\n"
    "                        (required; e.g. simulation_throughputs.json)\n"
    "  --deadline first|last chronus soft jobs: which of the expected times\n"
    "                        becomes the deadline (default first)\n"
    "  --multi-type any|first  openb pods allowing several GPU types: no\n"
    "                        constraint (default) or the first type listed\n"
    "  -h, --help            this text\n"
    "\n"
    "Exit status: 0; 2 for bad usage or a malformed input (file:line); 1\n"
    "when a file cannot be read or written.  Nothing is written on failure.\n"
    "\n"
    "formats:\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "dlsim trace import: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see dlsim trace import --help)\n");
    return 2;
}

/* --filter key=value,...; a bare token continues the vc list. */
static int parse_filter(char *arg, struct imp_opts *o, const char ***vcs,
                        size_t *cap)
{
    const char *key = NULL;
    for (char *save = NULL, *tok = strtok_r(arg, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        const char *val = tok;
        if (eq) {
            *eq = '\0';
            key = tok;
            val = eq + 1;
        }
        if (!key)
            return usage_error("bad --filter '%s': expected key=value "
                               "(vc=, start=, end=)", tok);
        if (!strcmp(key, "vc")) {
            if (!*val)
                return usage_error("bad --filter: empty vc name%s", "");
            xgrow(vcs, cap, o->nvc + 1, sizeof **vcs);
            (*vcs)[o->nvc++] = val;
            o->vc = *vcs;
            continue;
        }
        if (!eq)
            return usage_error("bad --filter: '%s' after start= or end= "
                               "(one value each)", tok);
        simtime_t t;
        bool start = !strcmp(key, "start");
        if (!start && strcmp(key, "end"))
            return usage_error("bad --filter key '%s': expected vc, start or "
                               "end", key);
        if (trc_import_parse_time(val, &t) != 0)
            return usage_error("bad --filter time '%s': expected seconds or "
                               "YYYY-MM-DD[THH:MM:SS]", val);
        if (start) {
            o->has_start = true;
            o->start = t;
        } else {
            o->has_end = true;
            o->end = t;
        }
    }
    return 0;
}


enum { OPT_FORMAT = 256, OPT_FILTER, OPT_KEEP, OPT_EPOCH, OPT_UNIT,
       OPT_TASKS, OPT_TPUT, OPT_DEADLINE, OPT_MULTI, OPT_FORCE };

int cli_trace_import(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"format", required_argument, NULL, OPT_FORMAT},
        {"filter", required_argument, NULL, OPT_FILTER},
        {"keep-failed", no_argument, NULL, OPT_KEEP},
        {"epoch", required_argument, NULL, OPT_EPOCH},
        {"time-unit", required_argument, NULL, OPT_UNIT},
        {"tasks", required_argument, NULL, OPT_TASKS},
        {"throughputs", required_argument, NULL, OPT_TPUT},
        {"deadline", required_argument, NULL, OPT_DEADLINE},
        {"multi-type", required_argument, NULL, OPT_MULTI},
        {"force", no_argument, NULL, OPT_FORCE},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct imp_opts o;
    memset(&o, 0, sizeof o);
    o.time_unit = -1;
    const char *out = NULL;
    const char **vcs = NULL;
    size_t vcap = 0;
    char **filters = NULL;
    size_t nfilters = 0, fcap = 0;
    int st = 0;
    optind = 0;
    opterr = 0;
    int ch;
    while (!st && (ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h':
            fputs(import_usage, stdout);
            trc_import_formats(stdout);
            goto done;
        case 'o':
            out = optarg;
            break;
        case OPT_FORMAT:
            o.format = optarg;
            break;
        case OPT_FILTER:
            xgrow(&filters, &fcap, nfilters + 1, sizeof *filters);
            filters[nfilters] = xstrdup(optarg);
            st = parse_filter(filters[nfilters++], &o, &vcs, &vcap);
            break;
        case OPT_KEEP:
            o.keep_failed = true;
            break;
        case OPT_FORCE:
            o.force = true;
            break;
        case OPT_EPOCH:
            if (!strcmp(optarg, "first") || !strcmp(optarg, "trace"))
                o.epoch_trace = !strcmp(optarg, "trace");
            else
                st = usage_error("bad --epoch '%s': expected first or trace",
                                 optarg);
            break;
        case OPT_UNIT: {
            static const char *const u[] = { "s", "ms", "min", "h" };
            o.time_unit = -1;
            for (int k = 0; k < 4; k++)
                if (!strcmp(optarg, u[k]))
                    o.time_unit = k;
            if (o.time_unit < 0)
                st = usage_error("bad --time-unit '%s': expected s, ms, min "
                                 "or h", optarg);
            break;
        }
        case OPT_TASKS:
            o.tasks = optarg;
            break;
        case OPT_TPUT:
            o.throughputs = optarg;
            break;
        case OPT_DEADLINE:
            if (!strcmp(optarg, "first") || !strcmp(optarg, "last"))
                o.deadline_last = !strcmp(optarg, "last");
            else
                st = usage_error("bad --deadline '%s': expected first or "
                                 "last", optarg);
            break;
        case OPT_MULTI:
            if (!strcmp(optarg, "first") || !strcmp(optarg, "any"))
                o.multi_first = !strcmp(optarg, "first");
            else
                st = usage_error("bad --multi-type '%s': expected any or "
                                 "first", optarg);
            break;
        case ':':
            st = usage_error("option '%s' needs a value", argv[optind - 1]);
            break;
        default:
            st = usage_error("unknown option '%s'", argv[optind - 1]);
            break;
        }
    }
    if (st)
        goto done;
    if (!o.format) {
        st = usage_error("%s", "missing --format F (--format list shows "
                         "them)");
        goto done;
    }
    if (!strcmp(o.format, "list")) {
        trc_import_formats(stdout);
        goto done;
    }
    bool known;
    const char *needs = trc_import_needs(o.format, &known);
    if (!known) {
        fprintf(stderr, "dlsim trace import: unknown format '%s'; the "
                "formats are:\n", o.format);
        trc_import_formats(stderr);
        st = 2;
        goto done;
    }
    if (optind >= argc) {
        st = usage_error("%s", "missing the input file IN");
        goto done;
    }
    if (!out) {
        st = usage_error("%s", "missing -o OUT.csv[.gz]");
        goto done;
    }
    bool pai = needs && !strcmp(needs, "--tasks");
    bool gavel = needs && !strcmp(needs, "--throughputs");
    if (o.tasks && !pai) {
        st = usage_error("--tasks is for --format pai only%s", "");
        goto done;
    }
    if (!o.tasks && pai) {
        st = usage_error("--format pai needs --tasks "
                         "pai_task_table.csv%s", "");
        goto done;
    }
    if (o.throughputs && !gavel) {
        st = usage_error("--throughputs is for --format gavel only%s", "");
        goto done;
    }
    if (!o.throughputs && gavel) {
        st = usage_error("--format gavel needs --throughputs FILE (Gavel's "
                         "simulation_throughputs.json)%s", "");
        goto done;
    }

    struct dl_error err = { 0 };
    int r = trc_import_run(&o, argv + optind, (size_t)(argc - optind), out,
                           &err);
    if (r) {
        if (!err.file[0])
            fprintf(stderr, "dlsim trace import: ");
        dl_error_print(&err, stderr);
    }
    st = dl_exit_status(r);
done:
    for (size_t i = 0; i < nfilters; i++)
        free(filters[i]);
    free(filters);
    free(vcs);
    return st;
}
