/* badarg (Armada only): one bad argument per invocation; Armada must stop
 * the job with "armada[rank R]: <CALL>: argument '<ARG>' ..." on stderr.
 * Modes: rank, stackaddr, negcount, levels, nullsrc, putv_null, getv_null,
 * group_dup, puts_overlap, accs_overlap, acc_partial, accv_partial,
 * preinit (a call before ARMCI_Init), unlock_other (a rank unlocks a
 * mutex another rank holds), unlock_free (an Unlock with no Lock),
 * unlock_hdl (the same through an ARMCIX mutex handle), relock (a Lock of
 * a mutex the caller holds, which would never return), put_overrun,
 * get_overrun, puts_overrun, putv_overrun, rmw_overrun (a transfer that runs
 * past the end of the target's allocation), negstride, acc_type, rmw_op,
 * vec_negbytes, free_foreign (ARMCI_Free of memory ARMCI did not allocate),
 * brdcst_root, lock_range (a Lock with no mutexes created), wait_garbage and
 * test_garbage (Wait and Test on a handle nothing set), coll_free and
 * coll_mutexes, coll_malloc (the last rank's third collective call is
 * ARMCI_Free, ARMCI_Create_mutexes or ARMCI_Malloc while the others' is
 * ARMCI_Barrier), coll_malloc_free (ARMCI_Malloc against ARMCI_Free),
 * coll_gop and coll_brdcst (the last rank's third collective call is
 * armci_msg_igop or armci_msg_brdcst while the others are in
 * ARMCI_Barrier: found by a process of its node, decision 090, or, alone
 * on its node, by the leader that waits for it, decision 091),
 * coll_nxtval (the last rank's third call is the collective reset of
 * armci_tcgmsg_nxtval, whose two world barriers are counted: the second
 * meets the others' ARMCI_Free),
 * free_mixed (the last rank frees the first of two allocations, the others
 * the second: the ids are agreed in the barrier that starts ARMCI_Free over
 * the world, decision 090), coll_mpi_finalize (the last rank calls
 * MPI_Finalize without ARMCI_Finalize while the others are in
 * ARMCI_Barrier: the ARMCI_Finalize that MPI_Finalize makes meets their
 * barrier, decision 096), mpi_finalize_all (every rank does so; this mode
 * must succeed, with ARMCI finalised). Reaching the end of a
 * mode means the bad call returned: that is reported and the exit is 3 (the
 * EXPECT_FAIL regex then does not match, so the test fails). */
#include <armci.h>
#include <armcix.h>
#include <message.h>
#include "tst.h"

long armci_tcgmsg_nxtval(long *mproc);   /* TCGMSG's NXTVAL, in libarmci */

/* Ranks 0 and 1 (and every rank for unlock_free) misuse a mutex of rank 0;
 * the other ranks wait at the barrier until the job is ended. */
