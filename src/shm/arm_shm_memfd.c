/* Segments without a name (decision 044): an anonymous memory file
 * (memfd_create) held open by its creator, opened by the other members of
 * the node and by the node's server through /proc/<creator pid>/fd/<fd>.
 * Nothing appears in /dev/shm, and the kernel frees the memory with its last
 * descriptor or mapping, however the processes end. */
#define _GNU_SOURCE   /* memfd_create */
#include "shm/arm_shm_seg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/arm_log.h"

void arm_shm_handle_path(char *path, size_t len, int pid, int fd, unsigned long long ino)
{
    snprintf(path, len, "%s%d/fd/%d:%llu", ARM_SHM_HANDLE_PREFIX, pid, fd, ino);
}

int arm_shm_is_handle(const char *name)
{
    return strncmp(name, ARM_SHM_HANDLE_PREFIX, sizeof ARM_SHM_HANDLE_PREFIX - 1) == 0;
}

/* Opens a handle "/proc/<pid>/fd/<fd>:<inode>" and checks that it is the
 * creator's file: in another pid namespace the same pid may be another
 * process of the same user. Returns the descriptor, or -1 (logged). */
int arm_shm_open_handle(const char *handle, size_t len)
{
    char path[ARM_SHM_NAME_MAX];
    const char *colon = strrchr(handle, ':');
    size_t plen = colon ? (size_t)(colon - handle) : 0;
    if (!colon || plen >= sizeof path) {
        arm_log(ARM_LOG_WARN, "shm", "'%s' is not a segment handle", handle);
        return -1;
    }
    memcpy(path, handle, plen);
    path[plen] = '\0';
    unsigned long long ino = strtoull(colon + 1, NULL, 10);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        arm_log(ARM_LOG_WARN, "shm", "attaching %s failed: %s", path, strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (unsigned long long)sb.st_ino != ino ||
        (unsigned long long)sb.st_size < (unsigned long long)len) {
        arm_log(ARM_LOG_WARN, "shm", "%s is not the segment of %zu bytes its creator made "
                "(another pid namespace?)", path, len);
        close(fd);
        return -1;
    }
    return fd;
}

static arm_status_t create_anon(size_t len, int reserve, arm_shm_seg_t *out, int *fd_out)
{
    *fd_out = -1;
    long long avail = arm_shm_free_bytes();
    if (reserve && avail >= 0 && (unsigned long long)len > (unsigned long long)avail)
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
    char handle[ARM_SHM_NAME_MAX];
    struct stat sb;
    arm_status_t st = ARM_ERR_SYSTEM;
    if (fstat(fd, &sb) != 0 || ftruncate(fd, (off_t)len) != 0) {
        arm_log(ARM_LOG_ERROR, "shm", "making a memfd of %zu bytes failed: %s", len,
                strerror(errno));
    } else {
        arm_shm_handle_path(handle, sizeof handle, (int)getpid(), fd,
                            (unsigned long long)sb.st_ino);
        st = reserve ? arm_shm_reserve(fd, handle, len) : ARM_OK;
        if (st == ARM_OK)
            st = arm_shm_map_fd(fd, handle, len, out);
    }
    if (st != ARM_OK) {
        close(fd);
        return st;
    }
    *fd_out = fd;
    return ARM_OK;
}

arm_status_t arm_shm_create_anon(size_t len, arm_shm_seg_t *out, int *fd)
{
    return create_anon(len, 1, out, fd);
}

arm_status_t arm_shm_create_anon_sparse(size_t len, arm_shm_seg_t *out, int *fd)
{
    return create_anon(len, 0, out, fd);
}

void arm_shm_close_handle(int fd)
{
    if (fd >= 0)
        close(fd);
}
