#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_armci_init(bench_opts_t *o, const char *suite, int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    if (ARMCI_Init() != 0) {
        fprintf(stderr, "%s: ARMCI_Init failed\n", suite);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    bench_parse(o, BENCH_IMPL, suite, *argc, *argv);
}

int bench_armci_finalize(int status)
{
    ARMCI_Finalize();
    MPI_Finalize();
    return status;
}

void **bench_armci_alloc(size_t bytes)
{
    int nproc;
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    void **bases = calloc((size_t)nproc, sizeof *bases);
    if (bases == NULL || ARMCI_Malloc(bases, (armci_size_t)bytes) != 0) {
        fprintf(stderr, "bench: ARMCI_Malloc of %zu bytes failed\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    ARMCI_Access_begin(bases[me]);
    memset(bases[me], 0, bytes);
    ARMCI_Access_end(bases[me]);
    MPI_Barrier(MPI_COMM_WORLD);
    return bases;
}

void bench_armci_free(void **bases)
{
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    ARMCI_Free(bases[me]);
    free(bases);
}

void bench_armci_sync(void)
{
    ARMCI_Barrier();
}
