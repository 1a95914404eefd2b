/*
 * traces/workload.c - workload descriptions fitted to a trace (`dlsim
 * trace fit`): the fit (trc_wl_fit), the YAML writer (trc_wl_write) and
 * its strict reader (trc_wl_load).  The format is documented in
 * traces/WORKLOAD.md; `trace gen --like` (traces/like.c) draws from it.
 *
 * Owns: a struct trc_workload's arena, which holds every array and string
 * of it; trc_wl_free releases it.  The trace fitted is only read.
 *
 * What is fitted (all from the trace, nothing assumed):
 *   - the GPU-count distribution as exact job counts per count;
 *   - durations per GPU-count class: counts in ascending order, a class
 *     closed once it holds WL_MIN_CLASS (100) jobs; a last, shorter class
 *     stays on its own if it holds WL_MIN_TAIL (25) jobs, else joins the
 *     one before (so rare large counts are pooled, much as gen.c's Philly
 *     tables pool 12..128 GPUs, but never with a much smaller count's
 *     jobs when there are enough of them); each class keeps an empirical
 *     quantile table (below) and, for information, the lognormal of the
 *     mean and standard deviation of ln duration with its KS distance;
 *   - the n - 1 inter-arrival gaps (zero gaps of batch arrivals included)
 *     as a quantile table, their mean and the share of zeros;
 *   - when the span covers a day (resp. 14 days): the arrival rate by hour
 *     of day (resp. day of week) of the trace clock, as counts over
 *     exposure (the time the span spends in that hour), scaled to mean 1;
 *   - the model and gpu_type columns as job counts per name; deadlines as
 *     the number of jobs with one and the quantile table of slack =
 *     (deadline - submit) / duration; util and mem_gb as the number of
 *     jobs with a value and its quantile table.
 *
 * Quantile tables.  For m sorted values x_0..x_{m-1}, K = min(WL_QMAX,
 * m - 1) (at least 1) and q_k = the linearly interpolated order statistic
 * at rank (m - 1) k / K (k = 0..K): with m <= WL_QMAX + 1 the table is the
 * sample itself, and its piecewise-linear CDF is within 1/K of the
 * sample's everywhere.
 *
 * The writer prints numbers with %.9g and names through dl_yaml_put_str
 * (double-quoted and escaped, or !!binary when not UTF-8, so any name
 * reads back as the same bytes), in a fixed order, so the same trace
 * gives the same bytes.  The reader (the yl_
 * helpers of sim/base/formats.h, shared with the model files rather than
 * written twice) rejects unknown and repeated keys, missing required
 * ones, non-integer counts, counts that do not add up, unsorted or
 * out-of-range tables, with file:line:col.
 */
#include "models/perf.h"
#include "sim/base/formats.h"
#include "traces/trace.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WL_QMAX 1000            /* quantile table resolution */
#define WL_MIN_CLASS 100        /* jobs per duration class */
#define WL_MIN_TAIL 25          /* jobs of a last, short class */
#define WL_VERSION 1
#define DAY_US (INT64_C(86400) * SIM_US_PER_S)
#define HOUR_US (INT64_C(3600) * SIM_US_PER_S)
/* The reader's ranges cover every value a trace the trace reader accepts
 * can give, so that trace fit never writes a file trace gen refuses:
 * times up to TRC_MAX_TIME (1e12 s), slack up to 1e12 s over 1 us. */
#define WL_MAX_S 1e12
#define WL_MAX_SLACK 1e18
#define WL_MAX_GPUS ((double)SIM_NONE - 1)     /* as the trace reader */

/* ------------------------------------------------------------ helpers */

double trc_qtab_eval(const struct trc_qtab *t, double u, bool loglin)
{
    DL_ASSERT(t->n >= 2);
    double pos = u * (double)(t->n - 1);
    if (!(pos > 0))
        return t->q[0];
    if (pos >= (double)(t->n - 1))
        return t->q[t->n - 1];
    uint32_t k = (uint32_t)pos;
    double f = pos - k, a = t->q[k], b = t->q[k + 1];
    if (loglin && a > 0 && b > 0)
        return exp(log(a) + f * (log(b) - log(a)));
    return a + f * (b - a);
}

