/* alloc_loop (Armada only, a fault-test target): ARMCI_Malloc and
 * ARMCI_Free of 8 KiB to 2 MiB per rank, in a loop, until the job is
 * interrupted (shm_interrupt.sh sends SIGINT or SIGTERM to mpirun, or
 * SIGKILL to one rank). Each rank writes its pid to $ALLOC_LOOP_DIR/pid.<rank>
 * once the loop runs; after argv[1] seconds (default 60) the loop ends and
 * the program exits 0. */
#include <armci.h>
#include <unistd.h>
#include "tst.h"

int main(int argc, char **argv)
{
    double limit = argc > 1 ? atof(argv[1]) : 60.0;
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    void **a = malloc(sizeof(void *) * np), **b = malloc(sizeof(void *) * np);
    const char *dir = getenv("ALLOC_LOOP_DIR");
    if (dir) {
        char path[512];
        snprintf(path, sizeof path, "%s/pid.%d", dir, me);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        }
    }
    double t0 = MPI_Wtime();
    long rounds = 0;
    unsigned long long rng = 12345;
    /* Rank 0's clock alone ends the loop: each rank testing its own could
     * leave one in ARMCI_Malloc while another finalizes. */
    for (;;) {
        long n1 = 8192L << tst_range(&rng, 0, 8), n2 = 8192L << tst_range(&rng, 0, 8);
        ARMCI_Malloc(a, n1);
        ARMCI_Malloc(b, n2);
        ARMCI_Free(a[me]);
        ARMCI_Free(b[me]);
        rounds++;
        int stop = MPI_Wtime() - t0 >= limit;
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (stop)
            break;
    }
    CHECK(rounds > 0, "no round ran");
    free(a);
    free(b);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("alloc_loop");
}
