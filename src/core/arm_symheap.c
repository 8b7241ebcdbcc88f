/* The symmetric heap (ARMADA_SYMMETRIC=1, decision 059). At start every
 * process reserves one heap of ARMADA_SYMMETRIC_HEAP bytes inside its
 * node's shared segment (address space only; the node's server maps it like
 * any allocation). A collective ARMCI_Malloc over the world then takes the
 * same offset in every heap: the same first-fit allocator runs on every
 * rank over the same history, so no addresses are exchanged; the one
 * reduction that agrees on the allocation id also gives the largest size.
 * A remote address translates as the target's heap base plus the offset
 * (arm_reg_lookup), with no search over allocations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/arm_core.h"
#include "util/arm_config.h"
#include "util/arm_log.h"

#define SYM_ALIGN 64      /* blocks start on cache lines, as slices do */

typedef struct sym_block {
    size_t off, len;      /* in every heap; len: SYM_ALIGN multiples */
    size_t mine;          /* what this process asked for      */
    uint64_t id;
    struct sym_block *next;
} sym_block_t;

static struct {
    size_t heap;          /* bytes per process                 */
    size_t page;
    arm_alloc_t *alloc;   /* the heaps: one internal allocation */
    arm_slice_t *slice;   /* rank -> its whole heap             */
    sym_block_t *blocks;  /* live, by offset                    */
    int live;
} sym;

int arm_sym_active(void) { return sym.slice != NULL; }
int arm_sym_live(void) { return sym.live; }

arm_status_t arm_sym_init(void)
{
    arm_core_t *c = &arm_core;
    if (!arm_config.symmetric)
        return ARM_OK;
    sym.page = (size_t)sysconf(_SC_PAGESIZE);
    if (arm_config.symmetric_heap <= 0)
        arm_fatal("ARMCI_Init", "setting ARMADA_SYMMETRIC_HEAP=%ld must be positive (rank %d)",
                  arm_config.symmetric_heap, c->me);
    sym.heap = ((size_t)arm_config.symmetric_heap + sym.page - 1) / sym.page * sym.page;
    void **bases = malloc((size_t)c->nproc * sizeof *bases);
    arm_slice_t *slice = calloc((size_t)c->nproc, sizeof *slice);
    if (!bases || !slice) {
        free(bases);
        free(slice);
        return ARM_ERR_NO_MEMORY;
    }
    arm_status_t st = arm_reg_heap_create(sym.heap, bases, &sym.alloc);
    for (int r = 0; st == ARM_OK && r < c->nproc; r++) {
        const arm_slice_t *s = arm_reg_lookup(r, (uintptr_t)bases[r], sym.heap);
        if (!s)
            st = ARM_ERR_SYSTEM;
        else
            slice[r] = *s;
    }
    free(bases);
    if (st != ARM_OK) {
        free(slice);
        return st;
    }
    sym.slice = slice;
    c->sym_slice = slice;
    return ARM_OK;
}

/* First fit: the lowest offset with len free bytes; the link to insert
 * after in *at. Returns 0 when no range fits. */
static int first_fit(size_t len, size_t *off, sym_block_t ***at)
{
    size_t pos = 0;
    sym_block_t **link = &sym.blocks;
    for (; *link; link = &(*link)->next) {
        if ((*link)->off - pos >= len)
            break;
        pos = (*link)->off + (*link)->len;
    }
    if (sym.heap - pos < len)
        return 0;
    *off = pos;
    *at = link;
    return 1;
}

static size_t largest_free(void)
{
    size_t pos = 0, best = 0;
    for (const sym_block_t *b = sym.blocks; b; b = b->next) {
        best = b->off - pos > best ? b->off - pos : best;
        pos = b->off + b->len;
    }
    return sym.heap - pos > best ? sym.heap - pos : best;
}

