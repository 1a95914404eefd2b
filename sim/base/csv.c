/*
 * sim/base/csv.c - the one CSV reader (dl_csv_): every CSV and TSV input
 * of dlsim but the native trace (traces/reader.c keeps its own fast
 * path): the model zoo and the measurement files of `dlsim fit`, the
 * public traces of `trace import`, the machine lists of `cluster
 * import`, the files `dlsim report` and `dlsim sweep --merge` read back.
 * Declared in sim/base/formats.h.  Also the typed field getters and the
 * model-name normal form.
 *
 * Owns: the stream (a dl_in: plain or gzip, or a copy of a memory
 * buffer), one window of its bytes, and the current record's fields,
 * which point into that window: valid until the next dl_csv_row or
 * dl_csv_close.  The header's names are copied and live until the close.
 *
 * Rules every reader shares:
 *   - records end at a line break ("\n", or "\r\n": a '\r' before the
 *     break is dropped); a UTF-8 byte order mark before the first line is
 *     skipped; empty lines are skipped;
 *   - a NUL byte anywhere is an error at its line:col, reported as soon
 *     as it is reached (so /dev/zero fails at 1:1, not after a megabyte);
 *   - a record (a line, or the lines of a record whose quoted field spans
 *     lines) longer than max_record bytes is an error at its first line;
 *     more than max_bytes of input (unpacked) is an error;
 *   - every record has the width the header set (or dl_csv_width), else
 *     "row has N fields, expected M" at its line;
 *   - a header must not name a column twice; columns are found by name
 *     ("a|b": either), required ones must be there, others are ignored;
 *   - every error is "file:line[:col]: message" (DL_EINPUT; DL_EIO when
 *     the file cannot be opened or read); columns count bytes from 1 on
 *     the field's own line.
 * What differs between inputs is chosen by flags (formats.h): RFC 4180
 * quoting, or quotes refused, or quotes as text (TSV); quoted fields over
 * several lines; blanks trimmed; '#' comment lines; control characters.
 *
 * Speed: a record is found with memchr and split in place by one pass
 * over its bytes, eight at a time (a word with no byte that could end or
 * break a field is skipped whole; a candidate is checked in a table of
 * the bytes that do); nothing is allocated per record.  Multi-line
 * records cost one more memchr pass for quotes.  On Philly's CSV this is
 * faster than the importers' old memchr-per-field tokenizer.
 *
 * Names are compared through one normal form: lower-case letters and
 * digits only, then a short alias table, so "ResNet-50", "resnet_50" and
 * "RESNET50" are one model.
 */
#include "sim/base/formats.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
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

/* ------------------------------------------------------------ rules */

const struct dl_csv_opts dl_csv_model_files = {
    .sep = ',',
    .flags = DL_CSV_NO_QUOTES | DL_CSV_COMMENTS | DL_CSV_NO_CTRL,
    .max_fields = DL_CSV_MAX_COLS,
    .max_bytes = DL_CSV_MAX_BYTES,
};

/* ------------------------------------------------------------ stream */

/* The window: cap bytes of data at most (one kept for the NUL written
 * after the last record), then SLACK zero bytes that the scan of a field
 * may read eight at a time past the record's end. */
enum { CSV_INIT = 256 * 1024, SLACK = 8 };

/* what stops the scan of an unquoted field */
enum { ST_NONE, ST_END, ST_SEP, ST_QUOTE, ST_NL, ST_CTRL };

static void set_stops(struct dl_csv *c)
{
    unsigned fl = c->o.flags;
    memset(c->stop, ST_NONE, sizeof c->stop);
    if (fl & DL_CSV_NO_CTRL)
        for (int b = 1; b < 0x20; b++)
            if (b != '\t')
                c->stop[b] = ST_CTRL;
    c->stop['\n'] = ST_NL;
    c->stop[0] = ST_END;
    if (fl & (DL_CSV_QUOTED | DL_CSV_NO_QUOTES))
        c->stop['"'] = ST_QUOTE;
    c->stop[(unsigned char)c->o.sep] = ST_SEP;
}

