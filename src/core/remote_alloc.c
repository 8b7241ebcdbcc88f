/* Remote keys and the publication of allocations to the other nodes. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

/* ---- allocations -------------------------------------------------------------------- */
static arm_status_t locked_seg_register(arm_alloc_t *a, const char *name, size_t len)
{
    if (!arm_rc.active)
        return ARM_OK;
    remote_alloc_t *ra = calloc(1, sizeof *ra);
    if (!ra)
        return ARM_ERR_NO_MEMORY;
    a->remote = ra;
    rop_t *op = arm_rem_op_get(arm_core.my_node);
    op->req.op = ARM_SRV_REG;
    op->req.operand = (int64_t)len;
    op->req.target = arm_core.me;
    size_t nlen = strlen(name) + 1;
    memcpy(op->buf, name, nlen);
    arm_net_iov_t iov = { op->buf, nlen };
    arm_rem_op_send("ARMCI_Malloc", op, &iov, 1, 1, 0);
    arm_rem_op_finish("ARMCI_Malloc", op);
    ra->my_srv_base = (uint64_t)op->value;
    ra->rkey_len = op->data_len;
    ra->rkey_bytes = malloc(ra->rkey_len ? ra->rkey_len : 1);
    if (!ra->rkey_bytes)
        return ARM_ERR_NO_MEMORY;
    memcpy(ra->rkey_bytes, op->buf, ra->rkey_len);
    return ARM_OK;
}

arm_status_t arm_remote_alloc_publish(arm_alloc_t *a, const uint64_t **node_base)
{
    *node_base = NULL;
    if (!arm_rc.active)
        return ARM_OK;
    int gsize = a->gsize, nn = arm_core.nnodes;
    remote_alloc_t *ra = a->remote;
    if (!ra && !(ra = a->remote = calloc(1, sizeof *ra)))
        return ARM_ERR_NO_MEMORY;
    ra->node_base = calloc((size_t)nn, sizeof *ra->node_base);
    ra->node_rkey = calloc((size_t)nn, sizeof *ra->node_rkey);
    ra->node_rkey_len = calloc((size_t)nn, sizeof *ra->node_rkey_len);
    ra->rkeys = calloc((size_t)nn, sizeof *ra->rkeys);
    uint64_t mine[2] = { a->seg_owner ? ra->my_srv_base : 0, a->seg_owner ? ra->rkey_len : 0 };
    uint64_t *all = malloc((size_t)gsize * sizeof mine);
    int *counts = malloc((size_t)gsize * sizeof(int));
    int *displs = malloc((size_t)gsize * sizeof(int));
    if (!ra->node_base || !ra->node_rkey || !ra->node_rkey_len || !ra->rkeys || !all ||
        !counts || !displs) {
        free(all);
        free(counts);
        free(displs);
        return ARM_ERR_NO_MEMORY;
    }
    MPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, a->comm);
    int total = 0;
    for (int g = 0; g < gsize; g++) {
        counts[g] = (int)all[2 * g + 1];
        displs[g] = total;
        total += counts[g];
    }
    char *keys = malloc(total ? (size_t)total : 1);
    if (!keys) {
        free(all);
        free(counts);
        free(displs);
        return ARM_ERR_NO_MEMORY;
    }
    MPI_Allgatherv(a->seg_owner ? ra->rkey_bytes : NULL, (int)mine[1], MPI_BYTE, keys, counts,
                   displs, MPI_BYTE, a->comm);
    for (int g = 0; g < gsize; g++) {
        if (!counts[g])
            continue;
        int node = arm_core.node_of[a->members[g]];
        ra->node_base[node] = all[2 * g];
        if ((ra->node_rkey[node] = malloc((size_t)counts[g]))) {
            memcpy(ra->node_rkey[node], keys + displs[g], (size_t)counts[g]);
            ra->node_rkey_len[node] = (size_t)counts[g];
        }
    }
    free(keys);
    free(all);
    free(counts);
    free(displs);
    *node_base = ra->node_base;
    return ARM_OK;
}

static void locked_alloc_release(arm_alloc_t *a)
{
    if (arm_rc.active)
        arm_rem_batch_send("ARMCI_Free", 0);
    remote_alloc_t *ra = a->remote;
    if (!ra)
        return;
    if (arm_rc.active) {
        arm_rem_release_rkeys(ra);
        if (a->seg_owner && ra->my_srv_base) {
            rop_t *op = arm_rem_op_get(arm_core.my_node);
            op->req.op = ARM_SRV_UNREG;
            op->req.raddr = ra->my_srv_base;
            arm_rem_op_send("ARMCI_Free", op, NULL, 0, 1, 0);
            arm_rem_op_finish("ARMCI_Free", op);
        }
    }
    if (ra->node_rkey)
        for (int n = 0; n < arm_core.nnodes; n++)
            free(ra->node_rkey[n]);
    free(ra->node_rkey);
    free(ra->node_rkey_len);
    free(ra->node_base);
    free(ra->rkey_bytes);
    free(ra->rkeys);
    free(ra);
    a->remote = NULL;
}

arm_net_rkey_t *arm_rem_rkey_for(const char *call, const arm_slice_t *s, int node)
{
    remote_alloc_t *ra = s->alloc->remote;
    if (!ra->rkeys[node]) {
        arm_status_t st = arm_net_rkey_unpack(arm_rc.net, node, ra->node_rkey[node],
                                              &ra->rkeys[node]);
        if (st != ARM_OK)
            arm_fatal(call, "cannot reach rank %d (node %d), whose server holds the memory: "
                      "%s", arm_core.node_leader[node], node, arm_status_str(st));
    }
    return ra->rkeys[node];
}
arm_status_t arm_remote_seg_register(arm_alloc_t *a, const char *name, size_t len)
{
    arm_rem_enter();
    arm_status_t r = locked_seg_register(a, name, len);
    arm_rem_leave();
    return r;
}
void arm_remote_alloc_release(arm_alloc_t *a)
{
    arm_rem_enter();
    locked_alloc_release(a);
    arm_rem_leave();
}
#endif /* ARMADA_HAVE_UCX */
