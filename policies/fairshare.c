/*
 * policies/fairshare.c - fairshare: per-tenant GPU quotas with lending of
 * idle share and reclaim by preemption, the multi-tenant scheduling that
 * production GPU clusters run and that fairness studies compare against.
 *
 * What it follows (facts of the papers, none of their code):
 *   - Philly (Jeon et al., "Analysis of Large-Scale Multi-Tenant GPU
 *     Clusters for DNN Training Workloads", USENIX ATC'19, section 2):
 *     jobs are submitted to virtual clusters (VCs), each with a quota of
 *     GPUs it is guaranteed; the scheduler, built on YARN, lets a VC's
 *     jobs run on GPUs another VC leaves idle, and such jobs may be
 *     preempted when the owner needs its share back.
 *   - Helios (Hu et al., "Characterization and Prediction of Deep Learning
 *     Workloads in Large-Scale GPU Datacenters", SC'21, section 2):
 *     SenseTime's clusters are likewise split into VCs with their own GPU
 *     quotas, jobs queued first come first served within a VC; lend=0 is
 *     that strict isolation.
 *   - YARN's Capacity Scheduler (the Hadoop documentation of its queue
 *     capacities and preemption): the most under-served queue (lowest
 *     used / guaranteed capacity) is offered resources first; idle
 *     capacity is lent; preemption takes containers from queues over their
 *     guarantee, the most recently allocated first.
 *
 * Tenants are the trace's vc (by=vc) or user (by=user) values; jobs
 * without one form the tenant "-".  Each tenant t has a quota q_t in GPUs
 * (of any type: a VC's quota is a GPU count): quota=equal, C / n over the
 * n tenants of the trace (C = the cluster's GPUs); quota=demand, C in
 * proportion to each tenant's GPU-seconds of work in the trace
 * (num_gpus x duration); quota=file, from the CSV file=PATH with the
 * columns tenant and either gpus (absolute, summing to at most C) or
 * weight (shares of C); a row "*" gives every tenant the file does not
 * list, else a tenant of the trace missing from the file is an error.
 * Tenants the file lists but the trace does not keep their quota (idle,
 * and lent).  u_t is the GPUs t's running jobs hold.
 *
 * Each instant, with each tenant's queue in arrival order (FIFO: a head
 * that cannot start blocks its own tenant only):
 *   1. Guaranteed: among tenants whose head fits their quota
 *      (u_t + g <= q_t), the one of lowest u_t / q_t (ties: first
 *      tenant) starts its head; if no placement is free and lend=1,
 *      GPUs lent to others are reclaimed (below).  A tenant whose head
 *      cannot start is passed over for the rest of the instant.
 *   2. Lending (lend=1): the remaining heads, tenants again by lowest
 *      u_t / q_t, start on free GPUs only, beyond their quota.
 * Reclaim: victims are running jobs of tenants over their quota
 * (u_v > q_v), the tenant of highest u_v / q_v first and its most recently
 * started job first, each taken while its tenant is still over its quota,
 * only jobs on a GPU type the head may use and (with preempt_cost) that
 * pol_may_preempt allows.  A dry run first checks that a placement for
 * the head would exist were all the victims' GPUs free (the kit's
 * vic_freed_fits: the placement rules on the free counts they would
 * give); where none would (too few GPUs, or under consolidated placement
 * freed on too many nodes: fragmentation), nothing is stopped and a
 * failed reclaim leaves no trace.  Otherwise victims are preempted one by
 * one until the head's placement exists, and those whose GPUs it does not
 * use are restarted where they were, which the engine undoes
 * (sim/policy.h).  A preempted job goes back to its tenant's queue at its
 * arrival position.
 * lend=0 is hard quotas: a job starts only within its tenant's quota, and
 * a job larger than its quota is rejected on arrival (admit).
 *
 * Owns: the tenant table (names point into the trace, which outlives the
 * run), one FIFO heap of queued jobs per tenant, each tenant's running
 * jobs in start order, the sets an instant visits (tenants with a queued
 * job; by the shape of their head, GPUs and required type; with more
 * than PASS_SCAN tenants, those whose head fits their quota), scratch
 * arrays.  Invariant: u_t = the sum of num_gpus over running[t]; every
 * queued job is in exactly its tenant's heap; a tenant is in those sets
 * exactly when it has a queued job (and its head fits).  An instant
 * costs, beyond its tries, O(tenants whose head fits their quota) for the
 * guaranteed pass (O(tenants with a queued job) up to PASS_SCAN of them)
 * and O(shapes of heads) placement queries plus O(tenants whose head has
 * a placement) for the lending pass, not O(tenants); each try O(log
 * tenants); a reclaim's dry run O(the victims' GPUs), once an instant
 * (the victims stay the same until a reclaim succeeds; the head's own
 * tenant, within its quota, gives none), and each head's test against
 * them O(the nodes they touch); a reclaim that goes ahead O(tenants) per
 * victim considered.
 */
#include "policies/policy.h"
#include "sim/base/formats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9                /* quotas are real numbers of GPUs */
/* Tenants up to which a pass scans its candidates at each pick (cheaper
 * than a heap for a few; a heap past them, O(log) a pick). */
#define PASS_SCAN 16
#define NO_TENANT "-"

struct fifo {                   /* queued job indices, smallest first */
    uint32_t *a;
    size_t n, cap;
};

