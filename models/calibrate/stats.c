/*
 * models/calibrate/stats.c - summaries of repeated timings.
 *
 * A measurement runs a kernel warm-up + repeats times; the first `warmup`
 * timings (clocks ramping, caches, cuBLAS heuristics, lazy module loading)
 * are discarded and the rest summarized by its median (the statistic the
 * CSVs' throughput uses: robust to a stray preemption or clock dip) and its
 * spread (quartiles, min, max).
 */
#include "calib.h"

#include <stdlib.h>
#include <string.h>

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of sorted v[0..n-1], linear between order statistics. */
static double quantile(const double *v, int n, double q)
{
    double h = (n - 1) * q;
    int lo = (int)h;
    if (lo >= n - 1)
        return v[n - 1];
    return v[lo] + (h - lo) * (v[lo + 1] - v[lo]);
}

int cal_summarize(const double *x, int n, int warmup, struct cal_stats *s)
{
    memset(s, 0, sizeof *s);
    if (warmup < 0)
        warmup = 0;
    int m = n - warmup;
    if (m <= 0)
        return -1;
    double *v = (double *)malloc((size_t)m * sizeof *v);
    if (!v)
        abort();
    memcpy(v, x + warmup, (size_t)m * sizeof *v);
    qsort(v, (size_t)m, sizeof *v, dcmp);
    double sum = 0;
    for (int i = 0; i < m; i++)
        sum += v[i];
    s->n = m;
    s->median = quantile(v, m, 0.5);
    s->p25 = quantile(v, m, 0.25);
    s->p75 = quantile(v, m, 0.75);
    s->min = v[0];
    s->max = v[m - 1];
    s->mean = sum / m;
    free(v);
    return 0;
}
