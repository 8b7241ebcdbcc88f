/* Replies from the servers: credits, values, data. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

/* ---- replies ----------------------------------------------------------------- */
/* A segmented get's data, read from op->rdata (its buffer, or the
 * transport's for an eager reply), goes where each segment belongs. */
static void unpack_reply(rop_t *op)
{
    if (op->req.op == ARM_SRV_GETSEG) {
        const char *from = op->rdata;
        for (int i = 0; i < op->nseg; i++) {
            uint64_t len = op->tab[i].len;
            if (!(len & ARM_SRV_SEG_RUN)) {
                memcpy(op->loc[i].ptr, from, len);
                from += len;
                continue;
            }
            /* A run (decision 077): count pieces, each step apart here. */
            len &= ~ARM_SRV_SEG_RUN;
            uint64_t count = op->tab[i + 1].len;
            uintptr_t to = (uintptr_t)op->loc[i].ptr;
            for (uint64_t k = 0; k < count; k++, from += len, to += (uintptr_t)op->loc[i + 1].step)
                memcpy((char *)to, from, len);
            i++;
        }
    }
    op->replied = 1;
    arm_rem_maybe_release(op);
}

static void reply_recv_done(arm_net_comp_t *c)
{
    unpack_reply(c->arg);
}

/* The argument of the ARMCI call that a request of kind carries. */
const char *arm_rem_arg_name(int kind)
{
    switch (kind & ~ARM_SRV_SYNC) {
    case ARM_SRV_GET: case ARM_SRV_GETSEG:                    return "src";
    case ARM_SRV_RMW:                                         return "prem";
    case ARM_SRV_LOCK: case ARM_SRV_UNLOCK: case ARM_SRV_TRYLOCK: return "mutex";
    case ARM_SRV_FENCE:                                       return "proc";
    case ARM_SRV_REG:                                         return "size";
    case ARM_SRV_UNREG:                                       return "ptr";
    default:                                                  return "dst";
    }
}

/* A refusal (negative status): its payload, if any, is the server's reason
 * as text. Stops the program naming the call that sent the request. */
static _Noreturn void refused(const arm_srv_rep_t *rep, const arm_net_am_msg_t *msg,
                              const char *call, const char *arg, int target)
{
    char reason[256];
    size_t n = rep->len && !msg->rndv && msg->data_len ? msg->data_len : 0;
    if (n >= sizeof reason)
        n = sizeof reason - 1;
    memcpy(reason, msg->data, n);
    reason[n] = '\0';
    if (!n)
        snprintf(reason, sizeof reason, "%s", arm_status_str((arm_status_t)rep->status));
    if (!call)
        arm_fatal("ARMCI", "the server of node %d refused a request: %s", rep->node, reason);
    arm_fatal(call, "argument '%s': the server of node %d (rank %d) refused the request: %s",
              arg, rep->node, target, reason);
}

arm_status_t arm_rem_on_reply(void *arg, const arm_net_am_msg_t *msg)
{
    arm_srv_rep_t rep;
    (void)arg;
    if (msg->hdr_len != sizeof rep) {
        /* Servers send whole headers (a relayed one is checked there). */
        arm_log(ARM_LOG_ERROR, "remote", "answer with a %zu-byte header dropped (want %zu)",
                msg->hdr_len, sizeof rep);
        return ARM_OK;
    }
    memcpy(&rep, msg->hdr, sizeof rep);
    /* From a node reached through another server, credits counts this
     * process's forwarded writes served there (decision 078). */
    if (rep.node >= 0 && rep.node < arm_core.nnodes) {
        if (arm_rc.hop[rep.node] == rep.node)
            arm_rc.credits[rep.node] += (int)rep.credits;
        else
            arm_rc.fwd_acked[rep.node] += rep.credits;
    }
    if (rep.req_id & ARM_SRV_REQ_NOREPLY) {
        /* Answered only when refused (an older server may answer anyway). */
        if (rep.status < 0) {
            const uint64_t seq = rep.req_id & ~ARM_SRV_REQ_NOREPLY;
            const int i = (int)(seq % NOREPLY_RING);
            refused(&rep, msg, arm_rc.noreply[i].call, arm_rc.noreply[i].arg,
                    arm_rc.noreply[i].target);
        }
        return ARM_OK;
    }
    if (!rep.req_id) {
        arm_stat_add(&arm_rc.credit_replies, 1);
        if (rep.status < 0)
            refused(&rep, msg, NULL, NULL, -1);
        return ARM_OK;
    }
    rop_t *op = &arm_rc.ops[rep.req_id & 0xff];
    if (op->req.req_id == rep.req_id && !op->replied && rep.status < 0)
        refused(&rep, msg, op->call, arm_rem_arg_name(op->req.op), op->req.target);
    if (op->req.req_id != rep.req_id || op->replied) {
        arm_log(ARM_LOG_ERROR, "remote", "reply for an unknown request %#llx",
                (unsigned long long)rep.req_id);
        return ARM_OK;
    }
    /* Everything sent to its first hop before it is served or sent on. */
    const int hop = arm_rc.hop[op->node];
    if (op->hop_seq > arm_rc.seq_answered[hop])
        arm_rc.seq_answered[hop] = op->hop_seq;
    op->value = rep.value;
    op->status = rep.status;
    if (rep.len == 0) {
        op->replied = 1;
        arm_rem_maybe_release(op);
        return ARM_OK;
    }
    uint8_t kind = op->req.op & (uint8_t)~ARM_SRV_SYNC;
    int seg = kind == ARM_SRV_GETSEG;
    if (seg && !msg->rndv) {
        /* Scattered straight from the transport's buffer. */
        op->rdata = msg->data;
        op->data_len = rep.len;
        unpack_reply(op);
        return ARM_OK;
    }
    /* A segmented get's reply beyond a slot (decision 072) lands in the
     * op's larger buffer. */
    char *dest = kind == ARM_SRV_GET ? op->dst : rep.len <= arm_rc.slot_size ? op->buf
               : seg ? arm_rem_op_big(op, rep.len) : NULL;
    if (!dest)
        arm_fatal(op->call, "the server of node %d answered with %u bytes, more than %s "
                  "(ARMADA_SLOT_SIZE=%zu)", rep.node, rep.len,
                  seg ? "this process has memory for" : "a slot", arm_rc.slot_size);
    op->rdata = dest;
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