static inline bool job_before(const uint32_t *a, const uint32_t *b)
{
    return *a < *b;
}

HEAP_DEFINE(fq, struct fifo, uint32_t, job_before)

/* Tenants by used / quota: the order of service (lowest first, then the
 * lower tenant: pass()) and of reclaim (highest first, then the lower
 * tenant: plan_reclaim()), each a heap over the tenants; an entry whose
 * ver is not its tenant's is stale (pass() only). */
struct rk {
    double r;
    uint32_t k, ver;
};

struct rks {
    struct rk *a;
    size_t n, cap;
};

static inline bool rk_low(const struct rk *a, const struct rk *b)
{
    return a->r < b->r || (a->r == b->r && a->k < b->k);
}

static inline bool rk_high(const struct rk *a, const struct rk *b)
{
    return a->r > b->r || (a->r == b->r && a->k < b->k);
}

HEAP_DEFINE(rl, struct rks, struct rk, rk_low)
HEAP_DEFINE(rh, struct rks, struct rk, rk_high)

struct tenant {
    const char *name;
    double quota;               /* GPUs */
    double used;                /* GPUs held by its running jobs */
    struct fifo q;
    uint32_t *run;              /* running jobs, in start order */
    size_t nrun, caprun;
    uint32_t hg, hreq;          /* its head's GPUs and required type */
    uint32_t shape;             /* pq bucket of (hg, hreq); SIM_NONE idle */
    uint32_t late;              /* the pass in which it last came to have a
                                   queued job (a reclaim's victim going
                                   back: its tenant is no candidate then) */
    bool blocked;               /* passed over for the rest of the instant */
};

/* A set of ids (tenants or shapes) in no order: O(1) to add and to take
 * out, through pos[id] = its place (SIM_NONE: not in it). */
struct tset {
    uint32_t *a;
    size_t n, cap;
};

enum by { BY_VC, BY_USER };
enum quota_src { Q_EQUAL, Q_DEMAND, Q_FILE };

struct fairshare {
    enum plc_mode mode;
    bool lend;
    double cost_us;             /* reference-GPU us per preemption */
    struct tenant *t;
    uint32_t nt;
    uint32_t *of;               /* [njobs] tenant of each job */
    size_t nqueued;
    bool many;                  /* more than PASS_SCAN tenants: heaps */
    /* An instant visits only these, not every tenant: */
    struct tset act;            /* tenants with a queued job */
    uint32_t *apos;             /* [nt] */
    struct tset fit;            /* many: those whose head fits their quota */
    uint32_t *fpos;             /* [nt] */
    struct pq shapes;           /* (GPUs, required type) -> index (kit's
                                   buckets, of no job: for their index) */
    struct tset *of_shape;      /* [shape] the tenants of head that shape */
    size_t capsh;
    uint32_t *spos;             /* [nt] place in its shape's set */
    struct tset live;           /* shapes some head has */
    uint32_t *lpos;             /* [capsh] */
    uint32_t *blk;              /* the tenants blocked this instant */
    size_t nblk, capblk;
    struct rks heap;            /* scratch: pass()'s */
    struct rks vheap;           /* scratch: plan_reclaim()'s */
    uint32_t *ver;              /* [nt] pass(): its entry's version */
    uint32_t *incand;           /* [nt] pass(): a candidate (== pstamp) */
    uint32_t *queued_at;        /* [nt] debug builds: queued as the pass
                                   began (== pstamp) */
    uint32_t pstamp;
    uint32_t *vic;              /* scratch: victims, in reclaim order */
    double *vu;                 /* [nt] scratch: usage in the dry run */
    size_t *vcur;               /* [nt] scratch: dry-run cursor + 1 */
    size_t capvic;
    uint32_t *saved;            /* scratch: the victims' GPUs */
    size_t capsaved;
    /* the GPUs of the victims a reclaim may stop, marked (for heads of
     * one required type; self is under its quota, so gives none): they
     * stay the same while no tenant's jobs start or stop and, with a
     * cost, within the instant */
    struct vic_freed freed;
    bool marked;
    uint32_t mreq;              /* the required type they were marked for */
    uint64_t runs, mruns;       /* starts and stops of jobs so far; when
                                   marked */
    uint32_t *gpus;             /* scratch: a placement */
    size_t capg;
    struct arena *names;        /* tenant names read from the quota file */
};

/* ------------------------------------------------------------ tenants */

static const char *tenant_name(const void *ctx, uint32_t i)
{
    return ((const struct tenant *)ctx)[i].name;
}

static uint32_t tenant_add(struct tenant **t, uint32_t *nt, size_t *cap,
                           struct dl_names *ix, const char *name)
{
    uint32_t k = dl_names_find(ix, name, tenant_name, *t);
    if (k != SIM_NONE)
        return k;
    xgrow(t, cap, *nt + 1, sizeof **t);
    memset(&(*t)[*nt], 0, sizeof **t);
    (*t)[*nt].name = name;
    dl_names_add(ix, *nt, tenant_name, *t);
    return (*nt)++;
}

static const char *job_tenant(const struct trc_job *j, enum by by)
{
    const char *s = by == BY_VC ? j->vc : j->user;
    return s && *s ? s : NO_TENANT;
}

