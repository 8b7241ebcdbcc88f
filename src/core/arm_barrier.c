/* ARMCI's barrier. MPI's blocking barrier spins (at best with sched_yield)
 * until the last process arrives. A process that waits there takes a core
 * from the communication servers, which are what the other processes are
 * waiting on, and on an oversubscribed host that halves their speed
 * (decision 010). So every wait here goes through three phases:
 *   - a few tests in a row (POLL_SPINS while the host has a core to spare for
 *     every process and server thread, else 4);
 *   - tests with sched_yield between them, for up to ARMADA_YIELD_US: a
 *     barrier whose processes all arrive together ends here, as fast as
 *     MPI's own;
 *   - naps between tests: from 2 us, doubling to 100 us, then an eighth of
 *     the time waited so far, at most 2 ms (decision 019). A long waiter was
 *     the first to arrive, and a late wake-up of an eighth of its wait keeps
 *     it first at the next barrier.
 * Over the world, the barrier runs through shared memory on each node: each
 * process counts the barriers it enters in its control block and waits until
 * every member of its node has entered this one; with several nodes, the
 * leader then meets the other nodes' leaders in a dissemination barrier
 * that also compares their collective calls (masters_meet, decision 089)
 * and releases its node (decision 035). A leader that has waited seconds
 * for another leader reads that process's collective-call word from its
 * node (look_leader, decision 091). */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include "core/arm_core.h"
#include "core/arm_mpi.h"
#include "core/arm_ops.h"
#include "util/arm_config.h"
#include "util/arm_log.h"
#include "util/arm_timer.h"

#define BARRIER_BUSY_SPINS 4
#define BARRIER_NAP_MIN_NS 2000L
#define BARRIER_NAP_FLAT_NS 100000L
#define BARRIER_NAP_MAX_NS 2000000L

typedef int (*barrier_done_fn)(void *arg);
/* Called after each nap with the seconds waited so far: a look at what the
 * processes waited for are doing (a mismatch stops the job there). */
typedef void (*barrier_look_fn)(void *arg, double waited);

/* ---- collective calls, counted ------------------------------------------------
 * Each process keeps, in a word of its own in shared memory that other nodes
 * can read by a get (arm_coll_block_t), how many world collective calls
 * it has entered and the kind of the last one, in one word so that a reader
 * never pairs a count with another call's kind. In a correct program the
 * n-th collective call is of the same kind on every process; the calls that
 * are equivalent count as one kind (every world barrier, whichever API it
 * came through; ARMCI_Malloc and ARMCI_Malloc_group over a group of every
 * process). Every counted call starts with a world barrier, and that
 * barrier compares the calls: once its node's processes have all entered,
 * a process compares its word with theirs, and the node leaders compare
 * theirs in the reduction that joins the nodes. A process whose count
 * equals another's but whose kind differs is in another collective call,
 * which would wait for ever for this one (or pair its MPI collectives with
 * the wrong ones): the job is stopped with both named (decisions 087, 089).
 * A barrier that naps also looks at its node's processes after each nap, and
 * a leader that waits long for another node's leader looks at that one's
 * word (decision 091): a process alone on its node in an armci_msg_*
 * collective, which waits in MPI, is found there. */
static _Thread_local int coll_depth;
static _Thread_local int coll_pending;   /* opened; its barrier not met yet */

static const char *const coll_names[] = {
    [ARM_COLL_NONE] = "no collective call",
    [ARM_COLL_BARRIER] = "a world barrier (ARMCI_Barrier, armci_msg_barrier)",
    [ARM_COLL_MALLOC] = "ARMCI_Malloc",
    [ARM_COLL_FREE] = "ARMCI_Free",
    [ARM_COLL_CREATE_MUTEXES] = "ARMCI_Create_mutexes",
    [ARM_COLL_DESTROY_MUTEXES] = "ARMCI_Destroy_mutexes",
    [ARM_COLL_FINALIZE] = "ARMCI_Finalize",
    [ARM_COLL_MSG_GOP] = "a world reduction (armci_msg_*gop, armci_msg_reduce)",
    [ARM_COLL_MSG_BCAST] = "a world broadcast (armci_msg_brdcst, armci_msg_bcast)",
    [ARM_COLL_MSG_SEL] = "armci_msg_sel",
};