static void init(struct dl_csv *c, const char *path,
                 const struct dl_csv_opts *o)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    c->o = *o;
    if (!c->o.sep)
        c->o.sep = ',';
    if (!c->o.max_record)
        c->o.max_record = DL_MAX_LINE;
    if (!c->o.max_bytes)
        c->o.max_bytes = DL_MAX_STREAM;
    set_stops(c);
}

int dl_csv_open(struct dl_csv *c, const char *path,
                const struct dl_csv_opts *o, struct dl_error *err)
{
    init(c, path, o);
    c->in = dl_in_open(path, c->o.max_bytes, err);
    if (!c->in)
        return DL_EIO;
    c->cap = CSV_INIT;
    c->buf = xcalloc(c->cap + SLACK, 1);
    return 0;
}

void dl_csv_open_mem(struct dl_csv *c, const char *name, const char *buf,
                     size_t len, const struct dl_csv_opts *o)
{
    init(c, name, o);
    c->cap = len + 1;
    c->buf = xcalloc(c->cap + SLACK, 1);
    memcpy(c->buf, buf, len);
    c->len = len;
    c->eof = true;
}

void dl_csv_close(struct dl_csv *c)
{
    if (c->in) {
        dl_in_warn_trailing(c->path, c->in);
        dl_in_close(c->in);
    }
    free(c->buf);
    free(c->f);
    free(c->fcol);
    free(c->fline);
    free(c->hdr);
    free(c->hdrbuf);
    dl_names_free(&c->hdrix);
    memset(c, 0, sizeof *c);
}

void dl_csv_width(struct dl_csv *c, int n)
{
    c->ncols = n;
}

/* More input after buf[pos..len), which moves to the front (pos = 0). */
static void fill(struct dl_csv *c)
{
    if (c->eof)
        return;
    if (c->pos > 0) {
        memmove(c->buf, c->buf + c->pos, c->len - c->pos);
        c->len -= c->pos;
        c->pos = 0;
    }
    if (c->cap - c->len < CSV_INIT / 2) {
        c->buf = xrealloc(c->buf, 2 * c->cap + SLACK);
        memset(c->buf + c->cap, 0, c->cap + SLACK);
        c->cap *= 2;
    }
    long n = dl_in_read(c->in, c->buf + c->len, c->cap - 1 - c->len);
    if (n > 0) {
        c->len += (size_t)n;
        return;
    }
    c->eof = true;
    c->failed = n < 0;
}

/* ------------------------------------------------------------ records */

static bool blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

static void __attribute__((noinline)) grow_fields(struct dl_csv *c)
{
    c->fcap = c->fcap ? 2 * c->fcap : 16;
    c->f = xrealloc(c->f, c->fcap * sizeof *c->f);
    c->fcol = xrealloc(c->fcol, c->fcap * sizeof *c->fcol);
    c->fline = xrealloc(c->fline, c->fcap * sizeof *c->fline);
}

static inline void add_field(struct dl_csv *c, char *s, long line, long col)
{
    if ((size_t)c->nf == c->fcap)
        grow_fields(c);
    c->f[c->nf] = s;
    c->fcol[c->nf] = col;
    c->fline[c->nf++] = line;
}

/* The first byte at or after q that stop marks; the record's final NUL
 * is one, so the scan ends there.  Eight bytes at a time: a word holding
 * no byte below 0x20, no separator and no quote holds none of them (the
 * lowest byte each test flags is a true one; it is checked in stop). */
static inline char *scan(const unsigned char *stop, char *q, uint64_t sepw)
{
    const uint64_t ones = UINT64_C(0x0101010101010101);
    const uint64_t high = UINT64_C(0x8080808080808080);
    const uint64_t quotew = ones * '"', ctrlw = ones * 0x20;
    for (;;) {
        uint64_t x;
        memcpy(&x, q, sizeof x);
        uint64_t a = x ^ sepw, b = x ^ quotew;
        uint64_t m = (((a - ones) & ~a) | ((b - ones) & ~b) |
                      ((x - ctrlw) & ~x)) & high;
        if (!m) {
            q += 8;
            continue;
        }
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        q += __builtin_clzll(m) / 8;
#else
        q += __builtin_ctzll(m) / 8;
#endif
        if (stop[(unsigned char)*q])
            return q;
        q++;
    }
}

