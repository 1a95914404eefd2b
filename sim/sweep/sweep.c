/*
 * sim/sweep/sweep.c - the grid spec of `dlsim sweep` (prefix swp_): YAML ->
 * axes and scenarios -> the list of runs in grid order, and the
 * validation of every input before anything runs.
 *
 *   policies: [fifo, "fifo:backfill=1", srtf]     # --policy strings
 *   traces:   [traces/a.csv.gz, traces/b.csv]     # relative to the spec
 *   clusters: [clusters/c.yaml]    # absent: the built-in demo-256
 *   models:   [none, zoo, [zoo, noise.yaml]]      # --models lists
 *   loads:    [null, 0.8, 0.95]    # null: the trace's own arrivals
 *   seeds:    1..3                 # or a list [1, 2, 7], or one number
 *   sample:   300                  # --sample seconds (default 300)
 *   check:    false                # --check on every run
 *   scenarios:                     # named sub-grids; absent: one,
 *     base: {}                     # named "default"
 *     hetero: {clusters: [clusters/hetero.yaml], policies: [qos, horus]}
 *
 * A scenario inherits every top-level key it does not set; any key but
 * `scenarios` may be overridden.  The grid of one scenario is the product
 * of its axes, nested in the order of the summary.csv columns (policy,
 * trace, cluster, models, load, seed; the seed varies fastest); scenarios
 * follow one another in file order.  The run index is the position in
 * that order, so it is stable as long as the spec is.
 *
 * Axis values are interned per axis by their text, so a trace named by
 * three scenarios is loaded once.  Parsing goes through the yl_ helpers
 * (sim/base/formats.h): one libyaml document, every error at file:line:col.
 * Strings point into allocations owned by struct swp_spec, never into
 * the YAML document, which is closed before swp_spec_load returns.
 */
#include "sim/sweep/sweep.h"
#include "policies/policy.h"
#include "models/perf.h"
#include "sim/base/formats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const swp_axis_key[SWP_NAXES] = {
    "policies", "traces", "clusters", "models", "loads", "seeds",
};

const char *const swp_coord_name[SWP_NCOORD] = {
    "run_id", "scenario", "policy", "trace", "cluster", "models", "load", "seed",
};

#define SWP_MAX_RUNS 10000000u
#define SWP_MAX_SEED 1000000000000000000ull

/* ------------------------------------------------------------ helpers */

static bool is_null(const yaml_node_t *n)
{
    if (!n || n->type != YAML_SCALAR_NODE)
        return false;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = (const char *)n->data.scalar.value;
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

/* A non-empty scalar string, else NULL. */
static const char *str_of(const yaml_node_t *n)
{
    const char *s = yl_scalar(n);
    return s && *s && !is_null(n) && strlen(s) == n->data.scalar.length ? s : NULL;
}

static char *resolve(const struct swp_spec *s, const char *text)
{
    if (text[0] == '/' || !s->dir)
        return xstrdup(text);
    size_t n = strlen(s->dir) + strlen(text) + 2;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", s->dir, text);
    return p;
}

static void sanitize(char *out, size_t n, const char *s)
{
    size_t k = 0;
    for (; *s && k + 1 < n; s++) {
        unsigned char ch = (unsigned char)*s;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
        out[k++] = ok ? (char)ch : '_';
    }
    out[k] = 0;
}

/* A file's name without directories and .gz, then .csv or .yaml / .yml,
 * sanitized: the readable part of a trace, workload or cluster file in
 * run ids and in the names of generated traces. */
static void trace_base(char *out, size_t n, const char *text)
{
    const char *b = strrchr(text, '/');
    b = b ? b + 1 : text;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", b);
    size_t l = strlen(tmp);
    if (l > 3 && !strcmp(tmp + l - 3, ".gz"))
        tmp[l -= 3] = 0;
    static const char *const ext[] = { ".csv", ".yaml", ".yml" };
    for (size_t k = 0; k < sizeof ext / sizeof *ext; k++) {
        size_t e = strlen(ext[k]);
        if (l > e && !strcmp(tmp + l - e, ext[k])) {
            tmp[l -= e] = 0;
            break;
        }
    }
    sanitize(out, n, tmp);
}

/* FNV-1a of a coordinate's text, for the per-axis intern index. */
static uint64_t text_hash(const char *t)
{
    uint64_t h = 1469598103934665603ull;
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 1099511628211ull;
    return h;
}

/* Puts item i of axis ax into the open-addressing index (slots hold
 * index + 1; 0 = empty), growing it to keep it at most half full. */
static void index_add(struct swp_spec *s, enum swp_axis ax, uint32_t i)
{
    if (2 * ((size_t)s->nitems[ax] + 1) > s->hcap[ax]) {
        size_t cap = s->hcap[ax] ? 2 * s->hcap[ax] : 64;
        uint32_t *h = xcalloc(cap, sizeof *h);
        for (size_t k = 0; k < s->hcap[ax]; k++) {
            uint32_t v = s->hidx[ax][k];
            if (!v)
                continue;
            size_t b = text_hash(s->items[ax][v - 1].text) & (cap - 1);
            while (h[b])
                b = (b + 1) & (cap - 1);
            h[b] = v;
        }
        free(s->hidx[ax]);
        s->hidx[ax] = h;
        s->hcap[ax] = cap;
    }
    size_t b = text_hash(s->items[ax][i].text) & (s->hcap[ax] - 1);
    while (s->hidx[ax][b])
        b = (b + 1) & (s->hcap[ax] - 1);
    s->hidx[ax][b] = i + 1;
}

/* The index of the item of axis ax written as text, added when new.
 * O(1) expected (a seeds range of a million values interns in a blink,
 * where a linear search took minutes). */
static uint32_t intern(struct swp_spec *s, enum swp_axis ax, const char *text,
                       const yaml_node_t *at, struct swp_item **isnew)
{
    *isnew = NULL;
    if (s->hcap[ax])
        for (size_t b = text_hash(text) & (s->hcap[ax] - 1); s->hidx[ax][b];
             b = (b + 1) & (s->hcap[ax] - 1))
            if (!strcmp(s->items[ax][s->hidx[ax][b] - 1].text, text))
                return s->hidx[ax][b] - 1;
    xgrow(&s->items[ax], &s->cap[ax], s->nitems[ax] + 1, sizeof **s->items);
    struct swp_item *it = &s->items[ax][s->nitems[ax]];
    memset(it, 0, sizeof *it);
    it->text = xstrdup(text);
    it->line = at ? (long)at->start_mark.line + 1 : 1;
    it->col = at ? (long)at->start_mark.column + 1 : 1;
    *isnew = it;
    index_add(s, ax, s->nitems[ax]);
    return s->nitems[ax]++;
}

/* ------------------------------------------------------------ axes */

struct axis_tmp {
    uint32_t *v;
    uint32_t n;
    size_t cap;
};

static void push(struct axis_tmp *a, uint32_t v)
{
    xgrow(&a->v, &a->cap, a->n + 1, sizeof *a->v);
    a->v[a->n++] = v;
}

/* The entries of an axis value: a list, or one scalar standing for a
 * one-entry list.  Returns the count and fills *items (node ids). */
static int entries(struct yload *L, const yaml_node_t *v, const char *key,
                   const yaml_node_t ***out, uint32_t *n)
{
    if (v->type == YAML_SEQUENCE_NODE) {
        yaml_node_item_t *b = v->data.sequence.items.start;
        yaml_node_item_t *e = v->data.sequence.items.top;
        *n = (uint32_t)(e - b);
        if (!*n)
            return yl_fail(L, v, "%s: an empty list", key);
        const yaml_node_t **arr = xcalloc(*n, sizeof *arr);
        for (uint32_t i = 0; i < *n; i++)
            arr[i] = yl_node(L, b[i]);
        *out = arr;
        return 0;
    }
    if (v->type != YAML_SCALAR_NODE)
        return yl_fail(L, v, "%s: expected a list", key);
    const yaml_node_t **arr = xcalloc(1, sizeof *arr);
    arr[0] = v;
    *out = arr;
    *n = 1;
    return 0;
}

static int parse_seed(const char *s, uint64_t *out)
{
    long v;
    if (sim_parse_long(s, &v) || v < 0 || (unsigned long long)v > SWP_MAX_SEED)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static int add_seed(struct swp_spec *s, struct axis_tmp *a, uint64_t seed,
                    const yaml_node_t *at)
{
    char buf[24];
    struct swp_item *it;
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)seed);
    push(a, intern(s, SWP_SEED, buf, at, &it));
    if (it)
        it->seed = seed;
    return 0;
}

