/*
 * sim/share.c - the co-location model (prefix shr_): who is on each GPU,
 * the memory and solo utilization they hold there, and the factor at
 * which each job runs given its co-runners (models/perf.h's slowdown
 * model: a job on several GPUs runs at the pace of its slowest).  Kept
 * apart from the event loop (sim/engine.c), which asks it for factors and
 * settles work; this file owns the per-GPU arrays occ, nocc, mem_used,
 * usum, uuse and the running sums shared_gpus, eff_gpus, useful_gpus.
 *
 *   effective: per GPU min(1, sum of the solo utils of its jobs)
 *   useful:    per GPU min(1, sum of solo util x rate / solo rate), each
 *              job's factor as last credited (job_rt.ufac)
 *
 * An emptied GPU's sums are reset to zero, so rounding never drifts.
 *
 * A running job's factor is kept (jf) and, when the jobs of some of its
 * GPUs change, follows from theirs alone (shr_neighbours): a gang beside
 * many small jobs is walked again only when the GPU where its minimum was
 * reached speeds up.  The minimum is exact, so the kept factor is the one
 * a walk gives, which --check compares at every instant.
 */
#include "sim/simint.h"

#include <string.h>

/* Whether two GPUs hold the same c jobs in the same order (c is at most
 * max_share: a loop, not a call to memcmp). */
static inline bool same_jobs(const uint32_t *a, const uint32_t *b, uint32_t c)
{
    for (uint32_t k = 0; k < c; k++)
        if (a[k] != b[k])
            return false;
    return true;
}

/* shr_factor's walk; cache: whether to read and keep sfac.  *at: a GPU + 1
 * where the minimum is reached, 0 where it is 1. */
static inline double factor(struct eng *e, uint32_t j, uint32_t type,
                            const uint32_t *gpus, uint32_t n, bool cache,
                            uint32_t *at)
{
    double f = 1;
    uint32_t a = 0;
    const uint32_t *prev = NULL;        /* the last shared GPU's jobs */
    uint32_t nprev = 0;
    size_t ms = e->max_share;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i], c = e->nocc[g];
        const uint32_t *o = eng_gpu_jobs(e, g);
        if (c > 1 || (c == 1 && o[0] != j)) {
            /* a gang beside a gang: the next GPU holds the same jobs,
             * and the model (a function of them) the same factor */
            if (prev && c == nprev && same_jobs(o, prev, c))
                continue;
            uint32_t k = 0;
            while (cache && k < c && o[k] != j)
                k++;
            size_t at = (size_t)g * ms + k;
            double x = cache && k < c ? e->sfac[at] : 0;
            if (!(x > 0)) {
                x = mdl_perf_shared(e->perf, type, j, o, c);
                if (cache && k < c)
                    e->sfac[at] = x;
            }
            if (x < f) {
                f = x;
                a = g + 1;
            }
            prev = o;
            nprev = c;
        }
    }
    *at = a;
    return f;
}

/* The factors kept per running job (e->jf), made at the first
 * co-location: until then every job runs alone, which jf's zeros say. */
static struct shr_jf *jf_get(struct eng *e)
{
    if (!e->jf) {
        uint64_t most = (uint64_t)e->clu->ngpus * e->max_share;
        size_t n = most < e->tr->njobs ? (size_t)most : e->tr->njobs;
        e->jf = xcalloc_big(n ? n : 1, sizeof *e->jf);
    }
    return e->jf;
}

double shr_factor(struct eng *e, uint32_t j, uint32_t type,
                  const uint32_t *gpus, uint32_t n, uint32_t *at)
{
    jf_get(e);                  /* jobs share from now on */
    return factor(e, j, type, gpus, n, true, at);
}

double shr_factor_fresh(const struct eng *e, uint32_t j, uint32_t type,
                        const uint32_t *gpus, uint32_t n)
{
    uint32_t at;
    return factor((struct eng *)e, j, type, gpus, n, false, &at);
}