static void mutex_misuse(const char *mode, int me, int np)
{
    int other = np > 1 ? 1 : 0;
    if (strcmp(mode, "unlock_hdl") == 0) {
        ARMCI_Group world;
        ARMCI_Group_get_world(&world);
        armcix_mutex_hdl_t h = ARMCIX_Create_mutexes_hdl(1, &world);
        if (me == 0)
            ARMCIX_Lock_hdl(h, 0, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == other)
            ARMCIX_Unlock_hdl(h, 0, 0);
        MPI_Barrier(MPI_COMM_WORLD);   /* the others wait to be ended */
        return;
    }
    ARMCI_Create_mutexes(2);
    if (strcmp(mode, "unlock_other") == 0) {
        if (me == 0)
            ARMCI_Lock(1, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == other)
            ARMCI_Unlock(1, 0);
    } else if (strcmp(mode, "relock") == 0) {
        if (me == other) {
            ARMCI_Lock(1, 0);
            ARMCI_Lock(1, 0);
        }
    } else {
        if (me == other)
            ARMCI_Unlock(1, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int me, np;
    const char *mode = argc > 1 ? argv[1] : "rank";
    setvbuf(stderr, NULL, _IONBF, 0);
    MPI_Init(&argc, &argv);
    if (strcmp(mode, "preinit") == 0) {
        char b[8];
        ARMCI_Put(b, b, 8, 0);
        fprintf(stderr, "badarg: the bad call of mode %s returned\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    void **base = malloc(sizeof(void *) * np);
    ARMCI_Malloc(base, 4096);
    char buf[256];
    memset(buf, 1, sizeof buf);
    int peer = (me + 1) % np;
    ARMCI_Barrier();
    if (strncmp(mode, "unlock_", 7) == 0 || strcmp(mode, "relock") == 0)
        mutex_misuse(mode, me, np);
    void **more = NULL;
    if (strcmp(mode, "free_mixed") == 0) {
        more = malloc(sizeof(void *) * np);
        ARMCI_Malloc(more, 64);
    }
    if (strcmp(mode, "mpi_finalize_all") == 0) {
        /* Every rank ends MPI with ARMCI up: ARMCI is finalised inside
         * MPI_Finalize (decision 096), so the job ends cleanly. */
        free(base);
        MPI_Finalize();
        if (ARMCI_Initialized()) {
            fprintf(stderr, "badarg: ARMCI is still initialised after MPI_Finalize\n");
            return 1;
        }
        return 0;
    }
    if (me == np - 1) {
        if (strcmp(mode, "free_mixed") == 0) {
            ARMCI_Free(base[me]);   /* the others free more */
        } else if (strcmp(mode, "rank") == 0) {
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
        } else if (strcmp(mode, "putv_null") == 0 || strcmp(mode, "getv_null") == 0) {
            void *loc[2] = { buf, NULL }, *rem[2] = { base[peer], (char *)base[peer] + 64 };
            armci_giov_t v = { loc, rem, 16, 2 };
            if (mode[0] == 'p') {
                ARMCI_PutV(&v, 1, peer);
            } else {
                armci_giov_t g = { rem, loc, 16, 2 };
                ARMCI_GetV(&g, 1, peer);
            }
        } else if (strcmp(mode, "group_dup") == 0) {
            int ids[2] = { 0, 0 };
            ARMCI_Group g;
            ARMCI_Group_create(2, ids, &g);
        } else if (strcmp(mode, "puts_overlap") == 0 || strcmp(mode, "accs_overlap") == 0) {
            /* rows of 64 bytes, 32 apart: each row overwrites half the last */
            int cnt[2] = { 64, 4 }, sst[1] = { 64 }, dst[1] = { 32 };
            double scale = 1.0;
            if (mode[0] == 'p')
                ARMCI_PutS(buf, sst, base[peer], dst, cnt, 1, peer);
            else
                ARMCI_AccS(ARMCI_ACC_DBL, &scale, buf, sst, base[peer], dst, cnt, 1, peer);
        } else if (strcmp(mode, "acc_partial") == 0) {
            double scale = 1.0;
            ARMCI_Acc(ARMCI_ACC_DBL, &scale, buf, base[peer], 12, peer);
        } else if (strcmp(mode, "accv_partial") == 0) {
            int scale = 1;
            void *loc[1] = { buf }, *rem[1] = { base[peer] };
            armci_giov_t v = { loc, rem, 6, 1 };
            ARMCI_AccV(ARMCI_ACC_INT, &scale, &v, 1, peer);
        } else if (strcmp(mode, "put_overrun") == 0) {
            /* 16 bytes from 8 before the end of a 4096-byte allocation */
            ARMCI_Put(buf, (char *)base[peer] + 4088, 16, peer);
        } else if (strcmp(mode, "get_overrun") == 0) {
            ARMCI_Get((char *)base[peer] + 4000, buf, 200, peer);
        } else if (strcmp(mode, "puts_overrun") == 0) {
            /* 4 rows of 64 bytes, 1350 apart: the last row ends at 4114 */
            int cnt[2] = { 64, 4 }, sst[1] = { 64 }, dst[1] = { 1350 };
            ARMCI_PutS(buf, sst, base[peer], dst, cnt, 1, peer);
        } else if (strcmp(mode, "putv_overrun") == 0) {
            void *loc[2] = { buf, buf + 16 }, *rem[2] = { base[peer], (char *)base[peer] + 4090 };
            armci_giov_t v = { loc, rem, 16, 2 };
            ARMCI_PutV(&v, 1, peer);
        } else if (strcmp(mode, "negstride") == 0) {
            int cnt[2] = { 8, 2 }, sst[1] = { 8 }, dst[1] = { -64 };
            ARMCI_PutS(buf, sst, (char *)base[peer] + 1024, dst, cnt, 1, peer);
        } else if (strcmp(mode, "acc_type") == 0) {
            double scale = 1.0;
            ARMCI_Acc(999, &scale, buf, base[peer], 16, peer);
        } else if (strcmp(mode, "rmw_op") == 0) {
            int v = 0;
            ARMCI_Rmw(77, &v, base[peer], 1, peer);
        } else if (strcmp(mode, "rmw_overrun") == 0) {
            long v = 0;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &v, (char *)base[peer] + 4092, 1, peer);
        } else if (strcmp(mode, "vec_negbytes") == 0) {
            void *loc[1] = { buf }, *rem[1] = { base[peer] };
            armci_giov_t v = { loc, rem, -8, 1 };
            ARMCI_PutV(&v, 1, peer);
        } else if (strcmp(mode, "free_foreign") == 0) {
            ARMCI_Free(buf);
        } else if (strcmp(mode, "brdcst_root") == 0) {
            armci_msg_brdcst(buf, 8, np + 3);
        } else if (strcmp(mode, "wait_garbage") == 0 || strcmp(mode, "test_garbage") == 0) {
            armci_hdl_t h;
            memset(&h, 0x5a, sizeof h); /* never initialised, nor used by a call */
            if (mode[0] == 'w')
                ARMCI_Wait(&h);
            else
                ARMCI_Test(&h);
        } else if (strcmp(mode, "coll_free") == 0) {
            ARMCI_Free(base[me]);   /* the other ranks are in ARMCI_Barrier */
        } else if (strcmp(mode, "coll_gop") == 0) {
            int x = 1;
            armci_msg_igop(&x, 1, "+");   /* the others are in ARMCI_Barrier */
        } else if (strcmp(mode, "coll_brdcst") == 0) {
            armci_msg_brdcst(buf, 8, 0);
        } else if (strcmp(mode, "coll_nxtval") == 0) {
            long reset = -1;   /* two world barriers: the second meets ARMCI_Free */
            armci_tcgmsg_nxtval(&reset);
        } else if (strcmp(mode, "coll_mutexes") == 0) {
            ARMCI_Create_mutexes(1);
        } else if (strcmp(mode, "coll_malloc") == 0 || strcmp(mode, "coll_malloc_free") == 0) {
            void **more = malloc(sizeof(void *) * np);
            ARMCI_Malloc(more, 64);
        } else if (strcmp(mode, "coll_mpi_finalize") == 0) {
            MPI_Finalize();   /* ARMCI_Finalize inside it meets the others' barrier */
            fprintf(stderr, "badarg: MPI_Finalize returned with the others in ARMCI_Barrier\n");
            _Exit(3);
        } else if (strcmp(mode, "lock_range") == 0) {
            ARMCI_Lock(0, peer); /* no mutexes were created */
        } else {
            fprintf(stderr, "badarg: unknown mode %s\n", mode);
        }
        fprintf(stderr, "badarg: the bad call of mode %s returned\n", mode);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* the other ranks wait; the job must be ended for them. In
     * coll_malloc_free their third collective call is ARMCI_Free. */
    if (more)
        ARMCI_Free(more[me]);
    if (strcmp(mode, "coll_malloc_free") != 0)
        ARMCI_Barrier();
    ARMCI_Free(base[me]);
    ARMCI_Finalize();
    MPI_Finalize();
    return 3;
}
