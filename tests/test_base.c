/*
 * tests/test_base.c - exact time parsing and formatting, errors, arena.
 */
#include "testutil.h"

#include <inttypes.h>
#include <signal.h>
#include <unistd.h>
#include <yaml.h>
#include <zlib.h>

Test(base, parse_seconds_exact)
{
    struct { const char *s; simtime_t us; } ok[] = {
        { "0", 0 }, { "12", 12000000 }, { "0.1", 100000 }, { "0.3", 300000 },
        { "1.0000005", 1000001 }, { "1.0000004", 1000000 }, { "1e3", 1000000000 },
        { "2.5E-1", 250000 }, { "-1.5", -1500000 }, { "+7", 7000000 },
        { "86400.123456", 86400123456 }, { ".5", 500000 }, { "5.", 5000000 },
        { "1e-9", 0 },
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        simtime_t v = -42;
        cr_expect_eq(sim_parse_seconds(ok[i].s, &v), 0, "%s", ok[i].s);
        cr_expect_eq(v, ok[i].us, "%s -> %lld", ok[i].s, (long long)v);
    }
    const char *bad[] = { "", "abc", "1.2.3", "1e", "--1", "1 ", " 1", "nan",
                          "inf", "1e400", "99999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        simtime_t v;
        cr_expect_eq(sim_parse_seconds(bad[i], &v), -1, "'%s' accepted", bad[i]);
    }
}

Test(base, format_seconds_roundtrip)
{
    char b[32];
    simtime_t cases[] = { 0, 1, 100000, 1500000, 86400123456, -250000 };
    const char *want[] = { "0", "0.000001", "0.1", "1.5", "86400.123456", "-0.25" };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sim_fmt_seconds(b, sizeof b, cases[i]);
        cr_expect_str_eq(b, want[i]);
        simtime_t back;
        cr_expect_eq(sim_parse_seconds(b, &back), 0);
        cr_expect_eq(back, cases[i]);
    }
}

/* The hand-rolled writers against printf: every digit count, both sides
 * of 2^32 (where they leave 32-bit arithmetic) and the extremes. */
Test(base, digit_writers_match_printf)
{
    uint64_t vs[64 * 3 + 8];
    size_t n = 0;
    for (uint64_t p = 1; n < 19 * 3; p *= 10)
        vs[n++] = p - 1, vs[n++] = p, vs[n++] = p + 1;
    uint64_t more[] = { 0, UINT32_MAX, (uint64_t)UINT32_MAX + 1,
                        (uint64_t)UINT32_MAX * 1000000 + 999999, INT64_MAX,
                        (uint64_t)INT64_MAX + 1, UINT64_MAX, 10000000000000000000u };
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        vs[n++] = more[i];
    for (size_t i = 0; i < n; i++) {
        uint64_t v = vs[i];
        char got[40], want[40];
        size_t k = dl_fmt_u64(got, v);
        got[k] = 0;
        snprintf(want, sizeof want, "%" PRIu64, v);
        cr_expect_str_eq(got, want);
        k = dl_fmt_micro(got, v, false);
        got[k] = 0;
        snprintf(want, sizeof want, "%" PRIu64 ".%06u", v / 1000000,
                 (unsigned)(v % 1000000));
        cr_expect_str_eq(got, want);
        k = dl_fmt_micro(got, v, true);
        got[k] = 0;
        size_t w = strlen(want);        /* trailing zeros, then the point */
        while (want[w - 1] == '0')
            want[--w] = 0;
        if (want[w - 1] == '.')
            want[--w] = 0;
        cr_expect_str_eq(got, want, "%" PRIu64, v);
        if (v <= (uint64_t)INT64_MAX) {
            simtime_t t = (simtime_t)v;
            cr_expect_eq(sim_fmt_seconds_raw(got, t), strlen(want));
            cr_expect_str_eq(got, want);
            cr_expect_eq(sim_fmt_seconds_raw(got, -t), strlen(want) + (v > 0));
            cr_expect_str_eq(got + (v > 0), want);
        }
    }
    char b[40];
    cr_expect_eq(sim_fmt_seconds_raw(b, INT64_MIN), 21);
    cr_expect_str_eq(b, "-9223372036854.775808");
}

