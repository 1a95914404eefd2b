/*
 * sim/cli/cluster.c - `dlsim cluster import --format F IN [-o OUT]`: the
 * command line of the machine-list importer (traces/import/cluster.c).
 */
#include "sim/cli/cli.h"
#include "traces/import/import.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char import_help[] =
    "usage: dlsim cluster import --format F IN [-o OUT.yaml] [options]\n"
    "\n"
    "Writes a cluster file (SPEC section 3) from a public machine list.\n"
    "IN may be plain or gzip (and, for pai, the published .tar.gz).\n"
    "\n"
    "formats:\n"
    "  pai       Alibaba PAI 2020 pai_machine_spec.csv (machine,gpu_type,\n"
    "            cap_cpu,cap_mem,cap_gpu; no header)\n"
    "  openb     Alibaba 2023 openb_node_list_*.csv (sn,cpu_milli,\n"
    "            memory_mib,gpu,model)\n"
    "  spot      Alibaba 2026 spot-GPU node_info_df.csv (gpu_model,\n"
    "            gpu_capacity_num,cpu_num,node_name)\n"
    "  philly    Philly cluster_machine_list (machineId,number of GPUs,\n"
    "            single GPU mem); types are named GPU-<mem>GB (use --map)\n"
    "  tiresias  Tiresias cluster_spec.csv (num_switch,num_node_p_switch,\n"
    "            num_gpu_p_node,...); one rack per switch\n"
    "  gavel     Gavel cluster_specs*.json ({\"name\": [\"v100:p100:k80\"]})\n"
    "\n"
    "options:\n"
    "  -o OUT.yaml        output (default: standard output)\n"
    "  --name NAME        the cluster's name (default: the format's name)\n"
    "  --reference TYPE   reference GPU type (default V100 when present,\n"
    "                     else the type with the most GPUs)\n"
    "  --map FROM=TYPE    give type FROM the memory and peaks of TYPE from\n"
    "                     models/gpus.csv, keeping its name (repeatable)\n"
    "  --rack-nodes K     put every K machines, in input order, in one rack\n"
    "  --gpu-type TYPE    tiresias: the GPU type (default V100)\n"
    "  --select NAME      gavel: which spec of the file (default the first)\n"
    "  --node-gpus N      gavel: GPUs per node, 1..64 (default 8)\n"
    "\n"
    "Machines without GPUs are skipped and counted; CPU and memory columns\n"
    "are not modelled.  A summary goes to standard error.\n";

int cli_cluster_import(int argc, char **argv)
{
    enum { O_FORMAT = 256, O_NAME, O_REF, O_MAP, O_RACK, O_TYPE, O_SELECT,
           O_NODEGPUS, O_HELP };
    static const struct option opts[] = {
        {"format", required_argument, NULL, O_FORMAT},
        {"name", required_argument, NULL, O_NAME},
        {"reference", required_argument, NULL, O_REF},
        {"map", required_argument, NULL, O_MAP},
        {"rack-nodes", required_argument, NULL, O_RACK},
        {"gpu-type", required_argument, NULL, O_TYPE},
        {"select", required_argument, NULL, O_SELECT},
        {"node-gpus", required_argument, NULL, O_NODEGPUS},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    static const char *const formats[] = {"pai", "openb", "spot", "philly",
                                          "tiresias", "gavel"};
    struct clu_import_opts o = { .node_gpus = 8 };
    const char *format = NULL, *out = NULL, *name = NULL, *ref = NULL,
               *select = NULL;
    unsigned long long rack_nodes = 0, node_gpus = 8;
    int ch, rc = 2;
    char *end;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
        switch (ch) {
        case O_FORMAT: format = optarg; break;
        case 'o': out = optarg; break;
        case O_NAME: name = optarg; break;
        case O_REF: ref = optarg; break;
        case O_TYPE: o.gpu_type = optarg; break;
        case O_SELECT: select = optarg; break;
        case O_MAP:
            if (!strchr(optarg, '=') || optarg[0] == '=' ||
                !strchr(optarg, '=')[1] || o.nmaps == CLU_IMPORT_MAX_MAPS) {
                fprintf(stderr, "dlsim cluster import: --map: expected "
                        "FROM=TYPE (at most %d), got '%s'\n", CLU_IMPORT_MAX_MAPS,
                        optarg);
                goto done;
            }
            o.maps[o.nmaps++] = optarg;
            break;
        case O_RACK:
        case O_NODEGPUS: {
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            unsigned hi = ch == O_RACK ? 1024 : CLU_IMPORT_MAX_NODE_GPUS;
            if (end == optarg || *end || errno || v < 1 || v > hi ||
                optarg[0] == '-') {
                fprintf(stderr, "dlsim cluster import: --%s: expected a whole "
                        "number in [1, %u], got '%s'\n",
                        ch == O_RACK ? "rack-nodes" : "node-gpus", hi, optarg);
                goto done;
            }
            *(ch == O_RACK ? &rack_nodes : &node_gpus) = v;
            break;
        }
        case O_HELP:
            fputs(import_help, stdout);
            rc = 0;
            goto done;
        case ':':
            fprintf(stderr, "dlsim cluster import: option '%s' needs a "
                    "value (see dlsim cluster import --help)\n",
                    argv[optind - 1]);
            goto done;
        default:
            fprintf(stderr, "dlsim cluster import: unknown option '%s' (see "
                    "dlsim cluster import --help)\n", argv[optind - 1]);
            goto done;
        }
    }
    int fi = -1;
    for (int i = 0; format && i < (int)(sizeof formats / sizeof *formats); i++)
        if (!strcmp(format, formats[i]))
            fi = i;
    if (fi < 0) {
        fprintf(stderr, "dlsim cluster import: --format: expected one of pai, "
                "openb, spot, philly, tiresias, gavel%s%s%s\n",
                format ? ", got '" : "", format ? format : "",
                format ? "'" : "");
        goto done;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "dlsim cluster import: expected one input file (see "
                "dlsim cluster import --help)\n");
        goto done;
    }
    o.format = format;
    o.in = argv[optind];
    o.out = out;
    o.name = name;
    o.reference = ref;
    o.select = select;
    o.rack_nodes = (uint32_t)rack_nodes;
    o.node_gpus = node_gpus;
    struct dl_error err = { 0 };
    rc = clu_import_run(&o, &err);
    if (rc)
        dl_error_print(&err, stderr);
    rc = dl_exit_status(rc);
done:
    return rc;
}
