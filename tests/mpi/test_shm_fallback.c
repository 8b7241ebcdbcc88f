/* shm_fallback (decision 044): ARMCI_Malloc/Put/Free in a few rounds, with
 * rank 0, the node's creator of every segment, made not dumpable first when
 * argv[1] is "nodump". Run as an ordinary user (shm_fallback.sh), the other
 * ranks then cannot open rank 0's /proc fd entries: the node must fall back
 * to named segments together, and the data must still be right. */
#include <armci.h>
#include <sys/prctl.h>
#include "tst.h"

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (me == 0 && argc > 1 && strcmp(argv[1], "nodump") == 0)
        CHECK(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0, "prctl(PR_SET_DUMPABLE, 0)");
    ARMCI_Init();
    void **p = malloc(sizeof(void *) * (size_t)np);
    for (int round = 0; round < 4; round++) {
        ARMCI_Malloc(p, 4096 << round);
        long v = 1000L * round + me;
        int to = (me + 1) % np;
        ARMCI_Put(&v, p[to], sizeof v, to);
        ARMCI_Barrier();
        long want = 1000L * round + (me + np - 1) % np;
        CHECK(*(long *)p[me] == want, "round %d: got %ld, want %ld", round, *(long *)p[me],
              want);
        ARMCI_Barrier();
        ARMCI_Free(p[me]);
    }
    free(p);
    ARMCI_Finalize();
    int rc = tst_finish("shm_fallback");
    MPI_Finalize();
    return rc;
}
