/* The ARMCI side of suite "overheads": the state its groups share
 * (bench_overheads.c, bench_ovh_many.c). */
#ifndef BENCH_OVH_ARMCI_H
#define BENCH_OVH_ARMCI_H

#include <armci.h>
#include <string.h>
#include "bench_common.h"

/* Bytes at each process: 8 B slots for up to 1024 outstanding puts, the
 * 8 KiB transfers of the non-contiguous group at twice their stride. */
#define OVH_BYTES ((size_t)64 << 10)
/* Naps of the ranks that sit a measurement out: polling in MPI_Barrier
 * they would take the cores the measured origin and the servers need. */
#define OVH_NAP_US 1000

/* Each implementation gets its best case from the ranks that sit out.
 * Armada's servers serve without the target process, which sleeps.
 * ARMCI-MPI's passive target progresses only inside MPI calls of the
 * target (osc ucx's accumulates, locks and emulated operations): a target
 * napping 1 ms at a time made its operations wait for the nap, so its idle
 * ranks poll in MPI instead. */
static inline int ovh_idle_polls(void)
{
#ifdef BENCH_IMPL
    return strcmp(BENCH_IMPL, "armcimpi") == 0;
#else
    return 0;
#endif
}

static inline void ovh_idle_wait(MPI_Request *r)
{
    if (ovh_idle_polls())
        MPI_Wait(r, MPI_STATUS_IGNORE);
    else
        bench_sleep_wait(r, OVH_NAP_US);
}

static inline void ovh_idle_barrier(void)
{
    MPI_Request r;
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    ovh_idle_wait(&r);
}

typedef struct ovh_ctx {
    void **data;        /* OVH_BYTES on every process        */
    void **counter;     /* one long on every process          */
    char *local;        /* OVH_BYTES of local memory          */
    armci_hdl_t *h;     /* max_out handles                    */
    int max_out;        /* -K: most operations outstanding    */
    int server_ms;      /* -S: milliseconds per server level  */
    int target;
} ovh_ctx_t;

void ovh_wait_rows(const bench_opts_t *o, ovh_ctx_t *c);
void ovh_server_rows(const bench_opts_t *o, ovh_ctx_t *c);
void ovh_held_rows(const bench_opts_t *o, ovh_ctx_t *c);
void ovh_sparse_rows(const bench_opts_t *o, ovh_ctx_t *c);

#endif
