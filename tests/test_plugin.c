/*
 * tests/test_plugin.c - policies loaded from outside the tree (SPEC 8):
 * the example plug-in (examples/policies/ljf.c) runs under --check with a
 * hand-computed schedule and is listed by `dlsim policies --load`; every
 * way a plug-in can be wrong is a clear error with nothing written; and a
 * `meson install` into a temporary prefix is enough to build the example
 * against the installed contract (pkg-config dlsim-policy) and run it.
 *
 * $PLUGINS is the build directory holding libljf.so, libnosym.so,
 * libbadabi.so and libliar.so; $BUILD_ROOT the build tree (for the install).
 */
#include "testutil.h"

TestSuite(plugin, .fini = tu_tmp_cleanup);

static const char *plugin(const char *name)
{
    static char buf[4][1024];
    static int k;
    const char *dir = getenv("PLUGINS");
    cr_assert(dir, "PLUGINS is not set (run through meson test)");
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/lib%s.so", dir, name);
    return buf[k];
}

/* One node of 4 GPUs.  a (1 GPU) runs 0-10.  At 1: b (1 GPU, 5 s), c (4
 * GPUs, 2 s), d (2 GPUs, 1 s) arrive together.  Largest first: c does not
 * fit (3 free); with backfill d (2) then b (1) start at 1; c waits for all
 * four: at 10 (a ends; b ended at 6, d at 2), runs 10-12.  Without
 * backfill c blocks d and b: c 10-12, d 12-13, b 12-17. */
static const char trace[] =
    "job_id,submit_time,num_gpus,duration\n"
    "a,0,1,10\nb,1,1,5\nc,1,4,2\nd,1,2,1\n";
static const char cluster[] =
    "gpu_types: [{name: V100, memory_gb: 32}]\n"
    "nodes: [{count: 1, gpus: 4, gpu_type: V100}]\n";

static void expect_row(const char *jobs, const char *id, const char *start,
                       const char *finish)
{
    char want[128];
    snprintf(want, sizeof want, "\n%s,%s,%s,%s,", id, id[0] == 'a' ? "0" : "1",
             start, finish);
    cr_expect(strstr(jobs, want), "no %s in\n%s", want, jobs);
}

Test(plugin, example_runs_as_a_built_in)
{
    tu_tmp_file("t.csv", trace);
    tu_tmp_file("c.yaml", cluster);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --policy '%s' "
                          "--check --out o --quiet", plugin("ljf")), 0, "%s", tu_out);
    const char *jobs = tu_tmp_text("o/jobs.csv");
    expect_row(jobs, "a", "0", "10");
    expect_row(jobs, "d", "1", "2");
    expect_row(jobs, "b", "1", "6");
    expect_row(jobs, "c", "10", "12");
    /* options are validated and applied as for a built-in */
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --policy '%s:backfill=0' "
                          "--check --out p --quiet", plugin("ljf")), 0, "%s", tu_out);
    jobs = tu_tmp_text("p/jobs.csv");
    expect_row(jobs, "c", "10", "12");
    expect_row(jobs, "d", "12", "13");
    expect_row(jobs, "b", "12", "17");
    /* by name inside the object, too */
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster c.yaml --policy '%s@ljf' "
                          "--quiet", plugin("ljf")), 0, "%s", tu_out);
    /* and listed with its options */
    cr_assert_eq(tu_dlsim("policies --load '%s'", plugin("ljf")), 0, "%s", tu_out);
    cr_expect(strstr(tu_out, "  ljf - largest job first"), "%s", tu_out);
    cr_expect(strstr(tu_out, "backfill         default 1"), "%s", tu_out);
    cr_expect(!strstr(tu_out, "  srtf - "), "only the plug-in's: %s", tu_out);
}

/* A plug-in in a sweep, beside a built-in: each run is the same as the
 * plain run (the hand schedule above), and its options are checked with
 * the spec, before any run. */
Test(plugin, in_a_sweep)
{
    tu_tmp_file("t.csv", trace);
    tu_tmp_file("c.yaml", cluster);
    char spec[4096];
    snprintf(spec, sizeof spec, "policies: [fifo, \"%s\", \"%s:backfill=0\"]\n"
             "traces: [t.csv]\nclusters: [c.yaml]\nseeds: [1]\nstrict: true\n",
             plugin("ljf"), plugin("ljf"));
    tu_tmp_file("s.yaml", spec);
    cr_assert_eq(tu_dlsim("sweep s.yaml --out sw --quiet"), 0, "%s", tu_out);
    cr_expect_eq(tu_sh("grep -c ',ok,' sw/summary.csv"), 0);
    cr_expect_str_eq(tu_out, "3\n");
    cr_assert_eq(tu_sh("ls sw/runs | grep -c -- '-libljf'"), 0, "%s", tu_out);
    cr_expect_str_eq(tu_out, "2\n", "two plug-in runs");
    cr_assert_eq(tu_sh("cat sw/runs/0002-*/jobs.csv"), 0, "%s", tu_out);
    expect_row(tu_out, "c", "10", "12");
    expect_row(tu_out, "b", "12", "17");
    /* the run id names the plug-in by its file name, however deep its
     * directory (a long build path once cut "ljf" and the options off) */
    const char *deep = "a-directory-name-long-enough/to-crowd-out-the-name/"
                       "and-the-options-of-the-policy";
    cr_assert_eq(tu_sh("mkdir -p %s && cp '%s' %s/", deep, plugin("ljf"), deep),
                 0, "%s", tu_out);
    snprintf(spec, sizeof spec, "policies: [\"%s/libljf.so:backfill=0\"]\n"
             "traces: [t.csv]\nclusters: [c.yaml]\nseeds: [1]\n", deep);
    tu_tmp_file("deep.yaml", spec);
    cr_assert_eq(tu_dlsim("sweep deep.yaml --out dp --quiet"), 0, "%s", tu_out);
    cr_assert_eq(tu_sh("ls dp/runs"), 0, "%s", tu_out);
    cr_expect_str_eq(tu_out, "0000-libljf_backfill_0-t-s1\n");
    /* a bad option of the plug-in is the spec's error: nothing runs */
    snprintf(spec, sizeof spec, "policies: [\"%s:bogus=1\"]\n"
             "traces: [t.csv]\nclusters: [c.yaml]\n", plugin("ljf"));
    tu_tmp_file("bad.yaml", spec);
    cr_expect_eq(tu_dlsim("sweep bad.yaml --out bad --quiet"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "bogus"), "%s", tu_out);
    cr_expect_neq(tu_sh("test -e bad/summary.csv"), 0, "nothing written");
}

