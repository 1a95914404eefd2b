/*
 * traces/annotate.c - fills in the optional per-job fields of an existing
 * trace (trc_annotate): deadlines, model names, solo GPU utilization, GPU
 * memory and tenants (vc, user), seeded and reproducible, so that QoS
 * targets, model-driven runs and fair sharing are defined on any trace (a
 * converted real one included).
 *
 * Owns nothing after it returns: it changes the trace's job records in
 * place, and the drawn model names are copied into the trace's arena.
 *
 * What changes.  Only the fields asked for, and by default only where they
 * are empty (unknown, SPEC 2): a value already in the trace is kept.  With
 * overwrite every job's field is redrawn; a job that the deadline fraction
 * leaves out then loses any deadline it had, so the column follows the
 * requested distribution exactly.  Every other field of every job (order,
 * id, submit, duration, GPUs, gpu_type, priority) is left alone.
 *
 *   deadline  submit + slack * duration, slack ~ Uniform[lo, hi], for a
 *             fraction deadline_frac of jobs (as `trace gen`); duration is
 *             the run time alone on reference GPUs (SPEC 2).  A deadline
 *             past TRC_MAX_TIME is cut to it.
 *   model     a name from the list, uniformly or by the relative weights
 *             given as name:W.
 *   vc, user  likewise (the tenants fairshare serves).
 *   util      a trc_dist value clamped to [0.01, 1].
 *   mem_gb    a trc_dist value clamped to [0, 1e6] (GB per GPU).
 *
 * Determinism (STYLE 13).  Each field has its own mt19937 stream, seeded
 * by trc_stream_seed(seed, its component), and takes a fixed number of
 * uniforms for EVERY job, in trace order, whether or not the job's field
 * is filled: deadline 2 (whether, slack), model 1, util 1, mem_gb 1, vc 1,
 * user 1.  So
 * job i's value depends only on the seed, its own field's options and i
 * (and the job's submit and duration, for a deadline): adding --util never
 * changes the deadlines drawn, and which fields a trace already holds never
 * shifts any draw.  The deadline stream is the generator's, drawn the same
 * way, so annotating a generated trace that has no deadlines with the
 * generator's seed and slack gives the deadlines `trace gen` would have.
 *
 * Options are all checked (plan_make) before the first job is touched, so
 * a bad option leaves the trace unchanged.
 */
#include "traces/trace.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ANN_MAX_SLACK 1000.0    /* as trace gen's: 0 < lo <= hi <= this */
#define ANN_UTIL_MIN 0.01
#define ANN_MEM_MAX_GB 1e6

const char *const trc_annot_name[TRC_NANNOT] = {
    "deadline", "model", "util", "mem_gb", "vc", "user",
};

/* Names drawn by relative weight: model, vc, user. */
struct names {
    bool on;
    const char **names;         /* in the arena */
    double *cum;                /* cumulative weights, cum[n - 1] = 1 */
    size_t nnames;
};

/* The checked options: what to draw and how. */
struct plan {
    bool deadline, util, mem;
    double dlo, dhi, frac;
    struct names model, vc, user;
    struct trc_dist udist, mdist;
};

static void plan_free(struct plan *p)
{
    struct names *l[] = {&p->model, &p->vc, &p->user};
    for (size_t i = 0; i < 3; i++) {
        free(l[i]->names);
        free(l[i]->cum);
    }
}

/* Parses "a,b" or "a:W,b:W" (weights relative, default 1; names and
 * weights trimmed of blanks; names distinct, never empty) for the option
 * what.  Names with zero weight are dropped.
 * 0 or DL_EINPUT. */