/* A GPU's sum (of solo utilizations, effective; or of solo utilization
 * x rate / solo rate, useful) changes by du, and total by the change of
 * its capped contribution min(1, sum).  For a GPU that keeps a job; one
 * that empties has its sums reset to zero instead (shr_leave: no drift). */
static inline void cap_add(double *sum, double du, double *total)
{
    double before = *sum < 1 ? *sum : 1;
    *sum += du;
    *total += (*sum < 1 ? *sum : 1) - before;
}

/* Credits running job j's useful work at its current rate over its solo
 * rate on this allocation (rate / base_rate) on each of its GPUs. */
void shr_credit(struct eng *e, uint32_t j)
{
    struct job_rt *r = eng_rt(e, j);
    double f = r->rate / r->base_rate;
    if (f == r->ufac)
        return;
    double du = mdl_perf_util(e->perf, j, r->type) * (f - r->ufac);
    for (uint32_t i = 0; i < r->ngpus; i++)
        cap_add(&e->uuse[r->gpus[i]], du, &e->useful_gpus);
    r->ufac = f;
}

/* Both loops below keep the per-GPU arrays and running sums in locals
 * (the compiler cannot, as the double arrays might alias the engine's
 * fields) and add to the sums GPU by GPU in one order, so the figures
 * are the same to the last bit whatever the gang; a gang of thousands
 * of GPUs is placed and released at a few ns per GPU. */
uint32_t shr_join(struct eng *e, uint32_t j, const uint32_t *gpus, uint32_t n,
                  double f)
{
    struct job_rt *r = eng_rt(e, j);
    uint32_t nfree = 0, shared = e->shared_gpus;
    const struct cluster *c = e->clu;
    uint32_t t = c->nodes[c->gpu_node[gpus[0]]].type;   /* one type */
    double u = mdl_perf_util(e->perf, j, t), mem = mdl_perf_mem(e->perf, j);
    double m = mem > 0 ? mem : 0, uf = u * f;
    double eff = e->eff_gpus, use = e->useful_gpus;
    double *usum = e->usum, *uuse = e->uuse, *mem_used = e->mem_used;
    uint8_t *nocc = e->nocc;
    uint32_t *occ = e->occ, *scratch = e->scratch;
    double *sfac = e->sfac;
    size_t ms = e->max_share;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i], k = nocc[g];
        if (k == 0)
            scratch[nfree++] = g;
        else if (k == 1)
            shared++;
        occ[(size_t)g * ms + k] = j;
        nocc[g] = (uint8_t)(k + 1);
        for (uint32_t q = 0; q < k; q++)        /* slot k: cleared at leave */
            sfac[(size_t)g * ms + q] = 0;
        mem_used[g] += m;
        cap_add(&usum[g], u, &eff);
        cap_add(&uuse[g], uf, &use);
    }
    e->eff_gpus = eff;
    e->useful_gpus = use;
    e->shared_gpus = shared;
    r->ufac = f;
    return nfree;
}

