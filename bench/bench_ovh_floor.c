/* The transport floors of suite "overheads" (bench_ovh.h): an 8-byte copy
 * into a peer's shared segment, and a direct UCP put/get of 8 bytes. */
#define _POSIX_C_SOURCE 200809L
#include "bench_ovh.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define OVH_TSC 1
#endif
#ifdef BENCH_HAVE_UCP
#include <ucp/api/ucp.h>
#endif

int ovh_same_node(int a, int b)
{
    const char *ppn = getenv("ARMADA_PPN");
    if (ppn && atoi(ppn) > 0)
        return a / atoi(ppn) == b / atoi(ppn);
    MPI_Comm shm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    int me, mine[2] = { 0, 0 }, all[2] = { 0, 0 };
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int leader = me;
    MPI_Bcast(&leader, 1, MPI_INT, 0, shm);   /* the lowest world rank of my node */
    if (me == a) mine[0] = leader + 1;
    if (me == b) mine[1] = leader + 1;
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&shm);
    return all[0] == all[1];
}

double ovh_ghz(void)
{
    static double ghz = -1.0;
    if (ghz >= 0.0)
        return ghz;
    ghz = 0.0;
#ifdef OVH_TSC
    double t0 = bench_now();
    unsigned long long c0 = __rdtsc();
    while (bench_now() - t0 < 0.02)
        ;
    unsigned long long c1 = __rdtsc();
    ghz = (double)(c1 - c0) / ((bench_now() - t0) * 1e9);
#endif
    return ghz;
}

void ovh_report_ns(const bench_opts_t *o, const char *op, size_t size, double *ns, int n,
                   int iters, const char *extra)
{
    double cyc[BENCH_MAX_REPS];
    double g = ovh_ghz();
    for (int i = 0; i < n; i++)
        cyc[i] = ns[i] * g;
    bench_report(o, op, size, "ns", ns, n, iters, extra);
    if (g > 0.0) {
        char name[96];
        snprintf(name, sizeof name, "%s_cyc", op);
        bench_report(o, name, size, "cycles", cyc, n, iters, extra);
    }
}

int ovh_levels(int *out, int max_out, int first, int max)
{
    int n = 0;
    for (int v = first; v <= max && n < max_out; v = v ? v * 2 : 1)
        out[n++] = v;
    if (n > 0 && out[n - 1] != max && n < max_out && max > first)
        out[n++] = max;
    return n;
}

/* ---- shared memory: a plain 8-byte copy ------------------------------------------ */
static volatile long ovh_sink;

static int shm_floor(const bench_opts_t *o, int origin, int target, double *put_ns,
                     double *get_ns)
{
    MPI_Comm shm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Group wg, sg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(shm, &sg);
    int ranks[2] = { origin, target }, local[2];
    MPI_Group_translate_ranks(wg, 2, ranks, sg, local);
    MPI_Group_free(&wg);
    MPI_Group_free(&sg);
    int ok = local[0] != MPI_UNDEFINED && local[1] != MPI_UNDEFINED, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    char *base = NULL;
    MPI_Win win;
    MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, shm, &base, &win);
    double tp = 0.0, tg = 0.0;
    if (o->rank == origin && ok) {
        MPI_Aint sz;
        int du;
        char *peer = NULL;
        MPI_Win_shared_query(win, local[1], &sz, &du, &peer);
        long src = 0, dst = 0, sum = 0;
        const int n = o->iters * 10;
        double t0 = bench_now();
        for (int i = 0; i < n; i++) {
            src = i;
            memcpy(peer, &src, 8);
            atomic_thread_fence(memory_order_release);
        }
        tp = (bench_now() - t0) * 1e9 / n;
        t0 = bench_now();
        for (int i = 0; i < n; i++) {
            atomic_signal_fence(memory_order_seq_cst);
            memcpy(&dst, peer, 8);
            sum += dst;
        }
        tg = (bench_now() - t0) * 1e9 / n;
        ovh_sink = sum;
    }
    MPI_Win_free(&win);
    MPI_Comm_free(&shm);
    *put_ns = tp;
    *get_ns = tg;
    return all_ok ? 0 : -1;
}

