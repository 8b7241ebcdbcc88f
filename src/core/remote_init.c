/* Bring-up and tear-down of the inter-node path: the net (UCX) layer, the
 * client's request buffers, this node's communication server (on its
 * leader), and armada-info's description. The path of each operation is
 * chosen per operation by arm_path_choose (arm_path.c) from the target
 * node's capability bits; the protocols are in src/core/proto/. */
#define _GNU_SOURCE   /* PTHREAD_MUTEX_ADAPTIVE_NP */
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "core/arm_mpi.h"
#include "core/remote_int.h"

arm_remote_ctx_t arm_rc;

static int mpi_allgather(void *ctx, const void *send, void *recv, size_t len)
{
    MPI_Comm comm = *(MPI_Comm *)ctx;
    return arm_mpi_allgather(send, (int)len, MPI_BYTE, recv, (int)len, MPI_BYTE, comm);
}

/* Lazy addresses: only the leaders' blocks travel (MPI counts are ints;
 * address blocks are a few hundred bytes). */
static int mpi_allgatherv(void *ctx, const void *send, void *recv, const size_t *lens,
                          const size_t *displs)
{
    MPI_Comm comm = *(MPI_Comm *)ctx;
    int n = arm_core.nproc, me = arm_core.me;
    int *cnt = malloc(sizeof(int) * (size_t)n), *dsp = malloc(sizeof(int) * (size_t)n);
    int rc = -1;
    if (cnt && dsp) {
        for (int r = 0; r < n; r++) {
            cnt[r] = (int)lens[r];
            dsp[r] = (int)displs[r];
        }
        rc = arm_mpi_allgatherv(send, cnt[me], MPI_BYTE, recv, cnt, dsp, MPI_BYTE, comm);
    }
    free(cnt);
    free(dsp);
    return rc;
}