static const struct dl_csv_opts quota_rules = {
    .sep = ',', .flags = DL_CSV_QUOTED | DL_CSV_TRIM | DL_CSV_COMMENTS,
};

/* Reads the quota file: tenants it lists are added (names copied into
 * names, an arena).  *def = the "*" row's value (-1: none); *weights =
 * whether the values are weights (else GPUs); (*val)[k] the value of
 * tenant k (-1: not listed), *val holding the *nt tenants' on entry. */
static int read_quotas(const char *path, struct tenant **t, uint32_t *nt,
                       size_t *cap, struct dl_names *ix, struct arena *names,
                       double **val, size_t *capval, double *def,
                       bool *weights, double gpus, struct dl_error *err)
{
    static const char *const cols[] = { "tenant", "gpus", "weight" };
    static const bool req[] = { true, false, false };
    struct dl_csv c;
    int idx[3];
    int r = dl_csv_open(&c, path, &quota_rules, err);
    if (!r)
        r = dl_csv_header(&c, cols, req, 3, idx, err);
    if (!r && (idx[1] < 0) == (idx[2] < 0))
        r = dl_fail(err, path, c.line, 0, "the header needs exactly one of "
                    "the columns 'gpus' (GPUs per tenant) and 'weight' "
                    "(shares of the cluster)");
    *def = -1;
    *weights = !r && idx[2] >= 0;
    int vi = *weights ? idx[2] : idx[1];
    while (!r && (r = dl_csv_row(&c, err)) > 0) {
        r = 0;
        const char *name = dl_csv_fld(&c, idx[0]);
        double v;
        if (!*name) {
            r = dl_csv_fail_at(&c, idx[0], err, "empty tenant name");
            break;
        }
        if ((r = dl_csv_num(&c, vi, *weights ? "weight" : "gpus", true, 0,
                            *weights ? 1e12 : gpus, &v, err)))
            break;
        if (!strcmp(name, "*")) {
            if (*def >= 0) {
                r = dl_csv_fail_at(&c, idx[0], err, "a second '*' row");
                break;
            }
            *def = v;
            continue;
        }
        uint32_t k = dl_names_find(ix, name, tenant_name, *t);
        if (k == SIM_NONE) {
            k = tenant_add(t, nt, cap, ix,
                           arena_strndup(names, name, strlen(name)));
            xgrow(val, capval, *nt, sizeof **val);
            (*val)[k] = -1;
        }
        if ((*val)[k] >= 0) {
            r = dl_csv_fail_at(&c, idx[0], err, "tenant '%s' listed twice",
                               name);
            break;
        }
        (*val)[k] = v;
    }
    dl_csv_close(&c);
    return r < 0 ? r : 0;
}

/* ------------------------------------------------------------ create */

static void fs_free(struct fairshare *f)
{
    for (uint32_t k = 0; k < f->nt; k++) {
        free(f->t[k].q.a);
        free(f->t[k].run);
    }
    free(f->t);
    free(f->of);
    free(f->heap.a);
    free(f->vheap.a);
    free(f->ver);
    free(f->act.a);
    free(f->apos);
    free(f->fit.a);
    free(f->fpos);
    pq_free(&f->shapes);
    for (size_t i = 0; i < f->capsh; i++)
        free(f->of_shape[i].a);
    free(f->of_shape);
    free(f->spos);
    free(f->live.a);
    free(f->lpos);
    free(f->blk);
    free(f->incand);
    free(f->queued_at);
    free(f->vic);
    free(f->vu);
    free(f->vcur);
    free(f->saved);
    vic_freed_free(&f->freed);
    free(f->gpus);
    arena_free(f->names);
    free(f);
}

/* Every tenant's quota from its value val[k] (< 0: none), def for the
 * unlisted; GPUs or weights. */
static int set_quotas(struct fairshare *f, const char *path, const double *val,
                      double def, bool weights, double gpus,
                      struct dl_error *err)
{
    double sum = 0;
    for (uint32_t k = 0; k < f->nt; k++) {
        double v = val[k] >= 0 ? val[k] : def;
        if (v < 0)
            return dl_fail(err, path, 0, 0, "tenant '%s' of the trace has no "
                           "quota (list it, or add a '*' row for every "
                           "tenant not listed)", f->t[k].name);
        f->t[k].quota = v;
        sum += v;
    }
    if (weights) {
        if (!(sum > 0))
            return dl_fail(err, path, 0, 0, "the weights sum to 0");
        for (uint32_t k = 0; k < f->nt; k++)
            f->t[k].quota = gpus * f->t[k].quota / sum;
    } else if (sum > gpus + EPS) {
        return dl_fail(err, path, 0, 0, "the quotas sum to %g GPUs, more "
                       "than the cluster's %g", sum, gpus);
    }
    return 0;
}

