/* stopped (Armada only, 2 ranks as 2 virtual nodes): rank 1 stops itself
 * with SIGSTOP, which stops its node's server thread too; rank 0 then does
 * one kind of operation to it. Every wait on another node has the deadline
 * of ARMADA_PEER_TIMEOUT, so rank 0 must stop the job with a message that
 * names its call, rank 1 and node 1, instead of hanging. Modes: get8,
 * get64k, fadd, puts (small puts beyond the server's credits), acc.
 * A get that returns anyway (its node's segment mapped here, decision 068)
 * is checked against rank 1's data and says so before the test fails. */
#include <signal.h>
#include <unistd.h>
#include <armci.h>
#include "tst.h"

/* 1 once process pid is stopped (state T in /proc/pid/stat). */
static int is_stopped(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
}

static void operate(const char *mode, void **seg, char *local)
{
    if (!strcmp(mode, "get8")) {
        ARMCI_Get(seg[1], local, 8, 1);
    } else if (!strcmp(mode, "get64k")) {
        ARMCI_Get(seg[1], local, 65536, 1);
    } else if (!strcmp(mode, "fadd")) {
        long old;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, seg[1], 1, 1);
    } else if (!strcmp(mode, "puts")) {
        for (int i = 0; i < 100000; i++)
            ARMCI_Put(local, (char *)seg[1] + (i % 1000) * 64, 64, 1);
    } else if (!strcmp(mode, "acc")) {
        double one = 1.0;
        ARMCI_Acc(ARMCI_ACC_DBL, &one, local, seg[1], 65536, 1);
    } else {
        fprintf(stderr, "stopped: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Locally complete operations return; the fence waits on the peer. */
    ARMCI_Fence(1);
}

int main(int argc, char **argv)
{
    int me, np, pid = (int)getpid(), peer = 0;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *mode = argc > 1 ? argv[1] : "get8";
    void **seg = malloc(sizeof(void *) * (size_t)np);
    char *local = calloc(1, 65536);
    ARMCI_Malloc(seg, 65536);
    for (int i = 0; i < 65536; i++)
        ((unsigned char *)seg[me])[i] = (unsigned char)(i * 7 + me);
    ARMCI_Barrier();
    MPI_Sendrecv(&pid, 1, MPI_INT, 1 - me, 0, &peer, 1, MPI_INT, 1 - me, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) {
        raise(SIGSTOP);
        fprintf(stderr, "stopped: rank 1 was continued\n");
        return 1;
    }
    for (int i = 0; i < 10000 && !is_stopped(peer); i++)
        tst_nap(1000);
    CHECK(is_stopped(peer), "rank 1 (pid %d) did not stop", peer);
    TST_SAY("stopped: rank 1 is stopped; rank 0 starts %s to it", mode);
    operate(mode, seg, local);
    size_t got = !strcmp(mode, "get8") ? 8 : !strcmp(mode, "get64k") ? 65536 : 0, ok = 0;
    while (ok < got && (unsigned char)local[ok] == (unsigned char)(ok * 7 + 1))
        ok++;
    if (got && ok == got)
        fprintf(stderr, "stopped: %s read rank 1's data without it\n", mode);
    fprintf(stderr, "stopped: %s to a stopped rank returned\n", mode);
    return 1;
}