uint32_t shr_leave(struct eng *e, uint32_t j, uint32_t *nshared)
{
    struct job_rt *r = eng_rt(e, j);
    uint32_t n = r->ngpus, nfree = 0, nsh = 0, shared = e->shared_gpus;
    double u = mdl_perf_util(e->perf, j, r->type);
    double mem = mdl_perf_mem(e->perf, j);
    double m = mem > 0 ? mem : 0, uf = -u * r->ufac;
    double eff = e->eff_gpus, use = e->useful_gpus;
    double *usum = e->usum, *uuse = e->uuse, *mem_used = e->mem_used;
    uint8_t *nocc = e->nocc;
    uint32_t *occ = e->occ, *scratch = e->scratch, *gpu_job = e->clu->gpu_job;
    /* until the first co-location (jf made) no factor was kept: a run
     * of exclusive jobs never touches sfac's lines */
    double *sfac = e->jf ? e->sfac : NULL;
    const uint32_t *gpus = r->gpus;
    size_t ms = e->max_share;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i], c = nocc[g];
        for (uint32_t q = 0; sfac && q < c; q++)
            sfac[(size_t)g * ms + q] = 0;
        if (c == 1) {           /* alone: the GPU empties, its sums reset */
            eff += 0 - (usum[g] < 1 ? usum[g] : 1);
            use += 0 - (uuse[g] < 1 ? uuse[g] : 1);
            nocc[g] = 0;
            mem_used[g] = 0;
            usum[g] = 0;
            uuse[g] = 0;
            scratch[nfree++] = g;
            continue;
        }
        uint32_t *o = occ + (size_t)g * ms, k = 0;
        while (o[k] != j)
            k++;
        for (; k + 1 < c; k++)
            o[k] = o[k + 1];
        nocc[g] = (uint8_t)--c;
        if (c == 1)
            shared--;
        mem_used[g] -= m;
        cap_add(&usum[g], -u, &eff);
        cap_add(&uuse[g], uf, &use);
        gpu_job[g] = o[0];
        nsh++;
    }
    e->eff_gpus = eff;
    e->useful_gpus = use;
    e->shared_gpus = shared;
    *nshared = nsh;
    r->ufac = 0;
    return nfree;
}

/* Running job k's factor on GPU g, whose jobs just changed, is now v: its
 * kept minimum *jf follows (jf->at names a GPU where the minimum is
 * reached, or is 0 for 1), and is walked again only when that GPU's
 * factor rose. */
static inline void jf_update(struct eng *e, struct shr_jf *jf, uint32_t k,
                             uint32_t g, double v)
{
    if (jf->at != g + 1) {
        if (v < (jf->at ? jf->fmin : 1))
            *jf = (struct shr_jf){ v, g + 1 };
    } else if (v <= jf->fmin) {
        jf->fmin = v;
    } else {
        const struct job_rt *r = eng_rt(e, k);
        jf->fmin = factor(e, k, r->type, r->gpus, r->ngpus, true, &jf->at);
    }
}

void shr_neighbours(struct eng *e, const uint32_t *gpus, uint32_t n,
                    uint32_t skip)
{
    e->ntouched = 0;
    /* a job is listed once, in the order first met: marked with this
     * call's number (a gang of thousands of GPUs meets hundreds) */
    if (!e->touch_mark)
        xbig_reserve(&e->touch_mark, ((size_t)e->tr->njobs + 1) *
                     sizeof *e->touch_mark);
    if (++e->touch_cur == 0) {
        memset(e->touch_mark, 0, e->nslots * sizeof *e->touch_mark);
        e->touch_cur = 1;
    }
    struct shr_jf *jf = jf_get(e);
    uint32_t *mark = e->touch_mark, cur = e->touch_cur;
    const uint32_t *prev = NULL;        /* the last GPU's jobs */
    uint32_t nprev = 0;
    double vals[POL_MAX_SHARE];         /* by slot, on the last GPU */
    size_t ms = e->max_share;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = gpus[i], c = e->nocc[g];
        const uint32_t *o = eng_gpu_jobs(e, g);
        /* the jobs of the GPU before, in the same slots: their factors */
        bool again = prev && c == nprev && same_jobs(o, prev, c);
        prev = o;
        nprev = c;
        for (uint32_t q = 0; q < c; q++) {
            uint32_t k = o[q];
            if (k == skip)
                continue;
            uint32_t sk = e->rt_slot[k];
            if (mark[sk] != cur) {
                mark[sk] = cur;
                xgrow(&e->touched, &e->captouched, e->ntouched + 1,
                      sizeof *e->touched);
                e->touched[e->ntouched++] = k;
            }
            if (!again) {
                double *x = &e->sfac[(size_t)g * ms + q];
                if (c == 1)
                    vals[q] = 1;        /* alone there now */
                else if (*x > 0)
                    vals[q] = *x;
                else
                    vals[q] = *x = mdl_perf_shared(e->perf, eng_rt(e, k)->type, k,
                                                   o, c);
            }
            jf_update(e, &jf[e->running_pos[sk]], k, g, vals[q]);
        }
    }
}