static int parse_names(const char *list, const char *what, struct arena *a,
                       struct names *p, struct dl_error *err)
{
    size_t cap = 0, wcap = 0;
    double total = 0;
    const char *why = NULL;
    const char *s = list;
    for (;;) {
        const char *c = strchr(s, ',');
        const char *e = c ? c : s + strlen(s);
        const char *colon = memchr(s, ':', (size_t)(e - s));
        const char *ne = colon ? colon : e;
        double w = 1;
        if (colon) {
            char num[64];
            const char *ws = colon + 1, *we = e;
            while (ws < we && (*ws == ' ' || *ws == '\t'))
                ws++;
            while (we > ws && (we[-1] == ' ' || we[-1] == '\t'))
                we--;
            size_t n = (size_t)(we - ws);
            if (n >= sizeof num)
                n = 0;                  /* no number is this long */
            memcpy(num, ws, n);
            num[n] = '\0';
            if (sim_parse_double(num, &w) < 0 || !(w >= 0) || !isfinite(w)) {
                why = "bad weight (expected a number >= 0)";
                break;
            }
        }
        while (s < ne && (*s == ' ' || *s == '\t'))
            s++;
        while (ne > s && (ne[-1] == ' ' || ne[-1] == '\t'))
            ne--;
        if (ne == s) {
            why = "empty name";
            break;
        }
        size_t len = (size_t)(ne - s);
        for (size_t i = 0; i < p->nnames && !why; i++)
            if (strlen(p->names[i]) == len && !memcmp(p->names[i], s, len))
                why = "a name given twice";
        if (why)
            break;
        if (w > 0) {
            xgrow(&p->names, &cap, p->nnames + 1, sizeof *p->names);
            xgrow(&p->cum, &wcap, p->nnames + 1, sizeof *p->cum);
            p->names[p->nnames] = arena_strndup(a, s, len);
            total += w;
            p->cum[p->nnames++] = total;
        }
        if (!c)
            break;
        s = c + 1;
    }
    if (!why && (!p->nnames || !isfinite(total)))
        why = "no name with a positive weight";
    if (why)
        return dl_fail(err, "", 0, 0, "bad %s list '%.100s': %s "
                       "(expected a,b,c or a:W,b:W,... with relative "
                       "weights W >= 0)", what, list, why);
    for (size_t i = 0; i < p->nnames; i++)
        p->cum[i] /= total;
    p->cum[p->nnames - 1] = 1.0;
    p->on = true;
    return 0;
}

/* The name a uniform u in [0, 1) picks. */
static const char *name_of(const struct names *l, double u)
{
    size_t k = 0;
    while (k < l->nnames - 1 && u >= l->cum[k])
        k++;
    return l->names[k];
}

/* Fills field *f of one job from list l with the draw u, counting in c. */
static void fill_name(const struct names *l, double u, const char **f,
                      bool overwrite, struct trc_annot_count *c)
{
    if (*f && !overwrite) {
        c->kept++;
        return;
    }
    c->replaced += *f != NULL;
    *f = name_of(l, u);
    c->filled++;
}

static int parse_dist(const char *spec, const char *what, const char *range,
                      struct trc_dist *d, struct dl_error *err)
{
    if (trc_dist_parse(spec, d) == 0)
        return 0;
    return dl_fail(err, "", 0, 0, "bad %s distribution '%.100s': expected "
                   "const:V, exp:MEAN, lognormal:MU,SIGMA (|MU| <= 50, 0 <= "
                   "SIGMA <= 20), uniform:LO,HI (0 <= LO <= HI) or beta:A,B "
                   "(0.01 <= A, B <= 10000); values are clamped to %s",
                   what, spec, range);
}

/* Checks o and fills p; model names go into a.  0 or DL_EINPUT, with p
 * freed. */
static int plan_make(const struct trc_annot_opts *o, struct arena *a,
                     struct plan *p, struct dl_error *err)
{
    memset(p, 0, sizeof *p);
    p->deadline = o->deadline_lo != 0;
    p->dlo = o->deadline_lo;
    p->dhi = o->deadline_hi > 0 ? o->deadline_hi : o->deadline_lo;
    p->frac = o->deadline_frac;
    if (p->deadline && !(p->dlo > 0 && p->dhi >= p->dlo &&
                         p->dhi <= ANN_MAX_SLACK))
        return dl_fail(err, "", 0, 0, "bad deadline slack %g:%g: expected "
                       "0 < LO <= HI <= %g", o->deadline_lo, o->deadline_hi,
                       ANN_MAX_SLACK);
    if (!(p->frac >= 0 && p->frac <= 1))
        return dl_fail(err, "", 0, 0, "deadline fraction must be in 0..1, "
                       "got %g", p->frac);
    int r = 0;
    if (o->util) {
        p->util = true;
        r = parse_dist(o->util, "util", "[0.01, 1]", &p->udist, err);
    }
    if (!r && o->mem) {
        p->mem = true;
        r = parse_dist(o->mem, "mem", "[0, 1e6] GB", &p->mdist, err);
    }
    if (!r && o->models)
        r = parse_names(o->models, "model", a, &p->model, err);
    if (!r && o->vc)
        r = parse_names(o->vc, "vc", a, &p->vc, err);
    if (!r && o->user)
        r = parse_names(o->user, "user", a, &p->user, err);
    if (r)
        plan_free(p);
    return r;
}

void trc_annot_defaults(struct trc_annot_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->deadline_frac = 1.0;
}

int trc_annot_check(const struct trc_annot_opts *o, struct dl_error *err)
{
    struct arena *a = arena_new();
    struct plan p;
    int r = plan_make(o, a, &p, err);
    if (!r)
        plan_free(&p);
    arena_free(a);
    return r;
}