/* seeds: [1, 2, 7] | 1..10 | 4 */
static int parse_seeds(struct swp_spec *s, struct yload *L, const yaml_node_t *v,
                       struct axis_tmp *a)
{
    const char *t = yl_scalar(v);
    const char *dots = t ? strstr(t, "..") : NULL;
    if (dots) {
        char lo[32];
        uint64_t a0, b0;
        size_t n = (size_t)(dots - t);
        if (n >= sizeof lo || (memcpy(lo, t, n), lo[n] = 0, parse_seed(lo, &a0)) ||
            parse_seed(dots + 2, &b0) || b0 < a0)
            return yl_fail(L, v, "seeds: expected A..B with integers 0 <= A <= B, "
                           "got '%s'", t);
        if (b0 - a0 >= SWP_MAX_RUNS)
            return yl_fail(L, v, "seeds: the range '%s' is too long", t);
        for (uint64_t k = a0; k <= b0; k++)
            add_seed(s, a, k, v);
        return 0;
    }
    const yaml_node_t **e = NULL;
    uint32_t n;
    int rc = entries(L, v, "seeds", &e, &n);
    for (uint32_t i = 0; i < n && !rc; i++) {
        uint64_t seed;
        const char *x = str_of(e[i]);
        if (!x || parse_seed(x, &seed))
            rc = yl_fail(L, e[i], "seeds[%u]: expected an integer >= 0 (or a "
                         "range A..B)", i);
        else
            add_seed(s, a, seed, e[i]);
    }
    free(e);
    return rc;
}

static int parse_models_entry(struct swp_spec *s, struct yload *L,
                              const yaml_node_t *x, uint32_t i,
                              struct axis_tmp *a)
{
    const yaml_node_t **args = NULL;
    uint32_t nargs = 0;
    const char *one = str_of(x);
    if (x->type == YAML_SEQUENCE_NODE) {
        yaml_node_item_t *b = x->data.sequence.items.start;
        nargs = (uint32_t)(x->data.sequence.items.top - b);
        args = xcalloc(nargs + 1, sizeof *args);
        for (uint32_t k = 0; k < nargs; k++) {
            args[k] = yl_node(L, b[k]);
            if (!str_of(args[k])) {
                const yaml_node_t *at = args[k] ? args[k] : x;
                free(args);
                return yl_fail(L, at, "models[%u][%u]: expected a --models "
                               "argument (zoo or a file)", i, k);
            }
        }
    } else if (is_null(x) || (one && !strcmp(one, "none"))) {
        nargs = 0;
    } else if (one) {
        args = xcalloc(1, sizeof *args);
        args[0] = x;
        nargs = 1;
    } else {
        return yl_fail(L, x, "models[%u]: expected none, zoo, a file, or a "
                       "list of them", i);
    }
    size_t len = 1;
    for (uint32_t k = 0; k < nargs; k++)
        len += strlen(yl_scalar(args[k])) + 1;
    char *text = xcalloc(1, len);
    for (uint32_t k = 0; k < nargs; k++) {
        if (k)
            strcat(text, "+");
        strcat(text, yl_scalar(args[k]));
    }
    struct swp_item *it;
    push(a, intern(s, SWP_MODELS, text, x, &it));
    if (it && nargs) {
        it->args = xcalloc(nargs, sizeof *it->args);
        it->nargs = nargs;
        for (uint32_t k = 0; k < nargs; k++) {
            const char *arg = yl_scalar(args[k]);
            it->args[k] = !strcmp(arg, "zoo") ? xstrdup(arg) : resolve(s, arg);
        }
    }
    free(text);
    free(args);
    return 0;
}

/* ------------------------------------------------------------ generated traces
 *
 *   traces:
 *     - {gen: {jobs: 2000, gpus: philly, duration: philly,
 *              deadline_slack: "1.2:3"}, name: philly}
 *     - {like: fit.yaml, arrivals: poisson, jobs: 3000}
 *
 * gen takes the options of `dlsim trace gen` (jobs, gpus, duration,
 * max_duration, deadline_slack, deadline_frac, models), like those of
 * `dlsim trace gen --like` (jobs, arrivals, models); name is the short
 * name in run ids and file names (default gen, or the workload file's
 * name).  The coordinate (summary.csv's trace) is a canonical text of the
 * options, e.g. gen(jobs=2000,gpus=philly,duration=philly,
 * deadline_slack=1.2:3), so equal options are one trace. */

#define SWP_MAX_GEN_JOBS 10000000

static const char *const gen_keys[] = {
    "jobs", "gpus", "duration", "max_duration", "deadline_slack",
    "deadline_frac", "models",
};
static const char *const like_keys[] = { "jobs", "arrivals", "models" };

static void gen_free(struct swp_gen *g)
{
    if (!g)
        return;
    free(g->name);
    free(g->gpus);
    free(g->duration);
    free(g->models);
    free(g->wl_path);
    if (g->wl_loaded)
        trc_wl_free(&g->wl);
    free(g);
}

/* One option of a generated trace into g; 0 or DL_EINPUT. */
static int gen_option(struct yload *L, struct swp_gen *g, const char *key,
                      const yaml_node_t *v)
{
    const char *t = str_of(v);
    double d;
    if (!t)
        return yl_fail(L, v, "%s: expected a value", key);
    if (!strcmp(key, "jobs")) {
        long n;
        if (sim_parse_long(t, &n) || n < 1 || n > SWP_MAX_GEN_JOBS)
            return yl_fail(L, v, "jobs: expected an integer in 1..%d",
                           SWP_MAX_GEN_JOBS);
        g->o.njobs = g->lo.njobs = (uint32_t)n;
    } else if (!strcmp(key, "gpus")) {
        g->o.gpus = g->gpus = xstrdup(t);
    } else if (!strcmp(key, "duration")) {
        g->o.duration = g->duration = xstrdup(t);
    } else if (!strcmp(key, "max_duration")) {
        if (sim_parse_double(t, &d) || !isfinite(d) || (d != 0 && d < 1))
            return yl_fail(L, v, "max_duration: expected seconds >= 1 (or 0 "
                           "for none)");
        g->o.max_duration_s = d;
    } else if (!strcmp(key, "deadline_slack")) {
        char lo[64];
        const char *colon = strchr(t, ':');
        size_t n = colon ? (size_t)(colon - t) : strlen(t);
        double a = 0, b = 0;
        if (n >= sizeof lo || (memcpy(lo, t, n), lo[n] = 0, sim_parse_double(lo, &a)) ||
            !(a > 0) || (colon && sim_parse_double(colon + 1, &b)) ||
            (colon && !(b >= a)) || (colon ? b : a) > 1000)
            return yl_fail(L, v, "deadline_slack: expected LO or \"LO:HI\" "
                           "with 0 < LO <= HI <= 1000");
        g->o.deadline_lo = a;
        g->o.deadline_hi = colon ? b : a;
    } else if (!strcmp(key, "deadline_frac")) {
        if (yl_num(L, v, "deadline_frac", 0, 1, false, &g->o.deadline_frac))
            return DL_EINPUT;
    } else if (!strcmp(key, "models")) {
        if (!strcmp(t, "zoo")) {        /* the zoo's names, as trace gen */
            struct dl_error ze = { 0 };
            char *names = mdl_zoo_names(&ze);
            if (!names)
                return yl_fail(L, v, "models: zoo: %s%s%s", ze.msg,
                               ze.file[0] ? " in " : "", ze.file);
            g->models = names;
            if (g->like)
                g->lo.models = names;
            else
                g->o.models = names;
        } else if (!g->like) {
            g->o.models = g->models = xstrdup(t);
        } else if (!strcmp(t, "none")) {
            g->lo.models = g->models = xstrdup("");
        } else if (strcmp(t, "like")) {
            g->lo.models = g->models = xstrdup(t);
        }
    } else if (!strcmp(key, "arrivals")) {
        static const char *const an[] = { "replay", "poisson", "diurnal" };
        static const enum trc_arrivals av[] = { TRC_ARR_REPLAY, TRC_ARR_POISSON,
                                                TRC_ARR_DIURNAL };
        size_t k = 0;
        while (k < 3 && strcmp(t, an[k]))
            k++;
        if (k == 3)
            return yl_fail(L, v, "arrivals: expected replay, poisson or diurnal");
        g->lo.arrivals = av[k];
    }
    return 0;
}

