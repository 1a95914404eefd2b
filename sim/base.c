/*
 * sim/base.c - errors, memory and exact time, shared by every module.
 *
 * The arena hands out 8-byte aligned blocks from 64 KiB chunks (larger
 * requests get a chunk of their own) and frees them all at once.
 *
 * Time parsing is exact: "0.1" becomes 100000 us, not 0.1 * 1e6 rounded
 * through binary floating point, so traces with decimal times schedule
 * identically on every machine.
 */
#include "sim/sim.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

const char *dl_strerror(int code)
{
    switch (code) {
#define DL_CASE(name, val, msg) case val: return msg;
        DL_ERRORS(DL_CASE)
#undef DL_CASE
    }
    return "unknown error";
}

static void fill(struct dl_error *err, const char *file, long line, long col,
                 const char *fmt, va_list ap)
{
    if (!err)
        return;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->col = col;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

int dl_fail(struct dl_error *err, const char *file, long line, long col,
            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fill(err, file, line, col, fmt, ap);
    va_end(ap);
    return DL_EINPUT;
}

int dl_fail_io(struct dl_error *err, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fill(err, file, 0, 0, fmt, ap);
    va_end(ap);
    return DL_EIO;
}

void dl_error_print(const struct dl_error *err, FILE *to)
{
    if (err->file[0]) {
        fputs(err->file, to);
        if (err->line > 0) {
            fprintf(to, ":%ld", err->line);
            if (err->col > 0)
                fprintf(to, ":%ld", err->col);
        }
        fputs(": ", to);
    }
    fprintf(to, "%s\n", err->msg);
}

int dl_exit_status(int code)
{
    if (code == DL_OK)
        return 0;
    if (code == DL_EINPUT)
        return 2;
    return 1;
}

_Noreturn void dl_assert_fail(const char *what, const char *file, int line)
{
    fflush(stdout);
    fprintf(stderr, "%s:%d: assertion failed: %s\n", file, line, what);
    abort();
}

static _Noreturn void oom(size_t n)
{
    fprintf(stderr, "dlsim: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

void *xcalloc_big(size_t n, size_t size)
{
    size_t bytes = n * size;
    if (size && bytes / size != n)
        oom(SIZE_MAX);
    if (bytes < (size_t)4 << 20)
        return xcalloc(n, size);
    /* 2 MiB aligned and marked for transparent huge pages: a run over a
     * million jobs otherwise spends much of its time in page faults */
    size_t huge = (size_t)2 << 20;
    bytes = (bytes + huge - 1) & ~(huge - 1);
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes))
        oom(bytes);
    madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 0, bytes);
    return p;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void xgrow(void *arrp, size_t *cap, size_t need, size_t elt)
{
    void **arr = arrp;
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    *arr = xrealloc(*arr, c * elt);
    *cap = c;
}

/* ------------------------------------------------------ atomic files */

int dl_read_file(const char *path, size_t max, char **buf, size_t *len,
                 struct dl_error *err)
{
    *buf = NULL;
    *len = 0;
    errno = 0;
    gzFile f = gzopen(path, "rb");
    if (!f)
        return dl_fail_io(err, path, "cannot open: %s",
                          errno ? strerror(errno) : "out of memory");
    size_t cap = 1 << 16, n = 0;
    char *b = xmalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            if (cap > max) {
                gzclose(f);
                free(b);
                return dl_fail(err, path, 0, 0, "larger than %zu bytes", max);
            }
            cap *= 2;
            b = xrealloc(b, cap + 1);
        }
        int r = gzread(f, b + n, (unsigned)(cap - n));
        if (r > 0) {
            n += (size_t)r;
            continue;
        }
        /* the end, an error, or a truncated gzip stream (gzread then
         * returns 0 with Z_BUF_ERROR); the message belongs to f, so the
         * error is made before gzclose */
        int e = Z_OK;
        const char *m = gzerror(f, &e);
        int rc = 0;
        if (e == Z_ERRNO)
            rc = dl_fail_io(err, path, "read error: %s", strerror(errno));
        else if (r < 0 || (e != Z_OK && e != Z_STREAM_END))
            rc = dl_fail(err, path, 0, 0, "corrupt or truncated input: %s",
                         m && *m ? m : "read error");
        gzclose(f);
        if (rc) {
            free(b);
            return rc;
        }
        break;
    }
    if (n > max) {
        free(b);
        return dl_fail(err, path, 0, 0, "larger than %zu bytes", max);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int dl_file_crc32(const char *path, uint64_t *bytes, uint32_t *crc,
                  struct dl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return dl_fail_io(err, path, "cannot open: %s", strerror(errno));
    unsigned char buf[1 << 16];
    size_t n;
    uLong c = crc32(0L, Z_NULL, 0);
    *bytes = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        c = crc32(c, buf, (uInt)n);
        *bytes += n;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return dl_fail_io(err, path, "read error");
    *crc = (uint32_t)c;
    return 0;
}

/* ---------------------------------------------------------- warnings */

void dl_diag_init(struct dl_diag *d, FILE *echo, bool strict)
{
    memset(d, 0, sizeof *d);
    d->echo = echo;
    d->strict = strict;
}

void dl_diag_free(struct dl_diag *d)
{
    for (uint32_t i = 0; i < d->nkept; i++)
        free(d->kept[i]);
    memset(d, 0, sizeof *d);
}

void dl_warn(struct dl_diag *d, const char *fmt, ...)
{
    if (!d)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t l = strlen(msg);
    while (l && msg[l - 1] == '\n')
        msg[--l] = 0;
    d->n++;
    if (d->nkept < DL_DIAG_KEEP)
        d->kept[d->nkept++] = xstrdup(msg);
    if (d->echo)
        fprintf(d->echo, "%s\n", msg);
}

bool dl_diag_stop(const struct dl_diag *d, const char *cmd, FILE *to)
{
    if (!d->strict || !d->n)
        return false;
    if (to)
        fprintf(to, "dlsim %s: --strict: %u warning%s above %s an error; "
                "nothing written\n", cmd, d->n, d->n == 1 ? "" : "s",
                d->n == 1 ? "is" : "are");
    return true;
}

int dl_out_check(const char *path, struct dl_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return dl_fail_io(err, path, "not a regular file: outputs are "
                          "written to a temporary file renamed into place, "
                          "which would replace it (give a file name)");
    return 0;
}

FILE *dl_tmp_open(const char *path, char **tmp, struct dl_error *err)
{
    *tmp = NULL;
    if (dl_out_check(path, err))
        return NULL;
    size_t n = strlen(path) + 32;
    *tmp = xmalloc(n);
    snprintf(*tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(*tmp, "w");
    if (!f) {
        dl_fail_io(err, path, "cannot create %s: %s", *tmp, strerror(errno));
        free(*tmp);
        *tmp = NULL;
    }
    return f;
}

int dl_tmp_commit(FILE *f, char *tmp, const char *path, bool rename_now,
                    struct dl_error *err)
{
    int bad = ferror(f);
    int e = errno;
    if (fclose(f))
        bad = 1, e = errno;
    if (bad) {
        unlink(tmp);
        free(tmp);
        return dl_fail_io(err, path, "cannot write: %s", strerror(e));
    }
    if (rename_now && rename(tmp, path)) {
        e = errno;
        unlink(tmp);
        free(tmp);
        return dl_fail_io(err, path, "cannot rename into place: %s",
                          strerror(e));
    }
    if (rename_now)
        free(tmp);
    return 0;
}

/* ---------------------------------------------------------------- arena */

struct chunk {
    struct chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

struct arena {
    struct chunk *head;
};

enum { CHUNK = 64 * 1024 };

struct arena *arena_new(void)
{
    return xcalloc(1, sizeof(struct arena));
}

void *arena_alloc(struct arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    struct chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t size = n > CHUNK / 4 ? n : CHUNK;
        struct chunk *nc = xmalloc(sizeof *nc + size);
        nc->used = 0;
        nc->size = size;
        if (size == n && c) {        /* big block: keep the current chunk */
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void arena_free(struct arena *a)
{
    if (!a)
        return;
    for (struct chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

/* ----------------------------------------------------------------- time */

int sim_parse_seconds(const char *s, simtime_t *out)
{
    /* sign, digits, optional fraction, optional exponent; exact in us */
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    __int128 mant = 0;
    int scale = 0, digits = 0;
    for (; isdigit((unsigned char)*p); p++, digits++) {
        if (mant < ((__int128)1 << 100))
            mant = mant * 10 + (*p - '0');
        else
            scale++;
    }
    if (*p == '.') {
        p++;
        for (; isdigit((unsigned char)*p); p++, digits++) {
            if (mant < ((__int128)1 << 100)) {
                mant = mant * 10 + (*p - '0');
                scale--;
            }
        }
    }
    if (!digits)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        int eneg = 0;
        long e = 0;
        if (*p == '+' || *p == '-')
            eneg = *p++ == '-';
        if (!isdigit((unsigned char)*p))
            return -1;
        for (; isdigit((unsigned char)*p); p++)
            if (e < 100000)
                e = e * 10 + (*p - '0');
        scale += eneg ? -(int)e : (int)e;
    }
    if (*p)
        return -1;
    scale += 6; /* seconds -> microseconds */
    if (mant == 0) {
        *out = 0;
        return 0;
    }
    for (; scale > 0; scale--) {
        mant *= 10;
        if (mant > INT64_MAX)
            return -1;
    }
    __int128 rem = 0, div = 1;
    for (; scale < 0; scale++) {
        if (div > ((__int128)1 << 110)) {   /* far below 1 us */
            *out = 0;
            return 0;
        }
        div *= 10;
    }
    rem = mant % div;
    mant /= div;
    if (rem * 2 >= div)     /* round half away from zero */
        mant++;
    if (mant > INT64_MAX)
        return -1;
    *out = neg ? -(simtime_t)mant : (simtime_t)mant;
    return 0;
}

/* Writes the decimal digits of v backwards ending at end; returns start. */
static char *udigits(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

size_t sim_fmt_seconds_raw(char *buf, simtime_t t)
{
    /* hand-rolled: this runs a few million times per output file */
    char tmp[32], *end = tmp + sizeof tmp, *p;
    uint64_t a = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
    uint64_t whole = a / SIM_US_PER_S, frac = a % SIM_US_PER_S;
    p = end;
    if (frac) {
        int digits = 6;
        while (frac % 10 == 0) {
            frac /= 10;
            digits--;
        }
        for (int i = 0; i < digits; i++, frac /= 10)
            *--p = (char)('0' + frac % 10);
        *--p = '.';
    }
    p = udigits(p, whole);
    if (t < 0)
        *--p = '-';
    size_t n = (size_t)(end - p);
    memcpy(buf, p, n);
    buf[n] = 0;
    return n;
}

void sim_fmt_seconds(char *buf, size_t n, simtime_t t)
{
    char tmp[32];
    sim_fmt_seconds_raw(tmp, t);
    snprintf(buf, n, "%s", tmp);
}

int sim_parse_double(const char *s, double *out)
{
    char *end;
    if (!*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int sim_utf8_char(const char *str, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (!n || s[0] > 0xf4)
        return 0;
    uint32_t c = s[0] & (0x7fu >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3fu);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

int sim_parse_long(const char *s, long *out)
{
    char *end;
    if (!*s || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}
