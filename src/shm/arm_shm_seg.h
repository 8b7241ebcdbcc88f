/* POSIX shared-memory segments of one node. A segment is created by one
 * process (mode 0600, a job-unique name), attached by the others of the node,
 * and unlinked as soon as every one of them has mapped it: from then on no
 * name exists in /dev/shm, so neither a normal end nor a crash leaves any. */
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
arm_status_t arm_shm_attach(const char *name, size_t len, arm_shm_seg_t *out);
/* Removes the name; mappings stay valid. ENOENT is not an error. */
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
