/*
 * traces/stats.c - summary statistics of a trace (`dlsim trace stats`).
 *
 * Owns nothing beyond the call: the sorted copies it needs for the tables
 * and percentiles are freed before it returns.  The trace is only read.
 *
 * Definitions (SPEC section 5 where it has one):
 *   span          last submit - first submit (the trace is sorted)
 *   GPU-hours     sum of num_gpus * duration, in reference GPU-hours
 *   percentiles   nearest rank: the ceil(p * n)-th smallest value
 *   offered load  GPU-seconds / (capacity * span), capacity = sum over GPU
 *                 types of total_gpus * speed (reference GPUs); under a
 *                 run's models each job's GPU-seconds are divided by the
 *                 capacity at that job's own speeds (caps[j]): the sum over
 *                 jobs of the time the whole cluster needs for its work,
 *                 over the span
 */
#include "traces/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double capacity_of(const struct cluster *c)
{
    double cap = 0;
    for (uint32_t i = 0; i < c->ntypes; i++)
        cap += c->types[i].total_gpus * c->types[i].speed;
    return cap;
}

/* Reference GPU-seconds of the whole trace. */
static double gpu_seconds(const struct trace *t)
{
    double s = 0;
    for (uint32_t i = 0; i < t->njobs; i++)
        s += (double)t->jobs[i].num_gpus * (double)t->jobs[i].duration /
             SIM_US_PER_S;
    return s;
}

double trc_offered_load(const struct trace *t, const struct cluster *c)
{
    return trc_offered_load_caps(t, c, NULL);
}

/* Seconds the whole cluster needs for the trace's work. */
static double cluster_seconds(const struct trace *t, const struct cluster *c,
                              const double *caps)
{
    if (!caps) {
        double cap = capacity_of(c);
        return cap > 0 ? gpu_seconds(t) / cap : NAN;
    }
    double s = 0;
    for (uint32_t i = 0; i < t->njobs; i++) {
        if (!(caps[i] > 0))
            return NAN;
        s += (double)t->jobs[i].num_gpus * (double)t->jobs[i].duration /
             SIM_US_PER_S / caps[i];
    }
    return s;
}

double trc_offered_load_caps(const struct trace *t, const struct cluster *c,
                             const double *caps)
{
    if (!t->njobs)
        return NAN;
    double span = (double)(t->jobs[t->njobs - 1].submit - t->jobs[0].submit) /
                  SIM_US_PER_S;
    double need = cluster_seconds(t, c, caps);
    if (!(span > 0) || !(need > 0))
        return NAN;
    return need / span;
}

int trc_scale_load(struct trace *t, const struct cluster *c, double load,
                   double *factor, struct dl_error *err)
{
    return trc_scale_load_caps(t, c, NULL, load, factor, err);
}

int trc_scale_load_caps(struct trace *t, const struct cluster *c,
                        const double *caps, double load, double *factor,
                        struct dl_error *err)
{
    double now = trc_offered_load_caps(t, c, caps);
    if (!(load > 0) || !isfinite(load))
        return dl_fail(err, "--load", 0, 0, "expected an offered load > 0");
    if (!(now > 0))
        return dl_fail(err, t->path, 0, 0, "the offered load is undefined "
                       "(the trace needs two distinct submit times and the "
                       "cluster some capacity): --load cannot rescale it");
    double k = now / load;
    simtime_t first = t->jobs[0].submit;
    for (uint32_t j = 0; j < t->njobs; j++) {
        double s = (double)first + round((double)(t->jobs[j].submit - first) * k);
        /* a deadline moves with its submit and must stay a valid time too */
        if (t->jobs[j].deadline != SIM_NEVER)
            s += (double)(t->jobs[j].deadline - t->jobs[j].submit);
        if (!(s <= (double)TRC_MAX_TIME))
            return dl_fail(err, t->path, t->jobs[j].line, 0, "--load %g puts "
                           "job %s past the largest time a trace may hold",
                           load, t->jobs[j].id);
    }
    for (uint32_t j = 0; j < t->njobs; j++) {
        struct trc_job *tj = &t->jobs[j];
        simtime_t s = first + (simtime_t)llround((double)(tj->submit - first) * k);
        if (tj->deadline != SIM_NEVER)
            tj->deadline = s + (tj->deadline - tj->submit);
        tj->submit = s;
    }
    *factor = k;
    return 0;
}

static int cmp_time(const void *a, const void *b)
{
    simtime_t x = *(const simtime_t *)a, y = *(const simtime_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    return strcmp(x, y);
}

/* Nearest-rank percentile of sorted v[0..n), n >= 1. */
static simtime_t pct(const simtime_t *v, size_t n, double p)
{
    size_t rank = (size_t)ceil(p * (double)n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return v[rank - 1];
}

/* "12.5 s (3.47 h)" style for a duration. */
static void fmt_dur(char *buf, size_t n, simtime_t t)
{
    char s[32];
    sim_fmt_seconds(s, sizeof s, t);
    double sec = (double)t / SIM_US_PER_S;
    if (sec >= 86400 * 2)
        snprintf(buf, n, "%s s (%.2f d)", s, sec / 86400);
    else if (sec >= 7200)
        snprintf(buf, n, "%s s (%.2f h)", s, sec / 3600);
    else
        snprintf(buf, n, "%s s", s);
}

/* Number of distinct values among the non-NULL strings p[0..n). */
static size_t distinct(const char **p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i])
            p[k++] = p[i];
    qsort(p, k, sizeof *p, cmp_str);
    size_t d = 0;
    for (size_t i = 0; i < k; i++)
        d += i == 0 || strcmp(p[i], p[i - 1]) != 0;
    return d;
}

