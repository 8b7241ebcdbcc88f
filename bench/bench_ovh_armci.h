/* The ARMCI side of suite "overheads": the state its groups share
 * (bench_overheads.c, bench_ovh_many.c). */
#ifndef BENCH_OVH_ARMCI_H
#define BENCH_OVH_ARMCI_H

#include <armci.h>
#include "bench_common.h"

/* Bytes at each process: 8 B slots for up to 1024 outstanding puts, the
 * 8 KiB transfers of the non-contiguous group at twice their stride. */
#define OVH_BYTES ((size_t)64 << 10)
/* Naps of the ranks that sit a measurement out: polling in MPI_Barrier
 * they would take the cores the measured origin and the servers need. */
#define OVH_NAP_US 1000

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