static int create(void **state, const struct pol_args *a,
                  const struct pol_view *v, struct dl_error *err)
{
    static const char *const bys[] = { "vc", "user", NULL };
    static const char *const srcs[] = { "equal", "demand", "file", NULL };
    int by = 0, src = 0;
    long lend;
    double cost;
    struct fairshare *f = xcalloc(1, sizeof *f);
    int rc = pol_arg_placement(a, &f->mode, err);
    if (!rc)
        rc = pol_arg_enum(a, "by", bys, &by, err);
    if (!rc)
        rc = pol_arg_enum(a, "quota", srcs, &src, err);
    if (!rc)
        rc = pol_arg_long(a, "lend", 0, 1, &lend, err);
    if (!rc)
        rc = pol_arg_double(a, "preempt_cost", 0, 1e9, &cost, err);
    const char *path = pol_arg_str(a, "file");
    if (!rc && (src == Q_FILE) != (*path != 0))
        rc = dl_fail(err, "--policy", 0, 0, src == Q_FILE
                     ? "quota=file needs file=PATH (a CSV of tenant,gpus or "
                       "tenant,weight)"
                     : "file=%s is only read with quota=file", path);
    if (rc) {
        free(f);
        return rc;
    }
    f->lend = lend;
    f->cost_us = cost * SIM_US_PER_S;
    /* tenants in order of their first job */
    size_t cap = 0;
    struct dl_names ix = { 0 };
    bool any = false;
    f->of = xmalloc((v->njobs ? v->njobs : 1) * sizeof *f->of);
    for (uint32_t j = 0; j < v->njobs; j++) {
        const struct trc_job *tj = &v->jobs[j];
        any |= (by == BY_VC ? tj->vc : tj->user) != NULL;
        f->of[j] = tenant_add(&f->t, &f->nt, &cap, &ix, job_tenant(tj, by));
    }
    double gpus = v->clu->ngpus;
    if (v->njobs && !any)
        rc = dl_fail(err, "--policy", 0, 0, "fairshare:by=%s: the trace "
                     "names no %s (by=%s, or a trace with a %s column)",
                     bys[by], bys[by], by == BY_VC ? "user" : "vc", bys[by]);
    if (!rc && src == Q_FILE) {
        double def;
        size_t capval = f->nt + 1;
        double *val = xmalloc(capval * sizeof *val);
        bool weights;
        for (uint32_t k = 0; k < f->nt; k++)
            val[k] = -1;
        f->names = arena_new();
        uint32_t ntrace = f->nt;
        rc = read_quotas(path, &f->t, &f->nt, &cap, &ix, f->names, &val,
                         &capval, &def, &weights, gpus, err);
        if (!rc)
            rc = set_quotas(f, path, val, def, weights, gpus, err);
        /* tenants only the file names hold no job: they counted in the
         * weights' sum, and no instant needs to visit them */
        f->nt = ntrace;
        free(val);
    } else if (!rc) {
        double sum = 0;
        for (uint32_t j = 0; j < v->njobs; j++) {
            double w = src == Q_EQUAL ? 0
                       : (double)v->jobs[j].num_gpus * (double)v->jobs[j].duration;
            f->t[f->of[j]].quota += w;
            sum += w;
        }
        for (uint32_t k = 0; k < f->nt; k++)
            f->t[k].quota = src == Q_EQUAL || !(sum > 0)
                                ? gpus / f->nt : gpus * f->t[k].quota / sum;
    }
    dl_names_free(&ix);
    if (rc) {
        fs_free(f);
        return rc;
    }
    f->ver = xcalloc(f->nt ? f->nt : 1, sizeof *f->ver);
    f->many = f->nt > PASS_SCAN;
    size_t nt1 = f->nt ? f->nt : 1;
    f->apos = xmalloc(nt1 * sizeof *f->apos);
    f->fpos = xmalloc(nt1 * sizeof *f->fpos);
    f->spos = xmalloc(nt1 * sizeof *f->spos);
    for (uint32_t k = 0; k < f->nt; k++) {
        f->apos[k] = f->fpos[k] = f->spos[k] = SIM_NONE;
        f->t[k].shape = SIM_NONE;
    }
    pq_init(&f->shapes);
    f->incand = xcalloc(f->nt ? f->nt : 1, sizeof *f->incand);
    f->queued_at = xcalloc(f->nt ? f->nt : 1, sizeof *f->queued_at);
    f->vu = xmalloc((f->nt ? f->nt : 1) * sizeof *f->vu);
    f->vcur = xmalloc((f->nt ? f->nt : 1) * sizeof *f->vcur);
    *state = f;
    return 0;
}

static void destroy(void *state)
{
    fs_free(state);
}

/* ------------------------------------------------------------ hooks */

static uint32_t gpus_of(const struct pol_view *v, uint32_t j)
{
    return v->jobs[j].num_gpus;
}

static bool admit(void *state, const struct pol_view *v, uint32_t job)
{
    const struct fairshare *f = state;
    /* hard quotas: a job larger than its tenant's quota never starts */
    return f->lend || gpus_of(v, job) <= f->t[f->of[job]].quota + EPS;
}

static void tset_add(struct tset *s, uint32_t *pos, uint32_t id)
{
    if (pos[id] != SIM_NONE)
        return;
    xgrow(&s->a, &s->cap, s->n + 1, sizeof *s->a);
    pos[id] = (uint32_t)s->n;
    s->a[s->n++] = id;
}

static void tset_del(struct tset *s, uint32_t *pos, uint32_t id)
{
    uint32_t p = pos[id];
    if (p == SIM_NONE)
        return;
    uint32_t last = s->a[--s->n];
    s->a[p] = last;
    pos[last] = p;
    pos[id] = SIM_NONE;
}

/* Tenant k in the set of tenants whose head fits their quota, or out, as
 * it is now (many tenants only: their guaranteed pass starts from it). */
