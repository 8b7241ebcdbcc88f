/* net: the eager set-up, lookups, flush, close, and the capability query
 * of endpoints (arm_net_conn.c makes them). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/arm_net_int.h"
#include "util/arm_timer.h"

arm_status_t arm_net_ep_connect_eager(arm_net_t *net)
{
    arm_net_ep_t *ep;
    arm_status_t ret;

    for (int n = 0; n < net->nnodes; n++) {
        if (n == net->my_node)
            continue;
        ret = arm_net_ep_connect(net, ARM_NET_EP_TO_SERVER, n, &ep);
        if (ret != ARM_OK)
            return ret;
    }
    if (net->server == NULL)
        return ARM_OK;
    for (int r = 0; r < net->nproc; r++) {
        if (net->node_of[r] == net->my_node)
            continue;
        ret = arm_net_ep_connect(net, ARM_NET_EP_TO_CLIENT, r, &ep);
        if (ret != ARM_OK)
            return ret;
    }
    return ARM_OK;
}

arm_net_ep_t *arm_net_server_ep(arm_net_t *net, int node)
{
    arm_net_ep_t *ep;
    if (node >= 0 && node < net->nnodes && net->to_server[node].h)
        return &net->to_server[node];
    return arm_net_ep_connect(net, ARM_NET_EP_TO_SERVER, node, &ep) == ARM_OK ? ep : NULL;
}

arm_net_ep_t *arm_net_client_ep(arm_net_t *net, int rank)
{
    arm_net_ep_t *ep;
    if (rank >= 0 && rank < net->nproc && net->to_client[rank].h)
        return &net->to_client[rank];
    return arm_net_ep_connect(net, ARM_NET_EP_TO_CLIENT, rank, &ep) == ARM_OK ? ep : NULL;
}

arm_net_ep_t *arm_net_peer_server_ep(arm_net_t *net, int node)
{
    arm_net_ep_t *ep;
    if (node >= 0 && node < net->nnodes && net->srv_to_srv[node].h)
        return &net->srv_to_srv[node];
    return arm_net_ep_connect(net, ARM_NET_EP_SRV_TO_SRV, node, &ep) == ARM_OK ? ep : NULL;
}

static void fill_cb_param(ucp_request_param_t *rp, arm_net_comp_t *comp)
{
    rp->op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    rp->cb.send = arm_net_send_cb;
    rp->user_data = comp;
}

arm_status_t arm_net_ep_flush(arm_net_ep_t *ep, arm_net_comp_t *comp)
{
    ucp_request_param_t rp;
    fill_cb_param(&rp, comp);
    ep->worker->stats.flushes++;
    return arm_net_track(ucp_ep_flush_nbx(ep->h, &rp), comp, "ucp_ep_flush_nbx");
}

arm_status_t arm_net_worker_flush(arm_net_worker_t *w, arm_net_comp_t *comp)
{
    ucp_request_param_t rp;
    fill_cb_param(&rp, comp);
    w->stats.flushes++;
    return arm_net_track(ucp_worker_flush_nbx(w->h, &rp), comp, "ucp_worker_flush_nbx");
}

/* ---- close -------------------------------------------------------------- */

static void close_one(arm_net_ep_t *ep, void **reqs, int *nreq)
{
    ucp_request_param_t rp;
    ucs_status_ptr_t sp;

    if (ep->h == NULL)
        return;
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    rp.flags = 0;                            /* flush mode */
    sp = ucp_ep_close_nbx(ep->h, &rp);
    ep->h = NULL;
    if (UCS_PTR_IS_PTR(sp))
        reqs[(*nreq)++] = sp;
    else if (UCS_PTR_IS_ERR(sp))
        arm_log(ARM_LOG_DEBUG, ARM_NET_SUBSYS, "ucp_ep_close_nbx: %s",
                ucs_status_string(UCS_PTR_STATUS(sp)));
}

