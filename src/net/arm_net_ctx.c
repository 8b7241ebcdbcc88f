/* net: UCX context, workers, address exchange, progress, finalize. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ucs/config/global_opts.h>

#include "net/arm_net_int.h"
#include "util/arm_timer.h"

arm_status_t arm_net_status_from_ucs(ucs_status_t st)
{
    switch (st) {
    case UCS_OK:                  return ARM_OK;
    case UCS_INPROGRESS:          return ARM_INPROGRESS;
    case UCS_ERR_NO_MEMORY:       return ARM_ERR_NO_MEMORY;
    case UCS_ERR_INVALID_PARAM:   return ARM_ERR_INVALID_ARG;
    case UCS_ERR_UNSUPPORTED:     return ARM_ERR_UNSUPPORTED;
    case UCS_ERR_TIMED_OUT:       return ARM_ERR_TIMEOUT;
    case UCS_ERR_NO_ELEM:         return ARM_ERR_NOT_FOUND;
    case UCS_ERR_ALREADY_EXISTS:  return ARM_ERR_EXISTS;
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_UNREACHABLE:     return ARM_ERR_PEER_DIED;
    default:                      return ARM_ERR_TRANSPORT;
    }
}

arm_status_t arm_net_ucs_error(const char *what, ucs_status_t st)
{
    arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "%s failed: %s", what, ucs_status_string(st));
    return arm_net_status_from_ucs(st);
}

void arm_net_send_cb(void *request, ucs_status_t status, void *user_data)
{
    arm_net_comp_t *c = user_data;
    ucp_request_free(request);
    if (c == NULL)
        return;
    if (status != UCS_OK && c->status == ARM_OK)
        c->status = arm_net_ucs_error("operation", status);
    if (--c->pending == 0 && c->cb)
        c->cb(c);
}

void arm_net_params_init(arm_net_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->connect_eager = 1;
    p->server_worker_mt = 1;
    p->finalize_timeout_ms = 5000;
}

const char *arm_net_ucx_version(void) { return ucp_get_version_string(); }

/* The resource lines of a context, "tl/device" space separated, into buf. */
static int resources_of(ucp_context_h ctx, char *buf, size_t len)
{
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    if (!f)
        return -1;
    ucp_context_print_info(ctx, f);
    fclose(f);
    /* Lines "#      resource N  :  md M  dev D  flags -- tl/device". */
    int n = 0;
    size_t used = 0;
    char *save = NULL;
    buf[0] = '\0';
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *dash = strstr(line, "-- ");
        if (!strstr(line, "resource") || !dash)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", n ? " " : "", dash + 3);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
        n++;
    }
    free(text);
    return n;
}

static int tl_is(const char *tl, size_t n, const char *const *names)
{
    for (; *names; names++)
        if (strlen(*names) == n && strncmp(tl, *names, n) == 0)
            return 1;
    return 0;
}

/* The kinds of transport a context offers (self aside). */
enum { TL_TCP = 1, TL_SHM = 2, TL_RDMA = 4 };
static unsigned tl_kinds(ucp_context_h ctx)
{
    static const char *const shm_tls[] = { "posix", "sysv", "cma", "knem", "xpmem", NULL };
    static const char *const self_tl[] = { "self", NULL };
    static const char *const tcp_tl[] = { "tcp", NULL };
    char res[2048];
    unsigned k = 0;
    if (resources_of(ctx, res, sizeof res) <= 0)
        return 0;
    char *save = NULL;
    for (char *r = strtok_r(res, " ", &save); r; r = strtok_r(NULL, " ", &save)) {
        size_t n = strcspn(r, "/");
        k |= tl_is(r, n, tcp_tl) ? TL_TCP : tl_is(r, n, shm_tls) ? TL_SHM
           : tl_is(r, n, self_tl) ? 0u : TL_RDMA;
    }
    return k;
}

