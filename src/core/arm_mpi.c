/* Napping MPI collectives (arm_mpi.h, decision 098). */
#include "core/arm_mpi.h"

#include "core/arm_core.h"

/* Completes req, or returns rc when the call that should have started it
 * failed (the caller then makes the blocking one). */
static int finish(int rc, MPI_Request *req)
{
    if (rc == MPI_SUCCESS)
        arm_mpi_wait(req);
    return rc;
}

int arm_mpi_allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm)
{
    MPI_Request req;
    if (finish(MPI_Iallreduce(send, recv, count, type, op, comm, &req), &req) == MPI_SUCCESS)
        return MPI_SUCCESS;
    return MPI_Allreduce(send, recv, count, type, op, comm);
}

/* The all-gathers wait for the slowest member in a napping barrier, then
 * exchange by MPI's blocking all-gather, which all members now enter
 * together. Open MPI's non-blocking all-gathers send from every process to
 * every other: on one host each first contact maps the peer's shared-memory
 * segment, and at 64 processes that made every process's RSS 10 MiB larger
 * than the blocking ones (Bruck, recursive doubling, ring: a few peers
 * each) leave it (decision 098). */
int arm_mpi_allgather(const void *send, int scount, MPI_Datatype stype, void *recv,
                      int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    arm_mpi_barrier(comm);
    return MPI_Allgather(send, scount, stype, recv, rcount, rtype, comm);
}

int arm_mpi_allgatherv(const void *send, int scount, MPI_Datatype stype, void *recv,
                       const int *rcounts, const int *displs, MPI_Datatype rtype,
                       MPI_Comm comm)
{
    arm_mpi_barrier(comm);
    return MPI_Allgatherv(send, scount, stype, recv, rcounts, displs, rtype, comm);
}

int arm_mpi_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPI_Request req;
    if (finish(MPI_Ibcast(buf, count, type, root, comm, &req), &req) == MPI_SUCCESS)
        return MPI_SUCCESS;
    return MPI_Bcast(buf, count, type, root, comm);
}

int arm_mpi_barrier(MPI_Comm comm)
{
    MPI_Request req;
    if (finish(MPI_Ibarrier(comm, &req), &req) == MPI_SUCCESS)
        return MPI_SUCCESS;
    return MPI_Barrier(comm);
}

int arm_mpi_comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    MPI_Request req;
    if (finish(MPI_Comm_idup(comm, out, &req), &req) == MPI_SUCCESS)
        return MPI_SUCCESS;
    return MPI_Comm_dup(comm, out);
}
