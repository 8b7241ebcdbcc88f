/* Start-up, shut-down, errors and the services api_internal.h declares. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "api/api_check.h"
#include "api/api_internal.h"
#include "armci.h"
#include "core/arm_ops.h"
#include "util/arm_acc.h"

static struct {
    long *nxtval;        /* rank 0's counter for TCGMSG nxtval */
    arm_alloc_t *nxtval_alloc;
} api_state;

_Noreturn void arm_api_not_initialised(const char *call)
{
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
    armada_api_groups_init();
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
int PARMCI_Init_thread(int armci_requested)
{
    (void)armci_requested;
    return init_on(MPI_COMM_WORLD, "ARMCI_Init_thread");
}
int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm)
{
    (void)armci_requested;
    return init_on(comm, "ARMCI_Init_thread_comm");
}
int PARMCI_Initialized(void) { return arm_core.initialized; }

int PARMCI_Finalize(void)
{
    if (!arm_core.initialized)
        return 0;
    api_state.nxtval = NULL;
    api_state.nxtval_alloc = NULL; /* released with the other internal ones */
    armada_api_groups_fini();
    arm_core_finalize();
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

/* ---- shared checks --------------------------------------------------------- */
void api_acc_type(const char *call, int type, const void *scale)
{
    if (ARM_API_CHECKS && arm_acc_elem_size(type) == 0)
        arm_fatal(call, "argument 'datatype' = %d is not an ARMCI_ACC_* type", type);
    if (ARM_API_CHECKS && scale == NULL)
        arm_fatal(call, "argument 'scale' is NULL");
}

void api_strided(const char *call, const void *src, const int *src_stride, const void *dst,
                 const int *dst_stride, const int *count, int levels)
{
    if (!ARM_API_CHECKS)
        return;
    if (levels < 0 || levels > ARM_MAX_STRIDE_LEVELS)
        arm_fatal(call, "argument 'stride_levels' = %d is outside 0..%d", levels,
                  ARM_MAX_STRIDE_LEVELS);
    if (!count)
        arm_fatal(call, "argument 'count' is NULL");
    if (levels > 0 && (!src_stride || !dst_stride))
        arm_fatal(call, "argument '%s' is NULL", src_stride ? "dst_stride_ar" : "src_stride_ar");
    for (int i = 0; i <= levels; i++)
        if (count[i] < 0)
            arm_fatal(call, "argument 'count[%d]' = %d is negative", i, count[i]);
    for (int i = 0; i < levels; i++)
        if (src_stride[i] < 0 || dst_stride[i] < 0)
            arm_fatal(call, "argument '%s[%d]' = %d is negative",
                      src_stride[i] < 0 ? "src_stride_ar" : "dst_stride_ar", i,
                      src_stride[i] < 0 ? src_stride[i] : dst_stride[i]);
    if (arm_strided_bytes(levels, count) > 0) {
        if (!src)
            arm_fatal(call, "argument 'src_ptr' is NULL");
        if (!dst)
            arm_fatal(call, "argument 'dst_ptr' is NULL");
    }
}

void api_giov(const char *call, const void *iovp, int iov_len)
{
    const armci_giov_t *iov = iovp;
    if (!ARM_API_CHECKS)
        return;
    api_count(call, "iov_len", iov_len);
    if (iov_len > 0 && !iov)
        arm_fatal(call, "argument 'iov' is NULL");
    for (int d = 0; d < iov_len; d++) {
        if (iov[d].bytes < 0 || iov[d].ptr_array_len < 0)
            arm_fatal(call, "argument 'iov[%d].%s' is negative", d,
                      iov[d].bytes < 0 ? "bytes" : "ptr_array_len");
        if (iov[d].ptr_array_len > 0 && (!iov[d].src_ptr_array || !iov[d].dst_ptr_array))
            arm_fatal(call, "argument 'iov[%d].%s' is NULL", d,
                      iov[d].src_ptr_array ? "dst_ptr_array" : "src_ptr_array");
    }
}
