/* The progress agent (decision 056): one thread per process that carries
 * the process's non-blocking transfers to other nodes while the caller
 * computes.
 *
 * A non-blocking put, get, accumulate, strided or vector call that the
 * agent takes (arm_path_offload: from a size on, and every call to a node
 * that already has jobs queued, so that a node's calls keep their order)
 * copies its arguments, not its data, into a job and returns. The agent
 * thread runs the call's ordinary blocking protocol: the source stays the
 * caller's until Wait, as ARMCI allows, so the protocol sends from it
 * directly. The call's non-blocking entry (remote_nb.c) stays live until
 * the job is done, so Wait, Test, WaitProc and WaitAll work unchanged.
 *
 * The agent and the caller share the client's state under the client's
 * lock (remote_lock.c), each holding it only while it works: a wait drops
 * it while it sleeps on the worker's event descriptor (remote_wait.c), and
 * the agent sleeps on a condition variable when it has no job. No thread
 * spins. A blocking call, a fence or a lock to a node with jobs queued
 * first waits for them (arm_rem_agent_order). */
#define _GNU_SOURCE   /* sched_getcpu, pthread_setaffinity_np */
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <sched.h>
#include <sys/prctl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/remote_int.h"

_Thread_local int arm_rem_in_agent;

typedef struct arm_rem_agent {
    pthread_t thread;
    pthread_cond_t cv;          /* a job queued, or stop                    */
    pthread_cond_t done;        /* a job done                               */
    arm_rem_job_t ring[NB_MAX];
    unsigned head, tail;        /* jobs [head, tail) queued; head running   */
    int stop;
    int idle;                   /* asleep without a deadline: kick it       */
    cpu_set_t allowed;          /* the process's processors at the start    */
    int steer;                  /* more than one of them                    */
    int avoid;                  /* the processor the agent is kept off, -1  */
    /* The watch for acknowledgements (decision 080) naps on a mutex of its
     * own, so that its looks never contend for the client's lock. */
    pthread_mutex_t am;
    pthread_cond_t acv;
    int in_watch;               /* napping in the watch (atomic reads)      */
    int watch_stop;             /* under am: a job or the stop came         */
    int fresh;                  /* woken, or a job or batch done, since the
                                   last watch: linger in one (agent only)  */
    int woke;                   /* woken from the sleep without a deadline,
                                   or back from a watch: the sweep's count
                                   of writes is stale (decision 081)       */
} arm_rem_agent_t;

static arm_rem_agent_t agent_state;

static void run_job(arm_rem_job_t *j)
{
    switch (j->kind) {
    case ARM_JOB_PUT:
        arm_remote_put(j->call, j->src, j->slice, j->addr, j->n, j->proc);
        break;
    case ARM_JOB_GET:
        arm_remote_get(j->call, j->slice, j->addr, j->dst, j->n, j->proc);
        break;
    case ARM_JOB_ACC:
        arm_remote_acc(j->call, j->type, j->scale, j->src, j->slice, j->addr, j->n, j->proc);
        break;
    case ARM_JOB_STRIDED:
        arm_remote_strided(j->call, j->op, j->type, j->scale, j->src, j->src_stride, j->dst,
                           j->dst_stride, j->count, j->levels, j->proc);
        break;
    case ARM_JOB_VECTOR:
        arm_remote_vector(j->call, j->op, j->type, j->scale, (const void *const *)j->vec,
                          j->vec + j->vn, j->vn, j->n, j->proc);
        free(j->vec);
        break;
    }
}

/* The sweep's wait: ARMADA_BATCH_IDLE_US, doubled while writes keep
 * joining batches between its looks, to 1 ms (or the setting, if longer).
 * Once no batch is open the agent lingers in the watch (decision 080). */
#define SWEEP_MAX_NS 1000000L

