/* The server's transport table over the net layer (UCX). */
#include "server/srv_xport.h"

#include "server/arm_srv_proto.h"

static arm_status_t ucx_listen(void *ctx, arm_net_am_cb_t cb, void *arg)
{
    srv_xport_ucx_t *u = ctx;
    return arm_net_am_set_handler(u->w, ARM_SRV_AM_REQ, cb, arg);
}

static arm_status_t ucx_send(arm_net_ep_t *ep, unsigned id, const void *hdr, size_t hdr_len,
                             const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                             arm_net_comp_t *comp)
{
    if (!ep)
        return ARM_ERR_TRANSPORT;
    /* One buffer goes contiguous (UCX's short and copy protocols); only
     * several need the gather of an iov. */
    if (iovcnt > 1)
        return arm_net_am_sendv(ep, id, hdr, hdr_len, iov, iovcnt, flags, comp);
    return arm_net_am_send(ep, id, hdr, hdr_len, iovcnt ? iov[0].buf : NULL,
                           iovcnt ? iov[0].len : 0, flags, comp);
}

static arm_status_t ucx_send_reply(void *ctx, int rank, const void *hdr, size_t hdr_len,
                                   const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                                   arm_net_comp_t *comp)
{
    srv_xport_ucx_t *u = ctx;
    return ucx_send(arm_net_client_ep(u->net, rank), ARM_SRV_AM_REP, hdr, hdr_len, iov, iovcnt,
                    flags, comp);
}

/* The net layer gives a server worker endpoints to clients only; requests
 * between servers arrive with forwarding, which adds those endpoints. */
static arm_status_t ucx_send_request(void *ctx, int node, const void *hdr, size_t hdr_len,
                                     const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                                     arm_net_comp_t *comp)
{
    (void)ctx, (void)node, (void)hdr, (void)hdr_len, (void)iov, (void)iovcnt, (void)flags;
    (void)comp;
    return ARM_ERR_UNSUPPORTED;
}

static arm_status_t ucx_recv_data(void *ctx, const arm_net_am_msg_t *msg, void *buf,
                                  size_t len, arm_net_comp_t *comp)
{
    (void)ctx;
    return arm_net_am_recv_data(msg, buf, len, comp);
}

static void ucx_release(void *ctx, const arm_net_am_msg_t *msg)
{
    (void)ctx;
    arm_net_am_release(msg);
}

static int ucx_progress(void *ctx)
{
    return arm_net_progress(((srv_xport_ucx_t *)ctx)->w);
}

static arm_status_t ucx_wait(void *ctx, int timeout_ms)
{
    return arm_net_wait(((srv_xport_ucx_t *)ctx)->w, timeout_ms);
}

static void ucx_wakeup(void *ctx)
{
    arm_net_wakeup(((srv_xport_ucx_t *)ctx)->w);
}

static arm_status_t ucx_mem_reg(void *ctx, void *addr, size_t len, void **reg)
{
    arm_net_reg_t *r = NULL;
    arm_status_t st = arm_net_mem_reg(((srv_xport_ucx_t *)ctx)->net, addr, len, &r);
    *reg = r;
    return st;
}

static void ucx_mem_dereg(void *ctx, void *reg)
{
    (void)ctx;
    arm_net_mem_dereg(reg);
}

static arm_status_t ucx_rkey_pack(void *ctx, void *reg, void *buf, size_t *len)
{
    (void)ctx;
    return arm_net_rkey_pack(reg, buf, len);
}

const srv_xport_ops_t srv_xport_ucx = {
    .name = "ucx",
    .listen = ucx_listen,
    .send_reply = ucx_send_reply,
    .send_request = ucx_send_request,
    .recv_data = ucx_recv_data,
    .release = ucx_release,
    .progress = ucx_progress,
    .wait = ucx_wait,
    .wakeup = ucx_wakeup,
    .mem_reg = ucx_mem_reg,
    .mem_dereg = ucx_mem_dereg,
    .rkey_pack = ucx_rkey_pack,
};
