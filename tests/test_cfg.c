/*
 * tests/test_cfg.c - the cluster file reader (sim/cluster/cfg.c, SPEC section 3).
 *
 * Three groups: valid files (the types, nodes, GPU counts, racks and the
 * speed normalisation they produce; defaults; keys in any order; the
 * example clusters), the file-level entry point (I/O errors), and one test
 * per kind of bad input, each asserting the exact 1-based line and column
 * of the error, a word of its message, and that *c is left zeroed.
 *
 * Runs with the tests/ directory as working directory (tests/meson.build),
 * so the examples are at ../examples/clusters/.
 */
#include "sim/sim.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EX "../examples/clusters/"

static int load(const char *yaml, struct cluster *c, struct dl_error *err)
{
    return cfg_load_cluster_mem("t.yaml", yaml, strlen(yaml), c, err);
}

static bool all_zero(const struct cluster *c)
{
    static const struct cluster zero;
    return !memcmp(c, &zero, sizeof zero);
}

/* Asserts that yaml fails with DL_EINPUT at line:col, with word in the
 * message, and that the cluster is left empty. */
static void bad(const char *yaml, long line, long col, const char *word)
{
    struct cluster c;
    struct dl_error e;
    memset(&c, 0xa5, sizeof c);
    memset(&e, 0, sizeof e);
    int rc = load(yaml, &c, &e);
    cr_assert_eq(rc, DL_EINPUT, "expected DL_EINPUT, got %d for:\n%s", rc,
                 yaml);
    cr_expect_str_eq(e.file, "t.yaml");
    cr_expect_eq(e.line, line, "line %ld, want %ld: %s", e.line, line, e.msg);
    cr_expect_eq(e.col, col, "col %ld, want %ld: %s", e.col, col, e.msg);
    cr_expect(strstr(e.msg, word), "message '%s' lacks '%s'", e.msg, word);
    cr_expect(all_zero(&c), "cluster not left empty after an error");
}

static uint32_t type_of(const struct cluster *c, const char *name)
{
    uint32_t t = clu_type_find(c, name);
    cr_assert_neq(t, SIM_NONE, "type %s missing", name);
    return t;
}

static const char *rack_of(const struct cluster *c, uint32_t node)
{
    return c->racks[c->nodes[node].rack];
}

/* ---------------------------------------------------------------- valid */

static const char *const full =
    "# a comment\n"
    "name: lab-cluster\n"
    "reference_gpu: V100\n"
    "gpu_types:\n"
    "  - name: K80\n"
    "    memory_gb: 12\n"
    "    speed: 0.5\n"
    "  - name: V100\n"
    "    memory_gb: 32\n"
    "    speed: 2.0\n"
    "  - name: A100\n"
    "    memory_gb: 80\n"
    "    speed: 5\n"
    "nodes:\n"
    "  - count: 3\n"
    "    gpus: 8\n"
    "    gpu_type: V100\n"
    "    rack: r0\n"
    "  - count: 2\n"
    "    gpus: 4\n"
    "    gpu_type: K80\n"
    "    rack: r1\n"
    "  - gpus: 2\n"
    "    gpu_type: V100\n"
    "    rack: r1\n";

