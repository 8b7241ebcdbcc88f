/* Committing and releasing pages of a sparse shared segment, the symmetric
 * heap's (decision 059). The heap is reserved as address space at start;
 * each allocation commits its own pages, each free gives them back. */
#define _GNU_SOURCE   /* MADV_POPULATE_WRITE, MADV_REMOVE */
#include "shm/arm_shm_seg.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "util/arm_log.h"

/* Whole pages around [addr, addr + len). */
static void page_span(void *addr, size_t len, char **start, size_t *span)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)addr / page * page;
    uintptr_t hi = ((uintptr_t)addr + len + page - 1) / page * page;
    *start = (char *)lo;
    *span = (size_t)(hi - lo);
}

arm_status_t arm_shm_commit(void *addr, size_t len)
{
    if (len == 0)
        return ARM_OK;
    char *start;
    size_t span;
    page_span(addr, len, &start, &span);
#ifdef MADV_POPULATE_WRITE
    /* Faults the pages in writable without changing what they hold: a peer
     * may already be writing into them. */
    if (madvise(start, span, MADV_POPULATE_WRITE) == 0)
        return ARM_OK;
    if (errno != EINVAL) {
        arm_log(ARM_LOG_INFO, "shm", "committing %zu bytes of the symmetric heap failed: %s",
                span, strerror(errno));
        return ARM_ERR_NO_MEMORY;
    }
#endif
    /* A kernel without MADV_POPULATE_WRITE (before 5.14): only the free
     * space of /dev/shm can be checked, the pages come at first touch. */
    long long avail = arm_shm_free_bytes();
    if (avail >= 0 && (unsigned long long)span > (unsigned long long)avail)
        return ARM_ERR_NO_MEMORY;
    return ARM_OK;
}

void arm_shm_release(void *addr, size_t len)
{
    if (len == 0)
        return;
    if (madvise(addr, len, MADV_REMOVE) != 0)
        arm_log(ARM_LOG_INFO, "shm", "releasing %zu bytes of the symmetric heap failed: %s",
                len, strerror(errno));
}
