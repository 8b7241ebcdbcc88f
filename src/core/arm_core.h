/* The core layer: process and node map, the global-memory registry, and the
 * one dispatch point per operation family. All runtime state of the layer is
 * in one context struct, arm_core. */
#ifndef ARM_CORE_H
#define ARM_CORE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "armada.h"
#include "shm/arm_shm_seg.h"
#include "shm/arm_shm_sync.h"
#include "util/arm_status.h"

typedef struct arm_alloc arm_alloc_t;

/* One target rank's slice of one allocation, as this process sees it. */
typedef struct arm_slice {
    uintptr_t    base;   /* slice address in the target's own address space   */
    size_t       len;
    char        *local;  /* the slice in this process's mapping; NULL when the
                            target is on another node                        */
    uintptr_t    raddr;  /* the slice in the target node's server mapping    */
    arm_alloc_t *alloc;
} arm_slice_t;

/* Per target rank: slices sorted by base, binary-searched, plus the index of
 * the last hit (most programs hit the same allocation repeatedly). */
typedef struct arm_target_index {
    arm_slice_t *slices;
    int n, cap;
    _Atomic int last;      /* a hint any thread may update (relaxed)        */
} arm_target_index_t;

/* Operation counters, one block per shard of threads (decision 067): under
 * MPI_THREAD_MULTIPLE a thread counts in its own cache lines, so threads of
 * one process issuing 20 ns operations do not pass a line between their
 * cores on every one. Threads take shards in turn; past ARM_STAT_SHARDS
 * threads they share. At lower levels every count goes to shard 0 (no
 * thread-local access on the single-thread path).
 * Each counter is updated by a relaxed load and store, which costs what a
 * plain increment costs and is no data race; two threads of one shard
 * counting at the same instant may lose one count. */
#define ARM_STAT_SHARDS 16
typedef struct arm_opstats {
    _Alignas(64) _Atomic uint64_t ops[ARMADA_OP_COUNT][ARMADA_PATH_COUNT];
    _Atomic uint64_t bytes[ARMADA_OP_COUNT][ARMADA_PATH_COUNT];
    _Atomic uint64_t mapped;   /* puts and gets by memcpy without the client
                                  lock (decision 068)                      */
} arm_opstats_t;

/* This thread's shard + 1; 0 until its first count. */
extern _Thread_local int arm_stat_shard;
int arm_stat_shard_take(void);    /* gives this thread a shard, returns it */

/* A snapshot of the statistics (armada_stats_get, ARMADA_STATS). */
void arm_core_stats(armada_stats_t *out);
void arm_core_stats_reset(void);

static inline void arm_stat_add(_Atomic uint64_t *c, uint64_t v)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
                          memory_order_relaxed);
}

/* This thread's shard of the counters (0 below MPI_THREAD_MULTIPLE). */
#define ARM_STAT_SHARD() \
    (!arm_core.threads ? 0 : arm_stat_shard ? arm_stat_shard - 1 : arm_stat_shard_take())

#define ARM_COUNT(op, path, n)                                              \
    do {                                                                    \
        int sh_ = ARM_STAT_SHARD();                                         \
        arm_stat_add(&arm_core.opstats[sh_].ops[op][path], 1);              \
        arm_stat_add(&arm_core.opstats[sh_].bytes[op][path], (n));          \
    } while (0)

struct arm_alloc {
    uint64_t      id;
    MPI_Comm      comm;       /* the group's communicator (not owned)        */
    int           gsize;
    int          *members;    /* group rank -> world rank                    */
    arm_shm_seg_t seg;        /* this node's segment of the allocation       */
    void         *my_base;
    size_t        my_len;
    int           internal;   /* made by the runtime, not the program        */
    int           seg_owner;  /* this process created the node's segment      */
    int           seg_fd;     /* creator: the segment's memfd, kept open until
                                 the other nodes of this host have mapped it
                                 (decision 068); else -1                     */
    int           amo;        /* every read-modify-write and integer accumulate
                                 to it goes by the transport's atomics, same
                                 node too (decision 061); set before any rank
                                 can use it, alike on every member          */
    void         *remote;     /* the inter-node path's data (arm_remote.h)    */
    arm_alloc_t  *prev, *next;
};

#define ARM_COLL_AGREE_MAX 4   /* values one counted call's barrier can agree on */

/* Per-process control block in shared memory: the stripes of the
 * accumulate lock (decision 069), a cache line each, then the barrier
 * counters' line. */