Test(cfg, full_file)
{
    struct cluster c;
    struct dl_error e = {0};
    cr_assert_eq(load(full, &c, &e), 0, "%s", e.msg);
    cr_expect_str_eq(c.name, "lab-cluster");
    cr_expect_str_eq(c.path, "t.yaml");
    cr_assert_eq(c.ntypes, 3);
    uint32_t k80 = type_of(&c, "K80"), v100 = type_of(&c, "V100"),
             a100 = type_of(&c, "A100");
    cr_expect_eq(k80, 0);
    cr_expect_eq(v100, 1);
    cr_expect_eq(a100, 2);
    cr_expect_eq(c.ref_type, v100);
    /* speeds are divided by the reference's (2.0) */
    cr_expect_float_eq(c.types[k80].speed, 0.25, 1e-12);
    cr_expect_float_eq(c.types[v100].speed, 1.0, 1e-12);
    cr_expect_float_eq(c.types[a100].speed, 2.5, 1e-12);
    cr_expect_float_eq(c.types[k80].memory_gb, 12, 1e-12);
    cr_expect_float_eq(c.types[a100].memory_gb, 80, 1e-12);
    /* declared but unused is fine */
    cr_expect_eq(c.types[a100].total_gpus, 0);
    cr_expect_eq(c.types[v100].total_gpus, 3 * 8 + 2);
    cr_expect_eq(c.types[k80].total_gpus, 2 * 4);
    cr_expect_eq(c.types[v100].free_gpus, 26);
    cr_assert_eq(c.nnodes, 6);
    cr_expect_eq(c.ngpus, 34);
    cr_expect_eq(c.max_node_gpus, 8);
    for (uint32_t i = 0; i < 3; i++) {
        cr_expect_eq(c.nodes[i].ngpus, 8);
        cr_expect_eq(c.nodes[i].type, v100);
        cr_expect_str_eq(rack_of(&c, i), "r0");
    }
    for (uint32_t i = 3; i < 5; i++) {
        cr_expect_eq(c.nodes[i].ngpus, 4);
        cr_expect_eq(c.nodes[i].type, k80);
        cr_expect_str_eq(rack_of(&c, i), "r1");
    }
    cr_expect_eq(c.nodes[5].ngpus, 2);
    cr_expect_eq(c.nodes[5].type, v100);
    cr_expect_str_eq(rack_of(&c, 5), "r1");
    cr_expect_eq(c.nracks, 2);
    cr_expect_eq(c.nodes[5].first_gpu, 32);
    char why[256];
    cr_expect_eq(clu_check(&c, why, sizeof why), 0, "%s", why);
    clu_free(&c);
}

Test(cfg, defaults)
{
    const char *y = "gpu_types:\n"
                    "  - name: P100\n"
                    "    memory_gb: 16\n"
                    "  - name: T4\n"
                    "    memory_gb: 16\n"
                    "    speed: 0.5\n"
                    "nodes:\n"
                    "  - gpus: 4\n"
                    "    gpu_type: T4\n";
    struct cluster c;
    struct dl_error e = {0};
    int rc = cfg_load_cluster_mem("some/dir/my-cluster.v2.yaml", y, strlen(y),
                                  &c, &e);
    cr_assert_eq(rc, 0, "%s", e.msg);
    cr_expect_str_eq(c.name, "my-cluster.v2");     /* basename sans .yaml */
    cr_expect_str_eq(c.path, "some/dir/my-cluster.v2.yaml");
    cr_expect_eq(c.ref_type, 0);                   /* first type */
    cr_expect_float_eq(c.types[0].speed, 1.0, 1e-12);   /* default speed */
    cr_expect_float_eq(c.types[1].speed, 0.5, 1e-12);
    cr_expect_eq(c.nnodes, 1);                     /* default count */
    cr_expect_eq(c.ngpus, 4);
    cr_expect_eq(c.types[1].total_gpus, 4);
    cr_expect_eq(c.nracks, 1);                     /* the unnamed rack */
    clu_free(&c);

    rc = cfg_load_cluster_mem("plain", y, strlen(y), &c, &e);
    cr_assert_eq(rc, 0, "%s", e.msg);
    cr_expect_str_eq(c.name, "plain");
    clu_free(&c);
    rc = cfg_load_cluster_mem(".hidden", y, strlen(y), &c, &e);
    cr_assert_eq(rc, 0, "%s", e.msg);
    cr_expect_str_eq(c.name, ".hidden");
    clu_free(&c);
    rc = cfg_load_cluster_mem(NULL, y, strlen(y), &c, &e);
    cr_assert_eq(rc, 0, "%s", e.msg);
    cr_expect_str_eq(c.path, "<memory>");
    clu_free(&c);
}