Test(base, error_format)
{
    struct dl_error e;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_expect_eq(dl_fail(&e, "c.yaml", 3, 7, "bad %s", "thing"), DL_EINPUT);
    dl_error_print(&e, f);
    dl_fail(&e, "t.csv", 9, 0, "oops");
    dl_error_print(&e, f);
    fclose(f);
    cr_expect_str_eq(buf, "c.yaml:3:7: bad thing\nt.csv:9: oops\n");
    free(buf);
    cr_expect_eq(dl_exit_status(DL_EINPUT), 2);
    cr_expect_eq(dl_exit_status(DL_EIO), 1);
    cr_expect_eq(dl_exit_status(DL_ECHECK), 1);
    cr_expect_str_eq(dl_strerror(DL_EINPUT), "bad input");
}

Test(base, arena_and_grow)
{
    struct arena *a = arena_new();
    enum { N = 300000 };        /* 3 MB of strings: chunks grow past 64 KiB */
    char **strs = xmalloc(N * sizeof *strs);
    uint64_t **nums = xmalloc(N * sizeof *nums);
    /* strings are packed: "abcd" takes 5 bytes, not 8 */
    char *x = arena_strndup(a, "abcd", 4), *y = arena_strndup(a, "efgh", 4);
    cr_expect_eq(y, x + 5);
    for (int i = 0; i < N; i++) {
        char buf[16];
        int len = snprintf(buf, sizeof buf, "j%d", i);
        strs[i] = arena_strndup(a, buf, (size_t)len);
        cr_assert_str_eq(strs[i], buf);
        nums[i] = arena_alloc(a, sizeof **nums);    /* 8-aligned after them */
        cr_assert(((uintptr_t)nums[i] & 7) == 0, "%p", (void *)nums[i]);
        *nums[i] = (uint64_t)i * 2654435761u;
        if (i % 1000 == 0) {
            void *big = arena_alloc(a, 100000);     /* a big block */
            cr_assert(((uintptr_t)big & 7) == 0);
            memset(big, 0xff, 100000);
        }
    }
    for (int i = 0; i < N; i++) {   /* nothing overwrote anything */
        char buf[16];
        snprintf(buf, sizeof buf, "j%d", i);
        cr_assert_str_eq(strs[i], buf);
        cr_assert_eq(*nums[i], (uint64_t)i * 2654435761u);
    }
    cr_expect_str_eq(x, "abcd");
    cr_expect_str_eq(y, "efgh");
    free(strs);
    free(nums);
    arena_free(a);
    int *arr = NULL;
    size_t cap = 0;
    xgrow(&arr, &cap, 100, sizeof *arr);
    cr_expect_geq(cap, 100);
    free(arr);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The radix sorts agree with qsort on random keys of every width (bytes
 * that are all equal skip their pass), on ties, on 0 and 1 keys, and on
 * each side of the insertion sort's 32. */
Test(base, radix_sorts_agree_with_qsort)
{
    static const size_t sizes[] = { 0, 1, 2, 7, 32, 33, 300, 5000 };
    uint64_t x = 88172645463325252ull;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int width = 1; width <= 64; width += 9) {
            size_t n = sizes[k];
            uint32_t *a = xmalloc((n + 1) * 4), *b = xmalloc((n + 1) * 4),
                     *tmp = xmalloc((n + 1) * 4);
            uint64_t *c = xmalloc((n + 1) * 8), *d = xmalloc((n + 1) * 8);
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;     /* xorshift */
                uint64_t v = width == 64 ? x : x & ((1ull << width) - 1);
                c[i] = d[i] = v;
                a[i] = b[i] = (uint32_t)(v >> (width > 32 ? width - 32 : 0));
            }
            dl_sort_u32(a, n, k % 2 ? tmp : NULL);
            qsort(b, n, 4, cmp_u32);
            dl_sort_u64(c, n, NULL);
            qsort(d, n, 8, cmp_u64);
            cr_expect(!n || !memcmp(a, b, n * 4), "u32 n %zu width %d", n, width);
            cr_expect(!n || !memcmp(c, d, n * 8), "u64 n %zu width %d", n, width);
            free(a), free(b), free(tmp), free(c), free(d);
        }
}