/* Splits the record s[0..e) (*e == '\0'; line breaks inside only within
 * quotes) into fields, in place.  0, or DL_EINPUT; with partial (the
 * record was cut at the length limit), 1 when no error shows before the
 * cut. */
static int split(struct dl_csv *c, char *s, char *e, bool partial,
                 struct dl_error *err)
{
    const unsigned fl = c->o.flags;
    const bool trim = fl & DL_CSV_TRIM, quoted = fl & DL_CSV_QUOTED;
    const char sep = c->o.sep;
    const bool trim_tab = trim && sep != '\t';
    const unsigned char *stop = c->stop;
    const uint64_t sepw = UINT64_C(0x0101010101010101) * (unsigned char)sep;
    const int maxf = c->o.max_fields ? c->o.max_fields : INT32_MAX;
    long line = c->line;
    const char *ls = s;         /* start of the current physical line */
    char *p = s;
    c->nf = 0;
    for (;;) {
        if (trim)               /* (*e is NUL: no bound needed) */
            while (*p == ' ' || (*p == '\t' && trim_tab))
                p++;
        if (c->nf == maxf)
            return dl_fail(err, c->path, line, (long)(p - ls) + 1,
                           "more than %d fields", c->o.max_fields);
        if (quoted && *p == '"') {
            long fline = line, fcol = (long)(p - ls) + 1;
            char *w = p, *r = p + 1;
            for (;;) {
                if (r >= e) {
                    if (partial)
                        return 1;
                    return dl_fail(err, c->path, fline, fcol,
                                   "unterminated quoted field");
                }
                if (*r == '"') {
                    if (r[1] == '"') {
                        *w++ = '"';
                        r += 2;
                        continue;
                    }
                    r++;
                    break;
                }
                if (*r == '\0')
                    return dl_fail(err, c->path, line, (long)(r - ls) + 1,
                                   "NUL byte (not a text file?)");
                if (*r == '\n') {
                    line++;
                    ls = r + 1;
                }
                *w++ = *r++;
            }
            if (trim)
                while (*r == ' ' || (*r == '\t' && trim_tab))
                    r++;
            if (r < e && *r != sep)
                return dl_fail(err, c->path, line, (long)(r - ls) + 1,
                               "text after a closing quote");
            *w = '\0';
            add_field(c, p, fline, fcol);
            if (r >= e)
                break;
            p = r + 1;
            continue;
        }
        char *q = scan(stop, p, sepw);
        if (*q != sep && q != e) {
            long col = (long)(q - ls) + 1;
            switch (stop[(unsigned char)*q]) {
            case ST_END:
                return dl_fail(err, c->path, line, col,
                               "NUL byte (not a text file?)");
            case ST_QUOTE:
                return dl_fail(err, c->path, line, col, quoted
                               ? "quote inside an unquoted field"
                               : "quoted fields are not supported");
            case ST_NL:
                return dl_fail(err, c->path, line, col,
                               "line break inside an unquoted field");
            default:
                return dl_fail(err, c->path, line, col,
                               "control character in field");
            }
        }
        char *end = q;
        if (trim)
            while (end > p && (end[-1] == ' ' || (end[-1] == '\t' &&
                                                   trim_tab)))
                end--;
        bool last = q == e;
        *end = '\0';
        add_field(c, p, line, (long)(p - ls) + 1);
        if (last)
            break;
        p = q + 1;
    }
    return partial ? 1 : 0;
}

/* Quotes in s[0..n): their count is odd. */
static bool odd_quotes(const char *s, size_t n)
{
    bool odd = false;
    for (const char *q; (q = memchr(s, '"', n)); n -= (size_t)(q + 1 - s),
         s = q + 1)
        odd = !odd;
    return odd;
}

/* The error for a record cut at the length limit: an error before the
 * cut (a NUL byte, a stray quote) if any, else its length. */
