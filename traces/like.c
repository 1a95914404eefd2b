/*
 * traces/like.c - `dlsim trace gen --like`: a synthetic trace drawn from a
 * fitted workload description (trc_generate_like; the description and
 * its fit are traces/workload.c).
 *
 * Owns nothing after it returns: the trace (jobs, and ids and names in its
 * arena) belongs to the caller, who frees it with trc_free.
 *
 * Model.  N jobs (default: the fitted number).
 *   - Categorical columns are apportioned, not sampled: the GPU counts,
 *     the model mix (with the jobs that had none as one more category),
 *     the gpu_type mix, and whether a job has a deadline, a util, a
 *     mem_gb.  Category k of fitted count c_k (out of the fitted n jobs)
 *     gets floor(N c_k / n) jobs, and the N - sum of those left go one
 *     each to the largest remainders N c_k mod n (ties: the earlier
 *     category); so N = n gives the fitted counts exactly.  The N labels
 *     are then shuffled (gsl_ran_shuffle) with the column's own stream.
 *   - Durations: by inversion of the job's GPU-count class table
 *     (log-linear between the tabulated quantiles), at least 1 us.
 *   - Arrivals: the first job at the fitted start_s; each later one after
 *       replay   a gap drawn by inversion of the fitted gap table (linear
 *                between quantiles; zero gaps of batch arrivals kept);
 *       poisson  an exponential gap of the fitted mean gap (span / (n-1));
 *       diurnal  the next point of a non-homogeneous Poisson process of
 *                rate lambda(t) = (h(t) / mean h) (w(t) / mean w) / mean
 *                gap, h = the hourly weight of t's hour of day, w = the
 *                weekly weight of its day (1 without one); drawn exactly
 *                by inversion of the cumulative rate: E = -ln U, then
 *                the next t with integral_now^t lambda = E, walking the
 *                piecewise-constant rate an hour at a time.
 *   - Deadlines: submit + slack x duration, slack by inversion of the
 *     fitted slack table; util and mem_gb by inversion of theirs.
 *   - Models: the fitted mix; or (o->models) a list of names with equal
 *     shares; or none.
 *
 * Determinism (STYLE 13): one mt19937 stream per column, the generator's
 * (TRC_S_ARRIVAL, TRC_S_GPUS, TRC_S_DURATION, TRC_S_DEADLINE, TRC_S_MODEL,
 * TRC_S_UTIL, TRC_S_MEM) and TRC_S_GPU_TYPE, each taking a fixed number
 * of draws for N jobs: a shuffle (N - 1 draws) where apportioned, then
 * one uniform per job for a drawn value (arrival gaps: one per job after
 * the first), whether or not the job keeps it.  Changing the model list
 * never changes the durations or the arrivals drawn for a seed.
 */
#include "traces/trace.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static gsl_rng *stream_new(uint64_t seed, enum trc_stream s)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    DL_ASSERT(r);
    gsl_rng_set(r, trc_stream_seed(seed, s));
    return r;
}

/* Remainder order: larger first, ties to the earlier category. */
static int by_remainder(const void *a, const void *b, void *rem)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const uint64_t *r = rem;
    if (r[x] != r[y])
        return r[x] > r[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* Labels lab[0..N) of categories 0..k-1 with fitted counts c[] (summing
 * to n), apportioned by largest remainder and shuffled with r.  The
 * remainders are sorted once (picking the largest k times over was
 * quadratic in a mix of many names). */
static void apportion(const uint32_t *c, uint32_t k, uint32_t n, uint32_t N,
                      gsl_rng *r, uint32_t *lab)
{
    uint32_t *got = xmalloc(k * sizeof *got);
    uint64_t *rem = xmalloc(k * sizeof *rem);
    uint32_t *order = xmalloc(k * sizeof *order);
    uint64_t given = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint64_t q = (uint64_t)N * c[i];
        got[i] = (uint32_t)(q / n);
        rem[i] = q % n;
        given += got[i];
        order[i] = i;
    }
    qsort_r(order, k, sizeof *order, by_remainder, rem);
    DL_ASSERT(N - given <= k);
    for (uint64_t i = 0; i < N - given; i++)
        got[order[i]]++;
    free(order);
    uint32_t j = 0;
    for (uint32_t i = 0; i < k; i++)
        for (uint32_t m = 0; m < got[i]; m++)
            lab[j++] = i;
    DL_ASSERT(j == N);
    gsl_ran_shuffle(r, lab, N, sizeof *lab);
    free(got);
    free(rem);
}

/* Two categories: "has a value" (yes jobs of n) or not. */
static void apportion_yes(uint32_t yes, uint32_t n, uint32_t N, gsl_rng *r,
                          uint32_t *lab)
{
    uint32_t c[2] = {yes, n - yes};
    apportion(c, 2, n, N, r, lab);
}