/* ---- UCP: ucp_put_nbx + flush, ucp_get_nbx ---------------------------------------- */
#ifdef BENCH_HAVE_UCP
static void ucp_wait(ucp_worker_h w, ucs_status_ptr_t r)
{
    if (r == NULL || UCS_PTR_IS_ERR(r))
        return;
    while (ucp_request_check_status(r) == UCS_INPROGRESS)
        ucp_worker_progress(w);
    ucp_request_free(r);
}

struct ucp_side {
    ucp_context_h ctx;
    ucp_worker_h w;
    ucp_mem_h memh;
    void *buf;
};

static int ucp_side_open(struct ucp_side *s)
{
    ucp_params_t p;
    memset(&p, 0, sizeof p);
    p.field_mask = UCP_PARAM_FIELD_FEATURES;
    p.features = UCP_FEATURE_RMA;
    ucp_config_t *cfg;
    if (ucp_config_read(NULL, NULL, &cfg) != UCS_OK)
        return -1;
    ucs_status_t st = ucp_init(&p, cfg, &s->ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK)
        return -1;
    ucp_worker_params_t wp;
    memset(&wp, 0, sizeof wp);
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    if (ucp_worker_create(s->ctx, &wp, &s->w) != UCS_OK)
        return -1;
    ucp_mem_map_params_t mp;
    memset(&mp, 0, sizeof mp);
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                    UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    mp.address = NULL;
    mp.length = 4096;
    mp.flags = UCP_MEM_MAP_ALLOCATE;
    if (ucp_mem_map(s->ctx, &mp, &s->memh) != UCS_OK)
        return -1;
    ucp_mem_attr_t ma;
    ma.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
    ucp_mem_query(s->memh, &ma);
    s->buf = ma.address;
    return 0;
}

static void ucp_side_close(struct ucp_side *s)
{
    ucp_mem_unmap(s->ctx, s->memh);
    ucp_worker_destroy(s->w);
    ucp_cleanup(s->ctx);
}

/* The target serves (progresses its worker: TCP emulates RMA) until the
 * origin says it is done. */
static void ucp_target(struct ucp_side *s, int origin)
{
    void *rk;
    size_t rklen;
    ucp_rkey_pack(s->ctx, s->memh, &rk, &rklen);
    ucp_address_t *addr;
    size_t alen;
    ucp_worker_get_address(s->w, &addr, &alen);
    unsigned long long hdr[3] = { alen, rklen, (unsigned long long)(uintptr_t)s->buf };
    MPI_Send(hdr, 3, MPI_UNSIGNED_LONG_LONG, origin, 77, MPI_COMM_WORLD);
    MPI_Send(addr, (int)alen, MPI_BYTE, origin, 78, MPI_COMM_WORLD);
    MPI_Send(rk, (int)rklen, MPI_BYTE, origin, 79, MPI_COMM_WORLD);
    ucp_worker_release_address(s->w, addr);
    ucp_rkey_buffer_release(rk);
    MPI_Request done;
    MPI_Irecv(NULL, 0, MPI_BYTE, origin, 80, MPI_COMM_WORLD, &done);
    int flag = 0;
    for (unsigned i = 1; !flag; i++) {
        ucp_worker_progress(s->w);
        if (i % 64 == 0) {
            MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
            sched_yield();
        }
    }
}

