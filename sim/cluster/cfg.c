/*
 * sim/cluster/cfg.c - the cluster file (SPEC section 3) -> struct cluster (prefix
 * cfg_).
 *
 *   name: philly-vc-64          # optional; default: file name sans extension
 *   reference_gpu: V100         # optional; default: the first GPU type
 *   gpu_types:                  # required, non-empty list
 *     - {name: V100, memory_gb: 32, speed: 1.0}   # speed optional, 1.0
 *   nodes:                      # required, non-empty list
 *     - {count: 8, gpus: 8, gpu_type: V100, rack: r0}  # count 1, rack none
 *
 * How: libyaml's document API loads the whole file into a node tree (every
 * node carries its 0-based start mark), then three passes run over it:
 *
 *   1. shape   walk the top-level mapping in document order; reject unknown
 *              and repeated keys, wrong kinds (a list where a scalar goes),
 *              bad numbers and impossible values; copy what is valid into
 *              two small staging arrays (struct stype, struct snodes) that
 *              point into the document's strings;
 *   2. refs    resolve nodes[].gpu_type and reference_gpu by name, bound
 *              the total GPU count, and check that every speed divided by
 *              the reference speed is still a finite positive number;
 *   3. build   clu_init, clu_add_type, clu_add_nodes, clu_finish.
 *
 * Keys may come in any order, so nothing is built until all input is known
 * to be good.  The build pass therefore cannot fail, and on any error *c is
 * simply left zeroed: there is no half-built cluster to unwind.
 *
 * Every error is DL_EINPUT through dl_fail with the 1-based line and column
 * of the offending YAML node (a key for unknown/duplicate keys, the value
 * for a bad value, the enclosing mapping for a missing key) and a message
 * naming the key path and the bad value, e.g.
 *   c.yaml:7:16: gpu_types[1].memory_gb: expected a number > 0, got '-3'
 *
 * Typing is strict and does not follow YAML 1.1's implicit resolution: a
 * number must be a plain (unquoted) scalar that sim_parse_double or
 * sim_parse_long accepts whole; a string is any non-empty scalar without
 * NUL bytes; "", "~" and "null" as plain scalars are "no value" and are an
 * error wherever they appear.  Anchors and aliases work (the tree is
 * walked to a fixed depth, so a self-referencing alias cannot loop); merge
 * keys ("<<") are not supported and read as an unknown key.
 *
 * Limits (docs/validation.md, Reliability): the file at most CFG_MAX_BYTES, lines at
 * most DL_MAX_LINE bytes, nesting at most DL_YAML_MAX_DEPTH (dl_yaml_load);
 * memory_gb in (0, DL_MAX_MEM_GB] and speed in [CFG_MIN_SPEED,
 * CFG_MAX_SPEED].  GPU type names are unique ignoring case: "V100" and
 * "v100" in one file are an error, not two types (the second would
 * otherwise silently take the zoo's V100 figures, whose names match
 * without regard to case).  Names are looked up through a hash index,
 * so a file of 100,000 types loads in linear time.
 *
 * CFG_MAX_GPUS bounds the total GPU count: 2^24 (16.7 million, some
 * hundred times the largest real cluster) unless the build defines it.
 * struct cluster could index up to 2^32 - 2, but a file asking for that
 * is a typo, and a located error beats an out-of-memory abort minutes into
 * building a 100 GB cluster.  A fuzzing build defines it smaller still, so
 * that each input is cheap.  Within the bound, allocation failure aborts
 * (STYLE 9).
 */
#include "sim/cluster/cluster.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* A cluster file of 2^24 GPUs in groups of identical nodes is a few MB;
 * 64 MiB is room for a machine list imported with one rack per node. */
#define CFG_MAX_BYTES ((size_t)64 << 20)
/* Relative speeds span about 100 between a K80 and an H200; these bounds
 * only keep a typo (1e300) from overflowing work rates. */
#define CFG_MIN_SPEED 1e-6
#define CFG_MAX_SPEED 1e6

/* CFG_MAX_GPUS (sim/sim.h) must stay below SIM_NONE (clu_finish asserts
 * it). */
_Static_assert(CFG_MAX_GPUS >= 1 && CFG_MAX_GPUS < UINT32_MAX,
               "CFG_MAX_GPUS must leave SIM_NONE free");

