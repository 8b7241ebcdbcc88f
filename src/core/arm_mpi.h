/* MPI collectives of the start and allocation paths, waited for without
 * holding a core (decision 098): each starts the non-blocking collective and
 * waits for it as the barrier waits (spins, then yields unless MPI yields
 * itself, then naps that grow with the wait). On a host whose processes
 * outnumber its cores, a blocking collective of Open MPI yields but never
 * sleeps, and every process that waits for a slower one burns CPU time for
 * as long. Where the non-blocking call fails, the blocking one is made.
 * Return: MPI's code. */
#ifndef ARM_MPI_H
#define ARM_MPI_H

#include <mpi.h>

int arm_mpi_allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm);
int arm_mpi_allgather(const void *send, int scount, MPI_Datatype stype, void *recv,
                      int rcount, MPI_Datatype rtype, MPI_Comm comm);
int arm_mpi_allgatherv(const void *send, int scount, MPI_Datatype stype, void *recv,
                       const int *rcounts, const int *displs, MPI_Datatype rtype,
                       MPI_Comm comm);
int arm_mpi_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int arm_mpi_barrier(MPI_Comm comm);
int arm_mpi_comm_dup(MPI_Comm comm, MPI_Comm *out);

/* Waits for req as the functions above do. */
void arm_mpi_wait(MPI_Request *req);

#endif /* ARM_MPI_H */