/* The sort by high bits keeps keys equal there in their order: with the
 * index in the low bits, the result is the full sort (insertion below 33
 * keys, radix above). */
Test(base, high_bits_sort_is_stable)
{
    static const size_t sizes[] = { 5, 32, 33, 300 };
    uint64_t x = 1181783497276652981ull;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        uint64_t a[300], b[300];
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            a[i] = b[i] = (x % 4) << 32 | i;
        }
        dl_sort_u64_high(a, n, NULL, 32);
        dl_sort_u64(b, n, NULL);
        cr_expect(!memcmp(a, b, n * 8), "n %zu", n);
    }
}

/* The pairs' sort is by key and stable: on keys of few values (ties)
 * and of all 64 bits, each side of 32 pairs, the order is (key, then
 * place), which a value holding its place shows. */
Test(base, pair_sort_is_stable)
{
    static const size_t sizes[] = { 0, 1, 5, 32, 33, 300, 5000 };
    uint64_t x = 2463534242ull;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int wide = 0; wide < 2; wide++) {
            size_t n = sizes[k];
            struct dl_pair *a = xmalloc((n + 1) * sizeof *a);
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                a[i] = (struct dl_pair){ wide ? x : x % 5 << 40, (uint32_t)i };
            }
            dl_sort_pairs(a, n, NULL);
            for (size_t i = 1; i < n; i++)
                cr_expect(a[i - 1].key < a[i].key ||
                          (a[i - 1].key == a[i].key && a[i - 1].val < a[i].val),
                          "n %zu wide %d at %zu", n, wide, i);
            free(a);
        }
}

/* Selection gives the sorted array's k-th value, with nothing greater
 * before it and nothing smaller after it, on random keys, on few distinct
 * keys (ties), on sorted, reversed and organ-pipe inputs (the patterns
 * that defeat simple pivots), and on every k of a small array. */
Test(base, select_agrees_with_sort)
{
    static const size_t sizes[] = { 1, 2, 3, 17, 100, 4099 };
    uint64_t x = 2463534242ull;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int pat = 0; pat < 5; pat++) {
            size_t n = sizes[s];
            uint64_t *a = xmalloc(n * 8), *sorted = xmalloc(n * 8);
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                sorted[i] = pat == 0 ? x : pat == 1 ? x % 3 : pat == 2 ? i :
                            pat == 3 ? n - i : (i < n / 2 ? i : n - i);
            }
            memcpy(a, sorted, n * 8);
            dl_sort_u64(sorted, n, NULL);
            size_t ks[] = { 0, n / 2, n - 1, (size_t)(0.99 * (double)n) };
            size_t nk = n <= 100 ? n : 4;
            for (size_t q = 0; q < nk; q++) {
                size_t k = n <= 100 ? q : ks[q];
                uint64_t *b = xmalloc(n * 8);
                memcpy(b, a, n * 8);
                uint64_t v = dl_select_u64(b, n, k);
                cr_assert_eq(v, sorted[k], "n %zu pattern %d k %zu", n, pat, k);
                cr_assert_eq(b[k], v);
                for (size_t i = 0; i < n; i++)
                    cr_assert(i < k ? b[i] <= v : b[i] >= v,
                              "n %zu pattern %d k %zu: a[%zu]", n, pat, k, i);
                dl_sort_u64(b, n, NULL);
                cr_assert(!memcmp(b, sorted, n * 8), "a permutation");
                free(b);
            }
            free(a), free(sorted);
        }
}

