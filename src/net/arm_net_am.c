/* net: active messages (handlers, send, rendezvous receive). */
#include <stddef.h>
#include <string.h>

#include "net/arm_net_int.h"

/* arm_net_iov_t is handed to UCX as ucp_dt_iov_t without copying. */
_Static_assert(sizeof(arm_net_iov_t) == sizeof(ucp_dt_iov_t), "iov layout");
_Static_assert(offsetof(arm_net_iov_t, buf) == offsetof(ucp_dt_iov_t, buffer), "iov layout");
_Static_assert(offsetof(arm_net_iov_t, len) == offsetof(ucp_dt_iov_t, length), "iov layout");

static ucs_status_t am_trampoline(void *arg, const void *header, size_t header_length,
                                  void *data, size_t length,
                                  const ucp_am_recv_param_t *param)
{
    arm_net_am_slot_t *slot = arg;
    arm_net_am_msg_t msg;
    int rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    int keepable = rndv || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA);

    msg.worker = slot->worker;
    msg.id = slot->id;
    msg.hdr = header;
    msg.hdr_len = header_length;
    msg.data = data;
    msg.data_len = length;
    msg.rndv = rndv;
    msg.keepable = keepable;
    msg.reply_ep = (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ? param->reply_ep
                                                                        : NULL;
    slot->worker->stats.am_recv++;
    void *outer = slot->worker->am_cur_data;
    slot->worker->am_cur_data = data;
    arm_status_t st = slot->cb(slot->arg, &msg);
    slot->worker->am_cur_data = outer;
    if (st == ARM_INPROGRESS) {
        if (keepable)
            return UCS_INPROGRESS;
        arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS,
                "AM %u handler kept data that UCX does not let it keep", slot->id);
    }
    return UCS_OK;
}

arm_status_t arm_net_am_set_handler(arm_net_worker_t *w, unsigned id, arm_net_am_cb_t cb,
                                    void *arg)
{
    ucp_am_handler_param_t hp;
    arm_net_am_slot_t *slot;
    ucs_status_t st;

    if (id >= ARM_NET_AM_MAX_ID) {
        arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "arm_net_am_set_handler: id %u >= %d", id,
                ARM_NET_AM_MAX_ID);
        return ARM_ERR_INVALID_ARG;
    }
    slot = &w->am[id];
    slot->cb = cb;
    slot->arg = arg;
    slot->worker = w;
    slot->id = id;
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                    UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.id = id;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG | UCP_AM_FLAG_PERSISTENT_DATA;
    hp.cb = cb ? am_trampoline : NULL;
    hp.arg = slot;
    st = ucp_worker_set_am_recv_handler(w->h, &hp);
    if (st != UCS_OK)
        return arm_net_ucs_error("ucp_worker_set_am_recv_handler", st);
    return ARM_OK;
}

static arm_status_t am_send(arm_net_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                            const void *buf, size_t count, int iov, size_t bytes,
                            unsigned flags, arm_net_comp_t *comp)
{
    ucp_request_param_t rp;

    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                      UCP_OP_ATTR_FIELD_FLAGS;
    rp.cb.send = arm_net_send_cb;
    rp.user_data = comp;
    rp.flags = 0;
    if (flags & ARM_NET_AM_EAGER)
        rp.flags |= UCP_AM_SEND_FLAG_EAGER;
    if (flags & ARM_NET_AM_RNDV)
        rp.flags |= UCP_AM_SEND_FLAG_RNDV;
    if (flags & ARM_NET_AM_REPLY)
        rp.flags |= UCP_AM_SEND_FLAG_REPLY;
    if (iov) {
        rp.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
        rp.datatype = ucp_dt_make_iov();
    }
    ep->worker->stats.am_sent++;
    ep->worker->stats.bytes_am_sent += hdr_len + bytes;
    return arm_net_track(ucp_am_send_nbx(ep->h, id, hdr, hdr_len, buf, count, &rp), comp,
                         "ucp_am_send_nbx");
}

arm_status_t arm_net_am_send(arm_net_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                             const void *data, size_t len, unsigned flags,
                             arm_net_comp_t *comp)
{
    return am_send(ep, id, hdr, hdr_len, data, len, 0, len, flags, comp);
}

arm_status_t arm_net_am_sendv(arm_net_ep_t *ep, unsigned id, const void *hdr,
                              size_t hdr_len, const arm_net_iov_t *iov, size_t iovcnt,
                              unsigned flags, arm_net_comp_t *comp)
{
    size_t bytes = 0;
    for (size_t i = 0; i < iovcnt; i++)
        bytes += iov[i].len;
    return am_send(ep, id, hdr, hdr_len, iov, iovcnt, 1, bytes, flags, comp);
}

static void recv_data_cb(void *request, ucs_status_t status, size_t length, void *user_data)
{
    arm_net_send_cb(request, status, user_data);
}

arm_status_t arm_net_am_recv_data(const arm_net_am_msg_t *msg, void *buf, size_t len,
                                  arm_net_comp_t *comp)
{
    ucp_request_param_t rp;

    if (len < msg->data_len) {
        arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "arm_net_am_recv_data: buffer %zu < message %zu",
                len, msg->data_len);
        return ARM_ERR_INVALID_ARG;
    }
    if (!msg->rndv) {
        /* Eager: copy; data kept past its handler is then freed (the data
         * of the handler running now is freed by UCX when it returns). */
        memcpy(buf, msg->data, msg->data_len);
        if (msg->data != msg->worker->am_cur_data)
            ucp_am_data_release(msg->worker->h, msg->data);
        return ARM_OK;
    }
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    rp.cb.recv_am = recv_data_cb;
    rp.user_data = comp;
    return arm_net_track(ucp_am_recv_data_nbx(msg->worker->h, msg->data, buf, msg->data_len,
                                              &rp),
                         comp, "ucp_am_recv_data_nbx");
}

void arm_net_am_release(const arm_net_am_msg_t *msg)
{
    if (msg->data == msg->worker->am_cur_data)
        return;                        /* UCX frees it when the handler returns OK */
    ucp_am_data_release(msg->worker->h, msg->data);
}