void arm_net_ep_close_all(arm_net_t *net)
{
    int max = 2 * net->nnodes + net->nproc, nreq = 0, left;
    void **reqs = calloc((size_t)max, sizeof *reqs);
    double deadline = arm_time_now() + 1e-3 * net->finalize_timeout_ms;

    if (reqs == NULL)
        return;                              /* workers' destruction closes them */
    for (int n = 0; n < net->nnodes; n++)
        close_one(&net->to_server[n], reqs, &nreq);
    for (int r = 0; r < net->nproc; r++)
        close_one(&net->to_client[r], reqs, &nreq);
    for (int n = 0; n < net->nnodes; n++)
        close_one(&net->srv_to_srv[n], reqs, &nreq);

    /* Progress both workers until every close request is done, bounded. */
    for (left = nreq; left > 0;) {
        ucp_worker_progress(net->client.h);
        if (net->server)
            ucp_worker_progress(net->server->h);
        left = 0;
        for (int i = 0; i < nreq; i++) {
            if (reqs[i] == NULL)
                continue;
            if (ucp_request_check_status(reqs[i]) != UCS_INPROGRESS) {
                ucp_request_free(reqs[i]);
                reqs[i] = NULL;
            } else {
                left++;
            }
        }
        if (left > 0 && arm_time_now() > deadline)
            break;
    }
    if (left > 0) {
        arm_log(ARM_LOG_WARN, ARM_NET_SUBSYS,
                "finalize: %d endpoint(s) did not close in %d ms; giving up on them", left,
                net->finalize_timeout_ms);
        for (int i = 0; i < nreq; i++)
            if (reqs[i])
                ucp_request_free(reqs[i]);
    }
    free(reqs);
}

/* ---- capabilities ------------------------------------------------------- */

/* Add the transport name `tl` (len n) to the comma list if it is new. */
static void tls_add(char *tls, size_t cap, const char *tl, size_t n)
{
    size_t used = strlen(tls);
    for (const char *p = tls; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && strncmp(p, tl, n) == 0)
            return;
        p += l + (e != NULL);
    }
    if (used + n + 2 > cap)
        return;
    if (used)
        tls[used++] = ',';
    memcpy(tls + used, tl, n);
    tls[used + n] = '\0';
}

/* Transports whose rma/amo lanes do not act on memory registered from the
 * outside (tcp emulates with the target's CPU; the sysv/posix/self shared
 * memory transports reach only memory they allocated), so UCX falls back to
 * its software protocol, which needs the target worker's progress. */
static int tl_is_soft(const char *tl, size_t n)
{
    static const char *const soft[] = { "tcp", "sysv", "posix", "self" };
    for (size_t i = 0; i < sizeof soft / sizeof soft[0]; i++)
        if (strlen(soft[i]) == n && strncmp(tl, soft[i], n) == 0)
            return 1;
    return 0;
}

/* Transports that reach only processes of this host through its memory. */
static int tl_is_host_shm(const char *tl, size_t n)
{
    static const char *const shm[] = { "cma", "knem", "xpmem", "sysv", "posix" };
    for (size_t i = 0; i < sizeof shm / sizeof shm[0]; i++)
        if (strlen(shm[i]) == n && strncmp(tl, shm[i], n) == 0)
            return 1;
    return 0;
}

/* UCX 1.13 has no UCP_EP_ATTR_FIELD_TRANSPORTS: read the lane table that
 * ucp_ep_print_info writes. A lane line looks like
 *   "#  lane[1]:  2:cma/memory.0 md[2] -> md[2]/cma/sysdev[255] rma_bw#0"
 * (transport before the '/', its uses after "->"). Small put/get use "rma#"
 * lanes, large ones and rendezvous "rma_bw#" lanes, atomics "amo#" lanes. */
