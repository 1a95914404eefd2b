/*
 * sim/base/csv.c - the one strict CSV reader of models/ (zoo.csv, gpus.csv,
 * throughput.csv, and the measurement files of `dlsim fit`), its number
 * getters and the model-name normal form.  Declared in sim/base/formats.h,
 * private to models/.
 *
 * Owns: reading a file whole into memory (struct dl_csv's buffer, released
 * by dl_csv_close) and parsing it in place; every field string points into
 * that buffer and dies with it.
 *
 * Rules (SPEC 7):
 *   - a file larger than DL_CSV_MAX_BYTES, holding a NUL byte or a line
 *     longer than DL_MAX_LINE, is refused (file:line[:col]); plain or
 *     gzip;
 *   - lines starting with '#' are comments, blank lines are skipped, a
 *     trailing '\r' is dropped, a UTF-8 byte order mark is skipped;
 *   - the first other line is the header; columns are found by name, every
 *     required column must be there, no column name may repeat, and
 *     columns the caller does not ask for are ignored;
 *   - every row has exactly as many fields as the header (at most
 *     DL_CSV_MAX_COLS); fields are plain text split at ',' with no quoting
 *     (a '"' is an error, so a quoted comma can never shift the columns
 *     silently) and no control characters other than TAB;
 *   - every error is DL_EINPUT (DL_EIO for open/read) with file:line:col,
 *     columns counting bytes from 1; a value error names the column and
 *     the value.
 *
 * Names are compared through one normal form: lower-case letters and
 * digits only, then a short alias table, so "ResNet-50", "resnet_50" and
 * "RESNET50" are one model.
 */
#include "sim/base/formats.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ names */

/* Spellings used by public traces for models the zoo knows under another
 * name; both sides in normal form. */
static const struct {
    const char *from, *to;
} aliases[] = {
    { "lm", "lstm" },                   /* Gavel "LM (batch size N)" */
    { "imagenet", "resnet50" },         /* Pollux / ElasticFlow T4 */
    { "cifar10", "resnet18" },          /* Pollux / ElasticFlow T4 */
    { "inceptionv3", "inception3" },
    { "neumf", "ncf" },
};

int dl_csv_norm_name(const char *s, size_t len, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!isalnum(ch))
            continue;
        if (k + 1 >= DL_CSV_NAME_MAX)
            return -1;
        out[k++] = (char)tolower(ch);
    }
    out[k] = '\0';
    if (!k)
        return -1;
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++)
        if (!strcmp(out, aliases[a].from)) {
            strcpy(out, aliases[a].to);
            break;
        }
    return 0;
}

/* ------------------------------------------------------------ reader */

int dl_csv_open(struct dl_csv *c, const char *path, struct dl_error *err)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    return dl_read_file(path, DL_CSV_MAX_BYTES, DL_MAX_LINE, &c->buf, &c->len,
                        err);
}

void dl_csv_close(struct dl_csv *c)
{
    free(c->buf);
    c->buf = NULL;
}

/* Next non-comment, non-blank line split into fields.  Returns 1 with a
 * row, 0 at the end, or DL_EINPUT. */
int dl_csv_row(struct dl_csv *c, struct dl_error *err)
{
    while (c->pos < c->len) {
        char *s = c->buf + c->pos;
        char *nl = memchr(s, '\n', c->len - c->pos);
        size_t n = nl ? (size_t)(nl - s) : c->len - c->pos;
        c->pos += n + (nl ? 1 : 0);
        c->line++;
        s[n] = '\0';
        if (c->line == 1 && n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3)) {
            s += 3;             /* a UTF-8 byte order mark */
            n -= 3;
        }
        if (n && s[n - 1] == '\r')
            s[--n] = '\0';
        if (!n || s[0] == '#')
            continue;
        char *q = strchr(s, '"');
        if (q)
            return dl_fail(err, c->path, c->line, (long)(q - s) + 1,
                           "quoted fields are not supported");
        c->nf = 0;
        char *p = s;
        for (;;) {
            if (c->nf == DL_CSV_MAX_COLS)
                return dl_fail(err, c->path, c->line, (long)(p - s) + 1,
                               "more than %d fields", DL_CSV_MAX_COLS);
            c->fcol[c->nf] = (long)(p - s) + 1;
            c->f[c->nf++] = p;
            char *comma = strchr(p, ',');
            if (!comma)
                break;
            *comma = '\0';
            p = comma + 1;
        }
        for (int i = 0; i < c->nf; i++)
            for (const char *r = c->f[i]; *r; r++)
                if ((unsigned char)*r < 0x20 && *r != '\t')
                    return dl_fail(err, c->path, c->line,
                                   c->fcol[i] + (r - c->f[i]),
                                   "control character in field");
        if (c->ncols && c->nf != c->ncols)
            return dl_fail(err, c->path, c->line, 0,
                           "%d fields where the header has %d",
                           c->nf, c->ncols);
        return 1;
    }
    return 0;
}