/* The context offers TCP and, besides self, nothing else: no shared-memory
 * and no RDMA transport. Endpoints are then made in UCX's peer-failure mode
 * (decision 071): their lanes are TCP either way, and in the default mode a
 * TCP connection that fails with sends still pending ends the process in an
 * assertion of UCX 1.13 (uct_tcp_ep_pending_purge) before Armada can say
 * which peer was lost. Elsewhere the default mode stays: the peer-failure
 * mode drops UCX's shared-memory transports between virtual nodes. */
static int tcp_only(ucp_context_h ctx)
{
    return tl_kinds(ctx) == TL_TCP;
}

int arm_net_predict_stream(arm_net_t *net, int other_hosts)
{
    unsigned k = tl_kinds(net->ctx);
    return (k & TL_TCP) && !(k & TL_RDMA) && (other_hosts || !(k & TL_SHM));
}

int arm_net_may_amo_native(arm_net_t *net)
{
    /* Transports whose atomics UCX emulates or does with the CPU. */
    static const char *const cpu_tls[] = { "tcp", "posix", "sysv", "cma", "knem", "xpmem",
                                           "self", NULL };
    char res[2048];
    if (resources_of(net->ctx, res, sizeof res) <= 0)
        return 0;
    char *save = NULL;
    for (char *r = strtok_r(res, " ", &save); r; r = strtok_r(NULL, " ", &save))
        if (!tl_is(r, strcspn(r, "/"), cpu_tls))
            return 1;
    return 0;
}

int arm_net_list_resources(char *buf, size_t len)
{
    ucp_params_t up;
    ucp_config_t *cfg;
    ucp_context_h ctx;
    memset(&up, 0, sizeof up);
    up.field_mask = UCP_PARAM_FIELD_FEATURES;
    up.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM;
    if (len == 0 || ucp_config_read(NULL, NULL, &cfg) != UCS_OK)
        return -1;
    ucs_status_t st = ucp_init(&up, cfg, &ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK)
        return -1;
    int n = resources_of(ctx, buf, len);
    ucp_cleanup(ctx);
    return n;
}

arm_net_worker_t *arm_net_client_worker(arm_net_t *net) { return &net->client; }
arm_net_worker_t *arm_net_server_worker(arm_net_t *net) { return net->server; }
int arm_net_is_leader(const arm_net_t *net) { return net->leader; }
int arm_net_worker_efd(const arm_net_worker_t *w) { return w->efd; }

/* ---- workers ------------------------------------------------------------ */

static arm_status_t worker_create(arm_net_t *net, arm_net_worker_t *w, int kind)
{
    ucp_worker_params_t wp;
    ucs_status_t st;

    memset(w, 0, sizeof *w);
    w->net = net;
    w->kind = kind;
    w->efd = -1;
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = (kind == ARM_NET_WORKER_SERVER && net->server_worker_mt)
                         ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE;
    st = ucp_worker_create(net->ctx, &wp, &w->h);
    if (st != UCS_OK)
        return arm_net_ucs_error("ucp_worker_create", st);
    st = ucp_worker_get_efd(w->h, &w->efd);
    if (st != UCS_OK) {
        ucp_worker_destroy(w->h);
        w->h = NULL;
        return arm_net_ucs_error("ucp_worker_get_efd", st);
    }
    return ARM_OK;
}

static void worker_destroy(arm_net_worker_t *w)
{
    if (w->h)
        ucp_worker_destroy(w->h);
    w->h = NULL;
}

/* ---- init / finalize ---------------------------------------------------- */

static arm_status_t check_params(const arm_net_params_t *p)
{
    if (p->nproc <= 0 || p->rank < 0 || p->rank >= p->nproc || p->nnodes <= 0 ||
        p->node_of == NULL || p->leader_of_node == NULL || p->allgather == NULL) {
        arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "arm_net_init: incomplete parameters");
        return ARM_ERR_INVALID_ARG;
    }
    for (int r = 0; r < p->nproc; r++) {
        if (p->node_of[r] < 0 || p->node_of[r] >= p->nnodes) {
            arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "arm_net_init: node_of[%d]=%d out of range",
                    r, p->node_of[r]);
            return ARM_ERR_INVALID_ARG;
        }
    }
    for (int n = 0; n < p->nnodes; n++) {
        int l = p->leader_of_node[n];
        if (l < 0 || l >= p->nproc || p->node_of[l] != n) {
            arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "arm_net_init: leader_of_node[%d]=%d invalid",
                    n, l);
            return ARM_ERR_INVALID_ARG;
        }
    }
    return ARM_OK;
}