static void fit_update(struct fairshare *f, uint32_t k)
{
    const struct tenant *t = &f->t[k];
    if (!f->many)
        return;
    if (t->q.n && t->used + t->hg <= t->quota + EPS)
        tset_add(&f->fit, f->fpos, k);
    else
        tset_del(&f->fit, f->fpos, k);
}

/* Tenant k out of its head's shape's set. */
static void shape_out(struct fairshare *f, uint32_t k)
{
    uint32_t sh = f->t[k].shape;
    if (sh == SIM_NONE)
        return;
    tset_del(&f->of_shape[sh], f->spos, k);
    if (!f->of_shape[sh].n)
        tset_del(&f->live, f->lpos, sh);
    f->t[k].shape = SIM_NONE;
}

/* Tenant k's queue changed: its head, and its place in the sets an
 * instant visits (the active tenants; by shape of head; within quota). */
static void head_changed(struct fairshare *f, const struct pol_view *v, uint32_t k)
{
    struct tenant *t = &f->t[k];
    if (t->q.n) {
        uint32_t g = gpus_of(v, t->q.a[0]), req = pol_rt(v, t->q.a[0])->req_type;
        if (f->apos[k] == SIM_NONE) {
            /* within a pass, only a reclaim queues a job again, and only
             * of a tenant over its quota: one that started a job in the
             * pass is within it, so was not queued as the pass began */
            tset_add(&f->act, f->apos, k);
            t->late = f->pstamp;
        }
        if (t->shape == SIM_NONE || g != t->hg || req != t->hreq) {
            shape_out(f, k);
            uint32_t sh = (uint32_t)pq_bucket(&f->shapes, g, req);
            if (sh >= f->capsh) {
                size_t old = f->capsh;
                xgrow(&f->of_shape, &f->capsh, (size_t)sh + 1, sizeof *f->of_shape);
                memset(f->of_shape + old, 0, (f->capsh - old) * sizeof *f->of_shape);
                f->lpos = xrealloc(f->lpos, f->capsh * sizeof *f->lpos);
                for (size_t i = old; i < f->capsh; i++)
                    f->lpos[i] = SIM_NONE;
            }
            tset_add(&f->of_shape[sh], f->spos, k);
            tset_add(&f->live, f->lpos, sh);
            t->shape = sh;
        }
        t->hg = g;
        t->hreq = req;
    } else {
        tset_del(&f->act, f->apos, k);
        shape_out(f, k);
    }
    fit_update(f, k);
}

static void push(struct fairshare *f, const struct pol_view *v, uint32_t job)
{
    fq_push(&f->t[f->of[job]].q, job);
    f->nqueued++;
    head_changed(f, v, f->of[job]);
}

static void enqueue(void *state, const struct pol_view *v, uint32_t job)
{
    push(state, v, job);
}

/* Takes job off its tenant's running jobs (keeping their start order). */
static void run_del(struct fairshare *f, const struct pol_view *v, uint32_t job)
{
    struct tenant *t = &f->t[f->of[job]];
    size_t i = t->nrun;
    while (i > 0 && t->run[i - 1] != job)
        i--;
    DL_ASSERT(i > 0);
    memmove(t->run + i - 1, t->run + i, (t->nrun - i) * sizeof *t->run);
    t->nrun--;
    f->runs++;
    t->used -= gpus_of(v, job);
    if (t->used < EPS)
        t->used = 0;            /* sums of whole numbers: exact anyway */
    fit_update(f, f->of[job]);
}

static void finished(void *state, const struct pol_view *v, uint32_t job)
{
    run_del(state, v, job);
}

static uint32_t queued(void *state)
{
    return (uint32_t)((struct fairshare *)state)->nqueued;
}

/* ------------------------------------------------------------ schedule */

/* u / q, the order of service (lowest first) and of reclaim (highest
 * first); a tenant of quota 0 holding GPUs is infinitely over. */
static double ratio(double used, double quota)
{
    if (quota > EPS)
        return used / quota;
    return used > EPS ? HUGE_VAL : 0;
}

static bool type_ok(const struct pol_view *v, uint32_t victim, uint32_t req)
{
    return req == SIM_NONE || pol_rt(v, victim)->type == req;
}

/* Tenant k's latest eligible job below its dry-run cursor, the cursor
 * moved onto it: false if none. */
static bool plan_next(struct fairshare *f, const struct pol_view *v,
                      uint32_t k, uint32_t req)
{
    const struct tenant *t = &f->t[k];
    while (f->vcur[k] > 0) {
        uint32_t j = t->run[f->vcur[k] - 1];
        if (type_ok(v, j, req) && pol_may_preempt(v, j, f->cost_us))
            return true;
        f->vcur[k]--;
    }
    return false;
}

/* The victims that may be stopped for head (of tenant self), in reclaim
 * order: a dry run; returns how many into f->vic, or 0 when
 * even all of them with the free GPUs fall short of its GPU count.  All
 * of them, not just enough GPUs: with consolidated placement a count
 * that suffices may still leave no node with room. */