/* Splits "a,b,c" (blanks trimmed, distinct, non-empty) into arena names. */
static int split_names(const char *list, struct arena *a, const char ***out,
                       uint32_t *n, struct dl_error *err)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    for (const char *p = list;;) {
        const char *c = strchr(p, ',');
        const char *e = c ? c : p + strlen(p), *s = p;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        const char *why = e == s ? "an empty name" : NULL;
        for (uint32_t i = 0; i < *n && !why; i++)
            if (strlen((*out)[i]) == (size_t)(e - s) &&
                !memcmp((*out)[i], s, (size_t)(e - s)))
                why = "a name given twice";
        if (why) {
            free(*out);
            *out = NULL;
            return dl_fail(err, "", 0, 0, "bad --models '%.100s': %s "
                           "(expected like, zoo, none or a,b,c)", list, why);
        }
        xgrow(out, &cap, *n + 1, sizeof **out);
        (*out)[(*n)++] = arena_strndup(a, s, (size_t)(e - s));
        if (!c)
            return 0;
        p = c + 1;
    }
}

/* Diurnal: the next arrival after now_s (seconds) for E = -ln U, with
 * rate(t) = base * trc_wl_rate(t) / norm jobs per second. */
static double next_diurnal(const struct trc_workload *w, double now_s,
                           double E, double base)
{
    /* past 5e11 s the caller reports the overflow; stop walking there */
    while (now_s < 5e11) {
        double seg_end = (floor(now_s / 3600) + 1) * 3600;
        double rate = base * trc_wl_rate(w, now_s);
        if (rate > 0 && rate * (seg_end - now_s) >= E)
            return now_s + E / rate;
        E -= rate * (seg_end - now_s);
        now_s = seg_end;
    }
    return now_s;
}

int trc_generate_like(const struct trc_like_opts *o,
                      const struct trc_workload *w, struct trace *t,
                      struct dl_error *err)
{
    memset(t, 0, sizeof *t);
    uint32_t N = o->njobs ? o->njobs : w->njobs, n = w->njobs;
    if (N < 1 || N > TRC_GEN_MAX_JOBS)
        return dl_fail(err, "", 0, 0, "number of jobs must be in 1..%u, got "
                       "%u%s", TRC_GEN_MAX_JOBS, N, o->njobs ? "" :
                       " (the fitted number: give --jobs)");
    if (o->arrivals != TRC_ARR_REPLAY && !(w->gap_mean_s > 0))
        return dl_fail(err, "", 0, 0, "the workload's mean "
                       "inter-arrival gap is 0 (all jobs arrive at once): "
                       "only --arrivals replay can follow it");
    if (o->arrivals == TRC_ARR_DIURNAL && !w->diurnal)
        return dl_fail(err, "", 0, 0, "the workload has no diurnal "
                       "profile (its trace spans less than a day): use "
                       "--arrivals replay or poisson");
    double hmean = 0, dmean = 0;
    for (int h = 0; h < 24; h++)
        hmean += w->hourly[h] / 24;
    for (int d = 0; d < 7; d++)
        dmean += w->daily[d] / 7;
    double base = 1 / w->gap_mean_s / (w->diurnal ? hmean : 1) /
                  (w->weekly ? dmean : 1);

    trc_init(t, "generated", N);
    const char **names = NULL;
    uint32_t nnames = 0;
    int r = 0;
    if (o->models && *o->models &&
        (r = split_names(o->models, t->arena, &names, &nnames, err))) {
        trc_free(t);
        return r;
    }
    gsl_rng *rs[TRC_NSTREAMS];
    for (int s = 0; s < TRC_NSTREAMS; s++)
        rs[s] = stream_new(o->seed, (enum trc_stream)s);
    uint32_t *lab = xmalloc(N * sizeof *lab);
    char id[16];

    /* ids, GPU counts, durations */
    uint32_t *cls_of = xmalloc(w->ngpu * sizeof *cls_of);
    for (uint32_t c = 0; c < w->nclass; c++)
        for (uint32_t i = 0; i < w->cls[c].ngpus; i++) {
            /* w->gpus ascends: each class count found by bisection */
            uint32_t lo = 0, hi = w->ngpu;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (w->gpus[mid] < w->cls[c].gpus[i])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            DL_ASSERT(lo < w->ngpu && w->gpus[lo] == w->cls[c].gpus[i]);
            cls_of[lo] = c;
        }
    apportion(w->gpu_jobs, w->ngpu, n, N, rs[TRC_S_GPUS], lab);
    for (uint32_t i = 0; i < N; i++) {
        struct trc_job *j = &t->jobs[i];
        snprintf(id, sizeof id, "j%u", i);
        j->id = arena_strndup(t->arena, id, strlen(id));
        j->num_gpus = w->gpus[lab[i]];
        double d = trc_qtab_eval(&w->cls[cls_of[lab[i]]].dur,
                                 gsl_rng_uniform_pos(rs[TRC_S_DURATION]),
                                 true);
        double us = d * SIM_US_PER_S;
        j->duration = us < 1 ? 1 : us > (double)TRC_MAX_TIME
                                       ? TRC_MAX_TIME : llround(us);
        j->line = i + 2;
    }
    free(cls_of);

