/* unreached (Armada only, 2 ranks as 2 virtual nodes, issue 22 item 7): rank
 * 1 dies before anything has been sent to its node, then rank 0 makes its
 * first operation there. Under ARMADA_CONNECT=lazy no endpoint to node 1
 * exists yet, so the operation must connect to a node that is gone; it must
 * end the job within ARMADA_PEER_TIMEOUT with a message that names the call,
 * rank 1 and node 1, never hang.
 *
 * Usage: tmpi_unreached MODE OP
 *   MODE kill  rank 1 raises SIGKILL. Open MPI 4.1's mpirun then kills rank 0
 *              within about a second, before Armada can say anything, unless
 *              OMPI_MCA_orte_abort_on_non_zero_status=0; the job's status is
 *              then non-zero whatever rank 0 does (rank 1 died by a signal),
 *              so only rank 0's message tells a pass. Rank 0 ends every
 *              failure with MPI_Abort: a plain exit there leaves mpirun
 *              waiting.
 *        stop  rank 1 raises SIGSTOP (it and its server thread stay, stopped)
 *   OP   get8, put (8 bytes and a fence), fadd
 * Nothing else touches node 1 first: ARMCI_Malloc and the barriers are the
 * only calls before rank 1 goes; rank 0 then calls no MPI function. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <armci.h>
#include "tst.h"

/* 1 once process pid is gone (reaped, or a zombie) or, for `stopped`,
 * stopped (state T in /proc/pid/stat). */
static int peer_down(int pid, int stopped)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return !stopped && errno == ENOENT;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return 0;
    if (stopped)
        return p[2] == 'T' || p[2] == 't';
    return p[2] == 'Z' || p[2] == 'X';
}

static void operate(const char *op, void **seg)
{
    long v = 7, old = -1;
    if (!strcmp(op, "get8")) {
        ARMCI_Get(seg[1], &v, sizeof v, 1);
    } else if (!strcmp(op, "put")) {
        ARMCI_Put(&v, seg[1], sizeof v, 1);
    } else if (!strcmp(op, "fadd")) {
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, seg[1], 1, 1);
    } else {
        fprintf(stderr, "unreached: unknown operation %s\n", op);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* A put may complete locally; the fence waits on node 1. */
    ARMCI_Fence(1);
}

int main(int argc, char **argv)
{
    int me, np, pid = (int)getpid(), peer = 0;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *mode = argc > 1 ? argv[1] : "kill";
    const char *op = argc > 2 ? argv[2] : "get8";
    int stop = !strcmp(mode, "stop");
    if (np != 2 || (!stop && strcmp(mode, "kill"))) {
        fprintf(stderr, "unreached: needs 2 ranks and mode kill or stop (%d, %s)\n", np, mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    void *seg[2];
    ARMCI_Malloc(seg, 4096);
    ARMCI_Barrier();
    MPI_Sendrecv(&pid, 1, MPI_INT, 1 - me, 0, &peer, 1, MPI_INT, 1 - me, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) {
        fflush(stdout);
        raise(stop ? SIGSTOP : SIGKILL);
        fprintf(stderr, "unreached: rank 1 went on after SIG%s\n", stop ? "STOP" : "KILL");
        return 1;
    }
    for (int i = 0; i < 10000 && !peer_down(peer, stop); i++)
        tst_nap(1000);
    if (!peer_down(peer, stop)) {
        fprintf(stderr, "unreached: rank 1 (pid %d) is still running\n", peer);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("unreached: rank 1 is %s; rank 0 starts %s to it\n", stop ? "stopped" : "dead", op);
    fflush(stdout);
    operate(op, seg);
    fprintf(stderr, "unreached: %s to rank 1 (%s) returned\n", op, stop ? "stopped" : "dead");
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}
