/* init: start-up and shut-down of ARMCI on top of MPI.
 * Modes (argv[1]):
 *   basic  MPI_Init, ARMCI_Init, ARMCI_Initialized before/after, Finalize
 *   args   MPI_Init, ARMCI_Init_args
 *   thread MPI_Init_thread, ARMCI_Init_thread
 *   leak   an ARMCI_Malloc that is never freed before ARMCI_Finalize: the
 *          program must still exit 0 (Armada warns on stderr). */
#include <armci.h>
#include "tst.h"

/* One collective allocation, a put to the right neighbour and a get back,
 * so that every start-up path is shown to give a working runtime. */
static void **smoke(int me, int np, int do_free)
{
    void **base = malloc(sizeof(void *) * np);
    CHECK(base != NULL, "malloc");
    int rc = ARMCI_Malloc(base, 3 * sizeof(int));
    CHECK_EQ(rc, 0, "ARMCI_Malloc return");
    for (int i = 0; i < np; i++)
        CHECK(base[i] != NULL, "base[%d] is NULL", i);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int v[3] = { 100 + me, 200 + me, 300 + me };
    ARMCI_Put(v, base[right], sizeof v, right);
    ARMCI_Barrier();
    int got[3] = { 0, 0, 0 };
    ARMCI_Get(base[me], got, sizeof got, me);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(got[i], (i + 1) * 100 + left, "value put by the left neighbour");
    ARMCI_Barrier();
    if (do_free) {
        CHECK_EQ(ARMCI_Free(base[me]), 0, "ARMCI_Free return");
        free(base);
        return NULL;
    }
    return base;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "basic";
    int me, np, rc;

    if (strcmp(mode, "thread") == 0) {
        int provided = -1;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        CHECK(provided >= MPI_THREAD_SINGLE, "provided %d", provided);
        CHECK_EQ(ARMCI_Initialized(), 0, "ARMCI_Initialized before init");
        int req = provided < MPI_THREAD_SERIALIZED ? provided : MPI_THREAD_SERIALIZED;
        rc = ARMCI_Init_thread(req);
        CHECK_EQ(rc, 0, "ARMCI_Init_thread return");
    } else {
        MPI_Init(&argc, &argv);
        CHECK_EQ(ARMCI_Initialized(), 0, "ARMCI_Initialized before init");
        if (strcmp(mode, "args") == 0)
            rc = ARMCI_Init_args(&argc, &argv);
        else
            rc = ARMCI_Init();
        CHECK_EQ(rc, 0, "ARMCI_Init return");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    TST_SAY("init[%s]: %d ranks", mode, np);

    CHECK(ARMCI_Initialized() != 0, "ARMCI_Initialized after init is 0");
    /* ARMCI_Cleanup is part of the interface; calling it ends the runtime
     * abruptly, so only its presence is checked. */
    void (*cleanup)(void) = ARMCI_Cleanup;
    CHECK(cleanup != NULL, "ARMCI_Cleanup missing");
    CHECK_EQ(armci_msg_me(), me, "armci_msg_me");
    CHECK_EQ(armci_msg_nproc(), np, "armci_msg_nproc");

    void **leaked = smoke(me, np, strcmp(mode, "leak") != 0);
    TST_SAY("init[%s]: ARMCI_Malloc/Put/Get/Free after init work", mode);
    if (leaked)
        TST_SAY("init[leak]: finalising with one allocation still alive");

    rc = ARMCI_Finalize();
    CHECK_EQ(rc, 0, "ARMCI_Finalize return");
    CHECK_EQ(ARMCI_Initialized(), 0, "ARMCI_Initialized after finalize");
    TST_SAY("init[%s]: ARMCI_Initialized before/after init/finalize correct", mode);
    free(leaked);
    MPI_Finalize();
    return tst_finish("init");
}