static _Atomic uint64_t *coll_word(const arm_core_t *c, int rank)
{
    return c->initialized && c->coll && c->coll[rank] ? &c->coll[rank]->word : NULL;
}

static void world_barrier(const arm_core_t *c, uint64_t *vals, int n);

/* Counts a call of kind in this process's word; 0 when there is no word. */
static int coll_count(arm_coll_kind_t kind)
{
    _Atomic uint64_t *w = coll_word(&arm_core, arm_core.me);
    if (!w)
        return 0;
    uint64_t n = (atomic_load_explicit(w, memory_order_relaxed) >> 8) + 1;
    atomic_store_explicit(w, n << 8 | (uint64_t)kind, memory_order_release);
    return 1;
}

void arm_core_coll_open(arm_coll_kind_t kind)
{
    if (coll_depth++ > 0)
        return;
    coll_pending = coll_count(kind);
}

void arm_core_coll_note(arm_coll_kind_t kind)
{
    if (coll_depth == 0)
        (void)coll_count(kind);
}

int arm_core_coll_meet(uint64_t *vals, int n)
{
    if (!coll_pending)
        return 0;
    coll_pending = 0;
    world_barrier(&arm_core, vals, n);   /* compares this call with every process's */
    return 1;
}

void arm_core_coll_begin(arm_coll_kind_t kind)
{
    arm_core_coll_open(kind);
    arm_core_coll_meet(NULL, 0);
}

void arm_core_coll_end(void)
{
    if (coll_depth == 1)
        arm_core_coll_meet(NULL, 0);
    if (coll_depth > 0)
        coll_depth--;
}

static const char *coll_name(uint64_t word)
{
    unsigned k = (unsigned)(word & 0xff);
    return k < sizeof coll_names / sizeof coll_names[0] ? coll_names[k] : "an unknown call";
}

/* Stops the job: rank a's collective call (word wa) and rank b's (wb) do
 * not pair. call is the one this process stops in (word mine). */
static const char *coll_call(uint64_t mine)
{
    return (mine & 0xff) == ARM_COLL_BARRIER ? "ARMCI_Barrier" : coll_name(mine);
}

static _Noreturn void coll_mismatch(uint64_t mine, int a, uint64_t wa, int b, uint64_t wb)
{
    const char *call = coll_call(mine);
    if (wa >> 8 == wb >> 8)
        arm_fatal(call, "rank %d's collective call number %llu is %s, while rank %d's is %s: "
                  "every process must make the same collective calls in the same order",
                  a, (unsigned long long)(wa >> 8), coll_name(wa), b, coll_name(wb));
    arm_fatal(call, "rank %d is in its collective call number %llu, %s, while rank %d is in "
              "its number %llu, %s: every process must make the same collective calls in the "
              "same order", a, (unsigned long long)(wa >> 8), coll_name(wa), b,
              (unsigned long long)(wb >> 8), coll_name(wb));
}

/* The node's processes against this one: a process at the same count in
 * another kind of call. Counts that differ are not compared here: a process
 * released from a barrier on one node may already be in its next call. */
static void check_node_calls(const arm_core_t *c)
{
    _Atomic uint64_t *w = coll_word(c, c->me);
    if (!w)
        return;
    uint64_t mine = atomic_load_explicit(w, memory_order_relaxed);
    const int *members = c->node_members + c->node_first[c->my_node];
    for (int i = 0; i < c->node_size[c->my_node]; i++) {
        _Atomic uint64_t *o = coll_word(c, members[i]);
        if (!o || members[i] == c->me)
            continue;
        uint64_t theirs = atomic_load_explicit(o, memory_order_acquire);
        if (theirs >> 8 == mine >> 8 && (theirs & 0xff) != (mine & 0xff))
            coll_mismatch(mine, members[i], theirs, c->me, mine);
    }
}

static void look_node(void *arg, double waited)
{
    (void)arg;
    (void)waited;
    check_node_calls(&arm_core);
}

