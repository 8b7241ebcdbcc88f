/* Suite "startup" (issue 57): what a process pays to start, once per launch.
 * After MPI_Init and a barrier, each process times, in wall time and in CPU
 * time (getrusage of the whole process, helper threads included):
 *   init        ARMCI_Init
 *   malloc      a collective ARMCI_Malloc of -k KiB (default 1024) each
 *   first_get   its first 8-byte ARMCI_Get from another node's process
 *               (rank me + ARMADA_PPN, or me + 1 on one node or when unset)
 *   ttfb        the three together: time to first byte
 * and its footprint: VmRSS and the shared-memory files it maps (/dev/shm
 * files, memory files and System V segments, each file once, by size)
 * after MPI_Init, after ARMCI_Init and after the allocation. Each figure is
 * reported as the mean and the maximum over the processes (one launch: the
 * harness launches several and takes the medians). The same source builds
 * against ARMCI-MPI. The get's 8 bytes are checked against the value the
 * target wrote before the barrier that ends ARMCI_Malloc's round. */
#define _GNU_SOURCE
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "bench_common.h"
#ifdef BENCH_ARMADA
#include <armada.h>
/* Weak: the same program runs against a libarmci older than the steps. */
#pragma weak armada_startup_steps
#endif

#ifdef BENCH_ARMADA
/* Endpoints this process's client and server have made (armada.h). */
static double endpoints_made(void)
{
    armada_stats_t st;
    if (armada_stats_get(&st) != 0)
        return -1;
    return (double)(st.eps_client_to_server + st.eps_server_to_client);
}
#endif

static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* VmRSS of this process, bytes. */
static double rss_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024.0;
}

/* Bytes of the shared-memory files this process maps: each file (device and
 * inode) counted once, at the largest extent mapped. */
static double shm_bytes(void)
{
    enum { MAXF = 4096 };
    struct shm_file { unsigned long long dev, ino, end; };
    static struct shm_file seen[MAXF];
    int n = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        unsigned long long lo, hi, off, ino;
        unsigned maj, min;
        char perm[8];
        int pos = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perm, &off, &maj, &min,
                   &ino, &pos) < 7 || ino == 0)
            continue;
        const char *path = line + pos;
        if (strncmp(path, "/dev/shm/", 9) != 0 && strncmp(path, "/memfd:", 7) != 0 &&
            strncmp(path, "/SYSV", 5) != 0)
            continue;
        unsigned long long dev = ((unsigned long long)maj << 20) | min, end = off + (hi - lo);
        int i = 0;
        while (i < n && (seen[i].dev != dev || seen[i].ino != ino))
            i++;
        if (i == n && n < MAXF)
            seen[n++] = (struct shm_file){ dev, ino, 0 };
        if (i < n && end > seen[i].end)
            seen[i].end = end;
    }
    if (f)
        fclose(f);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += (double)seen[i].end;
    return sum;
}

