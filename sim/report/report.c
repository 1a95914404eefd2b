/*
 * sim/report/report.c - `dlsim report DIR [-o OUT] [--plots PDIR]` (rpt_): one
 * self-contained HTML page and a Markdown table from a run or a sweep.
 *
 * Inputs.  A sweep directory holds summary.csv (columns found by name:
 * run_id, policy, status and the metrics below are required; scenario,
 * trace, cluster, models, load, seed, error are optional; others are
 * ignored) and runs/<run_id>/ with each run's jobs.csv and timeseries.csv
 * (SPEC 4).  A run directory holds summary.json, jobs.csv and
 * timeseries.csv; it is treated as a sweep of one run.  Every problem in
 * summary.csv or summary.json is bad input (file:line[:col], exit 2) and
 * found before anything is drawn or written.
 *
 * Numbers.  dlsim computes every number; gnuplot only draws.  Runs are
 * grouped by (scenario, trace, cluster, models, load) -- a "group", one
 * comparison of policies -- and within a group by policy (the full policy
 * string); the seeds of a (group, policy) cell give the mean, the sample
 * standard deviation (n - 1; 0 for one seed) and, for two seeds or more,
 * the 95 % confidence interval of the mean (t distribution, GSL) of each
 * metric, shown as mean +- std [lo, hi] in the tables and as error bars
 * (std) in the charts.  Paired differences: each policy's value minus
 * the group's baseline policy's (its first policy with a finished run) on
 * the same seed -- the same workload, every other coordinate equal by
 * construction of the group -- with their mean and 95 % CI, in a second
 * table per group and in bar charts titled as paired differences (error
 * bars: the CI).  A group of two or more policies whose every makespan
 * lies within 2 % of its makespan_floor is flagged: decided by the floor.
 * The seven metrics of SPEC 4's first list are required; useful
 * utilization, the window utilizations and the floor are shown where the
 * summary has them.  A failed run only counts in
 * the "failed" column and the failed-runs table; an empty
 * qos_guarantee_rate (no QoS jobs) is left out of that metric's mean.
 * Times are shown in hours.  A "setting" is a group without its load;
 * each setting's reference group, drawn in the bar charts, CDFs and time
 * series, is its highest load (or the trace's own arrivals when no load
 * was set).  Metric-versus-load curves are drawn for settings with two or
 * more loads.  CDFs pool jobs.csv over the seeds of a cell (finished jobs
 * only) and are cut to at most RPT_CDF_POINTS points at nearest ranks, so
 * a million-job file never reaches gnuplot; time series take the smallest
 * seed of each cell and average consecutive rows into at most
 * RPT_TS_POINTS bins.  Every setting gets its CDFs, time series and
 * occupancy chart.
 *
 * Occupancy: per setting, a panel per policy (its smallest seed) of GPUs x
 * time from jobs.csv's placement, start and finish, each job on its first
 * placement (exact unless preempted: preempted jobs are counted, not
 * drawn), cells = the mean number of jobs on a GPU over a time bin.  A
 * demo directory (DIR/<policy>/summary.json ...) is read as a sweep of
 * its runs in dlsim demo's order (SIM_DEMO_POLICIES: its first, fifo, is
 * the baseline), other directories after them by name.
 *
 * Tenants: the users and vcs lists of the summary.json of the runs shown
 * (per setting, each policy's smallest seed at the reference load), read
 * after grouping, so a sweep of many runs and tenants holds only those;
 * a table per policy, most GPU-hours first, at most RPT_TENANT_ROWS rows.  The fairness
 * metrics (Jain's index over tenants' mean slowdowns, the worst of them)
 * are columns and, for users, bar charts, shown only where some run has
 * a value (met[].sparse).
 *
 * Outputs.  The gnuplot script (report.gp, self-contained: data blocks
 * inline) and its SVGs go into a fresh temporary directory (or --plots
 * PDIR, kept); gnuplot runs there with LC_ALL=C and HOME pointing at it
 * (no ~/.gnuplot), a fixed font and no timestamps, so the same inputs
 * give the same bytes (a PDF's creation date is set to 1970).  Each figure's
 * commands are written once per format (--format: the page's SVG, PDF and
 * PNG through the cairo terminals), the data blocks once.  The page embeds each SVG as a base64 data URI and
 * carries the numbers of its tables in data-mean/data-std/data-n
 * attributes at full precision.  report.html and report.md are written
 * to temporary names and renamed into place together.
 */
#include "sim/report/report.h"
#include "models/perf.h"
#include "sim/base/formats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RPT_CDF_POINTS 400      /* points of one CDF curve, at most */
#define RPT_TS_POINTS 300       /* points of one time-series curve */
#define RPT_OCC_ROWS 256        /* rows of an occupancy panel, at most */
#define RPT_OCC_BINS 400        /* time bins of an occupancy panel */

/* output formats (--format) */
enum { RPT_FHTML = 1, RPT_FSVG = 2, RPT_FPDF = 4, RPT_FPNG = 8 };

/* ------------------------------------------------------------ metrics */

enum {
    M_QOS, M_UALLOC, M_UEFF, M_UUSE, M_UALLOC_W, M_UEFF_W, M_UUSE_W,
    M_MAKESPAN, M_FLOOR, M_WAIT, M_P99WAIT, M_JCT, M_JAIN, M_WORST,
    M_JAIN_VC, M_WORST_VC, NMET
};

/* The metrics, in table order.  The seven "need" columns every summary
 * has; the others (useful utilization, the arrival-window utilizations,
 * the makespan floor: SPEC 5) are shown where the summary has them. */
static const struct metric {
    const char *col;            /* summary.csv / summary.json name */
    const char *key;            /* id in file, block and element names */
    const char *title;          /* chart title */
    const char *head;           /* table header */
    const char *ylab;           /* y axis label, with its unit */
    const char *unit;           /* the unit alone */
    double scale;               /* stored value -> shown unit */
    bool need;                  /* a required column */
    bool nullable;              /* may be empty (null) in a run */
    bool bars;                  /* a bar chart (and versus-load curves) */
    bool sparse;                /* shown only where some run has a value
                                   (the fairness figures: null without
                                   users or VCs) */
} met[NMET] = {
    { "qos_guarantee_rate", "qos", "QoS guarantee rate", "QoS rate",
      "QoS guarantee rate (fraction of QoS jobs)", "fraction", 1, true, true,
      true, false },
    { "gpu_util_alloc", "util_alloc", "Allocated GPU utilization", "util alloc",
      "allocated GPU utilization (fraction)", "fraction", 1, true, false, true, false },
    { "gpu_util_effective", "util_eff", "Effective GPU utilization", "util eff",
      "effective GPU utilization (fraction)", "fraction", 1, true, false, true, false },
    { "gpu_util_useful", "util_useful", "Useful GPU utilization", "util useful",
      "useful GPU utilization (fraction)", "fraction", 1, false, false, true, false },
    { "gpu_util_alloc_window", "util_alloc_w", "Allocated GPU utilization, "
      "arrival window", "alloc (window)", "allocated utilization, arrival window "
      "(fraction)", "fraction", 1, false, true, false, false },
    { "gpu_util_effective_window", "util_eff_w", "Effective GPU utilization, "
      "arrival window", "eff (window)", "effective utilization, arrival window "
      "(fraction)", "fraction", 1, false, true, false, false },
    { "gpu_util_useful_window", "util_useful_w", "Useful GPU utilization, "
      "arrival window", "useful (window)", "useful utilization, arrival window "
      "(fraction)", "fraction", 1, false, true, false, false },
    { "makespan", "makespan", "Makespan (hours)", "makespan (h)",
      "makespan (hours)", "hours", 1.0 / 3600, true, false, true, false },
    { "makespan_floor", "makespan_floor", "Makespan floor (hours)", "floor (h)",
      "makespan floor (hours)", "hours", 1.0 / 3600, false, false, false, false },
    { "avg_wait", "avg_wait", "Mean wait (hours)", "mean wait (h)",
      "mean wait (hours)", "hours", 1.0 / 3600, true, true, true, false },
    { "p99_wait", "p99_wait", "p99 wait (hours)", "p99 wait (h)",
      "p99 wait (hours)", "hours", 1.0 / 3600, true, true, true, false },
    { "avg_jct", "avg_jct", "Mean JCT (hours)", "mean JCT (h)",
      "mean JCT (hours)", "hours", 1.0 / 3600, true, true, true, false },
    { "fairness_jain_user_slowdown", "jain_user", "Fairness over users (Jain)",
      "Jain (users)", "Jain's index over users' mean slowdown (1 = equal)",
      "index", 1, false, true, true, true },
    { "worst_user_slowdown", "worst_user", "Worst user's mean slowdown",
      "worst user slowdown", "worst user's mean slowdown (JCT / run time alone)",
      "ratio", 1, false, true, true, true },
    { "fairness_jain_vc_slowdown", "jain_vc", "Fairness over VCs (Jain)",
      "Jain (VCs)", "Jain's index over VCs' mean slowdown (1 = equal)",
      "index", 1, false, true, false, true },
    { "worst_vc_slowdown", "worst_vc", "Worst VC's mean slowdown",
      "worst VC slowdown", "worst VC's mean slowdown (JCT / run time alone)",
      "ratio", 1, false, true, false, true },
};

/* A comparison whose every makespan lies within this factor of its floor
 * is decided by the floor (one long job), not by the policies. */
#define RPT_FLOOR_SLACK 1.02

/* Policy colours: ten strong, then ten light ones; lines also change dash
 * type every twenty policies. */
static const char *const colour[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
    "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
};
#define NCOLOUR (sizeof colour / sizeof colour[0])

/* ------------------------------------------------------------ state */

/* One tenant (user or VC) of a run, as summary.json's users / vcs list
 * it; NaN: null or absent. */
enum { T_JOBS, T_FIN, T_QOS, T_AJCT, T_PJCT, T_AWAIT, T_PWAIT, T_SLOW, T_GPUH,
       NTCOL };
static const struct tcol {
    const char *key, *head;
    double scale;               /* stored -> shown */
    bool count;                 /* a whole number */
} tcol[NTCOL] = {
    { "jobs", "jobs", 1, true }, { "jobs_finished", "finished", 1, true },
    { "qos_guarantee_rate", "QoS rate", 1, false },
    { "avg_jct", "mean JCT (h)", 1.0 / 3600, false },
    { "p99_jct", "p99 JCT (h)", 1.0 / 3600, false },
    { "avg_wait", "mean wait (h)", 1.0 / 3600, false },
    { "p99_wait", "p99 wait (h)", 1.0 / 3600, false },
    { "mean_slowdown", "mean slowdown", 1, false },
    { "gpu_hours", "GPU-hours", 1, false },
};
struct tenant {
    const char *name;
    double v[NTCOL];
};
enum { TEN_USER, TEN_VC, NTEN };
static const char *const ten_key[NTEN] = { "users", "vcs" };
#define RPT_TENANT_ROWS 20      /* tenants listed per table, most GPU-hours
                                   first */

struct run {
    const char *id, *scenario, *policy, *trace, *cluster, *models, *seed;
    const char *error, *load_text, *dir;
    double load;                /* NaN: the trace's own arrivals */
    bool failed;
    long line, col;             /* of run_id in summary.csv */
    double v[NMET];             /* in shown units; NaN = none */
    uint32_t pol, set, grp;
    struct tenant *ten[NTEN];   /* users, VCs (arena; load_tenants) */
    uint32_t nten[NTEN];
};

struct cell {                   /* one policy in one group */
    uint32_t ok, failed;
    uint32_t n[NMET];
    double mean[NMET], std[NMET];
    double lo[NMET], hi[NMET];  /* 95 % CI of the mean (n >= 2), else NaN */
    /* paired differences against the group's baseline policy: this
     * policy's value minus the baseline's, over the seeds both have */
    uint32_t dn[NMET];
    double dmean[NMET], dstd[NMET], dlo[NMET], dhi[NMET];
};

struct group {
    uint32_t set;
    double load;                /* NaN: own arrivals */
    const char *load_text;
    struct cell *cell;          /* [npol] */
    uint32_t base;              /* baseline policy: the group's first with
                                   a finished run (SIM_NONE: none) */
    bool floor_bound;           /* every makespan within 2 % of its floor */
};

struct setting {
    const char *scenario, *trace, *cluster, *models;
    uint32_t ref;               /* reference group */
    uint32_t nloads;            /* groups with a numeric load */
};

struct fig {
    int section;
    uint32_t set;               /* its setting (SIM_NONE: all settings) */
    char file[32];              /* fNNN.svg, the page's copy */
    char name[96];              /* fNNN-what: the exported files' stem */
    int w, h;                   /* size in SVG pixels */
    const char *caption;
};
/* the page's figure sections: the headline, the comparisons over all
 * settings, then per setting its CDFs, time series and occupancy */
enum { S_HEAD, S_BARS, S_LOAD, S_CDF, S_TS, S_OCC, NSECTIONS };

struct rpt {
    const char *dir, *name;
    bool sweep;
    struct arena *a;
    struct run *run;
    size_t nrun, caprun;
    const char **pol;
    uint32_t npol;
    size_t cappol;
    struct setting *set;
    uint32_t nset;
    size_t capset;
    struct group *grp;
    uint32_t ngrp;
    bool vary[4];               /* scenario, trace, cluster, models vary */
    bool has[NMET];             /* the summary has this metric */
    /* drawing */
    const char *work;           /* gnuplot's directory */
    bool keep;                  /* work is --plots PDIR, kept afterwards */
    FILE *gp;                   /* the script (in a figure: its body) */
    FILE *gp_main;              /* the script while gp is a figure body */
    char *body;                 /* the figure body being written */
    size_t nbody;
    unsigned formats;           /* RPT_F* */
    struct fig *fig;
    size_t nfig, capfig;
    const char **note;
    size_t nnote, capnote;
    struct dl_error *err;
};