/* Waits until done(arg) is true, in the three phases above; with look,
 * each nap ends with look(arg, seconds waited). in_mpi: done tests MPI
 * requests. Where MPI itself yields the CPU in its progress when idle
 * (Open MPI on an oversubscribed host), a test of MPI requests has given
 * the CPU away already: a second yield would halve how often this process
 * looks, and made the leaders' meeting of 16 nodes 2x slower than
 * MPI_Barrier (decision 092). */
static void barrier_wait(barrier_done_fn done, void *arg, barrier_look_fn look, int in_mpi)
{
    const arm_core_t *c = &arm_core;
    int busy_host = c->initialized && c->host_threads > c->host_cores;
    long spins = busy_host ? BARRIER_BUSY_SPINS : arm_config.poll_spins;
    long yield_us = arm_config.barrier_yield_us >= 0 ? arm_config.barrier_yield_us
                                                     : arm_config.yield_us;
    double yield_s = (double)yield_us * 1e-6;
    long nap_ns = BARRIER_NAP_MIN_NS;
    double t0 = 0.0;
    for (long i = 0; !done(arg); i++) {
        if (i < spins)
            continue;
        if (i == spins)
            t0 = arm_time_now();
        double waited = arm_time_now() - t0;
        if (waited < yield_s) {
            if (!in_mpi || !c->mpi_yields)
                sched_yield();
            continue;
        }
        struct timespec ts = { 0, nap_ns };   /* below BARRIER_NAP_MAX_NS < 1 s */
        nanosleep(&ts, NULL);
        if (look)
            look(arg, waited);
        if (nap_ns < BARRIER_NAP_FLAT_NS) {
            nap_ns *= 2;
            continue;
        }
        nap_ns = (long)(waited * 1e9 / 8);
        if (nap_ns < BARRIER_NAP_FLAT_NS)
            nap_ns = BARRIER_NAP_FLAT_NS;
        if (nap_ns > BARRIER_NAP_MAX_NS)
            nap_ns = BARRIER_NAP_MAX_NS;
    }
}

static int request_done(void *arg)
{
    int done = 0;
    MPI_Test((MPI_Request *)arg, &done, MPI_STATUS_IGNORE);
    return done;
}

void arm_mpi_wait(MPI_Request *req)
{
    barrier_wait(request_done, req, NULL, 1);
}

static void mpi_barrier(MPI_Comm comm)
{
    arm_mpi_barrier(comm);
}

/* A round of the leaders' meeting (masters_meet): its receive and send,
 * and when to look next at the leader it waits for. */
typedef struct masters_wait {
    MPI_Request rq[2];
    const arm_core_t *c;
    int from;          /* the leader waited for, as a rank of masters_comm */
    uint64_t mine;     /* this process's collective-call word             */
    double next_look;  /* seconds waited at which to look at it next      */
} masters_wait_t;

static int requests_done(void *arg)
{
    masters_wait_t *w = arg;
    int done = 0;
    MPI_Testall(2, w->rq, &done, MPI_STATUSES_IGNORE);
    return done;
}

/* The first look at another node's leader, and the longest gap between two
 * later ones. A look may open a connection to a node the program never
 * touched (issue 22's on-demand connections), so only a wait no correct
 * program's barrier makes on a loaded host leads to one. */
#define LOOK_FIRST_S 2.0
#define LOOK_EVERY_S 5.0

/* A leader whose round has waited LOOK_FIRST_S reads the collective-call
 * word of the leader it waits for, by a get of 8 bytes (arm_coll_block_t):
 * its node's server answers, whatever the process is doing (decision 091).
 * At the same count in another kind of call, that process is in a
 * collective of its own (an armci_msg_* reduction in MPI, say), and alone
 * on its node, or no process of its node would be left to see it; it will
 * never send this round's message. The job is stopped with both named.
 * Later looks come at a growing interval, LOOK_EVERY_S at most. */
