/* badarg (Armada only): one bad argument per invocation; Armada must stop
 * the job with "armada[rank R]: <CALL>: argument '<ARG>' ..." on stderr.
 * Modes: rank, stackaddr, negcount, levels, nullsrc. Reaching the end of a
 * mode means the bad call returned: that is reported and the exit is 3 (the
 * EXPECT_FAIL regex then does not match, so the test fails). */
#include <armci.h>
#include "tst.h"

int main(int argc, char **argv)
{
    int me, np;
    const char *mode = argc > 1 ? argv[1] : "rank";
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    void **base = malloc(sizeof(void *) * np);
    ARMCI_Malloc(base, 4096);
    char buf[256];
    memset(buf, 1, sizeof buf);
    int peer = (me + 1) % np;
    ARMCI_Barrier();
    if (me == np - 1) {
        if (strcmp(mode, "rank") == 0) {
            ARMCI_Put(buf, base[peer], 16, np);
        } else if (strcmp(mode, "stackaddr") == 0) {
            char stack_target[64];
            ARMCI_Put(buf, stack_target, 16, peer);
        } else if (strcmp(mode, "negcount") == 0) {
            ARMCI_Get(base[peer], buf, -5, peer);
        } else if (strcmp(mode, "levels") == 0) {
            int st[8] = { 8, 8, 8, 8, 8, 8, 8, 8 }, cnt[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
            ARMCI_PutS(buf, st, base[peer], st, cnt, 8, peer);
        } else if (strcmp(mode, "nullsrc") == 0) {
            ARMCI_Put(NULL, base[peer], 16, peer);
        } else {
            fprintf(stderr, "badarg: unknown mode %s\n", mode);
        }
        fprintf(stderr, "badarg: the bad call of mode %s returned\n", mode);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* the other ranks wait; the job must be ended for them */
    ARMCI_Barrier();
    ARMCI_Free(base[me]);
    ARMCI_Finalize();
    MPI_Finalize();
    return 3;
}
