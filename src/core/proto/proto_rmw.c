/* Read-modify-write, and the transport atomics of marked allocations
 * (decision 061): every read-modify-write and every integer accumulate to
 * an allocation marked at ARMCI_Malloc goes by the transport's atomic on
 * the node server's registration of the segment, from this node too (UCX
 * loopback to the node's own server), so that NIC atomics never meet CPU
 * atomics on the same memory. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

/* ARMADA_AMO_ALLOC, in the order of its choices. */
enum { AMO_ALLOC_AUTO = 0, AMO_ALLOC_ON = 1, AMO_ALLOC_OFF = 2 };

/* Atomic adds of one accumulate in flight at once. */
#define AMO_BATCH 64

_Static_assert(sizeof(long) == 8 && sizeof(int) == 4,
               "ARMCI's long and int are the transport's 64- and 32-bit atomics");

void arm_rem_amo_agree(void)
{
    int vote = 0;
    int mode = (int)arm_config.amo_alloc;
    if (arm_config.connect == ARM_CONNECT_EDGES) {
        if (mode == AMO_ALLOC_ON && arm_core.me == 0)
            arm_log(ARM_LOG_WARN, "remote", "ARMADA_AMO_ALLOC=on is not taken under "
                    "ARMADA_CONNECT=edges: atomics to non-neighbour nodes must go through "
                    "the servers");
    } else if (mode == AMO_ALLOC_ON) {
        vote = 1;
    } else if (mode == AMO_ALLOC_AUTO && arm_rc.ps.amo_mode != ARM_PATH_FORCE_SERVER) {
        /* UCX picks one atomic device per context: native atomics on the
         * loopback to this node's server are the NIC's for every node. The
         * loopback endpoint is made only where such a device may exist. */
        vote = arm_rc.ps.amo_mode == ARM_PATH_FORCE_RMA ||
               (arm_net_may_amo_native(arm_rc.net) &&
                (arm_rem_caps(arm_core.my_node) & ARM_PATH_CAP_AMO_NATIVE) != 0);
    }
    MPI_Allreduce(MPI_IN_PLACE, &vote, 1, MPI_INT, MPI_MIN, arm_core.world);
    arm_rc.amo_alloc = vote;
}

int arm_remote_amo_alloc(void) { return arm_rc.active && arm_rc.amo_alloc; }

/* addr of slice s in the registration of its node's server: a slice on
 * this node sits in this node's segment as the server maps it. */
static uint64_t amo_raddr(const arm_slice_t *s, uintptr_t addr)
{
    if (!s->local)
        return s->raddr + (addr - s->base);
    const remote_alloc_t *ra = s->alloc->remote;
    return ra->node_base[arm_core.my_node] +
           (uint64_t)(s->local - (char *)s->alloc->seg.base) + (addr - s->base);
}

static int rmw_sub(int op)
{
    switch (op) {
    case ARMCI_FETCH_AND_ADD:      return ARM_SRV_FADD32;
    case ARMCI_FETCH_AND_ADD_LONG: return ARM_SRV_FADD64;
    case ARMCI_SWAP:               return ARM_SRV_SWAP32;
    case ARMCI_SWAP_LONG:          return ARM_SRV_SWAP64;
    case 16:                       return ARM_SRV_CAS32;
    default:                       return ARM_SRV_CAS64;
    }
}

static long rmw_by_amo(const char *call, int sub, const arm_slice_t *s, uintptr_t addr,
                       long value, long compare, int proc)
{
    static const arm_net_amo_op_t amo[] = { ARM_NET_AMO_FADD, ARM_NET_AMO_FADD,
                                            ARM_NET_AMO_SWAP, ARM_NET_AMO_SWAP,
                                            ARM_NET_AMO_CSWAP, ARM_NET_AMO_CSWAP };
    int node = arm_core.node_of[proc];
    size_t size = (sub & 1) ? 8 : 4;
    if (addr % size)
        arm_fatal(call, "argument 'prem' = %p of rank %d is not aligned to %zu bytes, as the "
                  "transport's atomics need (rank %d)", (void *)addr, proc, size, arm_core.me);
    int64_t operand = value, cmp = compare, result = 0;
    int32_t op32 = (int32_t)value, cmp32 = (int32_t)compare, res32 = 0;
    arm_net_comp_t c;
    arm_net_comp_init(&c, NULL, NULL);
    arm_rem_order_paths(node, 1);
    arm_status_t st = arm_net_amo(arm_rem_rkey_for(call, s, node), amo[sub], size,
                                  size == 8 ? (void *)&operand : (void *)&op32,
                                  size == 8 ? (void *)&cmp : (void *)&cmp32,
                                  size == 8 ? (void *)&result : (void *)&res32,
                                  amo_raddr(s, addr), &c);
    arm_rem_rma_complete(call, st, &c, proc);
    COUNT(ARMADA_OP_RMW, ARMADA_PATH_RMA, size);
    return size == 8 ? (long)result : (long)res32;
}