double trc_wl_rate(const struct trc_workload *w, double t_s)
{
    double r = 1;
    if (w->diurnal) {
        double d = floor(t_s / 86400);
        int h = (int)floor((t_s - d * 86400) / 3600);
        r *= w->hourly[h < 0 ? 0 : h > 23 ? 23 : h];
        if (w->weekly)
            r *= w->daily[(int)fmod(d, 7)];
    }
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The table of sorted x[0..m), m >= 1, into the arena. */
static void qtab_make(struct arena *a, const double *x, size_t m,
                      struct trc_qtab *t)
{
    uint32_t K = m - 1 < WL_QMAX ? (uint32_t)(m - 1) : WL_QMAX;
    if (K < 1)
        K = 1;
    t->n = K + 1;
    t->q = arena_alloc(a, t->n * sizeof *t->q);
    for (uint32_t k = 0; k <= K; k++) {
        /* rank (m - 1) k / K, exactly an integer at k = 0 and K */
        uint64_t num = (uint64_t)(m - 1) * k;
        size_t i = (size_t)(num / K);
        double f = (double)(num % K) / K;
        t->q[k] = i + 1 < m ? x[i] + f * (x[i + 1] - x[i]) : x[m - 1];
    }
}

/* A categorical column: sorted names -> mix in the arena. */
static void mix_make(struct arena *a, const char **names, size_t k,
                     struct trc_wl_mix *mx)
{
    memset(mx, 0, sizeof *mx);
    if (!k)
        return;
    qsort(names, k, sizeof *names, cmp_str);
    size_t d = 0;
    for (size_t i = 0; i < k; i++)
        d += i == 0 || strcmp(names[i], names[i - 1]);
    mx->name = arena_alloc(a, d * sizeof *mx->name);
    mx->jobs = arena_alloc(a, d * sizeof *mx->jobs);
    for (size_t i = 0; i < k; i++) {
        if (i == 0 || strcmp(names[i], names[i - 1])) {
            mx->name[mx->n] = arena_strndup(a, names[i], strlen(names[i]));
            mx->jobs[mx->n++] = 0;
        }
        mx->jobs[mx->n - 1]++;
    }
}

/* Adds the time [from, to) spends in each of nb equal bins of a period
 * (microseconds; bin b = [b, b+1) * period / nb mod period) to exp_s. */
static void exposure(simtime_t from, simtime_t to, simtime_t period, int nb,
                     double *exp_s)
{
    simtime_t bin = period / nb;
    simtime_t full = (to - from) / period;
    for (int b = 0; b < nb; b++)
        exp_s[b] += (double)full * (double)bin / SIM_US_PER_S;
    for (simtime_t t = from + full * period; t < to;) {
        simtime_t off = t % period;
        int b = (int)(off / bin);
        simtime_t end = t - off + (simtime_t)(b + 1) * bin;
        if (end > to)
            end = to;
        exp_s[b] += (double)(end - t) / SIM_US_PER_S;
        t = end;
    }
}

/* Rates count/exposure scaled to mean 1 over the nb bins. */
static void profile(const double *count, const double *exp_s, int nb,
                    double *out)
{
    double sum = 0;
    for (int b = 0; b < nb; b++) {
        out[b] = exp_s[b] > 0 ? count[b] / exp_s[b] : 0;
        sum += out[b];
    }
    for (int b = 0; b < nb; b++)
        out[b] = sum > 0 ? out[b] * nb / sum : 1;
}

/* Largest |F_lognormal - F_sample| over sorted x[0..m), m >= 1. */
static double lognormal_ks(const double *x, size_t m, double mu, double s)
{
    double d = 0;
    for (size_t i = 0; i < m; i++) {
        double z = s > 0 ? (log(x[i]) - mu) / s : (log(x[i]) >= mu ? 1e9 : -1e9);
        double F = 0.5 * erfc(-z / sqrt(2));
        d = fmax(d, fmax(F - (double)i / m, (double)(i + 1) / m - F));
    }
    return d;
}

/* --------------------------------------------------------------- fit */

void trc_wl_free(struct trc_workload *w)
{
    if (w->arena)
        arena_free(w->arena);
    memset(w, 0, sizeof *w);
}

int trc_wl_fit(const struct trace *t, struct trc_workload *w,
               struct dl_error *err)
{
    memset(w, 0, sizeof *w);
    uint32_t n = t->njobs;
    if (n < 2)
        return dl_fail(err, t->path, 0, 0, "trace fit needs at least 2 jobs "
                       "(one inter-arrival gap), the trace has %u", n);
    struct arena *a = w->arena = arena_new();
    w->source = arena_strndup(a, t->path ? t->path : "",
                              strlen(t->path ? t->path : ""));
    w->njobs = n;
    simtime_t first = t->jobs[0].submit, last = t->jobs[n - 1].submit;
    w->start_s = (double)first / SIM_US_PER_S;
    w->span_s = (double)(last - first) / SIM_US_PER_S;

    /* GPU counts */
    uint32_t *g = xmalloc(n * sizeof *g);
    for (uint32_t i = 0; i < n; i++)
        g[i] = t->jobs[i].num_gpus;
    qsort(g, n, sizeof *g, cmp_u32);
    for (uint32_t i = 0; i < n; i++)
        w->ngpu += i == 0 || g[i] != g[i - 1];
    w->gpus = arena_alloc(a, w->ngpu * sizeof *w->gpus);
    w->gpu_jobs = arena_alloc(a, w->ngpu * sizeof *w->gpu_jobs);
    for (uint32_t i = 0, k = 0; i < n; i++) {
        if (i && g[i] == g[i - 1]) {
            w->gpu_jobs[k - 1]++;
        } else {
            w->gpus[k] = g[i];
            w->gpu_jobs[k++] = 1;
        }
    }
    free(g);

    /* classes: close at WL_MIN_CLASS jobs; a short tail joins the last */
    uint32_t *cls_of = xmalloc(w->ngpu * sizeof *cls_of);
    uint32_t nc = 0, acc = 0;
    for (uint32_t k = 0; k < w->ngpu; k++) {
        cls_of[k] = nc;
        acc += w->gpu_jobs[k];
        if (acc >= WL_MIN_CLASS) {
            nc++;
            acc = 0;
        }
    }
    if (acc > 0) {              /* an open tail */
        if (nc == 0 || acc >= WL_MIN_TAIL)
            nc++;
        else
            for (uint32_t k = 0; k < w->ngpu; k++)
                if (cls_of[k] == nc)
                    cls_of[k] = nc - 1;
    }
    w->nclass = nc;
    w->cls = arena_alloc(a, nc * sizeof *w->cls);
    memset(w->cls, 0, nc * sizeof *w->cls);
    double *x = xmalloc(n * sizeof *x);
    for (uint32_t c = 0; c < nc; c++) {
        struct trc_wl_class *cl = &w->cls[c];
        for (uint32_t k = 0; k < w->ngpu; k++)
            cl->ngpus += cls_of[k] == c;
        cl->gpus = arena_alloc(a, cl->ngpus * sizeof *cl->gpus);
        uint32_t m = 0;
        for (uint32_t k = 0; k < w->ngpu; k++)
            if (cls_of[k] == c) {
                cl->gpus[m++] = w->gpus[k];
                cl->jobs += w->gpu_jobs[k];
            }
        size_t cnt = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t gi = t->jobs[i].num_gpus;
            if (gi >= cl->gpus[0] && gi <= cl->gpus[cl->ngpus - 1])
                x[cnt++] = (double)t->jobs[i].duration / SIM_US_PER_S;
        }
        DL_ASSERT(cnt == cl->jobs);
        qsort(x, cnt, sizeof *x, cmp_double);
        double s = 0, ls = 0, ls2 = 0;
        for (size_t i = 0; i < cnt; i++) {
            s += x[i];
            ls += log(x[i]);
        }
        cl->mean_s = s / cnt;
        cl->ln_mu = ls / cnt;
        for (size_t i = 0; i < cnt; i++)
            ls2 += (log(x[i]) - cl->ln_mu) * (log(x[i]) - cl->ln_mu);
        cl->ln_sigma = sqrt(ls2 / cnt);
        cl->ln_ks = lognormal_ks(x, cnt, cl->ln_mu, cl->ln_sigma);
        qtab_make(a, x, cnt, &cl->dur);
    }
    free(cls_of);

    /* gaps */
    uint32_t zeros = 0;
    for (uint32_t i = 1; i < n; i++) {
        x[i - 1] = (double)(t->jobs[i].submit - t->jobs[i - 1].submit) /
                   SIM_US_PER_S;
        zeros += x[i - 1] == 0;
    }
    w->gap_mean_s = w->span_s / (n - 1);
    w->gap_zero_frac = (double)zeros / (n - 1);
    qsort(x, n - 1, sizeof *x, cmp_double);
    qtab_make(a, x, n - 1, &w->gap);

    /* diurnal and weekly profiles */
    if (last - first >= DAY_US) {
        double cnt[24] = {0}, ex[24] = {0};
        for (uint32_t i = 0; i < n; i++)
            cnt[(t->jobs[i].submit % DAY_US) / HOUR_US]++;
        exposure(first, last, DAY_US, 24, ex);
        w->diurnal = true;
        profile(cnt, ex, 24, w->hourly);
    }
    if (last - first >= 14 * DAY_US) {
        double cnt[7] = {0}, ex[7] = {0};
        for (uint32_t i = 0; i < n; i++)
            cnt[(t->jobs[i].submit / DAY_US) % 7]++;
        exposure(first, last, 7 * DAY_US, 7, ex);
        w->weekly = true;
        profile(cnt, ex, 7, w->daily);
    }

    /* categorical columns */
    const char **names = xmalloc(n * sizeof *names);
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (t->jobs[i].model)
            names[k++] = t->jobs[i].model;
    mix_make(a, names, k, &w->models);
    k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (t->jobs[i].gpu_type)
            names[k++] = t->jobs[i].gpu_type;
    mix_make(a, names, k, &w->gpu_types);
    free(names);

    /* deadlines, util, mem */
    k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct trc_job *j = &t->jobs[i];
        if (j->deadline != SIM_NEVER)
            x[k++] = (double)(j->deadline - j->submit) / (double)j->duration;
    }
    if ((w->deadline_jobs = (uint32_t)k)) {
        qsort(x, k, sizeof *x, cmp_double);
        qtab_make(a, x, k, &w->slack);
    }
    k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (t->jobs[i].util >= 0)
            x[k++] = t->jobs[i].util;
    if ((w->util_jobs = (uint32_t)k)) {
        qsort(x, k, sizeof *x, cmp_double);
        qtab_make(a, x, k, &w->util);
    }
    k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (t->jobs[i].mem_gb >= 0)
            x[k++] = t->jobs[i].mem_gb;
    if ((w->mem_jobs = (uint32_t)k)) {
        qsort(x, k, sizeof *x, cmp_double);
        qtab_make(a, x, k, &w->mem);
    }
    free(x);
    return 0;
}