static int mpi_allmax(void *ctx, uint64_t *v)
{
    return arm_mpi_allreduce(MPI_IN_PLACE, v, 1, MPI_UINT64_T, MPI_MAX, *(MPI_Comm *)ctx);
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

/* The request buffers: every size derives from the slot size in force. */
arm_status_t arm_rem_state_alloc(const arm_core_t *c)
{
    size_t nn = (size_t)c->nnodes;
    arm_rc.credits = calloc(nn, sizeof *arm_rc.credits);
    arm_rc.srv_dirty = calloc(nn, 1);
    arm_rc.rma_dirty = calloc(nn, 1);
    arm_rc.dirty_list = calloc(nn, sizeof *arm_rc.dirty_list);
    arm_rc.node_caps = calloc(nn, sizeof *arm_rc.node_caps);
    arm_rc.fencing = calloc(nn, sizeof *arm_rc.fencing);
    arm_rc.hop = calloc(nn, sizeof *arm_rc.hop);
    arm_rc.unsent = calloc(nn, sizeof *arm_rc.unsent);
    arm_rc.fwd_sent = calloc(nn, sizeof *arm_rc.fwd_sent);
    arm_rc.fwd_acked = calloc(nn, sizeof *arm_rc.fwd_acked);
    arm_rc.seq_sent = calloc(nn, sizeof *arm_rc.seq_sent);
    arm_rc.seq_answered = calloc(nn, sizeof *arm_rc.seq_answered);
    arm_rc.seq_write = calloc(nn, sizeof *arm_rc.seq_write);
    if (!arm_rc.credits || !arm_rc.srv_dirty || !arm_rc.rma_dirty || !arm_rc.dirty_list ||
        !arm_rc.node_caps || !arm_rc.fencing || !arm_rc.hop || !arm_rc.unsent ||
        !arm_rc.fwd_sent || !arm_rc.fwd_acked || !arm_rc.seq_sent || !arm_rc.seq_answered ||
        !arm_rc.seq_write)
        return ARM_ERR_NO_MEMORY;
    int slots = arm_config.server_slots > 0 ? (int)arm_config.server_slots : 1;
    for (int n = 0; n < c->nnodes; n++)
        arm_rc.credits[n] = slots;
    /* A slot's worth of entries, and the padding after them (decision 077). */
    size_t maxseg = arm_rc.slot_size / sizeof(arm_srv_seg_t) + 4;
    for (int i = 0; i < OP_POOL; i++) {
        rop_t *op = &arm_rc.ops[i];
        op->buf = malloc(arm_rc.slot_size);
        op->tab = malloc(maxseg * sizeof *op->tab);
        op->loc = malloc(maxseg * sizeof *op->loc);
        if (!op->buf || !op->tab || !op->loc)
            return ARM_ERR_NO_MEMORY;
        arm_rc.free_ops[i] = OP_POOL - 1 - i;
    }
    arm_rc.nfree = OP_POOL;
    arm_rc.inject = (int)arm_config.test_inject;
    if (arm_rc.inject && !(arm_rc.inject_buf = calloc(2, arm_rc.slot_size)))
        return ARM_ERR_NO_MEMORY;
    return ARM_OK;
}

/* The virtual topology (ARMADA_TOPOLOGY): where each node's requests go
 * first. */
static void topo_setup(const arm_core_t *c)
{
    char why[160], name[16];
    const char *dims = arm_config_text("TOPOLOGY_DIMS");
    /* auto: the same choice in every process, from job-wide figures. */
    arm_topo_kind_t kind = arm_config.topology > 0 ? (arm_topo_kind_t)(arm_config.topology - 1)
        : arm_topo_auto_kind(c->nproc, c->nnodes, (int)arm_config.server_slots,
                             (size_t)arm_config.slot_size,
                             (size_t)arm_config.topology_auto_max);
    if (arm_topo_init(&arm_rc.topo, kind, c->nnodes, dims, why, sizeof why) != ARM_OK)
        arm_fatal("ARMCI_Init", "settings ARMADA_TOPOLOGY=%s ARMADA_TOPOLOGY_DIMS='%s' cannot "
                  "shape %d nodes: %s", arm_config_value("TOPOLOGY", name, sizeof name), dims,
                  c->nnodes, why);
    if (arm_config.edge_slots < 1)
        arm_fatal("ARMCI_Init", "setting ARMADA_EDGE_SLOTS=%ld must be at least 1",
                  arm_config.edge_slots);
    arm_rc.topo_on = kind != ARM_TOPO_FCG;
    for (int n = 0; n < c->nnodes; n++)
        arm_rc.hop[n] = !arm_rc.topo_on || n == c->my_node
            ? n : arm_topo_next_hop(&arm_rc.topo, c->my_node, n);
}

/* The settings of the inter-node path that core's start (arm_core.c)
 * does not check already (it checks the slot size, 1k..1g). */
static void check_settings(void)
{
    if (arm_config.eager_write_max > (1L << 30))
        arm_fatal("ARMCI_Init", "setting ARMADA_EAGER_WRITE_MAX=%ld cannot work: an eager "
                  "request holds at most 1g", arm_config.eager_write_max);
    if (arm_config.client_poll_yield < 0 || arm_config.server_yield_after < 0)
        arm_fatal("ARMCI_Init", "settings ARMADA_CLIENT_POLL_YIELD (%ld) and "
                  "ARMADA_SERVER_YIELD_AFTER (%ld) must be 0 or positive",
                  arm_config.client_poll_yield, arm_config.server_yield_after);
}

/* Which transports reach the other nodes: a node reached over a stream
 * (TCP) makes every wait yield sooner and the servers reply eagerly. With
 * every endpoint made (eager) the endpoints say; otherwise no endpoint
 * exists yet, and the transports UCX offers tell it (decision 050). */
static void read_caps(const arm_core_t *c)
{
    unsigned all = 0;
    if (arm_config.connect != ARM_CONNECT_EAGER) {
        arm_rc.stream = arm_net_predict_stream(arm_rc.net, c->host_size < c->nproc);
        snprintf(arm_rc.tls, sizeof arm_rc.tls, "(connected on first use)");
        return;
    }
    arm_net_caps(arm_rc.net, &all, arm_rc.tls, sizeof arm_rc.tls);
    for (int n = 0; n < c->nnodes; n++)
        if (n != c->my_node) {
            unsigned caps = arm_rem_caps(n);
            arm_rc.stream |= (caps & ARM_NET_CAP_STREAM) && !(caps & ARM_NET_CAP_RMA_NATIVE);
        }
}

/* How waiting processes and the servers spend idle time. A waiting client
 * polls long only when the host has a core for it; on an oversubscribed
 * host it polls a few times and then yields the CPU (decision 014) to the
 * servers, which are then the bottleneck, before it sleeps. Over a stream
 * transport each poll is a system call, no cheaper than a yield: on an
 * oversubscribed host clients and servers yield from their first empty poll
 * (decision 016); with a core per process the client still yields every
 * CLIENT_POLL_YIELD polls, so that a server the scheduler stacked with it
 * runs within microseconds. Returns the servers' yield-after count. */
static int set_waiting(const arm_core_t *c)
{
    int busy_host = c->host_size > c->host_cores;
    arm_rc.spins = !busy_host ? (int)arm_config.poll_spins : arm_rc.stream ? 1 : 8;
    arm_net_set_yield(arm_rc.w, (int)arm_config.yield_us,
                      arm_rc.stream ? (int)arm_config.client_poll_yield : 0);
    return busy_host && arm_rc.stream ? 0 : (int)arm_config.server_yield_after;
}

/* The client lock guards sections of about 100 ns (decision 067). Two
 * threads issuing at once would otherwise hand it over through a futex
 * sleep and wake-up each time; an adaptive mutex spins a bounded number of
 * times first and then sleeps as a plain one does (decision 074). */
static int client_lock_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    if (pthread_mutexattr_init(&a) != 0)
        return -1;
#ifdef PTHREAD_MUTEX_ADAPTIVE_NP
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    int rc = pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
    return rc;
}

