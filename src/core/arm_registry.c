/* The global-memory registry: every ARMCI_Malloc allocation lives in one
 * shared segment per node, holding the slices of that node's members. Each
 * process indexes, per target rank, the slices of that target sorted by
 * address, so translating a remote address is a binary search (O(log
 * allocations)) with a last-hit cache in front. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/arm_core.h"
#include "core/arm_mpi.h"
#include "core/arm_remote.h"
#include "util/arm_config.h"
#include "util/arm_log.h"

#define SLICE_ALIGN 64

typedef struct member_info {
    uint64_t base;      /* slice in the member's own address space */
    uint64_t len;
    uint64_t seg_off;   /* slice offset inside its node's segment  */
    int32_t  world;
    int32_t  ok;        /* its part of the allocation succeeded */
} member_info_t;

/* What each member tells the group in the allocation's one exchange
 * (decision 090): its slice, and what its node's creator says to the other
 * nodes. */
typedef struct member_rec {
    member_info_t info;
    arm_remote_card_t card;
} member_rec_t;

/* What the last failed arm_reg_malloc ran into, for the caller's message;
 * and the bytes this process holds in ARMCI_Malloc memory, for
 * ARMADA_SHM_LIMIT (internal allocations are not counted). */
static struct {
    char reason[256];
    size_t user_bytes;
} reg_state;

const char *arm_reg_error(void) { return reg_state.reason; }

/* vals[0..n) made the largest over comm's members: in the barrier that
 * starts a counted call over the world, when that barrier has not met yet;
 * else by MPI, after meeting it (a group of every process whose
 * communicator is not the world's: the calls are compared first). */
static void agree_max(MPI_Comm comm, uint64_t *vals, int n)
{
    if (comm == arm_core.world && arm_core_coll_meet(vals, n))
        return;
    arm_core_coll_meet(NULL, 0);
    arm_mpi_allreduce(MPI_IN_PLACE, vals, n, MPI_UINT64_T, MPI_MAX, comm);
}

/* ARMADA_SHM_LIMIT, checked on every member before anything is created:
 * one member over the limit fails the allocation on all of them. The
 * verdict rides on the reduction that agrees on the allocation id, and so
 * do the largest member's size (*most), which the symmetric heap needs,
 * and whether some member lacked the memory to keep the allocation's books
 * (short_of on this one). */
static int over_limit(MPI_Comm comm, size_t bytes, int internal, int short_of, uint64_t *id,
                      size_t *most)
{
    size_t limit = arm_config.shm_limit > 0 ? (size_t)arm_config.shm_limit : 0;
    int over = !internal && limit && reg_state.user_bytes + bytes > limit;
    uint64_t agree[4] = { *id, (uint64_t)over, (uint64_t)bytes, (uint64_t)(short_of != 0) };
    agree_max(comm, agree, 4);
    *id = agree[0];
    *most = (size_t)agree[2];
    if (short_of)
        snprintf(reg_state.reason, sizeof reg_state.reason, "rank %d has no memory left for "
                 "the allocation's records", arm_core.me);
    else if (agree[3])
        snprintf(reg_state.reason, sizeof reg_state.reason, "another member of the group "
                 "has no memory left for the allocation's records");
    else if (over)
        snprintf(reg_state.reason, sizeof reg_state.reason, "ARMADA_SHM_LIMIT=%zu bytes "
                 "allows rank %d no more: it holds %zu bytes and asks for %zu", limit,
                 arm_core.me, reg_state.user_bytes, bytes);
    else if (agree[1])
        snprintf(reg_state.reason, sizeof reg_state.reason, "another member of the group is "
                 "over its ARMADA_SHM_LIMIT=%zu bytes", limit);
    return agree[1] != 0 || agree[3] != 0;
}

