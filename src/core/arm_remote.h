/* The inter-node path, seen from the core's dispatch: operations on a process
 * of another node. src/core/remote_*.c and src/core/proto/ implement it over
 * the net and server layers (the path of each operation: arm_path.h); a
 * build without UCX has arm_remote_none.c, which stops the program with a
 * clear "not supported". Every entry is safe under MPI_THREAD_MULTIPLE. */
#ifndef ARM_REMOTE_H
#define ARM_REMOTE_H

#include <stddef.h>
#include "core/arm_core.h"

typedef struct arm_remote_req arm_remote_req_t;  /* completion tracking */

arm_status_t arm_remote_init(arm_core_t *c);
void arm_remote_finalize(arm_core_t *c);
/* The connection counters of armada_stats_t: the client's as they are now,
 * the server's as last read (final after ARMCI_Finalize). */
void arm_remote_conn_stats(armada_stats_t *s);

/* Allocation hooks of the registry. seg_register: the creator of a node's
 * segment has its node's server map and register it (called while the
 * segment still has a name).
 *
 * alloc_card fills what this member tells the other members of the group
 * about a new allocation; the registry hands the cards round in its one
 * exchange of the allocation (decision 090). Only a node's creator says
 * anything: where its server maps the segment, its packed remote key
 * (inline up to ARM_REMOTE_CARD_KEY bytes), and the handle through which
 * the other nodes of this host may map the segment (decision 068).
 *
 * alloc_publish reads the group's cards (cards[g] at stride bytes apart,
 * in group order). It is collective over the group only when some key did
 * not fit its card (every member sees the same lengths, so all agree); it
 * sets *node_base to an array, indexed by node, of each node's segment
 * base in its server's mapping (NULL when only one node). The creator's
 * descriptor must stay open until every member has returned from it.
 *
 * alloc_release: local teardown (the creator also unregisters at its
 * server). */
#ifndef ARM_REMOTE_CARD_KEY   /* -D to a few bytes to test the second exchange */
#define ARM_REMOTE_CARD_KEY 128
#endif
typedef struct arm_remote_card {
    uint64_t srv_base;                 /* the segment in its server; 0: no card */
    uint64_t seg_len;                  /* of the mappable segment; 0: not mappable */
    uint32_t key_len;                  /* the packed remote key's length */
    uint32_t pad;
    char     key[ARM_REMOTE_CARD_KEY]; /* the key, when it fits */
    char     path[ARM_SHM_NAME_MAX];   /* "/proc/<pid>/fd/<fd>:<inode>", or empty */
    char     boot[40];                 /* the host's kernel boot id */
} arm_remote_card_t;
arm_status_t arm_remote_seg_register(arm_alloc_t *a, const char *name, size_t len);
void arm_remote_alloc_card(const arm_alloc_t *a, arm_remote_card_t *card);
arm_status_t arm_remote_alloc_publish(arm_alloc_t *a, const arm_remote_card_t *cards,
                                      size_t stride, const uint64_t **node_base);
void arm_remote_alloc_release(arm_alloc_t *a);

void arm_remote_put(const char *call, const void *src, const arm_slice_t *s, uintptr_t dst,
                    size_t n, int proc);
void arm_remote_get(const char *call, const arm_slice_t *s, uintptr_t src, void *dst,
                    size_t n, int proc);
void arm_remote_acc(const char *call, int type, const void *scale, const void *src,
                    const arm_slice_t *s, uintptr_t dst, size_t n, int proc);
/* op: ARMADA_OP_PUTS, _GETS or _ACCS. */
void arm_remote_strided(const char *call, int op, int type, const void *scale,
                        void *src, const int *src_stride, void *dst, const int *dst_stride,
                        const int *count, int levels, int proc);
/* op: ARMADA_OP_PUTV, _GETV or _ACCV. */
void arm_remote_vector(const char *call, int op, int type, const void *scale,
                       const void *const *src, void *const *dst, int n, size_t bytes,
                       int proc);
long arm_remote_rmw(const char *call, int op, const arm_slice_t *s, uintptr_t addr,
                    long value, long compare, int proc);
/* Allocations marked for transport atomics (decision 061): whether new
 * user allocations get marked (the same answer on every rank); an
 * accumulate of integers to a marked allocation, element by element by the
 * transport's atomic add (op: ARMADA_OP_ACC, _ACCS or _ACCV, the counter
 * it adds to; -1: none), whether s is on this node or another. A read-modify-write on
 * a marked allocation goes to arm_remote_rmw from this node too. */
int arm_remote_amo_alloc(void);
void arm_remote_amo_acc(const char *call, int op, int type, const void *scale,
                        const void *src, const arm_slice_t *s, uintptr_t dst, size_t n,
                        int proc);
void arm_remote_lock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc);
/* Returns 1 when the mutex was taken, 0 when it is held. */
int arm_remote_trylock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc);
void arm_remote_unlock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc);
/* Sends operations held for aggregation now, without waiting. */
void arm_remote_flush(void);
void arm_remote_fence(int proc);
void arm_remote_fence_all(void);

/* Non-blocking gets. Between nb_begin and nb_end, gets to other nodes are
 * sent without waiting for their data; nb_end returns a token (> 0) for
 * what is outstanding, or 0 when everything already completed. */
void arm_remote_nb_begin(void);
int arm_remote_nb_end(void);
int arm_remote_nb_test(int token);       /* 1 when complete; token 0: all of them */
void arm_remote_nb_wait(const char *call, int token);
void arm_remote_nb_wait_proc(const char *call, int proc);  /* proc -1: all */
int arm_remote_nb_outstanding(void);    /* requests still in flight */

#endif
