/*
 * tests/test_clusterimport.c - `dlsim cluster import`: each format on a
 * small input written here (exact output for one, loaded back and counted
 * for the others), located errors with exit status 2 and no output, the
 * GPU-type aliases and --map, determinism, and the real machine lists of
 * ../shared/data against the figures of their READMEs.  Runs the built
 * binary ($DLSIM).
 */
#include "testutil.h"
#include "models/perf.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define DATA "../../shared/data/traces/"

TestSuite(cluster_import, .fini = tu_tmp_cleanup);
TestSuite(cluster_import_real, .fini = tu_tmp_cleanup);

static void load(const char *name, struct cluster *c)
{
    struct dl_error err = { 0 };
    int rc = cfg_load_cluster(tu_tmp_path(name), c, &err);
    cr_assert_eq(rc, 0, "%s: %s", name, err.msg);
}

static uint32_t gpus_of(const struct cluster *c, const char *type)
{
    uint32_t t = clu_type_find(c, type), n = 0;
    cr_assert_neq(t, SIM_NONE, "no type %s", type);
    for (uint32_t g = 0; g < c->ngpus; g++)
        n += c->nodes[c->gpu_node[g]].type == t;
    return n;
}

Test(cluster_import, tiresias_exact_output)
{
    tu_tmp_file("spec.csv", "num_switch,num_node_p_switch,num_gpu_p_node,"
                "num_cpu_p_node,mem_p_node\n2,3,4,40,256\n");
    cr_assert_eq(tu_dlsim("cluster import --format tiresias spec.csv -o c.yaml"
                       " --name tir"), 0, "%s", tu_out);
    char buf[4096];
    FILE *f = fopen(tu_tmp_path("c.yaml"), "r");
    cr_assert(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    const char *want =
        "# Imported by `dlsim cluster import --format tiresias` from spec.csv:\n"
        "# 6 machines with GPUs, 24 GPUs; 0 machines without GPUs skipped.\n"
        "# Memory and peaks from models/gpus.csv; speed (for jobs without "
        "per-model data)\n"
        "# = FP32 peak ratio to V100, or its geometric mean with the 16-bit "
        "ratio for\n"
        "# tensor-core GPUs.\n"
        "name: \"tir\"\n"
        "reference_gpu: \"V100\"\n"
        "gpu_types:\n"
        "  - name: \"V100\"\n"
        "    memory_gb: 16\n"
        "    speed: 1    # 24 GPUs\n"
        "nodes:\n"
        "  - count: 3\n    gpus: 4\n    gpu_type: \"V100\"\n    rack: r0\n"
        "  - count: 3\n    gpus: 4\n    gpu_type: \"V100\"\n    rack: r1\n";
    cr_assert_str_eq(buf, want);
    struct cluster c;
    load("c.yaml", &c);
    cr_assert_eq(c.ngpus, 24);
    cr_assert_eq(c.nracks, 2);
    clu_free(&c);
}

Test(cluster_import, openb_aliases_cpu_nodes_and_map)
{
    /* columns in another order than the published file, a CPU-only node,
     * an alias (V100M32), an undisclosed type (G2) */
    tu_tmp_file("nodes.csv",
                "model,gpu,sn,cpu_milli,memory_mib\n"
                "V100M32,8,n0,96000,786432\n"
                ",0,n1,32000,262144\n"
                "G2,8,n2,96000,786432\n"
                "V100M16,8,n3,96000,786432\n"
                "G2,8,n4,96000,786432\n"
                "T4,2,n5,96000,786432\n");
    cr_assert_eq(tu_dlsim("cluster import --format openb nodes.csv -o a.yaml"), 0,
                 "%s", tu_out);
    cr_assert(strstr(tu_out, "'G2' is not in the zoo's gpus.csv"), "%s",
              tu_out);
    cr_assert(strstr(tu_out, "5 machines, 34 GPUs of 4 types"), "%s",
              tu_out);
    cr_assert(strstr(tu_out, "skipped 1 machine without GPUs"));
    struct cluster c;
    load("a.yaml", &c);
    cr_assert_eq(c.ngpus, 34);
    cr_assert_eq(gpus_of(&c, "V100-32GB"), 8);
    cr_assert_eq(gpus_of(&c, "V100"), 8);
    cr_assert_eq(gpus_of(&c, "G2"), 16);
    cr_assert_eq(gpus_of(&c, "T4"), 2);
    cr_assert_str_eq(c.types[c.ref_type].name, "V100");
    uint32_t t4 = clu_type_find(&c, "T4"), v32 = clu_type_find(&c, "V100-32GB");
    /* T4: tensor cores: sqrt(8.1/15.7 * 65/125) = 0.518 */
    cr_assert_float_eq(c.types[t4].speed, 0.518, 1e-9);
    cr_assert_float_eq(c.types[v32].memory_gb, 32, 1e-12);
    /* the two G2 nodes are merged into one entry although not adjacent */
    cr_assert_eq(c.ngroups, 4);
    clu_free(&c);

    /* --map gives G2 a known type's figures, keeping its name */
    cr_assert_eq(tu_dlsim("cluster import --format openb nodes.csv -o b.yaml "
                       "--map G2=P100 --reference T4"), 0, "%s", tu_out);
    cr_assert_null(strstr(tu_out, "'G2' is not in"), "%s", tu_out);
    load("b.yaml", &c);
    uint32_t g2 = clu_type_find(&c, "G2");
    cr_assert_str_eq(c.types[c.ref_type].name, "T4");
    /* P100 has no tensor cores: the FP32 ratio 9.3 / 8.1 */
    cr_assert_float_eq(c.types[g2].speed, 9.3 / 8.1, 1e-3);
    clu_free(&c);
}

Test(cluster_import, pai_tarball_and_no_header)
{
    tu_tmp_file("pai_machine_spec.csv",
                "m0,CPU,96,512,0\n"
                "m1,MISC,96,512,8\n"
                "m2,P100,64,512,2\n"
                "m3,V100M32,96,512,8\n"
                "m4,P100,64,512,2\n");
    cr_assert_eq(tu_dlsim("cluster import --format pai pai_machine_spec.csv "
                       "-o plain.yaml"), 0, "%s", tu_out);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && tar czf spec.tar.gz "
             "pai_machine_spec.csv", tu_tmp_path(""));
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(tu_dlsim("cluster import --format pai spec.tar.gz -o tar.yaml "
                       "--rack-nodes 2"), 0, "%s", tu_out);
    struct cluster c;
    load("plain.yaml", &c);
    cr_assert_eq(c.ngpus, 20);
    cr_assert_eq(gpus_of(&c, "K80"), 8);   /* MISC */
    cr_assert_eq(gpus_of(&c, "P100"), 4);
    cr_assert_eq(gpus_of(&c, "V100-32GB"), 8);
    /* no V100: the reference is the type with the most GPUs, first wins */
    cr_assert_str_eq(c.types[c.ref_type].name, "K80");
    clu_free(&c);
    load("tar.yaml", &c);
    cr_assert_eq(c.ngpus, 20);
    cr_assert_eq(c.nracks, 2);              /* 4 machines, 2 per rack */
    clu_free(&c);
    /* a tar header whose size field is "-1" (strtoull: 2^64 - 1) or
     * larger than the archive: a located error, not a wild memmove */
    static const char *const sizes[] = {"-1", "77777777777"};
    for (int k = 0; k < 2; k++) {
        char tar[1024] = {0};
        memcpy(tar, "a.csv", 5);
        memcpy(tar + 124, sizes[k], strlen(sizes[k]));
        tar[156] = '0';
        memcpy(tar + 257, "ustar", 5);
        memcpy(tar + 512, "m1,V100,96,512,8\n", 17);
        FILE *f = fopen(tu_tmp_path("evil.tar"), "wb");
        cr_assert(f);
        fwrite(tar, 1, sizeof tar, f);
        fclose(f);
        cr_assert_eq(tu_dlsim("cluster import --format pai evil.tar -o e.yaml"),
                     2, "%s", tu_out);
        cr_expect(strstr(tu_out, "evil.tar: corrupt tar archive (bad member "
                         "size at byte 124)"), "%s", tu_out);
        cr_expect(!tu_tmp_exists("e.yaml"));
    }
    /* spellings of one type count together: MISC 8 + K80 8 = 16 K80s
     * outnumber 12 P100s, though each spelling alone does not */
    tu_tmp_file("mg.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                "a,1,1,8,MISC\nb,1,1,8,K80\nc,1,1,8,P100\nd,1,1,4,P100\n");
    cr_assert_eq(tu_dlsim("cluster import --format openb mg.csv -o mg.yaml"), 0,
                 "%s", tu_out);
    load("mg.yaml", &c);
    cr_assert_eq(gpus_of(&c, "K80"), 16);
    cr_assert_str_eq(c.types[c.ref_type].name, "K80");
    clu_free(&c);
}

Test(cluster_import, gavel_and_philly)
{
    tu_tmp_file("specs.json", "{\"small\": [\"10:0:3\"], "
                "\"other\": [\"1:2:3\"]}\n");
    cr_assert_eq(tu_dlsim("cluster import --format gavel specs.json -o g.yaml "
                       "--node-gpus 4"), 0, "%s", tu_out);
    struct cluster c;
    load("g.yaml", &c);
    cr_assert_eq(gpus_of(&c, "V100"), 10);
    cr_assert_eq(gpus_of(&c, "K80"), 3);
    cr_assert_eq(c.nnodes, 3 + 1);          /* 4+4+2 V100, 3 K80 */
    cr_assert_eq(c.max_node_gpus, 4);
    clu_free(&c);
    cr_assert_eq(tu_dlsim("cluster import --format gavel specs.json -o h.yaml "
                       "--select other"), 0, "%s", tu_out);
    load("h.yaml", &c);
    cr_assert_eq(gpus_of(&c, "P100"), 2);
    clu_free(&c);

    tu_tmp_file("machines.csv", "machineId,number of GPUs,single GPU mem\n"
                "m1,8,24GB\nm2,2,12GB\nm3,8,24GB\nm4,0,12GB\n");
    cr_assert_eq(tu_dlsim("cluster import --format philly machines.csv -o p.yaml "
                       "--map GPU-24GB=P100"), 0, "%s", tu_out);
    load("p.yaml", &c);
    cr_assert_eq(gpus_of(&c, "GPU-24GB"), 16);
    cr_assert_eq(gpus_of(&c, "GPU-12GB"), 2);
    /* the list's memory is kept for an unmapped type; a mapped one takes
     * the figures it was mapped to */
    cr_assert_float_eq(c.types[clu_type_find(&c, "GPU-12GB")].memory_gb, 12,
                       1e-12);
    cr_assert_float_eq(c.types[clu_type_find(&c, "GPU-24GB")].memory_gb, 16,
                       1e-12);
    clu_free(&c);
}

Test(cluster_import, bad_input_is_located_and_leaves_nothing)
{
    tu_tmp_file("bad.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                "n0,1,1,8,V100\n"
                "n1,1,1,eight,V100\n");
    cr_assert_eq(tu_dlsim("cluster import --format openb bad.csv -o x.yaml"), 2);
    cr_assert(strstr(tu_out, "bad.csv:3:"), "%s", tu_out);
    cr_assert(strstr(tu_out, "'eight'"), "%s", tu_out);
    cr_assert(!tu_tmp_exists("x.yaml"));

    tu_tmp_file("nocol.csv", "sn,cpu_milli,memory_mib,gpus,model\nn0,1,1,8,V100\n");
    cr_assert_eq(tu_dlsim("cluster import --format openb nocol.csv -o x.yaml"), 2);
    cr_assert(strstr(tu_out, "nocol.csv:1: missing column 'gpu' in the "
                     "header"), "%s", tu_out);

    tu_tmp_file("cpu.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,0,\n");
    cr_assert_eq(tu_dlsim("cluster import --format openb cpu.csv -o x.yaml"), 2);
    cr_assert(strstr(tu_out, "no machine with GPUs"), "%s", tu_out);

    /* a NUL byte must not end the input early (2 machines, not 4) */
    FILE *z = fopen(tu_tmp_path("nul.csv"), "wb");
    cr_assert(z);
    fwrite("m1,V100,96,512,8\nm2,V10\0,96,512,8\nm3,P100,96,512,8\n"
           "m4,P100,96,512,8\n", 1, 68, z);
    fclose(z);
    cr_assert_eq(tu_dlsim("cluster import --format pai nul.csv -o x.yaml"), 2,
                 "%s", tu_out);
    cr_assert(strstr(tu_out, "nul.csv:2:7: NUL byte"), "%s", tu_out);
    cr_assert(!tu_tmp_exists("x.yaml"));

    /* the cluster file's limits (64 GPUs a node, 2^24 in all) are input
     * errors located in the input, not in the never-written output */
    tu_tmp_file("big.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                "n0,1,1,128,V100\n");
    cr_assert_eq(tu_dlsim("cluster import --format openb big.csv -o x.yaml"), 2);
    cr_assert(strstr(tu_out, "big.csv:2:8: GPUs per machine: expected a "
                     "whole number in [0, 64], got '128'"), "%s", tu_out);
    tu_tmp_file("tir.csv", "num_switch,num_node_p_switch,num_gpu_p_node\n"
                "1048576,1048576,64\n");
    cr_assert_eq(tu_dlsim("cluster import --format tiresias tir.csv -o x.yaml"), 2);
    cr_assert(strstr(tu_out, "tir.csv: 70368744177664 GPUs, over the cluster "
                     "limit of 16777216"), "%s", tu_out);
    tu_tmp_file("g8.json", "{\"a\": [\"1000:0:0\"]}");
    cr_assert_eq(tu_dlsim("cluster import --format gavel g8.json --node-gpus 128"),
                 2);
    cr_assert(strstr(tu_out, "--node-gpus: expected a whole number in [1, "
                     "64]"), "%s", tu_out);
    cr_assert(!tu_tmp_exists("x.yaml"));

    /* a file name with a newline stays inside the header comment */
    tu_tmp_file("n\nname: x.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                "n0,1,1,8,V100\n");
    cr_assert_eq(tu_dlsim("cluster import --format openb 'n\nname: x.csv' "
                       "-o nl.yaml"), 0, "%s", tu_out);
    struct cluster c;
    load("nl.yaml", &c);
    cr_assert_str_eq(c.name, "openb");
    clu_free(&c);
    /* nor does a file name that is not UTF-8 make the YAML unreadable */
    tu_tmp_file("m\xff.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                "n0,1,1,8,V100\n");
    cr_assert_eq(tu_dlsim("cluster import --format openb 'm\xff.csv' "
                       "-o ff.yaml"), 0, "%s", tu_out);
    load("ff.yaml", &c);
    cr_assert_eq(c.ngpus, 8);
    clu_free(&c);

    tu_tmp_file("g.json", "{\"a\": [\"10:x:3\"]}");
    cr_assert_eq(tu_dlsim("cluster import --format gavel g.json -o x.yaml"), 2);
    cr_assert(strstr(tu_out, "g.json:1:8:"), "%s", tu_out);

    cr_assert_eq(tu_dlsim("cluster import --format nope bad.csv"), 2);
    cr_assert(strstr(tu_out, "expected one of pai, openb"), "%s", tu_out);
    cr_assert_eq(tu_dlsim("cluster import --format openb missing.csv"), 1);
    tu_tmp_file("ok.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,8,V100\n");
    cr_assert_eq(tu_dlsim("cluster import --format openb ok.csv --reference H100"),
                 2);
    cr_assert(strstr(tu_out, "no GPU type 'H100'"), "%s", tu_out);
    cr_assert_eq(tu_dlsim("cluster import --format openb ok.csv --map G2"), 2);
    cr_assert(!tu_tmp_exists("x.yaml"));
    cr_assert_eq(tu_dlsim("cluster import --help"), 0);
    cr_assert(strstr(tu_out, "--node-gpus"));
}

/* Found by tests/fuzz/fuzz_clusterimport.c: a truncated gzip stream was
 * taken as the part that decompressed (and a corrupt one's message was
 * read after zlib freed it); a tar header's size field was parsed with
 * strtoull, so "-1" wrapped (a copy of 2^64 - 1 bytes) and "-1000" made
 * the header walk stand still forever. */
Test(cluster_import, truncated_gzip_and_bad_tar_headers)
{
    const char *rows = "m1,V100,96,512,8\nm2,P100,64,512,2\n"
                       "m3,V100,96,512,8\nm4,T4,64,512,2\n";
    tu_tmp_file("spec.csv", rows);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && gzip -c spec.csv > full.gz && "
             "head -c 40 full.gz > cut.gz", tu_tmp_path(""));
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(tu_dlsim("cluster import --format pai full.gz -o x.yaml"), 0,
                 "%s", tu_out);
    cr_assert(tu_tmp_exists("x.yaml"));
    cr_assert_eq(tu_dlsim("cluster import --format pai cut.gz -o y.yaml"), 2,
                 "%s", tu_out);
    /* located where the data ended: cut.gz:LINE:COL: */
    cr_assert(strstr(tu_out, "cut.gz:") &&
              strstr(tu_out, ": truncated gzip stream"), "%s", tu_out);
    cr_assert(!tu_tmp_exists("y.yaml"));

    /* one ustar header with a given size field, then a data block */
    static const char *const sizes[] = { "-1", "-1000", "12x", "" };
    for (int k = 0; k < 4; k++) {
        char tar[1024];
        memset(tar, 0, sizeof tar);
        memcpy(tar, "spec.csv", 8);
        memcpy(tar + 124, sizes[k], strlen(sizes[k]));
        tar[156] = k == 1 ? '5' : '0';      /* "-1000": a directory */
        memcpy(tar + 257, "ustar", 5);
        memcpy(tar + 512, rows, strlen(rows));
        FILE *f = fopen(tu_tmp_path("bad.tar"), "wb");
        cr_assert(f);
        cr_assert_eq(fwrite(tar, 1, sizeof tar, f), sizeof tar);
        fclose(f);
        cr_assert_eq(tu_dlsim("cluster import --format pai bad.tar -o z.yaml"),
                     2, "size '%s': %s", sizes[k], tu_out);
        cr_assert(strstr(tu_out, "bad.tar: corrupt tar archive (bad member "
                         "size at byte 124)"), "%s", tu_out);
        cr_assert(!tu_tmp_exists("z.yaml"));
    }
    /* the same archive with a good size field reads the file */
    char tar[1024];
    memset(tar, 0, sizeof tar);
    memcpy(tar, "spec.csv", 8);
    snprintf(tar + 124, 12, "%011o", (unsigned)strlen(rows));
    tar[156] = '0';
    memcpy(tar + 257, "ustar", 5);
    memcpy(tar + 512, rows, strlen(rows));
    FILE *f = fopen(tu_tmp_path("good.tar"), "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(tar, 1, sizeof tar, f), sizeof tar);
    fclose(f);
    cr_assert_eq(tu_dlsim("cluster import --format pai good.tar -o t.yaml"), 0,
                 "%s", tu_out);
    struct cluster c;
    load("t.yaml", &c);
    cr_assert_eq(c.ngpus, 20);
    clu_free(&c);
}

/* Found by fuzz_clusterimport: a one-line Tiresias spec of 100,000
 * switches (one rack each) took 15 s to load, racks being looked up by a
 * linear search (sim/cluster/cluster.c now hashes them); and a spec over the
 * cluster limit was written out whole before cfg refused it. */
Test(cluster_import, many_racks_and_the_gpu_limit)
{
    tu_tmp_file("racks.csv", "num_switch,num_node_p_switch,num_gpu_p_node\n"
                "3000,2,1\n");
    cr_assert_eq(tu_dlsim("cluster import --format tiresias racks.csv "
                       "-o r.yaml"), 0, "%s", tu_out);
    struct cluster c;
    load("r.yaml", &c);
    cr_assert_eq(c.nracks, 3000);
    cr_assert_eq(c.nnodes, 6000);
    for (uint32_t i = 0; i < c.nnodes; i++)
        cr_assert_eq(c.nodes[i].rack, i / 2, "node %u", i);
    for (uint32_t r = 1; r < c.nracks; r++)
        cr_assert_str_neq(c.racks[r], c.racks[r - 1]);
    clu_free(&c);

    /* 5000 x 5000 x 1 = 25 million GPUs, over 2^24 */
    tu_tmp_file("big.csv", "num_switch,num_node_p_switch,num_gpu_p_node\n"
                "5000,5000,1\n");
    cr_assert_eq(tu_dlsim("cluster import --format tiresias big.csv -o b.yaml"),
                 2, "%s", tu_out);
    cr_assert(strstr(tu_out, "big.csv: 25000000 GPUs, over the cluster "
                     "limit of 16777216"), "%s", tu_out);
    cr_assert(!tu_tmp_exists("b.yaml"));
}

/* The published machine lists against their READMEs' figures. */
static void real(const char *format, const char *file, uint32_t gpus,
                 const char *const *types, const uint32_t *counts, int n,
                 const char *skipped)
{
    char here[1024];
    cr_assert(getcwd(here, sizeof here));
    cr_assert_eq(tu_dlsim("cluster import --format %s '%s/" DATA "%s' -o r.yaml",
                       format, here, file), 0, "%s", tu_out);
    if (skipped)
        cr_assert(strstr(tu_out, skipped), "%s", tu_out);
    struct cluster c;
    load("r.yaml", &c);
    cr_assert_eq(c.ngpus, gpus);
    for (int i = 0; i < n; i++)
        cr_assert_eq(gpus_of(&c, types[i]), counts[i], "%s", types[i]);
    clu_free(&c);
    /* byte-identical on a second import */
    char cmd[1024];
    cr_assert_eq(tu_dlsim("cluster import --format %s '%s/" DATA "%s' -o r2.yaml",
                       format, here, file), 0);
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", tu_tmp_path("r.yaml"),
             tu_tmp_path("r2.yaml"));
    cr_assert_eq(system(cmd), 0);
}

Test(cluster_import_real, pai_2020)
{
    /* README: 1,897 machines, 6,742 GPUs: MISC 2,240, P100 1,596,
     * V100M32 1,080, T4 994, V100 832; 83 CPU-only machines */
    static const char *const t[] = {"K80", "P100", "V100-32GB", "T4", "V100"};
    static const uint32_t n[] = {2240, 1596, 1080, 994, 832};
    real("pai", "alibaba-gpu-v2020-pai/pai_machine_spec.tar.gz", 6742, t, n, 5,
         "1814 machines, 6742 GPUs of 5 types, 1 rack; skipped 83 machines");
}

Test(cluster_import_real, openb_2023)
{
    /* README: 1,523 nodes, 1,213 with GPUs; 6,212 GPUs: G2 4,392, T4 842,
     * G3 312, P100 265, V100M32 204, V100M16 195, A10 2 */
    static const char *const t[] = {"G2", "T4", "G3", "P100", "V100-32GB",
                                    "V100", "A10"};
    static const uint32_t n[] = {4392, 842, 312, 265, 204, 195, 2};
    real("openb", "alibaba-gpu-v2023-openb/csv/openb_node_list_all_node.csv.gz",
         6212, t, n, 7, "1213 machines, 6212 GPUs of 7 types, 1 rack; skipped "
         "310 machines");
}

Test(cluster_import_real, spot_2026)
{
    /* README: 4,278 nodes, 10,412 GPUs: A100-SXM4-80GB 3,456, A10 2,494,
     * H800 1,752, GPU-series-1 1,558, GPU-series-2 976, A800-SXM4-80GB 176 */
    static const char *const t[] = {"A100-80GB", "A10", "H800", "GPU-series-1",
                                    "GPU-series-2", "A800-80GB"};
    static const uint32_t n[] = {3456, 2494, 1752, 1558, 976, 176};
    real("spot", "alibaba-v2026-spot-gpu/node_info_df.csv.gz", 10412, t, n, 6,
         "4278 machines, 10412 GPUs of 6 types");
}

Test(cluster_import_real, tiresias_and_gavel)
{
    static const char *const v[] = {"V100"};
    static const uint32_t n32[] = {128}, n500[] = {500};
    real("tiresias", "tiresias/n32g4.csv", 128, v, n32, 1, "32 machines");
    real("gavel", "philly-gavel/msr/cluster_specs.json", 500, v, n500, 1, NULL);
    static const char *const h[] = {"V100", "P100", "K80"};
    static const uint32_t n300[] = {300, 300, 300};
    real("gavel", "philly-gavel/msr/cluster_specs_heterogeneous.json", 900, h,
         n300, 3, NULL);
}

Test(cluster_import_real, imported_cluster_runs)
{
    char here[1024];
    cr_assert(getcwd(here, sizeof here));
    cr_assert_eq(tu_dlsim("cluster import --format pai '%s/" DATA
                       "alibaba-gpu-v2020-pai/pai_machine_spec.tar.gz' "
                       "-o pai.yaml", here), 0, "%s", tu_out);
    cr_assert_eq(tu_dlsim("trace gen --cluster pai.yaml --jobs 300 --seed 3 "
                       "-o t.csv"), 0, "%s", tu_out);
    cr_assert_eq(tu_dlsim("run --trace t.csv --cluster pai.yaml --policy srtf "
                       "--check --quiet"), 0, "%s", tu_out);
}

/* ------------------------------------------- no silent fallback (#12, #13) */

Test(cluster_import, the_zoo_is_required)
{
    tu_tmp_file("n.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,8,V100\n");
    /* without it every type would be written at speed 1 and 16 GB */
    cr_expect_eq(tu_sh("DLSIM_MODELS=/nonexistent \"$DLSIM\" cluster import "
                       "--format openb n.csv -o x.yaml"), 1, "%s", tu_out);
    cr_expect(strstr(tu_out, "DLSIM_MODELS"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("x.yaml"));
    /* an input error comes first, zoo or not */
    tu_tmp_file("b.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,x,V100\n");
    cr_expect_eq(tu_sh("DLSIM_MODELS=/nonexistent \"$DLSIM\" cluster import "
                       "--format openb b.csv -o x.yaml"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "b.csv:2:"), "%s", tu_out);
}

Test(cluster_import, maps_must_match)
{
    tu_tmp_file("n.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,8,G1\n");
    cr_expect_eq(tu_dlsim("cluster import --format openb n.csv --map G1=UNKNOWN "
                          "-o x.yaml"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "--map G1=UNKNOWN: 'UNKNOWN' is not a GPU type"),
              "%s", tu_out);
    cr_expect_eq(tu_dlsim("cluster import --format openb n.csv --map G2=V100 "
                          "-o x.yaml"), 2, "%s", tu_out);
    cr_expect(strstr(tu_out, "n.csv: --map G2=V100: no GPU type 'G2' in the "
                     "input"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("x.yaml"));
    cr_expect_eq(tu_dlsim("cluster import --format openb n.csv --map g1=V100 "
                          "-o x.yaml"), 0, "%s", tu_out);
}

Test(cluster_import, numbers_strict_and_case_spellings_one_type)
{
    tu_tmp_file("h.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,0x8,V100\n");
    cr_expect_eq(tu_dlsim("cluster import --format openb h.csv -o x.yaml"), 2,
                 "%s", tu_out);
    cr_expect(strstr(tu_out, "h.csv:2:8: GPUs per machine"), "%s", tu_out);
    tu_tmp_file("p.csv", "machineId,number of GPUs,single GPU mem\n"
                "m1,8,0x18GB\n");
    cr_expect_eq(tu_dlsim("cluster import --format philly p.csv -o x.yaml"), 2,
                 "%s", tu_out);
    cr_expect(strstr(tu_out, "p.csv:2:"), "%s", tu_out);
    /* spellings that differ only in case become one type, so the file
     * written loads (a cluster file may not declare both) */
    tu_tmp_file("c.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
                "n0,1,1,8,Foo\nn1,1,1,4,FOO\nn2,1,1,2,v100\nn3,1,1,2,V100\n");
    cr_assert_eq(tu_dlsim("cluster import --format openb c.csv -o c.yaml"), 0,
                 "%s", tu_out);
    struct cluster c;
    load("c.yaml", &c);
    cr_expect_eq(c.ntypes, 2);
    cr_expect_eq(gpus_of(&c, "Foo"), 12);
    cr_expect_eq(gpus_of(&c, "V100"), 4);
    clu_free(&c);
    /* a byte order mark before the header is skipped */
    tu_tmp_file("bom.csv", "\xef\xbb\xbfsn,cpu_milli,memory_mib,gpu,model\n"
                "n0,1,1,8,V100\n");
    cr_expect_eq(tu_dlsim("cluster import --format openb bom.csv -o b.yaml"), 0,
                 "%s", tu_out);
}
