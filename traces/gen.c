/*
 * traces/gen.c - the synthetic workload generator (trc_generate).
 *
 * Owns nothing after it returns: the generated trace (jobs and strings in
 * its arena) belongs to the caller, who frees it with trc_free.
 *
 * Model.  Jobs j0, j1, ... arrive as a Poisson process starting at time 0
 * with rate
 *
 *     lambda = load * capacity / E[num_gpus * duration]      (jobs per s)
 *
 * where capacity = sum over GPU types of total_gpus * speed (reference
 * GPUs) and the expectation is computed in closed form for the chosen
 * distributions, including the clamp of durations to [1 s, max].  The
 * drawn trace's own offered load only converges to `load` as jobs grow
 * (1.2 gave 0.91 to 1.49 over seeds 1-5), so the gaps are then rescaled by
 * one factor (trc_scale_load) to make it exactly `load` for every seed;
 * the Poisson shape of the arrivals is kept.  Each
 * job draws a GPU count from a discrete distribution, a duration (for
 * "philly", conditional on the GPU count), optionally a deadline
 * submit + slack * duration with slack ~ Uniform[lo, hi] for a fraction
 * deadline_frac of jobs, and optionally a model chosen uniformly.
 *
 * Determinism (STYLE 13).  Every component has its own GSL mt19937
 * stream, seeded with splitmix64(seed ^ component constant), and consumes
 * a fixed number of draws per job: one uniform for the arrival gap, one
 * for the GPU count, one for the duration (by inversion of its quantile
 * function, so every family costs exactly one draw), two for the deadline
 * (whether, and the slack) whenever deadlines are on, one for the model
 * when models are given.  Changing one component's options never shifts
 * another component's draws.  Times are integer microseconds: a gap is
 * rounded and then added, so submit times are exact and non-decreasing.
 *
 * GPU counts larger than the whole cluster (c->ngpus) could never run;
 * they are dropped from the distribution and the rest renormalized.
 *
 * Also here, shared with `trace annotate` (annotate.c): the text syntax and
 * quantile functions of struct trc_dist, and the seeds of the streams
 * (trc_stream_seed), so that both tools draw a component the same way.
 */
#include "traces/trace.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The "philly" defaults: the Microsoft Philly trace of Jeon et al.,
 * "Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training
 * Workloads", USENIX ATC 2019 (data: msr-fiddle/philly-traces, CC BY 4.0),
 * in the condensed form of the Pollux OSDI'21 artifact
 * (github.com/petuum/adaptdl, branch osdi21-artifact,
 * simulator/traces/philly.csv, commit c793c70): 82,247 jobs with
 * duration (s) and num_gpus.  Figures computed from that file (not
 * shipped here) with a short Python script:
 *
 *  - GPU-count frequencies: the job counts below, out of 82,247.
 *  - Durations: the empirical quantile function per GPU-count class
 *    (1, 2, 4, 8 GPUs, and 12..128 pooled since those counts are rare),
 *    tabulated at the probabilities philly_u (every 0.025, finer in both
 *    tails; linear-interpolated order statistics rounded to whole
 *    seconds) and interpolated log-linearly in between.  Against the data
 *    the tabulated CDFs are within 0.8 / 1.2 / 0.8 / 0.8 / 1.2 percentage
 *    points everywhere (Kolmogorov-Smirnov distance), and their means are
 *    8,488 / 30,240 / 78,187 / 129,263 / 93,445 s against the data's
 *    8,301 / 30,942 / 78,762 / 129,775 / 95,326 s.  A lognormal fit was
 *    rejected: the per-class log moments (mu, sigma of ln s: 6.72 1.97 /
 *    4.52 3.27 / 9.11 2.78 / 9.65 2.79 / 8.94 3.21) give means of 0.6 to
 *    0.7 times the data's for 1 and 2 GPUs but 5 to 14 times for 4 GPUs
 *    and more, and 2-GPU jobs are bimodal (median 21 s, p90 20 h).  Use
 *    "lognormal:MU,SIGMA" to get one explicitly.
 *  - Over all jobs the tabulated mixture reproduces the data's p10 .. p99
 *    CDF to within 0.6 percentage points; duration mean 13,136 s, median
 *    1,144 s, max 4,628,226 s (53.6 days) in the data.
 */
