/*
 * tests/fuzz/fuzz_csv.c - libFuzzer entry for the CSV reader (dl_csv_,
 * sim/base/csv.c) under each set of rules the tree uses.
 *
 * Input layout:
 *   byte 0      the rules, modulo 7: the model files (dl_csv_model_files),
 *               the trace importers' CSV (quoted, trimmed) and TSV, the
 *               machine lists (quoted, trimmed, comments), the files dlsim
 *               reads back (quoted over several lines), and two with
 *               small limits (a 64-byte record over lines; a 32-byte line
 *               of at most 5 fields)
 *   byte 1      bit 1: read a header first (columns a, b|c, optional d);
 *               bit 2: else every row must have 3 fields
 *   the rest    the input
 *
 * Beyond "no crash, no leak, no UB", it checks the reader's contract:
 * records come in order of their lines, each with at least one field, each
 * field located at or after its record's line, column >= 1, as wide as
 * the header or the width asked for; a field holds no line break unless
 * fields may span lines, no quote where quotes are refused, no control
 * character where they are refused; an error is DL_EINPUT at a line >= 1
 * with a message.  The same bytes streamed from a file (a memfd) give the
 * same records and the same error as from memory, and records read
 * without error, written back as RFC 4180, read back the same.
 */
#include "sim/base/formats.h"
#include "fuzzcmd.h"

#include <string.h>
#include <sys/mman.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct dl_csv_opts rules[] = {
    { 0 },                      /* dl_csv_model_files, set below */
    { .sep = ',', .flags = DL_CSV_QUOTED | DL_CSV_TRIM },
    { .sep = '\t', .flags = DL_CSV_TRIM },
    { .sep = ',', .flags = DL_CSV_QUOTED | DL_CSV_TRIM | DL_CSV_COMMENTS },
    { .sep = ',', .flags = DL_CSV_QUOTED | DL_CSV_MULTILINE },
    { .sep = ',', .flags = DL_CSV_QUOTED | DL_CSV_MULTILINE,
      .max_record = 64 },
    { .sep = ',', .flags = DL_CSV_QUOTED, .max_record = 32,
      .max_fields = 5 },
};
enum { NRULES = sizeof rules / sizeof rules[0] };

/* What one reading gave: every record and field with its place, then the
 * final code and error, as bytes to compare. */
struct out {
    char *b;
    size_t n, cap;
};

