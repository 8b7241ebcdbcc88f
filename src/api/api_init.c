/* Start-up, shut-down, errors and the services api_internal.h declares. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "api/api_check.h"
#include "api/api_internal.h"
#include "armci.h"
#include "core/arm_ops.h"
#include "util/arm_config.h"

static struct {
    long *nxtval;        /* rank 0's counter for TCGMSG nxtval */
    arm_alloc_t *nxtval_alloc;
} api_state;

_Noreturn void arm_api_not_initialised(const char *call)
{
    /* Before ARMCI_Init the log knows no rank: name MPI's when MPI is up. */
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down && arm_log_rank() < 0) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        arm_log_set_rank(rank);
    }
    arm_fatal(call, "ARMCI is not initialised (call ARMCI_Init after MPI_Init)");
}

void arm_api_require_init(const char *call) { api_init(call); }
MPI_Comm arm_api_world_comm(void) { return arm_core.world; }
MPI_Comm arm_api_node_comm(void) { return arm_core.node_comm; }
MPI_Comm arm_api_masters_comm(void) { return arm_core.masters_comm; }
long *arm_api_nxtval_counter(void) { return api_state.nxtval; }

_Noreturn void arm_api_fatal(const char *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    arm_fatal_v(call, fmt, ap);
}

void armada_api_groups_init(void);
void armada_api_groups_fini(void);

/* MPI_Finalize deletes MPI_COMM_SELF's attributes before it tears MPI down
 * (MPI 3.1, section 8.7.1), so a callback on one of them runs while MPI still
 * works. A program that ends MPI with ARMCI still up has ARMCI finalised
 * there (ARMCI-MPI leaves it up, with its windows on a finished MPI): when
 * every process does so, the job ends cleanly; when only
 * some do, the others are in another collective call and ARMCI_Finalize's
 * meeting stops the job with both calls named instead of leaving the
 * others to wait forever (decision 096). */
static int finalize_on_mpi_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)value;
    (void)extra;
    if (!arm_core.initialized)
        return MPI_SUCCESS;
    ARM_WARN("api", "MPI_Finalize was called before ARMCI_Finalize: finalising ARMCI first "
             "(call ARMCI_Finalize before MPI_Finalize)");
    arm_core.own_mpi = 0;   /* MPI is ending already */
    PARMCI_Finalize();
    return MPI_SUCCESS;
}

static void watch_mpi_finalize(void)
{
    static int watched;   /* one attribute for the life of MPI */
    if (watched)
        return;
    int key;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_on_mpi_finalize, &key, NULL) !=
            MPI_SUCCESS ||
        MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) != MPI_SUCCESS)
        return;
    watched = 1;
}

static int init_on(MPI_Comm comm, const char *call)
{
    if (arm_core.initialized)
        return 0;
    int up = 0;
    MPI_Initialized(&up);
    if (!up) {
        /* ARMCI may be the first to need MPI (TCGMSG-style programs). */
        int provided;
        MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
        arm_core.own_mpi = 1;
    }
    arm_status_t st = arm_core_init(comm, call);
    if (st != ARM_OK)
        arm_fatal(call, "start-up failed: %s", arm_status_str(st));
    watch_mpi_finalize();
    armada_api_groups_init();
    st = arm_sym_init();
    if (st != ARM_OK)
        arm_fatal(call, "reserving the symmetric heap (ARMADA_SYMMETRIC_HEAP=%ld) failed on "
                  "rank %d: %s", arm_config.symmetric_heap, arm_core.me,
                  arm_reg_error()[0] ? arm_reg_error() : arm_status_str(st));
    void **bases = malloc((size_t)arm_core.nproc * sizeof *bases);
    int *members = malloc((size_t)arm_core.nproc * sizeof *members);
    if (!bases || !members)
        arm_fatal(call, "out of memory on rank %d", arm_core.me);
    for (int r = 0; r < arm_core.nproc; r++)
        members[r] = r;
    st = arm_reg_malloc(arm_core.world, arm_core.nproc, members,
                        arm_core.me == 0 ? sizeof(long) : 0, 1, bases,
                        &api_state.nxtval_alloc);
    if (st != ARM_OK)
        arm_fatal(call, "start-up failed: %s", arm_status_str(st));
    arm_op_amo_mark(api_state.nxtval_alloc);
    api_state.nxtval = bases[0];
    free(bases);
    free(members);
    return 0;
}

int PARMCI_Init(void) { return init_on(MPI_COMM_WORLD, "ARMCI_Init"); }
int PARMCI_Init_args(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return init_on(MPI_COMM_WORLD, "ARMCI_Init_args");
}
/* The level granted is MPI's: the inter-node client serialises its threads
 * exactly when MPI provides MPI_THREAD_MULTIPLE (core/remote_lock.c). A
 * request above what MPI provides is refused, as ARMCI-MPI does, instead of
 * being accepted and then broken by concurrent threads. */
static int init_thread_on(MPI_Comm comm, int requested, const char *call)
{
    int st = init_on(comm, call);
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (requested < MPI_THREAD_SINGLE || requested > MPI_THREAD_MULTIPLE)
        arm_api_fatal(call, "argument 'armci_requested' (%d) is not an MPI thread level "
                      "(MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE)", requested);
    if (requested > provided)
        arm_api_fatal(call, "argument 'armci_requested' (%d) is above the thread level "
                      "MPI provides (%d): initialise MPI with MPI_Init_thread at that level",
                      requested, provided);
    return st;
}
int PARMCI_Init_thread(int armci_requested)
{
    return init_thread_on(MPI_COMM_WORLD, armci_requested, "ARMCI_Init_thread");
}
int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm)
{
    return init_thread_on(comm, armci_requested, "ARMCI_Init_thread_comm");
}
int PARMCI_Initialized(void) { return arm_core.initialized; }

int PARMCI_Finalize(void)
{
    if (!arm_core.initialized)
        return 0;
    api_state.nxtval = NULL;
    api_state.nxtval_alloc = NULL; /* released with the other internal ones */
    arm_core_coll_begin(ARM_COLL_FINALIZE);
    armada_api_groups_fini();
    arm_core_finalize();
    arm_core_coll_end();
    if (arm_core.own_mpi) {
        arm_core.own_mpi = 0;
        MPI_Finalize();
    }
    return 0;
}

void ARMCI_Cleanup(void)
{
    /* Shared segments carry no name after start-up, so nothing is left to
     * remove from /dev/shm; release what this process maps. */
    if (arm_core.initialized)
        arm_reg_release_all();
}

void ARMCI_Error(const char *msg, int code)
{
    fprintf(stderr, "armada[rank %d]: ARMCI_Error: %s (code %d)\n", arm_core.me,
            msg ? msg : "(no message)", code);
    fflush(stderr);
    arm_core_abort(code ? code : 1);
}
