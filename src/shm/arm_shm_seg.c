#define _POSIX_C_SOURCE 200809L
#include "shm/arm_shm_seg.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "util/arm_log.h"

void arm_shm_make_name(char *name, size_t len, unsigned long long job, int pid,
                       unsigned long serial)
{
    snprintf(name, len, "/armada-%llx-%d-%lu", job, pid, serial);
}

int arm_shm_sweep_stale(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        unsigned long long job;
        int pid;
        unsigned long serial;
        if (strncmp(e->d_name, "armada-", 7) != 0 ||
            sscanf(e->d_name, "armada-%llx-%d-%lu", &job, &pid, &serial) != 3 || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char name[300];
        snprintf(name, sizeof name, "/%s", e->d_name);
        /* A name lives only milliseconds in a healthy job; one younger than
         * this may belong to a job in another pid namespace sharing /dev/shm. */
        struct stat sb;
        char path[320];
        snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
        if (stat(path, &sb) != 0 || time(NULL) - sb.st_mtime < 10)
            continue;
        if (shm_unlink(name) == 0) {
            removed++;
            arm_log(ARM_LOG_INFO, "shm", "removed %s left by a process that is gone", name);
        }
    }
    closedir(d);
    return removed;
}

arm_status_t arm_shm_map_fd(int fd, const char *name, size_t len, arm_shm_seg_t *out)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        arm_log(ARM_LOG_ERROR, "shm", "mmap of %s (%zu bytes) failed: %s", name, len,
                strerror(errno));
        return ARM_ERR_SYSTEM;
    }
    out->base = p;
    out->len = len;
    snprintf(out->name, sizeof out->name, "%s", name);
    return ARM_OK;
}

long long arm_shm_free_bytes(void)
{
    struct statvfs vfs;
    if (statvfs("/dev/shm", &vfs) != 0)
        return -1;
    return (long long)vfs.f_bavail * (long long)vfs.f_frsize;
}

/* Reserves every page of the segment now (decision 033), so that a node
 * short of shared memory fails here, with a message, instead of with SIGBUS
 * at the first touch of a page that is not there. */
arm_status_t arm_shm_reserve(int fd, const char *name, size_t len)
{
    int err;
    do
        err = posix_fallocate(fd, 0, (off_t)len);
    while (err == EINTR);
    if (err == 0)
        return ARM_OK;
    if (err == ENOSPC || err == ENOMEM)
        return ARM_ERR_NO_MEMORY;
    arm_log(ARM_LOG_ERROR, "shm", "reserving %zu bytes for %s failed: %s", len, name,
            strerror(err));
    return ARM_ERR_SYSTEM;
}

static arm_status_t create_named(const char *name, size_t len, int reserve, arm_shm_seg_t *out)
{
    /* Names left in /dev/shm by processes that died are looked for by the
     * first process that makes a name itself, not at every start-up: the
     * default segments have no name (decision 044), and a look through a
     * busy /dev/shm cost start-up 0.1-0.2 ms (decision 097). */
    static int swept;
    if (!__atomic_exchange_n(&swept, 1, __ATOMIC_RELAXED))
        arm_shm_sweep_stale();
    /* Plainly too large: fail before creating anything. */
    long long avail = arm_shm_free_bytes();
    if (reserve && avail >= 0 && (unsigned long long)len > (unsigned long long)avail)
        return ARM_ERR_NO_MEMORY;
    if (!arm_shm_guard_create_begin())
        return ARM_ERR_SYSTEM;   /* this process is ending on a signal */
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    arm_shm_guard_create_end();
    if (fd < 0) {
        if (errno == EEXIST)
            return ARM_ERR_EXISTS;   /* the caller decides whether that is an error */
        arm_log(ARM_LOG_ERROR, "shm", "shm_open(%s) failed: %s", name, strerror(errno));
        return ARM_ERR_SYSTEM;
    }
    arm_status_t st = ARM_OK;
    if (ftruncate(fd, (off_t)len) != 0) {
        arm_log(ARM_LOG_ERROR, "shm", "sizing %s to %zu bytes failed: %s", name, len,
                strerror(errno));
        st = ARM_ERR_SYSTEM;
        goto unlink_name;
    }
    st = reserve ? arm_shm_reserve(fd, name, len) : ARM_OK;
    if (st != ARM_OK)
        goto unlink_name;
    st = arm_shm_map_fd(fd, name, len, out);
    if (st != ARM_OK)
        goto unlink_name;
    close(fd);
    return ARM_OK;

unlink_name:
    shm_unlink(name);
    close(fd);
    return st;
}

arm_status_t arm_shm_create(const char *name, size_t len, arm_shm_seg_t *out)
{
    return create_named(name, len, 1, out);
}

arm_status_t arm_shm_create_sparse(const char *name, size_t len, arm_shm_seg_t *out)
{
    return create_named(name, len, 0, out);
}

arm_status_t arm_shm_attach(const char *name, size_t len, arm_shm_seg_t *out)
{
    /* A segment without a name is reached through its creator's descriptor
     * (decision 044); a named one through /dev/shm. */
    int handle = arm_shm_is_handle(name);
    int fd = handle ? arm_shm_open_handle(name, len) : shm_open(name, O_RDWR, 0600);
    if (fd < 0) {
        if (!handle)
            arm_log(ARM_LOG_ERROR, "shm", "attaching %s failed: %s", name, strerror(errno));
        return ARM_ERR_SYSTEM;
    }
    arm_status_t st = arm_shm_map_fd(fd, name, len, out);
    close(fd);
    return st;
}

arm_status_t arm_shm_unlink(const char *name)
{
    if (arm_shm_is_handle(name))
        return ARM_OK;   /* no name: the creator closes its descriptor instead */
    if (shm_unlink(name) != 0 && errno != ENOENT) {
        arm_log(ARM_LOG_WARN, "shm", "unlinking %s failed: %s", name, strerror(errno));
        return ARM_ERR_SYSTEM;
    }
    return ARM_OK;
}

void arm_shm_detach(arm_shm_seg_t *seg)
{
    if (seg->base && seg->len)
        munmap(seg->base, seg->len);
    seg->base = NULL;
    seg->len = 0;
}