static int too_long(struct dl_csv *c, struct dl_error *err)
{
    char *s = c->buf + c->pos;
    size_t n = c->o.max_record + 1;
    c->line = c->lines + 1;
    if (c->o.flags & DL_CSV_MULTILINE) {
        char saved = s[n];
        s[n] = '\0';
        int rc = split(c, s, s + n, true, err);
        s[n] = saved;
        if (rc < 0)
            return rc;
        return dl_fail(err, c->path, c->line, 0, "record longer than %zu "
                       "bytes", c->o.max_record);
    }
    const char *z = memchr(s, '\0', n);
    if (z)
        return dl_fail(err, c->path, c->line, (long)(z - s) + 1,
                       "NUL byte (not a text file?)");
    return dl_fail(err, c->path, c->line, 0, "line longer than %zu bytes",
                   c->o.max_record);
}

int dl_csv_row(struct dl_csv *c, struct dl_error *err)
{
    const bool multi = c->o.flags & DL_CSV_MULTILINE;
    for (;;) {
        /* the record's end: a line break (outside quotes) */
        size_t scan = c->pos;   /* where the search goes on */
        bool odd = false;       /* quotes so far (multi-line) */
        char *nl;
        for (;;) {
            nl = memchr(c->buf + scan, '\n', c->len - scan);
            if (nl && multi) {
                size_t at = (size_t)(nl - c->buf);
                if (odd_quotes(c->buf + scan, at - scan))
                    odd = !odd;
                if (odd) {
                    scan = at + 1;
                    nl = NULL;
                    if (at - c->pos >= c->o.max_record)
                        return too_long(c, err);
                    continue;
                }
            }
            if (nl || c->eof)
                break;
            if (c->len - c->pos > c->o.max_record)
                return too_long(c, err);
            size_t off = scan - c->pos;
            fill(c);
            scan = c->pos + off;
        }
        size_t end;
        if (nl) {
            end = (size_t)(nl - c->buf);
        } else {
            if (c->failed)
                return dl_in_fail(c->in, c->lines + 1, 0, err);
            if (c->pos == c->len)
                return 0;
            end = c->len;
        }
        if (end - c->pos > c->o.max_record)
            return too_long(c, err);
        if (!c->started) {
            c->started = true;
            if (end - c->pos >= 3 && !memcmp(c->buf + c->pos, "\xef\xbb\xbf",
                                             3))
                c->pos += 3;    /* a UTF-8 byte order mark */
        }
        char *s = c->buf + c->pos;
        size_t next = nl ? end + 1 : end;
        c->line = c->lines + 1;
        if (end > c->pos && c->buf[end - 1] == '\r')
            end--;
        c->buf[end] = '\0';
        char *e = c->buf + end;
        c->pos = next;
        /* lines consumed: one, and those inside quotes */
        c->lines++;
        if (multi)
            for (const char *q = s; (q = memchr(q, '\n', (size_t)(e - q)));
                 q++)
                c->lines++;
        if (s == e)
            continue;
        if (c->o.flags & DL_CSV_TRIM) {
            const char *p = s;
            while (p < e && blank(*p))
                p++;
            if (p == e)
                continue;
        }
        if ((c->o.flags & DL_CSV_COMMENTS) && *s == '#') {
            const char *z = memchr(s, '\0', (size_t)(e - s));
            if (z)
                return dl_fail(err, c->path, c->line, (long)(z - s) + 1,
                               "NUL byte (not a text file?)");
            continue;
        }
        int rc = split(c, s, e, false, err);
        if (rc)
            return rc;
        if (c->ncols && c->nf != c->ncols)
            return dl_fail(err, c->path, c->line, 0, "row has %d fields, "
                           "expected %d", c->nf, c->ncols);
        return 1;
    }
}

/* ------------------------------------------------------------ header */

static const char *hdr_name(const void *ctx, uint32_t i)
{
    return ((const struct dl_csv *)ctx)->hdr[i];
}