static const uint32_t philly_gpus[] = {1, 2, 4, 8, 12, 16, 24, 32, 64, 128};
static const uint32_t philly_jobs[] = {76627, 1818, 1870, 1643, 7, 199, 7,
                                       67, 6, 3};
enum { PHILLY_NG = sizeof philly_gpus / sizeof philly_gpus[0],
       PHILLY_NQ = 51, PHILLY_NCLASS = 5 };
static const double philly_u[PHILLY_NQ] = {
    0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2,
    0.225, 0.25, 0.275, 0.3, 0.325, 0.35, 0.375, 0.4, 0.425, 0.45, 0.475,
    0.5, 0.525, 0.55, 0.575, 0.6, 0.625, 0.65, 0.675, 0.7, 0.725, 0.75,
    0.775, 0.8, 0.825, 0.85, 0.875, 0.9, 0.925, 0.95, 0.975, 0.98, 0.99,
    0.995, 0.998, 0.999, 0.9995, 0.9999, 1,
};
static const double philly_q[PHILLY_NCLASS][PHILLY_NQ] = {   /* seconds */
    /* 1 GPU, 76,627 jobs */
    {1, 30, 42, 46, 49, 52, 58, 62, 66, 69, 72, 76, 87, 122, 171, 215, 302,
     385, 527, 600, 714, 855, 959, 1117, 1278, 1446, 1542, 1728, 1915, 2054,
     2278, 2464, 2583, 2716, 3137, 3754, 4349, 5342, 5911, 8512, 11166,
     19137, 55518, 68252, 135399, 266914, 502224, 865709, 1447517, 2618276,
     3256045},
    /* 2 GPUs, 1,818 jobs */
    {2, 5, 7, 8, 8, 9, 10, 11, 12, 13, 14, 15, 15, 16, 16, 17, 17, 18, 18,
     19, 19, 20, 20, 21, 22, 23, 24, 25, 26, 28, 30, 33, 38, 76, 105, 149,
     1194, 22255, 37562, 72740, 124488, 197062, 288912, 343862, 523316,
     808064, 1398359, 1474215, 1618289, 2389900, 2582803},
    /* 4 GPUs, 1,870 jobs */
    {3, 36, 45, 56, 67, 75, 107, 138, 156, 179, 248, 405, 604, 773, 1085,
     1696, 2734, 4458, 5579, 7468, 11165, 13087, 15063, 17410, 21134, 26251,
     31470, 36288, 45476, 56846, 67730, 78660, 84864, 89394, 95382, 106284,
     121828, 151448, 176903, 184435, 196484, 273968, 499351, 533378, 907376,
     1205990, 1862334, 2446301, 2648713, 2730282, 2750674},
    /* 8 GPUs, 1,643 jobs */
    {1, 33, 67, 75, 82, 125, 172, 216, 320, 464, 551, 785, 1058, 1876, 3009,
     4011, 5176, 7266, 10331, 12382, 13793, 16651, 21160, 23683, 30274,
     36595, 53329, 65014, 90611, 105941, 123779, 140721, 159174, 173248,
     185595, 203050, 221349, 242252, 271624, 351982, 408314, 525618, 743403,
     795161, 1060498, 2000448, 2232762, 2656479, 3011314, 4304844, 4628226},
    /* 12..128 GPUs, 289 jobs */
    {1, 4, 4, 21, 33, 35, 46, 72, 120, 220, 290, 345, 417, 566, 702, 890,
     1226, 1532, 2479, 3167, 5340, 8522, 13550, 21137, 31631, 45315, 48398,
     53750, 55944, 58976, 65204, 73311, 90526, 104218, 124537, 158991,
     165860, 181582, 210586, 247972, 330234, 443240, 532107, 613624, 922629,
     1274181, 1514361, 1612502, 1661573, 1700829, 1710643},
};

static int philly_class(uint32_t g)
{
    return g <= 1 ? 0 : g == 2 ? 1 : g <= 4 ? 2 : g <= 8 ? 3 : 4;
}

/* Durations never exceed this (s, about 3 years), whatever the
 * distribution, and slack at most GEN_MAX_SLACK, so that submit (at most
 * TRC_MAX_TIME / 2) + slack * duration stays inside TRC_MAX_TIME. */
