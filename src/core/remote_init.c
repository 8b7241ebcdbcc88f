/* The inter-node path over the net (UCX) and server layers.
 *
 * Path per family, decided here once at start-up (and forced by settings):
 * contiguous put/get go by direct RMA when the transport does RMA natively,
 * else to the target node's server; read-modify-write uses transport atomics
 * only when they are native and ARMADA_AMO_PATH=amo asks for them (CPU
 * atomics of same-node processes are not atomic with a NIC's); accumulate,
 * strided, vector, mutexes and fences always go to the server. A request
 * carries one slot's payload, except a contiguous put (and, over TCP, an
 * accumulate) bigger than a slot, which is one request (decision 013);
 * other bigger transfers are pipelined in slot-size chunks, as many in
 * flight as the client holds credits. Non-blocking gets stay in flight
 * until waited on (decision 011). */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

arm_remote_ctx_t arm_rc;


static int mpi_allgather(void *ctx, const void *send, void *recv, size_t len)
{
    MPI_Comm comm = *(MPI_Comm *)ctx;
    return MPI_Allgather(send, (int)len, MPI_BYTE, recv, (int)len, MPI_BYTE, comm);
}

static MPI_Request fin_barrier = MPI_REQUEST_NULL;

static int mpi_ibarrier_start(void *ctx)
{
    return MPI_Ibarrier(*(MPI_Comm *)ctx, &fin_barrier) == MPI_SUCCESS ? 0 : -1;
}

