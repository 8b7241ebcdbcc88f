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
#include "util/arm_timer.h"

#define BARRIER_BUSY_SPINS 4
#define BARRIER_NAP_MIN_NS 2000L
#define BARRIER_NAP_FLAT_NS 100000L
#define BARRIER_NAP_MAX_NS 2000000L

typedef int (*barrier_done_fn)(void *arg);

/* Waits until done(arg) is true, in the three phases above. */
static void barrier_wait(barrier_done_fn done, void *arg)
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
    barrier_wait(request_done, &req);
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
        barrier_wait(node_entered, &w);
        return;
    }
    if (c->me != leader) {
        barrier_wait(node_released, &w);
        return;
    }
    barrier_wait(node_entered, &w);
    mpi_barrier(c->masters_comm);
    atomic_store_explicit(&mine->bar_released, w.epoch, memory_order_release);
}

void arm_core_barrier(MPI_Comm comm)
{
    const arm_core_t *c = &arm_core;
    if (c->initialized && comm == c->world && c->ctl)
        world_barrier(c);
    else
        mpi_barrier(comm);
}