static void note(struct rpt *R, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(struct rpt *R, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    xgrow(&R->note, &R->capnote, R->nnote + 1, sizeof *R->note);
    R->note[R->nnote++] = arena_strndup(R->a, buf, strlen(buf));
    /* what the page leaves out is said where the command runs, too */
    fprintf(stderr, "dlsim report: note: %s\n", buf);
}

static const char *adup(struct rpt *R, const char *s)
{
    return arena_strndup(R->a, s, strlen(s));
}

/* ------------------------------------------------------------ statistics */

void rpt_mean_std(const double *x, size_t n, double *mean, double *std)
{
    if (!n) {
        *mean = NAN;
        *std = 0;
        return;
    }
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    double m = s / (double)n, q = 0;
    if (!isfinite(m)) {         /* the sum overflowed: add x / n instead */
        m = 0;
        for (size_t i = 0; i < n; i++)
            m += x[i] / (double)n;
    }
    for (size_t i = 0; i < n; i++)
        q += (x[i] - m) * (x[i] - m);
    if (!isfinite(q)) {         /* squares overflowed: scale by the largest */
        double dmax = 0, z;
        for (size_t i = 0; i < n; i++)
            dmax = fmax(dmax, fabs(x[i] - m));
        q = 0;
        for (size_t i = 0; i < n; i++)
            z = (x[i] - m) / dmax, q += z * z;
        *mean = m;
        *std = n > 1 ? dmax * sqrt(q / (double)(n - 1)) : 0;
        return;
    }
    *mean = m;
    *std = n > 1 ? sqrt(q / (double)(n - 1)) : 0;
}

double rpt_t975(unsigned df)
{
    gsl_set_error_handler_off();
    return df ? gsl_cdf_tdist_Pinv(0.975, (double)df) : NAN;
}

void rpt_ci95(const double *x, size_t n, double *lo, double *hi)
{
    double m, sd;
    rpt_mean_std(x, n, &m, &sd);
    if (n < 2) {
        *lo = *hi = NAN;
        return;
    }
    double h = rpt_t975((unsigned)(n - 1)) * sd / sqrt((double)n);
    *lo = m - h;
    *hi = m + h;
}

size_t rpt_cdf_points(const double *x, size_t n, size_t k, double *px,
                      double *pf)
{
    size_t m = n < k ? n : k;
    for (size_t i = 1; i <= m; i++) {
        size_t r = (i * n + m - 1) / m;     /* ceil(i n / m), 1..n */
        px[i - 1] = x[r - 1];
        pf[i - 1] = (double)r / (double)n;
    }
    return m;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------ CSV
 *
 * The CSVs dlsim writes, read back through the base's reader (dl_csv_):
 * RFC 4180, and a quoted field may hold line breaks (ids, names and
 * error messages can), so a record is one line or several; its line is
 * the one it starts on, and each field is located at its own line:col.
 * A record may be 4 MiB: a jobs.csv row holds a trace record's id and
 * GPU type (a record of at most DL_MAX_LINE bytes), quoted, each byte
 * possibly doubled. */
static const struct dl_csv_opts csv_rules = {
    .sep = ',', .flags = DL_CSV_QUOTED | DL_CSV_MULTILINE,
    .max_record = 4 * DL_MAX_LINE,
};

/* A finite number >= 0 in field i (empty allowed when opt: NaN). */
static int csv_num(const struct dl_csv *c, int i, const char *name, bool opt,
                    double *out, struct dl_error *err)
{
    const char *s = dl_csv_fld(c, i);
    if (!*s) {
        if (!opt)
            return dl_csv_fail_at(c, i, err, "column '%s': empty", name);
        *out = NAN;
        return 0;
    }
    if (sim_parse_double(s, out) || *out < 0)
        return dl_csv_fail_at(c, i, err, "column '%s': not a number >= 0: "
                              "'%s'", name, s);
    return 0;
}

/* ------------------------------------------------------------ inputs */

static const char *base_name(struct rpt *R, const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b && path[b - 1] != '/')
        b--;
    return arena_strndup(R->a, path + b, n - b);
}

static struct run *new_run(struct rpt *R)
{
    xgrow(&R->run, &R->caprun, R->nrun + 1, sizeof *R->run);
    struct run *r = &R->run[R->nrun++];
    memset(r, 0, sizeof *r);
    r->load = NAN;
    for (int m = 0; m < NMET; m++)
        r->v[m] = NAN;
    return r;
}

static int cmp_run_id(const void *a, const void *b)
{
    const struct run *x = *(const struct run *const *)a;
    const struct run *y = *(const struct run *const *)b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Two rows with one run_id name one directory: its seed would count twice
 * in the means and its jobs twice in the CDFs, so that is bad input. */
static int unique_ids(struct rpt *R, const char *path)
{
    const struct run **s = xmalloc(R->nrun * sizeof *s);
    for (size_t i = 0; i < R->nrun; i++)
        s[i] = &R->run[i];
    qsort(s, R->nrun, sizeof *s, cmp_run_id);
    int rc = 0;
    for (size_t i = 1; i < R->nrun && !rc; i++)
        if (!strcmp(s[i]->id, s[i - 1]->id))
            rc = dl_fail(R->err, path, s[i]->line, s[i]->col, "run_id '%s' "
                         "repeated (first on line %ld)", s[i]->id,
                         s[i - 1]->line);
    free(s);
    return rc;
}

/* A run's tenants from the users or vcs value v of its summary.json at
 * path (an array of objects with a name; null or absent: none). */
static int read_tenants(struct rpt *R, struct run *r, int k,
                        const struct dl_json *v, const char *path)
{
    r->nten[k] = 0;
    if (!v || v->type == DL_JSON_NULL)
        return 0;
    if (v->type != DL_JSON_ARRAY)
        return dl_fail(R->err, path, v->line, v->col,
                       "'%s': expected an array of tenants", ten_key[k]);
    r->ten[k] = arena_alloc(R->a, (v->n ? v->n : 1) * sizeof *r->ten[k]);
    for (uint32_t i = 0; i < v->n; i++) {
        const struct dl_json *o = &v->kid[i], *nm = dl_json_get(o, "name");
        if (o->type != DL_JSON_OBJECT || !nm || nm->type != DL_JSON_STRING)
            return dl_fail(R->err, path, o->line, o->col,
                           "'%s'[%u]: expected an object with a name",
                           ten_key[k], i);
        struct tenant *t = &r->ten[k][r->nten[k]++];
        t->name = adup(R, nm->str);
        for (int c = 0; c < NTCOL; c++) {
            const struct dl_json *x = dl_json_get(o, tcol[c].key);
            t->v[c] = x && x->type == DL_JSON_NUMBER ? x->num * tcol[c].scale
                                                       : NAN;
        }
    }
    return 0;
}

static int load_sweep(struct rpt *R, const char *path)
{
    /* the columns: run_id, policy, status, the metrics (required as
     * met[] says), then the optional coordinates */
    enum { I_ID, I_POL, I_STATUS, I_MET, I_SCEN = I_MET + NMET, I_TRACE,
           I_CLU, I_MODELS, I_LOAD, I_SEED, I_ERROR, I_N };
    const char *names[I_N] = { "run_id", "policy", "status",
        [I_SCEN] = "scenario", "trace", "cluster", "models", "load", "seed",
        "error" };
    bool req[I_N] = { true, true, true };
    int idx[I_N];
    for (int m = 0; m < NMET; m++) {
        names[I_MET + m] = met[m].col;
        req[I_MET + m] = met[m].need;
    }
    struct dl_csv c;
    int rc = dl_csv_open(&c, path, &csv_rules, R->err);
    if (rc)
        return rc;
    if ((rc = dl_csv_header(&c, names, req, I_N, idx, R->err)))
        goto out;
    const int *i_met = idx + I_MET;
    for (int m = 0; m < NMET; m++)
        R->has[m] = i_met[m] >= 0;
    int i_id = idx[I_ID], i_pol = idx[I_POL], i_status = idx[I_STATUS];
    int i_scen = idx[I_SCEN], i_trace = idx[I_TRACE], i_clu = idx[I_CLU];
    int i_models = idx[I_MODELS], i_load = idx[I_LOAD];
    int i_seed = idx[I_SEED], i_error = idx[I_ERROR];
    while ((rc = dl_csv_row(&c, R->err)) == 1) {
        struct run *r = new_run(R);
        const char *id = dl_csv_fld(&c, i_id);
        r->id = adup(R, id);
        r->policy = adup(R, dl_csv_fld(&c, i_pol));
        r->scenario = adup(R, dl_csv_fld(&c, i_scen));
        r->trace = adup(R, dl_csv_fld(&c, i_trace));
        r->cluster = adup(R, dl_csv_fld(&c, i_clu));
        r->models = adup(R, dl_csv_fld(&c, i_models));
        r->seed = adup(R, dl_csv_fld(&c, i_seed));
        r->error = adup(R, dl_csv_fld(&c, i_error));
        r->load_text = adup(R, dl_csv_fld(&c, i_load));
        /* the sweep writes none for no models and the trace's own
         * arrivals (never an empty cell); older sweeps wrote "" */
        if (!strcmp(r->models, "none"))
            r->models = "";
        if (!strcmp(r->load_text, "none"))
            r->load_text = "";
        /* retry: failed for a reason of its environment (a full disk, a
         * kill); a --resume runs it again */
        r->failed = !strcmp(dl_csv_fld(&c, i_status), "failed") ||
                    !strcmp(dl_csv_fld(&c, i_status), "retry");
        r->line = c.fline[i_id];
        r->col = c.fcol[i_id];
        if (!*r->policy) {
            rc = dl_fail(R->err, path, c.fline[i_pol], c.fcol[i_pol],
                         "column 'policy': empty");
            break;
        }
        if (*r->load_text) {
            if (sim_parse_double(r->load_text, &r->load) || !(r->load > 0)) {
                rc = dl_fail(R->err, path, c.fline[i_load], c.fcol[i_load],
                             "column 'load': not a number > 0: '%s'",
                             r->load_text);
                break;
            }
        }
        if (!*id || strchr(id, '/') || !strcmp(id, ".") || !strcmp(id, "..")) {
            rc = dl_fail(R->err, path, c.fline[i_id], c.fcol[i_id],
                         "column 'run_id': not a directory name: '%s'", id);
            break;
        }
        size_t n = strlen(R->dir) + strlen(id) + 8;
        char *d = arena_alloc(R->a, n);
        snprintf(d, n, "%s/runs/%s", R->dir, id);
        r->dir = d;
        if (r->failed)
            continue;
        /* a row without any metric (a run not done yet, whatever its
         * status says) is left out with a note rather than refused */
        bool none = true;
        for (int m = 0; m < NMET; m++)
            none &= !*dl_csv_fld(&c, i_met[m]);   /* (absent: "") */
        if (none) {
            note(R, "Run %s (%s, seed %s) has status '%s' and no metrics; left "
                 "out.", r->id, r->policy, r->seed, dl_csv_fld(&c, i_status));
            R->nrun--;
            continue;
        }
        rc = 0;
        for (int m = 0; m < NMET && !rc; m++)
            if (R->has[m] && !(rc = csv_num(&c, i_met[m], met[m].col,
                                             met[m].nullable, &r->v[m], R->err)))
                r->v[m] *= met[m].scale;
        if (rc)
            break;
        if (r->v[M_QOS] > 1) {
            rc = dl_fail(R->err, path, c.fline[i_met[M_QOS]], c.fcol[i_met[M_QOS]],
                         "column 'qos_guarantee_rate': above 1: '%s'",
                         dl_csv_fld(&c, i_met[M_QOS]));
            break;
        }
    }
    if (!rc && !R->nrun)
        rc = dl_fail(R->err, path, c.line, 0, "no runs to report");
    if (!rc)
        rc = unique_ids(R, path);
out:
    dl_csv_close(&c);
    return rc < 0 ? rc : 0;
}

/* A member of summary.json: a string (str) or a number >= 0 (num; null
 * allowed when nullable: NaN). */
static int json_member(struct rpt *R, const char *path, const struct dl_json *o,
                       const char *key, const char **str, double *num,
                       bool nullable)
{
    const struct dl_json *v = dl_json_get(o, key);
    if (!v)
        return dl_fail(R->err, path, o->line, o->col, "missing member '%s'", key);
    if (str) {
        if (v->type == DL_JSON_STRING) {
            *str = adup(R, v->str);
            return 0;
        }
        if (v->type == DL_JSON_NUMBER) {
            char b[64];
            snprintf(b, sizeof b, "%.17g", v->num);
            *str = adup(R, b);
            return 0;
        }
        return dl_fail(R->err, path, v->line, v->col, "'%s': expected a string, "
                       "found %s", key, dl_json_type_name(v->type));
    }
    if (v->type == DL_JSON_NULL && nullable) {
        *num = NAN;
        return 0;
    }
    if (v->type != DL_JSON_NUMBER || v->num < 0)
        return dl_fail(R->err, path, v->line, v->col, "'%s': expected a number "
                       ">= 0%s", key, nullable ? " or null" : "");
    *num = v->num;
    return 0;
}

/* One run's summary.json at path as a run named id in directory dir;
 * with coords, also its load and models (a demo's runs). */
static int load_json_run(struct rpt *R, const char *path, const char *id,
                         const char *dir, bool coords)
{
    struct dl_json_doc d;
    int rc = dl_json_load(path, &d, R->err);
    if (rc)
        return rc;
    const struct dl_json *o = d.root;
    if (!o || o->type != DL_JSON_OBJECT) {
        dl_json_free(&d);
        return dl_fail(R->err, path, o ? o->line : 1, o ? o->col : 1,
                       "expected a JSON object");
    }
    struct run *r = new_run(R);
    r->id = id;
    r->scenario = r->models = r->error = r->load_text = "";
    r->dir = dir;
    if (coords) {
        const struct dl_json *v = dl_json_get(o, "load");
        if (v && v->type == DL_JSON_NUMBER && v->num > 0) {
            char b[64];
            snprintf(b, sizeof b, "%g", v->num);
            r->load = v->num;
            r->load_text = adup(R, b);
        }
        v = dl_json_get(o, "models");
        if (v && v->type == DL_JSON_STRING)
            r->models = adup(R, v->str);
    }
    if (!(rc = json_member(R, path, o, "policy", &r->policy, NULL, false)) &&
        !(rc = json_member(R, path, o, "trace", &r->trace, NULL, false)) &&
        !(rc = json_member(R, path, o, "cluster", &r->cluster, NULL, false)) &&
        !(rc = json_member(R, path, o, "seed", &r->seed, NULL, false)))
        for (int m = 0; m < NMET && !rc; m++) {
            /* a metric some run lacks (an older summary.json) is no value
             * there, not 0, and still a column for the runs that have it */
            bool here = met[m].need || dl_json_get(o, met[m].col);
            R->has[m] |= here;
            r->v[m] = NAN;
            if (here && !(rc = json_member(R, path, o, met[m].col, NULL,
                                           &r->v[m], met[m].nullable)))
                r->v[m] *= met[m].scale;
        }
    if (!rc && r->v[M_QOS] > 1) {      /* as summary.csv's rows */
        const struct dl_json *v = dl_json_get(o, met[M_QOS].col);
        rc = dl_fail(R->err, path, v->line, v->col, "'%s': above 1: %.17g",
                     met[M_QOS].col, r->v[M_QOS]);
    }
    dl_json_free(&d);
    return rc;
}

static int load_single(struct rpt *R, const char *path)
{
    return load_json_run(R, path, "", R->dir, false);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A directory of run directories (what `dlsim demo --out DIR` writes:
 * DIR/<policy>/summary.json ...): each subdirectory holding a
 * summary.json is a run, in name order; 1 when there is none. */
/* A policy's place in dlsim demo's order (past its end: not one). */
static size_t demo_rank(const char *policy)
{
    static const char *const demo[] = { SIM_DEMO_POLICIES };
    size_t k = 0;
    while (k < sizeof demo / sizeof *demo && strcmp(demo[k], policy))
        k++;
    return k;
}

/* The demo's order, then the directory name. */
static int cmp_demo_run(const void *a, const void *b)
{
    const struct run *x = a, *y = b;
    size_t rx = demo_rank(x->policy), ry = demo_rank(y->policy);
    if (rx != ry)
        return rx < ry ? -1 : 1;
    return strcmp(x->id, y->id);
}

static int load_demo(struct rpt *R)
{
    DIR *d = opendir(R->dir);
    if (!d)
        return 1;
    const char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[8192];
        snprintf(p, sizeof p, "%s/%s/summary.json", R->dir, e->d_name);
        if (access(p, F_OK))
            continue;
        xgrow(&names, &cap, n + 1, sizeof *names);
        names[n++] = adup(R, e->d_name);
    }
    closedir(d);
    if (!n) {
        free(names);
        return 1;
    }
    qsort(names, n, sizeof *names, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        size_t l = strlen(R->dir) + strlen(names[i]) + 2;
        char *dir = arena_alloc(R->a, l), p[8192];
        snprintf(dir, l, "%s/%s", R->dir, names[i]);
        snprintf(p, sizeof p, "%s/summary.json", dir);
        rc = load_json_run(R, p, names[i], dir, true);
    }
    free(names);
    /* in the demo's order, so that its first policy is the baseline */
    if (!rc)
        qsort(R->run, R->nrun, sizeof *R->run, cmp_demo_run);
    return rc ? rc : 0;
}

/* ------------------------------------------------------------ grouping */

static bool same_load(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static int cmp_seed(const char *a, const char *b)
{
    long x, y;
    if (!sim_parse_long(a, &x) && !sim_parse_long(b, &y))
        return (x > y) - (x < y);
    return strcmp(a, b);
}

static void build_groups(struct rpt *R)
{
    for (int m = 0; m < NMET; m++) {
        bool any = false;
        for (size_t i = 0; i < R->nrun && met[m].sparse && !any; i++)
            any = !R->run[i].failed && !isnan(R->run[i].v[m]);
        if (met[m].sparse)
            R->has[m] &= any;
    }
    /* policies and settings in order of first appearance */
    for (size_t i = 0; i < R->nrun; i++) {
        struct run *r = &R->run[i];
        uint32_t p = 0, s = 0;
        while (p < R->npol && strcmp(R->pol[p], r->policy))
            p++;
        if (p == R->npol) {
            xgrow(&R->pol, &R->cappol, R->npol + 1, sizeof *R->pol);
            R->pol[R->npol++] = r->policy;
        }
        r->pol = p;
        while (s < R->nset && (strcmp(R->set[s].scenario, r->scenario) ||
                               strcmp(R->set[s].trace, r->trace) ||
                               strcmp(R->set[s].cluster, r->cluster) ||
                               strcmp(R->set[s].models, r->models)))
            s++;
        if (s == R->nset) {
            xgrow(&R->set, &R->capset, R->nset + 1, sizeof *R->set);
            R->set[R->nset++] = (struct setting){
                r->scenario, r->trace, r->cluster, r->models, 0, 0 };
        }
        r->set = s;
    }
    for (uint32_t s = 1; s < R->nset; s++) {
        R->vary[0] |= strcmp(R->set[s].scenario, R->set[0].scenario) != 0;
        R->vary[1] |= strcmp(R->set[s].trace, R->set[0].trace) != 0;
        R->vary[2] |= strcmp(R->set[s].cluster, R->set[0].cluster) != 0;
        R->vary[3] |= strcmp(R->set[s].models, R->set[0].models) != 0;
    }
    /* groups: by setting, then own arrivals, then ascending load */
    R->grp = xcalloc(R->nrun, sizeof *R->grp);
    for (uint32_t s = 0; s < R->nset; s++) {
        uint32_t first = R->ngrp;
        for (size_t i = 0; i < R->nrun; i++) {
            struct run *r = &R->run[i];
            if (r->set != s)
                continue;
            uint32_t g = first;
            while (g < R->ngrp && !same_load(R->grp[g].load, r->load))
                g++;
            if (g == R->ngrp) {
                /* insert in order */
                while (g > first && !isnan(R->grp[g - 1].load) &&
                       (isnan(r->load) || R->grp[g - 1].load > r->load)) {
                    R->grp[g] = R->grp[g - 1];
                    g--;
                }
                R->grp[g] = (struct group){ s, r->load, r->load_text, NULL,
                                            SIM_NONE, false };
                R->ngrp++;
            }
        }
        R->set[s].ref = R->ngrp - 1;
        for (uint32_t g = first; g < R->ngrp; g++)
            R->set[s].nloads += !isnan(R->grp[g].load);
    }
    for (size_t i = 0; i < R->nrun; i++) {
        struct run *r = &R->run[i];
        uint32_t g = 0;
        while (R->grp[g].set != r->set || !same_load(R->grp[g].load, r->load))
            g++;
        r->grp = g;
    }
    /* the runs of each group, in run order */
    uint32_t *start = xcalloc(R->ngrp + 1, sizeof *start);
    uint32_t *idx = xmalloc((R->nrun + 1) * sizeof *idx);
    for (size_t i = 0; i < R->nrun; i++)
        start[R->run[i].grp + 1]++;
    for (uint32_t g = 0; g < R->ngrp; g++)
        start[g + 1] += start[g];
    uint32_t *fill = xmalloc((R->ngrp + 1) * sizeof *fill);
    memcpy(fill, start, (R->ngrp + 1) * sizeof *fill);
    for (size_t i = 0; i < R->nrun; i++)
        idx[fill[R->run[i].grp]++] = (uint32_t)i;
    free(fill);
    /* cells: mean, std and CI per metric; then paired differences */
    double *x = xmalloc((R->nrun + 1) * sizeof *x);
    for (uint32_t g = 0; g < R->ngrp; g++) {
        struct group *G = &R->grp[g];
        struct cell *cl = xcalloc(R->npol, sizeof *cl);
        G->cell = cl;
        const uint32_t *gi = idx + start[g], gn = start[g + 1] - start[g];
        for (uint32_t p = 0; p < R->npol; p++) {
            for (uint32_t k = 0; k < gn; k++)
                if (R->run[gi[k]].pol == p)
                    R->run[gi[k]].failed ? cl[p].failed++ : cl[p].ok++;
            if (cl[p].ok && G->base == SIM_NONE)
                G->base = p;
            for (int m = 0; m < NMET; m++) {
                size_t n = 0;
                for (uint32_t k = 0; k < gn; k++) {
                    const struct run *r = &R->run[gi[k]];
                    if (r->pol == p && !r->failed && !isnan(r->v[m]))
                        x[n++] = r->v[m];
                }
                cl[p].n[m] = (uint32_t)n;
                rpt_mean_std(x, n, &cl[p].mean[m], &cl[p].std[m]);
                rpt_ci95(x, n, &cl[p].lo[m], &cl[p].hi[m]);
            }
        }
        /* pairs: a run of policy p and the baseline's run of the same
         * seed (the group fixes every other coordinate) */
        for (uint32_t p = 0; p < R->npol && G->base != SIM_NONE; p++) {
            if (p == G->base)
                continue;
            for (int m = 0; m < NMET; m++) {
                size_t n = 0;
                for (uint32_t k = 0; k < gn; k++) {
                    const struct run *r = &R->run[gi[k]];
                    if (r->pol != p || r->failed || isnan(r->v[m]))
                        continue;
                    for (uint32_t j = 0; j < gn; j++) {
                        const struct run *b = &R->run[gi[j]];
                        if (b->pol == G->base && !b->failed && !isnan(b->v[m]) &&
                            !strcmp(b->seed, r->seed)) {
                            x[n++] = r->v[m] - b->v[m];
                            break;
                        }
                    }
                }
                cl[p].dn[m] = (uint32_t)n;
                rpt_mean_std(x, n, &cl[p].dmean[m], &cl[p].dstd[m]);
                rpt_ci95(x, n, &cl[p].dlo[m], &cl[p].dhi[m]);
            }
        }
        /* decided by the floor: every finished run's makespan within 2 %
         * of its own floor, in a comparison of two or more policies */
        uint32_t pols = 0, runs = 0, bound = 0;
        for (uint32_t p = 0; p < R->npol; p++)
            pols += cl[p].ok > 0;
        for (uint32_t k = 0; k < gn && R->has[M_FLOOR]; k++) {
            const struct run *r = &R->run[gi[k]];
            if (r->failed || isnan(r->v[M_MAKESPAN]) || isnan(r->v[M_FLOOR]))
                continue;
            runs++;
            bound += r->v[M_FLOOR] > 0 &&
                     r->v[M_MAKESPAN] <= RPT_FLOOR_SLACK * r->v[M_FLOOR];
        }
        G->floor_bound = pols >= 2 && runs && bound == runs;
    }
    free(x);
    free(idx);
    free(start);
}

static void free_groups(struct rpt *R)
{
    for (uint32_t g = 0; g < R->ngrp; g++)
        free(R->grp[g].cell);
    free(R->grp);
}

/* "trace=a.csv, cluster=c, load 0.9" for headings. */
static void group_heading(const struct rpt *R, uint32_t g, char *buf, size_t n)
{
    const struct group *G = &R->grp[g];
    const struct setting *S = &R->set[G->set];
    size_t k = 0;
    buf[0] = '\0';
#define ADD(...) (k += (size_t)snprintf(buf + k, k < n ? n - k : 0, __VA_ARGS__))
    if (*S->scenario)
        ADD("%s, ", S->scenario);
    ADD("trace %s", *S->trace ? S->trace : "?");
    if (*S->cluster)
        ADD(", cluster %s", S->cluster);
    if (*S->models)
        ADD(", models %s", S->models);
    if (isnan(G->load))
        ADD(", %s", R->sweep ? "the trace's own arrivals" : "single run");
    else
        ADD(", load %s", G->load_text);
#undef ADD
}

/* The length of a path's file name without its directory and without
 * the extensions .gz, .csv, .yaml, .yml, .json (at most two); *name is
 * set to its start.  A sweep's generated trace (its canonical text) gives
 * its name. */
static size_t short_name(const char *path, const char **name)
{
    /* a sweep's generated trace, gen(...,name=N) or like(W.yaml,...): N,
     * else gen, or the workload file's name */
    size_t pl = strlen(path);
    if ((!strncmp(path, "gen(", 4) || !strncmp(path, "like(", 5)) && pl &&
        path[pl - 1] == ')') {
        const char *nm = strstr(path, ",name=");
        if (nm) {
            *name = nm + 6;
            return strlen(nm + 6) - 1;
        }
        if (path[0] == 'g') {
            *name = path;
            return 3;
        }
        char stem[256];
        size_t sl = strcspn(path + 5, ",)");
        snprintf(stem, sizeof stem, "%.*s", (int)sl, path + 5);
        const char *v;
        size_t l = short_name(stem, &v);
        *name = path + 5 + (size_t)(v - stem);
        return l;
    }
    const char *v = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t l = strlen(v);
    static const char *const ext[] = { ".gz", ".csv", ".yaml", ".yml",
                                       ".json" };
    for (int round = 0; round < 2; round++)
        for (size_t e = 0; e < sizeof ext / sizeof ext[0]; e++) {
            size_t el = strlen(ext[e]);
            if (l > el && !strncmp(v + l - el, ext[e], el)) {
                l -= el;
                break;
            }
        }
    *name = v;
    return l;
}

/* A short label of a setting for chart axes: what varies between
 * settings (file names without directory and extensions), else the
 * trace's file name. */
static void setting_label(const struct rpt *R, uint32_t s, char *buf, size_t n)
{
    const struct setting *S = &R->set[s];
    const char *f[4] = { S->scenario, S->trace, S->cluster, S->models };
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < 4; i++) {
        if (!R->vary[i])
            continue;
        const char *v = f[i];
        size_t l = strlen(v);
        if (i > 0)
            l = short_name(f[i], &v);
        if (!l)
            continue;
        k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%.*s",
                              k ? " " : "", (int)l, v);
    }
    if (!k) {
        const char *v;
        size_t l = short_name(S->trace, &v);
        snprintf(buf, n, "%.*s", (int)l, l ? v : "all runs");
    }
}

/* ------------------------------------------------------------ gnuplot */

/* A gnuplot single-quoted string: '' for a quote, control bytes -> ' '. */
static void gq(FILE *f, const char *s)
{
    /* gnuplot copies the text into the SVG, escaping only & and <: a byte
     * that is not UTF-8 (or U+FFFE, U+FFFF) becomes U+FFFD and "]]>" gets
     * a space, so that each figure stays well-formed XML (a browser draws
     * nothing of a broken one) */
    const char *start = s;
    fputc('\'', f);
    while (*s) {
        uint32_t c;
        int n = sim_utf8_char(s, &c);
        if (!n || c == 0xfffe || c == 0xffff)
            fputs("\xef\xbf\xbd", f), n = n ? n : 1;
        else if (c == '\'')
            fputs("''", f);
        else if (c < 0x20)
            fputc(' ', f);
        else if (c == '>' && s - start >= 2 && s[-1] == ']' && s[-2] == ']')
            fputs(" >", f);
        else
            fwrite(s, 1, (size_t)n, f);
        s += n;
    }
    fputc('\'', f);
}

/* Starts figure what of a section (setting set, SIM_NONE for all): its
 * plot commands go to a body that fig_end writes once per output format
 * (the data blocks stay in the script, written once).  Sizes in SVG
 * pixels; a PDF is w/100 by h/100 inches. */
static void fig_begin(struct rpt *R, int section, uint32_t set,
                      const char *what, const char *caption, int w, int h)
{
    xgrow(&R->fig, &R->capfig, R->nfig + 1, sizeof *R->fig);
    struct fig *F = &R->fig[R->nfig];
    F->section = section;
    F->set = set;
    F->w = w;
    F->h = h;
    snprintf(F->file, sizeof F->file, "f%03zu.svg", R->nfig);
    snprintf(F->name, sizeof F->name, "f%03zu-%s", R->nfig, what);
    F->caption = adup(R, caption);
    R->nfig++;
    R->gp_main = R->gp;
    R->gp = open_memstream(&R->body, &R->nbody);
    DL_ASSERT(R->gp);
    fputs("set grid ytics lc rgb '#dddddd'\nset key outside right top\n"
          "set border 3\nset tics nomirror\n", R->gp);
}

/* The body once per format: the page's SVG (html or svg asked), then
 * PDF and PNG through gnuplot's cairo terminals. */
static void fig_end(struct rpt *R)
{
    fclose(R->gp);
    R->gp = R->gp_main;
    const struct fig *F = &R->fig[R->nfig - 1];
    FILE *g = R->gp;
    fprintf(g, "\n# ---- %s: %s\n", F->file, F->name);
    if (R->formats & (RPT_FHTML | RPT_FSVG))
        fprintf(g, "reset\nset terminal svg size %d,%d font 'DejaVu Sans,12' "
                "noenhanced background rgb 'white'\nset output '%s'\n%s"
                "unset output\n", F->w, F->h, F->file, R->body);
    if (R->formats & RPT_FPDF)
        fprintf(g, "reset\nset terminal pdfcairo size %.2fin,%.2fin font "
                "'DejaVu Sans,9' noenhanced\nset output '%s.pdf'\n%s"
                "unset output\n", F->w / 100.0, F->h / 100.0, F->name, R->body);
    if (R->formats & RPT_FPNG)
        fprintf(g, "reset\nset terminal pngcairo size %d,%d font 'DejaVu Sans,9' "
                "noenhanced background rgb 'white'\nset output '%s.png'\n%s"
                "unset output\n", F->w, F->h, F->name, R->body);
    free(R->body);
    R->body = NULL;
}

static const char *pcolour(uint32_t p)
{
    return colour[p % NCOLOUR];
}

/* A policy's line style besides its colour, so that no line is told
 * apart by colour alone: a dash type and a point type of its own for the
 * first 20 policies (and then repeating with other colours). */
static int pdash(uint32_t p)
{
    return (int)(p % 5) + 1;
}

static int ppoint(uint32_t p)
{
    static const int pt[] = { 7, 5, 9, 11, 13, 6, 4, 8, 10, 12, 1, 2, 3 };
    return pt[p % (sizeof pt / sizeof *pt)];
}

/* A panel's title or axis label "setting @ load L" of group g. */
static void group_label(const struct rpt *R, uint32_t g, char *buf, size_t n)
{
    char lab[512];
    setting_label(R, R->grp[g].set, lab, sizeof lab);
    if (!isnan(R->grp[g].load))
        snprintf(buf, n, "%s @ load %s", lab, R->grp[g].load_text);
    else
        snprintf(buf, n, "%s", lab);
}

/* Multiplot layout of k panels: at most 3 a row. */
static void panel_grid(uint32_t k, uint32_t *rows, uint32_t *cols)
{
    *cols = k < 3 ? k : 3;
    *rows = k ? (k + *cols - 1) / *cols : 0;
}

/* The bars of metric m in group g (diff: the paired differences against
 * the group's baseline, which has no bar), one row per policy with a
 * value: "i mean lo hi n rgb", lo and hi the error bar (mean +- the
 * sample standard deviation, or for diff the 95 % CI) and equal to the
 * mean for one seed or one pair, which draws no bar.  Written as data
 * block name; the policies of the bars into pols.  Returns their count. */
static uint32_t bar_block(struct rpt *R, uint32_t g, int m, bool diff,
                          const char *name, uint32_t *pols)
{
    const struct group *G = &R->grp[g];
    uint32_t nb = 0;
    for (uint32_t p = 0; p < R->npol; p++) {
        const struct cell *c = &G->cell[p];
        if (diff ? p == G->base || !c->dn[m] : !c->n[m])
            continue;
        if (!nb)
            fprintf(R->gp, "$%s << EOD\n", name);
        uint32_t k = diff ? c->dn[m] : c->n[m];
        double mean = diff ? c->dmean[m] : c->mean[m];
        double lo = k < 2 ? mean : diff ? c->dlo[m] : mean - c->std[m];
        double hi = k < 2 ? mean : diff ? c->dhi[m] : mean + c->std[m];
        unsigned rgb = (unsigned)strtoul(pcolour(p) + 1, NULL, 16);
        fprintf(R->gp, "%u %.9g %.9g %.9g %u %u\n", nb, mean, lo, hi, k, rgb);
        pols[nb++] = p;
    }
    if (nb)
        fputs("EOD\n", R->gp);
    return nb;
}

/* Bottom margin (character heights) for policy names on an x axis
 * rotated by deg degrees (a character about 0.45 of a line high). */
static int name_margin(const struct rpt *R, const uint32_t *pols, uint32_t n,
                       int deg)
{
    size_t w = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t l = strlen(R->pol[pols[i]]);
        w = l > w ? l : w;
    }
    int bm = 2 + (int)ceil((double)w * 0.45 * sin(deg * M_PI / 180));
    return bm < 3 ? 3 : bm > 18 ? 18 : bm;
}

