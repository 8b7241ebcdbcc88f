/* Replies from the servers: credits, values, data. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

/* ---- replies ----------------------------------------------------------------- */
static void unpack_reply(rop_t *op)
{
    if (op->req.op == ARM_SRV_GETSEG) {
        size_t off = 0;
        for (int i = 0; i < op->nseg; i++) {
            memcpy(op->lptr[i], op->buf + off, op->tab[i].len);
            off += op->tab[i].len;
        }
    }
    op->replied = 1;
    arm_rem_maybe_release(op);
}

static void reply_recv_done(arm_net_comp_t *c)
{
    unpack_reply(c->arg);
}

arm_status_t arm_rem_on_reply(void *arg, const arm_net_am_msg_t *msg)
{
    arm_srv_rep_t rep;
    (void)arg;
    memcpy(&rep, msg->hdr, sizeof rep);
    if (rep.node >= 0 && rep.node < arm_core.nnodes)
        arm_rc.credits[rep.node] += (int)rep.credits;
    if (!rep.req_id)
        return ARM_OK;
    rop_t *op = &arm_rc.ops[rep.req_id & 0xff];
    if (op->req.req_id != rep.req_id || op->replied) {
        arm_log(ARM_LOG_ERROR, "remote", "reply for an unknown request %#llx",
                (unsigned long long)rep.req_id);
        return ARM_OK;
    }
    op->value = rep.value;
    op->status = rep.status;
    if (rep.len == 0) {
        op->replied = 1;
        arm_rem_maybe_release(op);
        return ARM_OK;
    }
    char *dest = (op->req.op & (uint8_t)~ARM_SRV_SYNC) == ARM_SRV_GET ? op->dst : op->buf;
    if (!msg->rndv) {
        memcpy(dest, msg->data, rep.len);
        op->data_len = rep.len;
        unpack_reply(op);
        return ARM_OK;
    }
    arm_net_comp_init(&op->recv, reply_recv_done, op);
    arm_status_t st = arm_net_am_recv_data(msg, dest, rep.len, &op->recv);
    if (st == ARM_OK)
        unpack_reply(op);
    else if (st != ARM_INPROGRESS) {
        op->status = st;
        op->replied = 1;
        arm_rem_maybe_release(op);
    }
    return ARM_OK;
}
#endif /* ARMADA_HAVE_UCX */