static arm_status_t index_insert(int proc, const arm_slice_t *sl)
{
    arm_target_index_t *ix = &arm_core.index[proc];
    if (ix->n == ix->cap) {
        int cap = ix->cap ? 2 * ix->cap : 8;
        arm_slice_t *ns = realloc(ix->slices, (size_t)cap * sizeof *ns);
        if (!ns)
            return ARM_ERR_NO_MEMORY;
        ix->slices = ns;
        ix->cap = cap;
    }
    int pos = ix->n;
    while (pos > 0 && ix->slices[pos - 1].base > sl->base)
        pos--;
    memmove(&ix->slices[pos + 1], &ix->slices[pos], (size_t)(ix->n - pos) * sizeof *sl);
    ix->slices[pos] = *sl;
    ix->n++;
    ix->last = 0;
    return ARM_OK;
}

static void index_remove(int proc, const arm_alloc_t *a)
{
    arm_target_index_t *ix = &arm_core.index[proc];
    int w = 0;
    for (int r = 0; r < ix->n; r++)
        if (ix->slices[r].alloc != a)
            ix->slices[w++] = ix->slices[r];
    ix->n = w;
    ix->last = 0;
}

static void alloc_unlink_list(arm_alloc_t *a)
{
    if (a->prev)
        a->prev->next = a->next;
    else
        arm_core.allocs = a->next;
    if (a->next)
        a->next->prev = a->prev;
}

/* Local teardown of one allocation: no communication. */
static void alloc_close_fd(arm_alloc_t *a)
{
    arm_shm_close_handle(a->seg_fd);
    a->seg_fd = -1;
}

static void alloc_destroy(arm_alloc_t *a)
{
    alloc_close_fd(a);
    for (int g = 0; g < a->gsize; g++)
        index_remove(a->members[g], a);
    arm_remote_alloc_release(a);
    arm_core.shm_bytes -= a->seg.len;
    if (!a->internal)
        reg_state.user_bytes -= a->my_len;
    arm_shm_detach(&a->seg);
    alloc_unlink_list(a);
    free(a->members);
    free(a);
}

enum { SEG_OK, SEG_FAILED, SEG_SHORT, SEG_FALLBACK };

/* The creator's bytes-free answer when it could not make the segment. */
static void seg_shortage(long long free_bytes, size_t total, size_t bytes)
{
    snprintf(reg_state.reason, sizeof reg_state.reason, "/dev/shm has %lld bytes free; "
             "this node's segment needs %zu (%zu asked for by rank %d)", free_bytes, total,
             bytes, arm_core.me);
}

/* The node's segment without a name (decision 044): the creator makes an
 * anonymous memory file; the other members, then the node's server, open it
 * through its handle, /proc/<creator pid>/fd/<fd>; the creator closes it
 * once all have it. SEG_FALLBACK, on every member alike: the creator uses
 * names (named), has no memfd, or some member could not open the path;
 * nothing is left mapped then. Collective over ncomm. */
static int node_segment_anon(arm_alloc_t *a, MPI_Comm ncomm, int nrank, int named,
                             int sparse, size_t total, size_t bytes)
{
    /* made: created or unsupported; bytes free when short; the handle
     * (empty: names, on every member) */
    struct { long long ok, free_bytes; char handle[ARM_SHM_NAME_MAX]; } made = { 1, -1, "" };
    int fd = -1;
    if (nrank == 0 && !named) {
        arm_status_t cst = sparse ? arm_shm_create_anon_sparse(total, &a->seg, &fd)
                                  : arm_shm_create_anon(total, &a->seg, &fd);
        made.ok = cst == ARM_OK || cst == ARM_ERR_UNSUPPORTED;
        if (cst == ARM_OK)
            snprintf(made.handle, sizeof made.handle, "%s", a->seg.name);
        if (cst == ARM_ERR_NO_MEMORY)
            made.free_bytes = arm_shm_free_bytes() >= 0 ? arm_shm_free_bytes() : 0;
    }
    arm_mpi_bcast(&made, (int)sizeof made, MPI_BYTE, 0, ncomm);
    if (!made.ok) {
        if (made.free_bytes < 0)
            return SEG_FAILED;
        seg_shortage(made.free_bytes, total, bytes);
        return SEG_SHORT;
    }
    if (!made.handle[0])
        return SEG_FALLBACK;
    int ok = nrank == 0 || arm_shm_attach(made.handle, total, &a->seg) == ARM_OK;
    arm_mpi_allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ncomm);
    if (!ok) {
        arm_shm_close_handle(fd);
        arm_shm_detach(&a->seg);
        return SEG_FALLBACK;
    }
    /* Every member could open the handle, so the server (same user, same
     * /proc) can: a server refusal stops the job. Should it fail all the
     * same, the group learns it from the creator's record in the
     * allocation's exchange (reg_malloc), which frees the segment on every
     * member. */
    if (nrank == 0) {
        a->seg_owner = 1;
        ok = arm_remote_seg_register(a, made.handle, total) == ARM_OK;
    }
    /* Every member and the server hold it now. The other nodes of this
     * host may map it too (decision 068): the descriptor stays open until
     * every member has published it to them (close_published_fds). */
    if (ok && nrank == 0)
        a->seg_fd = fd;
    else
        arm_shm_close_handle(fd);
    return ok ? SEG_OK : SEG_FAILED;
}