static size_t plan_reclaim(struct fairshare *f, const struct pol_view *v,
                           uint32_t head, uint32_t self)
{
    uint32_t req = pol_rt(v, head)->req_type, g = gpus_of(v, head);
    uint64_t avail = 0;
    for (uint32_t ty = 0; ty < v->clu->ntypes; ty++)
        if (req == SIM_NONE || ty == req)
            avail += v->clu->types[ty].free_gpus;
    /* the tenants over their quotas with an eligible job, highest used /
     * quota first (then the lower tenant); only the one that gave a
     * victim changes */
    f->vheap.n = 0;
    for (uint32_t k = 0; k < f->nt; k++) {
        f->vu[k] = f->t[k].used;
        f->vcur[k] = f->t[k].nrun;
        if (k != self && f->vu[k] > f->t[k].quota + EPS && plan_next(f, v, k, req))
            rh_push(&f->vheap, (struct rk){ ratio(f->vu[k], f->t[k].quota), k, 0 });
    }
    size_t n = 0;
    while (f->vheap.n) {
        uint32_t best = rh_pop(&f->vheap).k;
        uint32_t j = f->t[best].run[--f->vcur[best]];
        xgrow(&f->vic, &f->capvic, n + 1, sizeof *f->vic);
        f->vic[n++] = j;
        f->vu[best] -= gpus_of(v, j);
        avail += gpus_of(v, j);
        if (f->vu[best] > f->t[best].quota + EPS && plan_next(f, v, best, req))
            rh_push(&f->vheap, (struct rk){ ratio(f->vu[best], f->t[best].quota),
                                           best, 0 });
    }
    return avail >= g ? n : 0;
}

/* Marks in f->freed the GPUs of every victim plan_reclaim would take for
 * a head of required type req.  The same set in
 * another order: a tenant over its quota gives its latest eligible jobs
 * until it is down to its quota, whatever the others give (the head's own
 * tenant is within its quota, so gives none). */
static void reclaim_mark(struct fairshare *f, const struct pol_view *v,
                         uint32_t req)
{
    for (uint32_t k = 0; k < f->nt; k++) {
        const struct tenant *t = &f->t[k];
        double u = t->used;
        for (uint32_t i = t->nrun; i > 0 && u > t->quota + EPS; i--) {
            uint32_t j = t->run[i - 1], m = gpus_of(v, j);
            if (!type_ok(v, j, req) || !pol_may_preempt(v, j, f->cost_us))
                continue;
            vic_freed_add(&f->freed, v, pol_rt(v, j)->gpus, m);
            u -= m;
        }
    }
}

/* Whether sorted a[0..na) and b[0..nb) share a GPU. */
static bool overlap(const uint32_t *a, uint32_t na, const uint32_t *b,
                    uint32_t nb)
{
    for (uint32_t i = 0, k = 0; i < na && k < nb;) {
        if (a[i] == b[k])
            return true;
        if (a[i] < b[k])
            i++;
        else
            k++;
    }
    return false;
}

/* Tenant k, a candidate of this pass, into its heap at its used / quota
 * as it is now (its entry there before, if any, stale). */
static void pass_push(struct fairshare *f, uint32_t k)
{
    rl_push(&f->heap, (struct rk){ ratio(f->t[k].used, f->t[k].quota), k,
                                   ++f->ver[k] });
}

/* Whether tenant k is a candidate of this pass (many tenants), not passed
 * over: with a queued head, and in the guaranteed pass queued when it
 * began (a job a reclaim stops does not make its tenant one: it waits for
 * the next instant), in the lending pass one whose head fitted then. */
static bool pass_cand(const struct fairshare *f, uint32_t k, bool guaranteed)
{
    const struct tenant *t = &f->t[k];
    if (!t->q.n || t->blocked)
        return false;
#ifndef NDEBUG
    DL_ASSERT((t->late != f->pstamp) == (f->queued_at[k] == f->pstamp));
#endif
    return guaranteed ? t->late != f->pstamp : f->incand[k] == f->pstamp;
}

/* After a reclaim: tenant k's jobs were stopped (its use and maybe its
 * head changed); a candidate not passed over goes back into the heap. */
static void pass_changed(struct fairshare *f, uint32_t k)
{
    if (f->many && pass_cand(f, k, true))
        pass_push(f, k);
}

/* Reclaims lent GPUs for head; true when its placement now exists (in
 * f->gpus).  Where it would not exist even with every victim stopped,
 * none is.  Otherwise victims are stopped in reclaim order until the
 * placement exists; those whose GPUs it does not use are restarted where
 * they ran (the engine undoes such a preemption). */
