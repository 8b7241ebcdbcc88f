/* Segments without a name (decision 044): an anonymous memory file
 * (memfd_create) held open by its creator, opened by the other members of
 * the node and by the node's server through /proc/<creator pid>/fd/<fd>.
 * Nothing appears in /dev/shm, and the kernel frees the memory with its last
 * descriptor or mapping, however the processes end. */
#define _GNU_SOURCE   /* memfd_create */
#include "shm/arm_shm_seg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "util/arm_log.h"

void arm_shm_handle_path(char *path, size_t len, int pid, int fd)
{
    snprintf(path, len, "%s%d/fd/%d", ARM_SHM_HANDLE_PREFIX, pid, fd);
}

int arm_shm_is_handle(const char *name)
{
    return strncmp(name, ARM_SHM_HANDLE_PREFIX, sizeof ARM_SHM_HANDLE_PREFIX - 1) == 0;
}

arm_status_t arm_shm_create_anon(size_t len, arm_shm_seg_t *out, int *fd_out)
{
    *fd_out = -1;
    long long avail = arm_shm_free_bytes();
    if (avail >= 0 && (unsigned long long)len > (unsigned long long)avail)
        return ARM_ERR_NO_MEMORY;
#ifdef MFD_CLOEXEC
    int fd = memfd_create("armada", MFD_CLOEXEC);
#else
    int fd = -1;
    errno = ENOSYS;
#endif
    if (fd < 0) {
        arm_log(ARM_LOG_INFO, "shm", "memfd_create failed (%s): segments get names",
                strerror(errno));
        return ARM_ERR_UNSUPPORTED;
    }
    char path[ARM_SHM_NAME_MAX];
    arm_shm_handle_path(path, sizeof path, (int)getpid(), fd);
    arm_status_t st = ARM_ERR_SYSTEM;
    if (ftruncate(fd, (off_t)len) != 0)
        arm_log(ARM_LOG_ERROR, "shm", "sizing %s to %zu bytes failed: %s", path, len,
                strerror(errno));
    else if ((st = arm_shm_reserve(fd, path, len)) == ARM_OK)
        st = arm_shm_map_fd(fd, path, len, out);
    if (st != ARM_OK) {
        close(fd);
        return st;
    }
    *fd_out = fd;
    return ARM_OK;
}

void arm_shm_close_handle(int fd)
{
    if (fd >= 0)
        close(fd);
}