/* The options of mapping m (keys of keys[0..nk)) into g, appended to the
 * canonical text (",key=value" each, in the order of keys). */
static int gen_options(struct yload *L, const yaml_node_t *m, struct swp_gen *g,
                       const char *const *keys, size_t nk, const char *what,
                       FILE *canon)
{
    const yaml_node_t *val[8] = { 0 };
    for (yaml_node_pair_t *q = m->data.mapping.pairs.start;
         q < m->data.mapping.pairs.top; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        int rc = yl_pair(L, m, q, &k, &v, &key);
        if (rc)
            return rc;
        size_t i = 0;
        while (i < nk && strcmp(key, keys[i]))
            i++;
        if (i == nk) {
            if (!g->like || (strcmp(key, "like") && strcmp(key, "name"))) {
                char valid[200] = "";
                for (size_t j = 0; j < nk; j++)
                    snprintf(valid + strlen(valid), sizeof valid - strlen(valid),
                             "%s%s", j ? ", " : "", keys[j]);
                return yl_fail(L, k, "%s: unknown option '%s' (valid: %s%s; the "
                               "seed, load and cluster come from the seeds, "
                               "loads and clusters axes)", what, key, valid,
                               g->like ? ", name" : "");
            }
            continue;
        }
        if ((rc = gen_option(L, g, key, v)))
            return rc;
        val[i] = v;
    }
    for (size_t i = 0; i < nk; i++)
        if (val[i])
            fprintf(canon, ",%s=%s", keys[i], yl_scalar(val[i]));
    return 0;
}

/* A traces entry that is a mapping: a generated trace. */
static int parse_gen_entry(struct swp_spec *s, struct yload *L,
                           const yaml_node_t *x, uint32_t i, struct axis_tmp *a)
{
    const yaml_node_t *gen = NULL, *like = NULL, *name = NULL;
    for (yaml_node_pair_t *q = x->data.mapping.pairs.start;
         q < x->data.mapping.pairs.top; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        int rc = yl_pair(L, x, q, &k, &v, &key);
        if (rc)
            return rc;
        if (!strcmp(key, "gen"))
            gen = v;
        else if (!strcmp(key, "like"))
            like = v;
        else if (!strcmp(key, "name"))
            name = v;
        else if (strcmp(key, "arrivals") && strcmp(key, "jobs") &&
                 strcmp(key, "models"))
            return yl_fail(L, k, "traces[%u]: unknown key '%s' (a generated "
                           "trace is {gen: {OPTIONS}, name: N} or {like: "
                           "W.yaml, OPTIONS, name: N})", i, key);
    }
    if (!gen == !like)
        return yl_fail(L, x, "traces[%u]: expected a file name, {gen: {...}} "
                       "or {like: W.yaml, ...}", i);
    if (gen && x->data.mapping.pairs.top - x->data.mapping.pairs.start > 1 + !!name)
        return yl_fail(L, x, "traces[%u]: the options of gen go inside it: "
                       "{gen: {jobs: 2000, ...}}", i);
    if (gen && gen->type != YAML_MAPPING_NODE && !is_null(gen))
        return yl_fail(L, gen, "traces[%u]: gen: expected a mapping of trace "
                       "gen options ({} for the defaults)", i);
    if (like && !str_of(like))
        return yl_fail(L, like, "traces[%u]: like: expected a workload file "
                       "(dlsim trace fit)", i);
    const char *nm = name ? str_of(name) : NULL;
    if (name && (!nm || strpbrk(nm, "/\n") || !strcmp(nm, ".") || !strcmp(nm, "..")))
        return yl_fail(L, name, "traces[%u]: name: expected a short name "
                       "without '/'", i);
    struct swp_gen *g = xcalloc(1, sizeof *g);
    g->like = like != NULL;
    trc_gen_defaults(&g->o);
    g->lo.arrivals = TRC_ARR_REPLAY;
    char *canon = NULL;
    size_t cl;
    FILE *cf = open_memstream(&canon, &cl);
    int rc;
    if (like) {
        fprintf(cf, "like(%s", yl_scalar(like));
        rc = gen_options(L, x, g, like_keys, sizeof like_keys / sizeof *like_keys,
                         "like", cf);
    } else {
        fputs("gen(", cf);
        rc = is_null(gen) ? 0 : gen_options(L, gen, g, gen_keys,
                                            sizeof gen_keys / sizeof *gen_keys,
                                            "gen", cf);
    }
    if (nm)
        fprintf(cf, ",name=%s", nm);
    fputc(')', cf);
    fclose(cf);
    if (!like && !rc && canon[4] == ',')
        memmove(canon + 4, canon + 5, strlen(canon + 5) + 1);   /* "gen(," */
    if (rc) {
        free(canon);
        gen_free(g);
        return rc;
    }
    if (nm) {
        g->name = xstrdup(nm);
    } else if (like) {
        char b[64];
        trace_base(b, sizeof b, yl_scalar(like));
        g->name = xstrdup(b);
    } else {
        g->name = xstrdup("gen");
    }
    if (like)
        g->wl_path = resolve(s, yl_scalar(like));
    struct swp_item *it;
    push(a, intern(s, SWP_TRACE, canon, x, &it));
    if (it)
        it->gen = g;
    else
        gen_free(g);
    free(canon);
    return 0;
}

static int parse_axis(struct swp_spec *s, struct yload *L, enum swp_axis ax,
                      const yaml_node_t *v, struct axis_tmp *a)
{
    if (ax == SWP_SEED)
        return parse_seeds(s, L, v, a);
    const char *key = swp_axis_key[ax];
    const yaml_node_t **e = NULL;
    uint32_t n;
    int rc = entries(L, v, key, &e, &n);
    for (uint32_t i = 0; i < n && !rc; i++) {
        const yaml_node_t *x = e[i];
        const char *t = str_of(x);
        struct swp_item *it;
        switch (ax) {
        case SWP_MODELS:
            rc = parse_models_entry(s, L, x, i, a);
            break;
        case SWP_LOAD: {
            double d = 0;
            if (is_null(x)) {
                push(a, intern(s, ax, "", x, &it));
                break;
            }
            if (!t || sim_parse_double(t, &d) || !(d > 0) || !isfinite(d) ||
                d > 1e6) {
                rc = yl_fail(L, x, "loads[%u]: expected an offered load > 0 or "
                             "null (the trace's own arrivals)", i);
                break;
            }
            push(a, intern(s, ax, t, x, &it));
            if (it)
                it->load = d;
            break;
        }
        default:                /* policies, traces, clusters: strings */
            if (ax == SWP_TRACE && x->type == YAML_MAPPING_NODE) {
                rc = parse_gen_entry(s, L, x, i, a);
                break;
            }
            if (!t) {
                rc = yl_fail(L, x, "%s[%u]: expected a %s", key, i,
                             ax == SWP_POLICY ? "policy (NAME or NAME:k=v,...)"
                                              : "file name");
                break;
            }
            push(a, intern(s, ax, t, x, &it));
            if (it && ax != SWP_POLICY)
                it->path = resolve(s, t);
            break;
        }
    }
    free(e);
    return rc;
}

/* ------------------------------------------------------------ mappings */