/* The node's segment with a name, the fallback (decision 001): the first
 * creates and reserves it, the others map it, the node's server maps it,
 * then the name goes. Collective over ncomm. */
static int node_segment_named(arm_alloc_t *a, MPI_Comm ncomm, int nrank, int creator_pid,
                              int sparse, uint64_t id, size_t total, size_t bytes)
{
    arm_core_t *c = &arm_core;
    char name[ARM_SHM_NAME_MAX];
    arm_shm_make_name(name, sizeof name, c->job, creator_pid, (unsigned long)id);
    /* Every member can remove the name if SIGINT or SIGTERM ends it inside
     * the window: a member whose creator was killed is ended by the
     * launcher with SIGTERM (decision 034). */
    int guard = arm_shm_guard_arm(name);
    /* made[0]: created; made[1]: bytes /dev/shm had free when it could not be */
    long long made[2] = { 1, -1 };
    if (nrank == 0) {
        arm_status_t cst = sparse ? arm_shm_create_sparse(name, total, &a->seg)
                                  : arm_shm_create(name, total, &a->seg);
        made[0] = cst == ARM_OK;
        if (cst == ARM_ERR_NO_MEMORY)
            made[1] = arm_shm_free_bytes() >= 0 ? arm_shm_free_bytes() : 0;
    }
    arm_mpi_bcast(made, 2, MPI_LONG_LONG, 0, ncomm);
    int ok = (int)made[0];
    int short_of = !ok && made[1] >= 0;
    if (short_of)
        seg_shortage(made[1], total, bytes);
    if (ok && nrank != 0)
        ok = arm_shm_attach(name, total, &a->seg) == ARM_OK;
    /* The node's server maps it too, while it still has a name. */
    if (ok && nrank == 0) {
        a->seg_owner = 1;
        ok = arm_remote_seg_register(a, name, total) == ARM_OK;
    }
    arm_mpi_allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ncomm);
    /* Every member has mapped it (or failed): the name goes now, so no end
     * of the job, normal or not, can leave it behind. Each member removes
     * it (the later ones find it gone) before disarming, so no member stops
     * guarding a name that still exists. */
    arm_shm_unlink(name);
    arm_shm_guard_disarm(guard);
    return ok ? SEG_OK : short_of ? SEG_SHORT : SEG_FAILED;
}

/* The node's members of the group share one segment, without a name where
 * the node allows it. The creator decides (ARMADA_SHM_NAMED, or a fallback
 * seen before) and the others follow its broadcast, so the members always
 * take the same path. sparse: no page reserved (the symmetric heap).
 * Collective over ncomm. */
static arm_status_t node_segment(arm_alloc_t *a, MPI_Comm ncomm, int nrank, int creator_pid,
                                 int sparse, uint64_t id, size_t total, size_t bytes)
{
    static int named_only = -1;   /* -1: not decided yet */
    if (named_only < 0)
        named_only = arm_config.shm_named != 0;
    int r = node_segment_anon(a, ncomm, nrank, named_only, sparse, total, bytes);
    if (r == SEG_FALLBACK) {
        if (!named_only)
            arm_log(ARM_LOG_INFO, "shm", "rank %d: node segments cannot be passed through "
                    "/proc here; they get names in /dev/shm from now on", arm_core.me);
        named_only = 1;
        r = node_segment_named(a, ncomm, nrank, creator_pid, sparse, id, total, bytes);
    }
    if (r != SEG_OK)
        return r == SEG_SHORT ? ARM_ERR_NO_MEMORY : ARM_ERR_SYSTEM;
    arm_core.shm_bytes += total;
    return ARM_OK;
}