static void look_leader(void *arg, double waited)
{
    masters_wait_t *w = arg;
    const arm_core_t *c = w->c;
    if (waited < w->next_look || !c->coll_addr)
        return;
    double gap = waited / 2 > LOOK_EVERY_S ? LOOK_EVERY_S : waited / 2;
    w->next_look = waited + gap;
    MPI_Group masters, world;
    int peer = MPI_UNDEFINED;
    MPI_Comm_group(c->masters_comm, &masters);
    MPI_Comm_group(c->world, &world);
    MPI_Group_translate_ranks(masters, 1, &w->from, world, &peer);
    MPI_Group_free(&masters);
    MPI_Group_free(&world);
    if (peer == MPI_UNDEFINED || peer == c->me)
        return;
    uint64_t theirs = 0;
    arm_op_get_quiet(coll_call(w->mine),
                     (const void *)(c->coll_addr[peer] + offsetof(arm_coll_block_t, word)),
                     &theirs, sizeof theirs, peer);
    if (theirs >> 8 == w->mine >> 8 && (theirs & 0xff) != (w->mine & 0xff))
        coll_mismatch(w->mine, peer, theirs, c->me, w->mine);
}

#define MASTERS_TAG 0x4172   /* the leaders' communicator carries no other point-to-point */

/* The node leaders' meeting: a dissemination barrier (as MPI's Ibarrier)
 * whose messages carry each leader's collective-call word and its
 * complement, merged with MAX on the way, so that every leader ends with
 * the largest and the smallest word. A reduction through MPI_Iallreduce
 * cost ARMCI_Barrier 40 % more at 8 nodes than the Ibarrier it replaced;
 * this costs what the Ibarrier did (decision 089). Every process of a node
 * has been checked against its leader before, and no leader leaves before
 * the last round, so every word is the one of this barrier: any difference
 * is a mismatch. Only then are the words gathered, to name the ranks.
 * The messages also carry the values the call agrees on (vals, merged with
 * MAX too), and are as long whether there are any or not (decision 090). */
static void masters_meet(const arm_core_t *c, uint64_t *vals, int nvals)
{
    enum { WORDS = 2 + ARM_COLL_AGREE_MAX };   /* every message is as long (decision 090) */
    _Atomic uint64_t *w = coll_word(c, c->me);
    uint64_t mine = w ? atomic_load_explicit(w, memory_order_relaxed) : 0;
    uint64_t acc[WORDS] = { mine, ~mine };
    for (int k = 0; k < nvals; k++)
        acc[2 + k] = vals[k];
    int n, me;
    MPI_Comm_size(c->masters_comm, &n);
    MPI_Comm_rank(c->masters_comm, &me);
    for (int d = 1; d < n; d *= 2) {
        uint64_t got[WORDS];
        /* acc changes only once both requests have completed */
        masters_wait_t mw = { .c = c, .from = (me - d + n) % n, .mine = mine,
                              .next_look = LOOK_FIRST_S };
        MPI_Irecv(got, WORDS, MPI_UINT64_T, mw.from, MASTERS_TAG, c->masters_comm, &mw.rq[0]);
        MPI_Isend(acc, WORDS, MPI_UINT64_T, (me + d) % n, MASTERS_TAG, c->masters_comm,
                  &mw.rq[1]);
        barrier_wait(requests_done, &mw, look_leader, 1);
        for (int k = 0; k < WORDS; k++)
            if (got[k] > acc[k])
                acc[k] = got[k];
    }
    if (acc[0] == ~acc[1]) {
        for (int k = 0; k < nvals; k++)
            vals[k] = acc[2 + k];
        return;
    }
    uint64_t pair[2] = { mine, (uint64_t)c->me }, *all = malloc((size_t)n * sizeof pair);
    if (!all)
        arm_fatal(coll_name(mine), "the node leaders are in different collective calls");
    MPI_Allgather(pair, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, c->masters_comm);
    int hi = 0, lo = 0;   /* the leaders with the largest and the smallest word */
    for (int i = 1; i < n; i++) {
        if (all[2 * i] > all[2 * hi])
            hi = i;
        if (all[2 * i] < all[2 * lo])
            lo = i;
    }
    int rhi = (int)all[2 * hi + 1], rlo = (int)all[2 * lo + 1];
    uint64_t whi = all[2 * hi], wlo = all[2 * lo];
    free(all);
    if (rhi == c->me)
        coll_mismatch(mine, rlo, wlo, c->me, mine);
    if (rlo == c->me)
        coll_mismatch(mine, rhi, whi, c->me, mine);
    coll_mismatch(mine, rhi, whi, rlo, wlo);
}

