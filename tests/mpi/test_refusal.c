/* refusal (Armada only, 2 ranks as 2 virtual nodes): with
 * ARMADA_TEST_INJECT=<kind> rank 0's client corrupts one request to the
 * server of node 1 so that the server must refuse it; the refusal must
 * reach rank 0, which stops the job naming its call, the argument, node 1
 * and the server's reason, within seconds (not ARMADA_PEER_TIMEOUT).
 * Kinds: header (short header), oversize (payload over a slot), addr
 * (address outside every segment), op (unknown operation), credit (more
 * requests than slots), sync (a second sync request). For credit and sync,
 * rank 1 holds a mutex that rank 0 then asks for, so that rank 0's lock
 * request waits at the server. */
#include <armci.h>
#include "tst.h"

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *mode = argc > 1 ? argv[1] : "op";
    void **seg = malloc(sizeof(void *) * (size_t)np);
    static double local[1024];
    ARMCI_Malloc(seg, sizeof local);
    ARMCI_Create_mutexes(1);
    ARMCI_Barrier();
    int lock_mode = !strcmp(mode, "credit") || !strcmp(mode, "sync");
    if (me == 1 && lock_mode)
        ARMCI_Lock(0, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        TST_SAY("refusal: rank 0 sends a request that the server must refuse (%s)", mode);
        if (lock_mode) {
            ARMCI_Lock(0, 1);
        } else if (!strcmp(mode, "oversize")) {
            ARMCI_Put(local, seg[1], 8, 1);
            ARMCI_Fence(1);
        } else {
            double one = 1.0;
            ARMCI_Acc(ARMCI_ACC_DBL, &one, local, seg[1], (int)sizeof local, 1);
            ARMCI_Fence(1);
        }
        fprintf(stderr, "refusal: the refused request (%s) went unnoticed\n", mode);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 1;
}