Test(cfg, any_order_and_flow_style)
{
    const char *y = "nodes:\n"
                    "  - {rack: b, gpu_type: A100, gpus: 8, count: 2}\n"
                    "  - gpu_type: H100\n"
                    "    count: 1\n"
                    "    gpus: 4\n"
                    "gpu_types: [{speed: 3, memory_gb: 80, name: A100},\n"
                    "            {memory_gb: 80, speed: 6, name: H100}]\n"
                    "reference_gpu: H100\n"
                    "name: ordered\n";
    struct cluster c;
    struct dl_error e = {0};
    cr_assert_eq(load(y, &c, &e), 0, "%s", e.msg);
    cr_expect_str_eq(c.name, "ordered");
    cr_expect_eq(c.ref_type, 1);
    cr_expect_float_eq(c.types[0].speed, 0.5, 1e-12);
    cr_expect_float_eq(c.types[1].speed, 1.0, 1e-12);
    cr_expect_eq(c.nnodes, 3);
    cr_expect_eq(c.ngpus, 20);
    cr_expect_eq(c.nodes[0].type, 0);
    cr_expect_eq(c.nodes[2].type, 1);
    cr_expect_eq(c.nodes[2].ngpus, 4);
    cr_expect_str_eq(rack_of(&c, 0), "b");
    clu_free(&c);
}

Test(cfg, anchors_and_aliases)
{
    const char *y = "gpu_types:\n"
                    "  - &v {name: V100, memory_gb: 32}\n"
                    "nodes:\n"
                    "  - &n {count: 2, gpus: 8, gpu_type: V100, rack: r0}\n"
                    "  - *n\n";
    struct cluster c;
    struct dl_error e = {0};
    cr_assert_eq(load(y, &c, &e), 0, "%s", e.msg);
    cr_expect_eq(c.nnodes, 4);
    cr_expect_eq(c.ngpus, 32);
    cr_expect_eq(c.nracks, 1);
    clu_free(&c);
}

Test(cfg, quoted_strings_and_64_gpu_nodes)
{
    const char *y = "name: \"quoted name\"\n"
                    "gpu_types:\n"
                    "  - name: '100'\n"
                    "    memory_gb: 0.5\n"
                    "nodes:\n"
                    "  - gpus: 64\n"
                    "    gpu_type: \"100\"\n"
                    "    rack: 'rack 1'\n";
    struct cluster c;
    struct dl_error e = {0};
    cr_assert_eq(load(y, &c, &e), 0, "%s", e.msg);
    cr_expect_str_eq(c.name, "quoted name");
    cr_expect_str_eq(c.types[0].name, "100");
    cr_expect_eq(c.ngpus, 64);
    cr_expect_eq(c.nodes[0].free_mask, ~UINT64_C(0));
    cr_expect_str_eq(rack_of(&c, 0), "rack 1");
    clu_free(&c);
}

Test(cfg, example_tiny)
{
    struct cluster c;
    struct dl_error e = {0};
    cr_assert_eq(cfg_load_cluster(EX "tiny.yaml", &c, &e), 0, "%s", e.msg);
    cr_expect_str_eq(c.name, "tiny");
    cr_expect_str_eq(c.path, EX "tiny.yaml");
    cr_expect_eq(c.nnodes, 2);
    cr_expect_eq(c.ngpus, 8);
    cr_expect_eq(c.ntypes, 1);
    cr_expect_eq(c.nodes[1].ngpus, 4);
    clu_free(&c);
}

Test(cfg, example_philly_like)
{
    struct cluster c;
    struct dl_error e = {0};
    cr_assert_eq(cfg_load_cluster(EX "philly-like.yaml", &c, &e), 0, "%s",
                 e.msg);
    uint32_t v = type_of(&c, "V100"), p = type_of(&c, "P100");
    cr_expect_eq(c.ref_type, v);
    cr_expect_eq(c.types[v].total_gpus, 192);
    cr_expect_eq(c.types[p].total_gpus, 64);
    cr_expect_eq(c.ngpus, 256);
    cr_expect_eq(c.nracks, 4);
    cr_expect(c.types[p].speed > 0 && c.types[p].speed < 1);
    clu_free(&c);
}