/* UCX's shared-memory transports (posix, sysv) each take 512 receive
 * buffers of 8 KiB when a worker opens them, and write to each: 4 MiB of
 * RSS and most of a worker's creation time, for each of a process's workers
 * (client, and server under virtual nodes), before any message exists. A
 * pool that starts at 32 buffers and grows by 32 as messages are held costs
 * a process what it uses (decision 097). The setting is the mm transports'
 * own name in UCX 1.13's tables (UCX_POSIX_ and UCX_SYSV_RX_BUFS_GROW in the
 * environment); a value the user gave in the environment wins. */
static void small_receive_pools(ucp_config_t *cfg)
{
    if (getenv("UCX_POSIX_RX_BUFS_GROW") || getenv("UCX_SYSV_RX_BUFS_GROW") ||
        getenv("UCX_MM_RX_BUFS_GROW"))
        return;
    ucs_status_t st = ucp_config_modify(cfg, "MM_RX_BUFS_GROW", "32");
    if (st != UCS_OK)
        arm_log(ARM_LOG_DEBUG, ARM_NET_SUBSYS, "UCX does not take MM_RX_BUFS_GROW: %s",
                ucs_status_string(st));
}

/* Whether the host has an RDMA device (InfiniBand, RoCE, iWARP). */
static int has_rdma_device(void)
{
    DIR *d = opendir("/sys/class/infiniband");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)))
        found = e->d_name[0] != '.';
    if (d)
        closedir(d);
    return found;
}

/* Whether every transport UCX_TLS names (or excludes) is one of those that
 * need no loadable module: TCP, shared memory, self. */
static int tls_without_modules(const char *tls)
{
    static const char *const plain[] = { "tcp", "self", "posix", "sysv", "shm", "sm", "mm",
                                         "memory", NULL };
    char buf[256];
    snprintf(buf, sizeof buf, "%s", tls[0] == '^' ? tls + 1 : tls);
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int known = 0;
        for (int i = 0; plain[i] && !known; i++)
            known = strcmp(t, plain[i]) == 0;
        if (!known)
            return 0;
    }
    return 1;
}

/* UCX loads every module it has when the first context starts: the
 * InfiniBand and RDMA connection-manager ones map libibverbs, a device
 * driver and libnl on a host with no such device. Armada connects by worker
 * address (no connection manager), so it leaves out rdmacm, and ib where
 * the host has no RDMA device (decision 097). cma stays: without it, UCX
 * 1.13's TCP progress crashed in 4 of 10 runs of mpi.malloc between virtual
 * nodes of one host. The module set is UCX's, once per process; modules
 * already loaded (by MPI's own UCX) stay. A UCX_MODULES the user gave, or a
 * UCX_TLS naming another transport, wins. */
static void skip_unused_modules(void)
{
    const char *tls = getenv("UCX_TLS");
    if (getenv("UCX_MODULES") || (tls && tls[0] && !tls_without_modules(tls)))
        return;
    const char *deny = has_rdma_device() ? "^rdmacm" : "^rdmacm,ib";
    ucs_status_t st = ucs_global_opts_set_value("MODULES", deny);
    if (st != UCS_OK)
        arm_log(ARM_LOG_DEBUG, ARM_NET_SUBSYS, "UCX does not take MODULES=%s: %s", deny,
                ucs_status_string(st));
}