/* Plain decimals take a 64-bit short path; with "e0" appended the same
 * text takes the general one: both must agree, on every digit count,
 * fraction length (rounding past the microsecond included) and sign. */
Test(base, seconds_short_path_agrees_with_the_general_one)
{
    uint64_t x = 977;
    for (int i = 0; i < 200000; i++) {
        char s[64], g[80];
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int whole = (int)(x % 20), frac = (int)(x >> 8) % 15, k = 0;
        if (x >> 20 & 1)
            s[k++] = (x >> 21 & 1) ? '-' : '+';
        for (int d = 0; d < whole; d++)
            s[k++] = (char)('0' + (x >> (24 + d % 30)) % 10);
        if (frac || !whole) {
            s[k++] = '.';
            for (int d = 0; d < frac; d++)
                s[k++] = (char)('0' + ((x >> (d * 4)) ^ (uint64_t)i) % 10);
        }
        s[k] = 0;
        snprintf(g, sizeof g, "%se0", s);
        simtime_t a = -1, b = -1;
        int ra = sim_parse_seconds(s, &a), rb = sim_parse_seconds(g, &b);
        cr_assert_eq(ra, rb, "'%s': %d against %d", s, ra, rb);
        if (!ra)
            cr_assert_eq(a, b, "'%s': %lld against %lld", s, (long long)a,
                         (long long)b);
    }
    simtime_t t;
    cr_assert(!sim_parse_seconds("333.6766715", &t) && t == 333676672);
    cr_assert(!sim_parse_seconds("-0.0000005", &t) && t == -1);
    cr_assert(!sim_parse_seconds("9223372036854.775807", &t) && t == INT64_MAX);
    cr_assert_eq(sim_parse_seconds("9223372036854.775808", &t), -1);
}

Test(base, evq_orders_by_time_then_insertion)
{
    struct evq q;
    evq_init(&q);
    evq_push(&q, 5, EV_FINISH, 1, 0);
    evq_push(&q, 3, EV_FINISH, 2, 0);
    evq_push(&q, 5, EV_FINISH, 3, 0);
    evq_push(&q, 3, EV_WAKE, 4, 0);
    evq_push(&q, 1, EV_FINISH, 5, 0);
    uint32_t want[] = { 5, 2, 4, 1, 3 };
    for (int i = 0; i < 5; i++)
        cr_expect_eq(evq_pop(&q).job, want[i]);
    cr_expect_null(evq_top(&q));
    evq_free(&q);
}

/* ------------------------------------------------- hostile input (#13) */

Test(base, parse_double_is_decimal_only)
{
    const char *ok[] = { "0", "1.5", "-2", "+3", ".5", "5.", "1e3", "2.5E-1",
                         "1e+2" };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        double v;
        cr_expect_eq(sim_parse_double(ok[i], &v), 0, "%s", ok[i]);
    }
    /* strtod takes all of these: hex floats, inf, nan, blanks */
    const char *bad[] = { "0x1p3", "0X10", "inf", "-infinity", "nan",
                          "nan(1)", " 1", "1 ", "", ".", "e3", "1e", "1e+",
                          "--1", "1e400", "0x", "1,5" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double v;
        cr_expect_eq(sim_parse_double(bad[i], &v), -1, "'%s' accepted",
                     bad[i]);
    }
}

TestSuite(base_io, .fini = tu_tmp_cleanup);

static void sh_ok(const char *fmt, const char *arg)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && ", tu_tmp_dir());
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), fmt, arg);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