/* A GPU type as read, before the cluster exists.  Strings point into the
 * yaml document and live as long as it does. */
struct stype {
    const char *name;
    double memory_gb;
    double speed;                 /* as written; 1.0 when absent */
    const yaml_node_t *name_node; /* for duplicate-name messages */
    const yaml_node_t *speed_node; /* NULL when absent */
    const yaml_node_t *at;        /* the entry's mapping */
};

/* One entry of the nodes list. */
struct snodes {
    uint32_t count;
    uint32_t gpus;
    const char *gpu_type;
    const char *rack;             /* NULL when absent */
    uint32_t type;                /* resolved in pass 2 */
    const yaml_node_t *type_node;
    const yaml_node_t *at;
};

struct load {
    const char *file;             /* for messages */
    struct dl_error *err;
    yaml_document_t *doc;
    const char *name;             /* top-level name, NULL when absent */
    const char *ref;              /* reference_gpu, NULL when absent */
    const yaml_node_t *ref_node;
    struct stype *types;
    size_t ntypes, cap_types;
    struct snodes *nodes;
    size_t nnodes, cap_nodes;
    struct dl_names type_ix;      /* types by name, ignoring case */
};

/* ------------------------------------------------------------ messages */

enum { SHOW_MAX = 40 };

/* A short printable rendering of a node for messages: 'text' (escaped,
 * truncated with "..."), "an empty value", "a list" or "a mapping".  len
 * must be at least 16. */
static const char *show(const yaml_node_t *n, char *buf, size_t len)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    if (n->type != YAML_SCALAR_NODE)
        return "nothing";
    const unsigned char *s = n->data.scalar.value;
    size_t sl = n->data.scalar.length;
    if (sl == 0)
        return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE
                   ? "an empty value" : "an empty string";
    size_t o = 0;
    buf[o++] = '\'';
    for (size_t i = 0; i < sl; i++) {
        if (i == SHOW_MAX || o + 8 >= len) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        unsigned char ch = s[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '\\')
            buf[o++] = (char)ch;
        else
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", ch);
    }
    buf[o++] = '\'';
    buf[o] = 0;
    return buf;
}

