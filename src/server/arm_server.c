/* The communication server the runtime starts: srv_create over the net
 * layer's transport table, run by a thread on the server worker. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>
#include "server/srv_int.h"
#include "util/arm_config.h"

arm_status_t arm_server_start(const arm_server_params_t *p, arm_server_t **out)
{
    srv_xport_ucx_t *u = calloc(1, sizeof *u);
    if (!u)
        return ARM_ERR_NO_MEMORY;
    /* Replies in flight at once: each slot's, the sync ones, a credit-only
     * and a refusal per client. */
    int per_client = (p->slots > 0 ? p->slots : 1) + SRV_SYNC_RECS + 2;
    arm_status_t st = srv_xport_ucx_init(u, p->net, (int)arm_config.server_comp_delay_us,
                                         p->nproc * per_client);
    struct arm_server *s = NULL;
    if (st == ARM_OK)
        st = srv_create(p, &srv_xport_ucx, u, &s);
    if (st == ARM_OK)
        s->start_bytes = s->stats.buffer_bytes;
    if (st == ARM_OK && pthread_create(&s->thread, NULL, srv_thread, s) != 0)
        st = ARM_ERR_SYSTEM;
    if (st != ARM_OK) {
        srv_destroy(s);
        srv_xport_ucx_fini(u);
        free(u);
        return st;
    }
    s->thread_started = 1;
    *out = s;
    return ARM_OK;
}

void arm_server_stop(arm_server_t *s)
{
    if (!s)
        return;
    if (s->thread_started) {
        atomic_store_explicit(&s->stop, 1, memory_order_release);
        s->x->wakeup(s->xctx);
        pthread_join(s->thread, NULL);
        s->thread_started = 0;
    }
    /* Replies still in flight complete during the net layer's finalize. */
    srv_segs_clear(s);
    srv_clients_release(s);
}

void arm_server_free(arm_server_t *s)
{
    if (!s)
        return;
    srv_xport_ucx_t *u = s->xctx;
    srv_destroy(s);
    srv_xport_ucx_fini(u);
    free(u);
}

uint64_t arm_server_start_bytes(const arm_server_t *s)
{
    return s->start_bytes;
}

uint64_t arm_server_cpu_ns(const arm_server_t *s)
{
    clockid_t cid;
    struct timespec ts;
    if (!s->thread_started)
        return s->stats.cpu_ns;
    if (pthread_getcpuclockid(s->thread, &cid) != 0 || clock_gettime(cid, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void arm_server_get_stats(const arm_server_t *s, arm_server_stats_t *out)
{
    *out = s->stats;
}

int arm_server_edge_stats(const arm_server_t *s, int i, int *node, uint64_t *requests,
                          uint64_t *messages, uint64_t *combined)
{
    if (i < 0 || i >= s->noedges)
        return 0;
    const srv_oedge_t *e = s->oedges[i];
    *node = arm_topo_neighbour(s->p.topo, s->p.node, i);
    *requests = e ? e->reqs : 0;
    *messages = e ? e->msgs : 0;
    *combined = e ? e->combined : 0;
    return 1;
}
