/* init: start-up and shut-down of ARMCI on top of MPI.
 * Modes (argv[1]):
 *   basic  MPI_Init, ARMCI_Init, ARMCI_Initialized before/after, Finalize
 *   args   MPI_Init, ARMCI_Init_args
 *   thread MPI_Init_thread, ARMCI_Init_thread
 *   thread_above  ARMCI_Init_thread above MPI's level: must stop with a message
 *   leak   an ARMCI_Malloc that is never freed before ARMCI_Finalize: the
 *          program must still exit 0 (Armada warns on stderr).
 *   wait   basic, then the last rank arrives at an ARMCI_Barrier 400 ms
 *          after the others, who must sleep through the wait rather than
 *          wake every 100 us: fewer than 1000 voluntary context switches
 *          in their process (decision 019 expects about 250). */
#include <armci.h>
#include <sys/resource.h>
#include "tst.h"

/* The last rank comes 400 ms late to a barrier; the others count how often
 * their process went to sleep meanwhile (each nap is one). */
static void late_barrier(int me, int np)
{
    ARMCI_Barrier();
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    if (me == np - 1) {
        struct timespec ts = { 0, 400000000L };
        nanosleep(&ts, NULL);
    }
    ARMCI_Barrier();
    getrusage(RUSAGE_SELF, &r1);
    long naps = r1.ru_nvcsw - r0.ru_nvcsw;
    if (me != np - 1) {
        CHECK(naps < 1000, "a 400 ms barrier wait woke the process %ld times", naps);
        TST_SAY("init[wait]: rank %d slept through a 400 ms barrier wait in %ld naps", me, naps);
    }
}

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
    } else if (strcmp(mode, "thread_above") == 0) {
        /* Asks ARMCI for more than MPI provides: must stop, naming it. */
        int provided = -1;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
        if (provided < MPI_THREAD_MULTIPLE)
            rc = ARMCI_Init_thread(MPI_THREAD_MULTIPLE);
        else
            rc = ARMCI_Init_thread(MPI_THREAD_MULTIPLE + 7);
        CHECK(0, "ARMCI_Init_thread above MPI's level returned %d", rc);
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
    if (strcmp(mode, "wait") == 0 && np > 1)
        late_barrier(me, np);
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
