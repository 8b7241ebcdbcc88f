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
    if ((op->req.op & (uint8_t)~ARM_SRV_SYNC) == ARM_SRV_GETSEG) {
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
    for (size_t i = 0; i < n; i++)   /* a server's text, not a terminal's commands */
        if ((unsigned char)reason[i] < 0x20 || (unsigned char)reason[i] > 0x7e)
            reason[i] = '?';
    if (!n)
        snprintf(reason, sizeof reason, "%s", arm_status_str((arm_status_t)rep->status));
    if (!call)
        arm_fatal("ARMCI", "the server of node %d refused a request: %s", rep->node, reason);
    arm_fatal(call, "argument '%s': the server of node %d (rank %d) refused the request: %s",
              arg, rep->node, target, reason);
}

/* Credits from node's server come back to this process, never more than
 * the slots it holds there (arm_rc.credits would then let requests go that
 * the server must refuse, and a fence that waits for every credit to be
 * home would wait for good). From a node reached through another server,
 * credits counts this process's forwarded writes served there (decision
 * 078), never more than were sent. */
static void take_credits(const arm_srv_rep_t *rep)
{
    const int n = rep->node;
    uint64_t room;
    if (arm_rc.hop[n] == n) {
        const int slots = arm_config.server_slots > 0 ? (int)arm_config.server_slots : 1;
        room = arm_rc.credits[n] < slots ? (uint64_t)(slots - arm_rc.credits[n]) : 0;
    } else {
        room = arm_rc.fwd_sent[n] - arm_rc.fwd_acked[n];
    }
    uint32_t c = rep->credits;
    if (c > room) {
        arm_log(ARM_LOG_ERROR, "remote", "the server of node %d returned %u credits, %llu "
                "outstanding: the rest ignored", n, c, (unsigned long long)room);
        c = (uint32_t)room;
    }
    if (arm_rc.hop[n] == n)
        arm_rc.credits[n] += (int)c;
    else
        arm_rc.fwd_acked[n] += c;
}

/* The bytes a segmented get's table asks for: what unpack_reply scatters. */
static size_t seg_total(const rop_t *op)
{
    size_t total = 0;
    for (int i = 0; i < op->nseg; i++) {
        uint64_t len = op->tab[i].len;
        if (len & ARM_SRV_SEG_RUN)
            len = (len & ~ARM_SRV_SEG_RUN) * op->tab[++i].len;
        total += len;
    }
    return total;
}

/* The payload an answer to op carries: a get's bytes, a segmented get's
 * (its table's), a registration's key (any length up to a slot), nothing
 * for the rest. */
#define ANY_LEN ((size_t)-1)
static size_t answer_len(const rop_t *op)
{
    switch (op->req.op & (uint8_t)~ARM_SRV_SYNC) {
    case ARM_SRV_GET:    return op->req.len;
    case ARM_SRV_GETSEG: return seg_total(op);
    case ARM_SRV_REG:    return ANY_LEN;
    default:             return 0;
    }
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
    if (rep.node >= 0 && rep.node < arm_core.nnodes)
        take_credits(&rep);
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
    /* The low byte names the op (arm_rem_set_req_id); the rest must match
     * the request it is waiting for. */
    const unsigned idx = (unsigned)(rep.req_id & 0xff);
    rop_t *op = idx < OP_POOL ? &arm_rc.ops[idx] : NULL;
    if (!op || !op->busy || !op->want_reply || op->req.req_id != rep.req_id || op->replied) {
        arm_log(ARM_LOG_ERROR, "remote", "reply for an unknown request %#llx",
                (unsigned long long)rep.req_id);
        return ARM_OK;
    }
    if (rep.status < 0)
        refused(&rep, msg, op->call, arm_rem_arg_name(op->req.op), op->req.target);
    /* Its node is the target's, whichever servers carried it (decisions
     * 047 and 093): from another node its credits were counted wrong. */
    if (rep.node != op->node)
        arm_fatal(op->call ? op->call : "ARMCI", "argument '%s': the request to rank %d (node "
                  "%d) was answered by node %d", arm_rem_arg_name(op->req.op), op->req.target,
                  op->node, rep.node);
    /* An answer that does not carry what the request asked for cannot
     * complete it: copied, it would write past the caller's buffer. */
    const size_t want = answer_len(op);
    if ((want != ANY_LEN ? rep.len != want : rep.len > arm_rc.slot_size) ||
        msg->data_len != rep.len)
    {
        const char *call = op->call ? op->call : "ARMCI";
        if (want == ANY_LEN)
            arm_fatal(call, "argument '%s': the server of node %d (rank %d) answered with %u "
                      "bytes (%zu arrived), more than a slot (ARMADA_SLOT_SIZE=%zu)",
                      arm_rem_arg_name(op->req.op), rep.node, op->req.target, rep.len,
                      msg->data_len, arm_rc.slot_size);
        arm_fatal(call, "argument '%s': the server of node %d (rank %d) answered with %u bytes "
                  "(%zu arrived) where the request asked for %zu", arm_rem_arg_name(op->req.op),
                  rep.node, op->req.target, rep.len, msg->data_len, want);
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