/* The rotation of policy names under bars spaced px pixels apart:
 * slanted where they fit (a label height, 15 px, apart), else upright. */
static int name_angle(double px)
{
    return px >= 28 ? 35 : 90;
}

/* The plot of one bar panel (block name, from bar_block): the policies
 * named on the x axis, the y axis labelled with the unit, error bars
 * only where there are two or more seeds (pairs); floor_row >= 0: also
 * the makespan floor of row floor_row of $floor_makespan. */
static void bar_plot(struct rpt *R, const char *name, const uint32_t *pols,
                     uint32_t n, int m, bool diff, const char *title,
                     int bmargin, int deg, int floor_row)
{
    FILE *g = R->gp;
    fputs("unset label\nunset arrow\nset title ", g);
    gq(g, title ? title : "");
    fprintf(g, "\nset boxwidth 0.7 absolute\nset style fill solid 0.85 border "
            "lc rgb '#333333'\nset xrange [-0.6:%.1f]\n%sset bmargin %d\n"
            "set xtics rotate by -%d left scale 0 (", n - 0.4,
            diff ? "set xzeroaxis lt -1\nset yrange [*:*]\n" : "set yrange [0:*]\n",
            bmargin, deg);
    for (uint32_t i = 0; i < n; i++) {
        gq(g, R->pol[pols[i]]);
        fprintf(g, " %u%s", i, i + 1 < n ? ", " : ")\n");
    }
    fputs("set ylabel ", g);
    char yl[800];
    if (diff)
        snprintf(yl, sizeof yl, "difference in %s", met[m].ylab);
    else
        snprintf(yl, sizeof yl, "%s", met[m].ylab);
    gq(g, yl);
    fprintf(g, "\nunset key\nplot %s using 1:2:6 with boxes lc rgb variable, "
            "%s using 1:($5 > 1 ? $2 : NaN):3:4 with yerrorbars lc rgb 'black' "
            "pt -1 lw 1.2", name, name);
    if (floor_row >= 0)
        fprintf(g, ", $floor_makespan every ::%d::%d using (-0.6):2:(%u.2):(0) "
                "with vectors nohead lw 2.5 dt 2 lc rgb 'black'", floor_row,
                floor_row, n);
    fputc('\n', g);
}

