/* Suite "amo" (Armada only: reads armada.h's counters by path): the latency
 * of one uncontended fetch-and-add (ARMCI_FETCH_AND_ADD_LONG) to a counter
 * on rank 0 from rank 0 itself, from another process of its node, and from
 * a process of another node, one origin at a time. Which path each took
 * (CPU atomics "shm", transport atomics "rma", the node's server "server")
 * is read from the origin's counters, so one program compares the paths
 * under the settings of its run (decision 061):
 *   ARMADA_AMO_ALLOC=on                     transport atomics for all three
 *   ARMADA_AMO_ALLOC=off ARMADA_AMO_PATH=amo CPU on the node, atomics across
 *   ARMADA_AMO_ALLOC=off ARMADA_AMO_PATH=server  CPU on the node, the server
 * tools/bench/amo_paths.sh runs the three and prints one table. The final
 * counter must equal the increments issued. */
#include "bench_armci.h"

#include <armada.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const path_name[ARMADA_PATH_COUNT] = { "shm", "rma", "server" };

/* The path most of this process's read-modify-writes took since *before. */
static int rmw_path(const armada_stats_t *before)
{
    armada_stats_t now;
    armada_stats_get(&now);
    int best = 0;
    uint64_t most = 0;
    for (int p = 0; p < ARMADA_PATH_COUNT; p++) {
        uint64_t d = now.ops[ARMADA_OP_RMW][p] - before->ops[ARMADA_OP_RMW][p];
        if (d > most) {
            most = d;
            best = p;
        }
    }
    return best;
}

static double fadd_loop(long *c0, int n)
{
    double t = bench_now();
    for (int i = 0; i < n; i++) {
        long old = 0;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, c0, 1, 0);
    }
    return bench_now() - t;
}

/* One origin's figure: reps repetitions of iters operations, us per op. */
static long measure(const bench_opts_t *o, const char *op, int origin, long *c0, int iters)
{
    double samples[BENCH_MAX_REPS];
    armada_stats_t before;
    armada_stats_get(&before);
    long done = 0;
    if (o->rank == origin) {
        fadd_loop(c0, o->warmup);
        done += o->warmup;
    }
    for (int r = 0; r < o->reps; r++) {
        bench_armci_sync();
        double t = 0.0;
        if (o->rank == origin) {
            t = fadd_loop(c0, iters);
            done += iters;
        }
        MPI_Bcast(&t, 1, MPI_DOUBLE, origin, MPI_COMM_WORLD);
        samples[r] = 1e6 * t / iters;
    }
    int path = o->rank == origin ? rmw_path(&before) : 0;
    MPI_Bcast(&path, 1, MPI_INT, origin, MPI_COMM_WORLD);
    char extra[64];
    snprintf(extra, sizeof extra, "origin=%d path=%s", origin, path_name[path]);
    bench_report(o, op, sizeof(long), "us", samples, o->reps, iters, extra);
    if (o->rank == 0) {
        double s[BENCH_MAX_REPS];
        for (int r = 0; r < o->reps; r++)
            s[r] = samples[r];
        printf("TABLE %-12s %6d  %-7s %10.2f\n", op, origin, path_name[path],
               bench_median(s, o->reps));
        fflush(stdout);
    }
    return done;
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "amo", &argc, &argv);
    void **counter = bench_armci_alloc(sizeof(long));
    long *c0 = counter[0];
    int peer = -1, remote = -1;
    for (int r = 1; r < o.nproc; r++) {
        if (peer < 0 && armada_node_of(r) == armada_node_of(0))
            peer = r;
        if (remote < 0 && armada_node_of(r) != armada_node_of(0))
            remote = r;
    }
    int iters = o.iters;
    if (o.reps > BENCH_MAX_REPS)
        o.reps = BENCH_MAX_REPS;
    if (o.rank == 0)
        printf("TABLE %-12s %6s  %-7s %10s\n", "op", "origin", "path", "us/op");
    long done = measure(&o, "fadd_self", 0, c0, iters);
    if (peer >= 0)
        done += measure(&o, "fadd_node", peer, c0, iters);
    else
        bench_skip(&o, "fadd_node", "no_other_process_on_node_0");
    if (remote >= 0)
        done += measure(&o, "fadd_remote", remote, c0, iters);
    else
        bench_skip(&o, "fadd_remote", "one_node");
    bench_armci_sync();

    long total = 0;
    MPI_Reduce(&done, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int status = 0;
    if (o.rank == 0)
        status = bench_check(&o, "fadd_amo", total, ARMCI_GetValueLong(c0, 0));
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    bench_armci_free(counter);
    return bench_armci_finalize(status);
}