void trc_print_stats(const struct trace *t, const struct cluster *c,
                     const double *caps, FILE *to)
{
    uint32_t n = t->njobs;
    char b1[64], b2[64], b3[64];
    fprintf(to, "trace          %s\n", t->path ? t->path : "");
    fprintf(to, "jobs           %u\n", n);
    if (!n)
        return;
    simtime_t first = t->jobs[0].submit, last = t->jobs[n - 1].submit;
    sim_fmt_seconds(b1, sizeof b1, first);
    sim_fmt_seconds(b2, sizeof b2, last);
    fmt_dur(b3, sizeof b3, last - first);
    fprintf(to, "submit times   %s .. %s s, span %s\n", b1, b2, b3);
    if (last > first)
        fprintf(to, "arrival rate   %.4g jobs/h\n",
                (n - 1) / ((double)(last - first) / SIM_US_PER_S / 3600));

    /* GPU-count table */
    uint32_t *g = xmalloc(n * sizeof *g);
    double gsum = 0;
    for (uint32_t i = 0; i < n; i++) {
        g[i] = t->jobs[i].num_gpus;
        gsum += g[i];
    }
    qsort(g, n, sizeof *g, cmp_u32);
    fprintf(to, "\nGPUs per job   mean %.3f\n", gsum / n);
    fprintf(to, "  %8s %10s %8s\n", "gpus", "jobs", "%");
    for (uint32_t i = 0, k; i < n; i = k) {
        for (k = i; k < n && g[k] == g[i]; k++)
            ;
        fprintf(to, "  %8u %10u %8.2f\n", g[i], k - i,
                100.0 * (k - i) / n);
    }
    free(g);

    /* durations */
    simtime_t *d = xmalloc(n * sizeof *d);
    double dsum = 0;
    for (uint32_t i = 0; i < n; i++) {
        d[i] = t->jobs[i].duration;
        dsum += (double)d[i] / SIM_US_PER_S;
    }
    qsort(d, n, sizeof *d, cmp_time);
    fprintf(to, "\nduration       mean %.6g s\n", dsum / n);
    static const struct { const char *name; double p; } ps[] = {
        {"min", 0}, {"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"max", 1},
    };
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        fmt_dur(b1, sizeof b1, pct(d, n, ps[i].p));
        fprintf(to, "  %-4s %s\n", ps[i].name, b1);
    }
    free(d);
    double gs = gpu_seconds(t);
    fprintf(to, "\nwork           %.6g reference GPU-hours\n", gs / 3600);

    /* optional columns */
    uint32_t ndl = 0, nmodel = 0, ntype = 0, nuser = 0, nutil = 0, nmem = 0,
             nprio = 0;
    const char **names = xmalloc(n * sizeof *names);
    for (uint32_t i = 0; i < n; i++) {
        const struct trc_job *j = &t->jobs[i];
        ndl += j->deadline != SIM_NEVER;
        nmodel += j->model != NULL;
        ntype += j->gpu_type != NULL;
        nuser += j->user != NULL;
        nutil += j->util >= 0;
        nmem += j->mem_gb >= 0;
        nprio += j->priority != 0;
    }
    fprintf(to, "with deadline  %u (%.1f%%)\n", ndl, 100.0 * ndl / n);
    for (uint32_t i = 0; i < n; i++)
        names[i] = t->jobs[i].model;
    fprintf(to, "with model     %u (%.1f%%), %zu distinct\n", nmodel,
            100.0 * nmodel / n, distinct(names, n));
    for (uint32_t i = 0; i < n; i++)
        names[i] = t->jobs[i].gpu_type;
    fprintf(to, "with gpu_type  %u (%.1f%%), %zu distinct\n", ntype,
            100.0 * ntype / n, distinct(names, n));
    for (uint32_t i = 0; i < n; i++)
        names[i] = t->jobs[i].user;
    fprintf(to, "with user      %u (%.1f%%), %zu distinct\n", nuser,
            100.0 * nuser / n, distinct(names, n));
    fprintf(to, "with util      %u (%.1f%%)\n", nutil, 100.0 * nutil / n);
    fprintf(to, "with mem_gb    %u (%.1f%%)\n", nmem, 100.0 * nmem / n);
    fprintf(to, "with priority  %u (%.1f%%) nonzero\n", nprio,
            100.0 * nprio / n);
    free(names);

    if (!c)
        return;
    /* against the cluster */
    double cap = capacity_of(c);
    fprintf(to, "\ncluster        %s: %u GPU%s, capacity %.6g reference GPUs\n",
            c->name ? c->name : "", c->ngpus, DL_PLURAL(c->ngpus), cap);
    double load = trc_offered_load_caps(t, c, caps);
    if (isnan(load))
        fprintf(to, "offered load   n/a (zero span)\n");
    else
        fprintf(to, "offered load   %.6f%s\n", load, caps ? " (each job at "
                "its own speeds under the models)" : "");
    double need = cluster_seconds(t, c, caps);
    if (need > 0)
        fprintf(to, "serial time    %.6g h (work / capacity)\n", need / 3600);
    uint32_t toobig = 0, badtype = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct trc_job *j = &t->jobs[i];
        uint32_t limit = c->ngpus;
        if (j->gpu_type) {
            uint32_t ty = clu_type_find(c, j->gpu_type);
            if (ty == SIM_NONE) {
                badtype++;
                continue;
            }
            limit = c->types[ty].total_gpus;
        }
        toobig += j->num_gpus > limit;
    }
    if (toobig)
        fprintf(to, "never fit      %u jobs need more GPUs than the cluster "
                "(of their type) has\n", toobig);
    if (badtype)
        fprintf(to, "unknown type   %u jobs ask for a gpu_type the cluster "
                "lacks\n", badtype);
}
