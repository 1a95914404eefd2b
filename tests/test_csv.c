/*
 * tests/test_csv.c - the CSV reader of sim/base/csv.c (dl_csv_): its
 * rules (RFC 4180 quoting over one line or several, quotes refused or
 * taken as text, trimming, comments, control characters, a byte order
 * mark, CR LF), its limits (NUL bytes, record length, field count), the
 * header (by name, alternatives, a name twice, required and optional
 * columns, widths), the typed getters, and a round trip of hostile
 * fields (written by dl_csv_put_field) through a file large enough to
 * cross the reader's window, plain and gzip.
 */
#include "sim/base/formats.h"
#include "testutil.h"

#include <zlib.h>

static const struct dl_csv_opts rfc = { .flags = DL_CSV_QUOTED };
static const struct dl_csv_opts multi = {
    .flags = DL_CSV_QUOTED | DL_CSV_MULTILINE };

/* The records of text under o, each as "f1|f2|..." lines, into out; or
 * the error as "line:col: message".  Returns dl_csv_row's last code. */
static int read_all(const char *text, const struct dl_csv_opts *o, char *out,
                    size_t n)
{
    struct dl_csv c;
    struct dl_error e;
    memset(&e, 0, sizeof e);
    dl_csv_open_mem(&c, "t.csv", text, strlen(text), o);
    size_t k = 0;
    out[0] = '\0';
    int rc;
    while ((rc = dl_csv_row(&c, &e)) == 1) {
        for (int i = 0; i < c.nf; i++)
            k += (size_t)snprintf(out + k, n - k, "%s%s", i ? "|" : "",
                                  c.f[i]);
        k += (size_t)snprintf(out + k, n - k, "\n");
    }
    if (rc < 0)
        snprintf(out, n, "%ld:%ld: %s", e.line, e.col, e.msg);
    dl_csv_close(&c);
    return rc;
}

#define EXPECT(text, o, want)                                             \
    do {                                                                  \
        char got_[4096];                                                  \
        read_all(text, o, got_, sizeof got_);                             \
        cr_expect_str_eq(got_, want, "for '%s'", text);                   \
    } while (0)

Test(csv, rfc4180_quoting)
{
    EXPECT("a,\"b,c\",\"d\"\"e\"\n,,\n\"\"\n", &rfc,
           "a|b,c|d\"e\n||\n\n");
    /* CR LF, a byte order mark, empty lines, no final line break */
    EXPECT("\xef\xbb\xbfx,y\r\n\r\n\n1,2", &rfc, "x|y\n1|2\n");
    /* '#' is data unless comments are asked for */
    EXPECT("#a,b\n", &rfc, "#a|b\n");
    char got[512];
    cr_expect_lt(read_all("a\nb\"c\n", &rfc, got, sizeof got), 0);
    cr_expect_str_eq(got, "2:2: quote inside an unquoted field");
    read_all("a,\"b\"c\n", &rfc, got, sizeof got);
    cr_expect_str_eq(got, "1:6: text after a closing quote");
    /* one record per line: a quote left open at the line's end */
    read_all("x\n1,\"ab\n2\"\n", &rfc, got, sizeof got);
    cr_expect_str_eq(got, "2:3: unterminated quoted field");
}

Test(csv, quoted_fields_over_lines)
{
    EXPECT("id,n\n\"a\nb\",1\n\"c\r\n\"\"d\"\"\",2\nz,3\n", &multi,
           "id|n\na\nb|1\nc\r\n\"d\"|2\nz|3\n");
    /* lines count the breaks inside quotes; fields are located on their
     * own line */
    struct dl_csv c;
    struct dl_error e;
    const char *t = "h1,h2\n\"x\ny\",\"p\nq\",w\n";
    dl_csv_open_mem(&c, "t.csv", t, strlen(t), &multi);
    cr_assert_eq(dl_csv_row(&c, &e), 1);
    cr_assert_eq(dl_csv_row(&c, &e), 1);
    cr_expect_eq(c.line, 2);
    cr_expect_eq(c.fline[1], 3);
    cr_expect_eq(c.fcol[1], 4);
    cr_expect_eq(c.fline[2], 4);
    cr_expect_eq(c.fcol[2], 4);
    cr_expect_eq(dl_csv_row(&c, &e), 0);
    dl_csv_close(&c);
    char got[512];
    read_all("a\n\"never\nends\n", &multi, got, sizeof got);
    cr_expect_str_eq(got, "2:1: unterminated quoted field");
    read_all("a\nb,c\"d\ne\n", &multi, got, sizeof got);
    cr_expect_str_eq(got, "2:4: quote inside an unquoted field");
    /* a record over its limit: the error at its first line */
    const struct dl_csv_opts small = { .flags = DL_CSV_QUOTED |
                                       DL_CSV_MULTILINE, .max_record = 16 };
    read_all("a\n\"0123456789\n0123456789\",1\n", &small, got, sizeof got);
    cr_expect_str_eq(got, "2:0: record longer than 16 bytes");
    EXPECT("a\n\"01234\n01234\",1\n", &small, "a\n01234\n01234|1\n");
}