arm_status_t arm_sym_alloc(uint64_t id, size_t mine, size_t most, void **ptr_arr, char *why,
                           size_t why_len)
{
    arm_core_t *c = &arm_core;
    if (most == 0) {   /* every member asked for nothing */
        for (int r = 0; r < c->nproc; r++)
            ptr_arr[r] = NULL;
        return ARM_OK;
    }
    size_t len = most > sym.heap ? sym.heap + 1 : (most + SYM_ALIGN - 1) / SYM_ALIGN * SYM_ALIGN;
    size_t off = 0;
    sym_block_t **at = NULL;
    if (!first_fit(len, &off, &at)) {
        snprintf(why, why_len, "argument 'bytes' (largest of the group %zu, rank %d's %zu) "
                 "does not fit the symmetric heap: ARMADA_SYMMETRIC_HEAP=%zu bytes per "
                 "process, largest free range %zu", most, c->me, mine, sym.heap,
                 largest_free());
        return ARM_ERR_NO_MEMORY;
    }
    sym_block_t *b = malloc(sizeof *b);
    if (!b)
        return ARM_ERR_NO_MEMORY;
    *b = (sym_block_t){ off, len, mine, id, *at };
    /* Only this process's own bytes are committed: a member's heap holds
     * pages for what that member asked. */
    if (arm_shm_commit(sym.slice[c->me].local + off, mine) != ARM_OK) {
        free(b);
        snprintf(why, why_len, "the node cannot commit %zu bytes of shared memory for rank %d "
                 "in its symmetric heap", mine, c->me);
        return ARM_ERR_NO_MEMORY;
    }
    *at = b;
    sym.live++;
    for (int r = 0; r < c->nproc; r++)
        ptr_arr[r] = (void *)(sym.slice[r].base + off);
    return ARM_OK;
}

uint64_t arm_sym_find(const void *ptr)
{
    if (!sym.slice)
        return 0;
    uintptr_t off = (uintptr_t)ptr - sym.slice[arm_core.me].base;
    for (const sym_block_t *b = sym.blocks; b && b->off <= off; b = b->next)
        if (b->off == off)
            return b->id + 1;
    return 0;
}

/* Free space in a heap always reads zeros, as a fresh segment does: the
 * pages of [lo, hi) that no other block touches go back to the system, the
 * bytes on pages shared with a neighbour (prev_end, next_off) are cleared. */
static void clear_range(size_t lo, size_t hi, size_t prev_end, size_t next_off)
{
    char *heap = sym.slice[arm_core.me].local;
    size_t pg = sym.page;
    size_t plo = lo / pg * pg, phi = (hi + pg - 1) / pg * pg;
    size_t rlo = prev_end <= plo ? plo : plo + pg;
    size_t rhi = next_off >= phi ? phi : phi - pg;
    if (rlo >= rhi || rlo > hi || rhi < lo) {
        memset(heap + lo, 0, hi - lo);
        return;
    }
    if (lo < rlo)
        memset(heap + lo, 0, rlo - lo);
    if (rhi < hi)
        memset(heap + rhi, 0, hi - rhi);
    arm_shm_release(heap + rlo, rhi - rlo);
}

int arm_sym_free(uint64_t id, size_t *mine)
{
    size_t prev_end = 0;
    for (sym_block_t **link = &sym.blocks; *link; link = &(*link)->next) {
        sym_block_t *b = *link;
        if (b->id != id) {
            prev_end = b->off + b->len;
            continue;
        }
        clear_range(b->off, b->off + b->len, prev_end, b->next ? b->next->off : sym.heap);
        *mine = b->mine;
        *link = b->next;
        free(b);
        sym.live--;
        return 1;
    }
    return 0;
}

size_t arm_sym_fini(void)
{
    size_t held = 0;
    while (sym.blocks) {
        sym_block_t *b = sym.blocks;
        held += b->mine;
        sym.blocks = b->next;
        free(b);
    }
    sym.live = 0;
    arm_core.sym_slice = NULL;
    free(sym.slice);
    sym.slice = NULL;
    sym.alloc = NULL;   /* released with the other internal allocations */
    return held;
}
