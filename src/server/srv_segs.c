/* The server's registered segments: sorted by base, found by binary search
 * (O(log segments) per address), mapped through the shm layer. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "server/srv_int.h"
#include "shm/arm_shm_seg.h"

static srv_seg_t *seg_find(struct arm_server *s, uint64_t addr, uint64_t len)
{
    int lo = 0, hi = s->nsegs - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        srv_seg_t *g = &s->segs[mid];
        uint64_t base = (uint64_t)(uintptr_t)g->base;
        if (addr < base)
            hi = mid - 1;
        else if (addr - base >= g->len)
            lo = mid + 1;
        else
            return addr - base + len <= g->len ? g : NULL;
    }
    return NULL;
}

char *srv_addr(struct arm_server *s, uint64_t raddr, uint64_t len, char *why)
{
    if (seg_find(s, raddr, len ? len : 1))
        return (char *)(uintptr_t)raddr;
    snprintf(why, SRV_WHY_MAX, "address [%#llx, +%llu) is outside every registered segment "
             "of node %d", (unsigned long long)raddr, (unsigned long long)len, s->p.node);
    return NULL;
}

arm_status_t srv_seg_add(struct arm_server *s, void *base, size_t len, int mapped,
                         srv_seg_t *out)
{
    srv_seg_t g = { base, len, NULL, mapped };
    if (s->nsegs == s->segcap) {
        int cap = s->segcap ? 2 * s->segcap : 16;
        srv_seg_t *ns = realloc(s->segs, (size_t)cap * sizeof *ns);
        if (!ns)
            return ARM_ERR_NO_MEMORY;
        s->segs = ns;
        s->segcap = cap;
    }
    arm_status_t st = s->x->mem_reg(s->xctx, base, len, &g.reg);
    if (st != ARM_OK)
        return st;
    int pos = s->nsegs;
    while (pos > 0 && s->segs[pos - 1].base > g.base)
        pos--;
    memmove(&s->segs[pos + 1], &s->segs[pos], (size_t)(s->nsegs - pos) * sizeof g);
    s->segs[pos] = g;
    s->nsegs++;
    if (out)
        *out = g;
    return ARM_OK;
}

arm_status_t srv_seg_map(struct arm_server *s, const char *name, size_t len, srv_seg_t *out)
{
    arm_shm_seg_t m;
    arm_status_t st = arm_shm_attach(name, len, &m);
    if (st != ARM_OK)
        return st;
    st = srv_seg_add(s, m.base, len, 1, out);
    if (st != ARM_OK)
        arm_shm_detach(&m);
    return st;
}

arm_status_t srv_seg_remove(struct arm_server *s, uint64_t base)
{
    srv_seg_t *g = seg_find(s, base, 1);
    if (!g || (uint64_t)(uintptr_t)g->base != base)
        return ARM_ERR_NOT_FOUND;
    s->x->mem_dereg(s->xctx, g->reg);
    if (g->mapped)
        munmap(g->base, g->len);
    int pos = (int)(g - s->segs);
    memmove(&s->segs[pos], &s->segs[pos + 1], (size_t)(s->nsegs - pos - 1) * sizeof *g);
    s->nsegs--;
    return ARM_OK;
}

void srv_segs_clear(struct arm_server *s)
{
    while (s->nsegs > 0)
        srv_seg_remove(s, (uint64_t)(uintptr_t)s->segs[0].base);
    free(s->segs);
    s->segs = NULL;
    s->segcap = 0;
}
