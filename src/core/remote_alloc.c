/* Remote keys and the publication of allocations to the other nodes. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/arm_mpi.h"
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

/* ---- segments of the other nodes of this host (decision 068) ------------------------ */

/* This kernel's boot id: two processes that read the same one run on the
 * same host, where a /proc/<pid>/fd path names the same process. */
static const char *boot_id(void)
{
    static char id[40];
    static int done;
    if (!done) {
        FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
        if (f) {
            if (!fgets(id, sizeof id, f))
                id[0] = '\0';
            fclose(f);
        }
        id[strcspn(id, "\n")] = '\0';
        done = 1;
    }
    return id;
}

void arm_remote_alloc_card(const arm_alloc_t *a, arm_remote_card_t *card)
{
    memset(card, 0, sizeof *card);
    const remote_alloc_t *ra = a->remote;
    if (!arm_rc.active || !a->seg_owner || !ra)
        return;
    card->srv_base = ra->my_srv_base;
    card->key_len = (uint32_t)ra->rkey_len;
    if (ra->rkey_len <= ARM_REMOTE_CARD_KEY)
        memcpy(card->key, ra->rkey_bytes, ra->rkey_len);
    if (arm_config.vnode_map && a->seg_fd >= 0 && strncmp(a->seg.name, "/proc/", 6) == 0 &&
        boot_id()[0]) {
        snprintf(card->path, sizeof card->path, "%s", a->seg.name);
        snprintf(card->boot, sizeof card->boot, "%s", boot_id());
        card->seg_len = a->seg.len;
    }
}

static const arm_remote_card_t *card_of(const arm_remote_card_t *cards, size_t stride, int g)
{
    return (const arm_remote_card_t *)(const void *)((const char *)cards + (size_t)g * stride);
}

/* The keys longer than a card: one more exchange, which every member makes
 * or none (each sees every length). Returns the keys, packed in group
 * order, with counts and displs filled; NULL when no key was long. */
static char *long_keys(arm_alloc_t *a, const arm_remote_card_t *cards, size_t stride,
                       int *counts, int *displs)
{
    remote_alloc_t *ra = a->remote;
    int total = 0;
    for (int g = 0; g < a->gsize; g++) {
        const arm_remote_card_t *cd = card_of(cards, stride, g);
        counts[g] = cd->key_len > ARM_REMOTE_CARD_KEY ? (int)cd->key_len : 0;
        displs[g] = total;
        total += counts[g];
    }
    if (!total)
        return NULL;
    char *keys = malloc((size_t)total);
    if (!keys)   /* the others are in the exchange already: it cannot be skipped */
        arm_fatal("ARMCI_Malloc", "no memory for the group's %d bytes of remote keys "
                  "(rank %d)", total, arm_core.me);
    int mine = a->seg_owner && ra && ra->rkey_len > ARM_REMOTE_CARD_KEY ? (int)ra->rkey_len : 0;
    arm_mpi_allgatherv(mine ? ra->rkey_bytes : keys, mine, MPI_BYTE, keys, counts, displs, MPI_BYTE,
                   a->comm);
    return keys;
}

/* Every process maps the segments of the other nodes of its host; a node
 * that cannot be mapped is reached by UCX alone. */
static void map_host_segments(arm_alloc_t *a, remote_alloc_t *ra, const arm_remote_card_t *cards,
                              size_t stride)
{
    ra->node_map = calloc((size_t)arm_core.nnodes, sizeof *ra->node_map);
    ra->fast = calloc((size_t)arm_core.nnodes, sizeof *ra->fast);
    for (int g = 0; ra->node_map && g < a->gsize; g++) {
        const arm_remote_card_t *cd = card_of(cards, stride, g);
        int node = arm_core.node_of[a->members[g]];
        if (node == arm_core.my_node || !cd->path[0] || !boot_id()[0] ||
            strncmp(cd->boot, boot_id(), sizeof cd->boot) != 0)
            continue;
        if (arm_shm_attach(cd->path, (size_t)cd->seg_len, &ra->node_map[node]) != ARM_OK)
            memset(&ra->node_map[node], 0, sizeof ra->node_map[node]);
    }
}

arm_status_t arm_remote_alloc_publish(arm_alloc_t *a, const arm_remote_card_t *cards,
                                      size_t stride, const uint64_t **node_base)
{
    *node_base = NULL;
    if (!arm_rc.active)
        return ARM_OK;
    int gsize = a->gsize, nn = arm_core.nnodes;
    remote_alloc_t *ra = a->remote;
    if (!ra)
        ra = a->remote = calloc(1, sizeof *ra);
    int *counts = malloc((size_t)gsize * sizeof(int));
    int *displs = malloc((size_t)gsize * sizeof(int));
    if (!counts || !displs)   /* as above: the others may be in the exchange */
        arm_fatal("ARMCI_Malloc", "no memory for %d counts (rank %d)", gsize, arm_core.me);
    char *keys = long_keys(a, cards, stride, counts, displs);
    if (!ra) {
        free(keys);
        free(counts);
        free(displs);
        return ARM_ERR_NO_MEMORY;
    }
    arm_status_t st = ARM_OK;
    ra->node_base = calloc((size_t)nn, sizeof *ra->node_base);
    ra->node_rkey = calloc((size_t)nn, sizeof *ra->node_rkey);
    ra->node_rkey_len = calloc((size_t)nn, sizeof *ra->node_rkey_len);
    ra->rkeys = calloc((size_t)nn, sizeof *ra->rkeys);
    if (!(ra->node_base && ra->node_rkey && ra->node_rkey_len && ra->rkeys))
        st = ARM_ERR_NO_MEMORY;
    for (int g = 0; st == ARM_OK && g < gsize; g++) {
        const arm_remote_card_t *cd = card_of(cards, stride, g);
        if (!cd->key_len)
            continue;
        int node = arm_core.node_of[a->members[g]];
        ra->node_base[node] = cd->srv_base;
        const char *key = counts[g] ? keys + displs[g] : cd->key;
        if ((ra->node_rkey[node] = malloc(cd->key_len))) {
            memcpy(ra->node_rkey[node], key, cd->key_len);
            ra->node_rkey_len[node] = cd->key_len;
        }
    }
    free(keys);
    free(counts);
    free(displs);
    if (st != ARM_OK)
        return st;
    if (arm_config.vnode_map)
        map_host_segments(a, ra, cards, stride);
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
    if (ra->node_map)   /* after the keys that pointed into them */
        for (int n = 0; n < arm_core.nnodes; n++)
            arm_shm_detach(&ra->node_map[n]);
    free(ra->node_map);
    free(ra->fast);
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
        /* UCX reaches the node through this host's memory: so can memcpy. */
        if (ra->node_map && ra->node_map[node].base &&
            (arm_net_node_caps(arm_rc.net, node) & ARM_NET_CAP_HOST_SHM)) {
            arm_net_rkey_map(ra->rkeys[node], ra->node_base[node], ra->node_map[node].base,
                             ra->node_map[node].len);
            /* Threads may copy without the lock where the path takes the
             * transport's put or get (mapped_fast asks it); the node's bits
             * are learnt here, before the pointer is published. */
            if (ra->fast && (arm_rem_caps(node) & ARM_PATH_CAP_MAPPED))
                __atomic_store_n(&ra->fast[node], (char *)ra->node_map[node].base,
                                 __ATOMIC_RELEASE);
        }
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