/* Fails with the location of node n (1-based), or 1:1 when n is NULL. */
static int fail(struct load *L, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct load *L, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[sizeof L->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    long line = n ? (long)n->start_mark.line + 1 : 1;
    long col = n ? (long)n->start_mark.column + 1 : 1;
    return dl_fail(L->err, L->file, line, col, "%s", msg);
}

/* ------------------------------------------------------------- scalars */

static const yaml_node_t *node_at(struct load *L, int index)
{
    const yaml_node_t *n = yaml_document_get_node(L->doc, index);
    DL_ASSERT(n);                 /* the loader only makes valid indices */
    return n;
}

static bool is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE ||
        n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = (const char *)n->data.scalar.value;
    return !strcmp(s, "") || !strcmp(s, "~") || !strcmp(s, "null") ||
           !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static int get_string(struct load *L, const yaml_node_t *n, const char *what,
                      const char **out)
{
    char vb[64];
    if (n->type != YAML_SCALAR_NODE || is_null(n) || !n->data.scalar.length)
        return fail(L, n, "%s: expected a non-empty string, got %s", what,
                    show(n, vb, sizeof vb));
    if (memchr(n->data.scalar.value, 0, n->data.scalar.length))
        return fail(L, n, "%s: %s contains a NUL byte", what,
                    show(n, vb, sizeof vb));
    *out = (const char *)n->data.scalar.value;
    return 0;
}

/* A plain scalar, the text of a number, or an error naming what. */
static int number_text(struct load *L, const yaml_node_t *n, const char *what,
                       const char *kind, const char **out)
{
    char vb[64];
    if (n->type != YAML_SCALAR_NODE || is_null(n) ||
        n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        memchr(n->data.scalar.value, 0, n->data.scalar.length))
        return fail(L, n, "%s: expected %s, got %s%s", what, kind,
                    show(n, vb, sizeof vb),
                    n->type == YAML_SCALAR_NODE && !is_null(n) &&
                            n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE
                        ? " (a quoted string)" : "");
    *out = (const char *)n->data.scalar.value;
    return 0;
}

/* A finite number in (lo, hi] (lo_open) or [lo, hi]. */
static int get_number(struct load *L, const yaml_node_t *n,
                      const char *what, double lo, double hi, bool lo_open,
                      double *out)
{
    char vb[64];
    const char *s = NULL;     /* set by number_text on success */
    double v;
    if (number_text(L, n, what, "a number > 0", &s))
        return DL_EINPUT;
    if (sim_parse_double(s, &v))
        return fail(L, n, "%s: expected a number > 0, got %s", what,
                    show(n, vb, sizeof vb));
    if (!(v > 0))
        return fail(L, n, "%s: must be > 0, got %s", what,
                    show(n, vb, sizeof vb));
    if (v > hi || v < lo || (lo_open && v == lo))
        return fail(L, n, "%s: must be in %s%g, %g], got %s", what,
                    lo_open ? "(" : "[", lo, hi, show(n, vb, sizeof vb));
    *out = v;
    return 0;
}

/* An integer in lo..hi. */
static int get_int(struct load *L, const yaml_node_t *n, const char *what,
                   long lo, long hi, uint32_t *out)
{
    char vb[64];
    const char *s = NULL;     /* set by number_text on success */
    long v;
    if (number_text(L, n, what, "an integer", &s))
        return DL_EINPUT;
    if (sim_parse_long(s, &v)) {
        const char *digits = s + (*s == '+' || *s == '-');
        if (!*digits || strspn(digits, "0123456789") != strlen(digits))
            return fail(L, n, "%s: expected an integer, got %s", what,
                        show(n, vb, sizeof vb));
        v = *s == '-' ? LONG_MIN : LONG_MAX;   /* out of long's range */
    }
    if (v < lo || v > hi)
        return fail(L, n, "%s: must be between %ld and %ld, got %s", what, lo,
                    hi, show(n, vb, sizeof vb));
    *out = (uint32_t)v;
    return 0;
}

/* ------------------------------------------------------------ mappings */

/* Looks the key of pair p up in keys[0..nkeys).  Returns its index, or -1
 * after failing on a non-scalar, unknown or repeated key.  seen is a bit
 * set of the keys met so far in this mapping; *value gets the value. */
static int key_of(struct load *L, const yaml_node_pair_t *p,
                  const char *const *keys, int nkeys, const char *where,
                  unsigned *seen, const yaml_node_t **value)
{
    char vb[64];
    const yaml_node_t *k = node_at(L, p->key);
    *value = node_at(L, p->value);
    if (k->type != YAML_SCALAR_NODE) {
        fail(L, k, "%s: expected a key name, got %s", where,
             show(k, vb, sizeof vb));
        return -1;
    }
    const char *s = (const char *)k->data.scalar.value;
    for (int i = 0; i < nkeys; i++) {
        if (strlen(keys[i]) != k->data.scalar.length || strcmp(keys[i], s))
            continue;
        if (*seen & (1u << i)) {
            fail(L, k, "%s: key '%s' given twice", where, keys[i]);
            return -1;
        }
        *seen |= 1u << i;
        return i;
    }
    char expect[128] = "";
    size_t o = 0;
    for (int i = 0; i < nkeys && o < sizeof expect; i++)
        o += (size_t)snprintf(expect + o, sizeof expect - o, "%s%s",
                              i ? ", " : "", keys[i]);
    fail(L, k, "%s: unknown key %s (expected %s)", where,
         show(k, vb, sizeof vb), expect);
    return -1;
}

static int expect_list(struct load *L, const yaml_node_t *v, const char *key,
                       const char *of, const char *one)
{
    char vb[64];
    if (v->type != YAML_SEQUENCE_NODE)
        return fail(L, v, "%s: expected a list of %s, got %s", key, of,
                    show(v, vb, sizeof vb));
    if (v->data.sequence.items.top == v->data.sequence.items.start)
        return fail(L, v, "%s: the list is empty; give at least one %s",
                    key, one);
    return 0;
}

/* ------------------------------------------------------ the name index */

static const char *stype_name(const void *L, uint32_t t)
{
    return ((const struct load *)L)->types[t].name;
}

/* The type whose name equals name ignoring case, or SIM_NONE. */
static uint32_t type_lookup(const struct load *L, const char *name)
{
    return dl_names_find(&L->type_ix, name, stype_name, L);
}

/* ---------------------------------------------------- pass 1: gpu_types */

enum { T_NAME, T_MEMORY, T_SPEED, T_NKEYS };
static const char *const type_keys[T_NKEYS] = {"name", "memory_gb", "speed"};

static int parse_type(struct load *L, const yaml_node_t *m, size_t i)
{
    char where[48], what[64], vb[64];
    snprintf(where, sizeof where, "gpu_types[%zu]", i);
    if (m->type != YAML_MAPPING_NODE)
        return fail(L, m, "%s: expected a mapping with name, memory_gb and "
                    "speed, got %s", where, show(m, vb, sizeof vb));
    struct stype t = {.speed = 1.0, .at = m};
    unsigned seen = 0;
    for (const yaml_node_pair_t *p = m->data.mapping.pairs.start;
         p < m->data.mapping.pairs.top; p++) {
        const yaml_node_t *v;
        int k = key_of(L, p, type_keys, T_NKEYS, where, &seen, &v);
        if (k < 0)
            return DL_EINPUT;
        snprintf(what, sizeof what, "%s.%s", where, type_keys[k]);
        int rc = 0;
        switch (k) {
        case T_NAME:
            rc = get_string(L, v, what, &t.name);
            t.name_node = v;
            break;
        case T_MEMORY:
            rc = get_number(L, v, what, 0, DL_MAX_MEM_GB, true, &t.memory_gb);
            break;
        case T_SPEED:
            rc = get_number(L, v, what, CFG_MIN_SPEED, CFG_MAX_SPEED, false,
                            &t.speed);
            t.speed_node = v;
            break;
        }
        if (rc)
            return rc;
    }
    if (!(seen & (1u << T_NAME)))
        return fail(L, m, "%s: missing required key 'name'", where);
    if (!(seen & (1u << T_MEMORY)))
        return fail(L, m, "%s: missing required key 'memory_gb' (GB per "
                    "GPU)", where);
    if (strlen(t.name) != t.name_node->data.scalar.length)
        return fail(L, t.name_node, "%s.name: contains a NUL byte", where);
    uint32_t j = type_lookup(L, t.name);
    if (j != SIM_NONE) {
        const struct stype *o = &L->types[j];
        long first = (long)o->name_node->start_mark.line + 1;
        if (!strcmp(o->name, t.name))
            return fail(L, t.name_node, "%s.name: duplicate GPU type %s "
                        "(first declared at line %ld)", where,
                        show(t.name_node, vb, sizeof vb), first);
        char ob[64];
        return fail(L, t.name_node, "%s.name: GPU type %s differs from %s "
                    "(line %ld) only in case; give types distinct names",
                    where, show(t.name_node, vb, sizeof vb),
                    show(o->name_node, ob, sizeof ob), first);
    }
    xgrow(&L->types, &L->cap_types, L->ntypes + 1, sizeof *L->types);
    L->types[L->ntypes] = t;
    dl_names_add(&L->type_ix, (uint32_t)L->ntypes++, stype_name, L);
    return 0;
}

/* -------------------------------------------------------- pass 1: nodes */

enum { N_COUNT, N_GPUS, N_TYPE, N_RACK, N_NKEYS };
static const char *const node_keys[N_NKEYS] = {"count", "gpus", "gpu_type",
                                               "rack"};

static int parse_nodes(struct load *L, const yaml_node_t *m, size_t i)
{
    char where[48], what[64], vb[64];
    snprintf(where, sizeof where, "nodes[%zu]", i);
    if (m->type != YAML_MAPPING_NODE)
        return fail(L, m, "%s: expected a mapping with count, gpus, gpu_type "
                    "and rack, got %s", where, show(m, vb, sizeof vb));
    struct snodes s = {.count = 1, .at = m};
    unsigned seen = 0;
    for (const yaml_node_pair_t *p = m->data.mapping.pairs.start;
         p < m->data.mapping.pairs.top; p++) {
        const yaml_node_t *v;
        int k = key_of(L, p, node_keys, N_NKEYS, where, &seen, &v);
        if (k < 0)
            return DL_EINPUT;
        snprintf(what, sizeof what, "%s.%s", where, node_keys[k]);
        int rc = 0;
        switch (k) {
        case N_COUNT:
            rc = get_int(L, v, what, 1, CFG_MAX_GPUS, &s.count);
            break;
        case N_GPUS:
            rc = get_int(L, v, what, 1, 64, &s.gpus);
            break;
        case N_TYPE:
            rc = get_string(L, v, what, &s.gpu_type);
            s.type_node = v;
            break;
        case N_RACK:
            rc = get_string(L, v, what, &s.rack);
            break;
        }
        if (rc)
            return rc;
    }
    if (!(seen & (1u << N_GPUS)))
        return fail(L, m, "%s: missing required key 'gpus' (GPUs per node, "
                    "1..64)", where);
    if (!(seen & (1u << N_TYPE)))
        return fail(L, m, "%s: missing required key 'gpu_type'", where);
    xgrow(&L->nodes, &L->cap_nodes, L->nnodes + 1, sizeof *L->nodes);
    L->nodes[L->nnodes++] = s;
    return 0;
}

/* ---------------------------------------------------- pass 1: top level */

enum { K_NAME, K_REF, K_TYPES, K_NODES, K_NKEYS };
static const char *const top_keys[K_NKEYS] = {"name", "reference_gpu",
                                              "gpu_types", "nodes"};

static int parse_top(struct load *L, const yaml_node_t *root)
{
    char vb[64];
    if (is_null(root))
        return fail(L, root, "empty cluster file: expected a mapping with "
                    "gpu_types and nodes");
    if (root->type != YAML_MAPPING_NODE)
        return fail(L, root, "expected a mapping with gpu_types and nodes at "
                    "the top level, got %s", show(root, vb, sizeof vb));
    unsigned seen = 0;
    for (const yaml_node_pair_t *p = root->data.mapping.pairs.start;
         p < root->data.mapping.pairs.top; p++) {
        const yaml_node_t *v;
        int k = key_of(L, p, top_keys, K_NKEYS, "top level", &seen, &v);
        if (k < 0)
            return DL_EINPUT;
        int rc = 0;
        switch (k) {
        case K_NAME:
            rc = get_string(L, v, "name", &L->name);
            break;
        case K_REF:
            rc = get_string(L, v, "reference_gpu", &L->ref);
            L->ref_node = v;
            break;
        case K_TYPES:
            rc = expect_list(L, v, "gpu_types", "GPU types", "GPU type");
            for (const yaml_node_item_t *it = v->data.sequence.items.start;
                 !rc && it < v->data.sequence.items.top; it++)
                rc = parse_type(L, node_at(L, *it),
                                (size_t)(it - v->data.sequence.items.start));
            break;
        case K_NODES:
            rc = expect_list(L, v, "nodes", "node groups", "node group");
            for (const yaml_node_item_t *it = v->data.sequence.items.start;
                 !rc && it < v->data.sequence.items.top; it++)
                rc = parse_nodes(L, node_at(L, *it),
                                 (size_t)(it - v->data.sequence.items.start));
            break;
        }
        if (rc)
            return rc;
    }
    if (!(seen & (1u << K_TYPES)))
        return fail(L, root, "missing required key 'gpu_types'");
    if (!(seen & (1u << K_NODES)))
        return fail(L, root, "missing required key 'nodes'");
    return 0;
}

/* --------------------------------------------------------- pass 2: refs */

/* The type named exactly name, or SIM_NONE. */
static uint32_t find_type(const struct load *L, const char *name)
{
    uint32_t t = type_lookup(L, name);
    return t != SIM_NONE && !strcmp(L->types[t].name, name) ? t : SIM_NONE;
}

static const char *declared(const struct load *L, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t t = 0; t < L->ntypes && o + 1 < len; t++) {
        if (t == 8) {
            snprintf(buf + o, len - o, ", ...");
            break;
        }
        int w = snprintf(buf + o, len - o, "%s%.*s", t ? ", " : "", SHOW_MAX,
                         L->types[t].name);
        o += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

static int resolve(struct load *L, uint32_t *ref)
{
    char vb[64], decl[384];
    *ref = 0;
    if (L->ref) {
        *ref = find_type(L, L->ref);
        if (*ref == SIM_NONE)
            return fail(L, L->ref_node, "reference_gpu: %s is not a declared "
                        "GPU type (declared: %s)",
                        show(L->ref_node, vb, sizeof vb),
                        declared(L, decl, sizeof decl));
    }
    uint64_t total = 0;
    for (size_t i = 0; i < L->nnodes; i++) {
        struct snodes *s = &L->nodes[i];
        s->type = find_type(L, s->gpu_type);
        if (s->type == SIM_NONE)
            return fail(L, s->type_node, "nodes[%zu].gpu_type: unknown GPU "
                        "type %s (declared: %s)", i,
                        show(s->type_node, vb, sizeof vb),
                        declared(L, decl, sizeof decl));
        total += (uint64_t)s->count * s->gpus;   /* <= 2^32 * 64 each */
        if (total > CFG_MAX_GPUS)
            return fail(L, s->at, "nodes[%zu]: the cluster would have %llu "
                        "GPUs, over the limit of %llu", i,
                        (unsigned long long)total,
                        (unsigned long long)CFG_MAX_GPUS);
    }
    double rs = L->types[*ref].speed;
    for (size_t t = 0; t < L->ntypes; t++) {
        double rel = L->types[t].speed / rs;
        if (!isfinite(rel) || !(rel > 0)) {
            const yaml_node_t *at = L->types[t].speed_node
                                        ? L->types[t].speed_node
                                        : L->types[t].at;
            return fail(L, at, "gpu_types[%zu].speed: %g relative to the "
                        "reference %.*s (speed %g) is out of range", t,
                        L->types[t].speed, SHOW_MAX, L->types[*ref].name, rs);
        }
    }
    return 0;
}

/* --------------------------------------------------------------- loading */

/* "dir/philly.yaml" -> "philly" (a leading dot is not an extension). */
static void default_name(const char *file, char *buf, size_t len)
{
    const char *b = strrchr(file, '/');
    b = b ? b + 1 : file;
    const char *dot = strrchr(b, '.');
    size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
    if (n == 0) {
        b = "cluster";
        n = strlen(b);
    }
    snprintf(buf, len, "%.*s", (int)n, b);
}

static void build(struct load *L, uint32_t ref, struct cluster *c)
{
    char name[256];
    if (!L->name)
        default_name(L->file, name, sizeof name);
    clu_init(c, L->name ? L->name : name);
    c->path = arena_strndup(c->arena, L->file, strlen(L->file));
    for (size_t t = 0; t < L->ntypes; t++)
        clu_add_type(c, L->types[t].name, L->types[t].memory_gb,
                     L->types[t].speed);
    c->ref_type = ref;
    for (size_t i = 0; i < L->nnodes; i++)
        clu_add_nodes(c, L->nodes[i].count, L->nodes[i].gpus,
                      L->nodes[i].type, L->nodes[i].rack);
    clu_finish(c);
}

int cfg_load_cluster_mem(const char *name, const char *buf, size_t len,
                         struct cluster *c, struct dl_error *err)
{
    memset(c, 0, sizeof *c);
    struct load L = {.file = name ? name : "<memory>", .err = err,
                     .type_ix = {.fold = true}};
    if (len > CFG_MAX_BYTES)
        return dl_fail(err, L.file, 0, 0, "larger than %zu bytes",
                       CFG_MAX_BYTES);
    int rc = dl_text_check(L.file, buf, len, DL_MAX_LINE, err);
    yaml_document_t doc;
    if (rc || (rc = dl_yaml_load(L.file, buf, len, &doc, err)))
        return rc;
    L.doc = &doc;
    const yaml_node_t *root = yaml_document_get_root_node(&doc);
    uint32_t ref = 0;
    if (!root)
        rc = dl_fail(err, L.file, 1, 1, "empty cluster file: expected a "
                     "mapping with gpu_types and nodes");
    if (!rc)
        rc = parse_top(&L, root);
    if (!rc)
        rc = resolve(&L, &ref);
    if (!rc)
        build(&L, ref, c);
    free(L.types);
    free(L.nodes);
    dl_names_free(&L.type_ix);
    yaml_document_delete(&doc);
    return rc;
}

int cfg_load_cluster(const char *path, struct cluster *c, struct dl_error *err)
{
    memset(c, 0, sizeof *c);
    char *buf;
    size_t len;
    int rc = dl_read_file(path, CFG_MAX_BYTES, DL_MAX_LINE, &buf, &len, err);
    if (rc)
        return rc;
    rc = cfg_load_cluster_mem(path, buf, len, c, err);
    free(buf);
    return rc;
}