int main(int argc, char **argv)
{
    double t_mpi0 = bench_now();
    MPI_Init(&argc, &argv);
    double t_mpi = bench_now() - t_mpi0;
    int kib = bench_take_opt(&argc, argv, "-k", 1024);
    bench_opts_t o;
    bench_parse(&o, BENCH_IMPL, "startup", argc, argv);
    int me = o.rank, np = o.nproc;
    const char *ppn_s = getenv("ARMADA_PPN");
    int ppn = ppn_s ? atoi(ppn_s) : 0;
    int peer = (me + (ppn > 0 ? ppn : 1)) % np;
    size_t bytes = (size_t)(kib > 0 ? kib : 1) * 1024;

    double rss_mpi = rss_bytes(), shm_mpi = shm_bytes();
    MPI_Barrier(MPI_COMM_WORLD);

    double w0 = bench_now(), c0 = cpu_now();
    ARMCI_Init();
    double w1 = bench_now(), c1 = cpu_now();
    double rss_init = rss_bytes(), shm_init = shm_bytes();

    void **bases = malloc(sizeof(void *) * (size_t)np);
    double w2a = bench_now(), c2a = cpu_now();
    ARMCI_Malloc(bases, (armci_size_t)bytes);
    double w2 = bench_now(), c2 = cpu_now();
    double rss_alloc = rss_bytes(), shm_alloc = shm_bytes();

    /* The value each process's first word holds, written before the barrier
     * so the first get below reads it; the barrier is not timed. */
    long mine = 1000003L * (me + 1);
    *(long *)bases[me] = mine;
    ARMCI_Barrier();
    long got = 0;
    double w3a = bench_now(), c3a = cpu_now();
    ARMCI_Get(bases[peer], &got, (int)sizeof got, peer);
    double w3 = bench_now(), c3 = cpu_now();
#ifdef BENCH_ARMADA
    double eps = endpoints_made();
#endif
    int bad = np > 1 && got != 1000003L * (peer + 1);
    if (bad)
        fprintf(stderr, "startup: rank %d read %ld from rank %d, expected %ld\n", me, got, peer,
                1000003L * (peer + 1));

    char extra[64];
    snprintf(extra, sizeof extra, "kib=%d", kib);
    bench_report_spread(&o, "mpi_init", "us", 1e6 * t_mpi, extra);
    bench_report_spread(&o, "init", "us", 1e6 * (w1 - w0), extra);
    bench_report_spread(&o, "malloc", "us", 1e6 * (w2 - w2a), extra);
    bench_report_spread(&o, "first_get", "us", 1e6 * (w3 - w3a), extra);
    bench_report_spread(&o, "ttfb", "us", 1e6 * ((w1 - w0) + (w2 - w2a) + (w3 - w3a)), extra);
    bench_report_spread(&o, "init_cpu", "us", 1e6 * (c1 - c0), extra);
    bench_report_spread(&o, "malloc_cpu", "us", 1e6 * (c2 - c2a), extra);
    bench_report_spread(&o, "init_malloc_cpu", "us", 1e6 * ((c1 - c0) + (c2 - c2a)), extra);
    bench_report_spread(&o, "ttfb_cpu", "us", 1e6 * ((c1 - c0) + (c2 - c2a) + (c3 - c3a)),
                        extra);
    bench_report_spread(&o, "rss_mpi", "B", rss_mpi, extra);
    bench_report_spread(&o, "rss_init", "B", rss_init, extra);
    bench_report_spread(&o, "rss_alloc", "B", rss_alloc, extra);
    bench_report_spread(&o, "shm_mpi", "B", shm_mpi, extra);
    bench_report_spread(&o, "shm_init", "B", shm_init, extra);
    bench_report_spread(&o, "shm_alloc", "B", shm_alloc, extra);
#ifdef BENCH_ARMADA
    /* Armada's own steps of ARMCI_Init (decision 098): op init_<step>. */
    const char *names[16];
    double sw[16], sc[16];
    int nsteps = armada_startup_steps ? armada_startup_steps(names, sw, sc, 16) : 0;
    for (int i = 0; i < nsteps && i < 16; i++) {
        char op[64];
        snprintf(op, sizeof op, "step_%s", names[i]);
        bench_report_spread(&o, op, "us", sw[i], extra);
        snprintf(op, sizeof op, "step_%s_cpu", names[i]);
        bench_report_spread(&o, op, "us", sc[i], extra);
    }
    /* After the first get: the endpoints a process that talked to one
     * other node holds (connections on demand). */
    bench_report_spread(&o, "endpoints", "count", eps, extra);
#endif
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int rc = anybad ? 3 : 0;
    if (me == 0)
        bench_check(&o, "first_get_wrong", 0, anybad);

    ARMCI_Free(bases[me]);
    free(bases);
    ARMCI_Finalize();
    MPI_Finalize();
    return rc;
}
