/* ARMCI-side helpers shared by the benchmark programs (ARMCI interface only,
 * so that the same source builds against Armada and against ARMCI-MPI). */
#ifndef BENCH_ARMCI_H
#define BENCH_ARMCI_H

#include <stddef.h>
#include <armci.h>
#include "bench_common.h"

/* MPI_Init, ARMCI_Init, then bench_parse. */
void bench_armci_init(bench_opts_t *o, const char *suite, int *argc, char ***argv);

/* ARMCI_Finalize, then MPI_Finalize; returns status for main. */
int bench_armci_finalize(int status);

/* Collective: ARMCI_Malloc of bytes on every process, zero-filled; returns
 * the array of every process's base (freed by bench_armci_free). */
void **bench_armci_alloc(size_t bytes);
void bench_armci_free(void **bases);

/* Untimed barrier that also completes this process's outstanding ARMCI
 * operations: ARMCI_Barrier, which is what an ARMCI program waits in. */
void bench_armci_sync(void);

#endif /* BENCH_ARMCI_H */