static void deadline_in(struct timespec *ts, long ns)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_nsec += ns;
    while (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void sweep_nap(arm_rem_agent_t *ag, long ns)
{
    struct timespec ts;
    deadline_in(&ts, ns);
    pthread_cond_timedwait(&ag->cv, &arm_rc.lock, &ts);
}

/* Takes the answers already arrived, the servers' acknowledgements among
 * them: the caller's fence then finds the credits home without polling the
 * worker itself. A bounded number of passes: each may take one message. */
static void take_answers(void)
{
    int got = 0;
    for (int i = 0; i < 64 && arm_net_progress(arm_rc.w); i++)
        got = 1;
    if (got)
        arm_rem_wake_sleepers();
}

#define WATCH_FIRST_MIN_NS 100000L

/* The first nap of a watch: 4x the servers' idle wait, at least 100 us, at
 * most the sweep's longest. */
static long watch_first_ns(void)
{
    long nap = arm_config.fence_ack_us >= 0 ? 4000L * arm_config.fence_ack_us : SWEEP_MAX_NS;
    return nap < WATCH_FIRST_MIN_NS ? WATCH_FIRST_MIN_NS : nap > SWEEP_MAX_NS ? SWEEP_MAX_NS : nap;
}

/* Naps off the client's lock, on the agent's own mutex (decision 080): a
 * job or the stop ends them (watch_interrupt). */
static void own_naps_begin(arm_rem_agent_t *ag)
{
    pthread_mutex_lock(&ag->am);
    ag->watch_stop = 0;
    __atomic_store_n(&ag->in_watch, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ag->am);
}
static void own_naps_end(arm_rem_agent_t *ag)
{
    __atomic_store_n(&ag->in_watch, 0, __ATOMIC_RELEASE);
}
/* Returns whether a job or the stop came. */
static int own_nap(arm_rem_agent_t *ag, long ns)
{
    struct timespec ts;
    deadline_in(&ts, ns);
    pthread_mutex_lock(&ag->am);
    if (!ag->watch_stop)
        pthread_cond_timedwait(&ag->acv, &ag->am, &ts);
    int stop = ag->watch_stop;
    pthread_mutex_unlock(&ag->am);
    return stop;
}

/* A job or the stop came while the agent napped in the watch. Under the
 * client lock. */
static void watch_interrupt(arm_rem_agent_t *ag)
{
    if (!__atomic_load_n(&ag->in_watch, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&ag->am);
    ag->watch_stop = 1;
    pthread_cond_signal(&ag->acv);
    pthread_mutex_unlock(&ag->am);
}

/* The watch (decision 080), under the lock and with no batch open; returns
 * with the lock. A server acknowledges a client's writes once it has been
 * idle ARMADA_FENCE_ACK_US (decisions 058, 078); until somebody reads those
 * answers, the caller's next fence reads them itself, one receive per
 * target. The agent reads them while the caller is away from ARMCI.
 *
 * It naps on a mutex of its own, without the client's lock: first 4x the
 * servers' idle wait (at least 100 us), each later nap twice the one
 * before, to 1 ms. After a nap in which the caller entered ARMCI
 * (arm_rem_calls moved) it only naps again: the caller reads its answers
 * and sends its batches itself, and an agent that took the lock between
 * its calls would make it wait on a thread that the two cores may not run
 * at once (the hot-spot suite's 100 % vector puts took 1.5x as long when
 * the agent looked under the lock). Only after a whole nap without a call
 * does it look, if the lock is free: it takes the answers, and sends the
 * process's batch (nothing joined it while the caller was away). It leaves
 * the watch when a batch is still open (threads fill theirs without the
 * lock; the sweep takes those), or after WATCH_LINGER looks with nothing
 * owed: it lingers, so that a caller that writes and fences in a loop
 * does not signal it at every write (that cost the same suite's vector
 * puts 1.1-1.3x). A caller that keeps calling keeps it watching, one wake
 * per millisecond, without the lock and without signals. */
#define WATCH_LINGER 4
#define WATCH_BUSY_MAX_NS 8000000L

/* A batch still open that the sweep (on) should take: the watch ends. */
static int batch_left(void)
{
    return arm_config.batch_idle_us >= 0 && arm_rem_batch_open();
}
static void watch(arm_rem_agent_t *ag)
{
    long nap = watch_first_ns();
    int linger = WATCH_LINGER, busy = 0;
    unsigned seen = __atomic_load_n(&arm_rem_calls, __ATOMIC_RELAXED);
    unsigned long appends = arm_rem_batch_appends();
    own_naps_begin(ag);
    int d = arm_rem_lock_release_all(), held = 0;
    for (;;) {
        if (own_nap(ag, nap))
            break;
        unsigned now = __atomic_load_n(&arm_rem_calls, __ATOMIC_RELAXED);
        if (now != seen) {
            /* A caller that keeps calling and owes nothing (gets, say)
             * needs no watch, and the wakes cost it: every WATCH_LINGER
             * busy naps the agent checks, if the lock is free, and leaves
             * to sleep when nothing is owed. While the lock stays taken
             * its naps grow to WATCH_BUSY_MAX_NS (an 8-byte get over TCP
             * took 0.2-0.4 us longer with the agent waking each
             * millisecond). Waiting for the lock instead made the caller
             * wait on the agent: the hot-spot suite's vector puts 1.5x. */
            seen = now;
            /* One write joined the batch since the last wake: a lone
             * write, perhaps before a computation. The next nap is the
             * first again, so that the look after it sends the batch
             * (decision 081). More than one is a stream: its batches fill
             * and leave by themselves. */
            unsigned long a = arm_rem_batch_appends();
            int lone = a - appends == 1;
            appends = a;
            if (lone) {
                busy = 0;
                nap = watch_first_ns();
                continue;
            }
            long cap = SWEEP_MAX_NS;
            if (++busy >= WATCH_LINGER) {
                if (arm_rem_lock_try(d)) {
                    busy = 0;
                    if (batch_left() ||
                        !(arm_config.fence_ack_us >= 0 && arm_rem_writes_owed())) {
                        held = 1;
                        break;
                    }
                    arm_rem_lock_release_all();
                } else {
                    cap = WATCH_BUSY_MAX_NS;
                }
            }
            nap = nap * 2 > cap ? cap : nap * 2;
            continue;
        }
        busy = 0;
        appends = arm_rem_batch_appends();
        nap = nap * 2 > SWEEP_MAX_NS ? SWEEP_MAX_NS : nap * 2;
        if (!arm_rem_lock_try(d))
            continue;
        take_answers();
        if (arm_config.batch_idle_us >= 0)
            arm_rem_batch_send_idle("ARMCI (progress agent)");
        if (batch_left()) {
            held = 1;
            break;
        }
        if (arm_config.fence_ack_us >= 0 && arm_rem_writes_owed()) {
            linger = WATCH_LINGER;
        } else if (--linger <= 0) {
            held = 1;
            break;
        }
        arm_rem_lock_release_all();
    }
    own_naps_end(ag);
    ag->woke = 1;   /* the sweep's count of writes is stale */
    if (!held)
        arm_rem_lock_restore(d);
}

/* A lone write opened the process's batch (nothing else joined it since
 * the sweep's last look): rather than hold it the sweep's whole nap, the
 * agent looks off the client's lock, like the watch, and sends the batch
 * at the first look after a whole nap in which the caller stayed out of
 * ARMCI (decision 081). The naps start at the watch's first and double
 * after each nap with a call, within total. Returns with the lock; *spent
 * is the time napped, and the result whether the batch left or a job or
 * the stop came. */
static int batch_early(arm_rem_agent_t *ag, long total, long *spent)
{
    long nap = watch_first_ns();
    *spent = 0;
    if (2 * nap > total || !arm_rc.batch)
        return 0;
    unsigned seen = __atomic_load_n(&arm_rem_calls, __ATOMIC_RELAXED);
    own_naps_begin(ag);
    int d = arm_rem_lock_release_all(), held = 0, done = 0;
    while (*spent + nap < total) {
        if (own_nap(ag, nap)) {
            done = 1;
            break;
        }
        *spent += nap;
        unsigned now = __atomic_load_n(&arm_rem_calls, __ATOMIC_RELAXED);
        if (now != seen) {
            seen = now;
            nap *= 2;
            continue;
        }
        if (!arm_rem_lock_try(d))
            continue;
        held = 1;
        done = arm_rem_batch_send_idle("ARMCI (progress agent)");
        break;
    }
    own_naps_end(ag);
    if (!held)
        arm_rem_lock_restore(d);
    return done;
}

/* With no job: sweeps the open batches and naps (decision 076), watches
 * while writes are owed or it was just woken (decision 080), or sleeps
 * until a job, a batch or a write comes. The sweep sends without waiting
 * (remote_batch.c), so the lock stays held through it. */
static void agent_idle(arm_rem_agent_t *ag, long *nap)
{
    const long base = 1000L * arm_config.batch_idle_us;
    take_answers();
    if (base >= 0) {
        const long max = base > SWEEP_MAX_NS ? base : SWEEP_MAX_NS;
        int busy;
        arm_rem_batch_sweep("ARMCI (progress agent)", &busy);
        if (arm_rem_batch_open()) {
            *nap = !busy ? base : *nap * 2 > max ? max : *nap * 2;
            long spent = 0;
            int lone = !busy || ag->woke;
            ag->woke = 0;
            if (lone && batch_early(ag, *nap, &spent)) {
                ag->fresh = 1;
                return;
            }
            sweep_nap(ag, *nap - spent > 0 ? *nap - spent : 1000);
            ag->fresh = 1;
            return;
        }
        *nap = base;
    }
    if (ag->fresh || (arm_config.fence_ack_us >= 0 && arm_rem_writes_owed())) {
        ag->fresh = 0;
        watch(ag);
        return;
    }
    ag->idle = 1;
    pthread_cond_wait(&ag->cv, &arm_rc.lock);
    ag->idle = 0;
    ag->fresh = 1;
    ag->woke = 1;
}

/* Only an agent asleep without a deadline needs the signal: a watching one
 * sees the batch at its next look. */
void arm_rem_agent_kick(void)
{
    if (arm_rc.agent && agent_state.idle && !arm_rem_in_agent && arm_config.batch_idle_us >= 0) {
        agent_state.idle = 0;
        pthread_cond_signal(&agent_state.cv);
    }
}

void arm_rem_agent_owed(void)
{
    if (arm_rc.agent && agent_state.idle && !arm_rem_in_agent && arm_config.fence_ack_us >= 0) {
        agent_state.idle = 0;
        pthread_cond_signal(&agent_state.cv);
    }
}

static void *agent_main(void *arg)
{
    arm_rem_agent_t *ag = arg;
    long nap = 1000L * arm_config.batch_idle_us;
    /* The sweep's naps may be tens of microseconds: the kernel's default
     * slack for a timed sleep (50 us) would more than double them. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    arm_rem_in_agent = 1;
    arm_rem_lock_take();
    for (;;) {
        if (ag->head == ag->tail && !ag->stop) {
            agent_idle(ag, &nap);
            continue;
        }
        if (ag->head == ag->tail)
            break;
        arm_rem_job_t *j = &ag->ring[ag->head % NB_MAX];
        /* Woken by the caller, the agent often lands on the caller's
         * processor and would run its job before the caller returns
         * (a zero-copy job never sleeps): it lets the caller go first. */
        sched_yield();
        run_job(j);
        int node = arm_core.node_of[j->proc];
        arm_rc.nb[j->nb].live--;
        arm_rc.nb_live--;
        arm_rc.nb[j->nb].jobs--;
        __atomic_sub_fetch(&arm_rc.agent_pending[node], 1, __ATOMIC_RELAXED);
        ag->head++;
        atomic_fetch_add_explicit(&arm_rc.agent_jobs, 1, memory_order_relaxed);
        pthread_cond_broadcast(&ag->done);
        arm_rem_wake_sleepers();
        ag->fresh = 1;
    }
    arm_rem_lock_drop();
    return NULL;
}

arm_status_t arm_rem_agent_start(void)
{
    arm_rem_agent_t *ag = &agent_state;
    memset(ag, 0, sizeof *ag);
    arm_rc.agent_pending = calloc((size_t)arm_core.nnodes, sizeof *arm_rc.agent_pending);
    pthread_condattr_t ca;   /* the sweep's naps count on the monotonic clock */
    if (!arm_rc.agent_pending || pthread_condattr_init(&ca) != 0)
        return ARM_ERR_NO_MEMORY;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&ag->cv, &ca);
    if (rc == 0 && (rc = pthread_cond_init(&ag->acv, &ca)) != 0)
        pthread_cond_destroy(&ag->cv);
    pthread_condattr_destroy(&ca);
    if (rc != 0)
        return ARM_ERR_NO_MEMORY;
    if (pthread_cond_init(&ag->done, NULL) != 0 || pthread_mutex_init(&ag->am, NULL) != 0) {
        pthread_cond_destroy(&ag->cv);
        pthread_cond_destroy(&ag->acv);
        return ARM_ERR_NO_MEMORY;
    }
    ag->avoid = -1;
    /* Only where the host has a core per process: on an oversubscribed
     * host the other cores run other processes' computation, and an agent
     * moved there takes its time from them (NAS FT, 4 processes on 2
     * cores over TCP: put-slabs 0.61x of mpi-alltoall steered, against
     * 0.73x before). */
    ag->steer = arm_core.host_size <= arm_core.host_cores &&
                sched_getaffinity(0, sizeof ag->allowed, &ag->allowed) == 0 &&
                CPU_COUNT(&ag->allowed) > 1;
    if (pthread_create(&ag->thread, NULL, agent_main, ag) != 0) {
        pthread_cond_destroy(&ag->cv);
        pthread_cond_destroy(&ag->acv);
        pthread_cond_destroy(&ag->done);
        pthread_mutex_destroy(&ag->am);
        return ARM_ERR_SYSTEM;
    }
    arm_rc.agent = ag;
    return ARM_OK;
}