static arm_status_t context_create(arm_net_t *net)
{
    ucp_config_t *cfg;
    ucp_params_t up;
    ucs_status_t st;
    int ppn = 0;

    for (int r = 0; r < net->nproc; r++)
        ppn += net->node_of[r] == net->my_node;
    skip_unused_modules();
    st = ucp_config_read(NULL, NULL, &cfg);
    if (st != UCS_OK)
        return arm_net_ucs_error("ucp_config_read", st);
    /* Armada's replies up to 64 KiB go eagerly: UCX's automatic threshold on
     * TCP (about 8 KiB) made 8-32 KiB gets 3-10x slower (53-200 us against
     * 16-18 us) and did not help its shared-memory transports either. A
     * UCX_RNDV_THRESH set by the user wins. */
    if (!getenv("UCX_RNDV_THRESH"))
        ucp_config_modify(cfg, "RNDV_THRESH", "65536");
    small_receive_pools(cfg);
    memset(&up, 0, sizeof up);
    up.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                    UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_ESTIMATED_NUM_PPN;
    up.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 |
                  UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    up.mt_workers_shared = 1;    /* client and server workers run in two threads */
    up.estimated_num_eps = (size_t)net->nproc;
    up.estimated_num_ppn = (size_t)ppn;
    st = ucp_init(&up, cfg, &net->ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK)
        return arm_net_ucs_error("ucp_init", st);
    net->peer_errors = tcp_only(net->ctx);
    return ARM_OK;
}

/* Every endpoint slot knows its worker, kind and peer before any is made. */
static void init_endpoint_slots(arm_net_t *net)
{
    for (int n = 0; n < net->nnodes; n++) {
        net->to_server[n].worker = &net->client;
        net->to_server[n].kind = ARM_NET_EP_TO_SERVER;
        net->to_server[n].peer = n;
    }
    for (int r = 0; r < net->nproc; r++) {
        net->to_client[r].worker = net->server;
        net->to_client[r].kind = ARM_NET_EP_TO_CLIENT;
        net->to_client[r].peer = r;
    }
    for (int n = 0; n < net->nnodes; n++) {
        net->srv_to_srv[n].worker = net->server;
        net->srv_to_srv[n].kind = ARM_NET_EP_SRV_TO_SRV;
        net->srv_to_srv[n].peer = n;
    }
}

arm_status_t arm_net_init(const arm_net_params_t *p, arm_net_t **net_p)
{
    arm_net_t *net;
    arm_status_t ret = check_params(p);

    if (ret != ARM_OK)
        return ret;
    net = calloc(1, sizeof *net);
    if (net == NULL)
        return ARM_ERR_NO_MEMORY;
    net->nproc = p->nproc;
    net->rank = p->rank;
    net->nnodes = p->nnodes;
    net->allgather = p->allgather;
    net->ibarrier_start = p->ibarrier_start;
    net->ibarrier_test = p->ibarrier_test;
    net->cb_ctx = p->cb_ctx;
    net->finalize_timeout_ms = p->finalize_timeout_ms > 0 ? p->finalize_timeout_ms : 5000;
    net->server_worker_mt = p->server_worker_mt;
    arm_net_list_init(&net->regs);
    arm_net_list_init(&net->rkeys);
    net->node_of = malloc(sizeof(int) * (size_t)p->nproc);
    net->leader_of_node = malloc(sizeof(int) * (size_t)p->nnodes);
    net->to_server = calloc((size_t)p->nnodes, sizeof *net->to_server);
    net->to_client = calloc((size_t)p->nproc, sizeof *net->to_client);
    net->srv_to_srv = calloc((size_t)p->nnodes, sizeof *net->srv_to_srv);
    if (!net->node_of || !net->leader_of_node || !net->to_server || !net->to_client ||
        !net->srv_to_srv) {
        ret = ARM_ERR_NO_MEMORY;
        goto err_free;
    }
    memcpy(net->node_of, p->node_of, sizeof(int) * (size_t)p->nproc);
    memcpy(net->leader_of_node, p->leader_of_node, sizeof(int) * (size_t)p->nnodes);
    net->my_node = net->node_of[net->rank];
    net->leader = net->leader_of_node[net->my_node] == net->rank;

    ret = context_create(net);
    if (ret != ARM_OK)
        goto err_free;
    ret = worker_create(net, &net->client, ARM_NET_WORKER_CLIENT);
    if (ret != ARM_OK)
        goto err_ctx;
    if (net->leader) {
        ret = worker_create(net, &net->server_storage, ARM_NET_WORKER_SERVER);
        if (ret != ARM_OK)
            goto err_client;
        net->server = &net->server_storage;
    }
    init_endpoint_slots(net);
    ret = arm_net_conn_listen(&net->client);
    if (ret == ARM_OK && net->server)
        ret = arm_net_conn_listen(net->server);
    if (ret == ARM_OK)
        ret = arm_net_conn_exchange(net, p);
    if (ret != ARM_OK)
        goto err_server;
    if (p->connect_eager) {
        ret = arm_net_ep_connect_eager(net);
        if (ret != ARM_OK)
            goto err_eps;
    }
    *net_p = net;
    return ARM_OK;

err_eps:
    arm_net_ep_close_all(net);
err_server:
    arm_net_conn_free(net);
    if (net->server)
        worker_destroy(net->server);
err_client:
    worker_destroy(&net->client);
err_ctx:
    ucp_cleanup(net->ctx);
err_free:
    free(net->to_client);
    free(net->to_server);
    free(net->srv_to_srv);
    free(net->leader_of_node);
    free(net->node_of);
    free(net);
    return ret;
}

