/* Names of segments in their short window between shm_open and the
 * collective unlink (decision 001), removed if SIGINT or SIGTERM ends the
 * process inside it (decision 034). The handler uses only async-signal-safe
 * calls (unlink, sigaction, raise) and then hands the signal on to whatever
 * handler was there before, or to the default action. */
#define _POSIX_C_SOURCE 200809L
#include "shm/arm_shm_seg.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GUARD_SLOTS 8
#define GUARD_PATH_MAX (ARM_SHM_NAME_MAX + 16)

enum { SLOT_FREE = 0, SLOT_WRITING = 1, SLOT_ARMED = 2 };

static struct {
    char path[GUARD_SLOTS][GUARD_PATH_MAX];   /* "/dev/shm/armada-..." */
    _Atomic int state[GUARD_SLOTS];
    struct sigaction prev_int, prev_term;
    _Atomic int installed;
    /* The handler may run on another thread while this process creates a
     * segment: `creating` brackets the shm_open, `ending` is set by the
     * handler first. Each side stores, then loads the other's flag (seq_cst),
     * so either the creator sees `ending` and creates nothing, or the
     * handler sees `creating` and waits for the name to exist before it
     * unlinks. */
    _Atomic int creating;
    _Atomic int ending;
} guard;

#define GUARD_WAIT_NAPS 200   /* at most 200 x 1 ms for a creation to finish */

int arm_shm_guard_create_begin(void)
{
    atomic_fetch_add(&guard.creating, 1);
    if (atomic_load(&guard.ending)) {
        atomic_fetch_sub(&guard.creating, 1);
        return 0;
    }
    return 1;
}

void arm_shm_guard_create_end(void) { atomic_fetch_sub(&guard.creating, 1); }

static void hand_on(int sig, siginfo_t *info, void *ctx)
{
    const struct sigaction *prev = sig == SIGINT ? &guard.prev_int : &guard.prev_term;
    if (prev->sa_flags & SA_SIGINFO) {
        if (prev->sa_sigaction)
            prev->sa_sigaction(sig, info, ctx);
        return;
    }
    if (prev->sa_handler == SIG_IGN)
        return;
    if (prev->sa_handler != SIG_DFL) {
        prev->sa_handler(sig);
        return;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);   /* blocked while this handler runs: delivered as it returns */
}

void arm_shm_guard_unlink_armed(void)
{
    for (int i = 0; i < GUARD_SLOTS; i++)
        if (atomic_load(&guard.state[i]) == SLOT_ARMED)
            unlink(guard.path[i]);
}

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
    atomic_store(&guard.ending, 1);
    /* A creation under way on another thread finishes first (bounded: on the
     * creating thread itself the signal arrived before or after shm_open,
     * and either way nothing is left to wait for). */
    struct timespec nap = { 0, 1000000 };
    for (int i = 0; i < GUARD_WAIT_NAPS && atomic_load(&guard.creating); i++)
        nanosleep(&nap, NULL);
    arm_shm_guard_unlink_armed();
    hand_on(sig, info, ctx);
}

static void install(void)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&guard.installed, &expected, 1))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, &guard.prev_int);
    sigaction(SIGTERM, &sa, &guard.prev_term);
}

int arm_shm_guard_arm(const char *name)
{
    install();
    for (int i = 0; i < GUARD_SLOTS; i++) {
        int expected = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&guard.state[i], &expected, SLOT_WRITING))
            continue;
        snprintf(guard.path[i], GUARD_PATH_MAX, "/dev/shm%s", name);
        atomic_store(&guard.state[i], SLOT_ARMED);
        return i;
    }
    return -1;   /* more names in flight than slots: this one is not guarded */
}

void arm_shm_guard_disarm(int slot)
{
    if (slot >= 0 && slot < GUARD_SLOTS)
        atomic_store(&guard.state[slot], SLOT_FREE);
}
