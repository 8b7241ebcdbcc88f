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
 * Over the world, the barrier runs through shared memory on each node: the
 * members count themselves in at the node leader's control block, the leader
 * waits for them, meets the other nodes' leaders in an MPI_Ibarrier, and
 * releases its node by advancing a generation count (decision 035). */
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
    arm_ctl_block_t *lead;
    uint32_t value;          /* arrivals awaited (leader), or the old generation */
} node_wait_t;

static int all_arrived(void *arg)
{
    node_wait_t *w = arg;
    return atomic_load_explicit(&w->lead->bar_arrived, memory_order_acquire) == w->value;
}

static int released(void *arg)
{
    node_wait_t *w = arg;
    return atomic_load_explicit(&w->lead->bar_gen, memory_order_acquire) != w->value;
}

/* The leader resets the count before it releases the node, so a member
 * that leaves and enters the next barrier at once counts into the next. */
static void world_barrier(arm_core_t *c)
{
    int leader = c->node_leader[c->my_node];
    node_wait_t w = { c->ctl[leader], 0 };
    if (c->me != leader) {
        w.value = atomic_load_explicit(&w.lead->bar_gen, memory_order_acquire);
        atomic_fetch_add_explicit(&w.lead->bar_arrived, 1, memory_order_acq_rel);
        barrier_wait(released, &w);
        return;
    }
    w.value = (uint32_t)c->node_size[c->my_node] - 1;
    barrier_wait(all_arrived, &w);
    atomic_store_explicit(&w.lead->bar_arrived, 0, memory_order_relaxed);
    if (c->nnodes > 1)
        mpi_barrier(c->masters_comm);
    atomic_fetch_add_explicit(&w.lead->bar_gen, 1, memory_order_acq_rel);
}

void arm_core_barrier(MPI_Comm comm)
{
    arm_core_t *c = &arm_core;
    if (c->initialized && comm == c->world && c->ctl)
        world_barrier(c);
    else
        mpi_barrier(comm);
}
