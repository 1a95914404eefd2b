/*
 * traces/compare.c - how alike two traces are (`dlsim trace compare`):
 * two-sample Kolmogorov-Smirnov statistics of their durations and
 * inter-arrival gaps with asymptotic p-values, and the distance between
 * their GPU-count distributions.
 *
 * Owns nothing beyond a call: the sorted copies are freed before return.
 *
 * Definitions.
 *   D        sup over x of |F_a(x) - F_b(x)|, the empirical CDFs (ties:
 *            both CDFs step past a shared value together).
 *   p-value  Q(lambda), lambda = D sqrt(n m / (n + m)), Q the survival
 *            function of the Kolmogorov distribution (the limit law of
 *            lambda when both samples come from one continuous law):
 *              Q(x) = 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 x^2)      x >= 1
 *              Q(x) = 1 - sqrt(2 pi) / x sum_{j>=1}
 *                           exp(-(2j-1)^2 pi^2 / (8 x^2))          x < 1
 *            (the second is the Jacobi-theta form of the same series,
 *            which converges fast where the first does not).  Asymptotic:
 *            close for n, m in the hundreds and up, and conservative
 *            (too large) for samples with many ties such as whole-second
 *            times.
 *   critical D at 1%: 1.62762 sqrt((n + m) / (n m)) (Q(1.62762) = 0.01).
 *   GPU counts: p_a(g), p_b(g) = the share of jobs with g GPUs; total
 *            variation 1/2 sum_g |p_a - p_b| and max_g |p_a - p_b|.
 */
#include "traces/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KS_C01 1.62762          /* Q(KS_C01) = 0.01 */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double trc_ks2(double *a, size_t n, double *b, size_t m)
{
    DL_ASSERT(n >= 1 && m >= 1);
    qsort(a, n, sizeof *a, cmp_double);
    qsort(b, m, sizeof *b, cmp_double);
    size_t i = 0, j = 0;
    double d = 0;
    while (i < n && j < m) {
        double x = a[i] < b[j] ? a[i] : b[j];
        while (i < n && a[i] == x)
            i++;
        while (j < m && b[j] == x)
            j++;
        double diff = fabs((double)i / n - (double)j / m);
        if (diff > d)
            d = diff;
    }
    return d;                   /* past the end of one, the gap shrinks */
}

double trc_ks_q(double x)
{
    if (!(x > 0))
        return 1;
    double s = 0;
    if (x < 1) {
        for (int j = 1; j <= 20; j++) {
            double k = 2 * j - 1;
            s += exp(-k * k * M_PI * M_PI / (8 * x * x));
        }
        double q = 1 - sqrt(2 * M_PI) / x * s;
        return q < 0 ? 0 : q > 1 ? 1 : q;
    }
    for (int j = 1; j <= 100; j++) {
        double term = exp(-2.0 * j * j * x * x);
        s += (j % 2 ? term : -term);
        if (term < 1e-300)
            break;
    }
    double q = 2 * s;
    return q < 0 ? 0 : q > 1 ? 1 : q;
}

/* Durations (s) and gaps (s) of t into fresh arrays. */
static void samples(const struct trace *t, double **dur, double **gap)
{
    uint32_t n = t->njobs;
    *dur = xmalloc(n * sizeof **dur);
    *gap = xmalloc(n * sizeof **gap);
    for (uint32_t i = 0; i < n; i++) {
        (*dur)[i] = (double)t->jobs[i].duration / SIM_US_PER_S;
        if (i)
            (*gap)[i - 1] = (double)(t->jobs[i].submit -
                                     t->jobs[i - 1].submit) / SIM_US_PER_S;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Sorted GPU counts of t (fresh array). */
static uint32_t *gpu_counts(const struct trace *t)
{
    uint32_t *g = xmalloc(t->njobs * sizeof *g);
    for (uint32_t i = 0; i < t->njobs; i++)
        g[i] = t->jobs[i].num_gpus;
    qsort(g, t->njobs, sizeof *g, cmp_u32);
    return g;
}

int trc_compare(const struct trace *a, const struct trace *b,
                struct trc_cmp *r, struct dl_error *err)
{
    memset(r, 0, sizeof *r);
    const struct trace *ts[2] = {a, b};
    for (int k = 0; k < 2; k++)
        if (ts[k]->njobs < 2)
            return dl_fail(err, ts[k]->path, 0, 0, "trace compare needs at "
                           "least 2 jobs (one inter-arrival gap), the trace "
                           "has %u", ts[k]->njobs);
    uint32_t n = a->njobs, m = b->njobs;
    double *da, *ga, *db, *gb;
    samples(a, &da, &ga);
    samples(b, &db, &gb);
    r->ks_dur = trc_ks2(da, n, db, m);
    r->ks_gap = trc_ks2(ga, n - 1, gb, m - 1);
    r->p_dur = trc_ks_q(r->ks_dur * sqrt((double)n * m / ((double)n + m)));
    r->p_gap = trc_ks_q(r->ks_gap * sqrt((double)(n - 1) * (m - 1) /
                                         ((double)n + m - 2)));
    r->crit_dur = KS_C01 * sqrt(((double)n + m) / ((double)n * m));
    r->crit_gap = KS_C01 * sqrt(((double)n + m - 2) /
                                ((double)(n - 1) * (m - 1)));
    free(da);
    free(ga);
    free(db);
    free(gb);

    uint32_t *pa = gpu_counts(a), *pb = gpu_counts(b);
    uint32_t i = 0, j = 0;
    double tv = 0, mx = 0;
    while (i < n || j < m) {
        uint32_t g = j >= m || (i < n && pa[i] < pb[j]) ? pa[i] : pb[j];
        uint32_t ca = 0, cb = 0;
        while (i < n && pa[i] == g)
            i++, ca++;
        while (j < m && pb[j] == g)
            j++, cb++;
        double diff = fabs((double)ca / n - (double)cb / m);
        tv += diff / 2;
        mx = fmax(mx, diff);
    }
    r->tv_gpus = tv;
    r->maxdiff_gpus = mx;
    free(pa);
    free(pb);
    return 0;
}
