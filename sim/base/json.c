/*
 * sim/base/json.c - a small, strict, bounded JSON reader (dl_json_).
 *
 * Enough JSON for the public measurement files dlsim converts (Gavel's
 * throughput tables): the whole document becomes a tree of struct dl_json
 * in one arena, each node carrying the line and column where it starts, so
 * a converter can point at the offending key or value.
 *
 * Strictness (RFC 8259, nothing more): one value and only white space after
 * it; no comments, trailing commas, single quotes, NaN or Infinity; numbers
 * without leading zeros or a bare '.', finite after conversion; strings
 * without raw control bytes (< 0x20), with the standard escapes and
 * \uXXXX (surrogate pairs joined, lone surrogates and \u0000 rejected, so
 * every string is a plain C string); no two members of an object share a
 * name.  Bytes >= 0x80 are copied through unchecked.
 *
 * Bounds: the input is at most DL_JSON_MAX_BYTES and nests at most
 * DL_JSON_MAX_DEPTH deep, so recursion depth and memory are bounded by
 * the input size; a malformed input ends in DL_EINPUT with file:line:col
 * (col = byte offset in the line, from 1), never in a crash.
 *
 * Ownership: nodes and strings live in d->arena; dl_json_free releases
 * them.  Scratch vectors used while parsing a container are malloc'd and
 * freed before the container's parse returns.
 */
#include "sim/base/formats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *name;
    const char *s;
    size_t len, pos;
    long line;
    size_t line_start;          /* offset of the current line's first byte */
    struct arena *arena;
    struct dl_error *err;
};

static long col_of(const struct parser *P, size_t pos)
{
    return (long)(pos - P->line_start) + 1;
}

static int fail_at(struct parser *P, size_t pos, const char *what)
{
    char shown[16];
    if (pos >= P->len)
        snprintf(shown, sizeof shown, "end of input");
    else if (P->s[pos] >= 0x21 && P->s[pos] < 0x7f)
        snprintf(shown, sizeof shown, "'%c'", P->s[pos]);
    else
        snprintf(shown, sizeof shown, "byte 0x%02x", (unsigned char)P->s[pos]);
    return dl_fail(P->err, P->name, P->line, col_of(P, pos), "%s (found %s)",
                   what, shown);
}

static void skip_ws(struct parser *P)
{
    while (P->pos < P->len) {
        char ch = P->s[P->pos];
        if (ch == '\n') {
            P->line++;
            P->line_start = P->pos + 1;
        } else if (ch != ' ' && ch != '\t' && ch != '\r') {
            return;
        }
        P->pos++;
    }
}

