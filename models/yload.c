/*
 * models/yload.c - reading the YAML model files (yl_): one parse of a whole
 * file into a libyaml document, located error messages (file:line:col),
 * typed scalars.  Shared by every model-file reader in models/.
 */
#include "models/mdlint.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int yl_open(struct yload *L, const char *path, struct dl_error *err)
{
    memset(L, 0, sizeof *L);
    L->file = path;
    L->err = err;
    FILE *f = fopen(path, "rb");
    if (!f)
        return dl_fail_io(err, path, "cannot open: %s", strerror(errno));
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        fprintf(stderr, "dlsim: out of memory in the YAML parser\n");
        abort();
    }
    yaml_parser_set_input_file(&parser, f);
    int rc = 0;
    if (!yaml_parser_load(&parser, &L->doc))
        rc = dl_fail(err, path, (long)parser.problem_mark.line + 1,
                     (long)parser.problem_mark.column + 1, "YAML: %s",
                     parser.problem ? parser.problem : "syntax error");
    else
        L->loaded = true;
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
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
    if (!*key)
        return yl_fail(L, *k, "expected a key");
    /* YAML allows a repeated key; a model file must not, since one of the
     * values would be lost silently */
    for (const yaml_node_pair_t *e = n->data.mapping.pairs.start; e < q; e++) {
        const char *other = yl_scalar(yl_node(L, e->key));
        if (other && !strcmp(other, *key))
            return yl_fail(L, *k, "key '%s' repeated", *key);
    }
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