Test(cfg, example_hetero)
{
    struct cluster c;
    struct dl_error e = {0};
    cr_assert_eq(cfg_load_cluster(EX "hetero.yaml", &c, &e), 0, "%s", e.msg);
    cr_expect_eq(c.ntypes, 5);
    cr_expect_eq(c.ref_type, type_of(&c, "V100"));
    const char *order[] = {"K80", "P100", "V100", "A100", "H100"};
    for (int i = 1; i < 5; i++)        /* speeds rise with generation */
        cr_expect(c.types[type_of(&c, order[i])].speed >
                  c.types[type_of(&c, order[i - 1])].speed);
    cr_expect_float_eq(c.types[type_of(&c, "V100")].speed, 1.0, 1e-12);
    for (int i = 0; i < 5; i++)
        cr_expect(c.types[type_of(&c, order[i])].total_gpus > 0, "%s",
                  order[i]);
    cr_expect_eq(c.ngpus, 208);
    cr_expect_eq(c.nracks, 5);
    clu_free(&c);
}

/* ------------------------------------------------------------------ I/O */

Test(cfg, unreadable_file_is_io_error)
{
    struct cluster c;
    struct dl_error e = {0};
    memset(&c, 0xa5, sizeof c);
    cr_expect_eq(cfg_load_cluster("no/such/file.yaml", &c, &e), DL_EIO);
    cr_expect_str_eq(e.file, "no/such/file.yaml");
    cr_expect(all_zero(&c));
    memset(&c, 0xa5, sizeof c);
    cr_expect_eq(cfg_load_cluster(".", &c, &e), DL_EIO);   /* a directory */
    cr_expect(all_zero(&c));
}

Test(cfg, bad_file_names_its_path)
{
    char path[] = "/tmp/dlsim-cfg-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char *y = "gpu_types:\n  - name: A\n    memory_gb: -1\n";
    cr_assert_eq(write(fd, y, strlen(y)), (ssize_t)strlen(y));
    close(fd);
    struct cluster c;
    struct dl_error e = {0};
    cr_expect_eq(cfg_load_cluster(path, &c, &e), DL_EINPUT);
    cr_expect_str_eq(e.file, path);
    cr_expect_eq(e.line, 3);
    cr_expect_eq(e.col, 16);
    unlink(path);
}

/* ------------------------------------------------------- located errors */

/* A valid body to append to, 6 lines:
 *   1 gpu_types:
 *   2   - name: V100
 *   3     memory_gb: 32
 *   4 nodes:
 *   5   - gpus: 4
 *   6     gpu_type: V100            */
#define TYPES "gpu_types:\n  - name: V100\n    memory_gb: 32\n"
#define NODES "nodes:\n  - gpus: 4\n    gpu_type: V100\n"

Test(cfg_err, yaml_syntax)
{
    bad(TYPES "nodes: [\n", 5, 1, "syntax");
    bad("a: b\n c: d\n", 2, 3, "syntax");
    bad("a: 'unterminated\n", 2, 1, "syntax");
    bad(TYPES NODES "x: *nope\n", 7, 4, "alias");
    bad("name: a\n\xc3\x28\n", 2, 2, "UTF-8");
    bad(TYPES "\tnodes: 1\n", 4, 1, "syntax");
}

Test(cfg_err, empty_document)
{
    bad("", 1, 1, "empty");
    bad("# nothing but a comment\n\n", 1, 1, "empty");
    bad("---\n", 2, 1, "empty");
    bad("~\n", 1, 1, "empty");
}

