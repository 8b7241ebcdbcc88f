/* Reference: the floor of the kernel's loopback TCP for the patterns of the
 * `vnode-tcp` configuration (processes of one host acting as nodes over
 * UCX_TLS=tcp,self). Plain sockets, no UCX, no MPI in the measured path:
 * whatever a runtime adds over TCP shows as the distance to these figures.
 * Same RESULT lines as the ARMCI suites.
 * Usage: ref-tcp SUITE [options], SUITE one of ops, fadd.
 *   ops:  get (8 B request, 8 B reply) and get1m (8 B request, 1 MiB reply),
 *         rank 0 -> rank P-1
 *   fadd: ranks 1..P-1 each send an increment and wait for the old value of
 *         one counter kept by rank 0 (the exact final count is checked)
 * The serving rank answers from an epoll loop in its main thread; every
 * waiting side polls only when the host has a core per process, and
 * otherwise sleeps in the kernel, the policy Armada's client uses.
 * REF_TCP_WAIT=epoll makes a polling client test its socket with
 * epoll_wait before each recv, as an event-driven runtime over many
 * sockets does (UCX's TCP transport among them), instead of trying recv
 * directly: the distance between the two is what that structure costs. */
#define _GNU_SOURCE
#include "bench_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <mpi.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

enum { REQ_GET = 1, REQ_FADD = 2, REQ_STOP = 3, REQ_GET1M = 4 };

typedef struct msg {
    int64_t op;
    int64_t value;
} msg_t;

static int spin;                       /* poll before sleeping */
static int wait_ep = -1;               /* client: epoll set of its socket, or -1 */

static void die(const char *what)
{
    fprintf(stderr, "ref-tcp: %s: %s\n", what, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t r = send(fd, p, n, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            die("send");
        p += r;
        n -= (size_t)r;
    }
}

/* Returns 0 when the peer closed before a whole message arrived. */
static int recv_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    int idle = 0;
    while (n > 0) {
        int polling = spin && idle < 4000;
        if (polling && wait_ep >= 0) {
            struct epoll_event ev;
            int k = epoll_wait(wait_ep, &ev, 1, 0);
            if (k < 0 && errno != EINTR)
                die("epoll_wait");
            if (k <= 0) {
                idle++;
                continue;
            }
        }
        ssize_t r = recv(fd, p, n, polling ? MSG_DONTWAIT : 0);
        if (r > 0) {
            p += r;
            n -= (size_t)r;
            idle = 0;
        } else if (r == 0) {
            return 0;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            idle++;
        } else {
            die("recv");
        }
    }
    return 1;
}

static void no_delay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* The serving rank: answers every client until each has sent STOP. */
static int64_t serve(int lfd, int nclients)
{
    int ep = epoll_create1(0);
    if (ep < 0)
        die("epoll_create1");
    for (int i = 0; i < nclients; i++) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            die("accept");
        no_delay(fd);
        struct epoll_event e = { .events = EPOLLIN, .data.fd = fd };
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
    }
    int64_t counter = 0;
    int live = nclients, idle = 0;
    char *big = malloc(BENCH_BIG);
    if (!big)
        die("malloc");
    memset(big, 0x5e, BENCH_BIG);
    while (live > 0) {
        struct epoll_event ev[16];
        int n = epoll_wait(ep, ev, 16, spin && idle < 4000 ? 0 : -1);
        if (n < 0 && errno != EINTR)
            die("epoll_wait");
        idle = n > 0 ? 0 : idle + 1;
        for (int i = 0; i < n; i++) {
            int fd = ev[i].data.fd;
            msg_t m;
            if (!recv_all(fd, &m, sizeof m) || m.op == REQ_STOP) {
                epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
                close(fd);
                live--;
                continue;
            }
            msg_t r = { m.op, 0 };
            if (m.op == REQ_FADD) {
                r.value = counter;
                counter += m.value;
            } else {
                r.value = 0x5eed;   /* the 8 bytes "read" */
            }
            send_all(fd, &r, sizeof r);
            if (m.op == REQ_GET1M)
                send_all(fd, big, BENCH_BIG);
        }
    }
    free(big);
    close(ep);
    return counter;
}

static char *big_dst;   /* where a get1m reply lands */

static inline int64_t call(int fd, int64_t op, int64_t value)
{
    msg_t m = { op, value }, r;
    send_all(fd, &m, sizeof m);
    if (!recv_all(fd, &r, sizeof r) || (op == REQ_GET1M && !recv_all(fd, big_dst, BENCH_BIG))) {
        errno = ECONNRESET;
        die("server closed");
    }
    return r.value;
}

/* One figure: latency of `op`, and for get1m its bandwidth too. */
static void ops_one(const bench_opts_t *o, int fd, int op)
{
    double lat[BENCH_MAX_REPS], bw[BENCH_MAX_REPS];
    int iters = bench_iters_for(o, op == REQ_GET1M ? BENCH_BIG : 8);
    int warm = o->warmup < iters ? o->warmup : iters;
    double tw = bench_now();
    for (int i = 0; i < warm; i++)
        call(fd, op, 0);
    iters = bench_iters_timed(o, iters, (bench_now() - tw) / (warm > 0 ? warm : 1));
    for (int r = 0; r < o->reps; r++) {
        double t0 = bench_now();
        for (int i = 0; i < iters; i++)
            call(fd, op, 0);
        lat[r] = (bench_now() - t0) * 1e6 / iters;
        bw[r] = (double)BENCH_BIG / lat[r];
    }
    if (op == REQ_GET1M) {
        bench_report(o, "get1m", BENCH_BIG, "MB/s", bw, o->reps, iters, NULL);
        bench_report(o, "get1m", BENCH_BIG, "us", lat, o->reps, iters, NULL);
    } else {
        bench_report(o, "get", 8, "us", lat, o->reps, iters, NULL);
    }
}

