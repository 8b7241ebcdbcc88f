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
 * leader then meets the other nodes' leaders in an MPI_Ibarrier and releases
 * its node (decision 035). */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include "core/arm_core.h"
#include "util/arm_config.h"
#include "util/arm_log.h"
#include "util/arm_timer.h"

#define BARRIER_BUSY_SPINS 4
#define BARRIER_NAP_MIN_NS 2000L
#define BARRIER_NAP_FLAT_NS 100000L
#define BARRIER_NAP_MAX_NS 2000000L

typedef int (*barrier_done_fn)(void *arg);

/* ---- collective calls, counted ------------------------------------------------
 * Each process keeps, in its control block, how many world collective calls
 * it has entered and the kind of the last one, in one word so that a reader
 * never pairs a count with another call's kind. In a correct program the
 * n-th collective call is of the same kind on every process; the calls that
 * are equivalent count as one kind (every world barrier, whichever API it
 * came through; ARMCI_Malloc and ARMCI_Malloc_group over a group of every
 * process). A world barrier that naps checks its node's processes: one whose
 * count equals its own but whose kind differs is in another collective call
 * that will wait for ever for this one, and the job is stopped with both
 * named. Processes of other nodes are not visible here: such a mismatch
 * still waits. */
static _Thread_local int coll_depth;

static const char *const coll_names[] = {
    [ARM_COLL_NONE] = "no collective call",
    [ARM_COLL_BARRIER] = "a world barrier (ARMCI_Barrier, armci_msg_barrier)",
    [ARM_COLL_MALLOC] = "ARMCI_Malloc",
    [ARM_COLL_FREE] = "ARMCI_Free",
    [ARM_COLL_CREATE_MUTEXES] = "ARMCI_Create_mutexes",
    [ARM_COLL_DESTROY_MUTEXES] = "ARMCI_Destroy_mutexes",
    [ARM_COLL_FINALIZE] = "ARMCI_Finalize",
};

static _Atomic uint64_t *coll_word(const arm_core_t *c, int rank)
{
    return c->initialized && c->ctl && c->ctl[rank] ? &c->ctl[rank]->coll : NULL;
}

void arm_core_coll_begin(arm_coll_kind_t kind)
{
    if (coll_depth++ > 0)
        return;
    _Atomic uint64_t *w = coll_word(&arm_core, arm_core.me);
    if (!w)
        return;
    uint64_t n = (atomic_load_explicit(w, memory_order_relaxed) >> 8) + 1;
    atomic_store_explicit(w, n << 8 | (uint64_t)kind, memory_order_release);
}

void arm_core_coll_end(void)
{
    if (coll_depth > 0)
        coll_depth--;
}

static const char *coll_name(uint64_t word)
{
    unsigned k = (unsigned)(word & 0xff);
    return k < sizeof coll_names / sizeof coll_names[0] ? coll_names[k] : "an unknown call";
}

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
            arm_fatal((mine & 0xff) == ARM_COLL_BARRIER ? "ARMCI_Barrier" : coll_name(mine),
                      "rank %d's collective call number %llu is %s, while rank %d's is %s: "
                      "every process must make the same collective calls in the same order",
                      members[i], (unsigned long long)(mine >> 8), coll_name(theirs), c->me,
                      coll_name(mine));
    }
}

/* Waits until done(arg) is true, in the three phases above; with check,
 * each nap ends with a look at what the node's processes are in. */
static void barrier_wait(barrier_done_fn done, void *arg, int check)
{
    const arm_core_t *c = &arm_core;
    int busy_host = c->initialized && c->host_threads > c->host_cores;
    long spins = busy_host ? BARRIER_BUSY_SPINS : arm_config.poll_spins;
    double yield_s = (double)arm_config.yield_us * 1e-6;
    long nap_ns = BARRIER_NAP_MIN_NS;
    double t0 = 0.0;
    for (long i = 0; !done(arg); i++) {
        if (i < spins)
            continue;
        if (i == spins)
            t0 = arm_time_now();
        double waited = arm_time_now() - t0;
        if (waited < yield_s) {
            sched_yield();
            continue;
        }
        struct timespec ts = { 0, nap_ns };   /* below BARRIER_NAP_MAX_NS < 1 s */
        nanosleep(&ts, NULL);
        if (check)
            check_node_calls(c);
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

static void mpi_barrier(MPI_Comm comm)
{
    MPI_Request req;
    if (MPI_Ibarrier(comm, &req) != MPI_SUCCESS) {
        MPI_Barrier(comm);
        return;
    }
    barrier_wait(request_done, &req, 0);
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

/* Every process counts the barriers it enters in its own control block and
 * waits until each member of its node has entered this one: no release step,
 * so on a shared core a barrier costs one switch between the processes, as
 * MPI's own does. With several nodes, the leader then meets the other
 * leaders and releases its node. */
static void world_barrier(const arm_core_t *c)
{
    int leader = c->node_leader[c->my_node];
    arm_ctl_block_t *mine = c->ctl[c->me];
    node_wait_t w = { c, 0, 0 };
    w.epoch = atomic_fetch_add_explicit(&mine->bar_entered, 1, memory_order_acq_rel) + 1;
    if (c->nnodes == 1) {
        barrier_wait(node_entered, &w, 1);
        return;
    }
    if (c->me != leader) {
        barrier_wait(node_released, &w, 1);
        return;
    }
    barrier_wait(node_entered, &w, 1);
    mpi_barrier(c->masters_comm);
    atomic_store_explicit(&mine->bar_released, w.epoch, memory_order_release);
}

void arm_core_barrier(MPI_Comm comm)
{
    const arm_core_t *c = &arm_core;
    if (c->initialized && comm == c->world && c->ctl) {
        arm_core_coll_begin(ARM_COLL_BARRIER);
        world_barrier(c);
        arm_core_coll_end();
    } else
        mpi_barrier(comm);
}