/* The makespan floor of each setting's reference group (the mean over its
 * runs of makespan_floor) as $floor_makespan, rows "s floor"; row[s] its
 * row (-1: none). */
static void floor_block(struct rpt *R, int *row)
{
    int k = 0;
    fputs("$floor_makespan << EOD\n", R->gp);
    for (uint32_t s = 0; s < R->nset; s++) {
        double sum = 0;
        size_t n = 0;
        for (size_t i = 0; i < R->nrun; i++) {
            const struct run *r = &R->run[i];
            if (r->grp == R->set[s].ref && !r->failed && !isnan(r->v[M_FLOOR]))
                sum += r->v[M_FLOOR], n++;
        }
        row[s] = n ? k++ : -1;
        if (n)
            fprintf(R->gp, "%u %.9g\n", s, sum / (double)n);
    }
    fputs("EOD\n", R->gp);
}

/* One bar chart per metric, a panel per setting (its reference group),
 * one bar per policy, named on the x axis; error bars = the sample std
 * over seeds where there are two or more.  With diff, the paired
 * differences against each group's baseline (no bar for the baseline),
 * error bars = their 95 % CI where there are two pairs or more.  The
 * makespan chart also marks each setting's floor. */
static void draw_bars(struct rpt *R, int m, bool diff)
{
    uint32_t S = R->nset, P = R->npol;
    const char *kind = diff ? "diff" : "bars";
    uint32_t *pols = xmalloc(S * P * sizeof *pols), *nb = xcalloc(S, sizeof *nb);
    uint32_t panels = 0, most = 0;
    bool err = false;
    for (uint32_t s = 0; s < S; s++) {
        char name[96];
        snprintf(name, sizeof name, "%s_%s_s%u", kind, met[m].key, s);
        nb[s] = bar_block(R, R->set[s].ref, m, diff, name, pols + s * P);
        panels += nb[s] > 0;
        most = nb[s] > most ? nb[s] : most;
        const struct group *G = &R->grp[R->set[s].ref];
        for (uint32_t i = 0; i < nb[s]; i++)
            err |= (diff ? G->cell[pols[s * P + i]].dn[m]
                         : G->cell[pols[s * P + i]].n[m]) > 1;
    }
    if (!panels) {
        if (!diff)
            note(R, "No run has a value of %s (for the QoS rate: no job has a "
                 "deadline), so it has no bar chart.", met[m].col);
        free(pols);
        free(nb);
        return;
    }
    bool floor = !diff && m == M_MAKESPAN && R->has[M_FLOOR];
    int *frow = xmalloc(S * sizeof *frow);
    if (floor)
        floor_block(R, frow);
    /* the baseline the differences are taken against */
    const char *base = NULL;
    bool one_base = true;
    for (uint32_t s = 0; s < S; s++) {
        uint32_t b = R->grp[R->set[s].ref].base;
        if (b == SIM_NONE)
            continue;
        one_base &= !base || !strcmp(base, R->pol[b]);
        base = base ? base : R->pol[b];
    }
    char cap[1400], title[600];
    const char *where = S > 1 || R->set[0].nloads ? "; a panel per setting, at "
                        "its highest load" : "";
    const char *bars = err ? (diff ? "error bars: 95 % confidence interval of "
                              "the paired difference (t distribution), drawn "
                              "where there are two pairs or more"
                                   : "error bars: sample standard deviation "
                              "over seeds, drawn where there are two seeds or "
                              "more")
                           : diff ? "one pair each: no error bars"
                                  : "one seed each: no error bars";
    if (diff) {
        snprintf(cap, sizeof cap, "Paired differences in %s against %s%s%s: "
                 "each policy minus the baseline on the same seed (the same "
                 "workload), mean over the pairs; %s%s", met[m].title,
                 one_base ? "" : "each setting's first policy",
                 one_base ? base : "", one_base ? " (the first policy)" : "",
                 bars, where);
        snprintf(title, sizeof title, "Paired difference: %s, policy - %s",
                 met[m].title, one_base ? base : "first policy");
    } else {
        snprintf(cap, sizeof cap, "%s per policy (mean over seeds, not a "
                 "difference; %s)%s%s", met[m].title, bars,
                 floor ? "; dashed black line: the makespan floor" : "", where);
        snprintf(title, sizeof title, "%s", met[m].title);
    }
    uint32_t rows, cols;
    panel_grid(panels, &rows, &cols);
    int pw = 150 + (int)most * 34;
    pw = pw < 300 ? 300 : pw > 700 ? 700 : pw;
    int deg = name_angle((pw - 110.0) / (most + 0.2)), bm = 3;
    for (uint32_t s = 0; s < S; s++) {
        int b = name_margin(R, pols + s * P, nb[s], deg);
        bm = b > bm ? b : bm;
    }
    int w = (int)cols * pw, h = 60 + (int)rows * (240 + bm * 14);
    char what[64];
    snprintf(what, sizeof what, "%s-%s", kind, met[m].key);
    fig_begin(R, S_BARS, SIM_NONE, what, cap, w < 560 ? 560 : w, h);
    fprintf(R->gp, "set multiplot layout %u,%u title ", rows, cols);
    gq(R->gp, title);
    fputc('\n', R->gp);
    for (uint32_t s = 0; s < S; s++) {
        if (!nb[s])
            continue;
        char name[96], lab[700];
        snprintf(name, sizeof name, "$%s_%s_s%u", kind, met[m].key, s);
        group_label(R, R->set[s].ref, lab, sizeof lab);
        bar_plot(R, name, pols + s * P, nb[s], m, diff, S > 1 ? lab : NULL,
                 bm, deg, floor ? frow[s] : -1);
    }
    fputs("unset multiplot\n", R->gp);
    fig_end(R);
    free(frow);
    free(pols);
    free(nb);
}

/* The headline figure: the headline group's (the first setting's
 * reference group) main metrics side by side, policies named. */
static void draw_headline(struct rpt *R)
{
    static const int hm[] = { M_QOS, M_UEFF, M_MAKESPAN, M_WAIT, M_JCT };
    uint32_t g = R->set[0].ref, P = R->npol;
    uint32_t *pols = xmalloc(5 * P * sizeof *pols), nb[5], panels = 0;
    bool err = false;
    for (int i = 0; i < 5; i++) {
        char name[64];
        snprintf(name, sizeof name, "head_%s", met[hm[i]].key);
        nb[i] = bar_block(R, g, hm[i], false, name, pols + i * P);
        panels += nb[i] > 0;
        for (uint32_t k = 0; k < nb[i]; k++)
            err |= R->grp[g].cell[pols[i * P + k]].n[hm[i]] > 1;
    }
    if (!panels) {
        free(pols);
        return;
    }
    uint32_t most = 0;
    for (int i = 0; i < 5; i++)
        most = nb[i] > most ? nb[i] : most;
    int pw = 100 + (int)most * 22;
    pw = pw < 220 ? 220 : pw;
    int deg = name_angle((pw - 100.0) / (most + 0.2)), bm = 3;
    for (int i = 0; i < 5; i++) {
        int b = name_margin(R, pols + i * P, nb[i], deg);
        bm = b > bm ? b : bm;
    }
    char head[1024], cap[1400];
    group_heading(R, g, head, sizeof head);
    snprintf(cap, sizeof cap, "The headline comparison (%s): the table's "
             "metrics per policy, mean over seeds%s", head,
             err ? "; error bars: sample standard deviation over seeds, where "
                   "there are two or more" : "; one seed each: no error bars");
    fig_begin(R, S_HEAD, SIM_NONE, "headline", cap, (int)panels * pw + 20,
              260 + bm * 14);
    fprintf(R->gp, "set multiplot layout 1,%u\n", panels);
    for (int i = 0; i < 5; i++) {
        if (!nb[i])
            continue;
        char name[64];
        snprintf(name, sizeof name, "$head_%s", met[hm[i]].key);
        bar_plot(R, name, pols + i * P, nb[i], hm[i], false, met[hm[i]].title,
                 bm, deg, -1);
    }
    fputs("unset multiplot\n", R->gp);
    fig_end(R);
    free(pols);
}

/* Metric versus load for setting s: one line per policy (its own colour,
 * dash and point type, named in the key), error bars (sample std) where
 * there are two seeds or more. */
static void draw_load(struct rpt *R, uint32_t s, int m)
{
    bool any = false, err = false;
    for (uint32_t p = 0; p < R->npol; p++) {
        uint32_t rows = 0;
        for (uint32_t k = 0; k < R->ngrp; k++) {
            const struct group *G = &R->grp[k];
            rows += G->set == s && !isnan(G->load) && G->cell[p].n[m] > 0;
        }
        if (!rows)
            continue;
        any = true;
        fprintf(R->gp, "$load_%s_s%u_p%u << EOD\n", met[m].key, s, p);
        for (uint32_t k = 0; k < R->ngrp; k++) {
            const struct group *G = &R->grp[k];
            if (G->set == s && !isnan(G->load) && G->cell[p].n[m] > 0) {
                fprintf(R->gp, "%.9g %.9g %.9g %u\n", G->load, G->cell[p].mean[m],
                        G->cell[p].std[m], G->cell[p].n[m]);
                err |= G->cell[p].n[m] > 1;
            }
        }
        fputs("EOD\n", R->gp);
    }
    if (!any)
        return;
    char lab[512], cap[1024], title[700], what[64];
    setting_label(R, s, lab, sizeof lab);
    snprintf(cap, sizeof cap, "%s versus offered load, %s (mean over seeds%s)",
             met[m].title, lab, err ? "; error bars: sample standard deviation, "
             "where there are two seeds or more" : "; one seed each");
    snprintf(title, sizeof title, "%s vs load (%s)", met[m].title, lab);
    snprintf(what, sizeof what, "load-%s-s%u", met[m].key, s);
    fig_begin(R, S_LOAD, s, what, cap, 900, 420);
    FILE *g = R->gp;
    fputs("set title ", g);
    gq(g, title);
    fputs("\nset xlabel 'offered load'\nset ylabel ", g);
    gq(g, met[m].ylab);
    fputs("\nset yrange [0:*]\nset offsets graph 0.03, graph 0.03, 0, 0\nplot", g);
    bool first = true;
    for (uint32_t p = 0; p < R->npol; p++) {
        bool has = false;
        for (uint32_t k = 0; k < R->ngrp; k++)
            has |= R->grp[k].set == s && !isnan(R->grp[k].load) &&
                   R->grp[k].cell[p].n[m] > 0;
        if (!has)
            continue;
        fprintf(g, "%s $load_%s_s%u_p%u using 1:2 with linespoints lw 1.5 dt %d "
                "pt %d ps 0.9 lc rgb '%s' title ", first ? "" : ",", met[m].key,
                s, p, pdash(p), ppoint(p), pcolour(p));
        gq(g, R->pol[p]);
        fprintf(g, ", $load_%s_s%u_p%u using 1:2:($4 > 1 ? $3 : NaN) with "
                "yerrorbars pt -1 lc rgb '%s' notitle", met[m].key, s, p,
                pcolour(p));
        first = false;
    }
    fputc('\n', g);
    fig_end(R);
}

/* Opens a run's file and reads its header (columns names[0..n) into
 * idx, required as req says); a missing file is a note (the page says
 * what was left out), any other failure an error.  1 when missing. */
static int open_run_file(struct rpt *R, const struct run *r, const char *name,
                         struct dl_csv *c, char *path, size_t pn,
                         const char *const *names, const bool *req, int n,
                         int *idx)
{
    snprintf(path, pn, "%s/%s", r->dir, name);
    if (access(path, F_OK) && errno == ENOENT) {
        if (R->sweep)
            note(R, "Run %s (%s, seed %s): runs/%s/%s is missing; left out.",
                 r->id, r->policy, r->seed, r->id, name);
        else
            note(R, "%s is missing; left out.", name);
        return 1;
    }
    int rc = dl_csv_open(c, path, &csv_rules, R->err);
    if (!rc)
        rc = dl_csv_header(c, names, req, n, idx, R->err);
    if (rc)
        dl_csv_close(c);
    return rc;
}

struct vec {
    double *x;
    size_t n, cap;
};

static void vpush(struct vec *v, double x)
{
    xgrow(&v->x, &v->cap, v->n + 1, sizeof *v->x);
    v->x[v->n++] = x;
}

/* Reads jct and wait_time (hours) of the finished jobs of run r. */
static int read_jobs(struct rpt *R, const struct run *r, struct vec *jct,
                     struct vec *wait, size_t *unfinished)
{
    static const char *const names[] = { "jct", "wait_time" };
    struct dl_csv c;
    char path[4096];
    int idx[2];
    int rc = open_run_file(R, r, "jobs.csv", &c, path, sizeof path, names,
                           NULL, 2, idx);
    if (rc)
        return rc > 0 ? 0 : rc;
    while ((rc = dl_csv_row(&c, R->err)) == 1) {
        double a, b;
        if ((rc = csv_num(&c, idx[0], "jct", true, &a, R->err)) ||
            (rc = csv_num(&c, idx[1], "wait_time", true, &b, R->err)))
            break;
        if (isnan(a) || isnan(b)) {
            ++*unfinished;
            continue;
        }
        vpush(jct, a / 3600);
        vpush(wait, b / 3600);
    }
    dl_csv_close(&c);
    return rc < 0 ? rc : 0;
}

/* JCT and wait CDFs of the reference group of setting s, on a log time
 * axis that shows the mass at zero: a tic "0" half a decade left of the
 * smallest decade drawn, where each curve starts at the fraction of jobs
 * whose value is 0 (a marker there), so a policy that never waits is a
 * marker at (0, 1), not a vertical line.  Policies differ in colour, dash
 * and marker (markers at about ten points of each curve). */
