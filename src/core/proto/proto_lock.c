/* Mutexes. */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/remote_int.h"

static int mutex_request(const char *call, int kind, const arm_slice_t *s, uintptr_t addr,
                         int proc)
{
    int node = arm_core.node_of[proc];
    arm_rem_agent_order(call, node);
    arm_rem_batch_send(call, 0);
    if (arm_rc.rma_dirty[node])
        arm_remote_fence(proc);
    rop_t *o = arm_rem_op_new(kind, proc, s->raddr + (addr - s->base), 0);
    if (kind == ARM_SRV_UNLOCK) {
        arm_rem_op_send(call, o, NULL, 0, 0, 1);
        arm_rem_mark_dirty(node, arm_rc.srv_dirty);
        return 1;
    }
    arm_rem_op_send(call, o, NULL, 0, 1, 0);
    arm_rem_op_finish(call, o);
    COUNT(ARMADA_OP_LOCK, ARMADA_PATH_SERVER, 0);
    return kind == ARM_SRV_LOCK ? 1 : (int)o->value;
}

int arm_remote_trylock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc)
{
    arm_rem_enter();
    int r = mutex_request(call, ARM_SRV_TRYLOCK, s, addr, proc);
    arm_rem_leave();
    return r;
}

void arm_remote_lock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc)
{
    arm_rem_enter();
    if (!arm_rc.mt) {
        mutex_request(call, ARM_SRV_LOCK, s, addr, proc);
    } else {
        /* With threads, a lock waiting at the server would hold the head of
         * this process's queue there, and with it an unlock by another of
         * its threads that the lock's holder waits for: threads take a
         * mutex by trying, napping without the lock between tries. */
        while (!mutex_request(call, ARM_SRV_TRYLOCK, s, addr, proc)) {
            int d = arm_rem_lock_release_all();
            struct timespec ts = { 0, 100000L };
            nanosleep(&ts, NULL);
            arm_rem_lock_restore(d);
        }
    }
    arm_rem_leave();
}

void arm_remote_unlock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc)
{
    arm_rem_enter();
    mutex_request(call, ARM_SRV_UNLOCK, s, addr, proc);
    arm_rem_leave();
}
#endif /* ARMADA_HAVE_UCX */