static long locked_rmw(const char *call, int op, const arm_slice_t *s, uintptr_t addr,
                       long value, long compare, int proc)
{
    arm_rem_batch_send(call, 0);
    int node = arm_core.node_of[proc];
    int sub = rmw_sub(op);
    unsigned marked = s->alloc->amo ? (unsigned)ARM_PATH_CAP_ALLOC_AMO : 0u;
    if (arm_path_choose(ARM_FAM_RMW, 0, arm_rem_caps(node) | marked,
                        arm_rc.srv_dirty[node] || arm_rc.fencing[node], &arm_rc.ps).proto ==
        ARM_PROTO_RMA)
        return rmw_by_amo(call, sub, s, addr, value, compare, proc);
    arm_rem_order_paths(node, 0);
    rop_t *o = arm_rem_op_new(ARM_SRV_RMW, proc, s->raddr + (addr - s->base), 0);
    o->req.sub = (uint8_t)sub;
    o->req.operand = value;
    o->req.compare = compare;
    arm_rem_op_send(call, o, NULL, 0, 1, 0);
    arm_rem_op_finish(call, o);
    COUNT(ARMADA_OP_RMW, ARMADA_PATH_SERVER, (sub & 1) ? 8 : 4);
    return (long)o->value;
}

long arm_remote_rmw(const char *call, int op, const arm_slice_t *s, uintptr_t addr,
                    long value, long compare, int proc)
{
    arm_rem_enter();
    arm_rem_agent_order(call, arm_core.node_of[proc]);
    long r = locked_rmw(call, op, s, addr, value, compare, proc);
    arm_rem_leave();
    return r;
}

/* ---- integer accumulates to a marked allocation -------------------------------- */
/* dst[i] += scale * src[i] for count elements of size elem (4: int, 8: long),
 * in wrapping arithmetic as the CPU kernel does, by fetching adds (their
 * completion is their completion at the target: no fence owes them). */
static void amo_add_run(const char *call, arm_net_rkey_t *rk, size_t elem, const void *scale,
                        const char *src, uint64_t raddr, size_t count, int proc)
{
    union { int32_t i[AMO_BATCH]; int64_t l[AMO_BATCH]; } opnd, res;
    uint64_t sc64 = 0;
    uint32_t sc32 = 0;
    if (elem == 8) {
        int64_t v;
        memcpy(&v, scale, 8);
        sc64 = (uint64_t)v;
    } else {
        int32_t v;
        memcpy(&v, scale, 4);
        sc32 = (uint32_t)v;
    }
    for (size_t i = 0; i < count;) {
        size_t k = count - i < AMO_BATCH ? count - i : AMO_BATCH;
        arm_net_comp_t c;
        arm_net_comp_init(&c, NULL, NULL);
        arm_status_t all = ARM_OK;
        for (size_t j = 0; j < k && all >= ARM_OK; j++, i++) {
            void *o, *r;
            if (elem == 8) {
                int64_t v;
                memcpy(&v, src + i * 8, 8);
                opnd.l[j] = (int64_t)((uint64_t)v * sc64);
                o = &opnd.l[j];
                r = &res.l[j];
            } else {
                int32_t v;
                memcpy(&v, src + i * 4, 4);
                opnd.i[j] = (int32_t)((uint32_t)v * sc32);
                o = &opnd.i[j];
                r = &res.i[j];
            }
            arm_status_t st = arm_net_amo(rk, ARM_NET_AMO_FADD, elem, o, NULL, r,
                                          raddr + i * elem, &c);
            if (st != ARM_OK)
                all = st;
        }
        arm_rem_rma_complete(call, all, &c, proc);
    }
}

static void locked_amo_acc(const char *call, int op, int type, const void *scale,
                           const void *src, const arm_slice_t *s, uintptr_t dst, size_t n,
                           int proc)
{
    size_t elem = type == ARM_ACC_LNG ? 8 : 4;
    if (n % elem || dst % elem)
        arm_fatal(call, "argument 'dst' = %p (%zu bytes of %s): an integer accumulate to an "
                  "allocation of transport atomics (decision 061) must be whole, aligned "
                  "elements (rank %d)", (void *)dst, n, elem == 8 ? "long" : "int",
                  arm_core.me);
    arm_rem_batch_send(call, 0);
    int node = arm_core.node_of[proc];
    arm_rem_order_paths(node, 1);
    amo_add_run(call, arm_rem_rkey_for(call, s, node), elem, scale, src, amo_raddr(s, dst),
                n / elem, proc);
    if (op >= 0)
        COUNT(op, ARMADA_PATH_RMA, n);
}

void arm_remote_amo_acc(const char *call, int op, int type, const void *scale,
                        const void *src, const arm_slice_t *s, uintptr_t dst, size_t n,
                        int proc)
{
    arm_rem_enter();
    locked_amo_acc(call, op, type, scale, src, s, dst, n, proc);
    arm_rem_leave();
}
#endif /* ARMADA_HAVE_UCX */