Test(cfg_err, not_a_mapping)
{
    bad("- a\n- b\n", 1, 1, "mapping");
    bad("just text\n", 1, 1, "mapping");
}

Test(cfg_err, second_document)
{
    bad(TYPES NODES "---\nname: x\n", 7, 1, "document");
}

Test(cfg_err, unknown_keys)
{
    bad(TYPES NODES "colour: blue\n", 7, 1, "colour");
    bad("gpu_types:\n  - name: V100\n    memory_gb: 32\n    watts: 300\n"
        NODES, 4, 5, "watts");
    bad(TYPES "nodes:\n  - gpus: 4\n    gpu_type: V100\n    racks: r0\n",
        7, 5, "racks");
    bad(TYPES NODES "Name: x\n", 7, 1, "Name");       /* case matters */
    bad(TYPES NODES "? [a, b]\n: 1\n", 7, 3, "key");   /* non-scalar key */
}

Test(cfg_err, duplicate_key)
{
    bad(TYPES NODES "name: a\nname: b\n", 8, 1, "twice");
    bad("gpu_types:\n  - {name: A, memory_gb: 1, memory_gb: 2}\n" NODES,
        2, 29, "memory_gb");
}

Test(cfg_err, missing_sections)
{
    bad(TYPES, 1, 1, "nodes");
    bad(NODES, 1, 1, "gpu_types");
    bad("name: x\n", 1, 1, "gpu_types");
    bad("gpu_types: []\n" NODES, 1, 12, "empty");
    bad(TYPES "nodes: []\n", 4, 8, "empty");
    bad("gpu_types:\n" NODES, 1, 11, "gpu_types");      /* null value */
}

Test(cfg_err, wrong_kinds)
{
    bad(TYPES NODES "name: [a, b]\n", 7, 7, "name");
    bad(TYPES NODES "name: {a: 1}\n", 7, 7, "mapping");
    bad("gpu_types: V100\n" NODES, 1, 12, "list");
    bad("gpu_types: {name: V100}\n" NODES, 1, 12, "list");
    bad(TYPES "nodes:\n  - 4\n", 5, 5, "mapping");
    bad("gpu_types:\n  - V100\n" NODES, 2, 5, "mapping");
    bad("gpu_types:\n  - name: [V100]\n    memory_gb: 32\n" NODES, 2, 11,
        "name");
    bad("gpu_types:\n  - name: V100\n    memory_gb: [32]\n" NODES, 3, 16,
        "memory_gb");
    bad(TYPES "nodes:\n  - gpus: {n: 4}\n    gpu_type: V100\n", 5, 11,
        "gpus");
    bad(TYPES "nodes:\n  - gpus: 4\n    gpu_type: [V100]\n", 6, 15,
        "gpu_type");
    bad(TYPES "nodes:\n  - gpus: 4\n    gpu_type: V100\n    rack: [a]\n",
        7, 11, "rack");
    bad(TYPES NODES "reference_gpu: [V100]\n", 7, 16, "reference_gpu");
}

Test(cfg_err, not_a_number)
{
    bad("gpu_types:\n  - name: V100\n    memory_gb: lots\n" NODES, 3, 16,
        "lots");
    bad("gpu_types:\n  - name: V100\n    memory_gb: '32'\n" NODES, 3, 16,
        "quoted");
    bad("gpu_types:\n  - name: V100\n    memory_gb: 32\n    speed: fast\n"
        NODES, 4, 12, "fast");
    bad("gpu_types:\n  - name: V100\n    memory_gb: .inf\n" NODES, 3, 16,
        "inf");
    bad("gpu_types:\n  - name: V100\n    memory_gb: nan\n" NODES, 3, 16,
        "nan");
    bad("gpu_types:\n  - name: V100\n    memory_gb: 1e999\n" NODES, 3, 16,
        "1e999");
    bad("gpu_types:\n  - name: V100\n    memory_gb: 32GB\n" NODES, 3, 16,
        "32GB");
}