#define ARM_CTL_ACC_STRIDE 16u   /* words from one stripe to the next */
typedef struct arm_ctl_block {
    struct {
        arm_shm_mutex_t m;
        uint32_t pad[ARM_CTL_ACC_STRIDE - 1];
    } acc[ARM_ACC_STRIPES];        /* accumulates into this process             */
    _Atomic uint32_t bar_entered;  /* world barriers this process has entered   */
    _Atomic uint32_t bar_released; /* node leader only: world barriers it has
                                      released after meeting the other nodes   */
    uint32_t         pad[14];
    /* Values the processes agree on in the barrier that starts a counted
     * call (arm_core_coll_meet), by the parity of the barrier: this process's
     * own on entry; a node leader's holds the result once it releases. */
    uint64_t         agree[2][ARM_COLL_AGREE_MAX];
} arm_ctl_block_t;
_Static_assert(sizeof(arm_ctl_block_t) == 64 * (ARM_ACC_STRIPES + 2),
               "control block: a cache line per stripe, one for the barrier and one "
               "for the values agreed in it");

/* Per-process collective-call word, in an allocation of its own made once
 * the inter-node path is up, so that another node can read it by a get
 * (decision 091): world collective calls entered, << 8, and the kind of the
 * last (arm_coll_kind_t). A cache line each. */
typedef struct arm_coll_block {
    _Atomic uint64_t word;
    uint64_t         pad[7];
} arm_coll_block_t;

/* The first stripe of the accumulate lock in control block ctl. */
#define ARM_CTL_ACC(ctl) (&(ctl)->acc[0].m)

/* One step of ARMCI_Init: its wall and CPU time (the whole process, helper
 * threads included), for armada_startup_steps (decision 098). */
#define ARM_START_STEPS 8
typedef struct arm_start_step {
    const char *name;
    double wall_us, cpu_us;
} arm_start_step_t;

typedef struct arm_core {
    int initialized;
    int threads;           /* MPI_THREAD_MULTIPLE granted: counters sharded */
    int me, nproc;
    int my_node, nnodes;
    int host_size;         /* processes on this host (virtual nodes share it) */
    int host_cores;        /* cores this host's processes may run on        */
    int host_threads;      /* processes plus server threads on this host    */
    int *node_of;          /* rank -> node                                  */
    int *node_leader;      /* node -> lowest rank                           */
    int *node_size;        /* node -> processes                             */
    int *local_index;      /* rank -> index within its node                 */
    int *node_first;       /* node -> offset of its ranks in node_members   */
    int *node_members;     /* ranks, node by node, each node in rank order  */
    MPI_Comm world, node_comm, masters_comm;
    int own_mpi;           /* ARMCI initialised MPI and finalises it         */
    arm_start_step_t start[ARM_START_STEPS]; /* the last ARMCI_Init's steps */
    int nstart;
    int mpi_yields;        /* MPI yields the CPU in its progress when idle
                              (Open MPI's mpi_yield_when_idle), decision 092 */
    unsigned long long job;
    uint64_t next_alloc_id;

    arm_target_index_t *index;   /* nproc entries                           */
    arm_alloc_t *allocs;         /* live allocations                        */
    arm_slice_t *sym_slice;      /* ARMADA_SYMMETRIC: rank -> its whole heap,
                                    NULL when the mode is off (decision 059) */
    size_t shm_bytes;

    arm_alloc_t *ctl_alloc;      /* control blocks of every process         */
    arm_ctl_block_t **ctl;       /* rank -> its control block, same node only */
    arm_alloc_t *coll_alloc;     /* collective-call words of every process  */
    arm_coll_block_t **coll;     /* rank -> its word, same node only        */
    uintptr_t *coll_addr;        /* rank -> its word's address, for a get from
                                    another node; NULL on one node and once the
                                    inter-node path is down (decision 091)   */

    arm_alloc_t *mutex_alloc;    /* ARMCI_Create_mutexes                    */
    int *mutex_count;            /* rank -> mutexes it hosts                */
    void **mutex_base;           /* rank -> base of its mutexes              */

    armada_stats_t stats;        /* ops and bytes: see opstats              */
    arm_opstats_t opstats[ARM_STAT_SHARDS];
} arm_core_t;

extern arm_core_t arm_core;

/* ---- lifecycle (arm_core.c) ---------------------------------------------- */
arm_status_t arm_core_init(MPI_Comm comm, const char *call);
arm_status_t arm_core_finalize(void);
_Noreturn void arm_core_abort(int code);

/* ---- barrier (arm_barrier.c) --------------------------------------------- */
/* A barrier over comm that waits without holding a core (decisions 010, 019,
 * 035): over the world, through shared memory on each node and MPI between
 * the nodes' leaders. */
void arm_core_barrier(MPI_Comm comm);

/* Collective calls over the whole job, counted per process so that a world
 * barrier that waits on a process of its node can tell when that process is
 * in a different collective call at the same position: the processes did not
 * make the same collective calls, and both would wait for ever. Calls made
 * inside another counted call are not counted. */