static bool reclaim(struct fairshare *f, const struct pol_view *v,
                    struct pol_ctx *x, uint32_t head, uint32_t self, int *rc)
{
    uint32_t g = gpus_of(v, head);
    /* where even all of them leave no room (too few, or under
     * consolidated on too many nodes), none is stopped: the loop below
     * would stop and restart every one */
    uint32_t req = pol_rt(v, head)->req_type;
    if (!f->marked || f->mreq != req) {
        vic_freed_clear(&f->freed, v);
        DL_ASSERT(f->t[self].used <= f->t[self].quota + EPS);
        reclaim_mark(f, v, req);
        f->mruns = f->runs;
        f->marked = true;
        f->mreq = req;
    }
    if (!vic_freed_fits(&f->freed, v, g, req, f->mode))
        return false;
    vic_freed_clear(&f->freed, v);     /* victims stop: the marks go stale */
    f->marked = false;
    size_t n = plan_reclaim(f, v, head, self), done = 0, off = 0, need = 0;
    bool placed = false;
    DL_ASSERT(n);               /* room for g: they are enough */
    for (size_t i = 0; i < n; i++)
        need += gpus_of(v, f->vic[i]);
    xgrow(&f->saved, &f->capsaved, need, sizeof *f->saved);
    for (size_t i = 0; i < n; i++) {
        uint32_t j = f->vic[i], m = gpus_of(v, j);
        memcpy(f->saved + off, pol_rt(v, j)->gpus, m * sizeof *f->saved);
        off += m;
    }
    while (done < n && !placed) {
        uint32_t j = f->vic[done];
        if ((*rc = pol_preempt(x, j, f->cost_us)))
            return false;
        done++;
        placed = pol_place(v, g, pol_rt(v, head)->req_type, f->mode, NULL, f->gpus);
    }
    DL_ASSERT(placed);          /* as the dry run said */
    off = 0;
    for (size_t i = 0; i < done; i++) {
        uint32_t j = f->vic[i], m = gpus_of(v, j);
        if (!overlap(f->saved + off, m, f->gpus, g)) {
            /* undone by the engine: restarted within the instant */
            if ((*rc = pol_start(x, j, f->saved + off)))
                return false;
        } else {
            run_del(f, v, j);
            push(f, v, j);
            pass_changed(f, f->of[j]);
        }
        off += m;
    }
    return true;
}

/* Starts the head of tenant k on f->gpus. */
static int start_head(struct fairshare *f, const struct pol_view *v,
                      struct pol_ctx *x, uint32_t k)
{
    struct tenant *t = &f->t[k];
    uint32_t j = fq_pop(&t->q);
    f->nqueued--;
    head_changed(f, v, k);
    int rc = pol_start(x, j, f->gpus);
    if (rc)
        return rc;
    xgrow(&t->run, &t->caprun, t->nrun + 1, sizeof *t->run);
    t->run[t->nrun++] = j;
    f->runs++;
    t->used += gpus_of(v, j);
    fit_update(f, k);
    return 0;
}

/* Whether tenant k may be served in this pass: its head fits its quota
 * (guaranteed) or it may borrow. */
static bool pass_may(const struct fairshare *f, uint32_t k, bool guaranteed)
{
    const struct tenant *t = &f->t[k];
    return !guaranteed || t->used + t->hg <= t->quota + EPS;
}

/* A scan's pick: tenant k, when it may be served, in place of *best if it
 * comes first (lower used / quota, then the lower tenant). */
static void pass_scan(const struct fairshare *f, uint32_t k, bool guaranteed,
                      uint32_t *best, double *br)
{
    if (!pass_may(f, k, guaranteed))
        return;
    double r = ratio(f->t[k].used, f->t[k].quota);
    if (*best == SIM_NONE || r < *br || (r == *br && k < *best)) {
        *best = k;
        *br = r;
    }
}

/* The pass's next tenant: among its candidates (f->heap.a) whose head
 * fits its quota (guaranteed), the lowest used / quota, then the lower
 * tenant; SIM_NONE if none.  Scanned, the candidates stay in place (and
 * are each weighed again at every pick); from the heap, the one picked
 * is popped, as is one whose head does not fit (one that did not when
 * the pass began is not in it), until a reclaim changes it
 * (pass_changed), the only way it can come to fit. */
static uint32_t pass_next(struct fairshare *f, bool guaranteed)
{
    uint32_t best = SIM_NONE;
    double br = 0;
    if (!f->many) {
        for (size_t i = 0; i < f->heap.n; i++)
            pass_scan(f, f->heap.a[i].k, guaranteed, &best, &br);
        return best;
    }
    uint32_t pick = SIM_NONE;
    while (f->heap.n && pick == SIM_NONE) {
        struct rk top = rl_pop(&f->heap);
        if (top.ver == f->ver[top.k] &&       /* else pushed again since */
            pass_may(f, top.k, guaranteed))
            pick = top.k;
    }
#ifndef NDEBUG
    /* the scan's pick over the pass's candidates, for the heap's */
    for (uint32_t k = 0; k < f->nt; k++)
        if (pass_cand(f, k, guaranteed))
            pass_scan(f, k, guaranteed, &best, &br);
    DL_ASSERT(best == pick);
#endif
    return pick;
}

/* Tenant k a candidate of this pass: into its heap (many tenants) or the
 * list a scan reads. */
static void pass_add(struct fairshare *f, uint32_t k)
{
    struct rk *e = &f->heap.a[f->heap.n++];
    e->k = k;
    if (f->many) {
        f->incand[k] = f->pstamp;
        *e = (struct rk){ ratio(f->t[k].used, f->t[k].quota), k, ++f->ver[k] };
    }
}

/* One pass: guaranteed (within quota, with reclaim) or lending (beyond,
 * free GPUs only).  Candidates are the tenants with a queued head not
 * yet passed over. */
