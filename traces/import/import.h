/*
 * traces/import/import.h - importers of public data (libdlsim_import, a
 * tool above the models layer): `dlsim trace import` of the public traces
 * (import.c, one reader per family in imp_*.c; traces/import/impint.h is
 * their shared context) and `dlsim cluster import` of the published machine
 * lists (cluster.c, which names GPU types through the zoo's alias table and
 * figures).
 */
#ifndef DLSIM_IMPORT_H
#define DLSIM_IMPORT_H

#include "traces/trace.h"

/* `dlsim trace import --format F IN... -o OUT [options]`: converts a public
 * trace to the native format.  argv[0] is "import".  The exit status. */
int trc_cmd_import(int argc, char **argv);
/* `dlsim cluster import --format F IN [-o OUT]` (sim/cfgimport.c): a
 * cluster file from a public machine list.  argv[0] is "import".
 * Returns the exit status (0; 2 bad usage or input; 1 I/O). */
int cfg_cmd_import(int argc, char **argv);

#endif