typedef enum {
    ARM_COLL_NONE,
    ARM_COLL_BARRIER,
    ARM_COLL_MALLOC,
    ARM_COLL_FREE,
    ARM_COLL_CREATE_MUTEXES,
    ARM_COLL_DESTROY_MUTEXES,
    ARM_COLL_FINALIZE,
    ARM_COLL_MSG_GOP,      /* counted by arm_core_coll_note, no barrier */
    ARM_COLL_MSG_BCAST,
    ARM_COLL_MSG_SEL,
} arm_coll_kind_t;
void arm_core_coll_begin(arm_coll_kind_t kind);
void arm_core_coll_end(void);
/* A counted call whose starting barrier waits until the call has something
 * to agree on (decision 090): coll_open counts the call; coll_meet runs its
 * barrier, which also makes vals[0..n) (n <= ARM_COLL_AGREE_MAX) the
 * largest over every process, and returns 1; it returns 0, leaving vals
 * alone, when the barrier has run already (a world barrier inside the call
 * is it) or no counted call is open: the caller then reduces vals itself.
 * coll_end runs the barrier if nothing met it. */
void arm_core_coll_open(arm_coll_kind_t kind);
int arm_core_coll_meet(uint64_t *vals, int n);
/* A collective over the world that waits in MPI, not in a world barrier
 * (armci_msg_*gop, brdcst, sel): only counted, so that a process of its
 * node waiting in a world barrier at the same count can tell. */
void arm_core_coll_note(arm_coll_kind_t kind);

/* ---- node map (arm_procmap.c) -------------------------------------------- */
arm_status_t arm_procmap_init(arm_core_t *c, long ppn);
void arm_procmap_fini(arm_core_t *c);
static inline int arm_same_node(int proc) { return arm_core.node_of[proc] == arm_core.my_node; }

/* ---- registry (arm_registry.c) ------------------------------------------- */
/* Collective over comm (whose ranks map to world ranks by members). */
arm_status_t arm_reg_malloc(MPI_Comm comm, int gsize, const int *members, size_t bytes,
                            int internal, void **ptr_arr, arm_alloc_t **out);
/* What to free for ptr: 0 for NULL, else the allocation's id plus one
 * (*alloc set unless ptr is in the symmetric heap). A ptr that is not the
 * base of a user allocation of this rank stops the job, naming call. */
uint64_t arm_reg_free_id(void *ptr, const char *call, arm_alloc_t **alloc);
/* Collective over comm: frees what arm_reg_free_id found for ptr. */
arm_status_t arm_reg_free(MPI_Comm comm, void *ptr, uint64_t id, arm_alloc_t *a,
                          const char *call);
void arm_reg_free_internal(arm_alloc_t *a);
void arm_reg_release_all(void);
/* Why the last arm_reg_malloc of this process failed ("" when unknown). */
const char *arm_reg_error(void);
/* The symmetric heap's segment: bytes per process over the world, no page
 * reserved. Collective. */
arm_status_t arm_reg_heap_create(size_t bytes, void **ptr_arr, arm_alloc_t **out);

/* ---- symmetric heap (arm_symheap.c, decision 059) ------------------------ */
/* ARMADA_SYMMETRIC=1: reserves the heap. Collective, after the inter-node
 * client is up. */
arm_status_t arm_sym_init(void);
int arm_sym_active(void);
/* Places allocation id (most: the largest member's size, mine: this
 * process's) at the same offset of every heap; no communication. */
arm_status_t arm_sym_alloc(uint64_t id, size_t mine, size_t most, void **ptr_arr, char *why,
                           size_t why_len);
/* id + 1 of this process's block based at ptr; 0 when ptr is none. */
uint64_t arm_sym_find(const void *ptr);
/* Frees block id if it is one (returns 1, its bytes for this process in
 * *mine); 0 when id is no symmetric block. No communication. */
int arm_sym_free(uint64_t id, size_t *mine);
int arm_sym_live(void);
/* Forgets the blocks (the heap goes with the other internal allocations);
 * returns the bytes this process held in them. */
size_t arm_sym_fini(void);

static inline arm_slice_t *arm_reg_lookup(int proc, uintptr_t addr, size_t len)
{
    arm_target_index_t *ix = &arm_core.index[proc];
    arm_slice_t *s;
    /* The symmetric heap: the target's heap base and the offset, no search. */
    if (arm_core.sym_slice) {
        s = &arm_core.sym_slice[proc];
        if (addr - s->base < s->len && len <= s->len - (addr - s->base))
            return s;
    }
    if (ix->n == 0)
        return NULL;
    s = &ix->slices[atomic_load_explicit(&ix->last, memory_order_relaxed)];
    if (addr >= s->base && addr - s->base < s->len && len <= s->len - (addr - s->base))
        return s;
    int lo = 0, hi = ix->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        s = &ix->slices[mid];
        if (addr < s->base)
            hi = mid - 1;
        else if (addr - s->base >= s->len)
            lo = mid + 1;
        else {
            if (len > s->len - (addr - s->base))   /* never wraps */
                return NULL;
            atomic_store_explicit(&ix->last, mid, memory_order_relaxed);
            return s;
        }
    }
    return NULL;
}

/* Translates addr at proc or stops the program naming call and argument. */
arm_slice_t *arm_reg_translate(const char *call, const char *arg, int proc, const void *addr,
                               size_t len);

#endif
