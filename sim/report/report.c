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
 * RPT_TS_POINTS bins.
 *
 * Outputs.  The gnuplot script (report.gp, self-contained: data blocks
 * inline) and its SVGs go into a fresh temporary directory (or --plots
 * PDIR, kept); gnuplot runs there with LC_ALL=C and HOME pointing at it
 * (no ~/.gnuplot), a fixed font and no timestamps, so the same inputs
 * give the same bytes.  The page embeds each SVG as a base64 data URI and
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
#define RPT_TS_POINTS 1000      /* points of one time-series curve */
#define RPT_MAX_DETAIL 4        /* settings with CDFs / time series / curves */

/* ------------------------------------------------------------ metrics */

enum {
    M_QOS, M_UALLOC, M_UEFF, M_UUSE, M_UALLOC_W, M_UEFF_W, M_UUSE_W,
    M_MAKESPAN, M_FLOOR, M_WAIT, M_P99WAIT, M_JCT, NMET
};

/* The metrics, in table order.  The seven "need" columns every summary
 * has; the others (useful utilization, the arrival-window utilizations,
 * the makespan floor: SPEC 5) are shown where the summary has them. */
static const struct metric {
    const char *col;            /* summary.csv / summary.json name */
    const char *key;            /* id in file, block and element names */
    const char *title;          /* chart title */
    const char *head;           /* table header */
    double scale;               /* stored value -> shown unit */
    bool need;                  /* a required column */
    bool nullable;              /* may be empty (null) in a run */
    bool bars;                  /* a bar chart (and versus-load curves) */
} met[NMET] = {
    { "qos_guarantee_rate", "qos", "QoS guarantee rate", "QoS rate", 1, true,
      true, true },
    { "gpu_util_alloc", "util_alloc", "Allocated GPU utilization",
      "util alloc", 1, true, false, true },
    { "gpu_util_effective", "util_eff", "Effective GPU utilization",
      "util eff", 1, true, false, true },
    { "gpu_util_useful", "util_useful", "Useful GPU utilization",
      "util useful", 1, false, false, true },
    { "gpu_util_alloc_window", "util_alloc_w", "Allocated GPU utilization, "
      "arrival window", "alloc (window)", 1, false, true, false },
    { "gpu_util_effective_window", "util_eff_w", "Effective GPU utilization, "
      "arrival window", "eff (window)", 1, false, true, false },
    { "gpu_util_useful_window", "util_useful_w", "Useful GPU utilization, "
      "arrival window", "useful (window)", 1, false, true, false },
    { "makespan", "makespan", "Makespan (hours)", "makespan (h)", 1.0 / 3600,
      true, false, true },
    { "makespan_floor", "makespan_floor", "Makespan floor (hours)",
      "floor (h)", 1.0 / 3600, false, false, false },
    { "avg_wait", "avg_wait", "Mean wait (hours)", "mean wait (h)", 1.0 / 3600,
      true, true, true },
    { "p99_wait", "p99_wait", "p99 wait (hours)", "p99 wait (h)", 1.0 / 3600,
      true, true, true },
    { "avg_jct", "avg_jct", "Mean JCT (hours)", "mean JCT (h)", 1.0 / 3600,
      true, true, true },
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

struct run {
    const char *id, *scenario, *policy, *trace, *cluster, *models, *seed;
    const char *error, *load_text, *dir;
    double load;                /* NaN: the trace's own arrivals */
    bool failed;
    long line, col;             /* of run_id in summary.csv */
    double v[NMET];             /* in shown units; NaN = none */
    uint32_t pol, set, grp;
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
    char file[32];
    const char *caption;
};
enum { S_BARS, S_LOAD, S_CDF, S_TS, NSECTIONS };

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
    FILE *gp;                   /* the script */
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

static int load_single(struct rpt *R, const char *path)
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
    r->id = "";
    r->scenario = r->models = r->error = r->load_text = "";
    r->dir = R->dir;
    if (!(rc = json_member(R, path, o, "policy", &r->policy, NULL, false)) &&
        !(rc = json_member(R, path, o, "trace", &r->trace, NULL, false)) &&
        !(rc = json_member(R, path, o, "cluster", &r->cluster, NULL, false)) &&
        !(rc = json_member(R, path, o, "seed", &r->seed, NULL, false)))
        for (int m = 0; m < NMET && !rc; m++) {
            R->has[m] = met[m].need || dl_json_get(o, met[m].col);
            if (R->has[m] && !(rc = json_member(R, path, o, met[m].col, NULL,
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

static void fig_begin(struct rpt *R, int section, const char *caption,
                      const char *title, int w, int h)
{
    xgrow(&R->fig, &R->capfig, R->nfig + 1, sizeof *R->fig);
    struct fig *F = &R->fig[R->nfig];
    F->section = section;
    snprintf(F->file, sizeof F->file, "f%03zu.svg", R->nfig);
    F->caption = adup(R, caption);
    R->nfig++;
    FILE *g = R->gp;
    fprintf(g, "\n# ---- %s\nreset\n", F->file);
    fprintf(g, "set terminal svg size %d,%d font 'DejaVu Sans,12' noenhanced "
            "background rgb 'white'\n", w, h);
    fprintf(g, "set output '%s'\nset title ", F->file);
    gq(g, title);
    fputs("\nset grid ytics lc rgb '#dddddd'\nset key outside right top\n"
          "set border 3\nset tics nomirror\n", g);
}

static void fig_end(struct rpt *R)
{
    fputs("unset output\n", R->gp);
}

static const char *pcolour(uint32_t p)
{
    return colour[p % NCOLOUR];
}

static int pdash(uint32_t p)
{
    return (int)(p / NCOLOUR) + 1;
}

/* One bar chart per metric: clusters = settings at their reference
 * group, one bar per policy, error bars = sample std over seeds; the
 * makespan chart also marks each setting's floor (the mean over its runs
 * of makespan_floor).  With diff, the paired differences against each
 * group's baseline policy instead (no bar for the baseline itself), error
 * bars = their 95 % CI. */
static void draw_bars(struct rpt *R, int m, bool diff)
{
    uint32_t P = R->npol, S = R->nset;
    const char *key = met[m].key, *kind = diff ? "diff" : "bars";
    /* one slot per policy with a value somewhere in this chart */
    uint32_t *slot = xmalloc(P * sizeof *slot), nslot = 0;
    for (uint32_t p = 0; p < P; p++) {
        slot[p] = SIM_NONE;
        for (uint32_t s = 0; s < S && slot[p] == SIM_NONE; s++) {
            const struct group *G = &R->grp[R->set[s].ref];
            if (diff ? p != G->base && G->cell[p].dn[m] : G->cell[p].n[m] > 0)
                slot[p] = nslot++;
        }
    }
    if (!nslot) {
        if (!diff)
            note(R, "No run has a value of %s (for the QoS rate: no job has a "
                 "deadline), so it has no bar chart.", met[m].col);
        free(slot);
        return;
    }
    double w = 0.8 / nslot;
    for (uint32_t p = 0; p < P; p++) {
        if (slot[p] == SIM_NONE)
            continue;
        fprintf(R->gp, "$%s_%s_p%u << EOD\n", kind, key, p);
        for (uint32_t s = 0; s < S; s++) {
            const struct group *G = &R->grp[R->set[s].ref];
            const struct cell *c = &G->cell[p];
            double x = s + (slot[p] - (nslot - 1) / 2.0) * w;
            if (!diff && c->n[m])
                fprintf(R->gp, "%.9g %.9g %.9g\n", x, c->mean[m], c->std[m]);
            else if (diff && p != G->base && c->dn[m])  /* one pair: no bar */
                fprintf(R->gp, "%.9g %.9g %.9g %.9g\n", x, c->dmean[m],
                        c->dn[m] > 1 ? c->dlo[m] : c->dmean[m],
                        c->dn[m] > 1 ? c->dhi[m] : c->dmean[m]);
        }
        fputs("EOD\n", R->gp);
    }
    /* the makespan floor of each setting */
    bool floor = !diff && m == M_MAKESPAN && R->has[M_FLOOR];
    if (floor) {
        fputs("$floor_makespan << EOD\n", R->gp);
        for (uint32_t s = 0; s < S; s++) {
            double sum = 0;
            size_t n = 0;
            for (size_t i = 0; i < R->nrun; i++) {
                const struct run *r = &R->run[i];
                if (r->grp == R->set[s].ref && !r->failed && !isnan(r->v[M_FLOOR]))
                    sum += r->v[M_FLOOR], n++;
            }
            if (n)
                fprintf(R->gp, "%u %.9g\n", s, sum / (double)n);
        }
        fputs("EOD\n", R->gp);
    }
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
    char cap[1024], title[512];
    const char *where = S > 1 || R->set[0].nloads ? ", at each setting's highest "
                                                    "load" : "";
    if (diff) {
        snprintf(cap, sizeof cap, "Paired differences in %s against %s%s%s: "
                 "each policy minus the baseline on the same seed (the same "
                 "workload), mean over the pairs, error bars: 95 %% confidence "
                 "interval (t distribution; none for a single pair)%s",
                 met[m].title, one_base ? "" : "each setting's first policy",
                 one_base ? base : "", one_base ? " (the first policy)" : "",
                 where);
        snprintf(title, sizeof title, "Paired difference: %s, policy - %s",
                 met[m].title, one_base ? base : "first policy");
    } else {
        snprintf(cap, sizeof cap, "%s per policy (mean over seeds, not a "
                 "difference; error bars: sample standard deviation)%s%s",
                 met[m].title, floor ? "; black lines: the makespan floor" : "",
                 where);
        snprintf(title, sizeof title, "%s", met[m].title);
    }
    int width = 360 + (int)(S * nslot) * 26;
    fig_begin(R, S_BARS, cap, title, width < 760 ? 760 : width > 1400 ? 1400 : width,
              420);
    FILE *g = R->gp;
    fprintf(g, "set boxwidth %.9g absolute\nset style fill solid 0.85 border "
            "lc rgb '#333333'\nset xrange [-0.5:%.1f]\n%s"
            "%sset xtics (", w * 0.9, S - 0.5,
            diff ? "set xzeroaxis lt -1\n" : "set yrange [0:*]\n",
            S > 2 ? "set xtics rotate by -20 left\nset bmargin 6\n" : "");
    for (uint32_t s = 0; s < S; s++) {
        char lab[512], full[600];
        setting_label(R, s, lab, sizeof lab);
        const struct group *G = &R->grp[R->set[s].ref];
        if (!isnan(G->load))
            snprintf(full, sizeof full, "%s @ load %s", lab, G->load_text);
        else
            snprintf(full, sizeof full, "%s", lab);
        gq(g, full);
        fprintf(g, " %u%s", s, s + 1 < S ? ", " : ")\n");
    }
    fputs("plot", g);
    bool first = true;
    for (uint32_t p = 0; p < P; p++) {
        if (slot[p] == SIM_NONE)
            continue;
        fprintf(g, "%s $%s_%s_p%u using 1:2:%s with boxerrorbars lc rgb '%s' "
                "title ", first ? "" : ",", kind, key, p, diff ? "3:4" : "3",
                pcolour(p));
        gq(g, R->pol[p]);
        first = false;
    }
    if (floor)
        fprintf(g, ", $floor_makespan using ($1-0.45):2:(0.9):(0) with vectors "
                "nohead lw 2.5 lc rgb 'black' title 'makespan floor'");
    fputc('\n', g);
    fig_end(R);
    free(slot);
}

/* Metric versus load for setting s: one line per policy, error bars. */
static void draw_load(struct rpt *R, uint32_t s, int m)
{
    FILE *g = R->gp;
    bool any = false;
    for (uint32_t p = 0; p < R->npol; p++) {
        uint32_t rows = 0;
        for (uint32_t k = 0; k < R->ngrp; k++) {
            const struct group *G = &R->grp[k];
            rows += G->set == s && !isnan(G->load) && G->cell[p].n[m] > 0;
        }
        if (!rows)
            continue;
        any = true;
        fprintf(g, "$load_%s_s%u_p%u << EOD\n", met[m].key, s, p);
        for (uint32_t k = 0; k < R->ngrp; k++) {
            const struct group *G = &R->grp[k];
            if (G->set == s && !isnan(G->load) && G->cell[p].n[m] > 0)
                fprintf(g, "%.9g %.9g %.9g\n", G->load, G->cell[p].mean[m],
                        G->cell[p].std[m]);
        }
        fputs("EOD\n", g);
    }
    if (!any)
        return;
    char lab[512], cap[1024], title[700];
    setting_label(R, s, lab, sizeof lab);
    snprintf(cap, sizeof cap, "%s versus offered load, %s (mean over seeds, "
             "error bars: sample standard deviation)", met[m].title, lab);
    snprintf(title, sizeof title, "%s vs load (%s)", met[m].title, lab);
    fig_begin(R, S_LOAD, cap, title, 900, 420);
    fputs("set xlabel 'offered load'\nset yrange [0:*]\nset offsets graph 0.03, "
          "graph 0.03, 0, 0\nplot", g);
    bool first = true;
    for (uint32_t p = 0; p < R->npol; p++) {
        bool has = false;
        for (uint32_t k = 0; k < R->ngrp; k++)
            has |= R->grp[k].set == s && !isnan(R->grp[k].load) &&
                   R->grp[k].cell[p].n[m] > 0;
        if (!has)
            continue;
        fprintf(g, "%s $load_%s_s%u_p%u using 1:2:3 with yerrorlines lw 1.5 "
                "dt %d pt 7 ps 0.6 lc rgb '%s' title ", first ? "" : ",",
                met[m].key, s, p, pdash(p), pcolour(p));
        gq(g, R->pol[p]);
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

/* JCT and wait CDFs of the reference group of setting s. */
static int draw_cdfs(struct rpt *R, uint32_t s)
{
    uint32_t g = R->set[s].ref, P = R->npol;
    struct vec *jct = xcalloc(P, sizeof *jct), *wait = xcalloc(P, sizeof *wait);
    size_t unfinished = 0, k = RPT_CDF_POINTS;
    double *px = xmalloc(k * sizeof *px), *pf = xmalloc(k * sizeof *pf);
    int rc = 0;
    for (size_t i = 0; i < R->nrun && !rc; i++) {
        const struct run *r = &R->run[i];
        if (r->grp == g && !r->failed)
            rc = read_jobs(R, r, &jct[r->pol], &wait[r->pol], &unfinished);
    }
    char lab[512], head[1024];
    group_heading(R, g, head, sizeof head);
    setting_label(R, s, lab, sizeof lab);
    const double floor_h = 1.0 / 3600;      /* log axis: 1 s and below */
    for (int kind = 0; kind < 2 && !rc; kind++) {
        struct vec *v = kind ? wait : jct;
        const char *what = kind ? "wait" : "jct";
        bool any = false;
        for (uint32_t p = 0; p < P; p++) {
            if (!v[p].n)
                continue;
            any = true;
            qsort(v[p].x, v[p].n, sizeof *v[p].x, cmp_double);
            size_t m = rpt_cdf_points(v[p].x, v[p].n, k, px, pf);
            fprintf(R->gp, "$cdf_%s_s%u_p%u << EOD\n", what, s, p);
            /* the curve starts at F = 0 at the smallest value */
            fprintf(R->gp, "%.9g 0\n", fmax(px[0], floor_h));
            for (size_t i = 0; i < m; i++)
                fprintf(R->gp, "%.9g %.9g\n", fmax(px[i], floor_h), pf[i]);
            fputs("EOD\n", R->gp);
        }
        if (!any)
            continue;
        char cap[1400], title[700];
        snprintf(cap, sizeof cap, "CDF of %s over the finished jobs%s (%s); "
                 "log scale, values under 1 s drawn at 1 s",
                 kind ? "wait time" : "job completion time",
                 R->sweep ? ", all seeds pooled" : "", head);
        snprintf(title, sizeof title, "%s CDF (%s)", kind ? "Wait" : "JCT", lab);
        fig_begin(R, S_CDF, cap, title, 900, 420);
        fprintf(R->gp, "set logscale x 10\nset format x '%%g'\nset xlabel '%s "
                "(hours)'\nset ylabel 'fraction of jobs'\nset yrange [0:1.02]\n"
                "plot", kind ? "wait time" : "JCT");
        bool first = true;
        for (uint32_t p = 0; p < P; p++) {
            if (!v[p].n)
                continue;
            fprintf(R->gp, "%s $cdf_%s_s%u_p%u using 1:2 with steps lw 1.5 dt %d "
                    "lc rgb '%s' title ", first ? "" : ",", what, s, p, pdash(p),
                    pcolour(p));
            gq(R->gp, R->pol[p]);
            first = false;
        }
        fputc('\n', R->gp);
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
    return rc;
}

/* Writes the binned time series of run r as data block $ts_s<s>_p<p>:
 * hours, queued jobs, util_alloc, util_effective, util_useful (NaN when
 * the file has no such column: *useful false).  0 rows: *rows = 0. */
static int write_ts(struct rpt *R, const struct run *r, uint32_t s,
                    size_t *rows, bool *useful)
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
    double t0 = 0, sq = 0, sa = 0, se = 0, su = 0;
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
        sq += q, sa += a, se += e, su += u, inbin++, i++;
        if (i == (b + 1) * n / bins) {  /* bin b holds rows up to here */
            fprintf(R->gp, "%.9g %.9g %.9g %.9g %.9g\n", t0 / 3600, sq / inbin,
                    sa / inbin, se / inbin, su / inbin);
            sq = sa = se = su = 0;
            inbin = 0;
            b++;
        }
    }
    fputs("EOD\n", R->gp);
    dl_csv_close(&c);
    *rows = n;
    return rc < 0 ? rc : 0;
}

static int draw_ts(struct rpt *R, uint32_t s)
{
    uint32_t g = R->set[s].ref, P = R->npol;
    bool *has = xcalloc(P, sizeof *has), *use = xcalloc(P, sizeof *use);
    bool binned = false, anyuse = false;
    int rc = 0;
    for (uint32_t p = 0; p < P && !rc; p++) {
        const struct run *best = NULL;
        for (size_t i = 0; i < R->nrun; i++) {
            const struct run *r = &R->run[i];
            if (r->grp == g && r->pol == p && !r->failed &&
                (!best || cmp_seed(r->seed, best->seed) < 0))
                best = r;
        }
        size_t rows = 0;
        if (best && !(rc = write_ts(R, best, s, &rows, &use[p])))
            has[p] = rows > 0;
        anyuse |= has[p] && use[p];
        binned |= rows > RPT_TS_POINTS;
    }
    char lab[512], head[1024];
    group_heading(R, g, head, sizeof head);
    setting_label(R, s, lab, sizeof lab);
    bool any = false;
    for (uint32_t p = 0; p < P; p++)
        any |= has[p];
    for (int kind = 0; kind < 2 && any && !rc; kind++) {
        char cap[1400], title[700];
        snprintf(cap, sizeof cap, "%s over time (%s%s%s)%s",
                 kind ? "Queued jobs" : "GPU utilization", head,
                 R->sweep ? "; one run per policy, its smallest seed" : "",
                 binned ? "; consecutive samples averaged to at most 1000 "
                 "points" : "", kind ? "" : anyuse ? ": allocated (solid), "
                 "effective (dashed) and useful (dotted)" : ": allocated (solid) "
                 "and effective (dashed)");
        snprintf(title, sizeof title, "%s over time (%s)",
                 kind ? "Queued jobs" : "GPU utilization", lab);
        fig_begin(R, S_TS, cap, title, 1000, 420);
        fprintf(R->gp, "set xlabel 'time (hours)'\nset ylabel '%s'\n%s\nplot",
                kind ? "queued jobs" : "utilization",
                kind ? "set yrange [0:*]" : "set yrange [0:1.05]");
        bool first = true;
        for (uint32_t p = 0; p < P; p++) {
            if (!has[p])
                continue;
            if (kind) {
                fprintf(R->gp, "%s $ts_s%u_p%u using 1:2 with lines lw 1.2 "
                        "lc rgb '%s' title ", first ? "" : ",", s, p, pcolour(p));
                gq(R->gp, R->pol[p]);
            } else {
                fprintf(R->gp, "%s $ts_s%u_p%u using 1:3 with lines lw 1.2 "
                        "lc rgb '%s' title ", first ? "" : ",", s, p, pcolour(p));
                gq(R->gp, R->pol[p]);
                fprintf(R->gp, ", $ts_s%u_p%u using 1:4 with lines lw 1.2 dt 2 "
                        "lc rgb '%s' notitle", s, p, pcolour(p));
                if (use[p])
                    fprintf(R->gp, ", $ts_s%u_p%u using 1:5 with lines lw 1.2 "
                            "dt 3 lc rgb '%s' notitle", s, p, pcolour(p));
            }
            first = false;
        }
        fputc('\n', R->gp);
        fig_end(R);
    }
    free(has);
    free(use);
    return rc;
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
        fprintf(f, "</h1>\n<p>A sweep of %zu runs (%zu failed): %u policies, %u "
                "setting(s), %u group(s) of (setting, load).</p>\n", R->nrun,
                nfailed, R->npol, R->nset, R->ngrp);
    else
        fputs("</h1>\n<p>A single run.</p>\n", f);
    char *claims = claims_text(R);
    if (claims) {
        claims_html(f, claims);
        free(claims);
    }
    fprintf(f, "<h2 id=\"summary\">Summary</h2>\n<p>%s The same %s in "
            "report.md.</p>\n", R->sweep ? stat_legend : "Times in hours; –: no "
            "value (QoS rate: no job had a deadline).",
            R->sweep ? "tables are" : "table is");
    for (uint32_t g = 0; g < R->ngrp; g++) {
        const struct group *G = &R->grp[g];
        char head[1024];
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
    static const char *const sec_id[NSECTIONS] = { "bars", "versus-load", "cdf",
                                                   "timeseries" };
    static const char *const sec_title[NSECTIONS] = {
        "Per-policy metrics", "Metrics versus offered load",
        "JCT and wait-time CDFs", "Utilization and queue over time" };
    for (int s = 0; s < NSECTIONS; s++) {
        bool any = false;
        for (size_t i = 0; i < R->nfig; i++)
            any |= R->fig[i].section == s;
        if (!any)
            continue;
        fprintf(f, "<h2 id=\"%s\">%s</h2>\n", sec_id[s], sec_title[s]);
        for (size_t i = 0; i < R->nfig; i++) {
            if (R->fig[i].section != s)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", R->work, R->fig[i].file);
            fprintf(f, "<figure id=\"%.*s\">\n<img alt=\"", (int)strlen(R->fig[i].file) - 4,
                    R->fig[i].file);
            html_esc(f, R->fig[i].caption);
            fputs("\" src=\"data:image/svg+xml;base64,", f);
            int rc = put_svg_b64(f, path, R->err);
            if (rc)
                return rc;
            fputs("\">\n<figcaption>", f);
            html_esc(f, R->fig[i].caption);
            fputs("</figcaption>\n</figure>\n", f);
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
            char head[1024];
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
    if (R->nnote) {
        fputs("<h2 id=\"notes\">Notes</h2>\n<ul>\n", f);
        for (size_t i = 0; i < R->nnote; i++) {
            fputs("<li>", f);
            html_esc(f, R->note[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    fputs("<p><small>Made by dlsim report " DLSIM_VERSION " with gnuplot.</small>"
          "</p>\n</body>\n</html>\n", f);
    return 0;
}

/* ------------------------------------------------------------ command */


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
        size_t n = strlen(e->d_name);
        bool ours = !strcmp(e->d_name, "gnuplot.log") ||
                    (!keep && (!strcmp(e->d_name, "report.gp") ||
                               (n == 8 && !strcmp(e->d_name + 4, ".svg") &&
                                e->d_name[0] == 'f' &&
                                strspn(e->d_name + 1, "0123456789") == 3)));
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
    uint32_t detail = R->nset < RPT_MAX_DETAIL ? R->nset : RPT_MAX_DETAIL;
    if (detail < R->nset)
        note(R, "CDFs, time series and versus-load curves are drawn for the "
             "first %u of %u settings.", detail, R->nset);
    for (uint32_t s = 0; s < detail; s++)
        if (R->set[s].nloads >= 2)
            for (int m = 0; m < NMET; m++)
                if (R->has[m] && met[m].bars)
                    draw_load(R, s, m);
    for (uint32_t s = 0; s < detail && !rc; s++)
        rc = draw_cdfs(R, s);
    for (uint32_t s = 0; s < detail && !rc; s++)
        rc = draw_ts(R, s);
    return rc;
}

static int report_main(struct rpt *R, const char *out, const char *plots)
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
        if (stat(path, &st))
            return dl_fail(R->err, R->dir, 0, 0, "neither summary.csv (a sweep) "
                           "nor summary.json (a run) found in this directory");
        rc = load_single(R, path);
    }
    if (rc)
        return rc;
    build_groups(R);
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
    char *thtml = NULL, *tmd = NULL;
    FILE *fm = dl_tmp_open(md, &tmd, R->err);
    if (!fm) {
        rc = DL_EIO;
        goto out;
    }
    write_md(R, fm);
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
    }
    free(tmd);
    free(thtml);
out:
    rm_work(work, plots != NULL, plots != NULL);
    free(gnuplot);
    return rc;
}

int rpt_write(const char *dir, const char *out, const char *plots,
              struct dl_error *err)
{
    struct rpt R = { .dir = dir, .err = err };
    R.a = arena_new();
    R.name = base_name(&R, R.dir);
    int rc = report_main(&R, out, plots);
    free_groups(&R);
    free(R.run);
    free(R.pol);
    free(R.set);
    free(R.fig);
    free(R.note);
    arena_free(R.a);
    return rc;
}