/* The header column named by one of the alternatives "a|b", or -1. */
static int find(const struct dl_csv *c, const char *names)
{
    char one[256];
    for (const char *alt = names; alt;) {
        const char *bar = strchr(alt, '|');
        size_t len = bar ? (size_t)(bar - alt) : strlen(alt);
        if (len < sizeof one) {
            memcpy(one, alt, len);
            one[len] = '\0';
            uint32_t k = dl_names_find(&c->hdrix, one, hdr_name, c);
            if (k != SIM_NONE)
                return (int)k;
        }
        alt = bar ? bar + 1 : NULL;
    }
    return -1;
}

int dl_csv_header(struct dl_csv *c, const char *const *names,
                  const bool *required, int n, int *idx, struct dl_error *err)
{
    int rc = dl_csv_row(c, err);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return dl_fail(err, c->path, c->lines ? c->lines : 1, 0,
                       "empty file: no header line");
    /* the names outlive the record: copied into one block */
    free(c->hdr);
    free(c->hdrbuf);
    dl_names_free(&c->hdrix);
    size_t bytes = 0;
    for (int f = 0; f < c->nf; f++)
        bytes += strlen(c->f[f]) + 1;
    c->hdrbuf = xmalloc(bytes ? bytes : 1);
    c->hdr = xmalloc((size_t)c->nf * sizeof *c->hdr);
    c->nhdr = c->nf;
    char *w = c->hdrbuf;
    for (int f = 0; f < c->nf; f++) {
        size_t l = strlen(c->f[f]) + 1;
        memcpy(w, c->f[f], l);
        c->hdr[f] = w;
        w += l;
        uint32_t first = dl_names_find(&c->hdrix, w - l, hdr_name, c);
        if (first != SIM_NONE)
            return dl_fail(err, c->path, c->fline[f], c->fcol[f],
                           "column '%s' appears twice", c->f[f]);
        dl_names_add(&c->hdrix, (uint32_t)f, hdr_name, c);
    }
    for (int i = 0; i < n; i++) {
        idx[i] = find(c, names[i]);
        if (idx[i] < 0 && (!required || required[i]))
            return dl_fail(err, c->path, c->line, 0, "missing column '%s' "
                           "in the header%s", names[i],
                           c->o.hint ? c->o.hint : "");
    }
    c->ncols = c->nf;
    return 0;
}

/* ------------------------------------------------------------ fields */

const char *dl_csv_fld(const struct dl_csv *c, int i)
{
    return i < 0 || i >= c->nf ? "" : c->f[i];
}

int dl_csv_fail_at(const struct dl_csv *c, int i, struct dl_error *err,
                   const char *fmt, ...)
{
    char msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bool at = i >= 0 && i < c->nf;
    return dl_fail(err, c->path, at ? c->fline[i] : c->line,
                   at ? c->fcol[i] : 0, "%s", msg);
}

int dl_csv_bad_value(const struct dl_csv *c, int i, const char *name,
                     const char *why, struct dl_error *err)
{
    return dl_csv_fail_at(c, i, err, "column '%s': %s '%s'", name, why,
                          dl_csv_fld(c, i));
}

int dl_csv_num(const struct dl_csv *c, int i, const char *name, bool required,
               double lo, double hi, double *out, struct dl_error *err)
{
    const char *s = dl_csv_fld(c, i);
    if (!*s) {
        if (required)
            return dl_csv_fail_at(c, i, err, "column '%s': empty", name);
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

int dl_csv_range(const struct dl_csv *c, int i, const char *name,
                 bool required, double lo, double hi, bool lo_open,
                 double *out, struct dl_error *err)
{
    const char *s = dl_csv_fld(c, i);
    if (!*s) {
        if (required)
            return dl_csv_fail_at(c, i, err, "%s: empty, a number is "
                                  "required", name);
        *out = -1;
        return 0;
    }
    double v;
    if (sim_parse_double(s, &v) || v < lo || v > hi || (lo_open && v == lo))
        return dl_csv_fail_at(c, i, err, "%s: '%s' is not a number in "
                              "%s%g, %g]", name, s, lo_open ? "(" : "[", lo,
                              hi);
    *out = v;
    return 0;
}

/* ------------------------------------------------------------ writing */

void dl_csv_put_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