/* Reads the header and maps each wanted name to its field index (idx[i],
 * -1 when absent and optional).  required[i] false = may be absent. */
int dl_csv_header(struct dl_csv *c, const char *const *names,
                const bool *required, int n, int *idx, struct dl_error *err)
{
    int rc = dl_csv_row(c, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return dl_fail(err, c->path, c->line ? c->line : 1, 0,
                       "no header line");
    for (int f = 0; f < c->nf; f++)
        for (int g = 0; g < f; g++)
            if (!strcmp(c->f[f], c->f[g]))
                return dl_fail(err, c->path, c->line, c->fcol[f],
                               "column '%s' appears twice", c->f[f]);
    for (int i = 0; i < n; i++) {
        idx[i] = -1;
        for (int f = 0; f < c->nf; f++)
            if (!strcmp(c->f[f], names[i]))
                idx[i] = f;
        if (idx[i] < 0 && required[i])
            return dl_fail(err, c->path, c->line, 0,
                           "missing column '%s'", names[i]);
    }
    c->ncols = c->nf;
    return 0;
}

/* ------------------------------------------------------------ fields */

const char *dl_csv_fld(const struct dl_csv *c, int i)
{
    return i < 0 ? "" : c->f[i];
}

int dl_csv_bad_value(const struct dl_csv *c, int i, const char *name,
                   const char *why, struct dl_error *err)
{
    return dl_fail(err, c->path, c->line, c->fcol[i],
                   "column '%s': %s '%s'", name, why, c->f[i]);
}

int dl_csv_num(const struct dl_csv *c, int i, const char *name, bool required,
             double lo, double hi, double *out, struct dl_error *err)
{
    const char *s = dl_csv_fld(c, i);
    if (!*s) {
        if (required)
            return dl_fail(err, c->path, c->line, i < 0 ? 0 : c->fcol[i],
                           "column '%s': empty", name);
        *out = -1;
        return 0;
    }
    double v;
    if (sim_parse_double(s, &v))
        return dl_csv_bad_value(c, i, name, "not a number:", err);
    if (v < lo || v > hi)
        return dl_csv_bad_value(c, i, name, "out of range:", err);
    *out = v;
    return 0;
}

int dl_csv_int(const struct dl_csv *c, int i, const char *name, bool required,
             long lo, long hi, long *out, struct dl_error *err)
{
    double v = -1;
    *out = -1;
    int rc = dl_csv_num(c, i, name, required, (double)lo, (double)hi, &v, err);
    if (rc)
        return rc;
    if (v != floor(v))
        return dl_csv_bad_value(c, i, name, "not a whole number:", err);
    *out = (long)v;
    return 0;
}

int dl_csv_range(const struct dl_csv *c, int i, const char *name, bool required,
               double lo, double hi, bool lo_open, double *out,
               struct dl_error *err)
{
    const char *s = dl_csv_fld(c, i);
    if (!*s) {
        if (required)
            return dl_fail(err, c->path, c->line, i < 0 ? 0 : c->fcol[i],
                           "%s: empty, a number is required", name);
        *out = -1;
        return 0;
    }
    double v;
    if (sim_parse_double(s, &v) || v < lo || v > hi || (lo_open && v == lo))
        return dl_fail(err, c->path, c->line, c->fcol[i],
                       "%s: '%s' is not a number in %s%g, %g]", name, s,
                       lo_open ? "(" : "[", lo, hi);
    *out = v;
    return 0;
}