Test(base_io, read_file_limits_are_located)
{
    char *b;
    size_t n;
    struct dl_error e;
    tu_tmp_file("ok.txt", "ab\ncd\n");
    cr_assert_eq(dl_read_file(tu_tmp_path("ok.txt"), 100, 10, &b, &n, &e), 0);
    cr_expect_eq(n, 6);
    free(b);
    /* size: "file: larger than N bytes" */
    cr_expect_eq(dl_read_file(tu_tmp_path("ok.txt"), 5, 10, &b, &n, &e),
                 DL_EINPUT);
    cr_expect(strstr(e.msg, "larger than 5 bytes"), "%s", e.msg);
    cr_expect_eq(e.line, 0);
    cr_expect_null(b);
    /* a line: "file:line: line longer than N bytes" */
    tu_tmp_file("long.txt", "ab\nabcdefghijk\n");
    cr_expect_eq(dl_read_file(tu_tmp_path("long.txt"), 100, 10, &b, &n, &e),
                 DL_EINPUT);
    cr_expect_eq(e.line, 2);
    cr_expect_eq(e.col, 11);
    cr_expect(strstr(e.msg, "line longer than 10 bytes"), "%s", e.msg);
    /* a gzip stream cut short: where its data ended (the fuzzer's input
     * was the two magic bytes alone) */
    sh_ok("printf 'ab\\ncde\\n' | gzip -c | head -c 12 > cut2.gz && "
          "printf '\\037\\213' > magic.gz%s", "");
    cr_expect_eq(dl_read_file(tu_tmp_path("cut2.gz"), 100, 10, &b, &n, &e),
                 DL_EINPUT);
    cr_expect(strstr(e.msg, "truncated gzip stream"), "%s", e.msg);
    cr_expect(e.line >= 1 && e.col >= 1, "%ld:%ld", e.line, e.col);
    cr_expect_eq(dl_read_file(tu_tmp_path("magic.gz"), 100, 0, &b, &n, &e),
                 DL_EINPUT);
    cr_expect_eq(e.line, 1);
    cr_expect_eq(e.col, 1);
    cr_expect_null(b);
    /* a NUL byte past the first buffer: line and column */
    FILE *f = fopen(tu_tmp_path("nul.txt"), "wb");
    for (int i = 0; i < 20000; i++)
        fputs("0123456789\n", f);
    fputs("abc", f);
    fputc(0, f);
    fputs("\n", f);
    fclose(f);
    cr_expect_eq(dl_read_file(tu_tmp_path("nul.txt"), 1 << 20, 100, &b, &n,
                              &e), DL_EINPUT);
    cr_expect_eq(e.line, 20001);
    cr_expect_eq(e.col, 4);
    /* binary (maxline 0) takes the NUL */
    cr_expect_eq(dl_read_file(tu_tmp_path("nul.txt"), 1 << 20, 0, &b, &n, &e),
                 0);
    free(b);
    /* /dev/zero fails at once, not at the size limit */
    cr_expect_eq(dl_read_file("/dev/zero", (size_t)1 << 40, 100, &b, &n, &e),
                 DL_EINPUT);
    cr_expect_eq(e.line, 1);
    cr_expect_eq(e.col, 1);
    cr_expect(strstr(e.msg, "NUL byte"), "%s", e.msg);
}

/* Members, trailing bytes, a cut stream and the size limit, read by
 * whichever path dl_in takes (see the two tests below). */
