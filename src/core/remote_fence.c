/* Ordering: fences, and location consistency between the server path and
 * direct RMA. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

void arm_rem_mark_dirty(int node, unsigned char *flags)
{
    if (!arm_rc.srv_dirty[node] && !arm_rc.rma_dirty[node])
        arm_rc.dirty_list[arm_rc.ndirty++] = node;
    /* Atomic (under the lock): threads read srv_dirty without it (decision 068). */
    __atomic_store_n(&flags[node], 1, __ATOMIC_RELAXED);
}

/* ---- acknowledged writes (decisions 058, 078) ------------------------------------------ */
/* Every request this process sent to node's server has been served there:
 * all of node's credits are home. A server frees a credited slot once its
 * request is served, and a reply (to anything, or a credit return after
 * the server found nothing more to do, ARMADA_FENCE_ACK_US) brings the
 * credits back.
 * A node reached through another server is known the same way from its
 * own count: its first hop frees the slot once it forwarded the request,
 * so the target counts the forwarded writes it served and its answers
 * carry that count (decision 078). Writes still held in a batch or waiting
 * to be sent are not done. The replies already arrived are taken first (up
 * to 8 polls of the worker). */
static int all_home(int node)
{
    if (arm_rc.hop[node] != node)
        return arm_rc.fwd_acked[node] == arm_rc.fwd_sent[node];
    const int slots = arm_config.server_slots > 0 ? (int)arm_config.server_slots : 1;
    /* Or a later request to the node's server was answered: the server
     * serves one client's requests in order, so the writes before it are
     * done, even while credits spent on requests it forwarded are away. */
    return arm_rc.credits[node] == slots || arm_rc.seq_write[node] <= arm_rc.seq_answered[node];
}

int arm_rem_writes_owed(void)
{
    for (int i = 0; i < arm_rc.ndirty; i++) {
        int node = arm_rc.dirty_list[i];
        if (arm_rc.srv_dirty[node] && !all_home(node))
            return 1;
    }
    return 0;
}

static int srv_writes_done(int node)
{
    if (arm_rc.unsent[node] || (arm_rc.batch && arm_rc.batch_node == node) ||
        arm_rem_tb_holds(node))
        return 0;
    for (int i = 0; i < 8 && !all_home(node); i++) {
        if (!arm_net_progress(arm_rc.w))
            break;
        arm_stat_add(&arm_rc.fence_reads, 1);
    }
    return all_home(node);
}

/* ---- ordering ---------------------------------------------------------------------- */
/* A node is in dirty_list exactly while one of its flags is set. A fence
 * clears both, and takes the node off the list, before it waits: under
 * threads another thread may write to the node meanwhile, and its write
 * must leave the node dirty and listed again. listed: the caller has not
 * already taken the node off the list. */
static void fence_node(int node, int listed)
{
    int rma = arm_rc.rma_dirty[node], srv = arm_rc.srv_dirty[node];
    __atomic_store_n(&arm_rc.rma_dirty[node], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&arm_rc.srv_dirty[node], 0, __ATOMIC_RELAXED);
    __atomic_add_fetch(&arm_rc.fencing[node], 1, __ATOMIC_RELAXED);
    arm_rc.nfencing++;
    for (int i = 0; listed && i < arm_rc.ndirty; i++)
        if (arm_rc.dirty_list[i] == node) {
            arm_rc.dirty_list[i] = arm_rc.dirty_list[--arm_rc.ndirty];
            break;
        }
    if (rma) {
        COUNT(ARMADA_OP_FENCE, ARMADA_PATH_RMA, 0);
        arm_net_comp_t c;
        arm_net_comp_init(&c, NULL, NULL);
        arm_net_ep_t *ep = arm_net_server_ep(arm_rc.net, node);
        arm_rem_rma_complete("ARMCI_Fence", arm_net_ep_flush(ep, &c), &c,
                             arm_core.node_leader[node]);
    }
    /* A batch with this node's writes, taken by another thread, may still
     * wait for its credit: the fence goes after it. */
    if (arm_rc.unsent[node])
        arm_rem_wait_on(&arm_rc.unsent[node], 1, "ARMCI_Fence", arm_core.node_leader[node], 1);
    /* Threads' batches for node go first; the fence then follows them. */
    if (arm_rem_tb_flush("ARMCI_Fence", node))
        srv = 1;
    if (arm_rc.batch && arm_rc.batch_node == node) {
        COUNT(ARMADA_OP_FENCE, ARMADA_PATH_SERVER, 0);
        arm_rem_batch_send("ARMCI_Fence", 1);
    } else if (srv && !srv_writes_done(node)) {
        COUNT(ARMADA_OP_FENCE, ARMADA_PATH_SERVER, 0);
        rop_t *op = arm_rem_op_get(node);
        op->req.op = ARM_SRV_FENCE;
        arm_rem_op_send("ARMCI_Fence", op, NULL, 0, 1, 0);
        arm_rem_op_finish("ARMCI_Fence", op);
    }
    __atomic_sub_fetch(&arm_rc.fencing[node], 1, __ATOMIC_RELAXED);
    arm_rc.nfencing--;
}

static void locked_fence(int proc)
{
    if (!arm_rc.active)
        return;
    int node = arm_core.node_of[proc];
    arm_rem_agent_order("ARMCI_Fence", node);
    if (arm_rc.srv_dirty[node] || arm_rc.rma_dirty[node])
        fence_node(node, 1);
    /* Under threads, another thread's fence of the node may still be in
     * flight with this thread's writes: it completes them too (that fence
     * has the peer deadline of its own). */
    if (arm_rc.fencing[node])
        arm_rem_wait_on(&arm_rc.fencing[node], 1, "ARMCI_Fence", proc, 0);
}

static void locked_fence_all(void)
{
    if (!arm_rc.active)
        return;
    if (arm_rc.agent && !arm_rem_in_agent)
        arm_rem_agent_drain("ARMCI_AllFence", -1);
    /* Costs what is outstanding: only nodes written since their last fence. */
    while (arm_rc.ndirty > 0)
        fence_node(arm_rc.dirty_list[--arm_rc.ndirty], 0);
    if (arm_rc.nfencing)
        arm_rem_wait_on(&arm_rc.nfencing, 1, "ARMCI_Fence", arm_core.me, 0);
}

/* Location consistency: an operation sees, and lands after, this process's
 * earlier writes to the node whichever path they took. The server path is
 * ordered within itself (requests are served in order per client) and so is
 * UCX's; crossing from one to the other first completes what the other has
 * outstanding. Where nothing goes by RMA (emulated transports) rma_dirty is
 * never set and this costs two loads. */
void arm_rem_order_paths(int node, int via_rma)
{
    if ((via_rma && (arm_rc.srv_dirty[node] || arm_rc.fencing[node])) ||
        (!via_rma && arm_rc.rma_dirty[node]))
        arm_remote_fence(arm_core.node_leader[node]);
}
void arm_remote_fence(int proc)
{
    arm_rem_enter();
    locked_fence(proc);
    arm_rem_leave();
}
void arm_remote_fence_all(void)
{
    arm_rem_enter();
    locked_fence_all();
    arm_rem_leave();
}
#endif /* ARMADA_HAVE_UCX */
