/* net: memory registration, remote keys, put/get and atomics. */
#include <stdlib.h>
#include <string.h>

#include "net/arm_net_int.h"

/* ---- registration -------------------------------------------------------- */

arm_status_t arm_net_mem_reg(arm_net_t *net, void *addr, size_t len, arm_net_reg_t **reg_p)
{
    ucp_mem_map_params_t mp;
    arm_net_reg_t *reg;
    ucs_status_t st;

    if (addr == NULL || len == 0) {
        arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "arm_net_mem_reg: empty region %p/%zu", addr, len);
        return ARM_ERR_INVALID_ARG;
    }
    reg = calloc(1, sizeof *reg);
    if (reg == NULL)
        return ARM_ERR_NO_MEMORY;
    memset(&mp, 0, sizeof mp);
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                    UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.address = addr;
    mp.length = len;
    mp.flags = 0;                            /* existing memory: no UCP_MEM_MAP_ALLOCATE */
    st = ucp_mem_map(net->ctx, &mp, &reg->memh);
    if (st != UCS_OK) {
        free(reg);
        return arm_net_ucs_error("ucp_mem_map", st);
    }
    reg->net = net;
    reg->addr = addr;
    reg->len = len;
    arm_net_list_add(&net->regs, &reg->link);
    *reg_p = reg;
    return ARM_OK;
}

arm_status_t arm_net_mem_dereg(arm_net_reg_t *reg)
{
    ucs_status_t st;

    if (reg == NULL)
        return ARM_OK;
    arm_net_list_del(&reg->link);
    st = ucp_mem_unmap(reg->net->ctx, reg->memh);
    free(reg);
    return st == UCS_OK ? ARM_OK : arm_net_ucs_error("ucp_mem_unmap", st);
}

arm_status_t arm_net_rkey_pack(arm_net_reg_t *reg, void *buf, size_t *len)
{
    void *packed;
    size_t size;
    ucs_status_t st;
    arm_status_t ret = ARM_OK;

    st = ucp_rkey_pack(reg->net->ctx, reg->memh, &packed, &size);
    if (st != UCS_OK)
        return arm_net_ucs_error("ucp_rkey_pack", st);
    if (buf != NULL) {
        if (size <= *len)
            memcpy(buf, packed, size);
        else
            ret = ARM_ERR_INVALID_ARG;
    }
    *len = size;
    ucp_rkey_buffer_release(packed);
    return ret;
}

arm_status_t arm_net_rkey_unpack(arm_net_t *net, int node, const void *buf,
                                 arm_net_rkey_t **rkey_p)
{
    arm_net_ep_t *ep;
    arm_net_rkey_t *rk;
    ucs_status_t st;
    arm_status_t ret = arm_net_ep_connect(net, ARM_NET_EP_TO_SERVER, node, &ep);

    if (ret != ARM_OK)
        return ret;
    rk = calloc(1, sizeof *rk);
    if (rk == NULL)
        return ARM_ERR_NO_MEMORY;
    st = ucp_ep_rkey_unpack(ep->h, buf, &rk->h);
    if (st != UCS_OK) {
        free(rk);
        return arm_net_ucs_error("ucp_ep_rkey_unpack", st);
    }
    rk->ep = ep;
    arm_net_list_add(&net->rkeys, &rk->link);
    *rkey_p = rk;
    return ARM_OK;
}

void arm_net_rkey_destroy(arm_net_rkey_t *rkey)
{
    if (rkey == NULL)
        return;
    arm_net_list_del(&rkey->link);
    ucp_rkey_destroy(rkey->h);
    free(rkey);
}

arm_net_ep_t *arm_net_rkey_ep(const arm_net_rkey_t *rkey) { return rkey->ep; }

void arm_net_rkey_map(arm_net_rkey_t *rkey, uint64_t raddr, void *ptr, size_t len)
{
    rkey->map = ptr;
    rkey->map_raddr = raddr;
    rkey->map_len = ptr ? len : 0;
}

