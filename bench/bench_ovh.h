/* Suite "overheads" (issue 25): what a runtime spends besides moving data,
 * after the paper on MPI's non-data overheads. Shared by the ARMCI programs
 * (armada-bench-overheads, armcimpi-bench-overheads, armada-nochk-bench-
 * overheads) and the MPI reference (ref-overheads-mpi).
 *
 * The transport floors: on one node a plain 8-byte copy into a peer's
 * segment mapped through MPI_Win_allocate_shared; across (virtual) nodes a
 * direct UCP put/get of 8 bytes plus flush on a worker and endpoint of the
 * benchmark's own, addresses exchanged over MPI. Times are in ns, and in
 * cycles through the time-stamp counter's measured frequency. */
#ifndef BENCH_OVH_H
#define BENCH_OVH_H

#include <mpi.h>
#include "bench_common.h"

/* Fills ns[0..o->reps) with ns per execution of the body, n executions per
 * repetition after o->warmup untimed ones. */
#define OVH_TIME(ns, o, n, ...)                                              \
    do {                                                                     \
        for (int r_ = 0; r_ < (o)->reps; r_++) {                             \
            for (int i_ = 0; i_ < (o)->warmup; i_++) {                       \
                __VA_ARGS__;                                                 \
            }                                                                \
            double t0_ = bench_now();                                        \
            for (int i_ = 0; i_ < (n); i_++) {                               \
                __VA_ARGS__;                                                 \
            }                                                                \
            (ns)[r_] = (bench_now() - t0_) * 1e9 / (n);                      \
        }                                                                    \
    } while (0)

/* Whether ranks a and b share a node as the runtime sees it: ARMADA_PPN=k
 * makes virtual nodes of ranks with the same r / k; otherwise MPI's
 * shared-memory split. Collective over MPI_COMM_WORLD. */
int ovh_same_node(int a, int b);

/* Cycles per ns of the time-stamp counter, measured once (0: none). */
double ovh_ghz(void);

/* The floor of an 8-byte put (+ completion) and get from origin to target,
 * ns per operation, into put_ns and get_ns on the origin (others: 0). ucp:
 * the UCP floor (else the shared-memory copy). Returns 0, or -1 where the
 * floor cannot be measured (no UCX, no shared window); collective. */
int ovh_floor(const bench_opts_t *o, int origin, int target, int ucp, double *put_ns,
              double *get_ns);

/* The stack rows (stack_put/get, _floor, _over): each repetition of the
 * runtime's 8-byte put + completion and get is paired with a floor measured
 * just before it, and _over is the difference per pair, so a drift of the
 * machine between the two does not land in the overhead. rep runs one
 * repetition on the origin (rank 0) into *put_ns and *get_ns, given o with
 * reps = 1; sit_out is what every rank calls after each pair (the others
 * meanwhile). Collective. */
typedef void (*ovh_stack_rep_fn)(const bench_opts_t *one, void *arg, double *put_ns,
                                 double *get_ns);
void ovh_stack_rows(const bench_opts_t *o, int target, ovh_stack_rep_fn rep,
                    void (*sit_out)(void), void *arg);

/* Prints value in ns and in cycles (op and op"_cyc"), extra appended. */
void ovh_report_ns(const bench_opts_t *o, const char *op, size_t size, double *ns, int n,
                   int iters, const char *extra);

/* Process counts / depths of a sweep: 0 or 1, then doubling to max. */
int ovh_levels(int *out, int max_out, int first, int max);

#endif
