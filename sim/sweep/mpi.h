/*
 * sim/sweep/mpi.h - the few MPI operations `dlsim sweep` uses under
 * mpirun, behind a table of functions.  They live in a module of their own,
 * dlsim-mpi.so (sim/sweep/mpi.c, the only file linked with libmpi), that
 * sweeprun.c loads with dlopen only when the process was started by mpirun:
 * every other command and run loads no MPI library (OpenMPI and the
 * libraries it pulls in cost most of a small run's start-up).
 */
#ifndef DLSIM_SWEEP_MPI_H
#define DLSIM_SWEEP_MPI_H

#define SWP_MPI_ABI 1
#define SWP_MPI_SYMBOL "dlsim_swp_mpi"
#define SWP_MPI_MODULE "dlsim-mpi.so"

struct swp_mpi {
    int abi;                                    /* SWP_MPI_ABI */
    void (*init)(int *rank, int *size);
    /* *v = the maximum of every rank's *v */
    void (*allreduce_max)(int *v);
    /* rank 0's *v to every rank */
    void (*bcast)(int *v);
    void (*finalize)(void);
    /* rank 0: a pending request (two ints) from any rank, without
     * waiting: 1 and its source in *src, or 0 */
    int (*poll_request)(int msg[2], int *src);
    /* rank 0: the answer to src's request */
    void (*answer)(int src, int give);
    /* other ranks: sends a request, waits for the answer */
    int (*request)(const int msg[2]);
};

#endif