#define GEN_MAX_DURATION_S 1e8
#define GEN_MAX_SLACK 1000.0

/* -------------------------------------------------------- distributions */

/* The syntax and quantile functions of struct trc_dist are shared with
 * `trace annotate` (annotate.c) and live here, next to their first user;
 * the Philly tables are the generator's own. */

/* Splits "a,b" of n numbers; 0 or -1. */
static int parse_numbers(const char *s, double *v, int n)
{
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *p = buf;
    for (int i = 0; i < n; i++) {
        char *c = strchr(p, ',');
        if ((c != NULL) != (i < n - 1))
            return -1;
        if (c)
            *c = '\0';
        if (sim_parse_double(p, &v[i]) < 0)
            return -1;
        if (c)
            p = c + 1;
    }
    return 0;
}

int trc_dist_parse(const char *spec, struct trc_dist *d)
{
    double v[2];
    memset(d, 0, sizeof *d);
    if (!strncmp(spec, "const:", 6)) {
        d->kind = TRC_DIST_CONST;
        if (parse_numbers(spec + 6, v, 1) < 0 || v[0] <= 0)
            return -1;
        d->a = v[0];
    } else if (!strncmp(spec, "exp:", 4)) {
        d->kind = TRC_DIST_EXP;
        if (parse_numbers(spec + 4, v, 1) < 0 || v[0] <= 0)
            return -1;
        d->a = v[0];
    } else if (!strncmp(spec, "lognormal:", 10)) {
        d->kind = TRC_DIST_LOGNORMAL;
        if (parse_numbers(spec + 10, v, 2) < 0 || v[1] < 0 ||
            fabs(v[0]) > 50 || v[1] > 20)
            return -1;
        d->a = v[0];
        d->b = v[1];
    } else if (!strncmp(spec, "uniform:", 8)) {
        d->kind = TRC_DIST_UNIFORM;
        if (parse_numbers(spec + 8, v, 2) < 0 || v[0] < 0 || v[1] < v[0] ||
            v[1] <= 0)
            return -1;
        d->a = v[0];
        d->b = v[1];
    } else if (!strncmp(spec, "beta:", 5)) {
        d->kind = TRC_DIST_BETA;
        if (parse_numbers(spec + 5, v, 2) < 0 || !(v[0] >= 0.01) ||
            !(v[1] >= 0.01) || v[0] > 1e4 || v[1] > 1e4)
            return -1;
        d->a = v[0];
        d->b = v[1];
    } else {
        return -1;
    }
    return 0;
}

/* The Beta(a, b) quantile at u.  gsl_cdf_beta_Pinv's Newton iteration
 * can fail to converge for skewed shapes; with GSL's handler off (STYLE
 * 9; its default aborts) it then returns NaN, and we fall back to
 * bisection on the CDF, which is monotone: 64 halvings of [0, 1] are
 * finer than a double's spacing near 1 (2^-53). */
static double beta_quantile(double a, double b, double u)
{
    gsl_set_error_handler_off();
    double x = gsl_cdf_beta_Pinv(u, a, b);
    if (x >= 0 && x <= 1)
        return x;
    double lo = 0, hi = 1;
    for (int k = 0; k < 64; k++) {
        double m = (lo + hi) / 2;
        if (gsl_cdf_beta_P(m, a, b) < u)
            lo = m;
        else
            hi = m;
    }
    return (lo + hi) / 2;
}

double trc_dist_quantile(const struct trc_dist *d, double u)
{
    switch (d->kind) {
    case TRC_DIST_CONST:     return d->a;
    case TRC_DIST_EXP:       return -d->a * log1p(-u);
    case TRC_DIST_LOGNORMAL:
        return exp(d->a + d->b * gsl_cdf_ugaussian_Pinv(u));
    case TRC_DIST_UNIFORM:   return d->a + (d->b - d->a) * u;
    case TRC_DIST_BETA:      return beta_quantile(d->a, d->b, u);
    }
    dl_assert_fail("bad distribution kind", __FILE__, __LINE__);
}

/* A duration distribution: the Philly tables, or a trc_dist (not beta),
 * clamped to [lo, hi] seconds. */