static int mpi_ibarrier_test(void *ctx)
{
    int done = 0;
    (void)ctx;
    if (MPI_Test(&fin_barrier, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return -1;
    return done;
}

arm_status_t arm_remote_init(arm_core_t *c)
{
    if (c->nnodes == 1)
        return ARM_OK;
    arm_net_params_t np;
    arm_net_params_init(&np);
    np.nproc = c->nproc;
    np.rank = c->me;
    np.nnodes = c->nnodes;
    np.node_of = c->node_of;
    np.leader_of_node = c->node_leader;
    np.allgather = mpi_allgather;
    np.ibarrier_start = mpi_ibarrier_start;
    np.ibarrier_test = mpi_ibarrier_test;
    np.cb_ctx = &c->world;
    arm_status_t st = arm_net_init(&np, &arm_rc.net);
    if (st != ARM_OK)
        return st;
    arm_rc.w = arm_net_client_worker(arm_rc.net);
    arm_rc.slot_size = (size_t)arm_config.slot_size;
    if (arm_rc.slot_size < 1024)
        arm_rc.slot_size = 1024;
    arm_rc.depth = arm_config.pipeline_depth < OP_POOL / 2 ? (int)arm_config.pipeline_depth : OP_POOL / 2;
    arm_rc.credits = calloc((size_t)c->nnodes, sizeof *arm_rc.credits);
    arm_rc.srv_dirty = calloc((size_t)c->nnodes, 1);
    arm_rc.rma_dirty = calloc((size_t)c->nnodes, 1);
    arm_rc.dirty_list = calloc((size_t)c->nnodes, sizeof *arm_rc.dirty_list);
    arm_rc.zcopy = calloc((size_t)c->nnodes, 1);
    if (!arm_rc.credits || !arm_rc.srv_dirty || !arm_rc.rma_dirty || !arm_rc.dirty_list || !arm_rc.zcopy)
        return ARM_ERR_NO_MEMORY;
    int slots = arm_config.server_slots > 0 ? (int)arm_config.server_slots : 1;
    for (int n = 0; n < c->nnodes; n++)
        arm_rc.credits[n] = slots;
    size_t maxseg = arm_rc.slot_size / sizeof(arm_srv_seg_t);
    for (int i = 0; i < OP_POOL; i++) {
        rop_t *op = &arm_rc.ops[i];
        op->buf = malloc(arm_rc.slot_size);
        op->tab = malloc(maxseg * sizeof *op->tab);
        op->lptr = malloc(maxseg * sizeof *op->lptr);
        if (!op->buf || !op->tab || !op->lptr)
            return ARM_ERR_NO_MEMORY;
        arm_rc.free_ops[i] = OP_POOL - 1 - i;
    }
    arm_rc.nfree = OP_POOL;
    st = arm_net_am_set_handler(arm_rc.w, ARM_SRV_AM_REP, arm_rem_on_reply, NULL);
    if (st != ARM_OK)
        return st;
    unsigned caps = 0;
    arm_net_caps(arm_rc.net, &caps, arm_rc.tls, sizeof arm_rc.tls);
    arm_rc.rma_native = (caps & ARM_NET_CAP_RMA_NATIVE) != 0;
    arm_rc.amo_native = (caps & ARM_NET_CAP_AMO_NATIVE) != 0;
    /* Over TCP a rendezvous costs two more round trips than it saves below
     * a few hundred KiB: the servers send get replies up to 256 KiB eagerly
     * (decision 012). Shared-memory and RDMA transports keep UCX's choice. */
    arm_rc.tcp = !arm_rc.rma_native && strstr(arm_rc.tls, "tcp") != NULL;
    arm_rc.reply_eager_max = arm_rc.tcp ? REPLY_EAGER_MAX : 0;
    /* A waiting client polls long only when the host has a core for it; on
     * an oversubscribed host it polls a few times and then yields the CPU
     * (decision 014) to the servers, which are then the bottleneck, before
     * it sleeps. Over TCP each poll is an epoll_wait system call, no cheaper
     * than a yield: on an oversubscribed host clients and servers yield from
     * their first empty poll (decision 016), so that the other processes of
     * the core send their requests meanwhile instead of waiting for the end
     * of a poller's time slice. */
    int busy_host = c->host_size > c->host_cores;
    arm_rc.spins = !busy_host ? (int)arm_config.poll_spins : arm_rc.tcp ? 1 : 8;
    int server_yield_after = busy_host && arm_rc.tcp ? 0 : SERVER_YIELD_AFTER;
    /* Where a core per process leaves the client polling long, over TCP it
     * still yields every 16 polls: when the scheduler stacks it with the
     * server it waits for, that server runs within microseconds instead of
     * at the end of the client's time slice (decision 016). */
    arm_net_set_yield(arm_rc.w, (int)arm_config.yield_us, arm_rc.tcp ? CLIENT_POLL_YIELD : 0);
    if (arm_net_is_leader(arm_rc.net)) {
        arm_shm_mutex_t **locks = arm_rc.acc_locks = calloc((size_t)c->nproc, sizeof *locks);
        if (!locks)
            return ARM_ERR_NO_MEMORY;
        for (int r = 0; r < c->nproc; r++)
            if (c->ctl[r])
                locks[r] = &c->ctl[r]->acc_lock;
        arm_server_params_t sp = { arm_rc.net, c->nproc, c->my_node, locks, slots, arm_rc.slot_size,
                                   (int)arm_config.progress, (int)arm_config.poll_spins,
                                   server_yield_after, arm_rc.reply_eager_max };
        st = arm_server_start(&sp, &arm_rc.server);
        if (st != ARM_OK)
            return st;
        arm_server_stats_t ss;
        arm_server_get_stats(arm_rc.server, &ss);
        c->stats.server_buffer_bytes = ss.buffer_bytes;
    }
    /* auto|rma|server and auto|amo|server */
    arm_rc.use_rma = arm_config.rma_path == 1 || (arm_config.rma_path == 0 && arm_rc.rma_native);
    arm_rc.use_amo = arm_config.amo_path == 1;
    /* Where UCX emulates RMA and atomics, its own handler on the server's
     * worker answers a small get or an atomic a little sooner than our
     * request dispatch does (decision 009). It is used only for reads to a
     * node with no server-path writes outstanding, which would otherwise
     * need a fence first; with writes outstanding the read goes to the
     * server, queued behind them. Emulated atomics are done with CPU atomics
     * by the target's worker, so they stay atomic with same-node ones;
     * native (NIC) atomics are not, and are used only when forced. */
    arm_rc.clean_get_max = !arm_rc.use_rma && !arm_rc.rma_native && arm_config.rma_path == 0 ? CLEAN_GET_MAX : 0;
    arm_rc.clean_amo = !arm_rc.use_amo && !arm_rc.amo_native && arm_config.amo_path == 0;
    /* Where UCX reaches a node with a zero-copy transport (cma between the
     * processes of one host) but emulates small RMA, its put and get of
     * more than a few KiB are a single copy to or from the target's memory:
     * 1.2-2x faster than a request to the server (decision 017). Gets of
     * any size and puts too large to be aggregated take them when no
     * server-path writes to the node are outstanding; with writes
     * outstanding, those of 64 KiB or more, after completing the writes,
     * and smaller ones go behind them to the server. */
    int nzcopy = 0;
    for (int n = 0; n < c->nnodes && !arm_rc.use_rma && arm_config.rma_path == 0; n++) {
        arm_net_ep_t *ep = arm_net_server_ep(arm_rc.net, n);
        unsigned nc = 0;
        if (n != c->my_node && ep && arm_net_ep_caps(ep, &nc, NULL, 0) == ARM_OK &&
            (nc & ARM_NET_CAP_RMA_ZCOPY)) {
            arm_rc.zcopy[n] = 1;
            nzcopy++;
        }
    }
    arm_net_stats_t ns;
    arm_net_get_stats(arm_rc.net, &ns);
    c->stats.endpoints = ns.eps_to_server + ns.eps_to_client;
    arm_rc.active = 1;
    if (arm_config.stats && c->me == 0) {
        arm_log(ARM_LOG_WARN, "remote", "inter-node paths: contiguous=%s%s%s%s atomics=%s "
                "(transports %s; rma %s, amo %s)", arm_rc.use_rma ? "rma" : "server",
                arm_rc.clean_get_max ? " (small gets: UCX get when no writes are pending)" : "",
                nzcopy ? " (larger puts and gets: UCX zero-copy put/get when no writes "
                         "are pending, and from 64 KiB)" : "",
                arm_rc.reply_eager_max ? " (get replies eager up to 256 KiB)" : "",
                arm_rc.use_amo ? "amo" : arm_rc.clean_amo ? "amo when no writes are pending, else server"
                : "server", arm_rc.tls, arm_rc.rma_native ? "native" : "emulated",
                arm_rc.amo_native ? "native" : "emulated");
        char every[40] = "", progress[16];
        if (arm_rc.tcp && arm_rc.spins > CLIENT_POLL_YIELD)
            snprintf(every, sizeof every, " (yielding every %d)", CLIENT_POLL_YIELD);
        arm_log(ARM_LOG_WARN, "remote", "waiting: %d processes on %d cores of this host%s; "
                "a waiting client polls %d times%s, yields up to %ld us, then sleeps; servers "
                "(progress %s) yield after %d empty polls", c->host_size, c->host_cores,
                busy_host ? " (oversubscribed)" : "", arm_rc.spins, every,
                (long)arm_config.yield_us, arm_config_value("PROGRESS", progress, sizeof progress),
                server_yield_after);
    }
    return ARM_OK;
}

void arm_rem_release_rkeys(remote_alloc_t *ra)
{
    if (!ra->rkeys)
        return;
    for (int n = 0; n < arm_core.nnodes; n++)
        if (ra->rkeys[n])
            arm_net_rkey_destroy(ra->rkeys[n]);
    free(ra->rkeys);
    ra->rkeys = NULL;
}

void arm_remote_finalize(arm_core_t *c)
{
    if (!arm_rc.active)
        return;
    for (arm_alloc_t *a = c->allocs; a; a = a->next)
        if (a->remote)
            arm_rem_release_rkeys(a->remote);
    if (arm_rc.server) {
        arm_server_stats_t ss;
        arm_server_stop(arm_rc.server);
        arm_server_get_stats(arm_rc.server, &ss);
        c->stats.server_requests = ss.requests;
    }
    arm_rc.active = 0;
    arm_net_finalize(arm_rc.net);
    arm_server_free(arm_rc.server);
    arm_rc.server = NULL;
    free(arm_rc.acc_locks);
    for (int i = 0; i < OP_POOL; i++) {
        free(arm_rc.ops[i].buf);
        free(arm_rc.ops[i].tab);
        free(arm_rc.ops[i].lptr);
    }
    free(arm_rc.credits);
    free(arm_rc.srv_dirty);
    free(arm_rc.zcopy);
    free(arm_rc.rma_dirty);
    free(arm_rc.dirty_list);
    memset(&arm_rc, 0, sizeof arm_rc);
}

/* ---- armada-info -------------------------------------------------------------------- */
void arm_remote_print_info(FILE *out)
{
    char res[1024], rma[16], amo[16];
    int n = arm_net_list_resources(res, sizeof res);
    fprintf(out, "inter-node path: UCX %s; UCX_TLS=%s\n", arm_net_ucx_version(),
            getenv("UCX_TLS") ? getenv("UCX_TLS") : "(unset: UCX picks)");
    fprintf(out, "transports available to UCX here: %s\n",
            n > 0 ? res : "(none: UCX could not start)");
    fprintf(out, "paths: same node -> shared memory; other node: contiguous put/get -> %s, "
            "fetch-and-add/swap -> %s, accumulate/strided/vector/mutex/fence -> server\n",
            arm_config_value("RMA_PATH", rma, sizeof rma),
            arm_config_value("AMO_PATH", amo, sizeof amo));
    fprintf(out, "  (auto: direct RMA where the transport does RMA natively; where it emulates "
            "it, UCX's own get for small clean reads and its zero-copy put/get, if any, "
            "for larger transfers; a running job logs its choice with ARMADA_STATS=1)\n");
}
#endif /* ARMADA_HAVE_UCX */
