/* The in-process transport (srv_xport_fake.h). Not on any hot path: it
 * allocates freely. */
#define _POSIX_C_SOURCE 200809L
#include "server/srv_xport_fake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "server/arm_srv_proto.h"
#include "util/arm_log.h"

static void *grow(void *p, size_t *cap, size_t n, size_t each)
{
    if (n < *cap)
        return p;
    size_t c = *cap ? 2 * *cap : 16;
    void *q = realloc(p, c * each);
    if (!q)
        arm_fatal("srv_fake", "out of memory");
    *cap = c;
    return q;
}

static int live_find(const srv_fake_t *f, const void *buf)
{
    for (size_t i = 0; i < f->nlive; i++)
        if (f->live[i] == buf)
            return (int)i;
    return -1;
}

static int live_drop(srv_fake_t *f, const void *buf)
{
    int i = live_find(f, buf);
    if (i < 0)
        return 0;
    free(f->live[i]);
    f->live[i] = f->live[--f->nlive];
    return 1;
}

static arm_status_t fake_listen(void *ctx, unsigned am_id, arm_net_am_cb_t cb, void *arg)
{
    srv_fake_t *f = ctx;
    if (am_id >= SRV_FAKE_AM_IDS)
        return ARM_ERR_INVALID_ARG;
    f->cbs[am_id] = cb;
    f->cb_args[am_id] = arg;
    if (am_id == ARM_SRV_AM_REQ) {
        f->cb = cb;
        f->cb_arg = arg;
    }
    return ARM_OK;
}

static arm_status_t record(srv_fake_t *f, int to, int is_request, const void *hdr,
                           size_t hdr_len, const arm_net_iov_t *iov, size_t iovcnt,
                           unsigned flags, arm_net_comp_t *comp)
{
    if (hdr_len > sizeof f->sent[0].hdr)
        return ARM_ERR_INVALID_ARG;
    if (f->fail_sends)
        return ARM_ERR_TRANSPORT;
    f->sent = grow(f->sent, &f->sent_cap, f->nsent, sizeof *f->sent);
    srv_fake_sent_t *m = &f->sent[f->nsent++];
    memset(m, 0, sizeof *m);
    m->to = to;
    m->is_request = is_request;
    memcpy(m->hdr, hdr, hdr_len);
    m->hdr_len = hdr_len;
    m->flags = flags;
    m->iovcnt = iovcnt;
    for (size_t i = 0; i < iovcnt; i++)
        m->len += iov[i].len;
    m->data = malloc(m->len + 1);
    if (!m->data)
        arm_fatal("srv_fake", "out of memory");
    size_t off = 0;
    for (size_t i = 0; i < iovcnt; i++) {
        memcpy(m->data + off, iov[i].buf, iov[i].len);
        off += iov[i].len;
    }
    m->data[m->len] = '\0';
    if (f->send_mode == SRV_FAKE_SEND_NOW) {
        if (f->ndone == f->nsent - 1)
            f->ndone = f->nsent;
        return ARM_OK;
    }
    m->comp = comp;
    comp->pending++;
    return ARM_INPROGRESS;
}

static arm_status_t fake_send_reply(void *ctx, int rank, const void *hdr, size_t hdr_len,
                                    const arm_net_iov_t *iov, size_t iovcnt, unsigned flags,
                                    arm_net_comp_t *comp)
{
    return record(ctx, rank, 0, hdr, hdr_len, iov, iovcnt, flags, comp);
}

static arm_status_t fake_send_server(void *ctx, int node, unsigned am_id, const void *hdr,
                                     size_t hdr_len, const arm_net_iov_t *iov, size_t iovcnt,
                                     unsigned flags, arm_net_comp_t *comp)
{
    return record(ctx, node, (int)am_id, hdr, hdr_len, iov, iovcnt, flags, comp);
}

static void complete(arm_net_comp_t *c, arm_status_t st)
{
    if (st != ARM_OK && c->status == ARM_OK)
        c->status = st;
    if (--c->pending == 0 && c->cb)
        c->cb(c);
}

static arm_status_t fake_recv_data(void *ctx, const arm_net_am_msg_t *msg, void *buf,
                                   size_t len, arm_net_comp_t *comp)
{
    srv_fake_t *f = ctx;
    if (len < msg->data_len || live_find(f, msg->data) < 0)
        return ARM_ERR_INVALID_ARG;
    if (msg->rndv && f->hold_recvs) {
        /* The transfer owns the data now, whatever the handler returns. */
        int i = live_find(f, msg->data);
        f->live[i] = f->live[--f->nlive];
        f->rx = grow(f->rx, &f->rx_cap, f->nrx, sizeof *f->rx);
        f->rx[f->nrx++] = (struct srv_fake_rx){ comp, buf, msg->data, msg->data_len };
        comp->pending++;
        return ARM_INPROGRESS;
    }
    memcpy(buf, msg->data, msg->data_len);
    live_drop(f, msg->data);
    return ARM_OK;
}

static void fake_release(void *ctx, const arm_net_am_msg_t *msg)
{
    srv_fake_t *f = ctx;
    if (!live_drop(f, msg->data))
        f->bad_release++;
}