struct ddist {
    bool philly;
    struct trc_dist f;
    double lo, hi;              /* clamp, seconds */
};

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* Quantile of the Philly class table at u in [0, 1]. */
static double philly_quantile(int cls, double u)
{
    const double *q = philly_q[cls];
    int k = 1;
    while (k < PHILLY_NQ - 1 && philly_u[k] < u)
        k++;
    double t = (u - philly_u[k - 1]) / (philly_u[k] - philly_u[k - 1]);
    return exp(log(q[k - 1]) + t * (log(q[k]) - log(q[k - 1])));
}

/* E[clamp(X, lo, hi)] for the Philly class table (exact for the
 * piecewise log-linear quantile function). */
static double philly_mean(int cls, double lo, double hi)
{
    const double *q = philly_q[cls];
    double m = 0;
    for (int k = 1; k < PHILLY_NQ; k++) {
        double du = philly_u[k] - philly_u[k - 1];
        double l0 = log(q[k - 1]), l1 = log(q[k]);
        if (q[k] <= lo) {
            m += du * lo;
        } else if (q[k - 1] >= hi) {
            m += du * hi;
        } else if (l1 == l0) {
            m += du * clampd(q[k], lo, hi);
        } else {
            double ta = fmax(0, (log(lo) - l0) / (l1 - l0));
            double tb = fmin(1, (log(hi) - l0) / (l1 - l0));
            m += du * (lo * ta + hi * (1 - tb) +
                       (exp(l0 + (l1 - l0) * tb) - exp(l0 + (l1 - l0) * ta)) /
                           (l1 - l0));
        }
    }
    return m;
}

/* One duration (s) for a job of g GPUs from the uniform u in (0, 1). */
static double draw_duration(const struct ddist *d, uint32_t g, double u)
{
    double x = d->philly ? philly_quantile(philly_class(g), u)
                         : trc_dist_quantile(&d->f, u);
    return clampd(x, d->lo, d->hi);
}

/* E[clamp(duration, lo, hi)] (s) for a job of g GPUs. */
static double mean_duration(const struct ddist *d, uint32_t g)
{
    double lo = d->lo, hi = d->hi;
    if (d->philly)
        return philly_mean(philly_class(g), lo, hi);
    switch (d->f.kind) {
    case TRC_DIST_CONST:
        return clampd(d->f.a, lo, hi);
    case TRC_DIST_EXP:  /* lo + integral_lo^hi of the survival function */
        return lo + d->f.a * (exp(-lo / d->f.a) - exp(-hi / d->f.a));
    case TRC_DIST_LOGNORMAL: {
        double mu = d->f.a, s = d->f.b;
        if (s == 0)
            return clampd(exp(mu), lo, hi);
        double zl = (log(lo) - mu) / s, zh = (log(hi) - mu) / s;
        /* P(a < Z < b) for the shifted normal, without cancellation */
        double a = zl - s, b = zh - s;
        double mid = a > 0 ? gsl_cdf_ugaussian_Q(a) - gsl_cdf_ugaussian_Q(b)
                           : gsl_cdf_ugaussian_P(b) - gsl_cdf_ugaussian_P(a);
        double part = mid > 0 ? exp(mu + s * s / 2 + log(mid)) : 0;
        return lo * gsl_cdf_ugaussian_P(zl) + part +
               hi * gsl_cdf_ugaussian_Q(zh);
    }
    case TRC_DIST_UNIFORM: {
        double A = d->f.a, B = d->f.b;
        if (B == A)
            return clampd(A, lo, hi);
        double ul = clampd((lo - A) / (B - A), 0, 1);
        double uh = clampd((hi - A) / (B - A), 0, 1);
        return lo * ul + A * (uh - ul) + (B - A) * (uh * uh - ul * ul) / 2 +
               hi * (1 - uh);
    }
    case TRC_DIST_BETA:
        break;
    }
    dl_assert_fail("beta durations are rejected by parse_duration",
                   __FILE__, __LINE__);
}

