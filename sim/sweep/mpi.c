/*
 * sim/sweep/mpi.c - dlsim-mpi.so: the MPI operations of sim/sweep/mpi.h
 * over OpenMPI's MPI_COMM_WORLD.  Built only where meson finds MPI; loaded
 * by `dlsim sweep` only under mpirun.
 */
#include "sim/sweep/mpi.h"

#include <mpi.h>

enum { TAG_REQ = 1, TAG_WORK = 2 };

static void init(int *rank, int *size)
{
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}

static void allreduce_max(int *v)
{
    int r = *v;
    MPI_Allreduce(&r, v, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}

static void bcast(int *v)
{
    MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static void finalize(void)
{
    MPI_Finalize();
}

static int poll_request(int msg[2], int *src)
{
    int flag = 0;
    MPI_Status ms;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQ, MPI_COMM_WORLD, &flag, &ms);
    if (!flag)
        return 0;
    MPI_Recv(msg, 2, MPI_INT, ms.MPI_SOURCE, TAG_REQ, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    *src = ms.MPI_SOURCE;
    return 1;
}

static void answer(int src, int give)
{
    MPI_Send(&give, 1, MPI_INT, src, TAG_WORK, MPI_COMM_WORLD);
}

static int request(const int msg[2])
{
    int i;
    MPI_Send(msg, 2, MPI_INT, 0, TAG_REQ, MPI_COMM_WORLD);
    MPI_Recv(&i, 1, MPI_INT, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return i;
}

__attribute__((visibility("default")))
const struct swp_mpi dlsim_swp_mpi = {
    SWP_MPI_ABI, init, allreduce_max, bcast, finalize, poll_request, answer,
    request,
};
