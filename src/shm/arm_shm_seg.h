/* Shared-memory segments of one node. A segment is created by one process
 * and attached by the others of the node. Without a name (decision 044): an
 * anonymous memory file, attached through /proc/<creator pid>/fd/<fd>, whose
 * creator closes its descriptor once every member has mapped it. With a name
 * (the fallback; mode 0600, a job-unique name): unlinked as soon as every
 * member has mapped it (decision 001). Either way nothing is left in
 * /dev/shm after a normal end or a crash. */
#ifndef ARM_SHM_SEG_H
#define ARM_SHM_SEG_H

#include <stddef.h>
#include "util/arm_status.h"

#define ARM_SHM_NAME_MAX 64

typedef struct arm_shm_seg {
    void  *base;
    size_t len;
    char   name[ARM_SHM_NAME_MAX];
} arm_shm_seg_t;

/* Writes "/armada-<job>-<pid>-<serial>" into name: pid is the creating
 * process, so a segment whose creator is gone can be recognised. */
void arm_shm_make_name(char *name, size_t len, unsigned long long job, int pid,
                       unsigned long serial);
/* Crash clean-up: removes every /dev/shm/armada-* segment whose creating
 * process no longer exists (left only if a job died in the instant between
 * creating a segment and unlinking it). Returns how many were removed. */
int arm_shm_sweep_stale(void);
/* Creates, sizes, reserves (every page, posix_fallocate) and maps a
 * segment. ARM_ERR_NO_MEMORY: /dev/shm cannot hold len bytes; nothing is
 * left behind. */
arm_status_t arm_shm_create(const char *name, size_t len, arm_shm_seg_t *out);
/* Bytes /dev/shm can still give (statvfs); -1 when it cannot be asked. */
long long arm_shm_free_bytes(void);
/* Attaches a segment: name is either a /dev/shm name or a handle (see
 * arm_shm_handle_path). */
arm_status_t arm_shm_attach(const char *name, size_t len, arm_shm_seg_t *out);

/* Segments without a name (arm_shm_memfd.c, decision 044). create_anon
 * checks the size against /dev/shm like arm_shm_create, then makes, sizes,
 * reserves and maps an anonymous memory file, leaves its descriptor open in
 * *fd and its handle in out->name. ARM_ERR_UNSUPPORTED: no memfd here (use
 * a name instead); ARM_ERR_NO_MEMORY: the memory cannot be had. Nothing is
 * left behind when it fails. */
#define ARM_SHM_HANDLE_PREFIX "/proc/"
arm_status_t arm_shm_create_anon(size_t len, arm_shm_seg_t *out, int *fd);
/* Writes a handle, "/proc/<pid>/fd/<fd>:<inode>": the path other processes
 * open, and the inode that tells them it is the creator's file. */
void arm_shm_handle_path(char *path, size_t len, int pid, int fd, unsigned long long ino);
/* Whether name is a handle rather than a /dev/shm name. */
int arm_shm_is_handle(const char *name);
/* Opens a handle and checks its inode and size; -1 (logged) when not. */
int arm_shm_open_handle(const char *handle, size_t len);
/* The creator's close once every member has mapped the segment. */
void arm_shm_close_handle(int fd);
/* The symmetric heap's segment (arm_shm_heap.c, decision 059): created like
 * the two above, but sized without reserving any page, so that it costs
 * address space only; the pages of each allocation are committed with
 * arm_shm_commit and given back with arm_shm_release. */
arm_status_t arm_shm_create_sparse(const char *name, size_t len, arm_shm_seg_t *out);
arm_status_t arm_shm_create_anon_sparse(size_t len, arm_shm_seg_t *out, int *fd);
/* Commits the pages of [addr, addr + len) of a shared mapping now, so that a
 * node short of memory fails here rather than with SIGBUS at a first touch.
 * ARM_ERR_NO_MEMORY when the pages cannot be had. */
arm_status_t arm_shm_commit(void *addr, size_t len);
/* Gives the pages of [addr, addr + len) back to the system (every mapping
 * of the segment then reads zeros there). addr and len: whole pages. */
void arm_shm_release(void *addr, size_t len);
/* Within the shm layer: posix_fallocate every page (decision 033) and map. */
arm_status_t arm_shm_reserve(int fd, const char *name, size_t len);
arm_status_t arm_shm_map_fd(int fd, const char *name, size_t len, arm_shm_seg_t *out);
/* Removes the name; mappings stay valid. ENOENT is not an error, and a
 * handle path has no name: nothing to do. */
arm_status_t arm_shm_unlink(const char *name);
void arm_shm_detach(arm_shm_seg_t *seg);

/* Interruption guard (arm_shm_guard.c, decision 034): while armed, the
 * name is unlinked if SIGINT or SIGTERM arrives; the signal then goes on to
 * the handler installed before (or its default action). The first arm
 * installs the handlers. Returns a slot for disarm, -1 when none is free. */
int arm_shm_guard_arm(const char *name);
void arm_shm_guard_disarm(int slot);
/* Unlinks every armed name now (async-signal-safe): for the signal handler
 * and for a process that stops the job itself (arm_core_abort). */
void arm_shm_guard_unlink_armed(void);
/* Bracket the shm_open that creates a name; begin returns 0 when the
 * process is ending on a signal (create nothing then). */
int arm_shm_guard_create_begin(void);
void arm_shm_guard_create_end(void);

#endif