/* Lays out the slices of the group's members on this node (SLICE_ALIGN
 * apart, the whole rounded to pages) and makes their shared segment.
 * Collective over comm; *myoff is this member's slice offset. */
static arm_status_t node_share(arm_alloc_t *a, MPI_Comm comm, size_t bytes, int sparse,
                               size_t *myoff)
{
    arm_core_t *c = &arm_core;
    int grank, nrank, nsize;
    MPI_Comm ncomm;
    /* The world splits into the node communicators that exist already.
     * MPI_Comm_split, a collective with its own reductions, took about a
     * sixth of an allocation's time on one node of 8 (545 to 727 us with
     * it, 461 to 485 without). */
    int world = comm == c->world && c->node_comm != MPI_COMM_NULL;
    if (world) {
        ncomm = c->node_comm;
    } else {
        MPI_Comm_rank(comm, &grank);
        MPI_Comm_split(comm, c->my_node, grank, &ncomm);
    }
    MPI_Comm_rank(ncomm, &nrank);
    MPI_Comm_size(ncomm, &nsize);
    /* Each member's size and pid, in one exchange. */
    uint64_t (*nmem)[2] = malloc((size_t)nsize * sizeof *nmem);
    int have = nmem != NULL, all_have = have;
    arm_mpi_allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, ncomm);
    arm_status_t st = ARM_ERR_NO_MEMORY;
    if (all_have) {
        uint64_t mine[2] = { bytes, (uint64_t)getpid() };
        arm_mpi_allgather(mine, 2, MPI_UINT64_T, nmem, 2, MPI_UINT64_T, ncomm);
        size_t total = 0;
        for (int i = 0; i < nsize; i++) {
            if (i == nrank)
                *myoff = total;
            total += (nmem[i][0] + SLICE_ALIGN - 1) / SLICE_ALIGN * SLICE_ALIGN;
        }
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        total = (total + page - 1) / page * page;
        st = total > 0 ? node_segment(a, ncomm, nrank, (int)nmem[0][1], sparse, a->id, total,
                                      bytes)
                       : ARM_OK;
    }
    free(nmem);
    if (!world)
        MPI_Comm_free(&ncomm);
    return st;
}

/* Indexes the slices of every member by target (recs: the exchange,
 * freed here) and sets up the way to the other nodes' segments. */
static arm_status_t alloc_index(arm_alloc_t *a, member_rec_t *recs, void **ptr_arr)
{
    arm_core_t *c = &arm_core;
    /* Where each node's segment sits in that node's server. */
    const uint64_t *node_base = NULL;
    arm_status_t st = arm_remote_alloc_publish(a, &recs[0].card, sizeof *recs, &node_base);
    for (int g = 0; g < a->gsize; g++) {
        const member_info_t *in = &recs[g].info;
        int p = in->world;
        if (ptr_arr)
            ptr_arr[g] = (void *)(uintptr_t)in->base;
        if (in->len == 0)
            continue;
        arm_slice_t sl = { (uintptr_t)in->base, (size_t)in->len, NULL, 0, a };
        if (c->node_of[p] == c->my_node)
            sl.local = (char *)a->seg.base + in->seg_off;
        else if (node_base)
            sl.raddr = (uintptr_t)(node_base[c->node_of[p]] + in->seg_off);
        if (st == ARM_OK)
            st = index_insert(p, &sl);
    }
    free(recs);
    return st;
}

/* Allocations made over comm before the one being made: every member of
 * comm has entered a collective over it since, so each returned from the
 * earlier allocation, having mapped what it could of the other nodes'
 * segments. The creators' descriptors can go (decision 090). */