size_t srv_fake_complete(srv_fake_t *f, size_t n)
{
    size_t done = 0;
    while (done < n && f->ndone < f->nsent) {
        srv_fake_sent_t *m = &f->sent[f->ndone++];
        arm_net_comp_t *c = m->comp;
        if (!c)
            continue;
        m->comp = NULL;
        complete(c, ARM_OK);
        done++;
    }
    return done;
}

static int fake_progress(void *ctx)
{
    srv_fake_t *f = ctx;
    int did = 0;
    while (f->nrx > 0) {
        struct srv_fake_rx r = f->rx[0];
        memmove(f->rx, f->rx + 1, --f->nrx * sizeof *f->rx);
        memcpy(r.buf, r.src, r.len);
        free(r.src);
        complete(r.comp, ARM_OK);
        did = 1;
    }
    if (f->send_mode == SRV_FAKE_SEND_PROGRESS && srv_fake_complete(f, (size_t)-1))
        did = 1;
    return did;
}

arm_status_t srv_xport_wait_none(void *ctx, int timeout_ms)
{
    (void)ctx, (void)timeout_ms;
    return ARM_OK;
}

void srv_xport_wakeup_none(void *ctx)
{
    (void)ctx;
}

static arm_status_t fake_mem_reg(void *ctx, void *addr, size_t len, void **reg)
{
    srv_fake_t *f = ctx;
    (void)len;
    f->nreg++;
    *reg = addr;
    return ARM_OK;
}

static void fake_mem_dereg(void *ctx, void *reg)
{
    (void)reg;
    ((srv_fake_t *)ctx)->nreg--;
}

static arm_status_t fake_rkey_pack(void *ctx, void *reg, void *buf, size_t *len)
{
    char key[64];
    (void)ctx;
    int n = snprintf(key, sizeof key, "fake-rkey %p", reg);
    if (!buf || *len < (size_t)n) {
        *len = (size_t)n;
        return buf ? ARM_ERR_INVALID_ARG : ARM_OK;
    }
    memcpy(buf, key, (size_t)n);
    *len = (size_t)n;
    return ARM_OK;
}

const srv_xport_ops_t srv_xport_fake = {
    .name = "fake",
    .listen = fake_listen,
    .send_reply = fake_send_reply,
    .send_server = fake_send_server,
    .recv_data = fake_recv_data,
    .release = fake_release,
    .progress = fake_progress,
    .wait = srv_xport_wait_none,
    .wakeup = srv_xport_wakeup_none,
    .mem_reg = fake_mem_reg,
    .mem_dereg = fake_mem_dereg,
    .rkey_pack = fake_rkey_pack,
};

void srv_fake_init(srv_fake_t *f)
{
    memset(f, 0, sizeof *f);
}

void srv_fake_fini(srv_fake_t *f)
{
    for (size_t i = 0; i < f->nsent; i++)
        free(f->sent[i].data);
    while (f->nlive)
        free(f->live[--f->nlive]);
    for (size_t i = 0; i < f->nrx; i++)
        free(f->rx[i].src);
    free(f->sent);
    free(f->rx);
    free(f->live);
    memset(f, 0, sizeof *f);
}

size_t srv_fake_kept(const srv_fake_t *f)
{
    return f->nlive;
}

static arm_status_t deliver(srv_fake_t *f, unsigned am_id, const void *hdr, size_t hdr_len,
                            const void *data, size_t len, int rndv)
{
    arm_net_am_msg_t msg;
    char *buf = NULL;
    if (am_id >= SRV_FAKE_AM_IDS || !f->cbs[am_id])
        return ARM_ERR_INVALID_ARG;
    if (len) {
        buf = malloc(len);
        if (!buf)
            arm_fatal("srv_fake", "out of memory");
        memcpy(buf, data, len);
        f->live = grow(f->live, &f->live_cap, f->nlive, sizeof *f->live);
        f->live[f->nlive++] = buf;
    }
    msg.worker = NULL;
    msg.id = am_id;
    msg.hdr = hdr;
    msg.hdr_len = hdr_len;
    msg.data = buf;
    msg.data_len = len;
    msg.rndv = rndv;
    msg.reply_ep = NULL;
    msg.keepable = 1;
    arm_status_t st = f->cbs[am_id](f->cb_args[am_id], &msg);
    /* Returned without keeping it: the transport frees the buffer (a
     * rendezvous not received is dropped). */
    if (st != ARM_INPROGRESS && buf)
        live_drop(f, buf);
    return st;
}

arm_status_t srv_fake_deliver(srv_fake_t *f, const void *hdr, size_t hdr_len, const void *data,
                              size_t len, int rndv)
{
    return deliver(f, ARM_SRV_AM_REQ, hdr, hdr_len, data, len, rndv);
}

arm_status_t srv_fake_deliver_am(srv_fake_t *f, unsigned am_id, const void *hdr, size_t hdr_len,
                                 const void *data, size_t len)
{
    return deliver(f, am_id, hdr, hdr_len, data, len, 0);
}
