/* Suite "topomem" (issue 20 item 6, hicoo Fig. 9 on a real run): what the
 * nodes' servers hold under the virtual topology (ARMADA_TOPOLOGY).
 * Every process puts 8 bytes to every other process once (so every node has
 * been touched and every endpoint that traffic opens is open), fences, and
 * then each node leader reads:
 *   server_buffers  request-buffer bytes of its server (armada_stats_get;
 *                   allocated at start-up, so final from ARMCI_Init on)
 *   endpoints       transport endpoints of the process as armada_stats_get
 *                   gives them during the run (counted at ARMCI_Init:
 *                   client-to-server and server-to-client, not the
 *                   server-to-server ones, which ARMADA_STATS=1 adds at
 *                   ARMCI_Finalize)
 *   vmrss, vmhwm    the process's resident set now and at its peak
 *                   (/proc/self/status), bytes
 * RESULT records per figure: stat=max and stat=mean over the node leaders,
 * with nodes=<node count> and topology=<ARMADA_TOPOLOGY or fcg>.
 * Armada only (armada.h). */
#include "bench_armci.h"

#include <armada.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_BUFFERS, F_ENDPOINTS, F_RSS, F_HWM, F_COUNT };
static const char *const fig_names[F_COUNT] = { "server_buffers", "endpoints", "vmrss",
                                                "vmhwm" };
static const char *const fig_units[F_COUNT] = { "B", "count", "B", "B" };

/* VmRSS and VmHWM of this process in bytes (0 where /proc lacks them). */
static void read_rss(double *rss, double *hwm)
{
    *rss = 0.0;
    *hwm = 0.0;
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return;
    char line[256];
    while (fgets(line, sizeof line, f) != NULL) {
        long kb = 0;
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            *rss = (double)kb * 1024.0;
        else if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            *hwm = (double)kb * 1024.0;
    }
    fclose(f);
}

/* One RESULT line in bench_report's format, the value to the byte (bench_report
 * keeps six significant digits). */
static void report_exact(const bench_opts_t *o, const char *fig, const char *unit, double v,
                         const char *stat, int leaders, const char *topo)
{
    printf("RESULT impl=%s suite=%s op=%s size=0 nproc=%d value=%.1f unit=%s min=%.1f "
           "max=%.1f reps=1 iters=1 stat=%s nodes=%d topology=%s\n", o->impl, o->suite, fig,
           o->nproc, v, unit, v, v, stat, leaders, topo);
    fflush(stdout);
}

/* Whether this rank is the lowest rank of its node (its node's leader). */
static int is_leader(int me)
{
    int node = armada_node_of(me);
    for (int r = 0; r < me; r++)
        if (armada_node_of(r) == node)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_armci_init(&o, "topomem", &argc, &argv);
    const char *topo = getenv("ARMADA_TOPOLOGY");
    if (topo == NULL || topo[0] == '\0')
        topo = "fcg";
    void **data = bench_armci_alloc(8 * (size_t)o.nproc);
    long word = o.rank + 1;
    for (int i = 1; i < o.nproc; i++) {
        int r = (o.rank + i) % o.nproc;
        ARMCI_Put(&word, (char *)data[r] + 8 * (size_t)o.rank, (int)sizeof word, r);
    }
    ARMCI_AllFence();
    bench_armci_sync();
    /* Every put arrived: each process checks the words it was sent. */
    long bad = 0;
    ARMCI_Access_begin(data[o.rank]);
    for (int r = 0; r < o.nproc; r++) {
        long got;
        memcpy(&got, (char *)data[o.rank] + 8 * (size_t)r, sizeof got);
        if (r != o.rank && got != r + 1)
            bad++;
    }
    ARMCI_Access_end(data[o.rank]);
    long bad_all = 0;
    MPI_Reduce(&bad, &bad_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int rc = o.rank == 0 ? bench_check(&o, "put_all", 0, bad_all) : 0;

    armada_stats_t st;
    if (armada_stats_get(&st) != 0)
        ARMCI_Error("bench topomem: armada_stats_get failed", 1);
    int leader = is_leader(o.rank);
    double v[F_COUNT + 1];
    v[F_BUFFERS] = (double)st.server_buffer_bytes;
    v[F_ENDPOINTS] = (double)st.endpoints;
    read_rss(&v[F_RSS], &v[F_HWM]);
    v[F_COUNT] = 1.0;
    if (!leader)
        for (int i = 0; i <= F_COUNT; i++)
            v[i] = 0.0;
    double sum[F_COUNT + 1], max[F_COUNT + 1];
    MPI_Reduce(v, sum, F_COUNT + 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(v, max, F_COUNT + 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (o.rank == 0) {
        int leaders = (int)sum[F_COUNT];
        for (int i = 0; i < F_COUNT; i++) {
            report_exact(&o, fig_names[i], fig_units[i], max[i], "max", leaders, topo);
            report_exact(&o, fig_names[i], fig_units[i], sum[i] / leaders, "mean", leaders,
                         topo);
        }
    }
    bench_armci_sync();
    bench_armci_free(data);
    return bench_armci_finalize(rc);
}