/* The local address of [raddr, raddr + len) when the rkey's memory is
 * mapped here, else NULL. */
static inline char *mapped_at(const arm_net_rkey_t *rkey, uint64_t raddr, size_t len)
{
    if (rkey->map && raddr >= rkey->map_raddr && raddr - rkey->map_raddr <= rkey->map_len &&
        len <= rkey->map_len - (raddr - rkey->map_raddr))
        return rkey->map + (raddr - rkey->map_raddr);
    return NULL;
}

/* ---- put / get ----------------------------------------------------------- */

static inline void fill_param(ucp_request_param_t *rp, arm_net_comp_t *comp)
{
    rp->op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    rp->cb.send = arm_net_send_cb;
    rp->user_data = comp;
}

arm_status_t arm_net_put(arm_net_rkey_t *rkey, const void *src, size_t len,
                         uint64_t raddr, arm_net_comp_t *comp)
{
    ucp_request_param_t rp;
    arm_net_stats_t *s = &rkey->ep->worker->stats;

    char *m = mapped_at(rkey, raddr, len);
    s->puts++;
    s->bytes_put += len;
    if (m) {
        memcpy(m, src, len);
        s->mapped++;
        return ARM_OK;
    }
    fill_param(&rp, comp);
    return arm_net_track(ucp_put_nbx(rkey->ep->h, src, len, raddr, rkey->h, &rp), comp,
                         "ucp_put_nbx");
}

arm_status_t arm_net_get(arm_net_rkey_t *rkey, void *dst, size_t len,
                         uint64_t raddr, arm_net_comp_t *comp)
{
    ucp_request_param_t rp;
    arm_net_stats_t *s = &rkey->ep->worker->stats;

    char *m = mapped_at(rkey, raddr, len);
    s->gets++;
    s->bytes_get += len;
    if (m) {
        memcpy(dst, m, len);
        s->mapped++;
        return ARM_OK;
    }
    fill_param(&rp, comp);
    return arm_net_track(ucp_get_nbx(rkey->ep->h, dst, len, raddr, rkey->h, &rp), comp,
                         "ucp_get_nbx");
}

/* ---- atomics ------------------------------------------------------------- */

arm_status_t arm_net_amo(arm_net_rkey_t *rkey, arm_net_amo_op_t op, size_t size,
                         const void *operand, const void *compare, void *result,
                         uint64_t raddr, arm_net_comp_t *comp)
{
    ucp_request_param_t rp;
    ucp_atomic_op_t uop;
    const void *buffer = operand;

#ifndef ARMADA_NO_CHECKS
    if ((size != 4 && size != 8) || (raddr & (size - 1)) || operand == NULL ||
        (op != ARM_NET_AMO_ADD && result == NULL) || (op == ARM_NET_AMO_CSWAP && !compare)) {
        arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "arm_net_amo: bad arguments (size %zu)", size);
        return ARM_ERR_INVALID_ARG;
    }
#endif
    fill_param(&rp, comp);
    rp.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
    rp.datatype = ucp_dt_make_contig(size);
    switch (op) {
    case ARM_NET_AMO_ADD:
    case ARM_NET_AMO_FADD:
        uop = UCP_ATOMIC_OP_ADD;
        break;
    case ARM_NET_AMO_SWAP:
        uop = UCP_ATOMIC_OP_SWAP;
        break;
    case ARM_NET_AMO_CSWAP:
        /* UCX: if (*r == buffer) *r = reply_buffer; reply_buffer = old. */
        uop = UCP_ATOMIC_OP_CSWAP;
        memcpy(result, operand, size);
        buffer = compare;
        break;
    default:
        return ARM_ERR_INVALID_ARG;
    }
    if (op != ARM_NET_AMO_ADD) {
        rp.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        rp.reply_buffer = result;
    }
    rkey->ep->worker->stats.amos++;
    return arm_net_track(ucp_atomic_op_nbx(rkey->ep->h, uop, buffer, 1, raddr, rkey->h, &rp),
                         comp, "ucp_atomic_op_nbx");
}