static arm_status_t start_server(arm_core_t *c, int server_yield_after)
{
    arm_shm_mutex_t **locks = arm_rc.acc_locks = calloc((size_t)c->nproc, sizeof *locks);
    if (!locks)
        return ARM_ERR_NO_MEMORY;
    for (int r = 0; r < c->nproc; r++)
        if (c->ctl[r])
            locks[r] = ARM_CTL_ACC(c->ctl[r]);
    /* Over a stream a rendezvous costs two more round trips than it saves
     * below a few hundred KiB: the servers send get replies eagerly up to
     * REPLY_EAGER_MAX (decision 012); elsewhere UCX keeps its choice. */
    size_t reply_eager = arm_rc.stream ? (size_t)arm_config.reply_eager_max : 0;
    int slots = arm_config.server_slots > 0 ? (int)arm_config.server_slots : 1;
    arm_server_params_t sp = {
        .net = arm_rc.net, .nproc = c->nproc, .node = c->my_node, .acc_lock = locks,
        .acc_stride = ARM_CTL_ACC_STRIDE,
        .slots = slots, .slot_size = arm_rc.slot_size, .progress = (int)arm_config.progress,
        .poll_spins = (int)arm_config.poll_spins, .yield_after = server_yield_after,
        .reply_eager_max = reply_eager,
        .reply_pack_below = (size_t)arm_config.reply_pack_below,
        .topo = arm_rc.topo_on ? &arm_rc.topo : NULL,
        .node_of = c->node_of, .edge_slots = (int)arm_config.edge_slots,
        .combine = (int)arm_config.combine, .split = (int)arm_config.split_replies,
        .bound_replies = arm_config.connect == ARM_CONNECT_EDGES,
        .fence_ack = arm_config.fence_ack_us >= 0,
        .ack_us = (int)(arm_config.fence_ack_us < 60000000 ? arm_config.fence_ack_us : 60000000) };
    arm_status_t st = arm_server_start(&sp, &arm_rc.server);
    if (st != ARM_OK)
        return st;
    c->stats.server_buffer_bytes = arm_server_start_bytes(arm_rc.server);
    return ARM_OK;
}

