/* A program built against an installed Armada: prints the version and does
 * one put and get between two ranks. */
#include <stdio.h>
#include <stdlib.h>
#include <armada.h>
#include <armci.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me = armci_msg_me(), np = armci_msg_nproc();
    void **base = malloc((size_t)np * sizeof *base);
    ARMCI_Malloc(base, sizeof(long));
    long v = 100 + me, got = -1;
    int peer = (me + 1) % np;
    ARMCI_Put(&v, base[peer], sizeof v, peer);
    ARMCI_Barrier();
    ARMCI_Get(base[me], &got, sizeof got, me);
    int ok = got == 100 + (me + np - 1) % np;
    printf("consumer: rank %d Armada %s: %s\n", me, armada_version(NULL, NULL, NULL),
           ok ? "ok" : "WRONG");
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return ok ? 0 : 1;
}