static void ucp_origin(const bench_opts_t *o, struct ucp_side *s, int target, double *tp,
                       double *tg)
{
    unsigned long long hdr[3];
    MPI_Recv(hdr, 3, MPI_UNSIGNED_LONG_LONG, target, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char *addr = malloc(hdr[0]), *rkb = malloc(hdr[1]);
    MPI_Recv(addr, (int)hdr[0], MPI_BYTE, target, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(rkb, (int)hdr[1], MPI_BYTE, target, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ucp_ep_params_t ep_p;
    memset(&ep_p, 0, sizeof ep_p);
    ep_p.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep_p.address = (ucp_address_t *)addr;
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    ucp_ep_create(s->w, &ep_p, &ep);
    ucp_ep_rkey_unpack(ep, rkb, &rkey);
    ucp_request_param_t rp;
    memset(&rp, 0, sizeof rp);
    uint64_t raddr = hdr[2];
    long *lb = s->buf;
    for (int pass = 0; pass < 2; pass++) {   /* pass 0: warm-up */
        int n = pass ? o->iters : o->warmup;
        double t0 = bench_now();
        for (int i = 0; i < n; i++) {
            lb[0] = i;
            ucs_status_ptr_t r = ucp_put_nbx(ep, lb, 8, raddr, rkey, &rp);
            ucp_wait(s->w, r);
            ucp_wait(s->w, ucp_ep_flush_nbx(ep, &rp));
        }
        *tp = (bench_now() - t0) * 1e9 / n;
        t0 = bench_now();
        for (int i = 0; i < n; i++)
            ucp_wait(s->w, ucp_get_nbx(ep, lb + 1, 8, raddr, rkey, &rp));
        *tg = (bench_now() - t0) * 1e9 / n;
    }
    MPI_Send(NULL, 0, MPI_BYTE, target, 80, MPI_COMM_WORLD);
    ucp_rkey_destroy(rkey);
    ucp_request_param_t cp;
    memset(&cp, 0, sizeof cp);
    cp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    cp.flags = UCP_EP_CLOSE_FLAG_FORCE;
    ucp_wait(s->w, ucp_ep_close_nbx(ep, &cp));
    free(addr);
    free(rkb);
}

static int ucp_floor(const bench_opts_t *o, int origin, int target, double *put_ns,
                     double *get_ns)
{
    struct ucp_side s;
    int me = o->rank, part = me == origin || me == target;
    int ok = part ? ucp_side_open(&s) == 0 : 1, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (part && ok)
            ucp_side_close(&s);
        return -1;
    }
    *put_ns = *get_ns = 0.0;
    if (me == target)
        ucp_target(&s, origin);
    else if (me == origin)
        ucp_origin(o, &s, target, put_ns, get_ns);
    MPI_Barrier(MPI_COMM_WORLD);
    if (part)
        ucp_side_close(&s);
    return 0;
}
#endif

int ovh_floor(const bench_opts_t *o, int origin, int target, int ucp, double *put_ns,
              double *get_ns)
{
    *put_ns = *get_ns = 0.0;
    if (!ucp)
        return shm_floor(o, origin, target, put_ns, get_ns);
#ifdef BENCH_HAVE_UCP
    return ucp_floor(o, origin, target, put_ns, get_ns);
#else
    return -1;
#endif
}

void ovh_stack_rows(const bench_opts_t *o, int target, ovh_stack_rep_fn rep,
                    void (*sit_out)(void), void *arg)
{
    int ucp = !ovh_same_node(0, target), have = 1;
    double put[BENCH_MAX_REPS], get[BENCH_MAX_REPS];
    double fput[BENCH_MAX_REPS], fget[BENCH_MAX_REPS];
    bench_opts_t one = *o;
    one.reps = 1;
    for (int r = 0; r < o->reps; r++) {
        have &= ovh_floor(o, 0, target, ucp, &fput[r], &fget[r]) == 0;
        if (o->rank == 0)
            rep(&one, arg, &put[r], &get[r]);
        sit_out();
    }
    if (o->rank != 0)
        return;
    const char *extra = ucp ? "path=ucp" : "path=shm";
    ovh_report_ns(o, "stack_put", 8, put, o->reps, o->iters, extra);
    ovh_report_ns(o, "stack_get", 8, get, o->reps, o->iters, extra);
    if (!have) {
        bench_skip(o, "stack_floor", ucp ? "no_ucp" : "no_shared_window");
        return;
    }
    ovh_report_ns(o, "stack_put_floor", 8, fput, o->reps, o->iters, extra);
    ovh_report_ns(o, "stack_get_floor", 8, fget, o->reps, o->iters, extra);
    for (int r = 0; r < o->reps; r++) {
        put[r] -= fput[r];
        get[r] -= fget[r];
    }
    ovh_report_ns(o, "stack_put_over", 8, put, o->reps, o->iters, extra);
    ovh_report_ns(o, "stack_get_over", 8, get, o->reps, o->iters, extra);
}
