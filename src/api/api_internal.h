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

/* Reduction operators of the *gop calls (api_gop.c, decision 030). */
typedef enum {
    ARM_GOP_SUM, ARM_GOP_PROD, ARM_GOP_MAX, ARM_GOP_MIN, ARM_GOP_ABSMAX, ARM_GOP_ABSMIN,
    ARM_GOP_BOR, ARM_GOP_BAND, ARM_GOP_LOR, ARM_GOP_LAND
} arm_gop_t;
/* The operator `op` names, matched by prefix as ARMCI-MPI matches it; stops
 * with a message naming `call` when it names none. */
arm_gop_t arm_api_gop_parse(const char *call, const char *op);
/* The canonical name of an operator ("+", "absmax", "&&", ...). */
const char *arm_api_gop_name(arm_gop_t op);
/* Stops when a bitwise operator meets float or double elements. */
void arm_api_gop_check(const char *call, const char *op, arm_gop_t kind, int type);
/* In-place all-reduce of n elements of armci_type_e `type` over comm. */
void arm_api_gop_allreduce(const char *call, void *x, int n, int type, arm_gop_t kind,
                           MPI_Comm comm);
/* The MPI type of an armci_type_e value and its size; stops on others. */
MPI_Datatype arm_api_msg_type(const char *call, int type, size_t *size);

#endif
