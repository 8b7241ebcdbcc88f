/* The dispatch point: one function per operation family decides, once, the
 * path of an operation: same node -> shared memory (load/store, CPU atomics,
 * futex mutexes); another node -> the remote path (arm_remote.h). Arguments
 * have been checked by the api layer; addresses are checked here, where they
 * are translated. */
#ifndef ARM_OPS_H
#define ARM_OPS_H

#include <stddef.h>
#include "armci.h"
#include "core/arm_core.h"

void arm_op_put(const char *call, const void *src, void *dst, size_t n, int proc);
void arm_op_get(const char *call, const void *src, void *dst, size_t n, int proc);
/* arm_op_get for the runtime's own reads (the barrier's look at another
 * node, decision 091): the calling thread's get counters are left as they
 * were, so the program's statistics count only its own operations. */
void arm_op_get_quiet(const char *call, const void *src, void *dst, size_t n, int proc);
void arm_op_acc(const char *call, int type, const void *scale, const void *src, void *dst,
                size_t n, int proc);
/* op: ARMADA_OP_PUTS, _GETS or _ACCS (type and scale only for ACCS). */
void arm_op_strided(const char *call, int op, int type, const void *scale, void *src,
                    const int *src_stride, void *dst, const int *dst_stride, const int *count,
                    int levels, int proc);
/* op: ARMADA_OP_PUTV, _GETV or _ACCV. */
void arm_op_vector(const char *call, int op, int type, const void *scale,
                   const armci_giov_t *iov, int iov_len, int proc);
/* op: ARMCI_FETCH_AND_ADD(_LONG), ARMCI_SWAP(_LONG), or ARM_RMW_CAS(_LONG). */
enum { ARM_RMW_CAS = 16, ARM_RMW_CAS_LONG = 17 };
long arm_op_rmw(const char *call, int op, void *prem, long value, long compare, int proc);
/* An internal allocation that read-modify-writes touch (NXTVAL's counter)
 * takes the transport's atomics when user allocations do (decision 061). */
void arm_op_amo_mark(arm_alloc_t *a);
void arm_op_put_flag(const char *call, int *flag, int value, int proc);

arm_status_t arm_op_create_mutexes(const char *call, int count);
void arm_op_destroy_mutexes(const char *call);
void arm_op_lock(const char *call, int mutex, int proc, int unlock);
/* Lock, unlock or try a mutex word of ARMCI_Malloc memory at proc; returns 1
 * when held (or released), 0 when a trylock failed. */
enum { ARM_MUTEX_LOCK = 0, ARM_MUTEX_UNLOCK = 1, ARM_MUTEX_TRYLOCK = 2 };
int arm_op_mutex_at(const char *call, void *addr, int proc, int action);
/* Stops an Unlock of a mutex the caller does not hold (*held == 0) and a
 * Lock of one it holds already, naming the call, mutex, target and caller. */
void arm_op_mutex_owned(const char *call, unsigned char *held, int mutex, int proc, int unlock);

void arm_op_fence(int proc);
void arm_op_fence_all(void);

/* Non-blocking gets: same-node gets complete at once; gets to other nodes
 * issued between nb_begin and nb_end stay outstanding under the token
 * nb_end returns (0: nothing outstanding). */
void arm_op_nb_begin(void);
int arm_op_nb_end(void);
int arm_op_nb_test(int token);          /* 1 when complete; token 0: all of them */
void arm_op_nb_wait(const char *call, int token);
void arm_op_nb_wait_proc(const char *call, int proc);   /* proc -1: every target */
int arm_op_nb_outstanding(void);        /* get requests still in flight */

#endif