Test(cfg_err, non_integer_counts)
{
    bad(TYPES "nodes:\n  - count: 1.5\n    gpus: 4\n    gpu_type: V100\n",
        5, 12, "integer");
    bad(TYPES "nodes:\n  - count: two\n    gpus: 4\n    gpu_type: V100\n",
        5, 12, "two");
    bad(TYPES "nodes:\n  - count: 1e2\n    gpus: 4\n    gpu_type: V100\n",
        5, 12, "integer");
    bad(TYPES "nodes:\n  - gpus: 4.0\n    gpu_type: V100\n", 5, 11,
        "integer");
    bad(TYPES "nodes:\n  - gpus: \"4\"\n    gpu_type: V100\n", 5, 11,
        "quoted");
    bad(TYPES "nodes:\n  - gpus: 0x10\n    gpu_type: V100\n", 5, 11,
        "0x10");
}

Test(cfg_err, impossible_values)
{
    bad("gpu_types:\n  - name: V100\n    memory_gb: 0\n" NODES, 3, 16,
        "> 0");
    bad("gpu_types:\n  - name: V100\n    memory_gb: -16\n" NODES, 3, 16,
        "-16");
    bad("gpu_types:\n  - name: V100\n    memory_gb: 32\n    speed: 0\n"
        NODES, 4, 12, "speed");
    bad("gpu_types:\n  - name: V100\n    memory_gb: 32\n    speed: -1\n"
        NODES, 4, 12, "-1");
    bad(TYPES "nodes:\n  - count: 0\n    gpus: 4\n    gpu_type: V100\n",
        5, 12, "count");
    bad(TYPES "nodes:\n  - count: -3\n    gpus: 4\n    gpu_type: V100\n",
        5, 12, "-3");
    bad(TYPES "nodes:\n  - gpus: 0\n    gpu_type: V100\n", 5, 11, "gpus");
    bad(TYPES "nodes:\n  - gpus: 65\n    gpu_type: V100\n", 5, 11, "65");
    bad(TYPES "nodes:\n  - gpus: -8\n    gpu_type: V100\n", 5, 11, "-8");
    bad(TYPES "nodes:\n  - gpus: 99999999999999999999999\n"
        "    gpu_type: V100\n", 5, 11, "gpus");
}

Test(cfg_err, empty_values)
{
    bad("gpu_types:\n  - name:\n    memory_gb: 32\n" NODES, 2, 10, "name");
    bad("gpu_types:\n  - name: ''\n    memory_gb: 32\n" NODES, 2, 11,
        "empty");
    bad("gpu_types:\n  - name: ~\n    memory_gb: 32\n" NODES, 2, 11, "name");
    bad(TYPES "nodes:\n  - gpus: 4\n    gpu_type: V100\n    rack: null\n",
        7, 11, "rack");
    bad(TYPES NODES "name: \"a\\0b\"\n", 7, 7, "NUL");
}

Test(cfg_err, missing_required_fields)
{
    bad("gpu_types:\n  - memory_gb: 32\n" NODES, 2, 5, "name");
    bad("gpu_types:\n  - name: V100\n" NODES, 2, 5, "memory_gb");
    bad(TYPES "nodes:\n  - count: 2\n    gpu_type: V100\n", 5, 5, "gpus");
    bad(TYPES "nodes:\n  - count: 2\n    gpus: 4\n", 5, 5, "gpu_type");
    bad(TYPES "nodes:\n  - {}\n", 5, 5, "gpus");
}

Test(cfg_err, duplicate_type_name)
{
    bad("gpu_types:\n"
        "  - name: V100\n"
        "    memory_gb: 32\n"
        "  - name: K80\n"
        "    memory_gb: 12\n"
        "  - memory_gb: 16\n"
        "    name: V100\n" NODES,
        7, 11, "duplicate");
}