static int parse_duration(const char *spec, double max_s, struct ddist *d,
                          struct dl_error *err)
{
    memset(d, 0, sizeof *d);
    d->lo = 1;
    d->hi = max_s > 0 ? fmin(max_s, GEN_MAX_DURATION_S) : GEN_MAX_DURATION_S;
    if (!strcmp(spec, "philly")) {
        d->philly = true;
        return 0;
    }
    if (trc_dist_parse(spec, &d->f) == 0 && d->f.kind != TRC_DIST_BETA)
        return 0;
    return dl_fail(err, "", 0, 0, "bad duration distribution '%.100s': "
                   "expected const:V, exp:MEAN, lognormal:MU,SIGMA (of ln "
                   "seconds, |MU| <= 50, 0 <= SIGMA <= 20), uniform:LO,HI "
                   "(0 <= LO <= HI) or philly", spec);
}

/* GPU-count distribution: parallel arrays, probabilities summing to 1. */
struct gdist {
    uint32_t *gpus;
    double *cum;                /* cumulative probability */
    double *p;
    size_t n;
};

static void gdist_free(struct gdist *g)
{
    free(g->gpus);
    free(g->cum);
    free(g->p);
}

static int parse_gpus(const char *spec, uint32_t cluster_gpus,
                      struct gdist *g, struct dl_error *err)
{
    size_t cap = 0, wcap = 0, pcap = 0;
    double total = 0;
    memset(g, 0, sizeof *g);
    if (!strcmp(spec, "philly")) {
        for (size_t i = 0; i < PHILLY_NG; i++) {
            xgrow(&g->gpus, &cap, g->n + 1, sizeof *g->gpus);
            xgrow(&g->p, &wcap, g->n + 1, sizeof *g->p);
            g->gpus[g->n] = philly_gpus[i];
            g->p[g->n++] = philly_jobs[i];
        }
    } else {
        char *copy = xstrdup(spec), *save = NULL;
        int bad = !*copy;
        for (char *item = strtok_r(copy, ",", &save); item && !bad;
             item = strtok_r(NULL, ",", &save)) {
            char *colon = strchr(item, ':');
            long count;
            double w = 1;
            if (colon)
                *colon = '\0';
            if (sim_parse_long(item, &count) < 0 || count < 1 ||
                count >= (long)SIM_NONE ||
                (colon && (sim_parse_double(colon + 1, &w) < 0 || w < 0))) {
                bad = 1;
                break;
            }
            for (size_t i = 0; i < g->n; i++)
                bad |= g->gpus[i] == (uint32_t)count;
            xgrow(&g->gpus, &cap, g->n + 1, sizeof *g->gpus);
            xgrow(&g->p, &wcap, g->n + 1, sizeof *g->p);
            g->gpus[g->n] = (uint32_t)count;
            g->p[g->n++] = w;
        }
        free(copy);
        if (bad || !g->n) {
            gdist_free(g);
            return dl_fail(err, "", 0, 0, "bad GPU-count distribution "
                           "'%.100s': expected COUNT:WEIGHT,... with distinct "
                           "integer counts >= 1 and weights >= 0 (e.g. "
                           "1:0.7,2:0.1,4:0.1,8:0.1), a single COUNT, or "
                           "philly", spec);
        }
    }
    /* drop counts that can never run, renormalize the rest */
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (g->gpus[i] > cluster_gpus || g->p[i] <= 0)
            continue;
        g->gpus[k] = g->gpus[i];
        g->p[k++] = g->p[i];
        total += g->p[i];
    }
    g->n = k;
    if (!k || !(total > 0) || !isfinite(total)) {
        gdist_free(g);
        return dl_fail(err, "", 0, 0, "GPU-count distribution '%.100s' has "
                       "no count with positive weight that fits the "
                       "cluster's %u GPUs", spec, cluster_gpus);
    }
    xgrow(&g->cum, &pcap, k, sizeof *g->cum);
    double run = 0;
    for (size_t i = 0; i < k; i++) {
        g->p[i] /= total;
        run += g->p[i];
        g->cum[i] = run;
    }
    g->cum[k - 1] = 1.0;
    return 0;
}

static uint32_t draw_gpus(const struct gdist *g, double u)
{
    size_t i = 0;
    while (i < g->n - 1 && u >= g->cum[i])
        i++;
    return g->gpus[i];
}

/* -------------------------------------------------------------- streams */

/* The generator's streams are the first five of enum trc_stream; the
 * rest belong to `trace annotate`. */