static int pass(struct fairshare *f, const struct pol_view *v,
                struct pol_ctx *x, bool guaranteed)
{
    f->heap.n = 0;
    if (f->many && ++f->pstamp == 0) {
        memset(f->incand, 0, f->nt * sizeof *f->incand);
        memset(f->queued_at, 0, f->nt * sizeof *f->queued_at);
        for (uint32_t k = 0; k < f->nt; k++)
            f->t[k].late = 0;
        f->pstamp = 1;
    }
    xgrow(&f->heap.a, &f->heap.cap, f->nt ? f->nt : 1, sizeof *f->heap.a);
    if (!guaranteed) {
        /* Lending only starts jobs: the free GPUs only go down, and
         * whether a placement exists only from yes to no (each mode's
         * rules hold on any superset of free GPUs).  A head with none as
         * the pass begins would fail its try; one query a shape. */
        for (size_t i = 0; i < f->live.n; i++) {
            uint32_t sh = f->live.a[i];
            const struct pq_bucket *b = &f->shapes.b[sh];
            if (!pol_place(v, b->ngpus, b->req_type, f->mode, NULL, NULL))
                continue;
            for (size_t q = 0; q < f->of_shape[sh].n; q++) {
                uint32_t k = f->of_shape[sh].a[q];
                if (!f->t[k].blocked)
                    pass_add(f, k);
            }
        }
    } else if (f->many) {
        /* a head over its quota would be popped and dropped: the tenant
         * waits out of the heap until a reclaim changes its use
         * (pass_changed) */
        for (size_t i = 0; i < f->fit.n; i++)
            pass_add(f, f->fit.a[i]);
    } else {
        for (size_t i = 0; i < f->act.n; i++)
            pass_add(f, f->act.a[i]);   /* none passed over yet */
    }
#ifndef NDEBUG
    for (size_t i = 0; i < f->act.n && f->many; i++)
        f->queued_at[f->act.a[i]] = f->pstamp;
    /* the tenants left out would not have been picked or would fail */
    for (size_t i = 0; i < f->act.n; i++) {
        uint32_t k = f->act.a[i];
        const struct tenant *t = &f->t[k];
        bool in = f->many && f->incand[k] == f->pstamp;
        for (size_t e = 0; e < f->heap.n && !in && !f->many; e++)
            in = f->heap.a[e].k == k;
        DL_ASSERT(in || t->blocked ||
                  (guaranteed ? f->many && !pass_may(f, k, true)
                              : !pol_place(v, t->hg, t->hreq, f->mode, NULL, NULL)));
    }
#endif
    if (f->many)
        rl_heapify(&f->heap);
    uint32_t k;
    while ((k = pass_next(f, guaranteed)) != SIM_NONE) {
        struct tenant *t = &f->t[k];
        uint32_t head = t->q.a[0];
        xgrow(&f->gpus, &f->capg, gpus_of(v, head), sizeof *f->gpus);
        bool ok = pol_place(v, gpus_of(v, head), pol_rt(v, head)->req_type, f->mode,
                            NULL, f->gpus);
        int rc = 0;
        if (!ok && guaranteed && f->lend)
            ok = reclaim(f, v, x, head, k, &rc);
        if (rc)
            return rc;
        if (ok && (rc = start_head(f, v, x, k)))
            return rc;
        if (!ok) {
            t->blocked = true;
            xgrow(&f->blk, &f->capblk, f->nblk + 1, sizeof *f->blk);
            f->blk[f->nblk++] = k;
        }
        if (!f->many) {
            if (!ok || !t->q.n)         /* out of the scan */
                for (size_t i = 0; i < f->heap.n; i++)
                    if (f->heap.a[i].k == k) {
                        f->heap.a[i] = f->heap.a[--f->heap.n];
                        break;
                    }
        } else if (ok && t->q.n) {
            pass_push(f, k);            /* at its new used / quota */
        }
    }
    return 0;
}

static void schedule(void *state, const struct pol_view *v, struct pol_ctx *x)
{
    struct fairshare *f = state;
    for (size_t i = 0; i < f->nblk; i++)
        f->t[f->blk[i]].blocked = false;
    f->nblk = 0;
    if (f->cost_us > 0 || f->runs != f->mruns)
        f->marked = false;      /* other victims, or may be: marked again */
    if (!pass(f, v, x, true) && f->lend)
        pass(f, v, x, false);
}

static const struct pol_opt opts[] = {
    { "by", "vc", "vc or user: the trace column that names the tenant "
                  "(jobs without one: tenant '-')" },
    { "quota", "equal", "equal: the cluster's GPUs split evenly over the "
                        "trace's tenants; demand: in proportion to each "
                        "tenant's GPU-seconds of work; file: from file=" },
    { "file", "", "with quota=file: a CSV of tenant,gpus or tenant,weight "
                  "('*' row: every tenant not listed)" },
    { "lend", "1", "1: idle quota is lent, and reclaimed by preempting the "
                   "borrowers' latest jobs; 0: hard quotas (a job larger "
                   "than its quota is rejected)" },
    { "preempt_cost", "0", "seconds of reference-GPU work added per "
                           "preemption" },
    { NULL, NULL, NULL },
};

const struct policy pol_fairshare = {
    .name = "fairshare",
    .summary = "per-VC or per-user GPU quotas, idle share lent and "
               "reclaimed by preemption (Philly, Helios; YARN capacity "
               "scheduler)",
    .blocking = "it blocks later jobs of its own tenant (FIFO per tenant); "
                "other tenants' jobs go on",
    .opts = opts,
    .create = create,
    .destroy = destroy,
    .admit = admit,
    .enqueue = enqueue,
    .finished = finished,
    .schedule = schedule,
    .queued = queued,
};