static int barrier(arm_net_t *net)
{
    char one = 1;
    char *all = malloc((size_t)net->nproc);
    int rc = all ? net->allgather(net->cb_ctx, &one, all, 1) : -1;
    free(all);
    return rc;
}

arm_status_t arm_net_finalize(arm_net_t *net)
{
    arm_status_t ret = ARM_OK;

    if (net == NULL)
        return ARM_OK;
    /* Everyone stops issuing before anyone closes. */
    if (barrier(net) != 0) {
        arm_log(ARM_LOG_WARN, ARM_NET_SUBSYS, "finalize: bootstrap barrier failed");
        ret = ARM_ERR_TRANSPORT;
    }
    int nleft = 0;
    while (net->rkeys.next != &net->rkeys) {
        arm_net_rkey_destroy((arm_net_rkey_t *)net->rkeys.next);
        nleft++;
    }
    if (nleft)
        arm_log(ARM_LOG_DEBUG, ARM_NET_SUBSYS, "finalize: destroyed %d leftover rkeys", nleft);
    arm_net_ep_close_all(net);
    /* Nobody stops progressing, or destroys its workers, while a peer still
     * closes (flushes) an endpoint towards them. */
    if (ret == ARM_OK && net->ibarrier_start && net->ibarrier_test &&
        net->ibarrier_start(net->cb_ctx) == 0) {
        int done;
        while ((done = net->ibarrier_test(net->cb_ctx)) == 0) {
            int did = (int)ucp_worker_progress(net->client.h);
            if (net->server)
                did |= (int)ucp_worker_progress(net->server->h);
            if (!did)
                sched_yield();
        }
        if (done < 0)
            ret = ARM_ERR_TRANSPORT;
    } else if (ret == ARM_OK && barrier(net) != 0) {
        ret = ARM_ERR_TRANSPORT;
    }
    while (net->regs.next != &net->regs)
        arm_net_mem_dereg((arm_net_reg_t *)net->regs.next);
    if (net->server)
        worker_destroy(net->server);
    worker_destroy(&net->client);
    ucp_cleanup(net->ctx);
    arm_net_conn_free(net);
    free(net->to_client);
    free(net->to_server);
    free(net->srv_to_srv);
    free(net->leader_of_node);
    free(net->node_of);
    free(net);
    return ret;
}

/* ---- progress ----------------------------------------------------------- */

int arm_net_progress(arm_net_worker_t *w)
{
    return (int)ucp_worker_progress(w->h);
}

arm_status_t arm_net_wait(arm_net_worker_t *w, int timeout_ms)
{
    struct pollfd pfd;
    ucs_status_t st;
    int rc;

    if (ucp_worker_progress(w->h))
        return ARM_OK;
    st = ucp_worker_arm(w->h);
    if (st == UCS_ERR_BUSY)
        return ARM_OK;                /* events pending: progress them */
    if (st != UCS_OK)
        return arm_net_ucs_error("ucp_worker_arm", st);
    pfd.fd = w->efd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    rc = poll(&pfd, 1, timeout_ms);
    if (rc > 0 || (rc < 0 && errno == EINTR))
        return ARM_OK;
    if (rc == 0)
        return ARM_ERR_TIMEOUT;
    arm_log(ARM_LOG_ERROR, ARM_NET_SUBSYS, "poll on worker fd: %s", strerror(errno));
    return ARM_ERR_SYSTEM;
}