static void close_published_fds(MPI_Comm comm)
{
    for (arm_alloc_t *a = arm_core.allocs; a; a = a->next)
        if (a->seg_fd >= 0 && (comm == arm_core.world || a->comm == comm))
            alloc_close_fd(a);
}

/* sparse: the symmetric heap, whose pages are committed per allocation.
 * Over comm, besides what the node's members say to each other, an
 * allocation takes two collectives (decision 090): the reduction that
 * agrees on its id and on whether every member may go ahead, and the
 * exchange of the members' records. */
static arm_status_t reg_malloc(MPI_Comm comm, int gsize, const int *members, size_t bytes,
                               int internal, int sparse, void **ptr_arr, arm_alloc_t **out)
{
    arm_core_t *c = &arm_core;
    reg_state.reason[0] = '\0';
    uint64_t id = c->next_alloc_id;
    size_t most = 0;
    /* The same answer on every member (a setting and the communicator). */
    int sym = !internal && arm_sym_active() && comm == c->world;
    arm_alloc_t *a = NULL;
    member_rec_t *recs = NULL;
    int have = 1;
    if (!sym) {
        a = calloc(1, sizeof *a);
        recs = calloc((size_t)gsize, sizeof *recs);
        have = a && recs && (a->members = malloc((size_t)gsize * sizeof(int))) != NULL;
    }
    int over = over_limit(comm, bytes, internal, !have, &id, &most);
    c->next_alloc_id = id + 1;
    if (over) {
        if (a)
            free(a->members);
        free(a);
        free(recs);
        return ARM_ERR_NO_MEMORY;
    }
    close_published_fds(comm);
    if (sym) {
        arm_status_t sst = arm_sym_alloc(id, bytes, most, ptr_arr, reg_state.reason,
                                         sizeof reg_state.reason);
        if (sst == ARM_OK)
            reg_state.user_bytes += bytes;   /* arm_reg_free takes it back */
        return sst;
    }

    a->seg_fd = -1;
    memcpy(a->members, members, (size_t)gsize * sizeof(int));
    a->gsize = gsize;
    a->comm = comm;
    a->internal = internal;
    a->amo = !internal && arm_remote_amo_alloc();
    a->id = id;
    size_t myoff = 0;
    arm_status_t st = node_share(a, comm, bytes, sparse, &myoff);
    member_rec_t mine;
    memset(&mine, 0, sizeof mine);
    mine.info.ok = st == ARM_OK;
    if (st == ARM_OK) {
        a->my_len = bytes;
        a->my_base = bytes ? (char *)a->seg.base + myoff : NULL;
        mine.info = (member_info_t){ (uint64_t)(uintptr_t)a->my_base, a->my_len, myoff, c->me,
                                     1 };
        arm_remote_alloc_card(a, &mine.card);
    }
    arm_mpi_allgather(&mine, (int)sizeof mine, MPI_BYTE, recs, (int)sizeof mine, MPI_BYTE, comm);
    int all_ok = 1;
    for (int g = 0; g < gsize; g++)
        all_ok &= recs[g].info.ok;
    if (!all_ok) {
        if (st == ARM_OK) {
            snprintf(reg_state.reason, sizeof reg_state.reason,
                     "the allocation failed on another node of the group");
            c->shm_bytes -= a->seg.len;   /* node_segment counted it */
        }
        alloc_close_fd(a);
        arm_remote_alloc_release(a);
        arm_shm_detach(&a->seg);
        free(a->members);
        free(a);
        free(recs);
        return st != ARM_OK ? st : ARM_ERR_SYSTEM;
    }

    if (!internal)
        reg_state.user_bytes += bytes;   /* alloc_destroy takes it back */
    a->next = c->allocs;
    if (c->allocs)
        c->allocs->prev = a;
    c->allocs = a;
    st = alloc_index(a, recs, ptr_arr);
    if (st != ARM_OK) {
        alloc_destroy(a);
        return st;
    }
    if (out)
        *out = a;
    return ARM_OK;
}