/* ------------------------------------------------------------- writer */

/* Names and the source path: dl_yaml_put_str, so that any bytes read
 * back the same (a name that is not UTF-8 as !!binary base64). */
static void put_str(FILE *f, const char *s)
{
    dl_yaml_put_str(f, s, 4);
}

static void put_num(FILE *f, double x)
{
    fprintf(f, "%.9g", x == 0 ? 0 : x);     /* no "-0" */
}

/* "key: [a, b, ...]", eight numbers a line. */
static void put_tab(FILE *f, const char *indent, const char *key,
                    const double *v, uint32_t n)
{
    fprintf(f, "%s%s: [", indent, key);
    for (uint32_t i = 0; i < n; i++) {
        if (i && i % 8 == 0)
            fprintf(f, ",\n%s    ", indent);
        else if (i)
            fputs(", ", f);
        put_num(f, v[i]);
    }
    fputs("]\n", f);
}

static void put_mix(FILE *f, const char *key, const char *what,
                    const struct trc_wl_mix *m)
{
    if (!m->n)
        return;
    fprintf(f, "%s:                  # jobs per %s\n", key, what);
    for (uint32_t i = 0; i < m->n; i++) {
        /* a long or binary name as an explicit key: an implicit one is
         * single-line and at most 1024 characters */
        bool plain = dl_yaml_str_short(m->name[i]);
        fputs(plain ? "  " : "  ? ", f);
        put_str(f, m->name[i]);
        fprintf(f, plain ? ": %u\n" : "\n  : %u\n", m->jobs[i]);
    }
}

