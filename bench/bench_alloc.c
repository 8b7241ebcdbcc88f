/* Suite "alloc" (issue 23 item 5, decision 059): the time of a collective
 * ARMCI_Malloc and of its ARMCI_Free against the number of processes, in
 * whatever allocation mode the run has (Armada: ARMADA_SYMMETRIC=1 or not;
 * tools/bench/plot_alloc.py runs both and prints the table). Every process
 * asks for the same size (-k KiB, default 64) while -L allocations of that
 * size are already live (default 0), so the registry's growth shows too.
 * Figures, per call, median over repetitions of the slowest process's mean:
 * malloc us, free us, and pair us (the two together). With -L > 0 also
 * put8_rr us: 8-byte puts to the next rank, each into the next of the live
 * allocations in turn (so no last-hit cache helps the address translation),
 * then a fence; per put, rank 0's. The program checks
 * that each allocation is reachable: a put into the next rank's slice and a
 * get back, every iteration. */
#include "bench_armci.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const char *mode_name(void)
{
#ifdef BENCH_ARMADA
    const char *s = getenv("ARMADA_SYMMETRIC");
    return s && s[0] == '1' ? "symmetric" : "default";
#else
    return "armcimpi";
#endif
}

/* One iteration: allocate, use, free. Adds this process's times. */
static int one_round(size_t bytes, void **ptrs, int me, int np, double *t_malloc,
                     double *t_free)
{
    double t0 = bench_now();
    ARMCI_Malloc(ptrs, (armci_size_t)bytes);
    double t1 = bench_now();
    int peer = (me + 1) % np, ok = 1;
    long v = 1000L * me + 7, back = 0;
    ARMCI_Put(&v, (char *)ptrs[peer] + bytes - sizeof v, (int)sizeof v, peer);
    ARMCI_Fence(peer);
    ARMCI_Get((char *)ptrs[peer] + bytes - sizeof v, &back, (int)sizeof back, peer);
    ok = back == v;
    ARMCI_Barrier();
    double t2 = bench_now();
    ARMCI_Free(ptrs[me]);
    double t3 = bench_now();
    *t_malloc += t1 - t0;
    *t_free += t3 - t2;
    return ok;
}

/* 8-byte puts cycling over the live allocations; seconds per put. */
static double puts_round_robin(void ***held, int live, int me, int np, int n)
{
    int peer = (me + 1) % np;
    long v = me;
    double t0 = bench_now();
    for (int i = 0; i < n; i++)
        ARMCI_Put(&v, held[i % live][peer], (int)sizeof v, peer);
    ARMCI_Fence(peer);
    return (bench_now() - t0) / n;
}

int main(int argc, char **argv)
{
    int kib = bench_take_opt(&argc, argv, "-k", 64);
    int live = bench_take_opt(&argc, argv, "-L", 0);
    bench_opts_t o;
    bench_armci_init(&o, "alloc", &argc, &argv);
    size_t bytes = (size_t)(kib > 0 ? kib : 1) * 1024;
    void **ptrs = malloc(sizeof(void *) * (size_t)o.nproc);
    void ***held = calloc(live > 0 ? (size_t)live : 1, sizeof *held);
    for (int l = 0; l < live; l++) {
        held[l] = malloc(sizeof(void *) * (size_t)o.nproc);
        ARMCI_Malloc(held[l], (armci_size_t)bytes);
    }
    double dummy_m = 0, dummy_f = 0;
    int ok = 1;
    int warm = o.warmup < 5 ? o.warmup : 5;
    double w0 = bench_now();
    for (int i = 0; i < warm; i++)
        ok &= one_round(bytes, ptrs, o.rank, o.nproc, &dummy_m, &dummy_f);
    /* One count for every process: the calls are collective. */
    int iters = bench_iters_timed(&o, o.iters, (bench_now() - w0) / warm);
    MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double sm[BENCH_MAX_REPS], sf[BENCH_MAX_REPS], sp[BENCH_MAX_REPS];
    for (int r = 0; r < o.reps; r++) {
        double mine[2] = { 0, 0 }, worst[2];
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < iters; i++)
            ok &= one_round(bytes, ptrs, o.rank, o.nproc, &mine[0], &mine[1]);
        MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        sm[r] = worst[0] / iters * 1e6;
        sf[r] = worst[1] / iters * 1e6;
        sp[r] = sm[r] + sf[r];
    }
    int all_ok = ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    char extra[128];
    snprintf(extra, sizeof extra, "mode=%s live=%d", mode_name(), live);
    if (o.rank == 0) {
        bench_report(&o, "malloc", bytes, "us", sm, o.reps, iters, extra);
        bench_report(&o, "free", bytes, "us", sf, o.reps, iters, extra);
        bench_report(&o, "pair", bytes, "us", sp, o.reps, iters, extra);
    }
    if (live > 0) {
        double sr[BENCH_MAX_REPS];
        int n = 20000;
        puts_round_robin(held, live, o.rank, o.nproc, n / 10);
        for (int r = 0; r < o.reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            sr[r] = puts_round_robin(held, live, o.rank, o.nproc, n) * 1e6;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (o.rank == 0)
            bench_report(&o, "put8_rr", sizeof(long), "us", sr, o.reps, n, extra);
    }
    int bad = o.rank == 0 ? bench_check(&o, "alloc_reachable", 1, all_ok) : !all_ok * 3;
    for (int l = live - 1; l >= 0; l--) {
        ARMCI_Free(held[l][o.rank]);
        free(held[l]);
    }
    free(held);
    free(ptrs);
    return bench_armci_finalize(bad);
}