arm_status_t arm_reg_malloc(MPI_Comm comm, int gsize, const int *members, size_t bytes,
                            int internal, void **ptr_arr, arm_alloc_t **out)
{
    return reg_malloc(comm, gsize, members, bytes, internal, 0, ptr_arr, out);
}

arm_status_t arm_reg_heap_create(size_t bytes, void **ptr_arr, arm_alloc_t **out)
{
    int *members = malloc((size_t)arm_core.nproc * sizeof *members);
    if (!members)
        return ARM_ERR_NO_MEMORY;
    for (int r = 0; r < arm_core.nproc; r++)
        members[r] = r;
    arm_status_t st = reg_malloc(arm_core.world, arm_core.nproc, members, bytes, 1, 1, ptr_arr,
                                 out);
    free(members);
    return st;
}

uint64_t arm_reg_free_id(void *ptr, const char *call, arm_alloc_t **alloc)
{
    uint64_t id = 0;
    *alloc = NULL;
    if (ptr && (id = arm_sym_find(ptr)) == 0) {
        arm_slice_t *s = arm_reg_lookup(arm_core.me, (uintptr_t)ptr, 0);
        if (!s || s->base != (uintptr_t)ptr || s->alloc->internal)
            arm_fatal(call, "argument 'ptr' = %p is not the base of an ARMCI_Malloc "
                      "allocation of rank %d", ptr, arm_core.me);
        *alloc = s->alloc;
        id = s->alloc->id + 1;
    }
    return id;
}

arm_status_t arm_reg_free(MPI_Comm comm, void *ptr, uint64_t id, arm_alloc_t *a,
                          const char *call)
{
    arm_core_t *c = &arm_core;
    uint64_t mine = id;
    /* Members whose slice is empty passed NULL: the others tell them which,
     * over the world in the barrier that starts ARMCI_Free. */
    agree_max(comm, &id, 1);
    close_published_fds(comm);
    if (id == 0)
        return ARM_OK; /* every member passed NULL: nothing to free */
    if (mine && mine != id)
        arm_fatal(call, "argument 'ptr' = %p: members of the group free different "
                  "allocations (rank %d)", ptr, c->me);
    /* Every member completed its accesses before it entered the free
     * (ARMCI_Free fences and waits first), and every member has entered it:
     * the agreement on the id is the barrier, for a symmetric block as for
     * the others (decision 090). */
    size_t sym_len;
    if (arm_sym_free(id - 1, &sym_len)) {
        reg_state.user_bytes -= sym_len;
        return ARM_OK;
    }
    if (!a) {
        for (a = c->allocs; a && a->id != id - 1; a = a->next)
            ;
        if (!a)
            arm_fatal(call, "argument 'ptr' = NULL does not match the allocation the "
                      "other members free (rank %d)", c->me);
    }
    alloc_destroy(a);
    return ARM_OK;
}

void arm_reg_free_internal(arm_alloc_t *a)
{
    alloc_destroy(a);
}

void arm_reg_release_all(void)
{
    int forgotten = arm_sym_live();
    reg_state.user_bytes -= arm_sym_fini();
    for (arm_alloc_t *a = arm_core.allocs; a; a = a->next)
        forgotten += !a->internal;
    if (forgotten && arm_config.warn_unfreed)
        arm_log(ARM_LOG_WARN, "core", "ARMCI_Finalize: %d allocation(s) were not freed "
                "with ARMCI_Free; freeing them now", forgotten);
    while (arm_core.allocs)
        alloc_destroy(arm_core.allocs);
}

arm_slice_t *arm_reg_translate(const char *call, const char *arg, int proc, const void *addr,
                               size_t len)
{
    arm_slice_t *s = arm_reg_lookup(proc, (uintptr_t)addr, len);
    if (!s) {
        if (arm_reg_lookup(proc, (uintptr_t)addr, 0))
            arm_fatal(call, "argument '%s' = %p: %zu bytes run past the end of the "
                      "ARMCI_Malloc allocation of rank %d", arg, addr, len, proc);
        arm_fatal(call, "argument '%s' = %p is not inside any ARMCI_Malloc allocation of "
                  "rank %d", arg, addr, proc);
    }
    return s;
}