/* The settings of the top level or of one scenario; axes unset = n 0. */
struct level {
    struct axis_tmp ax[SWP_NAXES];
    bool has[SWP_NAXES];
    bool has_sample, has_check, has_strict;
    simtime_t sample;
    bool check, strict;
};

static void level_free(struct level *l)
{
    for (int k = 0; k < SWP_NAXES; k++)
        free(l->ax[k].v);
}

/* One mapping: the top level (top set) or a scenario's overrides. */
static int parse_level(struct swp_spec *s, struct yload *L, const yaml_node_t *m,
                       bool top, struct level *lv, const yaml_node_t **scen)
{
    if (m->type != YAML_MAPPING_NODE)
        return yl_fail(L, m, top ? "expected a mapping of policies, traces, ..."
                                 : "a scenario: expected a mapping of axes to "
                                   "override (or {})");
    for (yaml_node_pair_t *q = m->data.mapping.pairs.start;
         q < m->data.mapping.pairs.top; q++) {
        const yaml_node_t *k, *v;
        const char *key;
        int rc = yl_pair(L, m, q, &k, &v, &key);
        if (rc)
            return rc;
        int ax = -1;
        for (int i = 0; i < SWP_NAXES; i++)
            if (!strcmp(key, swp_axis_key[i]))
                ax = i;
        if (ax >= 0) {
            lv->has[ax] = true;
            if ((rc = parse_axis(s, L, (enum swp_axis)ax, v, &lv->ax[ax])))
                return rc;
        } else if (!strcmp(key, "sample")) {
            const char *t = str_of(v);
            if (!t || sim_parse_interval(t, &lv->sample))
                return yl_fail(L, v, "sample: expected 0 (no timeseries) or "
                               "seconds >= 0.000001");
            lv->has_sample = true;
        } else if (!strcmp(key, "check") || !strcmp(key, "strict")) {
            const char *t = str_of(v);
            bool on = key[0] == 'c' ? lv->check : lv->strict;
            if (t && !strcmp(t, "true"))
                on = true;
            else if (t && !strcmp(t, "false"))
                on = false;
            else
                return yl_fail(L, v, "%s: expected true or false", key);
            if (key[0] == 'c')
                lv->check = on, lv->has_check = true;
            else
                lv->strict = on, lv->has_strict = true;
        } else if (top && !strcmp(key, "scenarios")) {
            *scen = v;
        } else {
            return yl_fail(L, k, "unknown key '%s' (valid: policies, traces, "
                           "clusters, models, loads, seeds, sample, check, "
                           "strict%s)",
                           key, top ? ", scenarios" : "");
        }
    }
    return 0;
}

static void add_scenario(struct swp_spec *s, const char *name,
                         const yaml_node_t *at, const struct level *top,
                         const struct level *own, uint32_t builtin)
{
    s->sc = xrealloc(s->sc, (s->nsc + 1) * sizeof *s->sc);
    struct swp_scenario *c = &s->sc[s->nsc++];
    memset(c, 0, sizeof *c);
    c->name = xstrdup(name);
    c->line = at ? (long)at->start_mark.line + 1 : 1;
    c->col = at ? (long)at->start_mark.column + 1 : 1;
    for (int k = 0; k < SWP_NAXES; k++) {
        const struct axis_tmp *a = own && own->has[k] ? &own->ax[k] : &top->ax[k];
        c->n[k] = a->n;
        c->v[k] = xcalloc(a->n ? a->n : 1, sizeof *c->v[k]);
        if (a->n)
            memcpy(c->v[k], a->v, a->n * sizeof *a->v);
    }
    if (!c->n[SWP_CLUSTER]) {           /* the built-in cluster */
        c->v[SWP_CLUSTER][0] = builtin;
        c->n[SWP_CLUSTER] = 1;
    }
    c->sample = own && own->has_sample ? own->sample
              : top->has_sample ? top->sample : 300 * SIM_US_PER_S;
    c->check = own && own->has_check ? own->check : top->check;
    c->strict = own && own->has_strict ? own->strict : top->strict;
}

/* Defaults for the axes a spec may leave out: models none, load none,
 * seed 1 (clusters: the built-in one, in add_scenario). */
static void default_axes(struct swp_spec *s, struct level *top)
{
    struct swp_item *it;
    if (!top->has[SWP_MODELS]) {
        push(&top->ax[SWP_MODELS], intern(s, SWP_MODELS, "", NULL, &it));
        top->has[SWP_MODELS] = true;
    }
    if (!top->has[SWP_LOAD]) {
        push(&top->ax[SWP_LOAD], intern(s, SWP_LOAD, "", NULL, &it));
        top->has[SWP_LOAD] = true;
    }
    if (!top->has[SWP_SEED]) {
        add_seed(s, &top->ax[SWP_SEED], 1, NULL);
        top->has[SWP_SEED] = true;
    }
}

/* ------------------------------------------------------------ run ids */

/* The short models tag of a run id: "-m" and each --models argument's
 * file name without directories and extensions (zoo stays zoo), at most
 * 10 bytes each, joined by "+" (sanitized to "_"); "" without models. */
static void models_tag(char *out, size_t n, const struct swp_item *mi)
{
    size_t k = 0;
    out[0] = 0;
    for (uint32_t a = 0; a < mi->nargs && k + 4 < n; a++) {
        const char *b = strrchr(mi->args[a], '/');
        b = b ? b + 1 : mi->args[a];
        size_t l = strcspn(b, ".");
        if (!l)
            l = strlen(b);
        k += (size_t)snprintf(out + k, n - k, "%s%.*s", a ? "+" : "-m",
                              (int)(l > 10 ? 10 : l), b);
    }
    if (k >= n)
        out[n - 1] = 0;
}

/* The policy part of a run id: a plug-in's path is cut to its file name
 * without ".so" (its directories would crowd out the name and the
 * options, "/x/libljf.so@ljf:backfill=0" -> "libljf@ljf:backfill=0"),
 * sanitized; a built-in's text as it is. */
static void policy_tag(char *out, size_t n, const char *text)
{
    size_t nlen = strcspn(text, ":");
    char tmp[256];
    if (!pol_is_plugin(text, nlen)) {
        sanitize(out, n, text);
        return;
    }
    const char *b = text;
    for (const char *q = text; q < text + nlen; q++)
        if (*q == '/')
            b = q + 1;
    size_t blen = (size_t)(text + nlen - b);
    const char *at = memchr(b, '@', blen);
    size_t flen = at ? (size_t)(at - b) : blen;
    size_t keep = flen > 3 && !memcmp(b + flen - 3, ".so", 3) ? flen - 3 : flen;
    snprintf(tmp, sizeof tmp, "%.*s%s", (int)keep, b, b + flen);
    sanitize(out, n, tmp);
}

static void make_id(struct swp_spec *s, struct swp_run *r, uint32_t i, int width,
                    bool named)
{
    char pol[40], tr[40], sc[24], mt[28], part[200];
    policy_tag(pol, sizeof pol, s->items[SWP_POLICY][r->ax[SWP_POLICY]].text);
    const struct swp_item *ti = &s->items[SWP_TRACE][r->ax[SWP_TRACE]];
    if (ti->gen)
        sanitize(tr, sizeof tr, ti->gen->name);
    else
        trace_base(tr, sizeof tr, ti->text);
    sanitize(sc, sizeof sc, s->sc[r->sc].name);
    models_tag(mt, sizeof mt, &s->items[SWP_MODELS][r->ax[SWP_MODELS]]);
    const struct swp_item *ld = &s->items[SWP_LOAD][r->ax[SWP_LOAD]];
    char load[24] = "";
    if (ld->text[0])
        snprintf(load, sizeof load, "-l%.12s", ld->text);
    snprintf(part, sizeof part, "%s%s%s-%s%s%s-s%s", named ? sc : "",
             named ? "-" : "", pol, tr, mt, load,
             s->items[SWP_SEED][r->ax[SWP_SEED]].text);
    char clean[84];
    sanitize(clean, sizeof clean, part);
    snprintf(r->id, sizeof r->id, "%0*u-%s", width, i, clean);
}

