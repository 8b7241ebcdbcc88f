/* shm_limit: shared memory that is not there is reported by ARMCI_Malloc
 * (decision 033). Modes:
 *   devshm   every rank asks for more than /dev/shm has free: the job must
 *            stop with "/dev/shm has N bytes free" (no SIGBUS later);
 *   limit    1 MiB under ARMADA_SHM_LIMIT=1k: the job must stop naming it;
 *   within   under ARMADA_SHM_LIMIT=2m, allocations up to the limit, freed
 *            and made again, succeed and hold their data.
 * The failing modes exit 3 if the allocation returns. */
#include <sys/statvfs.h>
#include <armci.h>
#include "tst.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "within";
    int me, np;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    void **b = malloc(sizeof(void *) * np), **c = malloc(sizeof(void *) * np);
    if (strcmp(mode, "devshm") == 0 || strcmp(mode, "limit") == 0) {
        long bytes = 1L << 20;
        if (mode[0] == 'd') {
            struct statvfs vfs;
            statvfs("/dev/shm", &vfs);
            bytes = (long)(vfs.f_bavail * vfs.f_frsize) + (1L << 30);
        }
        ARMCI_Malloc(b, bytes);
        ARMCI_Access_begin(b[me]);
        memset(b[me], 1, (size_t)bytes);   /* SIGBUS here is what must not happen */
        ARMCI_Access_end(b[me]);
        fprintf(stderr, "shm_limit: ARMCI_Malloc of %ld bytes returned (mode %s)\n", bytes,
                mode);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* within: 1 MiB + 1 MiB fill a 2 MiB limit; freed, they can be had again */
    for (int round = 0; round < 2; round++) {
        CHECK_EQ(ARMCI_Malloc(b, 1L << 20), 0, "ARMCI_Malloc 1 MiB");
        CHECK_EQ(ARMCI_Malloc(c, 1L << 20), 0, "ARMCI_Malloc second 1 MiB");
        ARMCI_Access_begin(b[me]);
        memset(b[me], me + 1, 1L << 20);
        ARMCI_Access_end(b[me]);
        ARMCI_Barrier();
        int peer = (me + 1) % np;
        unsigned char got[64];
        ARMCI_Get((char *)b[peer] + (1L << 20) - 64, got, 64, peer);
        CHECK(got[0] == peer + 1 && got[63] == peer + 1, "data of rank %d", peer);
        ARMCI_Barrier();
        ARMCI_Free(c[me]);
        ARMCI_Free(b[me]);
    }
    TST_SAY("shm_limit: two 1 MiB allocations under a 2 MiB limit, twice");
    free(b);
    free(c);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("shm_limit");
}
