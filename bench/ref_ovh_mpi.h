/* ref-overheads-mpi: the MPI side of suite "overheads" (ref_overheads_mpi.c,
 * ref_ovh_mpi_many.c). Rows on MPI-3 RMA print impl=mpi-rma, two-sided
 * rows impl=mpi-p2p (with "-nochk" appended when Open MPI's parameter
 * checks are off: OMPI_MCA_mpi_param_check=0). */
#ifndef REF_OVH_MPI_H
#define REF_OVH_MPI_H

#include <mpi.h>
#include "bench_common.h"

#define ROVH_BYTES ((size_t)64 << 10)

typedef struct rovh {
    bench_opts_t rma, p2p;  /* the options, impl set per family */
    MPI_Win win;            /* ROVH_BYTES, disp_unit 1, lock_all */
    char *base;             /* this process's window memory       */
    char *local;            /* ROVH_BYTES of local memory         */
    MPI_Request *req;       /* max_out + 1                        */
    int max_out;
    int target;
} rovh_t;

void rovh_wait_rows(rovh_t *c);
void rovh_queue_rows(rovh_t *c);
void rovh_sparse_rows(rovh_t *c);

#endif