arm_status_t arm_net_arm(arm_net_worker_t *w)
{
    ucs_status_t st = ucp_worker_arm(w->h);
    if (st == UCS_ERR_BUSY)
        return ARM_INPROGRESS;
    return st == UCS_OK ? ARM_OK : arm_net_ucs_error("ucp_worker_arm", st);
}

arm_status_t arm_net_wakeup(arm_net_worker_t *w)
{
    ucs_status_t st = ucp_worker_signal(w->h);
    return st == UCS_OK ? ARM_OK : arm_net_ucs_error("ucp_worker_signal", st);
}

void arm_net_set_yield(arm_net_worker_t *w, int yield_us, int poll_yield)
{
    w->yield_s = yield_us > 0 ? 1e-6 * yield_us : 0.0;
    w->poll_yield = poll_yield > 0 ? poll_yield : 0;
}

int arm_net_idle(arm_net_worker_t *w, int *idle, double *since, int spins, int sleep_ms,
                 arm_status_t *st)
{
    int first = spins > 1 ? spins : 1;   /* the first step past the polls */
    if (++*idle < first) {
        if (w->poll_yield && *idle % w->poll_yield == 0)
            sched_yield();
        return 0;
    }
    if (w->yield_s > 0.0) {
        double now = arm_time_now();
        if (*idle == first)
            *since = now;
        if (now - *since < w->yield_s) {
            sched_yield();
            return 0;
        }
    }
    arm_status_t r = arm_net_wait(w, sleep_ms);
    if (st)
        *st = r;
    *idle = 0;
    return 1;
}

arm_status_t arm_net_comp_wait(arm_net_worker_t *w, arm_net_comp_t *c, int spin,
                               int timeout_ms)
{
    double deadline = timeout_ms < 0 ? 0.0 : arm_time_now() + 1e-3 * timeout_ms;
    double since = 0.0;
    int idle = 0;

    while (c->pending > 0) {
        if (ucp_worker_progress(w->h)) {
            idle = 0;
            continue;
        }
        if (timeout_ms >= 0 && idle >= spin && arm_time_now() > deadline)
            return ARM_ERR_TIMEOUT;
        arm_status_t st = ARM_OK;
        if (arm_net_idle(w, &idle, &since, spin, timeout_ms < 0 ? 100 : 10, &st) &&
            st != ARM_OK && st != ARM_ERR_TIMEOUT)
            return st;
    }
    return c->status;
}

/* ---- statistics --------------------------------------------------------- */

static void stats_add(arm_net_stats_t *s, const arm_net_stats_t *a)
{
    s->eps_to_server += a->eps_to_server;
    s->eps_to_client += a->eps_to_client;
    s->eps_srv_to_srv += a->eps_srv_to_srv;
    s->connect_time_s += a->connect_time_s;
    s->puts += a->puts;
    s->gets += a->gets;
    s->amos += a->amos;
    s->flushes += a->flushes;
    s->am_sent += a->am_sent;
    s->am_recv += a->am_recv;
    s->bytes_put += a->bytes_put;
    s->bytes_get += a->bytes_get;
    s->bytes_am_sent += a->bytes_am_sent;
    s->mapped += a->mapped;
}

void arm_net_get_stats(const arm_net_t *net, arm_net_stats_t *s)
{
    memset(s, 0, sizeof *s);
    stats_add(s, &net->client.stats);
    if (net->server)
        stats_add(s, &net->server->stats);
}

void arm_net_worker_stats(const arm_net_worker_t *w, arm_net_stats_t *s)
{
    memset(s, 0, sizeof *s);
    stats_add(s, &w->stats);
}