static void put(struct out *o, const void *p, size_t n)
{
    xgrow(&o->b, &o->cap, o->n + n, 1);
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

static void put_long(struct out *o, long v)
{
    put(o, &v, sizeof v);
}

static int read_csv(struct dl_csv *c, const struct dl_csv_opts *r,
                    unsigned bits, struct out *o, struct dl_error *e)
{
    static const char *const names[] = { "a", "b|c", "d" };
    static const bool req[] = { true, true, false };
    int idx[3], rc = 0;
    if (bits & 1)
        rc = dl_csv_header(c, names, req, 3, idx, e);
    else if (bits & 2)
        dl_csv_width(c, 3);
    long last = 0;
    while (!rc && (rc = dl_csv_row(c, e)) == 1) {
        rc = 0;
        fz_check(c->line > last, "records in order of their lines");
        last = c->line;
        fz_check(c->nf >= 1, "a record has a field");
        fz_check(!c->ncols || c->nf == c->ncols, "the width asked for");
        fz_check(!r->max_fields || c->nf <= r->max_fields, "field limit");
        put_long(o, c->line);
        put_long(o, c->nf);
        for (int i = 0; i < c->nf; i++) {
            const char *f = c->f[i];
            size_t n = strlen(f);
            fz_check(c->fline[i] >= c->line && c->fcol[i] >= 1,
                     "a field at or after its record");
            if (!(r->flags & DL_CSV_MULTILINE))
                fz_check(!memchr(f, '\n', n), "no line break in a field");
            if (r->flags & DL_CSV_NO_QUOTES)
                fz_check(!memchr(f, '"', n), "no quote where refused");
            if (r->flags & DL_CSV_NO_CTRL)
                for (size_t k = 0; k < n; k++)
                    fz_check((unsigned char)f[k] >= 0x20 || f[k] == '\t',
                             "no control character where refused");
            put_long(o, c->fline[i]);
            put_long(o, c->fcol[i]);
            put_long(o, (long)n);
            put(o, f, n);
        }
    }
    put_long(o, rc);
    if (rc) {
        fz_check(rc == DL_EINPUT, "bad input is DL_EINPUT");
        fz_check(e->line >= 1 && e->msg[0], "a located error");
        put_long(o, e->line);
        put_long(o, e->col);
        put(o, e->msg, strlen(e->msg));
    }
    return rc;
}

/* The fields of a good reading as RFC 4180 text. */
static char *write_back(const struct out *o, size_t *len)
{
    char *t = NULL;
    FILE *f = open_memstream(&t, len);
    fz_check(f != NULL, "open_memstream");
    size_t p = 0;
    while (p + sizeof(long) < o->n) {
        long v[3];
        memcpy(v, o->b + p, 2 * sizeof(long));  /* line, nf */
        p += 2 * sizeof(long);
        long nf = v[1];
        for (long i = 0; i < nf; i++) {
            memcpy(v, o->b + p, 3 * sizeof(long));
            p += 3 * sizeof(long);
            fputc('"', f);
            for (long k = 0; k < v[2]; k++) {
                char ch = o->b[p + k];
                if (ch == '"')
                    fputc('"', f);
                fputc(ch, f);
            }
            fputc('"', f);
            fputc(i + 1 < nf ? ',' : '\n', f);
            p += (size_t)v[2];
        }
    }
    fclose(f);
    return t;
}

/* The fields only (no places), for the round trip. */
static void fields_of(const struct out *o, struct out *f)
{
    size_t p = 0;
    while (p + sizeof(long) < o->n) {
        long v[3];
        memcpy(v, o->b + p, 2 * sizeof(long));
        p += 2 * sizeof(long);
        long nf = v[1];
        put_long(f, nf);
        for (long i = 0; i < nf; i++) {
            memcpy(v, o->b + p, 3 * sizeof(long));
            p += 3 * sizeof(long);
            put_long(f, v[2]);
            put(f, o->b + p, (size_t)v[2]);
            p += (size_t)v[2];
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    fz_init("fuzz_csv");
    const struct dl_csv_opts *r = &rules[data[0] % NRULES];
    if (r == &rules[0])
        r = &dl_csv_model_files;
    unsigned bits = data[1];
    const char *text = (const char *)data + 2;
    size_t n = size - 2;

    int fd = memfd_create("fuzz-csv", MFD_CLOEXEC);
    fz_check(fd >= 0, "memfd_create");
    fz_write_all(fd, data + 2, n);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

    struct out a = { 0 }, b = { 0 };
    struct dl_error e;
    memset(&e, 0, sizeof e);
    struct dl_csv c;
    dl_csv_open_mem(&c, path, text, n, r);
    int rc = read_csv(&c, r, bits, &a, &e);
    dl_csv_close(&c);

    /* streamed: the same, unless the bytes are gzip (unpacked there) */
    if (!(n >= 2 && (unsigned char)text[0] == 0x1f &&
          (unsigned char)text[1] == 0x8b)) {
        memset(&e, 0, sizeof e);
        fz_check(dl_csv_open(&c, path, r, &e) == 0, "open the memfd");
        read_csv(&c, r, bits, &b, &e);
        dl_csv_close(&c);
        fz_check(a.n == b.n && !memcmp(a.b, b.b, a.n),
                 "streamed and in memory read the same");
    }
    close(fd);

    /* a good reading written back reads back the same */
    if (!rc && !(bits & 1)) {
        size_t len;
        char *t = write_back(&a, &len);
        static const struct dl_csv_opts back = {
            .sep = ',', .flags = DL_CSV_QUOTED | DL_CSV_MULTILINE,
            .max_record = (size_t)1 << 24 };
        struct out w = { 0 }, fa = { 0 }, fw = { 0 };
        dl_csv_open_mem(&c, "back", t, len, &back);
        fz_check(read_csv(&c, &back, 0, &w, &e) == 0, "the write-back reads");
        dl_csv_close(&c);
        fields_of(&a, &fa);
        fields_of(&w, &fw);
        fz_check(fa.n == fw.n && (!fa.n || !memcmp(fa.b, fw.b, fa.n)),
                 "the write-back reads back the same fields");
        free(t);
        free(w.b);
        free(fa.b);
        free(fw.b);
    }
    free(a.b);
    free(b.b);
    return 0;
}