/* The paths to a node, logged (ARMADA_STATS, rank 0, first nodes) when the
 * node's capabilities are first known: at start-up under eager, at its
 * first operation otherwise. */
static void log_node_paths(int n, unsigned caps)
{
    arm_path_settings_t *ps = &arm_rc.ps;
    arm_log(ARM_LOG_WARN, "remote", "node %d (%s%s%s%s%s%s): put 8 B %s, 64 KiB %s; get 8 B "
            "%s, 64 KiB %s; acc 64 KiB %s; rmw %s", n,
            caps & ARM_NET_CAP_RMA_NATIVE ? "rma " : "",
            caps & ARM_NET_CAP_AMO_NATIVE ? "amo " : "",
            caps & ARM_NET_CAP_RMA_ZCOPY ? "zcopy " : "",
            caps & ARM_NET_CAP_STREAM ? "stream" : "",
            caps & ARM_PATH_CAP_MAPPED ? "mapped" : "",
            caps & ARM_PATH_CAP_NO_DIRECT ? " forwarded only"
            : caps & ARM_PATH_CAP_FORWARDED ? " forwarded" : "",
            arm_proto_name(arm_path_choose(ARM_FAM_PUT, 8, caps, 0, ps).proto),
            arm_proto_name(arm_path_choose(ARM_FAM_PUT, 65536, caps, 0, ps).proto),
            arm_proto_name(arm_path_choose(ARM_FAM_GET, 8, caps, 0, ps).proto),
            arm_proto_name(arm_path_choose(ARM_FAM_GET, 65536, caps, 0, ps).proto),
            arm_proto_name(arm_path_choose(ARM_FAM_ACC, 65536, caps, 0, ps).proto),
            arm_proto_name(arm_path_choose(ARM_FAM_RMW, 8, caps, 0, ps).proto));
}

/* A neighbour's bits come from its endpoint, made now if it is not yet.
 * A node reached through forwarding takes its first hop's bits unless the
 * endpoints are all made (eager). Under lazy its endpoint is still started
 * here, only so that its server can answer straight; under edges it is
 * never made. */
unsigned arm_rem_caps_learn(int node)
{
    int hop = arm_rc.hop[node];
    unsigned c;
    if (hop == node || arm_config.connect == ARM_CONNECT_EAGER)
        c = arm_net_node_caps(arm_rc.net, node);   /* HOST_SHM is MAPPED */
    else {
        c = arm_rem_caps(hop) & (ARM_PATH_CAP_RMA_NATIVE | ARM_PATH_CAP_AMO_NATIVE |
                                 ARM_PATH_CAP_RMA_ZCOPY | ARM_PATH_CAP_STREAM);
        /* Lazy: the node's server answers this process's forwarded requests
         * straight, as in hicoo, once this process has said hello to it; a
         * connection started now, without waiting for it, makes that so from
         * about the first answer on. Until the hello arrives the answers go
         * back along the route (decision 070). */
        if (arm_config.connect == ARM_CONNECT_LAZY)
            (void)arm_net_server_ep(arm_rc.net, node);
    }
    if (hop != node && arm_config.connect == ARM_CONNECT_EDGES)
        c |= ARM_PATH_CAP_NO_DIRECT;
    if (!arm_config.vnode_map)
        c &= ~(unsigned)ARM_PATH_CAP_MAPPED;
    c |= CAPS_KNOWN | (hop != node ? (unsigned)ARM_PATH_CAP_FORWARDED : 0u);
    /* Release: the batch fast path (decision 075) reads it without the lock. */
    __atomic_store_n(&arm_rc.node_caps[node], c, __ATOMIC_RELEASE);
    if (arm_config.stats && arm_core.me == 0 && node < 4)
        log_node_paths(node, c);
    return c;
}