static int expand(struct swp_spec *s, struct yload *L, bool named)
{
    uint64_t total = 0;
    for (uint32_t c = 0; c < s->nsc; c++) {
        struct swp_scenario *sc = &s->sc[c];
        uint64_t n = 1;
        for (int k = 0; k < SWP_NAXES; k++) {
            if (!sc->n[k])
                return dl_fail(L->err, L->file, sc->line, sc->col,
                               "scenario '%s': no %s (set them at the top level "
                               "or in the scenario)", sc->name, swp_axis_key[k]);
            n *= sc->n[k];
            if (n > SWP_MAX_RUNS)
                break;
        }
        total += n;
        if (total > SWP_MAX_RUNS)
            return dl_fail(L->err, L->file, sc->line, sc->col,
                           "the grid has over %u runs", SWP_MAX_RUNS);
    }
    s->nruns = (uint32_t)total;
    s->runs = xcalloc(total ? total : 1, sizeof *s->runs);
    int width = 4;
    for (uint64_t m = 10000; m < total; m *= 10)
        width++;
    uint32_t i = 0;
    for (uint32_t c = 0; c < s->nsc; c++) {
        const struct swp_scenario *sc = &s->sc[c];
        uint32_t idx[SWP_NAXES] = { 0 };
        for (;;) {
            struct swp_run *r = &s->runs[i];
            r->sc = c;
            for (int k = 0; k < SWP_NAXES; k++)
                r->ax[k] = sc->v[k][idx[k]];
            make_id(s, r, i, width, named);
            i++;
            int k = SWP_NAXES - 1;      /* odometer: the last axis fastest */
            while (k >= 0 && ++idx[k] == sc->n[k])
                idx[k--] = 0;
            if (k < 0)
                break;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ counting
 *
 * The grid's size from the YAML alone, before any value is parsed or
 * interned: a spec of 8 policies x 1000 traces x seeds 1..100000 is
 * refused at once instead of after expanding 800 million runs.  Values
 * that do not parse count as one entry here; parsing reports them. */

static uint64_t count_axis(enum swp_axis ax, const yaml_node_t *v)
{
    if (v->type == YAML_SEQUENCE_NODE)
        return (uint64_t)(v->data.sequence.items.top -
                          v->data.sequence.items.start);
    const char *t = ax == SWP_SEED ? yl_scalar(v) : NULL;
    const char *dots = t ? strstr(t, "..") : NULL;
    char lo[32];
    uint64_t a0, b0;
    size_t n = dots ? (size_t)(dots - t) : 0;
    if (dots && n < sizeof lo && (memcpy(lo, t, n), lo[n] = 0, !parse_seed(lo, &a0)) &&
        !parse_seed(dots + 2, &b0) && b0 >= a0)
        return b0 - a0 + 1;
    return 1;
}

/* Entries per axis of one mapping (0: not set there). */
static void count_level(struct yload *L, const yaml_node_t *m, uint64_t n[SWP_NAXES],
                        const yaml_node_t **scen)
{
    memset(n, 0, SWP_NAXES * sizeof *n);
    if (!m || m->type != YAML_MAPPING_NODE)
        return;
    for (yaml_node_pair_t *q = m->data.mapping.pairs.start;
         q < m->data.mapping.pairs.top; q++) {
        const yaml_node_t *k = yl_node(L, q->key), *v = yl_node(L, q->value);
        const char *key = yl_scalar(k);
        if (!key || !v)
            continue;
        for (int i = 0; i < SWP_NAXES; i++)
            if (!strcmp(key, swp_axis_key[i]))
                n[i] = count_axis((enum swp_axis)i, v);
        if (scen && !strcmp(key, "scenarios"))
            *scen = v;
    }
}

/* DL_EINPUT at the scenario (or the top) where the total passes
 * SWP_MAX_RUNS, else 0.  Axes a scenario leaves unset count as the top
 * level's, or 1 (the defaults; a missing policies or traces axis is
 * reported by the parser). */
static int count_grid(struct yload *L, const yaml_node_t *root)
{
    uint64_t top[SWP_NAXES], own[SWP_NAXES], total = 0;
    const yaml_node_t *scen = NULL;
    count_level(L, root, top, &scen);
    bool named = scen && scen->type == YAML_MAPPING_NODE;
    yaml_node_pair_t *q = named ? scen->data.mapping.pairs.start : NULL;
    for (;;) {
        const yaml_node_t *at = root;
        if (named) {
            if (q >= scen->data.mapping.pairs.top)
                return 0;
            at = yl_node(L, q->key);
            count_level(L, yl_node(L, q->value), own, NULL);
            q++;
        } else {
            memset(own, 0, sizeof own);
        }
        uint64_t runs = 1;
        for (int i = 0; i < SWP_NAXES; i++) {
            uint64_t k = own[i] ? own[i] : top[i] ? top[i] : 1;
            /* runs, k <= SWP_MAX_RUNS + 1: the product cannot overflow */
            runs *= k > SWP_MAX_RUNS ? SWP_MAX_RUNS + 1 : k;
            if (runs > SWP_MAX_RUNS)
                runs = SWP_MAX_RUNS + 1;
        }
        total += runs;
        if (total > SWP_MAX_RUNS)
            return yl_fail(L, at, "the grid has over %u runs", SWP_MAX_RUNS);
        if (!named)
            return 0;
    }
}

/* ------------------------------------------------------------ loading */

int swp_spec_load(const char *path, struct swp_spec *s, struct dl_error *err)
{
    memset(s, 0, sizeof *s);
    s->file = xstrdup(path);
    const char *slash = strrchr(path, '/');
    if (slash) {
        s->dir = xstrdup(path);
        s->dir[slash == path ? 1 : slash - path] = 0;
    }
    struct yload L;
    int rc = yl_open(&L, path, err);
    const yaml_node_t *root = rc ? NULL : yl_root(&L);
    struct level top, own;
    memset(&top, 0, sizeof top);
    memset(&own, 0, sizeof own);
    const yaml_node_t *scen = NULL;
    if (!rc && !root)
        rc = dl_fail(err, path, 1, 1, "empty spec: expected a mapping of "
                     "policies, traces, ...");
    if (!rc)
        rc = count_grid(&L, root);
    if (!rc)
        rc = parse_level(s, &L, root, true, &top, &scen);
    if (!rc)
        default_axes(s, &top);
    /* the built-in cluster, for scenarios without clusters: an item of
     * its own (never interned, so a file named demo-256 stays a file) */
    uint32_t builtin = 0;
    if (!rc) {
        xgrow(&s->items[SWP_CLUSTER], &s->cap[SWP_CLUSTER],
              s->nitems[SWP_CLUSTER] + 1, sizeof **s->items);
        struct swp_item *it = &s->items[SWP_CLUSTER][s->nitems[SWP_CLUSTER]];
        memset(it, 0, sizeof *it);
        it->text = xstrdup("demo-256");
        it->line = it->col = 1;
        builtin = s->nitems[SWP_CLUSTER]++;
    }
    if (!rc && scen) {
        if (scen->type != YAML_MAPPING_NODE || scen->data.mapping.pairs.start ==
                                                   scen->data.mapping.pairs.top)
            rc = yl_fail(&L, scen, "scenarios: expected a mapping of scenario "
                         "names to their overrides");
        for (yaml_node_pair_t *q = rc ? NULL : scen->data.mapping.pairs.start;
             q && q < scen->data.mapping.pairs.top && !rc; q++) {
            const yaml_node_t *k, *v;
            const char *name;
            if ((rc = yl_pair(&L, scen, q, &k, &v, &name)))
                break;
            if (!*name) {
                rc = yl_fail(&L, k, "scenarios: an empty name");
                break;
            }
            memset(&own, 0, sizeof own);
            const yaml_node_t *dummy = NULL;
            if (!is_null(v))
                rc = parse_level(s, &L, v, false, &own, &dummy);
            if (!rc)
                add_scenario(s, name, k, &top, &own, builtin);
            level_free(&own);
        }
    } else if (!rc) {
        add_scenario(s, "default", root, &top, NULL, builtin);
    }
    if (!rc)
        rc = expand(s, &L, scen != NULL);
    level_free(&top);
    yl_close(&L);
    return rc;
}

void swp_spec_free(struct swp_spec *s)
{
    for (int k = 0; k < SWP_NAXES; k++) {
        for (uint32_t i = 0; i < s->nitems[k]; i++) {
            struct swp_item *it = &s->items[k][i];
            free(it->text);
            free(it->path);
            for (uint32_t a = 0; a < it->nargs; a++)
                free(it->args[a]);
            free(it->args);
            if (it->loaded && k == SWP_TRACE)
                trc_free(&it->tr);
            if (it->loaded && k == SWP_CLUSTER)
                clu_free(&it->clu);
            if (it->models) {
                mdl_spec_free(it->models);
                free(it->models);
            }
            if (it->diag) {
                dl_diag_free(it->diag);
                free(it->diag);
            }
            gen_free(it->gen);
        }
        free(s->items[k]);
        free(s->hidx[k]);
    }
    for (uint32_t c = 0; c < s->nsc; c++) {
        free(s->sc[c].name);
        for (int k = 0; k < SWP_NAXES; k++)
            free(s->sc[c].v[k]);
    }
    free(s->sc);
    free(s->runs);
    free(s->file);
    free(s->dir);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ validation */

/* Prints the underlying error, then fails at the item's place in the spec. */
static int fail_at(struct swp_spec *s, const struct swp_item *it, FILE *msgs,
                   const struct dl_error *sub, struct dl_error *err,
                   const char *what)
{
    if (msgs && sub)
        dl_error_print(sub, msgs);
    return dl_fail(err, s->file, it->line, it->col, "%s '%s': %s", what, it->text,
                   sub ? "cannot be used (see above)" : "invalid");
}

static int check_policy(struct swp_spec *s, struct swp_item *it, struct dl_error *err)
{
    struct dl_error sub = { 0 };
    const struct policy *p;
    struct pol_args a;
    struct cluster c;
    clu_builtin_demo(&c);       /* options do not depend on the cluster */
    int rc = pol_parse(it->text, &p, &a, &sub) ||
             eng_check_policy(p, &a, &c, &sub);
    clu_free(&c);
    if (rc)
        return dl_fail(err, s->file, it->line, it->col, "policies: %s", sub.msg);
    return 0;
}

/* The workload of generated trace ti for seed on cluster c at load
 * (gen draws at that load; like draws its own arrivals, which the run
 * rescales).  0 or DL_EINPUT. */
static int gen_trace(const struct swp_item *ti, const struct cluster *c,
                     double load, uint64_t seed, struct trace *t,
                     struct dl_error *err)
{
    const struct swp_gen *g = ti->gen;
    if (g->like) {
        struct trc_like_opts lo = g->lo;
        lo.seed = seed;
        return trc_generate_like(&lo, &g->wl, t, err);
    }
    struct trc_gen_opts o = g->o;
    o.load = load;
    o.seed = seed;
    return trc_generate(&o, c, t, err);
}

/* A file name part for a cluster: its file name without directories and
 * extensions (demo-256 for the built-in one), sanitized. */
static void cluster_base(char *out, size_t n, const struct swp_item *ci)
{
    trace_base(out, n, ci->text);
}

void swp_gen_path(const struct swp_spec *s, uint32_t i, char *buf, size_t n)
{
    const struct swp_run *r = &s->runs[i];
    const struct swp_item *ti = &s->items[SWP_TRACE][r->ax[SWP_TRACE]];
    const char *seed = s->items[SWP_SEED][r->ax[SWP_SEED]].text;
    char name[64];
    sanitize(name, sizeof name, ti->gen->name);
    if (ti->gen->like) {
        snprintf(buf, n, "%s/traces/%s-s%s.csv.gz", s->outdir, name, seed);
        return;
    }
    char cb[64], load[40];
    cluster_base(cb, sizeof cb, &s->items[SWP_CLUSTER][r->ax[SWP_CLUSTER]]);
    sanitize(load, sizeof load, s->items[SWP_LOAD][r->ax[SWP_LOAD]].text);
    snprintf(buf, n, "%s/traces/%s-%s-l%s-s%s.csv.gz", s->outdir, name, cb, load,
             seed);
}

/* Generated traces: distinct names (their files would mix), a load on
 * every run (a generated trace has no arrivals of its own), and one trial
 * workload per (trace, cluster, load) at the scenario's first seed, which
 * checks the options against the cluster, the offered load and the
 * timeseries size as for a trace file. */
static int check_gen(struct swp_spec *s, FILE *msgs, struct dl_error *err)
{
    bool any = false;
    for (uint32_t i = 0; i < s->nitems[SWP_TRACE]; i++) {
        const struct swp_item *a = &s->items[SWP_TRACE][i];
        if (!a->gen)
            continue;
        any = true;
        for (uint32_t j = 0; j < i; j++) {
            const struct swp_item *b = &s->items[SWP_TRACE][j];
            if (b->gen && !strcmp(a->gen->name, b->gen->name))
                return dl_fail(err, s->file, a->line, a->col, "generated traces "
                               "'%s' and '%s' (line %ld) have one name '%s': give "
                               "each a name: of its own", a->text, b->text,
                               b->line, a->gen->name);
        }
    }
    for (uint32_t i = 0; any && i < s->nitems[SWP_CLUSTER]; i++)
        for (uint32_t j = 0; j < i; j++) {
            char x[64], y[64];
            cluster_base(x, sizeof x, &s->items[SWP_CLUSTER][i]);
            cluster_base(y, sizeof y, &s->items[SWP_CLUSTER][j]);
            if (!strcmp(x, y))
                return dl_fail(err, s->file, s->items[SWP_CLUSTER][i].line,
                               s->items[SWP_CLUSTER][i].col, "clusters '%s' and "
                               "'%s' have one file name, which the files of "
                               "generated traces cannot tell apart; rename one",
                               s->items[SWP_CLUSTER][i].text,
                               s->items[SWP_CLUSTER][j].text);
        }
    for (uint32_t c = 0; c < s->nsc; c++) {
        const struct swp_scenario *sc = &s->sc[c];
        uint64_t seed = s->items[SWP_SEED][sc->v[SWP_SEED][0]].seed;
        for (uint32_t t = 0; t < sc->n[SWP_TRACE]; t++) {
            const struct swp_item *ti = &s->items[SWP_TRACE][sc->v[SWP_TRACE][t]];
            if (!ti->gen)
                continue;
            for (uint32_t l = 0; l < sc->n[SWP_LOAD]; l++)
                if (!(s->items[SWP_LOAD][sc->v[SWP_LOAD][l]].load > 0))
                    return dl_fail(err, s->file, ti->line, ti->col, "scenario "
                                   "'%s': generated trace '%s' needs a load, but "
                                   "loads holds null (the trace's own arrivals, "
                                   "which a generated trace does not have)",
                                   sc->name, ti->text);
            struct trace tr = { 0 };
            bool have = false;
            for (uint32_t k = 0; k < sc->n[SWP_CLUSTER]; k++) {
                const struct swp_item *ci =
                    &s->items[SWP_CLUSTER][sc->v[SWP_CLUSTER][k]];
                for (uint32_t l = 0; l < sc->n[SWP_LOAD]; l++) {
                    double load = s->items[SWP_LOAD][sc->v[SWP_LOAD][l]].load;
                    struct dl_error sub = { 0 };
                    if (!ti->gen->like || !have) {
                        if (have)
                            trc_free(&tr);
                        have = false;
                        if (gen_trace(ti, &ci->clu, load, seed, &tr, &sub)) {
                            if (msgs)
                                fprintf(msgs, "dlsim sweep: generating '%s' on "
                                        "cluster '%s' at load %g, seed %llu: %s\n",
                                        ti->text, ci->text, load,
                                        (unsigned long long)seed, sub.msg);
                            return dl_fail(err, s->file, ti->line, ti->col,
                                           "trace '%s': cannot be generated "
                                           "(see above)", ti->text);
                        }
                        have = true;
                    }
                    double off = trc_offered_load(&tr, &ci->clu);
                    simtime_t span = tr.jobs[tr.njobs - 1].submit - tr.jobs[0].submit;
                    int rc = 0;
                    if (!(off > 0) || !isfinite(off))
                        rc = dl_fail(err, s->file, ti->line, ti->col, "scenario "
                                     "'%s': generated trace '%s' has no defined "
                                     "offered load on cluster '%s' (one job?)",
                                     sc->name, ti->text, ci->text);
                    else if (sc->sample > 0 && (double)span * off / load /
                                                   (double)sc->sample >= ENG_MAX_TS_ROWS)
                        rc = dl_fail(err, s->file, ti->line, ti->col, "scenario "
                                     "'%s': sample is too small for trace '%s' "
                                     "(over 4,000,000 timeseries rows)", sc->name,
                                     ti->text);
                    if (rc) {
                        trc_free(&tr);
                        return rc;
                    }
                }
            }
            if (have)
                trc_free(&tr);
        }
    }
    return 0;
}

int swp_gen_write(struct swp_spec *s, const uint32_t *todo, uint32_t n,
                  FILE *msgs, bool quiet)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/traces", s->outdir);
    bool made = false;
    uint32_t wrote = 0;
    for (uint32_t k = 0; k < n; k++) {
        const struct swp_run *r = &s->runs[todo[k]];
        const struct swp_item *ti = &s->items[SWP_TRACE][r->ax[SWP_TRACE]];
        if (!ti->gen)
            continue;
        char path[4200];
        swp_gen_path(s, todo[k], path, sizeof path);
        struct stat st;
        if (!stat(path, &st))
            continue;           /* written before (atomically: whole) */
        if (!made && out_mkdirs(dir)) {
            fprintf(msgs, "dlsim sweep: %s: cannot create: %s\n", dir,
                    strerror(errno));
            return DL_EIO;
        }
        made = true;
        struct trace t;
        struct dl_error err = { 0 };
        const struct swp_item *ci = &s->items[SWP_CLUSTER][r->ax[SWP_CLUSTER]];
        const struct swp_item *si = &s->items[SWP_SEED][r->ax[SWP_SEED]];
        int rc = gen_trace(ti, &ci->clu, s->items[SWP_LOAD][r->ax[SWP_LOAD]].load,
                           si->seed, &t, &err);
        if (rc) {
            fprintf(msgs, "dlsim sweep: %s:%ld:%ld: generating trace '%s' "
                    "(seed %s): %s\n", s->file, ti->line, ti->col, ti->text,
                    si->text, err.msg);
            return rc;
        }
        rc = trc_write(&t, path, &err);
        trc_free(&t);
        if (rc) {
            dl_error_print(&err, msgs);
            return rc;
        }
        wrote++;
    }
    if (wrote && !quiet)
        fprintf(msgs, "dlsim sweep: generated %u trace%s into %s\n", wrote,
                wrote == 1 ? "" : "s", dir);
    return 0;
}

/* Item it's own warning context (its loading's warnings, kept for every
 * run of it), set as the readers' (dl_in_set_diag); returns the one it
 * replaced, to put back when it is loaded. */
static struct dl_diag *item_diag(struct swp_item *it, FILE *msgs)
{
    it->diag = xmalloc(sizeof *it->diag);
    dl_diag_init(it->diag, msgs, false);
    return dl_in_set_diag(it->diag);
}

int swp_validate(struct swp_spec *s, FILE *msgs, struct dl_error *err)
{
    struct dl_error sub;
    int rc = 0;
    for (uint32_t i = 0; i < s->nitems[SWP_POLICY] && !rc; i++)
        rc = check_policy(s, &s->items[SWP_POLICY][i], err);
    for (uint32_t i = 0; i < s->nitems[SWP_MODELS] && !rc; i++) {
        struct swp_item *it = &s->items[SWP_MODELS][i];
        if (!it->nargs)
            continue;
        memset(&sub, 0, sizeof sub);
        it->models = xcalloc(1, sizeof *it->models);
        mdl_spec_init(it->models);
        /* the readers' warnings (a gzip file's trailing bytes) are kept
         * for every run of it, as a trace's are */
        struct dl_diag *prev = item_diag(it, msgs);
        for (uint32_t a = 0; a < it->nargs && !rc; a++)
            rc = mdl_spec_add(it->models, it->args[a], &sub);
        if (!rc)
            rc = mdl_spec_finish(it->models, &sub);
        dl_in_set_diag(prev);
        if (rc)
            rc = fail_at(s, it, msgs, &sub, err, "models");
    }
    for (uint32_t i = 0; i < s->nitems[SWP_CLUSTER] && !rc; i++) {
        struct swp_item *it = &s->items[SWP_CLUSTER][i];
        memset(&sub, 0, sizeof sub);
        struct dl_diag *prev = item_diag(it, msgs);
        int lr = it->path ? cfg_load_cluster(it->path, &it->clu, &sub) : 0;
        dl_in_set_diag(prev);
        if (!it->path)
            clu_builtin_demo(&it->clu);
        else if (lr) {
            rc = fail_at(s, it, msgs, &sub, err, "cluster");
            break;
        }
        it->loaded = true;
    }
    for (uint32_t i = 0; i < s->nitems[SWP_TRACE] && !rc; i++) {
        struct swp_item *it = &s->items[SWP_TRACE][i];
        memset(&sub, 0, sizeof sub);
        if (it->gen) {
            struct swp_gen *g = it->gen;
            if (g->like && trc_wl_load(g->wl_path, &g->wl, &sub))
                rc = fail_at(s, it, msgs, &sub, err, "trace");
            g->wl_loaded = g->like && !rc;
            continue;
        }
        struct dl_diag *prev = item_diag(it, msgs);
        int lr = trc_load(it->path, &it->tr, &sub, it->diag);
        dl_in_set_diag(prev);
        if (lr) {
            rc = fail_at(s, it, msgs, &sub, err, "trace");
            break;
        }
        it->loaded = true;
    }
    /* a strict scenario cannot run an input that warned: every run of it
     * would fail the same way, so that is bad input now */
    static const int warned_axes[] = { SWP_TRACE, SWP_CLUSTER, SWP_MODELS };
    static const char *const warned_name[] = { "trace", "cluster", "models" };
    for (uint32_t c = 0; c < s->nsc && !rc; c++)
        for (size_t a = 0; a < sizeof warned_axes / sizeof *warned_axes && !rc &&
                           s->sc[c].strict; a++) {
            int k = warned_axes[a];
            for (uint32_t t = 0; t < s->sc[c].n[k] && !rc; t++) {
                const struct swp_item *ti = &s->items[k][s->sc[c].v[k][t]];
                if (ti->diag && ti->diag->n)
                    rc = dl_fail(err, s->file, ti->line, ti->col, "scenario '%s' "
                                 "is strict: %s '%s' gave %u warning%s (above)",
                                 s->sc[c].name, warned_name[a], ti->text,
                                 ti->diag->n, DL_PLURAL(ti->diag->n));
            }
        }
    if (!rc)
        rc = check_gen(s, msgs, err);
    /* every (trace, cluster) a scenario rescales has a defined offered
     * load; every trace's span fits the scenario's sample interval */
    for (uint32_t c = 0; c < s->nsc && !rc; c++) {
        const struct swp_scenario *sc = &s->sc[c];
        for (uint32_t t = 0; t < sc->n[SWP_TRACE] && !rc; t++) {
            struct swp_item *ti = &s->items[SWP_TRACE][sc->v[SWP_TRACE][t]];
            if (ti->gen)
                continue;       /* check_gen */
            const struct trace *tr = &ti->tr;
            simtime_t span = tr->njobs ? tr->jobs[tr->njobs - 1].submit -
                                         tr->jobs[0].submit : 0;
            for (uint32_t k = 0; k < sc->n[SWP_CLUSTER] && !rc; k++) {
                const struct swp_item *ci = &s->items[SWP_CLUSTER][sc->v[SWP_CLUSTER][k]];
                double off = NAN;
                for (uint32_t l = 0; l < sc->n[SWP_LOAD] && !rc; l++) {
                    double target = s->items[SWP_LOAD][sc->v[SWP_LOAD][l]].load;
                    double scaled = (double)span;
                    if (target > 0) {
                        if (isnan(off))
                            off = trc_offered_load(tr, &ci->clu);
                        if (!(off > 0) || !isfinite(off)) {
                            rc = dl_fail(err, s->file, ti->line, ti->col,
                                         "scenario '%s': trace '%s' has no "
                                         "defined offered load on cluster '%s' "
                                         "(one submit time, or no capacity), so "
                                         "loads cannot rescale it", sc->name,
                                         ti->text, ci->text);
                            break;
                        }
                        scaled = (double)span * off / target;
                    }
                    if (sc->sample > 0 &&
                        scaled / (double)sc->sample >= ENG_MAX_TS_ROWS)
                        rc = dl_fail(err, s->file, ti->line, ti->col,
                                     "scenario '%s': sample is too small for "
                                     "trace '%s' (over 4,000,000 timeseries "
                                     "rows)", sc->name, ti->text);
                }
            }
        }
    }
    return rc;
}

void swp_coords(const struct swp_spec *s, uint32_t i, const char *f[SWP_NCOORD])
{
    const struct swp_run *r = &s->runs[i];
    f[0] = r->id;
    f[1] = s->sc[r->sc].name;
    for (int k = 0; k < SWP_NAXES; k++)
        f[2 + k] = s->items[k][r->ax[k]].text;
    /* never an empty cell: pandas' groupby drops rows whose key is NaN */
    for (int k = SWP_MODELS; k <= SWP_LOAD; k++)
        if (!*f[2 + k])
            f[2 + k] = "none";
}

/* The `dlsim run` command line equivalent to run i (without --out),
 * shell-quoted; malloc'd.  Paths are the ones the run reads, as the
 * sweep resolved them; --sample and --seed are always given. */
static char *run_command(const struct swp_spec *s, uint32_t i)
{
    const struct swp_run *r = &s->runs[i];
    const struct swp_scenario *sc = &s->sc[r->sc];
    const struct swp_item *ti = &s->items[SWP_TRACE][r->ax[SWP_TRACE]];
    const struct swp_item *ci = &s->items[SWP_CLUSTER][r->ax[SWP_CLUSTER]];
    const struct swp_item *mi = &s->items[SWP_MODELS][r->ax[SWP_MODELS]];
    const struct swp_item *li = &s->items[SWP_LOAD][r->ax[SWP_LOAD]];
    char sample[40];
    sim_fmt_seconds(sample, sizeof sample, sc->sample);
    const char **av = xcalloc(16 + 2 * (size_t)mi->nargs, sizeof *av);
    int n = 0;
    char gpath[4200];
    if (ti->gen)
        swp_gen_path(s, i, gpath, sizeof gpath);
    av[n++] = "run";
    av[n++] = "--trace";
    av[n++] = ti->gen ? gpath : ti->path;
    if (ci->path) {
        av[n++] = "--cluster";
        av[n++] = ci->path;
    }
    av[n++] = "--policy";
    av[n++] = s->items[SWP_POLICY][r->ax[SWP_POLICY]].text;
    for (uint32_t k = 0; k < mi->nargs; k++) {
        av[n++] = "--models";
        av[n++] = mi->args[k];
    }
    if (li->load > 0) {
        av[n++] = "--load";
        av[n++] = li->text;
    }
    av[n++] = "--seed";
    av[n++] = s->items[SWP_SEED][r->ax[SWP_SEED]].text;
    av[n++] = "--sample";
    av[n++] = sample;
    if (sc->check)
        av[n++] = "--check";
    if (sc->strict)
        av[n++] = "--strict";
    char *cmd = out_command_line(n, (char **)av);
    free(av);
    return cmd;
}

/* sim_run of a run's policy text: its exit status (0; 2 bad input; 1 a
 * failed run or output, *io when that was the outputs' I/O), the message
 * on stderr. */
static int run_parsed(const struct trace *t, struct cluster *c,
                      const struct eng_opts *o, const struct out_prov *pv,
                      const char *dir, bool *io)
{
    struct dl_error err = { 0 };
    struct eng_opts oo = *o;
    struct pol_args args;
    struct sim_result r;
    int rc = pol_parse(o->policy, &oo.pol, &args, &err);
    if (!rc) {
        oo.args = &args;
        rc = sim_run(t, c, &oo, pv, dir, &r, &err);
    }
    if (!rc)
        return 0;
    dl_error_print(&err, stderr);
    *io = rc == DL_EIO;
    return dl_exit_status(rc);
}

int swp_exec(struct swp_spec *s, uint32_t i, const char *tmpdir)
{
    const struct swp_run *r = &s->runs[i];
    const struct swp_scenario *sc = &s->sc[r->sc];
    struct swp_item *ti = &s->items[SWP_TRACE][r->ax[SWP_TRACE]];
    struct swp_item *ci = &s->items[SWP_CLUSTER][r->ax[SWP_CLUSTER]];
    const struct swp_item *li = &s->items[SWP_LOAD][r->ax[SWP_LOAD]];
    struct dl_error err = { 0 };
    struct dl_diag diag;
    dl_diag_init(&diag, stderr, sc->strict);
    /* the warnings of loading the trace, the cluster and the models,
     * which the parent did once */
    const struct swp_item *from[] = { ti, ci,
                                      &s->items[SWP_MODELS][r->ax[SWP_MODELS]] };
    for (size_t f = 0; f < sizeof from / sizeof *from; f++) {
        const struct dl_diag *d = from[f]->diag;
        if (!d)
            continue;
        for (uint32_t k = 0; k < d->nkept; k++)
            dl_warn(&diag, "%s", d->kept[k]);
        diag.n += d->n - d->nkept;
    }
    /* this process is a forked child: its copy of the trace is its own;
     * a generated workload is read from the file the parent wrote */
    struct trace *tr = &ti->tr, own;
    char gpath[4200];
    const char *tpath = ti->path;
    if (ti->gen) {
        swp_gen_path(s, i, gpath, sizeof gpath);
        tpath = gpath;
        int lr = trc_load(gpath, &own, &err, &diag);
        if (lr) {
            dl_error_print(&err, stderr);
            dl_diag_free(&diag);
            return lr == DL_EIO ? SWP_EXIT_RETRY : 2;
        }
        tr = &own;
    }
    double k;
    if (li->load > 0 && eng_scale_load(tr, &ci->clu,
                                       s->items[SWP_MODELS][r->ax[SWP_MODELS]].models,
                                       li->load, &k, &err)) {
        dl_error_print(&err, stderr);
        dl_diag_free(&diag);
        if (tr == &own)
            trc_free(&own);
        return 2;
    }
    struct eng_opts o = {
        .policy = s->items[SWP_POLICY][r->ax[SWP_POLICY]].text,
        .seed = s->items[SWP_SEED][r->ax[SWP_SEED]].seed,
        .check = sc->check,
        .sample = sc->sample,
        .models = s->items[SWP_MODELS][r->ax[SWP_MODELS]].models,
        .diag = &diag,
    };
    char *command = run_command(s, i);
    struct out_prov pv = { .command = command, .models = o.models,
                           .load = li->load, .strict = sc->strict,
                           .diag = &diag };
    int rc = out_prov_files(&pv, tpath, ci->path, &err);
    bool io = false;
    if (rc) {                   /* the input files went unreadable */
        dl_error_print(&err, stderr);
        rc = SWP_EXIT_RETRY;
    } else {
        struct dl_diag *prev = dl_in_set_diag(&diag);    /* a quota file */
        rc = run_parsed(tr, &ci->clu, &o, &pv, tmpdir, &io);
        dl_in_set_diag(prev);
        if (rc && io)
            rc = SWP_EXIT_RETRY;
    }
    if (tr == &own)
        trc_free(&own);
    free(command);
    dl_diag_free(&diag);
    return rc;
}