int trc_wl_write(const struct trc_workload *w, const char *path,
                 struct dl_error *err)
{
    char *tmp;
    FILE *f = dl_tmp_open(path, &tmp, err);
    if (!f)
        return DL_EIO;
    fputs("# dlsim workload description, written by `dlsim trace fit`; the "
          "format is\n# traces/WORKLOAD.md.  Quantile tables hold n values "
          "at u = k / (n - 1).\n", f);
    fprintf(f, "kind: workload\nversion: %d\nsource:\n  trace: ", WL_VERSION);
    put_str(f, w->source ? w->source : "");
    fprintf(f, "\n  bytes: %llu\n  crc32: \"%08x\"\n",
            (unsigned long long)w->source_bytes, w->source_crc32);
    fprintf(f, "jobs: %u\nstart_s: ", w->njobs);
    put_num(f, w->start_s);
    fputs("\nspan_s: ", f);
    put_num(f, w->span_s);
    fputs("\ngpus:                  # jobs per GPU count\n", f);
    for (uint32_t k = 0; k < w->ngpu; k++)
        fprintf(f, "  %u: %u\n", w->gpus[k], w->gpu_jobs[k]);
    fputs("durations:              # per class of GPU counts; seconds, "
          "log-linear\n", f);
    for (uint32_t c = 0; c < w->nclass; c++) {
        const struct trc_wl_class *cl = &w->cls[c];
        fputs("  - gpus: [", f);
        for (uint32_t i = 0; i < cl->ngpus; i++)
            fprintf(f, "%s%u", i ? ", " : "", cl->gpus[i]);
        fprintf(f, "]\n    jobs: %u\n    mean_s: ", cl->jobs);
        put_num(f, cl->mean_s);
        fputs("\n    lognormal: {mu: ", f);
        put_num(f, cl->ln_mu);
        fputs(", sigma: ", f);
        put_num(f, cl->ln_sigma);
        fputs(", ks: ", f);
        put_num(f, cl->ln_ks);
        fputs("}\n", f);
        put_tab(f, "    ", "quantiles_s", cl->dur.q, cl->dur.n);
    }
    fputs("interarrival:           # gaps between submit times; seconds, "
          "linear\n  mean_s: ", f);
    put_num(f, w->gap_mean_s);
    fputs("\n  zero_fraction: ", f);
    put_num(f, w->gap_zero_frac);
    fputc('\n', f);
    put_tab(f, "  ", "quantiles_s", w->gap.q, w->gap.n);
    if (w->diurnal) {
        fputs("diurnal:                # relative arrival rate, mean 1, of "
              "the trace clock\n", f);
        put_tab(f, "  ", "hourly", w->hourly, 24);
        if (w->weekly)
            put_tab(f, "  ", "weekly", w->daily, 7);
    }
    put_mix(f, "models", "model", &w->models);
    put_mix(f, "gpu_types", "required GPU type", &w->gpu_types);
    if (w->deadline_jobs) {
        fprintf(f, "deadlines:              # slack = (deadline - submit) / "
                "duration, linear\n  jobs: %u\n", w->deadline_jobs);
        put_tab(f, "  ", "slack_quantiles", w->slack.q, w->slack.n);
    }
    if (w->util_jobs) {
        fprintf(f, "util:\n  jobs: %u\n", w->util_jobs);
        put_tab(f, "  ", "quantiles", w->util.q, w->util.n);
    }
    if (w->mem_jobs) {
        fprintf(f, "mem_gb:\n  jobs: %u\n", w->mem_jobs);
        put_tab(f, "  ", "quantiles", w->mem.q, w->mem.n);
    }
    /* a file trc_wl_load would refuse is not written (thousands of long
     * names could make one) */
    long size = ftell(f);
    if (size > (long)DL_YAML_MAX_BYTES) {
        fclose(f);
        unlink(tmp);
        dl_tmp_forget(tmp);
        free(tmp);
        return dl_fail(err, path, 0, 0, "the workload description would be "
                       "%ld bytes, over the %zu a workload file may hold",
                       size, DL_YAML_MAX_BYTES);
    }
    return dl_tmp_commit(f, tmp, path, true, err);
}

/* ------------------------------------------------------------- reader */

struct rd {
    struct yload L;
    struct trc_workload *w;
};

/* The text of a scalar written by put_str (a !!binary one decoded), in
 * the arena. */