static int draw_cdfs(struct rpt *R, uint32_t s)
{
    uint32_t g = R->set[s].ref, P = R->npol;
    struct vec *jct = xcalloc(P, sizeof *jct), *wait = xcalloc(P, sizeof *wait);
    size_t unfinished = 0, k = RPT_CDF_POINTS;
    double *px = xmalloc(k * sizeof *px), *pf = xmalloc(k * sizeof *pf);
    size_t *rows = xcalloc(P, sizeof *rows);
    int rc = 0;
    for (size_t i = 0; i < R->nrun && !rc; i++) {
        const struct run *r = &R->run[i];
        if (r->grp == g && !r->failed)
            rc = read_jobs(R, r, &jct[r->pol], &wait[r->pol], &unfinished);
    }
    char lab[512], head[1024];
    group_heading(R, g, head, sizeof head);
    setting_label(R, s, lab, sizeof lab);
    for (int kind = 0; kind < 2 && !rc; kind++) {
        struct vec *v = kind ? wait : jct;
        const char *what = kind ? "wait" : "jct";
        /* the smallest and largest value above 0 over the policies */
        double lo = INFINITY, hi = 0;
        bool any = false, zeros = false;
        for (uint32_t p = 0; p < P; p++) {
            if (!v[p].n)
                continue;
            any = true;
            qsort(v[p].x, v[p].n, sizeof *v[p].x, cmp_double);
            for (size_t i = 0; i < v[p].n; i++)
                if (v[p].x[i] > 0) {
                    lo = fmin(lo, v[p].x[i]);
                    break;
                }
            hi = fmax(hi, v[p].x[v[p].n - 1]);
            zeros |= v[p].x[0] <= 0;
        }
        if (!any)
            continue;
        if (!(lo < INFINITY))           /* all zero: a decade from 1 s */
            lo = hi = 1.0 / 3600;
        double d = floor(log10(lo)), x0 = pow(10, d - 0.5);
        for (uint32_t p = 0; p < P; p++) {
            if (!v[p].n)
                continue;
            size_t m = rpt_cdf_points(v[p].x, v[p].n, k, px, pf), z = 0;
            while (z < v[p].n && v[p].x[z] <= 0)
                z++;
            fprintf(R->gp, "$cdf_%s_s%u_p%u << EOD\n", what, s, p);
            /* the start: the fraction at zero at the "0" tic, else F = 0 at
             * the smallest value */
            if (z)
                fprintf(R->gp, "%.9g %.9g\n", x0, (double)z / (double)v[p].n);
            else
                fprintf(R->gp, "%.9g 0\n", px[0]);
            rows[p] = 1;
            for (size_t i = 0; i < m; i++)
                if (px[i] > 0) {
                    fprintf(R->gp, "%.9g %.9g\n", px[i], pf[i]);
                    rows[p]++;
                }
            fputs("EOD\n", R->gp);
        }
        char cap[1400], title[700], fw[64];
        snprintf(cap, sizeof cap, "CDF of %s over the finished jobs%s (%s); "
                 "log time axis%s; policies differ in colour, dash and marker",
                 kind ? "wait time" : "job completion time",
                 R->sweep ? ", all seeds pooled" : "", head,
                 zeros ? ", jobs with a value of 0 at the tic '0' (a curve "
                         "starts there at their fraction)" : "");
        snprintf(title, sizeof title, "%s CDF (%s)", kind ? "Wait" : "JCT", lab);
        snprintf(fw, sizeof fw, "cdf-%s-s%u", what, s);
        fig_begin(R, S_CDF, s, fw, cap, 900, 420);
        FILE *f = R->gp;
        fputs("set title ", f);
        gq(f, title);
        fprintf(f, "\nset logscale x 10\nset format x '%%g'\nset xlabel '%s "
                "(hours, log scale%s)'\nset ylabel 'fraction of jobs (CDF)'\n"
                "set yrange [0:1.02]\nset xrange [%.9g:%.9g]\n",
                kind ? "wait time" : "job completion time",
                zeros ? "; 0 at the left" : "", pow(10, d - 0.8),
                pow(10, ceil(log10(hi * 1.0001)) + 0.05));
        if (zeros)
            fprintf(f, "set xtics add ('0' %.9g)\nset arrow from %.9g, graph 0 "
                    "to %.9g, graph 1 nohead dt 3 lc rgb '#999999'\n", x0,
                    pow(10, d - 0.25), pow(10, d - 0.25));
        fputs("plot", f);
        bool first = true;
        for (uint32_t p = 0; p < P; p++) {
            if (!v[p].n)
                continue;
            size_t every = rows[p] > 10 ? rows[p] / 10 : 1;
            fprintf(f, "%s $cdf_%s_s%u_p%u using 1:2 with steps lw 1.5 dt %d "
                    "lc rgb '%s' notitle, $cdf_%s_s%u_p%u every %zu using 1:2 "
                    "with points pt %d ps 0.9 lc rgb '%s' notitle, keyentry "
                    "with linespoints lw 1.5 dt %d pt %d lc rgb '%s' title ",
                    first ? "" : ",", what, s, p, pdash(p), pcolour(p), what, s,
                    p, every, ppoint(p), pcolour(p), pdash(p), ppoint(p),
                    pcolour(p));
            gq(f, R->pol[p]);
            first = false;
        }
        fputc('\n', f);
        fig_end(R);
    }
    if (!rc && unfinished)
        note(R, "%s: %zu unfinished job(s) are left out of the CDFs.", head,
             unfinished);
    for (uint32_t p = 0; p < P; p++) {
        free(jct[p].x);
        free(wait[p].x);
    }
    free(jct);
    free(wait);
    free(px);
    free(pf);
    free(rows);
    return rc;
}

/* The finished run of policy p in group g with the smallest seed (NULL:
 * none): the one whose time series and occupancy are drawn. */
static const struct run *smallest_seed(const struct rpt *R, uint32_t g,
                                       uint32_t p)
{
    const struct run *best = NULL;
    for (size_t i = 0; i < R->nrun; i++) {
        const struct run *r = &R->run[i];
        if (r->grp == g && r->pol == p && !r->failed &&
            (!best || cmp_seed(r->seed, best->seed) < 0))
            best = r;
    }
    return best;
}

/* Writes the binned time series of run r as data block $ts_s<s>_p<p>:
 * hours, queued jobs, util_alloc, util_effective, util_useful (NaN when
 * the file has no such column: *useful false), consecutive rows averaged
 * into at most RPT_TS_POINTS bins.  0 rows: *rows = 0.  *tmax, *qmax: the
 * largest time (hours) and binned queue; *win: a bin's span (hours). */
static int write_ts(struct rpt *R, const struct run *r, uint32_t s,
                    size_t *rows, bool *useful, double *tmax, double *qmax,
                    double *win)
{
    static const char *const names[] = { "time", "queued_jobs", "util_alloc",
                                         "util_effective", "util_useful" };
    static const bool req[] = { true, true, true, true, false };
    struct dl_csv c;
    char path[4096];
    int idx[5];
    *rows = 0;
    int rc = open_run_file(R, r, "timeseries.csv", &c, path, sizeof path,
                           names, req, 5, idx);
    if (rc)
        return rc > 0 ? 0 : rc;
    int it = idx[0], iq = idx[1], ia = idx[2], ie = idx[3], iu = idx[4];
    *useful = iu >= 0;
    /* pass 1: count rows, so that bins are equal runs of rows */
    size_t n = 0;
    while ((rc = dl_csv_row(&c, R->err)) == 1)
        n++;
    dl_csv_close(&c);
    if (rc < 0)
        return rc;
    if (!n) {
        note(R, "%s has no rows (run with --sample 0?); no time series.",
             R->sweep ? path + strlen(R->dir) + 1 : "timeseries.csv");
        return 0;
    }
    if ((rc = dl_csv_open(&c, path, &csv_rules, R->err)) ||
        (rc = dl_csv_header(&c, names, req, 5, idx, R->err))) {
        dl_csv_close(&c);
        return rc;
    }
    size_t bins = n < RPT_TS_POINTS ? n : RPT_TS_POINTS, b = 0, inbin = 0, i = 0;
    double t0 = 0, t1 = 0, tfirst = 0, sq = 0, sa = 0, se = 0, su = 0;
    fprintf(R->gp, "$ts_s%u_p%u << EOD\n", s, r->pol);
    while ((rc = dl_csv_row(&c, R->err)) == 1) {
        double t, q, a, e, u = NAN;
        if ((rc = csv_num(&c, it, "time", false, &t, R->err)) ||
            (rc = csv_num(&c, iq, "queued_jobs", false, &q, R->err)) ||
            (rc = csv_num(&c, ia, "util_alloc", false, &a, R->err)) ||
            (rc = csv_num(&c, ie, "util_effective", false, &e, R->err)) ||
            (iu >= 0 && (rc = csv_num(&c, iu, "util_useful", false, &u, R->err))))
            break;
        if (!inbin)
            t0 = t;
        if (!i)
            tfirst = t;
        t1 = t;
        sq += q, sa += a, se += e, su += u, inbin++, i++;
        if (i == (b + 1) * n / bins) {  /* bin b holds rows up to here */
            fprintf(R->gp, "%.9g %.9g %.9g %.9g %.9g\n", t0 / 3600, sq / inbin,
                    sa / inbin, se / inbin, su / inbin);
            *qmax = fmax(*qmax, sq / inbin);
            sq = sa = se = su = 0;
            inbin = 0;
            b++;
        }
    }
    fputs("EOD\n", R->gp);
    dl_csv_close(&c);
    *rows = n;
    *tmax = fmax(*tmax, t1 / 3600);
    /* a bin spans n / bins sampling intervals */
    *win = n > 1 ? (t1 - tfirst) / (double)(n - 1) * ((double)n / (double)bins)
                       / 3600 : 0;
    return rc < 0 ? rc : 0;
}

/* Utilization and queue over time for setting s as small multiples: a
 * panel per policy (its smallest seed), named in the panel's title, on
 * shared axes; allocated, effective and useful utilization told apart by
 * dash and colour, with a key. */
static int draw_ts(struct rpt *R, uint32_t s)
{
    uint32_t g = R->set[s].ref, P = R->npol;
    bool *has = xcalloc(P, sizeof *has), *use = xcalloc(P, sizeof *use);
    bool binned = false, anyuse = false;
    double tmax = 0, qmax = 0, win = 0;
    int rc = 0;
    for (uint32_t p = 0; p < P && !rc; p++) {
        const struct run *best = smallest_seed(R, g, p);
        size_t rows = 0;
        double w = 0;
        if (best && !(rc = write_ts(R, best, s, &rows, &use[p], &tmax, &qmax, &w)))
            has[p] = rows > 0;
        anyuse |= has[p] && use[p];
        if (rows > RPT_TS_POINTS) {
            binned = true;
            win = fmax(win, w);
        }
    }
    char lab[512], head[1024];
    group_heading(R, g, head, sizeof head);
    setting_label(R, s, lab, sizeof lab);
    uint32_t panels = 0;
    for (uint32_t p = 0; p < P; p++)
        panels += has[p];
    uint32_t prow, pcol;
    panel_grid(panels, &prow, &pcol);
    for (int kind = 0; kind < 2 && panels && !rc; kind++) {
        char cap[1400], title[700], smooth[200] = "", what[64];
        if (binned)
            snprintf(smooth, sizeof smooth, "; consecutive samples averaged over "
                     "windows of %.3g h (at most %d points a curve)", win,
                     RPT_TS_POINTS);
        snprintf(cap, sizeof cap, "%s over time (%s%s%s): a panel per policy on "
                 "shared axes%s", kind ? "Queued jobs" : "GPU utilization", head,
                 R->sweep ? "; one run per policy, its smallest seed" : "",
                 smooth, kind ? "" : anyuse ? "; allocated (solid blue), "
                 "effective (dashed red) and useful (dotted green) utilization"
                 : "; allocated (solid blue) and effective (dashed red) "
                 "utilization");
        snprintf(title, sizeof title, "%s over time (%s)",
                 kind ? "Queued jobs" : "GPU utilization", lab);
        snprintf(what, sizeof what, "%s-s%u", kind ? "queue" : "util", s);
        fig_begin(R, S_TS, s, what, cap, (int)pcol * 430 + 20,
                  50 + (int)prow * 250);
        FILE *f = R->gp;
        fprintf(f, "set multiplot layout %u,%u title ", prow, pcol);
        gq(f, title);
        fprintf(f, "\nset xlabel 'time (hours)'\nset ylabel '%s'\n"
                "set xrange [0:%.9g]\nset yrange [0:%.9g]\nset tmargin 2.5\n"
                "set key at graph 1, graph 1 right bottom horizontal samplen 2 "
                "noautotitle\n", kind ? "queued jobs" : "GPU utilization",
                tmax > 0 ? tmax : 1, kind ? (qmax > 0 ? qmax * 1.05 : 1) : 1.05);
        bool first = true;
        for (uint32_t p = 0; p < P; p++) {
            if (!has[p])
                continue;
            fputs("unset label\nset label 1 ", f);
            gq(f, R->pol[p]);
            fputs(" at graph 0, graph 1.04 left\n", f);
            if (kind) {
                fprintf(f, "plot $ts_s%u_p%u using 1:2 with lines lw 1.2 "
                        "lc rgb '%s' notitle\n", s, p, pcolour(p));
                continue;
            }
            fprintf(f, "plot $ts_s%u_p%u using 1:3 with lines lw 1.2 lc rgb "
                    "'#1f77b4' title %s, $ts_s%u_p%u using 1:4 with lines lw 1.2 "
                    "dt 2 lc rgb '#d62728' title %s", s, p,
                    first ? "'allocated'" : "''", s, p,
                    first ? "'effective'" : "''");
            if (use[p])
                fprintf(f, ", $ts_s%u_p%u using 1:5 with lines lw 1.2 dt 3 "
                        "lc rgb '#2ca02c' title %s", s, p,
                        first ? "'useful'" : "''");
            fputc('\n', f);
            first = false;
        }
        fputs("unset multiplot\n", f);
        fig_end(R);
    }
    free(has);
    free(use);
    return rc;
}

/* ---- occupancy: GPUs x time */

struct occ_seg {
    double t0, t1;              /* seconds */
    uint32_t node, lo, hi;      /* GPUs lo..hi of node */
};

struct occ_run {
    struct occ_seg *seg;
    size_t n, cap;
    uint32_t preempted, running, jobs;
    bool ok;                    /* jobs.csv read, with a placement column */
};

/* Parses a placement (SPEC 4: "nNODE:LO[-HI]" joined by '+') into o's
 * segments; false when it is not one. */
static bool parse_placement(const char *s, double t0, double t1,
                            struct occ_run *o)
{
    while (*s) {
        char *e;
        if (*s != 'n' || s[1] < '0' || s[1] > '9')
            return false;
        unsigned long node = strtoul(s + 1, &e, 10), lo, hi;
        if (*e != ':' || e[1] < '0' || e[1] > '9' || node > 1u << 20)
            return false;
        lo = hi = strtoul(e + 1, &e, 10);
        if (*e == '-') {
            if (e[1] < '0' || e[1] > '9')
                return false;
            hi = strtoul(e + 1, &e, 10);
        }
        /* a node holds at most 64 GPUs (sim/cluster/cluster.h) */
        if (hi < lo || hi >= 64 || (*e && *e != '+'))
            return false;
        xgrow(&o->seg, &o->cap, o->n + 1, sizeof *o->seg);
        o->seg[o->n++] = (struct occ_seg){ t0, t1, (uint32_t)node, (uint32_t)lo,
                                           (uint32_t)hi };
        s = *e ? e + 1 : e;
    }
    return true;
}

/* Reads where and when run r's jobs ran: each started job's first
 * placement from its start to its finish; jobs preempted (whose later
 * placements jobs.csv does not hold) and jobs still running at the end
 * are counted, not drawn. */
static int read_occ(struct rpt *R, const struct run *r, struct occ_run *o)
{
    static const char *const names[] = { "start_time", "finish_time",
                                         "placement", "preemptions" };
    static const bool req[] = { false, false, false, false };
    struct dl_csv c;
    char path[4096];
    int idx[4];
    int rc = open_run_file(R, r, "jobs.csv", &c, path, sizeof path, names, req,
                           4, idx);
    if (rc)
        return rc > 0 ? 0 : rc;
    if (idx[0] < 0 || idx[1] < 0 || idx[2] < 0) {
        dl_csv_close(&c);
        note(R, "%s%s has no start_time, finish_time or placement column: no "
             "occupancy chart of it.", R->sweep ? r->id : "jobs.csv",
             R->sweep ? "/jobs.csv" : "");
        return 0;
    }
    while ((rc = dl_csv_row(&c, R->err)) == 1) {
        double t0, t1, pre = 0;
        if ((rc = csv_num(&c, idx[0], "start_time", true, &t0, R->err)) ||
            (rc = csv_num(&c, idx[1], "finish_time", true, &t1, R->err)) ||
            (idx[3] >= 0 &&
             (rc = csv_num(&c, idx[3], "preemptions", true, &pre, R->err))))
            break;
        const char *pl = dl_csv_fld(&c, idx[2]);
        if (isnan(t0) || !*pl)
            continue;               /* never started */
        o->jobs++;
        if (pre > 0) {
            o->preempted++;
            continue;
        }
        if (isnan(t1)) {
            o->running++;
            continue;
        }
        if (t1 < t0 || !parse_placement(pl, t0, t1, o)) {
            rc = dl_csv_fail_at(&c, idx[t1 < t0 ? 1 : 2], R->err, t1 < t0 ?
                                "finish_time before start_time" : "column "
                                "'placement': not nNODE:GPU[-GPU][+...]: '%s'",
                                pl);
            break;
        }
    }
    dl_csv_close(&c);
    o->ok = rc >= 0;
    return rc < 0 ? rc : 0;
}

/* The occupancy chart of setting s: a panel per policy (its smallest
 * seed), GPUs (rows, grouped by node) x time, each cell coloured by the
 * mean number of jobs on the GPU(s) over its time bin: white idle, blue
 * one job, orange two sharing, red three or more. */