static void gzip_cases(void)
{
    tu_tmp_file("a.txt", "first\n");
    tu_tmp_file("b.txt", "second\n");
    sh_ok("gzip -c a.txt > m.gz && gzip -c b.txt >> m.gz && cp m.gz t.gz && "
          "printf 'third\\n' >> t.gz && head -c 20 m.gz > cut.gz%s", "");
    struct dl_error e;
    char buf[64];
    /* both members are data */
    struct dl_in *in = dl_in_open(tu_tmp_path("m.gz"), 1000, &e);
    cr_assert(in);
    size_t n = 0;
    long r;
    while ((r = dl_in_read(in, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    cr_assert_eq(r, 0);
    buf[n] = 0;
    cr_expect_str_eq(buf, "first\nsecond\n");
    cr_expect_eq(dl_in_trailing(in), 0);
    dl_in_close(in);
    /* plain text after the last member: skipped, and counted */
    in = dl_in_open(tu_tmp_path("t.gz"), 1000, &e);
    n = 0;
    while ((r = dl_in_read(in, buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = 0;
    cr_expect_str_eq(buf, "first\nsecond\n");
    cr_expect_eq(dl_in_trailing(in), 6);
    dl_in_close(in);
    /* a cut stream is an error at the line the caller names */
    in = dl_in_open(tu_tmp_path("cut.gz"), 1000, &e);
    while ((r = dl_in_read(in, buf, sizeof buf)) > 0)
        ;
    cr_assert_eq(r, -1);
    cr_expect_eq(dl_in_fail(in, 3, 0, &e), DL_EINPUT);
    cr_expect_eq(e.line, 3);
    cr_expect(strstr(e.msg, "truncated gzip stream"), "%s", e.msg);
    dl_in_close(in);
    /* the unpacked size limit */
    in = dl_in_open(tu_tmp_path("m.gz"), 8, &e);
    while ((r = dl_in_read(in, buf, sizeof buf)) > 0)
        ;
    cr_assert_eq(r, -1);
    cr_expect_eq(dl_in_fail(in, 7, 2, &e), DL_EINPUT);
    cr_expect(strstr(e.msg, "larger than 8 bytes unpacked"), "%s", e.msg);
    cr_expect_eq(e.line, 0);
    dl_in_close(in);
}

Test(base_io, gzip_members_trailing_bytes_and_truncation)
{
    gzip_cases();
}

/* The same with the inflating helper thread started at the first read. */
Test(base_io, gzip_cases_through_the_helper_thread)
{
    dl_in_thread_after(0);
    gzip_cases();
}

/* Reads path whole: bytes before the end or error into *n, their CRC into
 * *crc; returns dl_in_read's last result. */
static long read_all(const char *path, size_t *n, uLong *crc, int *code,
                     struct dl_error *e)
{
    struct dl_in *in = dl_in_open(path, UINT64_MAX, e);
    cr_assert(in);
    static char buf[100000];
    long r;
    *n = 0;
    *crc = crc32(0, NULL, 0);
    while ((r = dl_in_read(in, buf, sizeof buf)) > 0) {
        *n += (size_t)r;
        *crc = crc32(*crc, (const Bytef *)buf, (uInt)r);
    }
    *code = r < 0 ? dl_in_fail(in, 7, 0, e) : 0;
    dl_in_close(in);
    return r;
}

/* A 13 MB input, whole and with a byte spoiled past the helper's start:
 * the same bytes and the same error with the helper as without it; and
 * closing early while the helper waits on full buffers returns. */
Test(base_io, large_gzip_same_bytes_and_errors_with_the_helper)
{
    sh_ok("seq 1 1800000 > big.txt && gzip -c big.txt > big.gz && cp big.gz bad.gz && "
          "printf 'X' | dd of=bad.gz bs=1 seek=3000000 conv=notrunc 2>/dev/null%s", "");
    const char *names[] = { "big.gz", "bad.gz" };
    for (int f = 0; f < 2; f++) {
        size_t n[2];
        uLong crc[2];
        int code[2];
        long r[2];
        struct dl_error e[2];
        for (int mode = 0; mode < 2; mode++) {
            dl_in_thread_after(mode ? 1u << 20 : UINT64_MAX);
            r[mode] = read_all(tu_tmp_path(names[f]), &n[mode], &crc[mode],
                               &code[mode], &e[mode]);
        }
        cr_expect_eq(r[0], r[1], "%s", names[f]);
        cr_expect_eq(n[0], n[1], "%s: %zu and %zu bytes", names[f], n[0], n[1]);
        cr_expect_eq(crc[0], crc[1], "%s", names[f]);
        cr_expect_eq(code[0], code[1], "%s", names[f]);
        if (f == 0)
            cr_expect(r[0] == 0 && n[0] > 12000000, "%zu bytes", n[0]);
        else
            cr_expect(r[0] == -1 && n[0] > (1u << 20) &&
                      !strcmp(e[0].msg, e[1].msg), "%s / %s", e[0].msg, e[1].msg);
    }
    dl_in_thread_after(0);
    struct dl_error e;
    struct dl_in *in = dl_in_open(tu_tmp_path("big.gz"), UINT64_MAX, &e);
    char b[1000];
    cr_assert(dl_in_read(in, b, sizeof b) > 0);
    usleep(100000);             /* the helper fills its buffers and waits */
    dl_in_close(in);
}

Test(base_io, yaml_strings_read_back_as_the_same_bytes)
{
    static const char *const s[] = {
        "plain", "", "a \"quoted\" \\ name", "tab\there", "new\nline\r",
        " leading and trailing ", "caf\xc3\xa9", "nel\xc2\x85 ls\xe2\x80\xa8",
        "bom\xef\xbb\xbf", "not utf-8 \xff\xfe", "\x80", "\xc2\x80",
        "#comment", "a: b", "- x", "null", "~", "123", "[x]",
    };
    size_t nlong = 5000;
    char *lng = malloc(nlong + 1), *lbin = malloc(nlong + 1);
    for (size_t i = 0; i < nlong; i++) {
        lng[i] = i % 7 == 0 ? ' ' : (char)('a' + i % 26);
        lbin[i] = (char)(0x80 + i % 100);
    }
    lng[nlong] = lbin[nlong] = '\0';
    size_t n = sizeof s / sizeof *s;
    const char **all = malloc((n + 2) * sizeof *all);
    memcpy(all, s, n * sizeof *all);
    all[n++] = lng;
    all[n++] = lbin;
    for (size_t i = 0; i < n; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        /* as a value and as a key, the way the writers use them */
        fputs("v: ", f);
        dl_yaml_put_str(f, all[i], 4);
        if (dl_yaml_str_short(all[i])) {
            fputs("\nm:\n  ", f);
            dl_yaml_put_str(f, all[i], 4);
            fputs(": 1\n", f);
        } else {
            fputs("\nm:\n  ? ", f);
            dl_yaml_put_str(f, all[i], 4);
            fputs("\n  : 1\n", f);
        }
        fclose(f);
        cr_expect(!dl_text_check("s", text, len, 1024, NULL), "case %zu: "
                  "a line over 1 KB", i);
        yaml_document_t doc;
        struct dl_error e;
        cr_assert_eq(dl_yaml_load("s.yaml", text, len, &doc, &e), 0,
                     "case %zu: %s\n%s", i, e.msg, text);
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        yaml_node_t *v = yaml_document_get_node(&doc,
                                                root->data.mapping.pairs.start[0].value);
        yaml_node_t *m = yaml_document_get_node(&doc,
                                                root->data.mapping.pairs.start[1].value);
        yaml_node_t *k = yaml_document_get_node(&doc,
                                                m->data.mapping.pairs.start[0].key);
        yaml_node_t *both[2] = { v, k };
        for (int j = 0; j < 2; j++) {
            char *bin;
            cr_assert_eq(dl_yaml_bytes((const char *)both[j]->tag,
                                       (const char *)both[j]->data.scalar.value,
                                       &bin), 0);
            const char *got = bin ? bin : (const char *)both[j]->data.scalar.value;
            cr_expect_str_eq(got, all[i], "case %zu (%s)\n%s", i,
                             j ? "key" : "value", text);
            free(bin);
        }
        yaml_document_delete(&doc);
        free(text);
    }
    free(all);
    free(lng);
    free(lbin);
    char *bin;
    cr_expect_eq(dl_yaml_bytes("tag:yaml.org,2002:binary", "AA==", &bin), -1,
                 "a NUL byte");
    cr_expect_eq(dl_yaml_bytes("tag:yaml.org,2002:binary", "a*b", &bin), -1);
}

Test(base_io, yaml_depth_and_documents)
{
    yaml_document_t doc;
    struct dl_error e;
    const char *ok = "a: [[[[1]]]]\n";
    cr_assert_eq(dl_yaml_load("d.yaml", ok, strlen(ok), &doc, &e), 0);
    yaml_document_delete(&doc);
    char deep[300];
    memset(deep, '{', 100);
    strcpy(deep + 100, "\n");
    cr_expect_eq(dl_yaml_load("d.yaml", deep, strlen(deep), &doc, &e),
                 DL_EINPUT);
    cr_expect_eq(e.line, 1);
    cr_expect_eq(e.col, 65);
    cr_expect(strstr(e.msg, "nested deeper than 64 levels"), "%s", e.msg);
    const char *two = "a: 1\n---\nb: 2\n";
    cr_expect_eq(dl_yaml_load("d.yaml", two, strlen(two), &doc, &e),
                 DL_EINPUT);
    cr_expect_eq(e.line, 2);
    cr_expect(strstr(e.msg, "second YAML document"), "%s", e.msg);
}

/* SIGTERM or SIGINT while a temporary output exists: removed, and the
 * process still ends by that signal */
Test(base_io, signals_remove_temporary_files)
{
    int sigs[] = { SIGTERM, SIGINT };
    for (int k = 0; k < 2; k++) {
        const char *out = tu_tmp_pathf("out%d.csv", k);
        char tmp[1100];
        pid_t pid = fork();
        cr_assert(pid >= 0);
        if (pid == 0) {
            char *t;
            FILE *f = dl_tmp_open(out, &t, NULL);
            if (!f)
                _exit(3);
            fputs("partial", f);
            fflush(f);
            raise(sigs[k]);
            _exit(4);           /* not reached */
        }
        int st;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == sigs[k], "status %d", st);
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)pid);
        cr_expect(!tu_exists(tmp), "%s left behind", tmp);
        cr_expect(!tu_exists(out));
    }
    /* a committed file is forgotten: a later signal leaves it alone, and
     * a parent's files are not a child's to remove */
    char *t;
    FILE *f = dl_tmp_open(tu_tmp_path("kept.csv"), &t, NULL);
    cr_assert(f);
    pid_t pid = fork();
    if (pid == 0)
        raise(SIGTERM);
    int st;
    waitpid(pid, &st, 0);
    cr_expect(tu_exists(t), "the child removed its parent's file");
    cr_assert_eq(dl_tmp_commit(f, t, tu_tmp_path("kept.csv"), true, NULL), 0);
    cr_expect(tu_tmp_exists("kept.csv"));
}

/* xbig_reserve keeps what was written as it grows (by mremap, never a
 * copy of ours), gives zeros where nothing was written, trims and frees;
 * the trace reader holds its records there. */
Test(base_mem, big_block_grows_keeps_and_trims)
{
    uint64_t *a = NULL;
    size_t n = 0;
    for (size_t want = 1; want <= (size_t)3 << 20; want = want * 3 + 1) {
        xbig_reserve(&a, want * sizeof *a);
        for (; n < want; n++)
            a[n] = n * 2654435761u;
    }
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(a[i], i * 2654435761u, "element %zu lost", i);
    xbig_trim(&a, 1000 * sizeof *a);
    for (size_t i = 0; i < 1000; i++)
        cr_assert_eq(a[i], i * 2654435761u, "element %zu lost by the trim", i);
    xbig_reserve(&a, 5000 * sizeof *a);     /* grows again after a trim */
    cr_expect_eq(a[999], (uint64_t)999 * 2654435761u);
    xbig_free(a);
    uint32_t *z = NULL;
    xbig_reserve(&z, 1 << 20);
#if !defined(__SANITIZE_ADDRESS__)
    for (size_t i = 0; i < (1 << 20) / sizeof *z; i++)
        cr_assert_eq(z[i], 0);
#endif
    xbig_free(z);
    xbig_free(NULL);
}