static int get_text(struct rd *r, const yaml_node_t *n, const char *key,
                    const char **out)
{
    const char *s = yl_scalar(n);
    char *bin;
    if (!s)
        return yl_fail(&r->L, n, "%s: expected a string", key);
    if (dl_yaml_bytes((const char *)n->tag, s, &bin))
        return yl_fail(&r->L, n, "%s: malformed !!binary (base64 of bytes "
                       "other than NUL)", key);
    *out = arena_strndup(r->w->arena, bin ? bin : s, strlen(bin ? bin : s));
    free(bin);
    return 0;
}

static int want_map(struct rd *r, const yaml_node_t *n, const char *key)
{
    if (!n || n->type != YAML_MAPPING_NODE)
        return yl_fail(&r->L, n, "%s: expected a mapping", key);
    return 0;
}

/* A whole number in [lo, hi]. */
static int get_u64(struct rd *r, const yaml_node_t *n, const char *key,
                   double lo, double hi, uint64_t *out)
{
    double v = 0;
    int rc = yl_num(&r->L, n, key, lo, hi, false, &v);
    if (rc)
        return rc;
    if (v != floor(v))
        return yl_fail(&r->L, n, "%s: expected a whole number", key);
    *out = (uint64_t)v;
    return 0;
}

static int get_u32(struct rd *r, const yaml_node_t *n, const char *key,
                   double lo, double hi, uint32_t *out)
{
    uint64_t v = 0;
    int rc = get_u64(r, n, key, lo, hi, &v);
    *out = (uint32_t)v;
    return rc;
}

/* A sequence of lo_n..hi_n numbers in [lo, hi] into the arena,
 * non-decreasing when sorted. */
static int get_nums(struct rd *r, const yaml_node_t *n, const char *key,
                    double lo, double hi, bool sorted, uint32_t lo_n,
                    uint32_t hi_n, double **out, uint32_t *len)
{
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return yl_fail(&r->L, n, "%s: expected a sequence of numbers", key);
    uint32_t m = (uint32_t)(n->data.sequence.items.top -
                            n->data.sequence.items.start);
    if (m < lo_n || m > hi_n) {
        if (lo_n == hi_n)
            return yl_fail(&r->L, n, "%s: expected %u numbers, got %u", key,
                           lo_n, m);
        return yl_fail(&r->L, n, "%s: expected at least %u numbers, got %u",
                       key, lo_n, m);
    }
    double *v = arena_alloc(r->w->arena, m * sizeof *v);
    for (uint32_t i = 0; i < m; i++) {
        const yaml_node_t *e = yl_node(&r->L, n->data.sequence.items.start[i]);
        int rc = yl_num(&r->L, e, key, lo, hi, false, &v[i]);
        if (rc)
            return rc;
        if (sorted && i && v[i] < v[i - 1])
            return yl_fail(&r->L, e, "%s: values must not decrease "
                           "(%g after %g)", key, v[i], v[i - 1]);
    }
    *out = v;
    if (len)
        *len = m;
    return 0;
}

static int get_tab(struct rd *r, const yaml_node_t *n, const char *key,
                   double lo, double hi, struct trc_qtab *t)
{
    return get_nums(r, n, key, lo, hi, true, 2, UINT32_MAX, &t->q, &t->n);
}

static int unknown(struct rd *r, const yaml_node_t *k, const char *key,
                   const char *where, const char *valid)
{
    return yl_fail(&r->L, k, "unknown key '%s' in %s (expected %s)", key,
                   where, valid);
}

static int missing(struct rd *r, const yaml_node_t *n, const char *key,
                   const char *where)
{
    return yl_fail(&r->L, n, "%s: missing '%s'", where, key);
}

#define FOR_PAIRS(n, q) \
    for (const yaml_node_pair_t *q = (n)->data.mapping.pairs.start; \
         q < (n)->data.mapping.pairs.top; q++)

static int read_source(struct rd *r, const yaml_node_t *n)
{
    int rc = want_map(r, n, "source");
    bool have = false;
    FOR_PAIRS(n, q) {
        const yaml_node_t *k, *v;
        const char *key;
        if (rc || (rc = yl_pair(&r->L, n, q, &k, &v, &key)))
            return rc;
        if (!strcmp(key, "trace")) {
            const char *s;
            if ((rc = get_text(r, v, "trace", &s)))
                return rc;
            r->w->source = s;
            have = true;
        } else if (!strcmp(key, "bytes")) {
            rc = get_u64(r, v, "bytes", 0, 9e15, &r->w->source_bytes);
        } else if (!strcmp(key, "crc32")) {
            const char *s = yl_scalar(v);
            /* exactly 8 hex digits: strtoul alone would take a sign or
             * leading blanks */
            if (!s || strlen(s) != 8 || strspn(s, "0123456789abcdefABCDEF") != 8)
                return yl_fail(&r->L, v, "crc32: expected 8 hex digits");
            unsigned long c = strtoul(s, NULL, 16);
            r->w->source_crc32 = (uint32_t)c;
        } else {
            return unknown(r, k, key, "source", "trace, bytes, crc32");
        }
    }
    return rc ? rc : have ? 0 : missing(r, n, "trace", "source");
}