    /* arrivals */
    double now_s = w->start_s;
    simtime_t now = llround(w->start_s * SIM_US_PER_S);
    for (uint32_t i = 0; i < N && !r; i++) {
        if (i > 0) {
            double u = gsl_rng_uniform_pos(rs[TRC_S_ARRIVAL]);
            double gap_s = 0;
            switch (o->arrivals) {
            case TRC_ARR_REPLAY:
                gap_s = trc_qtab_eval(&w->gap, u, false);
                break;
            case TRC_ARR_POISSON:
                gap_s = -log(u) * w->gap_mean_s;
                break;
            case TRC_ARR_DIURNAL:
                now_s = next_diurnal(w, now_s, -log(u), base);
                break;
            }
            if (o->arrivals == TRC_ARR_DIURNAL)
                now = now_s < (double)TRC_MAX_TIME / SIM_US_PER_S
                          ? llround(now_s * SIM_US_PER_S) : SIM_NEVER;
            else if (gap_s * SIM_US_PER_S < (double)(TRC_MAX_TIME - now))
                now += llround(gap_s * SIM_US_PER_S);
            else
                now = SIM_NEVER;
        }
        if (now > TRC_MAX_TIME / 2)
            r = dl_fail(err, "", 0, 0, "arrival times exceed 5e11 s after "
                        "%u jobs", i);
        t->jobs[i].submit = now;
    }

    /* gpu_type */
    if (!r && w->gpu_types.n) {
        const struct trc_wl_mix *m = &w->gpu_types;
        uint32_t *c = xmalloc((m->n + 1) * sizeof *c), sum = 0;
        for (uint32_t k = 0; k < m->n; k++)
            sum += c[k] = m->jobs[k];
        c[m->n] = n - sum;
        apportion(c, m->n + 1, n, N, rs[TRC_S_GPU_TYPE], lab);
        for (uint32_t i = 0; i < N; i++)
            t->jobs[i].gpu_type = lab[i] < m->n
                ? arena_strndup(t->arena, m->name[lab[i]],
                                strlen(m->name[lab[i]])) : NULL;
        free(c);
    }
    /* models: fitted mix, equal shares of a list, or none */
    if (!r && (nnames || (!o->models && w->models.n))) {
        const struct trc_wl_mix *m = &w->models;
        uint32_t k = nnames ? nnames : m->n + 1;
        uint32_t *c = xmalloc(k * sizeof *c), sum = 0;
        for (uint32_t i = 0; i < k; i++)
            c[i] = nnames ? 1 : i < m->n ? m->jobs[i] : 0;
        if (!nnames) {
            for (uint32_t i = 0; i < m->n; i++)
                sum += c[i];
            c[m->n] = n - sum;
        }
        const char **nm = nnames ? names
                                 : xmalloc(m->n * sizeof *nm);
        if (!nnames)
            for (uint32_t i = 0; i < m->n; i++)
                nm[i] = arena_strndup(t->arena, m->name[i],
                                      strlen(m->name[i]));
        apportion(c, k, nnames ? nnames : n, N, rs[TRC_S_MODEL], lab);
        for (uint32_t i = 0; i < N; i++)
            t->jobs[i].model = nnames || lab[i] < m->n ? nm[lab[i]] : NULL;
        if (!nnames)
            free(nm);
        free(c);
    }
    /* deadlines */
    if (!r && w->deadline_jobs) {
        apportion_yes(w->deadline_jobs, n, N, rs[TRC_S_DEADLINE], lab);
        for (uint32_t i = 0; i < N; i++) {
            struct trc_job *j = &t->jobs[i];
            double s = trc_qtab_eval(&w->slack,
                                     gsl_rng_uniform(rs[TRC_S_DEADLINE]),
                                     false);
            if (lab[i] != 0)
                continue;
            double dl = (double)j->submit + s * (double)j->duration;
            j->deadline = dl >= (double)TRC_MAX_TIME ? TRC_MAX_TIME
                        : s <= 0 ? j->submit : llround(dl);
        }
    }
    if (!r && w->util_jobs) {
        apportion_yes(w->util_jobs, n, N, rs[TRC_S_UTIL], lab);
        for (uint32_t i = 0; i < N; i++) {
            double x = trc_qtab_eval(&w->util, gsl_rng_uniform(rs[TRC_S_UTIL]),
                                     false);
            if (lab[i] == 0)
                t->jobs[i].util = (float)x;
        }
    }
    if (!r && w->mem_jobs) {
        apportion_yes(w->mem_jobs, n, N, rs[TRC_S_MEM], lab);
        for (uint32_t i = 0; i < N; i++) {
            double x = trc_qtab_eval(&w->mem, gsl_rng_uniform(rs[TRC_S_MEM]),
                                     false);
            if (lab[i] == 0)
                t->jobs[i].mem_gb = (float)x;
        }
    }
    for (int s = 0; s < TRC_NSTREAMS; s++)
        gsl_rng_free(rs[s]);
    free(lab);
    free(names);
    if (r)
        trc_free(t);
    return r;
}