Test(cfg_err, unknown_gpu_type)
{
    bad(TYPES "nodes:\n  - gpus: 4\n    gpu_type: V100\n"
        "  - gpus: 8\n    gpu_type: A100\n", 8, 15, "A100");
    bad(TYPES "nodes:\n  - gpus: 4\n    gpu_type: v100\n", 6, 15, "unknown");
}

Test(cfg_err, reference_not_declared)
{
    bad("reference_gpu: H100\n" TYPES NODES, 1, 16, "H100");
    bad(TYPES NODES "reference_gpu: K80\n", 7, 16, "reference_gpu");
}

Test(cfg_err, speed_ratio_out_of_range)
{
    bad("gpu_types:\n"
        "  - {name: A, memory_gb: 1, speed: 1e-300}\n"
        "  - {name: B, memory_gb: 1, speed: 1e300}\n"
        "nodes: [{gpus: 1, gpu_type: A}]\n",
        2, 36, "must be in [1e-06, 1e+06]");
}

Test(cfg_err, too_many_gpus)
{
    /* each entry is in range, the sum is not (limit 2^24 by default) */
    bad(TYPES "nodes:\n"
        "  - {count: 200000, gpus: 64, gpu_type: V100}\n"
        "  - {count: 200000, gpus: 64, gpu_type: V100}\n",
        6, 5, "limit");
    bad(TYPES "nodes:\n  - {count: 4294967296, gpus: 1, gpu_type: V100}\n",
        5, 13, "count");
}

Test(cfg_err, long_values_are_truncated_and_escaped)
{
    struct cluster c;
    struct dl_error e = {0};
    const char *y = TYPES NODES
        "reference_gpu: \"\\xe9\\t0123456789012345678901234567890123456789\"\n";
    cr_assert_eq(load(y, &c, &e), DL_EINPUT);
    cr_expect(strstr(e.msg, "'\\xc3\\xa9\\x0901234"), "%s", e.msg);
    cr_expect(strstr(e.msg, "...'"), "%s", e.msg);
    cr_expect_eq(e.line, 7);
    cr_expect_eq(e.col, 16);
}

/* The first error in document order is the one reported. */
Test(cfg_err, first_error_wins)
{
    bad("gpu_types:\n  - name: V100\n    memory_gb: 0\n"
        "nodes:\n  - gpus: 99\n    gpu_type: V100\n", 3, 16, "memory_gb");
}

/* ------------------------------------------------- hostile input (#13) */

Test(cfg_err, gpu_types_differing_only_in_case)
{
    bad("gpu_types:\n  - {name: V100, memory_gb: 32}\n"
        "  - {name: v100, memory_gb: 16}\nnodes:\n  - {gpus: 1, gpu_type: v100}\n",
        3, 12, "differs from 'V100' (line 2) only in case");
}

Test(cfg_err, numbers_strict_and_bounded)
{
    /* hex floats are not numbers here, as nowhere else */
    bad("gpu_types:\n  - {name: V100, memory_gb: 0x1p5}\n" NODES, 2, 29,
        "expected a number");
    bad("gpu_types:\n  - {name: V100, memory_gb: 32, speed: 0x1p0}\n" NODES,
        2, 40, "expected a number");
    bad("gpu_types:\n  - {name: V100, memory_gb: 1e23}\n" NODES, 2, 29,
        "must be in (0, 1e+06]");
    bad("gpu_types:\n  - {name: V100, memory_gb: 32, speed: 1e9}\n" NODES,
        2, 40, "must be in [1e-06, 1e+06]");
    bad(TYPES "nodes:\n  - {gpus: 0x4, gpu_type: V100}\n", 5, 12,
        "expected an integer");
}

Test(cfg_err, deep_nesting_is_refused_at_once)
{
    /* libyaml's scanner is quadratic in depth: 100,000 levels took about
     * a minute to reject; now the depth cap stops it at level 65 */
    size_t n = 100000;
    char *y = malloc(2 * n + 16);
    memcpy(y, "a: ", 3);
    memset(y + 3, '[', n);
    memset(y + 3 + n, ']', n);
    y[3 + 2 * n] = '\0';
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bad(y, 1, 67, "nested deeper than 64 levels");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    cr_expect(s < 1, "%.2f s to reject", s);
    free(y);
}