Test(csv, quotes_refused_or_text)
{
    const struct dl_csv_opts refuse = { .flags = DL_CSV_NO_QUOTES };
    char got[512];
    read_all("a,b\n1,\"2\"\n", &refuse, got, sizeof got);
    cr_expect_str_eq(got, "2:3: quoted fields are not supported");
    const struct dl_csv_opts tsv = { .sep = '\t', .flags = DL_CSV_TRIM };
    EXPECT("a\"b\t \"c\" \t\td\n", &tsv, "a\"b|\"c\"||d\n");
}

Test(csv, trimming_comments_and_control_characters)
{
    const struct dl_csv_opts trim = { .flags = DL_CSV_QUOTED | DL_CSV_TRIM |
                                      DL_CSV_COMMENTS };
    EXPECT(" a , \" b \" ,c\t\n  \t \n# note, \"x\n\tz\n", &trim,
           "a| b |c\nz\n");
    /* without comments and trimming: a line of blanks is a record */
    EXPECT(" \n", &rfc, " \n");
    char got[512];
    read_all("a,b\x01\n", &dl_csv_model_files, got, sizeof got);
    cr_expect_str_eq(got, "1:4: control character in field");
    EXPECT("a,b\tc\n# \x01 ok in a comment\n", &dl_csv_model_files,
           "a|b\tc\n");
    const struct dl_csv_opts three = { .max_fields = 3 };
    read_all("a,b,c,d\n", &three, got, sizeof got);
    cr_expect_str_eq(got, "1:7: more than 3 fields");
}

/* NUL bytes: at their line and column wherever they are, and at once
 * (a megabyte of zeros is 1:1, not an endless line). */