/* Runs every queued job to its end, then ends the thread. */
void arm_rem_agent_stop(void)
{
    arm_rem_agent_t *ag = arm_rc.agent;
    if (!ag)
        return;
    arm_rem_enter();
    ag->stop = 1;
    pthread_cond_signal(&ag->cv);
    watch_interrupt(ag);
    arm_rem_leave();
    pthread_join(ag->thread, NULL);
    pthread_cond_destroy(&ag->cv);
    pthread_cond_destroy(&ag->acv);
    pthread_cond_destroy(&ag->done);
    pthread_mutex_destroy(&ag->am);
    arm_rc.agent = NULL;
    free(arm_rc.agent_pending);
    arm_rc.agent_pending = NULL;
}

int arm_rem_agent_takes(arm_path_family_t fam, size_t n, int node)
{
    if (!arm_rc.agent || arm_rem_in_agent || !arm_rem_nb_cur)
        return 0;
    return arm_rc.agent_pending[node] > 0 || arm_path_offload(fam, n, &arm_rc.ps);
}

int arm_rem_agent_busy(void)
{
    return arm_rc.agent && agent_state.head != agent_state.tail;
}

/* Sleeps until the agent finishes a job, without the lock (the caller
 * holds it, at any depth) and without touching the worker: the agent
 * progresses it meanwhile. No deadline of its own: the agent's waits on
 * other nodes have theirs. */