Test(cfg_err, text_limits)
{
    /* a NUL byte past the start, a line over DL_MAX_LINE */
    struct cluster c;
    struct dl_error e;
    const char nul[] = TYPES NODES "name: a\0b\n";
    cr_assert_eq(cfg_load_cluster_mem("t.yaml", nul, sizeof nul - 1, &c, &e),
                 DL_EINPUT);
    cr_expect_eq(e.line, 7);
    cr_expect_eq(e.col, 8);
    cr_expect(strstr(e.msg, "NUL byte"), "%s", e.msg);
    size_t n = (2 << 20) + 64;
    char *y = malloc(n);
    int k = snprintf(y, n, "%s%s# ", TYPES, NODES);
    memset(y + k, 'x', n - (size_t)k - 2);
    y[n - 2] = '\n';
    y[n - 1] = '\0';
    cr_assert_eq(cfg_load_cluster_mem("t.yaml", y, n - 1, &c, &e), DL_EINPUT);
    cr_expect_eq(e.line, 7);
    cr_expect(strstr(e.msg, "line longer than 1048576 bytes"), "%s", e.msg);
    free(y);
    /* devices as cluster files end in a located error, not an abort */
    cr_expect_eq(cfg_load_cluster("/dev/zero", &c, &e), DL_EINPUT);
    cr_expect_str_eq(e.file, "/dev/zero");
    cr_expect_eq(e.line, 1);
    cr_expect(strstr(e.msg, "NUL byte"), "%s", e.msg);
    cr_expect_eq(cfg_load_cluster("/dev/urandom", &c, &e), DL_EINPUT);
    cr_expect(e.line >= 1, "%s", e.msg);
}

Test(cfg, many_gpu_types_load_in_linear_time)
{
    /* 40,000 types took 12.7 s (a scan of the earlier names per type, and
     * per node group; an insertion sort by speed); 100,000 now load in
     * about a second */
    enum { N = 100000 };
    size_t cap = (size_t)N * 80 + 64, o = 0;
    char *y = malloc(cap);
    o += (size_t)snprintf(y + o, cap - o, "gpu_types:\n");
    for (int i = 0; i < N; i++)
        o += (size_t)snprintf(y + o, cap - o, "  - {name: T%d, memory_gb: 16, "
                              "speed: %d}\n", i, 1 + i % 1000);
    o += (size_t)snprintf(y + o, cap - o, "nodes:\n");
    for (int i = 0; i < N; i++)
        o += (size_t)snprintf(y + o, cap - o, "  - {gpus: 1, gpu_type: T%d}\n",
                              N - 1 - i);
    struct cluster c;
    struct dl_error e;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = cfg_load_cluster_mem("t.yaml", y, o, &c, &e);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cr_assert_eq(rc, 0, "%s", e.msg);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
#ifdef __SANITIZE_ADDRESS__
    cr_expect(s < 50, "%.2f s to load", s);  /* ASan build: about 12 s */
#else
    cr_expect(s < 10, "%.2f s to load", s);  /* about 1.3 s; was minutes */
#endif
    cr_expect_eq(c.ntypes, N);
    cr_expect_eq(clu_type_find(&c, "T4242"), 4242u);
    cr_expect_eq(clu_type_find(&c, "t4242"), SIM_NONE);
    cr_expect_eq(c.nodes[0].type, (uint32_t)N - 1);
    /* fastest first, ties by index: speed 1000 is T999, T1999, ... */
    cr_expect_eq(c.type_order[0], 999u);
    cr_expect_eq(c.type_order[1], 1999u);
    cr_expect_eq(c.type_order[N - 1], (uint32_t)N - 1000);
    clu_free(&c);
    free(y);
}
