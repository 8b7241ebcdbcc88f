/* Read-modify-write. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

static long locked_rmw(const char *call, int op, const arm_slice_t *s, uintptr_t addr,
                    long value, long compare, int proc)
{
    arm_rem_batch_send(call, 0);
    int node = arm_core.node_of[proc];
    uint64_t raddr = s->raddr + (addr - s->base);
    int sub;
    switch (op) {
    case ARMCI_FETCH_AND_ADD:      sub = ARM_SRV_FADD32; break;
    case ARMCI_FETCH_AND_ADD_LONG: sub = ARM_SRV_FADD64; break;
    case ARMCI_SWAP:               sub = ARM_SRV_SWAP32; break;
    case ARMCI_SWAP_LONG:          sub = ARM_SRV_SWAP64; break;
    case 16:                       sub = ARM_SRV_CAS32; break;
    default:                       sub = ARM_SRV_CAS64; break;
    }
    if (arm_rem_path(ARM_FAM_RMW, 0, node).proto == ARM_PROTO_RMA) {
        static const arm_net_amo_op_t amo[] = { ARM_NET_AMO_FADD, ARM_NET_AMO_FADD,
                                                ARM_NET_AMO_SWAP, ARM_NET_AMO_SWAP,
                                                ARM_NET_AMO_CSWAP, ARM_NET_AMO_CSWAP };
        size_t size = (sub & 1) ? 8 : 4;
        int64_t operand = value, cmp = compare, result = 0;
        int32_t op32 = (int32_t)value, cmp32 = (int32_t)compare, res32 = 0;
        arm_net_comp_t c;
        arm_net_comp_init(&c, NULL, NULL);
        arm_rem_order_paths(node, 1);
        arm_status_t st = arm_net_amo(arm_rem_rkey_for(call, s, node), amo[sub], size,
                                      size == 8 ? (void *)&operand : (void *)&op32,
                                      size == 8 ? (void *)&cmp : (void *)&cmp32,
                                      size == 8 ? (void *)&result : (void *)&res32, raddr, &c);
        arm_rem_rma_complete(call, st, &c, proc);
        COUNT(ARMADA_OP_RMW, ARMADA_PATH_RMA, size);
        return size == 8 ? (long)result : (long)res32;
    }
    arm_rem_order_paths(node, 0);
    rop_t *o = arm_rem_op_new(ARM_SRV_RMW, proc, raddr, 0);
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
#endif /* ARMADA_HAVE_UCX */