void arm_rem_agent_sleep(void)
{
    pthread_cond_wait(&agent_state.done, &arm_rc.lock);
}

static void wait_agent(const volatile unsigned *head, unsigned until, const volatile int *pending)
{
    while (pending ? *pending > 0 : *head != until)
        arm_rem_agent_sleep();
}

/* Woken by the caller, the agent is placed by the kernel next to its waker,
 * on the caller's processor, and a job of tens of microseconds then waits
 * for the computation that follows the call to end: the overlap is lost
 * (decision 068 measured 0 % hidden in about half the runs on 2 cores).
 * The agent is kept off the caller's current processor instead, when the
 * process may use more than one and the host is not oversubscribed; the
 * mask changes only when the caller has moved (sched_getcpu is a vDSO
 * read). Nothing spins. */
static void steer_agent(arm_rem_agent_t *ag)
{
    int cpu = ag->steer ? sched_getcpu() : -1;
    if (cpu < 0 || cpu == ag->avoid || !CPU_ISSET(cpu, &ag->allowed))
        return;
    cpu_set_t set = ag->allowed;
    CPU_CLR(cpu, &set);
    if (pthread_setaffinity_np(ag->thread, sizeof set, &set) == 0)
        ag->avoid = cpu;
}

/* Under the lock, inside a non-blocking call (arm_rem_nb_cur). */
void arm_rem_agent_submit(const arm_rem_job_t *job)
{
    arm_rem_agent_t *ag = arm_rc.agent;
    if (ag->tail - ag->head == NB_MAX)
        wait_agent(&ag->head, ag->tail - NB_MAX + 1, NULL);
    int i = arm_rem_nb_index();
    arm_rem_job_t *j = &ag->ring[ag->tail % NB_MAX];
    *j = *job;
    j->nb = i;
    arm_rc.nb[i].live++;
    arm_rc.nb_live++;
    arm_rc.nb[i].jobs++;
    arm_rc.nb[i].proc = job->proc;
    __atomic_add_fetch(&arm_rc.agent_pending[arm_core.node_of[job->proc]], 1, __ATOMIC_RELAXED);
    ag->tail++;
    steer_agent(ag);
    pthread_cond_signal(&ag->cv);
    watch_interrupt(ag);
}

void arm_rem_agent_drain(const char *call, int node)
{
    arm_rem_agent_t *ag = arm_rc.agent;
    if (!ag || arm_rem_in_agent)
        return;
    (void)call;
    if (node >= 0)
        wait_agent(NULL, 0, &arm_rc.agent_pending[node]);
    else
        wait_agent(&ag->head, ag->tail, NULL);
}
#endif /* ARMADA_HAVE_UCX */
