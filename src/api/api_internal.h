/* Internal services the api layer's files share. Not installed. */
#ifndef ARM_API_INTERNAL_H
#define ARM_API_INTERNAL_H

#include <mpi.h>
#include "armci.h"

/* Armada's duplicate of the communicator ARMCI was initialised on. */
MPI_Comm arm_api_world_comm(void);
/* The processes of the caller's node (virtual nodes, ARMADA_PPN, honoured). */
MPI_Comm arm_api_node_comm(void);
/* The lowest rank of every node; MPI_COMM_NULL on the other processes. */
MPI_Comm arm_api_masters_comm(void);
/* Stops with "<call>: ARMCI is not initialised" unless ARMCI_Init ran. */
void arm_api_require_init(const char *call);
/* Stops the job: prints "armada[rank R]: <call>: <message>" to stderr and
 * aborts every process with a non-zero exit. */
_Noreturn void arm_api_fatal(const char *call, const char *fmt, ...);
/* Address (as seen by rank 0's view, valid for ARMCI_Rmw with proc 0) of a
 * long counter allocated at ARMCI_Init for the TCGMSG nxtval service. */
long *arm_api_nxtval_counter(void);

#endif
