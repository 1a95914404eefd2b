/*
 * tests/test_base.c - exact time parsing and formatting, errors, arena.
 */
#include "testutil.h"

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
    char *prev = NULL;
    for (int i = 0; i < 10000; i++) {
        char *s = arena_strndup(a, "hello world", 5);
        cr_assert_str_eq(s, "hello");
        cr_assert(((uintptr_t)s & 7) == 0);
        cr_assert(s != prev);
        prev = s;
    }
    void *big = arena_alloc(a, 1 << 20);
    memset(big, 1, 1 << 20);
    arena_free(a);
    int *arr = NULL;
    size_t cap = 0;
    xgrow(&arr, &cap, 100, sizeof *arr);
    cr_expect_geq(cap, 100);
    free(arr);
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
