/*
 * sim/cli/main.c - the dlsim executable: everything else is in the library,
 * so that tests call the same code (sim/cli/cli.c: dl_main).  Standard output
 * is checked here, once for every command: a write that failed (a full
 * disk, a closed descriptor) turns a success into exit status 1 with a
 * message (sim/base/base.c, dl_stdout_guard and dl_stdout_finish).
 */
#include "sim/sim.h"

int dl_main(int argc, char **argv);

int main(int argc, char **argv)
{
    dl_stdout_guard();
    return dl_stdout_finish(dl_main(argc, argv));
}