typedef struct node_wait {
    const arm_core_t *c;
    uint32_t epoch;          /* the barrier waited for                       */
    int next;                /* node members before this one have entered it */
} node_wait_t;

/* Counters wrap: a is at or past b when their difference, signed, is >= 0. */
static int reached(_Atomic uint32_t *a, uint32_t b)
{
    return (int32_t)(atomic_load_explicit(a, memory_order_acquire) - b) >= 0;
}

static int node_entered(void *arg)
{
    node_wait_t *w = arg;
    const arm_core_t *c = w->c;
    const int *members = c->node_members + c->node_first[c->my_node];
    int n = c->node_size[c->my_node];
    for (; w->next < n; w->next++)
        if (!reached(&c->ctl[members[w->next]]->bar_entered, w->epoch))
            return 0;
    return 1;
}

static int node_released(void *arg)
{
    node_wait_t *w = arg;
    return reached(&w->c->ctl[w->c->node_leader[w->c->my_node]]->bar_released, w->epoch);
}

/* The largest of the node's members' values of barrier epoch. */
static void node_max(const arm_core_t *c, uint32_t epoch, uint64_t *vals, int n)
{
    const int *members = c->node_members + c->node_first[c->my_node];
    for (int i = 0; i < c->node_size[c->my_node]; i++) {
        const uint64_t *v = c->ctl[members[i]]->agree[epoch & 1];
        for (int k = 0; k < n; k++)
            if (v[k] > vals[k])
                vals[k] = v[k];
    }
}

/* Every process counts the barriers it enters in its own control block and
 * waits until each member of its node has entered this one: no release step,
 * so on a shared core a barrier costs one switch between the processes, as
 * MPI's own does. With several nodes, the leader then meets the other
 * leaders and releases its node.
 *
 * vals[0..n), when n > 0: made the largest over every process. Each
 * process posts its own before it counts itself in, by the barrier's
 * parity: a process that reads another's for this barrier has not yet
 * entered the next one, so the other cannot be past it, writing the slot
 * after next. A leader posts the result in its own slot before it
 * releases its node, which reads it there. */
static void world_barrier(const arm_core_t *c, uint64_t *vals, int n)
{
    int leader = c->node_leader[c->my_node];
    arm_ctl_block_t *mine = c->ctl[c->me];
    node_wait_t w = { c, 0, 0 };
    w.epoch = atomic_load_explicit(&mine->bar_entered, memory_order_relaxed) + 1;
    for (int k = 0; k < n; k++)
        mine->agree[w.epoch & 1][k] = vals[k];
    atomic_fetch_add_explicit(&mine->bar_entered, 1, memory_order_acq_rel);
    if (c->nnodes == 1) {
        barrier_wait(node_entered, &w, look_node, 0);
        check_node_calls(c);
        node_max(c, w.epoch, vals, n);
        return;
    }
    if (c->me != leader) {
        barrier_wait(node_released, &w, look_node, 0);
        for (int k = 0; k < n; k++)
            vals[k] = c->ctl[leader]->agree[w.epoch & 1][k];
        return;
    }
    barrier_wait(node_entered, &w, look_node, 0);
    check_node_calls(c);
    node_max(c, w.epoch, vals, n);
    masters_meet(c, vals, n);
    for (int k = 0; k < n; k++)
        mine->agree[w.epoch & 1][k] = vals[k];
    atomic_store_explicit(&mine->bar_released, w.epoch, memory_order_release);
}

void arm_core_barrier(MPI_Comm comm)
{
    const arm_core_t *c = &arm_core;
    if (c->initialized && comm == c->world && c->ctl) {
        if (coll_depth > 0) {
            /* inside a counted call: checked at its start, or this is that
             * start (the call had not met yet) */
            coll_pending = 0;
            world_barrier(c, NULL, 0);
        } else {
            arm_core_coll_begin(ARM_COLL_BARRIER);   /* the barrier itself */
            arm_core_coll_end();
        }
    } else
        mpi_barrier(comm);
}