static void log_paths(const arm_core_t *c, int server_yield_after)
{
    char progress[16];
    char shape[64];
    arm_topo_describe(&arm_rc.topo, shape, sizeof shape);
    arm_log(ARM_LOG_WARN, "remote", "topology %s (ARMADA_TOPOLOGY=%s)", shape,
            arm_config_value("TOPOLOGY", progress, sizeof progress));
    arm_log(ARM_LOG_WARN, "remote", "transports %s; waiting: %d processes on %d cores of this "
            "host%s; a waiting client polls %d times, yields up to %ld us, then sleeps; "
            "servers (progress %s) yield after %d empty polls", arm_rc.tls, c->host_size,
            c->host_cores, c->host_size > c->host_cores ? " (oversubscribed)" : "",
            arm_rc.spins, (long)arm_config.yield_us,
            arm_config_value("PROGRESS", progress, sizeof progress), server_yield_after);
}

_Static_assert((unsigned)ARM_NET_CAP_RMA_NATIVE == (unsigned)ARM_PATH_CAP_RMA_NATIVE &&
               (unsigned)ARM_NET_CAP_AMO_NATIVE == (unsigned)ARM_PATH_CAP_AMO_NATIVE &&
               (unsigned)ARM_NET_CAP_RMA_ZCOPY == (unsigned)ARM_PATH_CAP_RMA_ZCOPY &&
               (unsigned)ARM_NET_CAP_STREAM == (unsigned)ARM_PATH_CAP_STREAM &&
               (unsigned)ARM_NET_CAP_HOST_SHM == (unsigned)ARM_PATH_CAP_MAPPED,
               "the path reads the net's bits");

arm_status_t arm_remote_init(arm_core_t *c)
{
    if (c->nnodes == 1)
        return ARM_OK;
    check_settings();
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
    np.connect_eager = arm_config.connect == ARM_CONNECT_EAGER;
    np.lazy_addresses = !np.connect_eager;
    np.allgatherv = mpi_allgatherv;
    np.allmax = mpi_allmax;
    arm_status_t st = arm_net_init(&np, &arm_rc.net);
    if (st != ARM_OK)
        return st;
    arm_rc.w = arm_net_client_worker(arm_rc.net);
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    arm_rc.mt = level == MPI_THREAD_MULTIPLE;
    arm_rc.locking = arm_rc.mt || arm_config.nb_agent;
    if (arm_rc.locking && client_lock_init(&arm_rc.lock) != 0)
        return ARM_ERR_SYSTEM;
    if (arm_rc.mt)
        arm_rem_tb_init();
    arm_rc.slot_size = (size_t)arm_config.slot_size;
    arm_rc.depth = arm_config.pipeline_depth < OP_POOL / 2 ? (int)arm_config.pipeline_depth
                                                           : OP_POOL / 2;
    arm_path_settings_init(&arm_rc.ps, arm_rc.slot_size, sizeof(arm_srv_batch_ent_t));
    if (arm_rc.mt)   /* another thread's request could queue behind the acc lock */
        arm_rc.ps.acc_mode = ARM_ACC_SERVER;
    if ((st = arm_rem_state_alloc(c)) != ARM_OK)
        return st;
    topo_setup(c);
    st = arm_net_am_set_handler(arm_rc.w, ARM_SRV_AM_REP, arm_rem_on_reply, NULL);
    if (st != ARM_OK)
        return st;
    read_caps(c);
    int server_yield_after = set_waiting(c);
    /* Read before the server thread runs: it owns its worker's counters. */
    arm_net_stats_t ns;
    arm_net_get_stats(arm_rc.net, &ns);
    c->stats.endpoints = ns.eps_to_server + ns.eps_to_client;
    arm_rc.srv_eps_c = ns.eps_to_client;
    arm_rc.srv_eps_s = ns.eps_srv_to_srv;
    arm_rc.srv_connect_s = ns.connect_time_s;
    if (arm_net_is_leader(arm_rc.net) && (st = start_server(c, server_yield_after)) != ARM_OK)
        return st;
    arm_rc.active = 1;
    arm_rem_amo_agree();
    if (arm_config.nb_agent && (st = arm_rem_agent_start()) != ARM_OK)
        return st;
    if (arm_config.stats && c->me == 0)
        log_paths(c, server_yield_after);
    return ARM_OK;
}