static void parse_lanes(const char *text, unsigned *caps, char *tls, size_t tls_len)
{
    const char *line = text;

    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t llen = end ? (size_t)(end - line) : strlen(line);
        const char *lane = strstr(line, "lane[");
        if (lane && (size_t)(lane - line) < llen) {
            const char *colon = strchr(lane, ':');
            const char *p = colon ? colon + 1 : NULL;
            while (p && (*p == ' ' || (*p >= '0' && *p <= '9')))
                p++;
            if (p && *p == ':')
                p++;
            const char *slash = p ? strchr(p, '/') : NULL;
            if (slash && (size_t)(slash - line) < llen) {
                size_t n = (size_t)(slash - p);
                int soft = tl_is_soft(p, n);
                char buf[512];
                size_t bl = llen < sizeof buf - 1 ? llen : sizeof buf - 1;
                memcpy(buf, line, bl);
                buf[bl] = '\0';
                const char *uses = strstr(buf, "->");
                if (tls)
                    tls_add(tls, tls_len, p, n);
                if (n == 3 && strncmp(p, "tcp", 3) == 0)
                    *caps |= ARM_NET_CAP_STREAM;
                if (tl_is_host_shm(p, n))
                    *caps |= ARM_NET_CAP_HOST_SHM;
                if (uses && !soft) {
                    if (strstr(uses, " rma#"))
                        *caps |= ARM_NET_CAP_RMA_NATIVE;
                    if (strstr(uses, " amo#"))
                        *caps |= ARM_NET_CAP_AMO_NATIVE;
                    if (strstr(uses, " rma_bw#"))
                        *caps |= ARM_NET_CAP_RMA_ZCOPY;
                }
            }
        }
        line = end ? end + 1 : NULL;
    }
}

arm_status_t arm_net_ep_caps(arm_net_ep_t *ep, unsigned *caps, char *tls, size_t tls_len)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f;
    unsigned c = 0;

    if (ep == NULL || ep->h == NULL)
        return ARM_ERR_INVALID_ARG;
    if (tls && tls_len)
        tls[0] = '\0';
    if (ep->caps_known && tls == NULL) {
        *caps = ep->caps;
        return ARM_OK;
    }
    f = open_memstream(&text, &size);
    if (f == NULL)
        return ARM_ERR_SYSTEM;
    ucp_ep_print_info(ep->h, f);
    fclose(f);
    parse_lanes(text, &c, tls, tls_len);
    free(text);
    ep->caps = c;
    ep->caps_known = 1;
    *caps = c;
    return ARM_OK;
}

unsigned arm_net_node_caps(arm_net_t *net, int node)
{
    unsigned caps = 0;
    arm_net_ep_t *ep = arm_net_server_ep(net, node);
    if (ep == NULL || arm_net_ep_caps(ep, &caps, NULL, 0) != ARM_OK)
        return 0;
    return caps;
}

void arm_net_ep_print(arm_net_ep_t *ep, FILE *f)
{
    if (ep && ep->h)
        ucp_ep_print_info(ep->h, f);
}

arm_status_t arm_net_caps(arm_net_t *net, unsigned *caps, char *tls, size_t tls_len)
{
    unsigned all = ARM_NET_CAP_RMA_NATIVE | ARM_NET_CAP_AMO_NATIVE | ARM_NET_CAP_RMA_ZCOPY |
                   ARM_NET_CAP_STREAM | ARM_NET_CAP_HOST_SHM;
    char one[256];

    if (tls && tls_len)
        tls[0] = '\0';
    for (int n = 0; n < net->nnodes; n++) {
        unsigned c;
        if (net->to_server[n].h == NULL)
            continue;
        arm_status_t st = arm_net_ep_caps(&net->to_server[n], &c, one, sizeof one);
        if (st != ARM_OK)
            return st;
        all &= c;
        if (tls) {
            for (char *p = one; *p;) {
                char *e = strchr(p, ',');
                size_t l = e ? (size_t)(e - p) : strlen(p);
                tls_add(tls, tls_len, p, l);
                p += l + (e != NULL);
            }
        }
    }
    *caps = all;
    return ARM_OK;
}