/* Every way a plug-in can be wrong: exit 2 (1 for an action the engine
 * refuses), a message naming the file, no output directory. */
Test(plugin, broken_plug_ins_are_clear_errors)
{
    tu_tmp_file("t.csv", trace);
    tu_tmp_file("c.yaml", cluster);
    tu_tmp_file("text.so", "not an ELF file\n");
    static const struct { const char *policy, *msg; int rc; } cases[] = {
        { "./missing.so", "missing.so: cannot load policy plug-in: No such file", 2 },
        { "./text.so", "text.so: not a loadable shared object", 2 },
        { "@nosym", "no symbol dlsim_policy_plugin: not a dlsim policy plug-in", 2 },
        { "@badabi", "built for dlsim policy contract version 1002, this dlsim "
                     "provides version 4", 2 },
        { "@ljf:backfill=7", "backfill=7: expected an integer in [0, 1]", 2 },
        { "@ljf:quantum=3", "policy ljf has no option 'quantum' (valid: "
                            "placement, backfill)", 2 },
        { "@ljf@nope", "the plug-in has no policy 'nope'", 2 },
        { "@liar:greed=9", "greed=9: expected an integer in [0, 3]", 2 },
        { "@liar", "policy liar started job", 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char pol[1200];
        const char *p = cases[i].policy;
        if (p[0] == '@') {
            const char *rest = strpbrk(p + 1, "@:");
            char name[32];
            snprintf(name, sizeof name, "%.*s", rest ? (int)(rest - p - 1) : 31,
                     p + 1);
            snprintf(pol, sizeof pol, "%s%s", plugin(name), rest ? rest : "");
        } else {
            snprintf(pol, sizeof pol, "%s", p);
        }
        int rc = tu_dlsim("run --trace t.csv --cluster c.yaml --policy '%s' "
                          "--out o%zu", pol, i);
        cr_expect_eq(rc, cases[i].rc, "%s: exit %d: %s", p, rc, tu_out);
        cr_expect(strstr(tu_out, cases[i].msg), "%s: %s", p, tu_out);
        char dir[16];
        snprintf(dir, sizeof dir, "o%zu", i);
        cr_expect(!tu_tmp_exists(dir), "%s: %s written", p, dir);
    }
    /* the listing refuses as run does */
    cr_expect_eq(tu_dlsim("policies --load '%s'", plugin("badabi")), 2);
    cr_expect_eq(tu_dlsim("policies --load"), 2);
}

/* Installed dlsim, headers, kit, pkg-config file and zoo are enough to
 * build a policy outside the tree and run it. */
Test(plugin, install_builds_and_runs_the_example, .timeout = 300)
{
    const char *build = getenv("BUILD_ROOT"), *src = getenv("SOURCE_ROOT");
    cr_assert(build && src, "BUILD_ROOT and SOURCE_ROOT are not set");
    tu_tmp_file("t.csv", trace);
    tu_tmp_file("c.yaml", cluster);
    cr_assert_eq(tu_sh("meson install -C '%s' --destdir \"$PWD/root\" --no-rebuild "
                       "--quiet >/dev/null", build), 0, "%s", tu_out);
    cr_assert_eq(tu_sh("pc=$(find root -name dlsim-policy.pc) && test -n \"$pc\" && "
                       "PKG_CONFIG_PATH=$PWD/${pc%%/*}/$(dirname ${pc#*/}) "
                       "PKG_CONFIG_SYSROOT_DIR=$PWD/root "
                       "cc -shared -fPIC -O2 -Wall -Wextra -Werror "
                       "$(PKG_CONFIG_PATH=$PWD/$(dirname $pc) "
                       "PKG_CONFIG_SYSROOT_DIR=$PWD/root pkg-config --cflags "
                       "dlsim-policy) '%s/examples/policies/ljf.c' -o libljf.so "
                       "$(PKG_CONFIG_PATH=$PWD/$(dirname $pc) "
                       "PKG_CONFIG_SYSROOT_DIR=$PWD/root pkg-config --libs "
                       "dlsim-policy)", src), 0, "%s", tu_out);
    /* the installed dlsim, its zoo found from the prefix (no DLSIM_MODELS) */
    cr_assert_eq(tu_sh("exe=$(find root -path '*/bin/dlsim') && "
                       "env -u DLSIM_MODELS \"$exe\" run --trace t.csv --cluster "
                       "c.yaml --policy ./libljf.so --models zoo --check --out o "
                       "--quiet"), 0, "%s", tu_out);
    expect_row(tu_tmp_text("o/jobs.csv"), "c", "10", "12");
    cr_expect_eq(tu_sh("test -f \"$(find root -name dlsim.1 | head -1)\" && "
                       "find root -path '*dlsim/models/zoo.csv' | grep -q ."), 0);
}
