/*
 * sim/cli/cli.h - inside the command line only: each command's entry point
 * (argv[0] is the command's name; the exit status of SPEC 1 comes back)
 * and the shared usage message.
 */
#ifndef DLSIM_CLI_H
#define DLSIM_CLI_H

#include "sim/sim.h"

/* "dlsim CMD: msg (see dlsim CMD --help)" on stderr; returns 2. */
int cli_usage(const char *cmd, const char *msg);

int dl_main(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_sweep(int argc, char **argv);
int cli_trace_import(int argc, char **argv);
int cli_cluster_import(int argc, char **argv);
int cli_trace_gen(int argc, char **argv);
int cli_trace_stats(int argc, char **argv);
int cli_trace_annotate(int argc, char **argv);
int cli_trace_fit(int argc, char **argv);
int cli_trace_compare(int argc, char **argv);
int cli_trace_scale(int argc, char **argv);
int cli_fit_convert(int argc, char **argv);
int cli_fit_slowdown(int argc, char **argv);
int cli_fit_util(int argc, char **argv);
int cli_fit_runtime(int argc, char **argv);

#endif