static int read_gpus(struct rd *r, const yaml_node_t *n)
{
    int rc = want_map(r, n, "gpus");
    if (rc)
        return rc;
    struct trc_workload *w = r->w;
    uint32_t m = (uint32_t)(n->data.mapping.pairs.top -
                            n->data.mapping.pairs.start);
    if (!m)
        return yl_fail(&r->L, n, "gpus: expected COUNT: JOBS pairs");
    w->gpus = arena_alloc(w->arena, m * sizeof *w->gpus);
    w->gpu_jobs = arena_alloc(w->arena, m * sizeof *w->gpu_jobs);
    uint64_t total = 0;
    FOR_PAIRS(n, q) {
        const yaml_node_t *k, *v;
        const char *key;
        uint32_t g, jobs;
        if ((rc = yl_pair(&r->L, n, q, &k, &v, &key)) ||
            (rc = get_u32(r, k, "gpus: GPU count", 1, WL_MAX_GPUS, &g)) ||
            (rc = get_u32(r, v, "gpus: jobs", 1, 4e9, &jobs)))
            return rc;
        if (w->ngpu && g <= w->gpus[w->ngpu - 1])
            return yl_fail(&r->L, k, "gpus: counts must be listed in "
                           "ascending order without repeats (%u after %u)",
                           g, w->gpus[w->ngpu - 1]);
        w->gpus[w->ngpu] = g;
        w->gpu_jobs[w->ngpu++] = jobs;
        total += jobs;
    }
    if (total != w->njobs)
        return yl_fail(&r->L, n, "gpus: the job counts add up to %llu, not "
                       "jobs = %u", (unsigned long long)total, w->njobs);
    return 0;
}