static int draw_occupancy(struct rpt *R, uint32_t s)
{
    uint32_t g = R->set[s].ref, P = R->npol;
    struct occ_run *o = xcalloc(P, sizeof *o);
    int rc = 0;
    for (uint32_t p = 0; p < P && !rc; p++) {
        const struct run *best = smallest_seed(R, g, p);
        if (best)
            rc = read_occ(R, best, &o[p]);
    }
    /* the GPUs: per node, the highest GPU index any job used */
    uint32_t nnode = 0, *ngpu = NULL, panels = 0;
    size_t capn = 0;
    double tmax = 0;
    for (uint32_t p = 0; p < P && !rc; p++)
        for (size_t i = 0; i < o[p].n; i++) {
            const struct occ_seg *q = &o[p].seg[i];
            if (q->node >= nnode) {
                xgrow(&ngpu, &capn, q->node + 1, sizeof *ngpu);
                memset(ngpu + nnode, 0, (q->node + 1 - nnode) * sizeof *ngpu);
                nnode = q->node + 1;
            }
            ngpu[q->node] = q->hi + 1 > ngpu[q->node] ? q->hi + 1 : ngpu[q->node];
            tmax = fmax(tmax, q->t1);
        }
    /* nodes < 2^20 of at most 64 GPUs: the rows fit in 32 bits */
    uint32_t *first = xcalloc(nnode + 1, sizeof *first);
    for (uint32_t n = 0; n < nnode; n++)
        first[n + 1] = first[n] + ngpu[n];
    uint32_t NR = first[nnode];
    for (uint32_t p = 0; p < P; p++)
        panels += o[p].ok && o[p].n > 0;
    if (rc || !panels || !(tmax > 0)) {
        for (uint32_t p = 0; p < P; p++)
            free(o[p].seg);
        free(o);
        free(ngpu);
        free(first);
        return rc;
    }
    /* rows of k GPUs each, at most RPT_OCC_ROWS; RPT_OCC_BINS time bins */
    uint32_t k = (NR + RPT_OCC_ROWS - 1) / RPT_OCC_ROWS, DR = (NR + k - 1) / k;
    const uint32_t TB = RPT_OCC_BINS;
    double bw = tmax / TB;
    double *cell = xmalloc((size_t)DR * TB * sizeof *cell);
    uint32_t preempted = 0, running = 0;
    for (uint32_t p = 0; p < P; p++) {
        if (!o[p].ok || !o[p].n)
            continue;
        preempted += o[p].preempted;
        running += o[p].running;
        memset(cell, 0, (size_t)DR * TB * sizeof *cell);
        for (size_t i = 0; i < o[p].n; i++) {
            const struct occ_seg *q = &o[p].seg[i];
            size_t b0 = (size_t)(q->t0 / bw), b1 = (size_t)(q->t1 / bw);
            b1 = b1 >= TB ? TB - 1 : b1;
            for (uint32_t u = q->lo; u <= q->hi; u++) {
                double *row = cell + (size_t)((first[q->node] + u) / k) * TB;
                for (size_t b = b0; b <= b1 && b < TB; b++)
                    row[b] += fmin(q->t1, (double)(b + 1) * bw) -
                              fmax(q->t0, (double)b * bw);
            }
        }
        fprintf(R->gp, "$occ_s%u_p%u << EOD\n", s, p);
        for (uint32_t y = 0; y < DR; y++) {
            uint32_t gpus = y + 1 < DR ? k : NR - y * k;
            for (uint32_t b = 0; b < TB; b++) {
                double v = cell[(size_t)y * TB + b] / (bw * gpus);
                fprintf(R->gp, "%s%.3g", b ? " " : "", v > 3 ? 3 : v < 0 ? 0 : v);
            }
            fputc('\n', R->gp);
        }
        fputs("EOD\n", R->gp);
    }
    free(cell);
    char lab[512], head[1024], cap[2000], title[700], what[64], extra[400] = "";
    group_heading(R, g, head, sizeof head);
    setting_label(R, s, lab, sizeof lab);
    if (preempted || running)
        snprintf(extra, sizeof extra, "; not drawn: %u preempted job(s) (jobs.csv "
                 "holds only a job's first placement) and %u still running at the "
                 "end, over the panels", preempted, running);
    snprintf(cap, sizeof cap, "Occupancy (%s%s): GPUs (rows, by node; GPUs that "
             "no job used are not shown%s) against time, each cell coloured by "
             "the mean number of jobs on the GPU over its %.3g h bin: white idle, "
             "blue one job, orange two sharing, red three or more; from jobs.csv, "
             "each job on its placement from its start to its finish%s", head,
             R->sweep ? "; a panel per policy, its smallest seed" : "",
             k > 1 ? "; each row the mean of consecutive GPUs" : "", bw / 3600,
             extra);
    snprintf(title, sizeof title, "GPU occupancy (%s)", lab);
    snprintf(what, sizeof what, "occupancy-s%u", s);
    uint32_t prow, pcol;
    panel_grid(panels, &prow, &pcol);
    fig_begin(R, S_OCC, s, what, cap, (int)pcol * 430 + 20, 50 + (int)prow * 280);
    FILE *f = R->gp;
    fprintf(f, "set multiplot layout %u,%u title ", prow, pcol);
    gq(f, title);
    fprintf(f, "\nunset grid\nset xlabel 'time (hours)'\nset ylabel 'GPU (node)'\n"
            "set xrange [0:%.9g]\nset yrange [0:%u]\nset cbrange [0:3]\n"
            "set palette defined (0 'white', 1 '#4c72b0', 2 '#dd8452', 3 "
            "'#c44e52')\nset cbtics ('0' 0, '1' 1, '2' 2, '3+' 3)\nset cblabel "
            "'jobs on the GPU'\nset tmargin 2.5\nunset key\nset ytics (", tmax / 3600,
            NR);
    uint32_t used = 0;
    for (uint32_t n = 0; n < nnode; n++)
        used += ngpu[n] > 0;
    uint32_t step = (used + 9) / 10, seen = 0;
    bool firsttic = true;
    for (uint32_t n = 0; n < nnode; n++) {
        if (!ngpu[n] || seen++ % step)
            continue;
        fprintf(f, "%s'n%u' %u", firsttic ? "" : ", ", n, first[n]);
        firsttic = false;
    }
    fputs(")\n", f);
    for (uint32_t p = 0; p < P; p++) {
        if (!o[p].ok || !o[p].n)
            continue;
        char pt[700];
        if (o[p].preempted)
            snprintf(pt, sizeof pt, "%s (%u preempted not drawn)", R->pol[p],
                     o[p].preempted);
        else
            snprintf(pt, sizeof pt, "%s", R->pol[p]);
        fputs("unset label\nset label 1 ", f);
        gq(f, pt);
        fprintf(f, " at graph 0, graph 1.04 left\nplot $occ_s%u_p%u matrix using "
                "(($1 + 0.5) * %.9g):(($2 + 0.5) * %u):3 with image\n", s, p,
                bw / 3600, k);
    }
    fputs("unset multiplot\n", f);
    fig_end(R);
    for (uint32_t p = 0; p < P; p++)
        free(o[p].seg);
    free(o);
    free(ngpu);
    free(first);
    return 0;
}

static char *find_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        const char *e = strchr(path, ':');
        size_t n = e ? (size_t)(e - path) : strlen(path);
        char buf[4096];
        snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)(n ? n : 1), n ? path : ".");
        if (!access(buf, X_OK)) {
            char *abs = realpath(buf, NULL);
            if (abs)
                return abs;
        }
        path += n + (e ? 1 : 0);
        if (!e)
            break;
    }
    return NULL;
}