enum { S_ARRIVAL = TRC_S_ARRIVAL, S_GPUS = TRC_S_GPUS,
       S_DURATION = TRC_S_DURATION, S_DEADLINE = TRC_S_DEADLINE,
       S_MODEL = TRC_S_MODEL, NSTREAMS = TRC_S_MODEL + 1 };

/* Arbitrary, distinct, fixed forever: changing one changes traces.
 * (ASCII: "arrivls1", "gpu-cnt2", "duratio3", "deadlin4", "model--5",
 * "util---6", "memgb--7", "gputype8".) */
static const uint64_t stream_salt[TRC_NSTREAMS] = {
    UINT64_C(0x61727269766c7331), UINT64_C(0x6770752d636e7432),
    UINT64_C(0x6475726174696f33), UINT64_C(0x646561646c696e34),
    UINT64_C(0x6d6f64656c2d2d35), UINT64_C(0x7574696c2d2d2d36),
    UINT64_C(0x6d656d67622d2d37), UINT64_C(0x6770757479706538),
};

static uint64_t splitmix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

unsigned long trc_stream_seed(uint64_t seed, enum trc_stream s)
{
    DL_ASSERT((unsigned)s < TRC_NSTREAMS);
    uint64_t x = splitmix64(seed ^ stream_salt[s]);
    /* mt19937 takes 32 bits of seed: fold the 64 */
    return (unsigned long)((x ^ (x >> 32)) & 0xffffffffu);
}

static gsl_rng *stream_new(uint64_t seed, enum trc_stream s)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    DL_ASSERT(r);
    gsl_rng_set(r, trc_stream_seed(seed, s));
    return r;
}

/* ------------------------------------------------------------- generate */

void trc_gen_defaults(struct trc_gen_opts *o)
{
    memset(o, 0, sizeof *o);
    o->njobs = 1000;
    o->load = 0.8;
    o->seed = 1;
    o->gpus = "philly";
    o->duration = "philly";
    o->max_duration_s = 0;
    o->deadline_lo = 0;
    o->deadline_hi = 0;
    o->deadline_frac = 1.0;
    o->models = NULL;
}

/* Splits the model list into arena strings; 0 or DL_EINPUT. */
static int parse_models(const char *list, struct arena *a, const char ***out,
                        size_t *n, struct dl_error *err)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    const char *p = list;
    for (;;) {
        const char *c = strchr(p, ',');
        const char *e = c ? c : p + strlen(p);
        const char *s = p;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (e == s) {
            free(*out);
            *out = NULL;
            return dl_fail(err, "", 0, 0, "bad model list '%.100s': empty "
                           "name (expected a,b,c)", list);
        }
        xgrow(out, &cap, *n + 1, sizeof **out);
        (*out)[(*n)++] = arena_strndup(a, s, (size_t)(e - s));
        if (!c)
            return 0;
        p = c + 1;
    }
}

int trc_generate(const struct trc_gen_opts *o, const struct cluster *c,
                 struct trace *t, struct dl_error *err)
{
    memset(t, 0, sizeof *t);
    double capacity = 0;
    for (uint32_t i = 0; i < c->ntypes; i++)
        capacity += c->types[i].total_gpus * c->types[i].speed;
    if (o->njobs < 1 || o->njobs > TRC_GEN_MAX_JOBS)
        return dl_fail(err, "", 0, 0, "number of jobs must be in 1..%u "
                       "(TRC_GEN_MAX_JOBS: the trace is built in memory), "
                       "got %u", TRC_GEN_MAX_JOBS, o->njobs);
    if (!(o->load > 0) || !isfinite(o->load))
        return dl_fail(err, "", 0, 0, "load must be > 0, got %g", o->load);
    if (!(capacity > 0) || !c->ngpus)
        return dl_fail(err, c->path ? c->path : "", 0, 0,
                       "cluster has no GPU capacity");
    if (!(o->max_duration_s == 0 || o->max_duration_s >= 1) ||
        !isfinite(o->max_duration_s))
        return dl_fail(err, "", 0, 0, "max duration must be 0 (none) or "
                       ">= 1 s, got %g", o->max_duration_s);
    int deadlines = o->deadline_lo > 0;
    double dlo = o->deadline_lo;        /* hi = 0 means hi = lo */
    double dhi = o->deadline_hi > 0 ? o->deadline_hi : o->deadline_lo;
    if (!(dlo >= 0) || (deadlines && (!(dhi >= dlo) || dhi > GEN_MAX_SLACK)))
        return dl_fail(err, "", 0, 0, "bad deadline slack %g:%g: expected "
                       "0 < LO <= HI <= 1000 (or LO = 0 for no deadlines)",
                       o->deadline_lo, o->deadline_hi);
    if (!(o->deadline_frac >= 0 && o->deadline_frac <= 1))
        return dl_fail(err, "", 0, 0, "deadline fraction must be in 0..1, "
                       "got %g", o->deadline_frac);