static void ops_client(const bench_opts_t *o, int fd)
{
    big_dst = malloc(BENCH_BIG);
    if (!big_dst)
        die("malloc");
    memset(big_dst, 0, BENCH_BIG);
    ops_one(o, fd, REQ_GET);
    ops_one(o, fd, REQ_GET1M);
    if (big_dst[0] != 0x5e || big_dst[BENCH_BIG - 1] != 0x5e) {
        fprintf(stderr, "ref-tcp: get1m delivered wrong bytes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(big_dst);
}

/* Ranks 1..P-1: the fadd_all figures of the ARMCI suite, same arithmetic. */
static long fadd_clients(const bench_opts_t *o, int fd, int origin, MPI_Comm clients)
{
    long done = 0;
    double per = 0.0, worst = 0.0;
    double t = bench_now();
    for (int i = 0; i < o->warmup; i++)
        call(fd, REQ_FADD, 1);
    per = (bench_now() - t) / (o->warmup > 0 ? o->warmup : 1);
    done += o->warmup;
    MPI_Allreduce(&per, &worst, 1, MPI_DOUBLE, MPI_MAX, clients);
    int iters = bench_iters_timed(o, o->iters, worst);
    bench_fadd_t f = { .origins = o->nproc - 1 };
    for (int r = 0; r < o->reps; r++) {
        MPI_Barrier(clients);
        double t0 = bench_now();
        for (int i = 0; i < iters; i++)
            call(fd, REQ_FADD, 1);
        double mine = bench_now() - t0;
        done += iters;
        bench_fadd_rep(&f, r, mine, iters, clients);
    }
    if (origin == 1)   /* the first client, rank 0 of clients, reports */
        bench_fadd_report(o, &f, iters);
    return done;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench_opts_t o;
    const char *suite = bench_parse_ref(&o, BENCH_IMPL, argc, argv);

    /* Loopback only: every rank must be on rank 0's host. */
    char host[MPI_MAX_PROCESSOR_NAME] = { 0 }, host0[MPI_MAX_PROCESSOR_NAME] = { 0 };
    int len = 0, same = 1, all_same = 1;
    MPI_Get_processor_name(host, &len);
    memcpy(host0, host, sizeof host);
    MPI_Bcast(host0, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    same = strcmp(host, host0) == 0;
    MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    int is_fadd = strcmp(suite, "fadd") == 0;
    if (o.nproc < 2 || !all_same || (!is_fadd && strcmp(suite, "ops") != 0)) {
        if (o.rank == 0)
            bench_skip(&o, "all", o.nproc < 2 ? "needs_2_processes"
                                  : !all_same ? "needs_one_host" : "unknown_suite");
        MPI_Finalize();
        return 0;
    }
    /* How a polling client tests its socket: recv (default) or epoll. */
    const char *w = getenv("REF_TCP_WAIT");
    int use_epoll = w && strcmp(w, "epoll") == 0;
    if (w && *w && !use_epoll && strcmp(w, "recv") != 0) {
        if (o.rank == 0)
            fprintf(stderr, "ref-tcp: REF_TCP_WAIT=%s: expected recv or epoll (rank %d)\n", w,
                    o.rank);
        MPI_Finalize();
        return 2;
    }
    /* A core per process (and nothing else running): poll; else sleep. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    spin = o.nproc <= cores;

    int server = is_fadd ? 0 : (o.target > 0 ? o.target : o.nproc - 1);
    int lfd = -1, port = 0;
    if (o.rank == server) {
        lfd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET };
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t al = sizeof a;
        if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 64) != 0 ||
            getsockname(lfd, (struct sockaddr *)&a, &al) != 0)
            die("listen");
        port = ntohs(a.sin_port);
    }
    MPI_Bcast(&port, 1, MPI_INT, server, MPI_COMM_WORLD);
    int client = is_fadd ? o.rank != 0 : o.rank == 0;
    int fd = -1;
    if (client) {
        fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
            die("connect");
        no_delay(fd);
        if (use_epoll) {
            struct epoll_event e = { .events = EPOLLIN, .data.fd = fd };
            wait_ep = epoll_create1(0);
            if (wait_ep < 0 || epoll_ctl(wait_ep, EPOLL_CTL_ADD, fd, &e) != 0)
                die("epoll");
        }
    }
    if (o.rank == 0)
        bench_info(&o, "client_wait=%s polling=%d", use_epoll ? "epoll" : "recv", spin);
    MPI_Comm clients;
    MPI_Comm_split(MPI_COMM_WORLD, client ? 0 : MPI_UNDEFINED, o.rank, &clients);

    int status = 0;
    long done = 0;
    int64_t counter = 0;
    if (o.rank == server) {
        counter = serve(lfd, is_fadd ? o.nproc - 1 : 1);
        close(lfd);
    } else if (client) {
        if (is_fadd)
            done = fadd_clients(&o, fd, o.rank, clients);
        else
            ops_client(&o, fd);
        msg_t stop = { REQ_STOP, 0 };
        send_all(fd, &stop, sizeof stop);
        close(fd);
        if (wait_ep >= 0)
            close(wait_ep);
    }
    if (is_fadd) {
        long total = 0;
        MPI_Reduce(&done, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (o.rank == 0)
            status = bench_check(&o, "fadd_all", total, (long)counter);
    }
    if (clients != MPI_COMM_NULL)
        MPI_Comm_free(&clients);
    fflush(stdout);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