static int run_gnuplot(struct rpt *R, const char *gnuplot)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return dl_fail_io(R->err, "gnuplot", "cannot fork: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(R->work))
            _exit(126);
        int fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            _exit(126);
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        setenv("LC_ALL", "C", 1);
        setenv("HOME", ".", 1);
        unsetenv("GNUPLOT_LIB");
        unsetenv("GNUTERM");
        unsetenv("XDG_CONFIG_HOME");
        setenv("SOURCE_DATE_EPOCH", "0", 1);    /* cairo's PDF: no date */
        execl(gnuplot, "gnuplot", "report.gp", (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return dl_fail_io(R->err, "gnuplot", "wait: %s", strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    char log[4096], tail[1200] = "";
    snprintf(log, sizeof log, "%s/gnuplot.log", R->work);
    FILE *f = fopen(log, "r");
    if (f) {
        size_t n = fread(tail, 1, sizeof tail - 1, f);
        tail[n] = '\0';
        fclose(f);
    }
    /* the temporary directory is removed on return: name the script only
     * where it stays */
    char script[4200];
    if (R->keep)
        snprintf(script, sizeof script, "%s/report.gp", R->work);
    else
        snprintf(script, sizeof script, "the report's report.gp (rerun with "
                 "--plots DIR to keep it)");
    return dl_fail_io(R->err, "gnuplot", "failed (%s %d) on %s:\n%s",
                      WIFEXITED(st) ? "exit status" : "signal",
                      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), script,
                      tail);
}

/* ------------------------------------------------------------ writing */

static void html_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* Markdown table cell text: '|' escaped, line breaks as spaces. */
static void md_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
}

/* Decimals for four significant digits of ref (0..8); -1 when ref is
 * too large for fixed decimals. */
static int decimals(double ref)
{
    if (!(ref < 1e15))
        return -1;
    int d = ref > 0 ? 3 - (int)floor(log10(ref)) : 0;
    return d < 0 ? 0 : d > 8 ? 8 : d;
}

/* x with d decimals (d < 0: %.4g), sign when plus. */
static int fmt_num(char *buf, size_t n, double x, int d, bool plus)
{
    if (d < 0)
        return snprintf(buf, n, plus ? "%+.4g" : "%.4g", x);
    return snprintf(buf, n, plus ? "%+.*f" : "%.*f", d, x);
}

/* "0.8123 ± 0.0041 [0.8022, 0.8224]": four significant digits of the
 * mean, the standard deviation and the 95 % CI of the mean to the same
 * decimals (the mean alone for one value, "–" for none).  With diff, the
 * paired difference: "+0.0123 [-0.0040, +0.0286]". */
static void fmt_stat(const struct cell *c, int m, bool diff, char *buf, size_t n)
{
    uint32_t k = diff ? c->dn[m] : c->n[m];
    double mean = diff ? c->dmean[m] : c->mean[m];
    double sd = diff ? c->dstd[m] : c->std[m];
    double lo = diff ? c->dlo[m] : c->lo[m], hi = diff ? c->dhi[m] : c->hi[m];
    if (!k) {
        snprintf(buf, n, "–");
        return;
    }
    double ref = diff ? fmax(fabs(mean), sd) : fabs(mean) > 0 ? fabs(mean) : sd;
    int d = decimals(ref);
    size_t w = (size_t)fmt_num(buf, n, mean, d, diff);
    if (k == 1 || w >= n)
        return;
    if (!diff) {
        w += (size_t)snprintf(buf + w, n - w, " ± ");
        if (w < n)
            w += (size_t)fmt_num(buf + w, n - w, sd, d, false);
    }
    if (w < n)
        w += (size_t)snprintf(buf + w, n - w, " [");
    if (w < n)
        w += (size_t)fmt_num(buf + w, n - w, lo, d, diff);
    if (w < n)
        w += (size_t)snprintf(buf + w, n - w, ", ");
    if (w < n)
        w += (size_t)fmt_num(buf + w, n - w, hi, d, diff);
    if (w < n)
        snprintf(buf + w, n - w, "]");
}

/* Whether a table shows metric m (the floor has no paired difference:
 * the policies share it). */
static bool shown(const struct rpt *R, int m, bool diff)
{
    return R->has[m] && !(diff && m == M_FLOOR);
}

/* Whether policy p of group g has a paired difference (p < npol), or
 * any policy of it has (p == npol). */
static bool has_pairs(const struct rpt *R, uint32_t g, uint32_t p)
{
    const struct group *G = &R->grp[g];
    uint32_t lo = p < R->npol ? p : 0, hi = p < R->npol ? p + 1 : R->npol;
    for (uint32_t q = lo; G->base != SIM_NONE && q < hi; q++)
        for (int m = 0; m < NMET; m++)
            if (q != G->base && G->cell[q].dn[m])
                return true;
    return false;
}

static const char floor_flag[] =
    "Makespan set by one job: every makespan lies within 2 % of its floor "
    "(the longest job alone on the fastest GPU type it may use, from its "
    "submit), so it is decided by the floor, not the policies.";

static const char stat_legend[] =
    "Mean ± sample standard deviation over seeds [95 % confidence interval "
    "of the mean, t distribution] (a single value: one seed); times in "
    "hours; – : no value (QoS rate: no job had a deadline).";

/* (a printf format: %s twice, the baseline) */
static const char pair_legend[] =
    "Paired differences against %s, the first policy of this comparison: "
    "each policy's value minus %s's on the same seed (the same workload, "
    "every other coordinate equal), mean over the pairs [95 %% confidence "
    "interval, t distribution].";

/* Whether the table (pass 0: means, 1: paired differences) of group g has
 * a row for policy p; *pairs = its largest number of pairs. */
static bool table_row(const struct rpt *R, uint32_t g, uint32_t p, int pass,
                      uint32_t *pairs)
{
    const struct cell *c = &R->grp[g].cell[p];
    *pairs = 0;
    for (int m = 0; m < NMET; m++)
        if (shown(R, m, pass) && c->dn[m] > *pairs)
            *pairs = c->dn[m];
    return (c->ok || c->failed) && (!pass || has_pairs(R, g, p));
}

/* The paired table's legend for group g (malloc'd). */
static char *pair_text(const struct rpt *R, uint32_t g)
{
    const char *b = R->pol[R->grp[g].base];
    char *leg = xmalloc(sizeof pair_legend + 2 * strlen(b));
    sprintf(leg, pair_legend, b, b);
    return leg;
}

/* DIR/claims.md, when a reproduction script left one (scripts/claims.py:
 * each paper claim against dlsim's paired difference): the page's first
 * section.  NULL when there is none. */
static char *claims_text(const struct rpt *R)
{
    size_t n = strlen(R->dir) + 16, len;
    char *p = xmalloc(n), *buf;
    snprintf(p, n, "%s/claims.md", R->dir);
    struct dl_error err;
    int rc = access(p, R_OK) ? -1 : dl_read_file(p, 1 << 20, 1 << 16, &buf,
                                                 &len, &err);
    free(p);
    return rc ? NULL : buf;
}

/* The claims' Markdown as HTML: "## " headings, pipe tables (the second
 * row, the separator, dropped; the first row the header), paragraphs. */
static void claims_html(FILE *f, const char *md)
{
    bool table = false, header = false;
    for (const char *l = md; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        char *line = xmalloc(n + 1);
        memcpy(line, l, n);
        line[n] = 0;
        l += n + (e != NULL);
        if (line[0] == '|') {
            if (!table) {
                fputs("<div class=\"scroll\"><table>\n", f);
                table = header = true;
            }
            if (strspn(line, "|-: ") == n) {
                free(line);
                continue;
            }
            fputs("<tr>", f);
            char *c = line + 1;
            for (char *bar; (bar = strchr(c, '|')); c = bar + 1) {
                *bar = 0;
                fputs(header ? "<th>" : "<td>", f);
                html_esc(f, c);
                fputs(header ? "</th>" : "</td>", f);
            }
            fputs("</tr>\n", f);
            header = false;
        } else {
            if (table)
                fputs("</table></div>\n", f);
            table = false;
            if (!strncmp(line, "## ", 3)) {
                fputs("<h2 id=\"claims\">", f);
                html_esc(f, line + 3);
                fputs("</h2>\n", f);
            } else if (line[0]) {
                fputs("<p>", f);
                html_esc(f, line);
                fputs("</p>\n", f);
            }
        }
        free(line);
    }
    if (table)
        fputs("</table></div>\n", f);
}

/* ------------------------------------------------------------ tenants */

static const struct tenant *ten_sort_base;

/* Most GPU-hours first (none last), then by name. */
static int cmp_tenant(const void *a, const void *b)
{
    const struct tenant *x = &ten_sort_base[*(const uint32_t *)a];
    const struct tenant *y = &ten_sort_base[*(const uint32_t *)b];
    double gx = x->v[T_GPUH], gy = y->v[T_GPUH];
    if (isnan(gx) != isnan(gy))
        return isnan(gx) ? 1 : -1;
    if (!isnan(gx) && gx != gy)
        return gx > gy ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The tenants of kind k of run r in table order, at most
 * RPT_TENANT_ROWS of them, into ord (malloc'd); returns how many. */
static uint32_t tenant_order(const struct run *r, int k, uint32_t **ord)
{
    uint32_t n = r->nten[k];
    *ord = xmalloc((n ? n : 1) * sizeof **ord);
    for (uint32_t i = 0; i < n; i++)
        (*ord)[i] = i;
    ten_sort_base = r->ten[k];
    qsort(*ord, n, sizeof **ord, cmp_tenant);
    return n < RPT_TENANT_ROWS ? n : RPT_TENANT_ROWS;
}

/* A tenant's figure: counts whole, others to 4 significant digits. */
static void fmt_tenant(char *b, size_t n, double x, bool count)
{
    if (isnan(x))
        snprintf(b, n, "–");
    else if (count || fabs(x) >= 1e4)
        snprintf(b, n, "%.0f", x);
    else
        snprintf(b, n, "%.4g", x);
}

static const char tenant_legend[] =
    "Per tenant, for each policy its run of the smallest seed at the "
    "setting's reference load, the tenants with the most GPU-hours first: "
    "jobs, finished jobs, QoS rate, mean and p99 JCT and wait (hours), "
    "mean slowdown (JCT over the run time alone on the job's first GPU "
    "type) and GPU-hours held.  The fairness figures (Jain's index over "
    "the tenants' mean slowdowns, and the worst of them) are columns of "
    "the tables above.";

/* Whether setting st has a run with tenants. */
static bool has_tenants(const struct rpt *R, uint32_t st)
{
    for (size_t i = 0; i < R->nrun; i++) {
        const struct run *r = &R->run[i];
        if (r->grp == R->set[st].ref && !r->failed &&
            (r->nten[TEN_USER] || r->nten[TEN_VC]))
            return true;
    }
    return false;
}

/* Setting st's tenant tables, HTML (html) or Markdown. */
static void write_tenants(const struct rpt *R, FILE *f, uint32_t st, bool html)
{
    if (!has_tenants(R, st))
        return;
    uint32_t g = R->set[st].ref;
    if (html)
        fprintf(f, "<h3 id=\"tenants-%u\">Tenants</h3>\n<p>%s</p>\n", st,
                tenant_legend);
    else
        fprintf(f, "\n#### Tenants\n\n%s\n", tenant_legend);
    static const char *const kind_name[NTEN] = { "user", "VC" };
    for (uint32_t p = 0; p < R->npol; p++) {
        const struct run *r = smallest_seed(R, g, p);
        if (!r)
            continue;
        for (int k = 0; k < NTEN; k++) {
            if (!r->nten[k])
                continue;
            uint32_t *ord, n = tenant_order(r, k, &ord);
            if (html) {
                fputs("<p><b>", f);
                html_esc(f, R->pol[p]);
                fprintf(f, "</b>, seed ");
                html_esc(f, r->seed);
                fprintf(f, ": %u %s%s</p>\n<table class=\"tenants\" "
                        "data-kind=\"%s\" data-policy=\"", r->nten[k],
                        kind_name[k], DL_PLURAL(r->nten[k]), ten_key[k]);
                html_esc(f, R->pol[p]);
                fprintf(f, "\">\n<tr><th>%s</th>", kind_name[k]);
                for (int c = 0; c < NTCOL; c++)
                    fprintf(f, "<th>%s</th>", tcol[c].head);
                fputs("</tr>\n", f);
            } else {
                fputs("\n", f);
                md_esc(f, R->pol[p]);
                fprintf(f, ", seed %s: %u %s%s\n\n| %s |", r->seed, r->nten[k],
                        kind_name[k], DL_PLURAL(r->nten[k]), kind_name[k]);
                for (int c = 0; c < NTCOL; c++)
                    fprintf(f, " %s |", tcol[c].head);
                fputs("\n| :--- |", f);
                for (int c = 0; c < NTCOL; c++)
                    fputs(" ---: |", f);
                fputs("\n", f);
            }
            for (uint32_t i = 0; i < n; i++) {
                const struct tenant *t = &r->ten[k][ord[i]];
                fputs(html ? "<tr><td>" : "| ", f);
                (html ? html_esc : md_esc)(f, t->name);
                fputs(html ? "</td>" : " |", f);
                for (int c = 0; c < NTCOL; c++) {
                    char b[64];
                    fmt_tenant(b, sizeof b, t->v[c], tcol[c].count);
                    if (!html)
                        fprintf(f, " %s |", b);
                    else if (isnan(t->v[c]))
                        fprintf(f, "<td data-col=\"%s\">%s</td>", tcol[c].key, b);
                    else
                        fprintf(f, "<td data-col=\"%s\" data-value=\"%.17g\">"
                                "%s</td>", tcol[c].key, t->v[c], b);
                }
                fputs(html ? "</tr>\n" : "\n", f);
            }
            if (html)
                fputs("</table>\n", f);
            if (r->nten[k] > n)
                fprintf(f, html ? "<p>… and %u more (the run's summary.json "
                                  "lists all).</p>\n"
                                : "\n… and %u more (the run's summary.json "
                                  "lists all).\n",
                        r->nten[k] - n);
            free(ord);
        }
    }
}

static void write_md(const struct rpt *R, FILE *f)
{
    fprintf(f, "# dlsim report: %s\n\n", R->name);
    char *claims = claims_text(R);
    if (claims) {
        fputs(claims, f);
        fputs("\n", f);
        free(claims);
    }
    fprintf(f, "%s\n", stat_legend);
    for (uint32_t g = 0; g < R->ngrp; g++) {
        const struct group *G = &R->grp[g];
        char head[1024];
        group_heading(R, g, head, sizeof head);
        fputs("\n### ", f);
        md_esc(f, head);
        fputs("\n\n", f);
        if (G->floor_bound)
            fprintf(f, "> **%s**\n\n", floor_flag);
        for (int pass = 0; pass < 2; pass++) {
            if (pass && !has_pairs(R, g, R->npol))
                break;
            if (pass) {
                fputs("\n", f);
                char *leg = pair_text(R, g);
                md_esc(f, leg);
                free(leg);
                fputs("\n\n", f);
            }
            fputs(pass ? "| policy − baseline |" : "| policy |", f);
            for (int m = 0; m < NMET; m++)
                if (shown(R, m, pass))
                    fprintf(f, " %s |", met[m].head);
            fputs(pass ? " pairs |\n| :--- |" : " seeds | failed |\n| :--- |", f);
            for (int m = 0; m < NMET; m++)
                if (shown(R, m, pass))
                    fputs(" ---: |", f);
            fputs(pass ? " ---: |\n" : " ---: | ---: |\n", f);
            for (uint32_t p = 0; p < R->npol; p++) {
                const struct cell *c = &G->cell[p];
                uint32_t pairs;
                if (!table_row(R, g, p, pass, &pairs))
                    continue;
                fputs("| ", f);
                md_esc(f, R->pol[p]);
                fputs(" |", f);
                for (int m = 0; m < NMET; m++) {
                    if (!shown(R, m, pass))
                        continue;
                    char b[160];
                    fmt_stat(c, m, pass, b, sizeof b);
                    fprintf(f, " %s |", b);
                }
                if (pass)
                    fprintf(f, " %u |\n", pairs);
                else
                    fprintf(f, " %u | %u |\n", c->ok, c->failed);
            }
        }
    }
    for (uint32_t st = 0; st < R->nset; st++) {
        if (!has_tenants(R, st))
            continue;
        char lab[512];
        setting_label(R, st, lab, sizeof lab);
        fputs("\n### Setting: ", f);
        md_esc(f, lab);
        fputs("\n", f);
        write_tenants(R, f, st, false);
    }
}

/* One table cell of metric m of cell c (diff: its paired difference). */
static void html_cell(FILE *f, const struct cell *c, int m, bool diff)
{
    char b[160];
    fmt_stat(c, m, diff, b, sizeof b);
    uint32_t k = diff ? c->dn[m] : c->n[m];
    fprintf(f, "<td data-metric=\"%s\"", met[m].col);
    if (k)
        fprintf(f, " data-mean=\"%.17g\" data-std=\"%.17g\"",
                diff ? c->dmean[m] : c->mean[m], diff ? c->dstd[m] : c->std[m]);
    if (k >= 2)
        fprintf(f, " data-ci-lo=\"%.17g\" data-ci-hi=\"%.17g\"",
                diff ? c->dlo[m] : c->lo[m], diff ? c->dhi[m] : c->hi[m]);
    fprintf(f, " data-n=\"%u\">%s</td>", k, b);
}

static int put_svg_b64(FILE *f, const char *path, struct dl_error *err)
{
    static const char tb[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    FILE *in = fopen(path, "rb");
    if (!in)
        return dl_fail_io(err, path, "cannot open gnuplot's output: %s",
                          strerror(errno));
    unsigned char b[3 * 1024];
    size_t n;
    while ((n = fread(b, 1, sizeof b, in)) > 0) {
        for (size_t i = 0; i < n; i += 3) {
            unsigned v = (unsigned)b[i] << 16;
            if (i + 1 < n)
                v |= (unsigned)b[i + 1] << 8;
            if (i + 2 < n)
                v |= b[i + 2];
            fputc(tb[v >> 18 & 63], f);
            fputc(tb[v >> 12 & 63], f);
            fputc(i + 1 < n ? tb[v >> 6 & 63] : '=', f);
            fputc(i + 2 < n ? tb[v & 63] : '=', f);
        }
        if (n < sizeof b)
            break;
    }
    int bad = ferror(in);
    fclose(in);
    return bad ? dl_fail_io(err, path, "read error") : 0;
}

static const char css[] =
    "body{font-family:'DejaVu Sans',sans-serif;margin:24px;color:#222;"
    "max-width:1450px}\n"
    "table{border-collapse:collapse;margin:8px 0 18px;font-size:85%;"
    "display:block;overflow-x:auto;max-width:100%}\n"
    "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right;"
    "white-space:nowrap}\n"
    "td:first-child,th:first-child{text-align:left}\n"
    "th{background:#f2f2f2}\nfigure{margin:14px 0}\n"
    "figcaption{font-size:90%;color:#444}\nimg{max-width:100%}\n";

/* Records in the DOM how many images loaded, for headless checks. */
static const char js[] =
    "window.addEventListener('load',function(){var im=document.images,n=0;"
    "for(var i=0;i<im.length;i++)if(im[i].complete&&im[i].naturalWidth>0)n++;"
    "document.body.setAttribute('data-images-loaded',n+'/'+im.length);});\n";

/* The headline table's cell: the mean to four significant digits and,
 * for two seeds or more, +- the half-width of its 95 % CI. */
static void head_cell(FILE *f, const struct cell *c, int m)
{
    fprintf(f, "<td data-metric=\"%s\"", met[m].col);
    if (!c->n[m]) {
        fputs(" data-n=\"0\">–</td>", f);
        return;
    }
    char b[96];
    int d = decimals(fabs(c->mean[m]) > 0 ? fabs(c->mean[m]) : c->std[m]);
    size_t w = (size_t)fmt_num(b, sizeof b, c->mean[m], d, false);
    if (c->n[m] >= 2 && w < sizeof b) {
        w += (size_t)snprintf(b + w, sizeof b - w, " ± ");
        if (w < sizeof b)
            fmt_num(b + w, sizeof b - w, c->hi[m] - c->mean[m], d, false);
    }
    fprintf(f, " data-mean=\"%.17g\" data-n=\"%u\">%s</td>", c->mean[m], c->n[m],
            b);
}

/* The figures of section sec (and setting set, SIM_NONE: any), each an
 * embedded SVG with its caption and the names of its exported files. */
static int html_figs(const struct rpt *R, FILE *f, int sec, uint32_t set)
{
    for (size_t i = 0; i < R->nfig; i++) {
        const struct fig *F = &R->fig[i];
        if (F->section != sec || (set != SIM_NONE && F->set != set))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", R->work, F->file);
        fprintf(f, "<figure id=\"%.*s\">\n<img alt=\"", (int)strlen(F->file) - 4,
                F->file);
        html_esc(f, F->caption);
        fputs("\" src=\"data:image/svg+xml;base64,", f);
        int rc = put_svg_b64(f, path, R->err);
        if (rc)
            return rc;
        fputs("\">\n<figcaption>", f);
        html_esc(f, F->caption);
        fputs(".", f);
        static const char *const ext[] = { "svg", "pdf", "png" };
        bool any = false;
        for (int e = 0; e < 3; e++)
            if (R->formats & (RPT_FSVG << e)) {
                fprintf(f, "%s<code>", any ? ", " : " Files: ");
                html_esc(f, F->name);
                fprintf(f, ".%s</code>", ext[e]);
                any = true;
            }
        fputs("</figcaption>\n</figure>\n", f);
    }
    return 0;
}

static bool has_figs(const struct rpt *R, int sec, uint32_t set)
{
    for (size_t i = 0; i < R->nfig; i++)
        if (R->fig[i].section == sec && (set == SIM_NONE || R->fig[i].set == set))
            return true;
    return false;
}

static int write_html(const struct rpt *R, FILE *f)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>dlsim report: ", f);
    html_esc(f, R->name);
    fprintf(f, "</title>\n<style>\n%s</style>\n<script>\n%s</script>\n</head>\n"
            "<body data-images=\"%zu\">\n<h1>dlsim report: ", css, js, R->nfig);
    html_esc(f, R->name);
    size_t nfailed = 0;
    for (size_t i = 0; i < R->nrun; i++)
        nfailed += R->run[i].failed;
    if (R->sweep)
        fprintf(f, "</h1>\n<p>%zu runs (%zu failed): %u policies, %u "
                "setting(s), %u group(s) of (setting, load).</p>\n", R->nrun,
                nfailed, R->npol, R->nset, R->ngrp);
    else
        fputs("</h1>\n<p>A single run.</p>\n", f);
    char *claims = claims_text(R);
    if (claims) {
        claims_html(f, claims);
        free(claims);
    }
    /* the one-screen summary: the headline table and its figure */
    uint32_t hg = R->set[0].ref;
    static const int hm[] = { M_QOS, M_UEFF, M_MAKESPAN, M_WAIT, M_P99WAIT,
                              M_JCT };
    char head[1024];
    group_heading(R, hg, head, sizeof head);
    fputs("<section id=\"headline\">\n<h2 id=\"summary\">Summary: ", f);
    html_esc(f, head);
    fprintf(f, "</h2>\n<p>Mean over seeds%s; times in hours; – : no value "
            "(QoS rate: no job had a deadline).%s</p>\n<table class=\"headline\">"
            "\n<tr><th>policy</th>", R->sweep ? " ± half-width of its 95 % "
            "confidence interval (t distribution; a single value: one seed)" : "",
            R->nset > 1 || R->ngrp > 1 ? " The first setting at its highest load; "
            "every group's full table is under All tables." : "");
    for (size_t i = 0; i < sizeof hm / sizeof *hm; i++)
        fprintf(f, "<th>%s</th>", met[hm[i]].head);
    fputs("<th>seeds</th></tr>\n", f);
    for (uint32_t p = 0; p < R->npol; p++) {
        const struct cell *c = &R->grp[hg].cell[p];
        if (!c->ok && !c->failed)
            continue;
        fputs("<tr><td>", f);
        html_esc(f, R->pol[p]);
        fputs("</td>", f);
        for (size_t i = 0; i < sizeof hm / sizeof *hm; i++)
            head_cell(f, c, hm[i]);
        fprintf(f, "<td>%u</td></tr>\n", c->ok);
    }
    fputs("</table>\n", f);
    int rc = html_figs(R, f, S_HEAD, SIM_NONE);
    if (rc)
        return rc;
    fputs("</section>\n", f);
    /* contents */
    static const char *const sec_id[] = { "", "bars", "versus-load" };
    static const char *const sec_title[] = {
        "", "Per-policy metrics", "Metrics versus offered load" };
    fputs("<nav id=\"contents\"><b>Contents:</b> ", f);
    for (int sct = S_BARS; sct <= S_LOAD; sct++)
        if (has_figs(R, sct, SIM_NONE))
            fprintf(f, "<a href=\"#%s\">%s</a> · ", sec_id[sct], sec_title[sct]);
    for (uint32_t st = 0; st < R->nset; st++) {
        char lab[512];
        setting_label(R, st, lab, sizeof lab);
        fprintf(f, "<a href=\"#setting-%u\">", st);
        html_esc(f, lab);
        fputs("</a> · ", f);
    }
    fprintf(f, "<a href=\"#tables\">All tables</a>%s%s</nav>\n",
            nfailed ? " · <a href=\"#failed\">Failed runs</a>" : "",
            R->nnote ? " · <a href=\"#notes\">Notes</a>" : "");
    if (R->nnote) {
        fputs("<h2 id=\"notes\">Notes</h2>\n<ul>\n", f);
        for (size_t i = 0; i < R->nnote; i++) {
            fputs("<li>", f);
            html_esc(f, R->note[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    for (int sct = S_BARS; sct <= S_LOAD; sct++) {
        if (!has_figs(R, sct, SIM_NONE))
            continue;
        fprintf(f, "<h2 id=\"%s\">%s</h2>\n", sec_id[sct], sec_title[sct]);
        if ((rc = html_figs(R, f, sct, SIM_NONE)))
            return rc;
    }
    /* a section per setting: its CDFs, time series and occupancy */
    for (uint32_t st = 0; st < R->nset; st++) {
        group_heading(R, R->set[st].ref, head, sizeof head);
        fprintf(f, "<h2 id=\"setting-%u\">Setting %u: ", st, st + 1);
        html_esc(f, head);
        fputs("</h2>\n", f);
        bool any = false;
        for (int sct = S_CDF; sct <= S_OCC && !rc; sct++) {
            any |= has_figs(R, sct, st);
            rc = html_figs(R, f, sct, st);
        }
        if (rc)
            return rc;
        if (!any)
            fputs("<p>No job-level figures (see the notes).</p>\n", f);
        write_tenants(R, f, st, true);
    }
    fprintf(f, "<h2 id=\"tables\">All tables</h2>\n<p>%s The same %s in "
            "report.md.</p>\n", R->sweep ? stat_legend : "Times in hours; –: no "
            "value (QoS rate: no job had a deadline).",
            R->sweep ? "tables are" : "table is");
    for (uint32_t g = 0; g < R->ngrp; g++) {
        const struct group *G = &R->grp[g];
        group_heading(R, g, head, sizeof head);
        fputs("<h3>", f);
        html_esc(f, head);
        fputs("</h3>\n", f);
        if (G->floor_bound)
            fprintf(f, "<p class=\"floor-flag\" data-group=\"%u\"><b>%s</b></p>\n",
                    g, floor_flag);
        for (int pass = 0; pass < 2; pass++) {
            if (pass && !has_pairs(R, g, R->npol))
                break;
            if (pass) {
                char *leg = pair_text(R, g);
                fputs("<p>", f);
                html_esc(f, leg);
                fputs("</p>\n", f);
                free(leg);
                fprintf(f, "<table class=\"paired\" data-group=\"%u\" "
                        "data-baseline=\"", g);
                html_esc(f, R->pol[G->base]);
                fputs("\">\n<tr><th>policy − baseline</th>", f);
            } else {
                fprintf(f, "<table class=\"summary\" data-group=\"%u\">\n<tr>"
                        "<th>policy</th>", g);
            }
            for (int m = 0; m < NMET; m++)
                if (shown(R, m, pass))
                    fprintf(f, "<th>%s</th>", met[m].head);
            fputs(pass ? "<th>pairs</th></tr>\n"
                       : "<th>seeds</th><th>failed</th></tr>\n", f);
            for (uint32_t p = 0; p < R->npol; p++) {
                const struct cell *c = &G->cell[p];
                uint32_t pairs;
                if (!table_row(R, g, p, pass, &pairs))
                    continue;
                fputs("<tr><td>", f);
                html_esc(f, R->pol[p]);
                fputs("</td>", f);
                for (int m = 0; m < NMET; m++)
                    if (shown(R, m, pass))
                        html_cell(f, c, m, pass);
                if (pass)
                    fprintf(f, "<td>%u</td></tr>\n", pairs);
                else
                    fprintf(f, "<td>%u</td><td>%u</td></tr>\n", c->ok, c->failed);
            }
            fputs("</table>\n", f);
        }
    }
    if (nfailed) {
        fputs("<h2 id=\"failed\">Failed runs</h2>\n<table class=\"failed\">\n"
              "<tr><th>run</th><th>policy</th><th>setting</th><th>seed</th>"
              "<th>error</th></tr>\n", f);
        for (size_t i = 0; i < R->nrun; i++) {
            const struct run *r = &R->run[i];
            if (!r->failed)
                continue;
            group_heading(R, r->grp, head, sizeof head);
            fputs("<tr><td>", f);
            html_esc(f, r->id);
            fputs("</td><td>", f);
            html_esc(f, r->policy);
            fputs("</td><td>", f);
            html_esc(f, head);
            fputs("</td><td>", f);
            html_esc(f, r->seed);
            fputs("</td><td>", f);
            html_esc(f, r->error);
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    fputs("<p><small>Made by dlsim report " DLSIM_VERSION " with gnuplot.</small>"
          "</p>\n</body>\n</html>\n", f);
    return 0;
}

/* ------------------------------------------------------------ command */

int rpt_formats(const char *list, unsigned *out)
{
    static const char *const name[] = { "html", "svg", "pdf", "png" };
    *out = 0;
    if (!list) {
        *out = RPT_FHTML;
        return 0;
    }
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        int k = 0;
        while (k < 4 && (strlen(name[k]) != n || strncmp(p, name[k], n)))
            k++;
        if (k == 4)
            return DL_EINPUT;
        *out |= 1u << k;
        if (!p[n])
            break;
        p += n + 1;
    }
    return 0;
}


static void rm_work(const char *work, bool keep, bool keep_dir);

/* Whether a file name is one of a report's figures: fNNN.svg (the
 * page's) or fNNN-what.svg, .pdf, .png (exported). */
static bool our_figure(const char *n)
{
    size_t l = strlen(n);
    if (l < 8 || n[0] != 'f' || strspn(n + 1, "0123456789") != 3 ||
        (n[4] != '.' && n[4] != '-'))
        return false;
    const char *x = n + l - 4;
    return (n[4] == '.' && l == 8 && !strcmp(x, ".svg")) ||
           (n[4] == '-' && (!strcmp(x, ".svg") || !strcmp(x, ".pdf") ||
                            !strcmp(x, ".png")));
}

/* Copies src to dst (through a temporary file renamed into place; src
 * may be dst).  A PDF's /CreationDate (cairo 1.16 writes the clock's,
 * whatever SOURCE_DATE_EPOCH says) becomes 1970-01-01, the same length,
 * so that the same inputs give the same bytes. */
static int copy_file(const char *src, const char *dst, struct dl_error *err)
{
    FILE *in = fopen(src, "rb");
    if (!in)
        return dl_fail_io(err, src, "cannot open gnuplot's output: %s",
                          strerror(errno));
    char *b = NULL;
    size_t n = 0, cap = 0, k;
    do {
        xgrow(&b, &cap, n + (1 << 16), 1);
        n += k = fread(b + n, 1, cap - n, in);
    } while (k > 0);
    int bad = ferror(in);
    fclose(in);
    if (bad) {
        free(b);
        return dl_fail_io(err, src, "read error");
    }
    static const char cd[] = "/CreationDate (D:";
    for (size_t i = 0; n >= sizeof cd + 14 && i + sizeof cd + 13 < n; i++)
        if (b[i] == '/' && !memcmp(b + i, cd, sizeof cd - 1) &&
            strspn(b + i + sizeof cd - 1, "0123456789") >= 14) {
            memcpy(b + i + sizeof cd - 1, "19700101000000", 14);
            break;
        }
    char *tmp = NULL;
    FILE *out = dl_tmp_open(dst, &tmp, err);
    if (!out) {
        free(b);
        return DL_EIO;
    }
    fwrite(b, 1, n, out);
    free(b);
    return dl_tmp_commit(out, tmp, dst, true, err);
}

/* The exported figures (--format svg, pdf, png) into figs: copied from
 * gnuplot's directory unless it is figs (--plots). */
static int export_figures(struct rpt *R, const char *figs)
{
    if (!(R->formats & (RPT_FSVG | RPT_FPDF | RPT_FPNG)))
        return 0;
    bool same = R->keep && !strcmp(figs, R->work);
    if (!same) {
        if (mkdir(figs, 0777) && errno != EEXIST)
            return dl_fail_io(R->err, figs, "cannot create: %s", strerror(errno));
        rm_work(figs, false, true);     /* figures of an earlier report */
    }
    static const char *const ext[] = { "svg", "pdf", "png" };
    int rc = 0;
    for (size_t i = 0; i < R->nfig && !rc; i++)
        for (int e = 0; e < 3 && !rc; e++) {
            if (!(R->formats & (RPT_FSVG << e)))
                continue;
            char src[4400], dst[4400];
            snprintf(src, sizeof src, "%s/%s.%s", R->work, R->fig[i].name, ext[e]);
            if (e == 0)
                snprintf(src, sizeof src, "%s/%s", R->work, R->fig[i].file);
            snprintf(dst, sizeof dst, "%s/%s.%s", figs, R->fig[i].name, ext[e]);
            rc = copy_file(src, dst, R->err);
        }
    return rc;
}

/* Removes what a report puts in its directory (gnuplot.log; unless keep,
 * report.gp and the fNNN.svg figures) and, unless keep_dir, the directory. */
static void rm_work(const char *work, bool keep, bool keep_dir)
{
    DIR *d = opendir(work);
    struct dirent *e;
    char p[4096 + 256];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        bool ours = !strcmp(e->d_name, "gnuplot.log") ||
                    (!keep && (!strcmp(e->d_name, "report.gp") ||
                               our_figure(e->d_name)));
        if (ours) {
            snprintf(p, sizeof p, "%s/%s", work, e->d_name);
            unlink(p);
        }
    }
    if (d)
        closedir(d);
    if (!keep_dir)
        rmdir(work);
}


static int draw_all(struct rpt *R)
{
    int rc = 0;
    size_t ok = 0;
    for (size_t i = 0; i < R->nrun; i++)
        ok += !R->run[i].failed;
    if (!ok) {
        note(R, "Every run failed: nothing to draw.");
        return 0;
    }
    draw_headline(R);
    if (R->sweep)
        for (int diff = 0; diff < 2; diff++)
            for (int m = 0; m < NMET; m++)
                if (R->has[m] && met[m].bars)
                    draw_bars(R, m, diff);
    for (uint32_t p = 0; p < R->npol; p++) {
        uint32_t ok = 0, qos = 0;
        for (uint32_t g = 0; g < R->ngrp; g++) {
            ok += R->grp[g].cell[p].ok;
            qos += R->grp[g].cell[p].n[M_QOS];
        }
        if (ok && !qos)
            note(R, "%s: no run has QoS jobs (no job with a deadline; "
                 "qos_guarantee_rate empty), so it has no QoS rate%s.",
                 R->pol[p], R->sweep ? " and no QoS bar" : "");
    }
    for (uint32_t s = 0; s < R->nset; s++)
        if (R->set[s].nloads >= 2)
            for (int m = 0; m < NMET; m++)
                if (R->has[m] && met[m].bars)
                    draw_load(R, s, m);
    for (uint32_t s = 0; s < R->nset && !rc; s++)
        if (!(rc = draw_cdfs(R, s)) && !(rc = draw_ts(R, s)))
            rc = draw_occupancy(R, s);
    return rc;
}

/* The tenants of the runs the tables show: per setting, each policy's
 * smallest seed at the reference load, from its summary.json (a sweep's
 * runs/<id>/, else the run's own directory).  A missing file is a note; a
 * malformed one, bad input. */
static int load_tenants(struct rpt *R)
{
    for (uint32_t st = 0; st < R->nset; st++)
        for (uint32_t p = 0; p < R->npol; p++) {
            const struct run *c = smallest_seed(R, R->set[st].ref, p);
            if (!c)
                continue;
            struct run *r = &R->run[c - R->run];
            char path[8192];
            snprintf(path, sizeof path, "%s/summary.json", r->dir);
            if (access(path, F_OK) && errno == ENOENT) {
                note(R, "Run %s (%s, seed %s): no summary.json; no tenant "
                     "tables for it.", r->id, r->policy, r->seed);
                continue;
            }
            struct dl_json_doc d;
            int rc = dl_json_load(path, &d, R->err);
            for (int k = 0; k < NTEN && !rc; k++)
                rc = read_tenants(R, r, k, d.root && d.root->type == DL_JSON_OBJECT
                                  ? dl_json_get(d.root, ten_key[k]) : NULL, path);
            dl_json_free(&d);
            if (rc)
                return rc;
        }
    return 0;
}

static int report_main(struct rpt *R, const char *out, const char *plots,
                       const char *figdir)
{
    char path[8192];
    struct stat st;
    int rc;
    snprintf(path, sizeof path, "%s/summary.csv", R->dir);
    if (!stat(path, &st)) {
        R->sweep = true;
        rc = load_sweep(R, path);
    } else {
        snprintf(path, sizeof path, "%s/summary.json", R->dir);
        if (!stat(path, &st))
            rc = load_single(R, path);
        else if ((rc = load_demo(R)) == 1)
            return dl_fail(R->err, R->dir, 0, 0, "neither summary.csv (a sweep) "
                           "nor summary.json (a run) found in this directory, "
                           "nor subdirectories with summary.json (dlsim demo "
                           "--out)");
        else
            R->sweep = true;
    }
    if (rc)
        return rc;
    build_groups(R);
    if ((rc = load_tenants(R)))
        return rc;
    char *gnuplot = find_gnuplot();
    if (!gnuplot) {
        fprintf(stderr, "dlsim report: gnuplot not found on PATH (install the "
                "Debian package gnuplot-nox)\n");
        return DL_EIO;
    }
    char work[4096];
    if (plots) {
        if (mkdir(plots, 0777) && errno != EEXIST) {
            free(gnuplot);
            return dl_fail_io(R->err, plots, "cannot create: %s", strerror(errno));
        }
        snprintf(work, sizeof work, "%s", plots);
        rm_work(work, false, true);     /* figures of an earlier report */
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(work, sizeof work, "%s/dlsim-report-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(work)) {
            free(gnuplot);
            return dl_fail_io(R->err, work, "cannot create: %s", strerror(errno));
        }
    }
    R->work = work;
    R->keep = plots != NULL;
    snprintf(path, sizeof path, "%s/report.gp", work);
    char *gtmp = NULL;
    R->gp = dl_tmp_open(path, &gtmp, R->err);
    if (!R->gp) {
        rc = DL_EIO;
        goto out;
    }
    fputs("# dlsim report: gnuplot script (every number computed by dlsim)\n"
          "set encoding utf8\nset datafile missing 'NaN'\n", R->gp);
    rc = draw_all(R);
    if (rc) {
        fclose(R->gp);
        unlink(gtmp);
        free(gtmp);
        goto out;
    }
    if ((rc = dl_tmp_commit(R->gp, gtmp, path, true, R->err)) ||
        (R->nfig && (rc = run_gnuplot(R, gnuplot))))
        goto out;
    /* the page and the Markdown, renamed into place together */
    char html[4096], md[4096];
    if (out)
        snprintf(html, sizeof html, "%s", out);
    else
        snprintf(html, sizeof html, "%s/report.html", R->dir);
    size_t n = strlen(html);
    if (n > 5 && !strcmp(html + n - 5, ".html"))
        n -= 5;
    else if (n > 4 && !strcmp(html + n - 4, ".htm"))
        n -= 4;
    snprintf(md, sizeof md, "%.*s.md", (int)n, html);
    char figs[4200];
    if (figdir)
        snprintf(figs, sizeof figs, "%s", figdir);
    else if (plots)
        snprintf(figs, sizeof figs, "%s", plots);
    else
        snprintf(figs, sizeof figs, "%.*s-figures", (int)n, html);
    if ((rc = export_figures(R, figs)))
        goto out;
    char *thtml = NULL, *tmd = NULL;
    FILE *fm = dl_tmp_open(md, &tmd, R->err);
    if (!fm) {
        rc = DL_EIO;
        goto out;
    }
    write_md(R, fm);
    if (!(R->formats & RPT_FHTML)) {       /* the tables alone */
        rc = dl_tmp_commit(fm, tmd, md, true, R->err);
        if (!rc)
            fprintf(stderr, "dlsim report: wrote %s and the figures in %s/\n",
                    md, figs);
        goto out;
    }
    if ((rc = dl_tmp_commit(fm, tmd, md, false, R->err)))
        goto out;
    FILE *fh = dl_tmp_open(html, &thtml, R->err);
    if (!fh) {
        unlink(tmd);
        free(tmd);
        rc = DL_EIO;
        goto out;
    }
    rc = write_html(R, fh);
    if (rc) {
        fclose(fh);
        unlink(thtml);
        free(thtml);
        unlink(tmd);
        free(tmd);
        goto out;
    }
    if ((rc = dl_tmp_commit(fh, thtml, html, false, R->err))) {
        unlink(tmd);
        free(tmd);
        goto out;
    }
    if (rename(tmd, md))
        rc = dl_fail_io(R->err, md, "cannot rename into place: %s", strerror(errno));
    else if (rename(thtml, html))
        rc = dl_fail_io(R->err, html, "cannot rename into place: %s",
                        strerror(errno));
    if (rc) {
        unlink(tmd);
        unlink(thtml);
    } else {
        fprintf(stderr, "dlsim report: wrote %s and %s%s%s%s\n", html, md,
                R->formats & ~RPT_FHTML ? " (figures in " : "",
                R->formats & ~RPT_FHTML ? figs : "",
                R->formats & ~RPT_FHTML ? "/)" : "");
    }
    free(tmd);
    free(thtml);
out:
    rm_work(work, plots != NULL, plots != NULL);
    free(gnuplot);
    return rc;
}

int rpt_write(const char *dir, const char *out, const char *plots,
              const char *formats, const char *figdir, struct dl_error *err)
{
    struct rpt R = { .dir = dir, .err = err };
    int rc = rpt_formats(formats, &R.formats);
    if (rc)
        return dl_fail(err, NULL, 0, 0, "--format: expected a list of html, "
                       "pdf, png, svg: '%s'", formats);
    R.a = arena_new();
    R.name = base_name(&R, R.dir);
    rc = report_main(&R, out, plots, figdir);
    free_groups(&R);
    free(R.run);
    free(R.pol);
    free(R.set);
    free(R.fig);
    free(R.note);
    arena_free(R.a);
    return rc;
}