    struct ddist dd;
    struct gdist gd;
    int r = parse_duration(o->duration ? o->duration : "philly",
                           o->max_duration_s, &dd, err);
    if (r)
        return r;
    r = parse_gpus(o->gpus ? o->gpus : "philly", c->ngpus, &gd, err);
    if (r)
        return r;

    /* E[num_gpus * duration] in reference GPU-seconds */
    double work = 0;
    for (size_t i = 0; i < gd.n; i++)
        work += gd.p[i] * gd.gpus[i] * mean_duration(&dd, gd.gpus[i]);
    if (!(work > 0) || !isfinite(work)) {
        gdist_free(&gd);
        return dl_fail(err, "", 0, 0, "duration distribution '%.100s' has "
                       "no finite mean", o->duration);
    }
    double lambda = o->load * capacity / work;      /* jobs per second */

    trc_init(t, "generated", o->njobs);
    const char **models = NULL;
    size_t nmodels = 0;
    if (o->models && (r = parse_models(o->models, t->arena, &models, &nmodels,
                                       err))) {
        gdist_free(&gd);
        trc_free(t);
        return r;
    }
    gsl_rng *rs[NSTREAMS];
    for (int s = 0; s < NSTREAMS; s++)
        rs[s] = stream_new(o->seed, (enum trc_stream)s);

    simtime_t now = 0;
    char id[16];
    for (uint32_t i = 0; i < o->njobs && !r; i++) {
        struct trc_job *j = &t->jobs[i];
        double gap_us = -log(gsl_rng_uniform_pos(rs[S_ARRIVAL])) / lambda *
                        SIM_US_PER_S;
        if (i > 0 && gap_us < (double)(TRC_MAX_TIME / 2 - now))
            now += llround(gap_us);
        else if (i > 0)
            now = SIM_NEVER;
        if (now > TRC_MAX_TIME / 2) {
            r = dl_fail(err, "", 0, 0, "arrival times exceed 5e11 s after "
                        "%u jobs: the load is too small for this many jobs",
                        i);
            break;
        }
        snprintf(id, sizeof id, "j%u", i);
        j->id = arena_strndup(t->arena, id, strlen(id));
        j->submit = now;
        j->num_gpus = draw_gpus(&gd, gsl_rng_uniform(rs[S_GPUS]));
        double d = draw_duration(&dd, j->num_gpus,
                                 gsl_rng_uniform_pos(rs[S_DURATION]));
        j->duration = llround(d * SIM_US_PER_S);
        if (deadlines) {
            double take = gsl_rng_uniform(rs[S_DEADLINE]);
            double slack = dlo + (dhi - dlo) * gsl_rng_uniform(rs[S_DEADLINE]);
            if (take < o->deadline_frac)
                j->deadline = j->submit +
                              llround(slack * (double)j->duration);
        }
        if (nmodels)
            j->model = models[gsl_rng_uniform_int(rs[S_MODEL], nmodels)];
        j->line = i + 2;        /* where trc_write will put it */
    }
    for (int s = 0; s < NSTREAMS; s++)
        gsl_rng_free(rs[s]);
    free(models);
    gdist_free(&gd);
    /* the load asked for, exactly (one job, or all at one instant: no
     * span, no load to speak of) */
    double k;
    if (!r && t->njobs > 1 && t->jobs[t->njobs - 1].submit > t->jobs[0].submit)
        r = trc_scale_load(t, c, o->load, &k, err);
    if (r)
        trc_free(t);
    return r;
}