static int read_class(struct rd *r, const yaml_node_t *n,
                      struct trc_wl_class *cl, uint32_t *owner, uint32_t c)
{
    int rc = want_map(r, n, "durations item");
    const yaml_node_t *gn = NULL, *jn = NULL, *qn = NULL;
    FOR_PAIRS(n, q) {
        const yaml_node_t *k, *v;
        const char *key;
        if (rc || (rc = yl_pair(&r->L, n, q, &k, &v, &key)))
            return rc;
        if (!strcmp(key, "gpus")) {
            gn = v;
        } else if (!strcmp(key, "jobs")) {
            jn = v;
        } else if (!strcmp(key, "quantiles_s")) {
            qn = v;
        } else if (!strcmp(key, "mean_s")) {
            rc = yl_num(&r->L, v, "mean_s", 0, 1e12, false, &cl->mean_s);
        } else if (!strcmp(key, "lognormal")) {
            if ((rc = want_map(r, v, "lognormal")))
                return rc;
            FOR_PAIRS(v, p) {
                const yaml_node_t *k2, *v2;
                const char *key2;
                if ((rc = yl_pair(&r->L, v, p, &k2, &v2, &key2)))
                    return rc;
                if (!strcmp(key2, "mu"))
                    rc = yl_num(&r->L, v2, "mu", -100, 100, false, &cl->ln_mu);
                else if (!strcmp(key2, "sigma"))
                    rc = yl_num(&r->L, v2, "sigma", 0, 100, false,
                                &cl->ln_sigma);
                else if (!strcmp(key2, "ks"))
                    rc = yl_num(&r->L, v2, "ks", 0, 1, false, &cl->ln_ks);
                else
                    return unknown(r, k2, key2, "lognormal", "mu, sigma, ks");
                if (rc)
                    return rc;
            }
        } else {
            return unknown(r, k, key, "a durations item",
                           "gpus, jobs, mean_s, lognormal, quantiles_s");
        }
    }
    if (rc)
        return rc;
    if (!gn)
        return missing(r, n, "gpus", "durations item");
    if (!jn)
        return missing(r, n, "jobs", "durations item");
    if (!qn)
        return missing(r, n, "quantiles_s", "durations item");
    double *gv;
    if ((rc = get_nums(r, gn, "gpus", 1, WL_MAX_GPUS, true, 1, UINT32_MAX, &gv,
                       &cl->ngpus)))
        return rc;
    cl->gpus = arena_alloc(r->w->arena, cl->ngpus * sizeof *cl->gpus);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < cl->ngpus; i++) {
        const yaml_node_t *e = yl_node(&r->L, gn->data.sequence.items.start[i]);
        /* w->gpus ascends (read_gpus checks it): a binary search, as a
         * class may list many counts */
        uint32_t lo = 0, hi = r->w->ngpu;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (r->w->gpus[mid] < gv[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        uint32_t k = lo < r->w->ngpu && r->w->gpus[lo] == gv[i] ? lo
                                                                : r->w->ngpu;
        if (gv[i] != floor(gv[i]) || k == r->w->ngpu)
            return yl_fail(&r->L, e, "gpus: %g is not a GPU count listed "
                           "under gpus", gv[i]);
        if (owner[k] != SIM_NONE)
            return yl_fail(&r->L, e, "gpus: %g is already in durations "
                           "item %u", gv[i], owner[k] + 1);
        owner[k] = c;
        cl->gpus[i] = (uint32_t)gv[i];
        sum += r->w->gpu_jobs[k];
    }
    if ((rc = get_u32(r, jn, "jobs", 1, 4e9, &cl->jobs)))
        return rc;
    if (cl->jobs != sum)
        return yl_fail(&r->L, jn, "jobs: %u, but gpus lists %llu jobs of "
                       "these counts", cl->jobs, (unsigned long long)sum);
    rc = get_tab(r, qn, "quantiles_s", 1e-6, 1e12, &cl->dur);
    return rc;
}

static int read_durations(struct rd *r, const yaml_node_t *n,
                          const yaml_node_t *gpus_node)
{
    struct trc_workload *w = r->w;
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return yl_fail(&r->L, n, "durations: expected a sequence of classes");
    w->nclass = (uint32_t)(n->data.sequence.items.top -
                           n->data.sequence.items.start);
    if (!w->nclass)
        return yl_fail(&r->L, n, "durations: expected at least one class");
    w->cls = arena_alloc(w->arena, w->nclass * sizeof *w->cls);
    memset(w->cls, 0, w->nclass * sizeof *w->cls);
    uint32_t *owner = xmalloc(w->ngpu * sizeof *owner);
    for (uint32_t k = 0; k < w->ngpu; k++)
        owner[k] = SIM_NONE;
    int rc = 0;
    for (uint32_t c = 0; c < w->nclass && !rc; c++)
        rc = read_class(r, yl_node(&r->L, n->data.sequence.items.start[c]),
                        &w->cls[c], owner, c);
    for (uint32_t k = 0; k < w->ngpu && !rc; k++)
        if (owner[k] == SIM_NONE)
            rc = yl_fail(&r->L, gpus_node, "gpus: GPU count %u is in no "
                         "durations class", w->gpus[k]);
    free(owner);
    return rc;
}

static int read_interarrival(struct rd *r, const yaml_node_t *n)
{
    int rc = want_map(r, n, "interarrival");
    const yaml_node_t *qn = NULL, *mn = NULL;
    struct trc_workload *w = r->w;
    FOR_PAIRS(n, q) {
        const yaml_node_t *k, *v;
        const char *key;
        if (rc || (rc = yl_pair(&r->L, n, q, &k, &v, &key)))
            return rc;
        if (!strcmp(key, "mean_s"))
            rc = yl_num(&r->L, mn = v, "mean_s", 0, 1e12, false,
                        &w->gap_mean_s);
        else if (!strcmp(key, "zero_fraction"))
            rc = yl_num(&r->L, v, "zero_fraction", 0, 1, false,
                        &w->gap_zero_frac);
        else if (!strcmp(key, "quantiles_s"))
            rc = get_tab(r, qn = v, "quantiles_s", 0, 1e12, &w->gap);
        else
            return unknown(r, k, key, "interarrival",
                           "mean_s, zero_fraction, quantiles_s");
    }
    if (rc)
        return rc;
    if (!mn)
        return missing(r, n, "mean_s", "interarrival");
    return qn ? 0 : missing(r, n, "quantiles_s", "interarrival");
}

static int read_diurnal(struct rd *r, const yaml_node_t *n)
{
    int rc = want_map(r, n, "diurnal");
    struct trc_workload *w = r->w;
    FOR_PAIRS(n, q) {
        const yaml_node_t *k, *v;
        const char *key;
        double *vals;
        if (rc || (rc = yl_pair(&r->L, n, q, &k, &v, &key)))
            return rc;
        bool hourly = !strcmp(key, "hourly");
        if (!hourly && strcmp(key, "weekly"))
            return unknown(r, k, key, "diurnal", "hourly, weekly");
        int nb = hourly ? 24 : 7;
        if ((rc = get_nums(r, v, key, 0, 1e6, false, (uint32_t)nb,
                           (uint32_t)nb, &vals, NULL)))
            return rc;
        double sum = 0;
        for (int b = 0; b < nb; b++)
            sum += vals[b];
        if (!(sum > 0))
            return yl_fail(&r->L, v, "%s: the weights must not all be 0",
                           key);
        /* kept as written: the generator needs only ratios */
        memcpy(hourly ? w->hourly : w->daily, vals, nb * sizeof *vals);
        *(hourly ? &w->diurnal : &w->weekly) = true;
    }
    if (!rc && !w->diurnal)
        return missing(r, n, "hourly", "diurnal");
    return rc;
}

static int read_mix(struct rd *r, const yaml_node_t *n, const char *what,
                    struct trc_wl_mix *m)
{
    int rc = want_map(r, n, what);
    if (rc)
        return rc;
    uint32_t cap = (uint32_t)(n->data.mapping.pairs.top -
                              n->data.mapping.pairs.start);
    m->name = arena_alloc(r->w->arena, (cap + 1) * sizeof *m->name);
    m->jobs = arena_alloc(r->w->arena, (cap + 1) * sizeof *m->jobs);
    uint64_t total = 0;
    FOR_PAIRS(n, q) {
        const yaml_node_t *k, *v;
        const char *key;
        if ((rc = yl_pair(&r->L, n, q, &k, &v, &key)) ||
            (rc = get_text(r, k, what, &key)))
            return rc;
        if (!*key)
            return yl_fail(&r->L, k, "%s: empty name", what);
        if (m->n && strcmp(key, m->name[m->n - 1]) <= 0)
            return yl_fail(&r->L, k, "%s: names must be in ascending "
                           "order", what);
        if ((rc = get_u32(r, v, what, 1, 4e9, &m->jobs[m->n])))
            return rc;
        total += m->jobs[m->n];
        m->name[m->n++] = key;
    }
    if (total > r->w->njobs)
        return yl_fail(&r->L, n, "%s: %llu jobs, more than jobs = %u", what,
                       (unsigned long long)total, r->w->njobs);
    return 0;
}

/* deadlines / util / mem_gb: {jobs: N, TABKEY: [...]} */
static int read_column(struct rd *r, const yaml_node_t *n, const char *what,
                       const char *tabkey, double lo, double hi,
                       uint32_t *jobs, struct trc_qtab *t)
{
    int rc = want_map(r, n, what);
    const yaml_node_t *jn = NULL, *qn = NULL;
    FOR_PAIRS(n, q) {
        const yaml_node_t *k, *v;
        const char *key;
        if (rc || (rc = yl_pair(&r->L, n, q, &k, &v, &key)))
            return rc;
        if (!strcmp(key, "jobs")) {
            rc = get_u32(r, jn = v, "jobs", 1, r->w->njobs, jobs);
        } else if (!strcmp(key, tabkey)) {
            rc = get_tab(r, qn = v, tabkey, lo, hi, t);
        } else {
            char valid[64];
            snprintf(valid, sizeof valid, "jobs, %s", tabkey);
            return unknown(r, k, key, what, valid);
        }
    }
    if (rc)
        return rc;
    if (!jn)
        return missing(r, n, "jobs", what);
    return qn ? 0 : missing(r, n, tabkey, what);
}

static int read_root(struct rd *r)
{
    struct trc_workload *w = r->w;
    int rc = yl_kind(&r->L, "workload");
    if (rc)
        return rc;
    const yaml_node_t *root = yl_root(&r->L);
    /* jobs first: the sections check against it */
    const yaml_node_t *need[5] = {0};
    static const char *const req[5] = {"version", "jobs", "gpus",
                                       "durations", "interarrival"};
    FOR_PAIRS(root, q) {
        const yaml_node_t *k, *v;
        const char *key;
        if ((rc = yl_pair(&r->L, root, q, &k, &v, &key)))
            return rc;
        for (int i = 0; i < 5; i++)
            if (!strcmp(key, req[i]))
                need[i] = v;
    }
    for (int i = 0; i < 5; i++)
        if (!need[i])
            return missing(r, root, req[i], "workload");
    double ver;
    if ((rc = yl_num(&r->L, need[0], "version", WL_VERSION, WL_VERSION,
                     false, &ver)) ||
        (rc = get_u32(r, need[1], "jobs", 2, (double)SIM_NONE - 2,
                      &w->njobs)) ||
        (rc = read_gpus(r, need[2])) ||
        (rc = read_durations(r, need[3], need[2])))
        return rc;
    bool have_start = false, have_span = false;
    FOR_PAIRS(root, q) {
        const yaml_node_t *k, *v;
        const char *key;
        if ((rc = yl_pair(&r->L, root, q, &k, &v, &key)))
            return rc;
        if (!strcmp(key, "kind") || !strcmp(key, "version") ||
            !strcmp(key, "jobs") || !strcmp(key, "gpus") ||
            !strcmp(key, "durations"))
            continue;
        if (!strcmp(key, "source"))
            rc = read_source(r, v);
        else if (!strcmp(key, "start_s"))
            rc = yl_num(&r->L, v, "start_s", 0, WL_MAX_S, false,
                        &w->start_s), have_start = true;
        else if (!strcmp(key, "span_s"))
            rc = yl_num(&r->L, v, "span_s", 0, WL_MAX_S, false,
                        &w->span_s), have_span = true;
        else if (!strcmp(key, "interarrival"))
            rc = read_interarrival(r, v);
        else if (!strcmp(key, "diurnal"))
            rc = read_diurnal(r, v);
        else if (!strcmp(key, "models"))
            rc = read_mix(r, v, "models", &w->models);
        else if (!strcmp(key, "gpu_types"))
            rc = read_mix(r, v, "gpu_types", &w->gpu_types);
        else if (!strcmp(key, "deadlines"))
            rc = read_column(r, v, "deadlines", "slack_quantiles", 0,
                             WL_MAX_SLACK, &w->deadline_jobs, &w->slack);
        else if (!strcmp(key, "util"))
            rc = read_column(r, v, "util", "quantiles", 0, 1, &w->util_jobs,
                             &w->util);
        else if (!strcmp(key, "mem_gb"))
            rc = read_column(r, v, "mem_gb", "quantiles", 0, DL_MAX_MEM_GB,
                             &w->mem_jobs, &w->mem);
        else
            return unknown(r, k, key, "workload", "kind, version, source, "
                           "jobs, start_s, span_s, gpus, durations, "
                           "interarrival, diurnal, models, gpu_types, "
                           "deadlines, util, mem_gb");
        if (rc)
            return rc;
    }
    if (!have_start)
        return missing(r, root, "start_s", "workload");
    if (!have_span)
        return missing(r, root, "span_s", "workload");
    if (!w->source)
        w->source = "";
    return 0;
}

int trc_wl_load(const char *path, struct trc_workload *w,
                struct dl_error *err)
{
    memset(w, 0, sizeof *w);
    struct rd r = {.w = w};
    int rc = yl_open(&r.L, path, err);
    if (!rc) {
        w->arena = arena_new();
        rc = read_root(&r);
    }
    yl_close(&r.L);
    if (rc)
        trc_wl_free(w);
    return rc;
}