Test(csv, nul_bytes_are_located)
{
    static const struct {
        const char *text;
        size_t len;
        const struct dl_csv_opts *o;
        long line, col;
    } cases[] = {
        { "a,b\nc,d\0e\n", 10, &rfc, 2, 4 },
        { "a,b\n\"c\0\",d\n", 11, &rfc, 2, 3 },
        { "a\n\"x\ny\0\"\n", 9, &multi, 3, 2 },
        { "#\0\na\n", 5, &dl_csv_model_files, 1, 2 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct dl_csv c;
        struct dl_error e;
        dl_csv_open_mem(&c, "t.csv", cases[k].text, cases[k].len,
                        cases[k].o);
        int rc;
        while ((rc = dl_csv_row(&c, &e)) == 1)
            ;
        cr_expect_eq(rc, DL_EINPUT, "case %zu", k);
        cr_expect_eq(e.line, cases[k].line, "case %zu: line %ld", k, e.line);
        cr_expect_eq(e.col, cases[k].col, "case %zu: col %ld", k, e.col);
        cr_expect(strstr(e.msg, "NUL byte"), "case %zu: %s", k, e.msg);
        dl_csv_close(&c);
    }
    size_t n = (size_t)3 << 20;
    char *zeros = xcalloc(n, 1);
    for (int m = 0; m < 2; m++) {
        struct dl_csv c;
        struct dl_error e;
        dl_csv_open_mem(&c, "zeros", zeros, n, m ? &multi : &rfc);
        cr_expect_eq(dl_csv_row(&c, &e), DL_EINPUT);
        cr_expect(e.line == 1 && e.col == 1 && strstr(e.msg, "NUL byte"),
                  "%ld:%ld: %s", e.line, e.col, e.msg);
        dl_csv_close(&c);
    }
    free(zeros);
    /* and a line that never ends: refused at the limit */
    char *sevens = xmalloc(n);
    memset(sevens, '7', n);
    struct dl_csv c;
    struct dl_error e;
    dl_csv_open_mem(&c, "sevens", sevens, n, &rfc);
    cr_expect_eq(dl_csv_row(&c, &e), DL_EINPUT);
    cr_expect_eq(e.line, 1);
    cr_expect_str_eq(e.msg, "line longer than 1048576 bytes");
    dl_csv_close(&c);
    free(sevens);
}

Test(csv, header_by_name)
{
    static const char *const names[] = { "b", "x|c", "nope" };
    static const bool req[] = { true, true, false };
    struct dl_csv c;
    struct dl_error e;
    int idx[3];
    const char *t = "a,b,c\n1,2,3\n4,5\n";
    dl_csv_open_mem(&c, "t.csv", t, strlen(t), &rfc);
    cr_assert_eq(dl_csv_header(&c, names, req, 3, idx, &e), 0, "%s", e.msg);
    cr_expect(idx[0] == 1 && idx[1] == 2 && idx[2] == -1);
    cr_assert_eq(dl_csv_row(&c, &e), 1);
    cr_expect_str_eq(dl_csv_fld(&c, idx[1]), "3");
    cr_expect_str_eq(dl_csv_fld(&c, idx[2]), "");
    cr_expect_str_eq(dl_csv_fld(&c, 7), "");
    cr_expect_eq(dl_csv_row(&c, &e), DL_EINPUT);
    cr_expect(e.line == 3 && e.col == 0, "%ld:%ld", e.line, e.col);
    cr_expect_str_eq(e.msg, "row has 2 fields, expected 3");
    dl_csv_close(&c);

    /* a name twice, a missing one (with the caller's hint), none at all */
    const struct dl_csv_opts hint = { .flags = DL_CSV_QUOTED,
                                      .hint = " (right format?)" };
    t = "# c\na,b,a\n";
    dl_csv_open_mem(&c, "t.csv", t, strlen(t), &dl_csv_model_files);
    cr_expect_eq(dl_csv_header(&c, names, NULL, 1, idx, &e), DL_EINPUT);
    cr_expect(e.line == 2 && e.col == 5, "%ld:%ld", e.line, e.col);
    cr_expect_str_eq(e.msg, "column 'a' appears twice");
    dl_csv_close(&c);
    t = "a,b\n";
    dl_csv_open_mem(&c, "t.csv", t, strlen(t), &hint);
    cr_expect_eq(dl_csv_header(&c, names, NULL, 3, idx, &e), DL_EINPUT);
    cr_expect_str_eq(e.msg, "missing column 'x|c' in the header "
                     "(right format?)");
    cr_expect_eq(e.line, 1);
    dl_csv_close(&c);
    dl_csv_open_mem(&c, "t.csv", "", 0, &rfc);
    cr_expect_eq(dl_csv_header(&c, names, req, 3, idx, &e), DL_EINPUT);
    cr_expect(e.line == 1 && !strcmp(e.msg, "empty file: no header line"),
              "%ld: %s", e.line, e.msg);
    dl_csv_close(&c);

    /* no header: a width for every row */
    t = "1,2\n3\n";
    dl_csv_open_mem(&c, "t.csv", t, strlen(t), &rfc);
    dl_csv_width(&c, 2);
    cr_expect_eq(dl_csv_row(&c, &e), 1);
    cr_expect_eq(dl_csv_row(&c, &e), DL_EINPUT);
    cr_expect_str_eq(e.msg, "row has 1 fields, expected 2");
    dl_csv_close(&c);
}

/* A header of 200,000 distinct names costs a hash index, not 2 * 10^10
 * comparisons. */
Test(csv, wide_header_is_linear, .timeout = 20)
{
    size_t n = 200000, k = 0;
    char *t = xmalloc(n * 8 + 2);
    for (size_t i = 0; i < n; i++)
        k += (size_t)sprintf(t + k, "%sc%zu", i ? "," : "", i);
    t[k++] = '\n';
    const struct dl_csv_opts o = { .max_record = 4 << 20 };
    struct dl_csv c;
    struct dl_error e;
    dl_csv_open_mem(&c, "wide", t, k, &o);
    static const char *const names[] = { "c199999" };
    int idx;
    cr_expect_eq(dl_csv_header(&c, names, NULL, 1, &idx, &e), 0, "%s", e.msg);
    cr_expect_eq(idx, 199999);
    dl_csv_close(&c);
    free(t);
}

Test(csv, typed_getters_are_located)
{
    struct dl_csv c;
    struct dl_error e;
    const char *t = "n,x,r\n12,,0\n1.5,abc,2\n";
    dl_csv_open_mem(&c, "t.csv", t, strlen(t), &dl_csv_model_files);
    int idx[3];
    static const char *const names[] = { "n", "x", "r" };
    cr_assert_eq(dl_csv_header(&c, names, NULL, 3, idx, &e), 0);
    cr_assert_eq(dl_csv_row(&c, &e), 1);
    long v;
    double d;
    cr_expect_eq(dl_csv_int(&c, 0, "n", true, 1, 100, &v, &e), 0);
    cr_expect_eq(v, 12);
    cr_expect_eq(dl_csv_num(&c, 1, "x", false, 0, 1, &d, &e), 0);
    cr_expect_eq(d, -1);
    cr_expect_eq(dl_csv_num(&c, 1, "x", true, 0, 1, &d, &e), DL_EINPUT);
    cr_expect(e.line == 2 && e.col == 4, "%ld:%ld", e.line, e.col);
    cr_expect_str_eq(e.msg, "column 'x': empty");
    cr_expect_eq(dl_csv_range(&c, 2, "r", true, 0, 1, true, &d, &e),
                 DL_EINPUT);
    cr_expect_str_eq(e.msg, "r: '0' is not a number in (0, 1]");
    cr_expect_eq(dl_csv_int(&c, 0, "n", true, 1, 10, &v, &e), DL_EINPUT);
    cr_expect_str_eq(e.msg, "column 'n': out of range: '12'");
    cr_assert_eq(dl_csv_row(&c, &e), 1);
    cr_expect_eq(dl_csv_int(&c, 0, "n", true, 1, 10, &v, &e), DL_EINPUT);
    cr_expect_str_eq(e.msg, "column 'n': not a whole number: '1.5'");
    cr_expect_eq(dl_csv_num(&c, 1, "x", true, 0, 1, &d, &e), DL_EINPUT);
    cr_expect(e.line == 3 && e.col == 5, "%ld:%ld", e.line, e.col);
    cr_expect_str_eq(e.msg, "column 'x': not a number: 'abc'");
    cr_expect_eq(dl_csv_fail_at(&c, -1, &e, "row: %d", 7), DL_EINPUT);
    cr_expect(e.line == 3 && e.col == 0 && !strcmp(e.msg, "row: 7"));
    dl_csv_close(&c);
}

/* ---------------------------------------------------------- round trip */

/* Hostile fields written by dl_csv_put_field (quoted when they need
 * it), enough rows to cross the reader's window many times, read back
 * from the file (plain and gzip) and from memory, field by field and with
 * each record's first line. */
Test(csv, round_trip_across_the_window, .fini = tu_tmp_cleanup)
{
    static const char *const piece[] = {
        ",", "\"", "\n", "\r\n", " ", "\t", "#", "\xc3\xa9", "x", "\"\"",
        "abcdefghijklmnopqrstuvwxyz0123456789", "", "\r",
    };
    const size_t np = sizeof piece / sizeof *piece;
    enum { ROWS = 20000, COLS = 4 };
    char **want = xcalloc(ROWS * COLS, sizeof *want);
    long *lines = xcalloc(ROWS, sizeof *lines);
    unsigned long long x = 0x9e3779b97f4a7c15ull;
    FILE *f = fopen(tu_tmp_path("r.csv"), "wb");
    cr_assert(f);
    fputs("a,b,c,d\n", f);
    long line = 2;
    for (int r = 0; r < ROWS; r++) {
        lines[r] = line;
        for (int k = 0; k < COLS; k++) {
            char buf[1024];
            size_t n = 0;
            int len = k == 3 ? 1 : (int)(x >> 60);
            for (int q = 0; q < len; q++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                n += (size_t)snprintf(buf + n, sizeof buf - n, "%s",
                                      piece[(x >> 33) % np]);
            }
            if (k == 3)
                snprintf(buf, sizeof buf, "%d", r);     /* never empty */
            want[r * COLS + k] = xstrdup(buf);
            for (const char *p = buf; *p; p++)
                line += *p == '\n';
            dl_csv_put_field(f, buf);
            fputc(k + 1 < COLS ? ',' : '\n', f);
        }
        line++;
    }
    fclose(f);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", tu_tmp_path("r.csv"),
             tu_tmp_path("r.csv.gz"));
    cr_assert_eq(system(cmd), 0);
    char *text = tu_slurp(tu_tmp_path("r.csv"), NULL);
    for (int src = 0; src < 3; src++) {
        struct dl_csv c;
        struct dl_error e;
        if (src == 2)
            dl_csv_open_mem(&c, "mem", text, strlen(text), &multi);
        else
            cr_assert_eq(dl_csv_open(&c, tu_tmp_path(src ? "r.csv.gz"
                                                         : "r.csv"),
                                     &multi, &e), 0);
        static const char *const names[] = { "a", "b", "c", "d" };
        int idx[COLS];
        cr_assert_eq(dl_csv_header(&c, names, NULL, COLS, idx, &e), 0);
        int r = 0, rc;
        while ((rc = dl_csv_row(&c, &e)) == 1 && r < ROWS) {
            cr_assert_eq(c.line, lines[r], "source %d row %d", src, r);
            for (int k = 0; k < COLS; k++)
                cr_assert_str_eq(c.f[k], want[r * COLS + k],
                                 "source %d row %d field %d", src, r, k);
            r++;
        }
        cr_assert_eq(rc, 0, "source %d: %s", src, e.msg);
        cr_assert_eq(r, ROWS);
        dl_csv_close(&c);
    }
    free(text);
    for (int i = 0; i < ROWS * COLS; i++)
        free(want[i]);
    free(want);
    free(lines);
}
