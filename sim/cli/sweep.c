/*
 * sim/cli/sweep.c - `dlsim sweep SPEC.yaml [options]` and `dlsim sweep
 * --merge DIR`: the command line of the sweep (sim/sweep/ does the work).
 */
#include "sim/cli/cli.h"
#include "sim/sweep/sweep.h"

#include <getopt.h>

static const char sweep_help[] =
    "usage: dlsim sweep SPEC.yaml [--jobs N] [--out DIR] [--resume]\n"
    "                   [--shard I/N] [--strict] [--quiet]\n"
    "       dlsim sweep --merge DIR [--quiet]\n"
    "\n"
    "Runs the grid of SPEC.yaml (policies x traces x clusters x models x\n"
    "loads x seeds, per named scenario; docs/sweeps.md), each run in its\n"
    "own process: DIR/runs/<run_id>/ gets what `dlsim run --out` writes (or\n"
    "error.txt when the run failed), then DIR/summary.csv gets one row per\n"
    "run in grid order.  Every input is loaded and checked before the first\n"
    "run starts; a failed run is recorded and the others go on.\n"
    "\n"
    "  --jobs N     runs at once (default: the number of online CPUs)\n"
    "  --out DIR    output directory (default: the spec's file name without\n"
    "               .yaml, plus .out, in the current directory); it must be\n"
    "               new or empty unless --resume\n"
    "  --resume     continue an interrupted sweep in DIR: keep the finished\n"
    "               runs (ok or failed), redo the others and those to retry\n"
    "               (a full disk, an I/O error, a kill), rewrite summary.csv\n"
    "  --shard I/N  only the runs whose index % N == I (0 <= I < N), e.g. one\n"
    "               Slurm array task each, all with the same --out on a shared\n"
    "               filesystem; finished runs of the shard are kept; writes\n"
    "               DIR/summary.shard-I-of-N.csv\n"
    "  --merge DIR  after the shards: check that every run of DIR/grid.csv is\n"
    "               in DIR/runs/ and write DIR/summary.csv\n"
    "  --strict     every run with dlsim run --strict (as the spec key\n"
    "               strict: true does per scenario): any warning fails it\n"
    "               (a trace that warns on loading: the spec is refused).\n"
    "               Sweeps for a paper should pass it\n"
    "  --quiet      no progress, log lines or final line (errors still shown)\n"
    "\n"
    "Under mpirun (a build with MPI): rank 0 hands out the runs one at a time\n"
    "to every rank (itself included), each rank running one at a time (--jobs\n"
    "is ignored); DIR must be on a filesystem that every rank sees.\n"
    "\n"
    "Progress goes to stderr: on a terminal one redrawn line (runs done,\n"
    "failures, ETA), otherwise one line per finished run.\n"
    "\n"
    "One sweep at a time per DIR (shards of one --shard I/N together): a\n"
    "second live one is refused, naming the holder's pid.\n"
    "\n"
    "Exit status: 0 every run succeeded; 1 some run failed or is to retry\n"
    "(its row says why; DIR/logs/<run_id>.log holds its stderr) or an I/O\n"
    "error; 2 bad usage, a bad spec (file:line:col) or DIR in use by another\n"
    "sweep, nothing run.\n";

int cli_sweep(int argc, char **argv)
{
    static const struct option lo[] = {
        { "jobs", required_argument, 0, 'j' },
        { "out", required_argument, 0, 'o' },
        { "resume", no_argument, 0, 'r' },
        { "shard", required_argument, 0, 'S' },
        { "merge", required_argument, 0, 'M' },
        { "quiet", no_argument, 0, 'q' },
        { "strict", no_argument, 0, 'X' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    long jobs = 0;
    const char *out = NULL, *merge = NULL;
    bool resume = false, quiet = false, shard = false, strict = false;
    uint32_t shard_i = 0, shard_n = 1;
    int ch;
    optind = 0;
    while ((ch = getopt_long(argc, argv, "j:o:rS:M:qXh", lo, NULL)) != -1) {
        switch (ch) {
        case 'j':
            if (sim_parse_long(optarg, &jobs) || jobs < 1 || jobs > 4096)
                return cli_usage("sweep", "--jobs expects a number of processes >= 1");
            break;
        case 'o': out = optarg; break;
        case 'r': resume = true; break;
        case 'S':
            if (swp_parse_shard(optarg, &shard_i, &shard_n))
                return cli_usage("sweep", "--shard expects I/N with 0 <= I < N");
            shard = true;
            break;
        case 'M': merge = optarg; break;
        case 'q': quiet = true; break;
        case 'X': strict = true; break;
        case 'h': fputs(sweep_help, stdout); return 0;
        default: return cli_usage("sweep", "bad option");
        }
    }
    if (merge && (optind < argc || out || resume || shard || jobs || strict))
        return cli_usage("sweep", "--merge DIR takes no spec and no other "
                         "option but --quiet");
    if (!merge && optind + 1 != argc)
        return cli_usage("sweep", optind < argc ? "expected one spec file"
                                                : "a spec file is required");
    struct swp_opts o = {
        .spec = merge ? NULL : argv[optind], .out = out, .merge = merge,
        .jobs = jobs, .resume = resume, .quiet = quiet, .strict = strict,
        .shard = shard, .shard_i = shard_i, .shard_n = shard_n,
    };
    return dl_exit_status(swp_run(&o));
}
