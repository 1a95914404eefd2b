/*
 * sim/base/yaml.c - reading the YAML model files (yl_): one parse of a whole
 * file into a libyaml document, located error messages (file:line:col),
 * typed scalars.  Shared by every model-file reader in models/.
 */
#include "sim/base/formats.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct keyref {
    const char *s;
    size_t len;
    uint32_t pair;              /* its place in the mapping */
};

static int by_key(const void *a, const void *b)
{
    const struct keyref *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return (x->pair > y->pair) - (x->pair < y->pair);
}

/* A repeated key in any mapping of the document: YAML allows one, but a
 * model file must not, since one of the values would be lost silently.
 * One sort per mapping (a scan of the earlier keys per key was quadratic
 * in a mapping of 100,000 keys); reports the repeat that comes first in
 * the file. */
static int repeated_keys(struct yload *L)
{
    const yaml_node_t *worst = NULL;
    struct keyref *k = NULL;
    size_t cap = 0;
    for (yaml_node_t *n = L->doc.nodes.start; n < L->doc.nodes.top; n++) {
        if (n->type != YAML_MAPPING_NODE)
            continue;
        size_t m = 0;
        for (yaml_node_pair_t *q = n->data.mapping.pairs.start;
             q < n->data.mapping.pairs.top; q++) {
            const yaml_node_t *kn = yl_node(L, q->key);
            if (!kn || kn->type != YAML_SCALAR_NODE)
                continue;
            xgrow(&k, &cap, m + 1, sizeof *k);
            k[m++] = (struct keyref){ (const char *)kn->data.scalar.value,
                                      kn->data.scalar.length,
                                      (uint32_t)(q -
                                          n->data.mapping.pairs.start) };
        }
        if (m > 1)
            qsort(k, m, sizeof *k, by_key);
        for (size_t i = 1; i < m; i++) {
            if (k[i].len != k[i - 1].len || memcmp(k[i].s, k[i - 1].s,
                                                   k[i].len))
                continue;
            const yaml_node_t *kn = yl_node(L,
                n->data.mapping.pairs.start[k[i].pair].key);
            if (!worst || kn->start_mark.index < worst->start_mark.index)
                worst = kn;
        }
    }
    free(k);
    if (worst)
        return yl_fail(L, worst, "key '%.60s' repeated",
                       (const char *)worst->data.scalar.value);
    return 0;
}

int yl_open(struct yload *L, const char *path, struct dl_error *err)
{
    memset(L, 0, sizeof *L);
    L->file = path;
    L->err = err;
    char *buf;
    size_t len;
    int rc = dl_read_file(path, DL_YAML_MAX_BYTES, DL_MAX_LINE, &buf, &len, err);
    if (rc)
        return rc;
    rc = dl_yaml_load(path, buf, len, &L->doc, err);
    free(buf);
    if (rc)
        return rc;
    L->loaded = true;
    return repeated_keys(L);
}

void yl_close(struct yload *L)
{
    if (L->loaded)
        yaml_document_delete(&L->doc);
    L->loaded = false;
}

const yaml_node_t *yl_root(struct yload *L)
{
    return yaml_document_get_root_node(&L->doc);
}

const yaml_node_t *yl_node(struct yload *L, int index)
{
    return yaml_document_get_node(&L->doc, index);
}

int yl_fail(struct yload *L, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return dl_fail(L->err, L->file, n ? (long)n->start_mark.line + 1 : 1,
                   n ? (long)n->start_mark.column + 1 : 1, "%s", msg);
}

const char *yl_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
                                            : NULL;
}

bool yl_names_are(struct yload *L, const yaml_node_t *n, const char *const *names,
                  int count)
{
    if (n->type != YAML_SEQUENCE_NODE ||
        n->data.sequence.items.top - n->data.sequence.items.start != count)
        return false;
    for (int i = 0; i < count; i++) {
        const char *s = yl_scalar(yl_node(L, n->data.sequence.items.start[i]));
        if (!s || strcmp(s, names[i]))
            return false;
    }
    return true;
}

int yl_num(struct yload *L, const yaml_node_t *n, const char *key, double lo,
           double hi, bool lo_open, double *out)
{
    const char *s = yl_scalar(n);
    double v;
    if (!s || sim_parse_double(s, &v) || v < lo || v > hi ||
        (lo_open && v == lo))
        return yl_fail(L, n, "%s: expected a number in %s%g, %g]", key,
                       lo_open ? "(" : "[", lo, hi);
    *out = v;
    return 0;
}

int yl_pair(struct yload *L, const yaml_node_t *n, const yaml_node_pair_t *q,
            const yaml_node_t **k, const yaml_node_t **v, const char **key)
{
    *k = yl_node(L, q->key);
    *v = yl_node(L, q->value);
    *key = yl_scalar(*k);
    (void)n;                    /* repeats: refused by yl_open */
    if (!*key)
        return yl_fail(L, *k, "expected a key");
    return 0;
}

int yl_kind(struct yload *L, const char *kind)
{
    const yaml_node_t *root = yl_root(L);
    if (!root || root->type != YAML_MAPPING_NODE)
        return yl_fail(L, root, "expected a mapping (kind: %s, ...)", kind);
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start;
         q < root->data.mapping.pairs.top; q++) {
        const char *k = yl_scalar(yl_node(L, q->key));
        if (k && !strcmp(k, "kind")) {
            const yaml_node_t *v = yl_node(L, q->value);
            if (!yl_scalar(v) || strcmp(yl_scalar(v), kind))
                return yl_fail(L, v, "kind: expected '%s'", kind);
            return 0;
        }
    }
    return yl_fail(L, root, "kind: %s is required", kind);
}

const char *yl_peek_kind(struct yload *L)
{
    const yaml_node_t *root = yl_root(L);
    if (!root || root->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start;
         q < root->data.mapping.pairs.top; q++) {
        const char *k = yl_scalar(yl_node(L, q->key));
        if (k && !strcmp(k, "kind"))
            return yl_scalar(yl_node(L, q->value));
    }
    return NULL;
}
