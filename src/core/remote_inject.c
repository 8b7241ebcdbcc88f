/* ARMADA_TEST_INJECT: the client corrupts one request so that its server
 * must refuse it, and the refusal must reach this process (tests only;
 * tests/mpi/test_refusal.c). Requests of ARMCI_Malloc and ARMCI_Free are
 * left alone. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stddef.h>
#include <string.h>
#include "core/remote_int.h"

enum { INJ_NONE, INJ_HEADER, INJ_OVERSIZE, INJ_CREDIT, INJ_SYNC, INJ_ADDR, INJ_OP };

/* Sends one extra request built on a fresh op, bypassing credits. */
static void send_raw(const char *call, rop_t *model, int kind, int want_reply)
{
    rop_t *op = arm_rem_op_get(model->node);
    op->req = model->req;
    op->req.op = (uint8_t)kind;
    op->req.len = 0;
    op->call = call;
    op->want_reply = want_reply;
    arm_rem_set_req_id(call, op, want_reply);
    if (!want_reply)   /* a refusal names the lock's argument */
        arm_rc.noreply[(op->req.req_id & ~ARM_SRV_REQ_NOREPLY) % NOREPLY_RING].arg =
            arm_rem_arg_name(model->req.op);
    arm_net_comp_init(&op->send, arm_rem_send_done, op);
    arm_net_am_send(arm_net_server_ep(arm_rc.net, arm_rc.hop[op->node]), ARM_SRV_AM_REQ, &op->req,
                    sizeof op->req, NULL, 0, 0, &op->send);
    if (!want_reply) {
        op->busy = 2;
        arm_rem_maybe_release(op);
    }
}

void arm_rem_inject(const char *call, rop_t *op, arm_net_iov_t *iov, size_t *iovcnt,
                    size_t *hdr_len)
{
    int kind = op->req.op & ~ARM_SRV_SYNC;
    if (kind == ARM_SRV_REG || kind == ARM_SRV_UNREG)
        return;
    switch (arm_rc.inject) {
    case INJ_HEADER:
        *hdr_len = offsetof(arm_srv_req_t, req_id) - 8;   /* not even the req_id */
        break;
    case INJ_OP:
        op->req.op = (uint8_t)((op->req.op & ARM_SRV_SYNC) | 0x3f);
        break;
    case INJ_ADDR:
        if (kind != ARM_SRV_PUT && kind != ARM_SRV_GET && kind != ARM_SRV_ACC &&
            kind != ARM_SRV_RMW)
            return;
        op->req.raddr = 64;
        break;
    case INJ_OVERSIZE:
        if (kind != ARM_SRV_BATCH && kind != ARM_SRV_PUTSEG && kind != ARM_SRV_ACCSEG)
            return;
        iov[0].buf = arm_rc.inject_buf;
        iov[0].len = 2 * arm_rc.slot_size;
        *iovcnt = 1;
        op->req.len = (uint32_t)iov[0].len;
        break;
    default:
        return;      /* credit and sync act after the send (arm_rem_inject_after) */
    }
    arm_rc.inject = INJ_NONE;
}

/* credit and sync act on an ARMCI_Lock of a mutex that another process
 * holds (the test arranges it): the lock waits at the server, holding the
 * sync slot and the head of this client's queue; then a second sync
 * request, or one more request than there are slots, must be refused. */
void arm_rem_inject_after(const char *call, rop_t *op)
{
    if ((op->req.op & ~ARM_SRV_SYNC) != ARM_SRV_LOCK)
        return;
    if (arm_rc.inject == INJ_SYNC) {
        send_raw(call, op, ARM_SRV_LOCK | ARM_SRV_SYNC, 1);
    } else if (arm_rc.inject == INJ_CREDIT) {
        long slots = arm_config.server_slots > 0 ? arm_config.server_slots : 1;
        for (long i = 0; i <= slots; i++)
            send_raw(call, op, ARM_SRV_PUT, 0);
    } else {
        return;
    }
    arm_rc.inject = INJ_NONE;
}
#endif /* ARMADA_HAVE_UCX */