void arm_remote_conn_stats(armada_stats_t *s)
{
    if (!arm_rc.active)
        return;
    arm_net_stats_t ns;
    /* The worker's counters move wherever it is progressed: by other
     * threads, and by the progress agent at any time (decision 076). */
    arm_rem_enter();
    arm_net_worker_stats(arm_rc.w, &ns);
    arm_rem_leave();
    s->eps_client_to_server = ns.eps_to_server;
    s->eps_server_to_client = arm_rc.srv_eps_c;
    s->eps_server_to_server = arm_rc.srv_eps_s;
    s->connect_ns = (uint64_t)(1e9 * (ns.connect_time_s + arm_rc.srv_connect_s));
    s->endpoints = s->eps_client_to_server + s->eps_server_to_client + s->eps_server_to_server;
    s->agent_jobs = atomic_load_explicit(&arm_rc.agent_jobs, memory_order_relaxed);
    s->credit_replies = atomic_load_explicit(&arm_rc.credit_replies, memory_order_relaxed);
    s->fence_reads = atomic_load_explicit(&arm_rc.fence_reads, memory_order_relaxed);
    s->batches_swept = atomic_load_explicit(&arm_rc.batches_swept, memory_order_relaxed);
    s->mapped_copies = ns.mapped;
    /* Readable while the server runs (its thread's clock); final after it
     * stopped, where finalize has set it already. */
    if (arm_rc.server)
        s->server_cpu_ns = arm_server_cpu_ns(arm_rc.server);
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

/* ARMADA_STATS: what this node's server forwarded on each edge (per hop),
 * so that the aggregation ratio can be read. */
static void print_edges(const arm_core_t *c)
{
    int node;
    uint64_t req, msg, comb;
    for (int i = 0; arm_server_edge_stats(arm_rc.server, i, &node, &req, &msg, &comb); i++)
        if (msg)
            fprintf(stderr, "armada[rank %d] server of node %d -> node %d: %llu requests in "
                    "%llu messages (%.2f per message), %llu more combined into them\n", c->me, c->my_node, node, (unsigned long long)req,
                    (unsigned long long)msg, (double)req / (double)msg,
                    (unsigned long long)comb);
}

void arm_remote_finalize(arm_core_t *c)
{
    if (!arm_rc.active)
        return;
    arm_rem_agent_stop();
    for (arm_alloc_t *a = c->allocs; a; a = a->next)
        if (a->remote)
            arm_rem_release_rkeys(a->remote);
    if (arm_rc.server) {
        arm_server_stats_t ss;
        arm_server_stop(arm_rc.server);
        arm_server_get_stats(arm_rc.server, &ss);
        c->stats.server_requests = ss.requests;
        c->stats.server_buffer_bytes = ss.buffer_bytes;
        c->stats.server_clients = ss.clients;
        c->stats.server_edges_in = ss.edges_in;
        c->stats.server_edges_out = ss.edges_out;
        c->stats.server_fwd_requests = ss.fwd_requests;
        c->stats.server_fwd_messages = ss.fwd_messages;
        c->stats.server_fwd_combined = ss.fwd_combined;
        c->stats.server_fwd_in_requests = ss.fwd_in_requests;
        c->stats.server_fwd_in_messages = ss.fwd_in_messages;
        c->stats.server_fwd_in_early = ss.fwd_in_early;
        c->stats.server_split_sent = ss.split_sent;
        c->stats.server_split_replies = ss.split_replies;
        c->stats.server_relayed = ss.relayed;
        c->stats.server_packed_replies = ss.packed_replies;
        c->stats.server_fwd_acks = ss.fwd_acks;
        c->stats.server_cpu_ns = ss.cpu_ns;
        if (arm_config.stats)
            print_edges(c);
    }
    arm_net_stats_t ns;
    arm_net_get_stats(arm_rc.net, &ns);
    c->stats.endpoints = ns.eps_to_server + ns.eps_to_client + ns.eps_srv_to_srv;
    if (arm_net_server_worker(arm_rc.net)) {
        /* The server thread is stopped: its worker's counters are final. */
        arm_net_worker_stats(arm_net_server_worker(arm_rc.net), &ns);
        arm_rc.srv_eps_c = ns.eps_to_client;
        arm_rc.srv_eps_s = ns.eps_srv_to_srv;
        arm_rc.srv_connect_s = ns.connect_time_s;
    }
    arm_remote_conn_stats(&c->stats);
    arm_rc.active = 0;
    arm_rem_tb_fini();
    arm_net_finalize(arm_rc.net);
    arm_server_free(arm_rc.server);
    arm_rc.server = NULL;
    free(arm_rc.acc_locks);
    for (int i = 0; i < OP_POOL; i++) {
        free(arm_rc.ops[i].buf);
        free(arm_rc.ops[i].big);
        arm_rc.ops[i].big = NULL;
        arm_rc.ops[i].big_len = 0;
        free(arm_rc.ops[i].tab);
        free(arm_rc.ops[i].loc);
    }
    free(arm_rc.credits);
    free(arm_rc.hop);
    free(arm_rc.unsent);
    free(arm_rc.fwd_sent);
    free(arm_rc.fwd_acked);
    free(arm_rc.seq_sent);
    free(arm_rc.seq_answered);
    free(arm_rc.seq_write);
    free(arm_rc.srv_dirty);
    free(arm_rc.node_caps);
    free(arm_rc.fencing);
    free(arm_rc.inject_buf);
    free(arm_rc.acc_buf);
    arm_rc.acc_buf = NULL;
    arm_rc.acc_buf_len = 0;
    free(arm_rc.rma_dirty);
    free(arm_rc.dirty_list);
    if (arm_rc.locking)
        pthread_mutex_destroy(&arm_rc.lock);
    memset(&arm_rc, 0, sizeof arm_rc);
}

/* ---- armada-info -------------------------------------------------------------------- */
void arm_remote_print_info(FILE *out)
{
    char res[1024], rma[16], amo[16], acc[16], amin[16], smin[16], nb[16], nbmin[16];
    int n = arm_net_list_resources(res, sizeof res);
    fprintf(out, "inter-node path: UCX %s; UCX_TLS=%s\n", arm_net_ucx_version(),
            getenv("UCX_TLS") ? getenv("UCX_TLS") : "(unset: UCX picks)");
    fprintf(out, "transports available to UCX here: %s\n",
            n > 0 ? res : "(none: UCX could not start)");
    fprintf(out, "paths: same node -> shared memory; other node: contiguous put/get -> %s, "
            "fetch-and-add/swap -> %s, contiguous accumulate -> %s (auto: at the origin from "
            "ARMADA_ACC_ORIGIN_MIN=%s bytes, 0: never), "
            "strided/vector chunks of %s bytes or more -> transport RMA where it can, "
            "smaller ones, mutex and fence -> server\n",
            arm_config_value("RMA_PATH", rma, sizeof rma),
            arm_config_value("AMO_PATH", amo, sizeof amo),
            arm_config_value("ACC_PROTO", acc, sizeof acc),
            arm_config_value("ACC_ORIGIN_MIN", amin, sizeof amin),
            arm_config_value("STRIDED_RMA_MIN", smin, sizeof smin));
    fprintf(out, "  (auto: direct RMA where the transport does RMA natively; where it emulates "
            "it, UCX's own get for small clean reads and its zero-copy put/get, if any, "
            "for larger transfers; a running job logs its choice with ARMADA_STATS=1)\n");
    fprintf(out, "non-blocking transfers of %s bytes or more to other nodes -> progress "
            "agent: ARMADA_NB_AGENT=%s\n", arm_config_value("NB_AGENT_MIN", nbmin, sizeof nbmin),
            arm_config_value("NB_AGENT", nb, sizeof nb));
    fprintf(out, "allocations marked for transport atomics (every read-modify-write and integer "
            "accumulate, same node included, by UCX's atomics): ARMADA_AMO_ALLOC=%s\n",
            arm_config_value("AMO_ALLOC", amo, sizeof amo));
}
#endif /* ARMADA_HAVE_UCX */