static int hex4(struct parser *P, size_t at, unsigned *out)
{
    unsigned v = 0;
    for (size_t i = 0; i < 4; i++) {
        if (at + i >= P->len)
            return fail_at(P, at + i, "expected 4 hex digits after \\u");
        char ch = P->s[at + i];
        unsigned d;
        if (ch >= '0' && ch <= '9')
            d = (unsigned)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            d = (unsigned)(ch - 'a' + 10);
        else if (ch >= 'A' && ch <= 'F')
            d = (unsigned)(ch - 'A' + 10);
        else
            return fail_at(P, at + i, "expected 4 hex digits after \\u");
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* P->pos is at the opening quote.  The decoded string is never longer than
 * its source, so one arena block of the source length suffices. */
static int parse_string(struct parser *P, const char **out, size_t *outlen)
{
    size_t start = ++P->pos, end = start;
    while (end < P->len && P->s[end] != '"') {
        if (P->s[end] == '\\')
            end++;
        end++;
    }
    if (end >= P->len)
        return fail_at(P, P->len, "unterminated string");
    char *o = arena_alloc(P->arena, end - start + 1);
    size_t k = 0;
    while (P->pos < end) {
        unsigned char ch = (unsigned char)P->s[P->pos];
        if (ch < 0x20)
            return fail_at(P, P->pos, "control character in string");
        if (ch != '\\') {
            o[k++] = (char)ch;
            P->pos++;
            continue;
        }
        char e = P->s[P->pos + 1];  /* exists: end > pos + 1 */
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *hit = e ? strchr(from, e) : NULL;
        if (hit) {
            o[k++] = to[hit - from];
            P->pos += 2;
            continue;
        }
        if (e != 'u')
            return fail_at(P, P->pos + 1, "invalid escape in string");
        unsigned cp = 0;
        if (hex4(P, P->pos + 2, &cp))
            return DL_EINPUT;
        size_t esc = P->pos;
        P->pos += 6;
        if (cp >= 0xdc00 && cp <= 0xdfff)
            return fail_at(P, esc, "lone low surrogate in \\u escape");
        if (cp >= 0xd800 && cp <= 0xdbff) {
            unsigned lo = 0;
            if (P->pos + 1 >= end || P->s[P->pos] != '\\' ||
                P->s[P->pos + 1] != 'u')
                return fail_at(P, esc, "high surrogate not followed by \\u low surrogate");
            if (hex4(P, P->pos + 2, &lo))
                return DL_EINPUT;
            if (lo < 0xdc00 || lo > 0xdfff)
                return fail_at(P, P->pos, "high surrogate not followed by a low surrogate");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            P->pos += 6;
        }
        if (cp == 0)
            return fail_at(P, esc, "\\u0000 is not allowed in strings");
        k += put_utf8(o + k, cp);
    }
    o[k] = '\0';
    P->pos = end + 1;
    *out = o;
    *outlen = k;
    return 0;
}

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static int parse_number(struct parser *P, struct dl_json *v)
{
    size_t i = P->pos;
    if (i < P->len && P->s[i] == '-')
        i++;
    if (i >= P->len || !is_digit(P->s[i]))
        return fail_at(P, i, "expected a digit");
    if (P->s[i] == '0') {
        i++;
        if (i < P->len && is_digit(P->s[i]))
            return fail_at(P, i, "leading zeros are not allowed");
    } else {
        while (i < P->len && is_digit(P->s[i]))
            i++;
    }
    if (i < P->len && P->s[i] == '.') {
        i++;
        if (i >= P->len || !is_digit(P->s[i]))
            return fail_at(P, i, "expected a digit after '.'");
        while (i < P->len && is_digit(P->s[i]))
            i++;
    }
    if (i < P->len && (P->s[i] == 'e' || P->s[i] == 'E')) {
        i++;
        if (i < P->len && (P->s[i] == '+' || P->s[i] == '-'))
            i++;
        if (i >= P->len || !is_digit(P->s[i]))
            return fail_at(P, i, "expected a digit in the exponent");
        while (i < P->len && is_digit(P->s[i]))
            i++;
    }
    char buf[512];
    if (i - P->pos >= sizeof buf)
        return fail_at(P, P->pos, "number too long");
    memcpy(buf, P->s + P->pos, i - P->pos);
    buf[i - P->pos] = '\0';
    errno = 0;
    double x = strtod(buf, NULL);
    if (!isfinite(x))
        return fail_at(P, P->pos, "number out of range");
    v->type = DL_JSON_NUMBER;
    v->num = x;
    P->pos = i;
    return 0;
}

static int parse_value(struct parser *P, struct dl_json *v, int depth);

static int key_cmp(const void *a, const void *b)
{
    const struct dl_json *x = *(const struct dl_json *const *)a;
    const struct dl_json *y = *(const struct dl_json *const *)b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    /* later occurrence second, so the error names the repeat */
    return (x > y) - (x < y);
}

/* Rejects a repeated member name: O(n log n), whatever the input. */
static int check_unique(struct parser *P, struct dl_json *kids, uint32_t n)
{
    if (n < 2)
        return 0;
    const struct dl_json **v = xmalloc(n * sizeof *v);
    for (uint32_t i = 0; i < n; i++)
        v[i] = &kids[i];
    qsort(v, n, sizeof *v, key_cmp);
    int rc = 0;
    for (uint32_t i = 1; i < n && !rc; i++)
        if (!strcmp(v[i - 1]->key, v[i]->key))
            rc = dl_fail(P->err, P->name, v[i]->key_line, v[i]->key_col,
                         "duplicate member name \"%s\"", v[i]->key);
    free(v);
    return rc;
}

/* Arrays and objects: elements go to a scratch vector, then one arena
 * block.  P->pos is at '[' or '{'. */
static int parse_container(struct parser *P, struct dl_json *v, int depth)
{
    bool obj = P->s[P->pos] == '{';
    char close = obj ? '}' : ']';
    if (depth >= DL_JSON_MAX_DEPTH)
        return fail_at(P, P->pos, "nesting too deep");
    P->pos++;
    struct dl_json *tmp = NULL;
    size_t cap = 0;
    uint32_t n = 0;
    int rc = 0;
    skip_ws(P);
    if (P->pos < P->len && P->s[P->pos] == close) {
        P->pos++;
        goto done;
    }
    for (;;) {
        if (n == UINT32_MAX) {
            rc = fail_at(P, P->pos, "too many elements");
            goto done;
        }
        xgrow(&tmp, &cap, (size_t)n + 1, sizeof *tmp);
        struct dl_json *kid = &tmp[n];
        memset(kid, 0, sizeof *kid);
        skip_ws(P);
        if (obj) {
            if (P->pos >= P->len || P->s[P->pos] != '"') {
                rc = fail_at(P, P->pos, "expected a member name in double quotes");
                goto done;
            }
            kid->key_line = P->line;
            kid->key_col = col_of(P, P->pos);
            size_t klen;
            if ((rc = parse_string(P, &kid->key, &klen)))
                goto done;
            skip_ws(P);
            if (P->pos >= P->len || P->s[P->pos] != ':') {
                rc = fail_at(P, P->pos, "expected ':' after member name");
                goto done;
            }
            P->pos++;
        }
        if ((rc = parse_value(P, kid, depth + 1)))
            goto done;
        n++;
        skip_ws(P);
        if (P->pos < P->len && P->s[P->pos] == ',') {
            P->pos++;
            skip_ws(P);
            if (P->pos < P->len && P->s[P->pos] == close) {
                rc = fail_at(P, P->pos, "trailing comma");
                goto done;
            }
            continue;
        }
        if (P->pos < P->len && P->s[P->pos] == close) {
            P->pos++;
            break;
        }
        rc = fail_at(P, P->pos, obj ? "expected ',' or '}' in object"
                                    : "expected ',' or ']' in array");
        goto done;
    }
done:
    if (!rc && n) {
        v->kid = arena_alloc(P->arena, n * sizeof *tmp);
        memcpy(v->kid, tmp, n * sizeof *tmp);
    }
    free(tmp);
    if (rc)
        return rc;
    v->type = obj ? DL_JSON_OBJECT : DL_JSON_ARRAY;
    v->n = n;
    return obj ? check_unique(P, v->kid, n) : 0;
}

static int parse_literal(struct parser *P, struct dl_json *v, const char *word,
                         enum dl_json_type t)
{
    size_t n = strlen(word);
    if (P->len - P->pos < n || memcmp(P->s + P->pos, word, n))
        return fail_at(P, P->pos, "expected a value");
    P->pos += n;
    v->type = t;
    return 0;
}

static int parse_value(struct parser *P, struct dl_json *v, int depth)
{
    skip_ws(P);
    v->line = P->line;
    v->col = col_of(P, P->pos);
    if (P->pos >= P->len)
        return fail_at(P, P->pos, "expected a value");
    char ch = P->s[P->pos];
    switch (ch) {
    case '{':
    case '[':
        return parse_container(P, v, depth);
    case '"':
        v->type = DL_JSON_STRING;
        return parse_string(P, &v->str, &v->len);
    case 't':
        return parse_literal(P, v, "true", DL_JSON_TRUE);
    case 'f':
        return parse_literal(P, v, "false", DL_JSON_FALSE);
    case 'n':
        return parse_literal(P, v, "null", DL_JSON_NULL);
    default:
        if (ch == '-' || is_digit(ch))
            return parse_number(P, v);
        return fail_at(P, P->pos, "expected a value");
    }
}

int dl_json_parse(const char *name, const char *buf, size_t len,
                   struct dl_json_doc *d, struct dl_error *err)
{
    memset(d, 0, sizeof *d);
    struct parser P = { .name = name, .s = buf, .len = len, .line = 1,
                        .arena = arena_new(), .err = err };
    if (len > DL_JSON_MAX_BYTES) {
        arena_free(P.arena);
        return dl_fail(err, name, 0, 0, "JSON input larger than %zu bytes",
                       DL_JSON_MAX_BYTES);
    }
    struct dl_json *root = arena_alloc(P.arena, sizeof *root);
    memset(root, 0, sizeof *root);
    int rc = parse_value(&P, root, 0);
    if (!rc) {
        skip_ws(&P);
        if (P.pos < P.len)
            rc = fail_at(&P, P.pos, "unexpected content after the JSON value");
    }
    if (rc) {
        arena_free(P.arena);
        return rc;
    }
    d->root = root;
    d->arena = P.arena;
    return 0;
}

int dl_json_load(const char *path, struct dl_json_doc *d,
                  struct dl_error *err)
{
    memset(d, 0, sizeof *d);
    char *buf;
    size_t len;
    int rc = dl_read_file(path, DL_JSON_MAX_BYTES, 0, &buf, &len, err);
    if (rc)
        return rc;
    rc = dl_json_parse(path, buf, len, d, err);
    free(buf);
    return rc;
}

void dl_json_free(struct dl_json_doc *d)
{
    if (d->arena)
        arena_free(d->arena);
    d->arena = NULL;
    d->root = NULL;
}

const struct dl_json *dl_json_get(const struct dl_json *o, const char *key)
{
    if (!o || o->type != DL_JSON_OBJECT)
        return NULL;
    for (uint32_t i = 0; i < o->n; i++)
        if (!strcmp(o->kid[i].key, key))
            return &o->kid[i];
    return NULL;
}

const char *dl_json_type_name(enum dl_json_type t)
{
    switch (t) {
    case DL_JSON_NULL: return "null";
    case DL_JSON_FALSE:
    case DL_JSON_TRUE: return "boolean";
    case DL_JSON_NUMBER: return "number";
    case DL_JSON_STRING: return "string";
    case DL_JSON_ARRAY: return "array";
    case DL_JSON_OBJECT: return "object";
    }
    return "?";
}