static gsl_rng *stream_new(uint64_t seed, enum trc_stream s)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    DL_ASSERT(r);
    gsl_rng_set(r, trc_stream_seed(seed, s));
    return r;
}

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* submit + slack * duration, cut to TRC_MAX_TIME.  In range, exactly the
 * generator's expression, so the two tools agree to the microsecond. */
static simtime_t deadline_of(const struct trc_job *j, double slack)
{
    double w = slack * (double)j->duration;
    if (!(w < (double)(TRC_MAX_TIME - j->submit)))
        return TRC_MAX_TIME;
    simtime_t d = j->submit + llround(w);
    return d > TRC_MAX_TIME ? TRC_MAX_TIME : d;
}

int trc_annotate(const struct trc_annot_opts *o, struct trace *t,
                 struct trc_annot_stats *st, struct dl_error *err)
{
    struct trc_annot_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    struct plan p;
    int r = plan_make(o, t->arena, &p, err);
    if (r)
        return r;
    struct trc_annot_count *cd = &st->f[TRC_A_DEADLINE],
                           *cm = &st->f[TRC_A_MODEL],
                           *cu = &st->f[TRC_A_UTIL], *cg = &st->f[TRC_A_MEM];
    cd->asked = p.deadline;
    cm->asked = p.model.on;
    cu->asked = p.util;
    cg->asked = p.mem;
    st->f[TRC_A_VC].asked = p.vc.on;
    st->f[TRC_A_USER].asked = p.user.on;
    gsl_rng *rd = p.deadline ? stream_new(o->seed, TRC_S_DEADLINE) : NULL;
    gsl_rng *rm = p.model.on ? stream_new(o->seed, TRC_S_MODEL) : NULL;
    gsl_rng *ru = p.util ? stream_new(o->seed, TRC_S_UTIL) : NULL;
    gsl_rng *rg = p.mem ? stream_new(o->seed, TRC_S_MEM) : NULL;
    gsl_rng *rv = p.vc.on ? stream_new(o->seed, TRC_S_VC) : NULL;
    gsl_rng *rs_ = p.user.on ? stream_new(o->seed, TRC_S_USER) : NULL;

    for (uint32_t i = 0; i < t->njobs; i++) {
        struct trc_job *j = &t->jobs[i];
        /* every draw of the job first, so the counts per job are fixed */
        if (p.deadline) {
            double take = gsl_rng_uniform(rd);
            double slack = p.dlo + (p.dhi - p.dlo) * gsl_rng_uniform(rd);
            bool had = j->deadline != SIM_NEVER;
            if (had && !o->overwrite) {
                cd->kept++;
            } else if (take < p.frac) {
                j->deadline = deadline_of(j, slack);
                cd->filled++;
                cd->replaced += had;
            } else if (had) {
                j->deadline = SIM_NEVER;
                cd->cleared++;
            }
        }
        if (p.model.on)
            fill_name(&p.model, gsl_rng_uniform(rm), &j->model, o->overwrite,
                      cm);
        if (p.util) {
            double x = trc_dist_quantile(&p.udist, gsl_rng_uniform_pos(ru));
            if (j->util >= 0 && !o->overwrite) {
                cu->kept++;
            } else {
                cu->replaced += j->util >= 0;
                j->util = (float)clampd(x, ANN_UTIL_MIN, 1);
                cu->filled++;
            }
        }
        if (p.mem) {
            double x = trc_dist_quantile(&p.mdist, gsl_rng_uniform_pos(rg));
            if (j->mem_gb >= 0 && !o->overwrite) {
                cg->kept++;
            } else {
                cg->replaced += j->mem_gb >= 0;
                /* !(x >= 0) also catches a NaN, which no family gives */
                j->mem_gb = (float)(!(x >= 0) ? 0 : fmin(x, ANN_MEM_MAX_GB));
                cg->filled++;
            }
        }
        if (p.vc.on)
            fill_name(&p.vc, gsl_rng_uniform(rv), &j->vc, o->overwrite,
                      &st->f[TRC_A_VC]);
        if (p.user.on)
            fill_name(&p.user, gsl_rng_uniform(rs_), &j->user, o->overwrite,
                      &st->f[TRC_A_USER]);
    }
    gsl_rng *rs[] = {rd, rm, ru, rg, rv, rs_};
    for (size_t k = 0; k < sizeof rs / sizeof rs[0]; k++)
        if (rs[k])
            gsl_rng_free(rs[k]);
    plan_free(&p);
    return 0;
}
