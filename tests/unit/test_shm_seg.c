/* unit.shm_seg: POSIX shared-memory segments (shm/arm_shm_seg.h).
 * Names, mode 0600, attach from a fork()ed child seeing the parent's writes
 * and the reverse, unlink keeping mappings valid, create of an existing
 * name, and the sweep of segments whose creator is gone. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "shm/arm_shm_seg.h"
#include "unit.h"

#define SEG_LEN (256 * 1024)
#define AREA (64 * 1024)            /* three data areas after the header page */

typedef struct {
    _Atomic int child_attached;
    _Atomic int parent_wrote;
    _Atomic int child_wrote;
} handshake_t;

static unsigned long long job_id;
static unsigned long serial;

static void new_name(char *buf, size_t len, int pid)
{
    arm_shm_make_name(buf, len, job_id, pid, serial++);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits up to 10 s for *flag to become 1. */
static int wait_flag(_Atomic int *flag)
{
    double end = now() + 10.0;
    while (atomic_load(flag) != 1) {
        if (now() > end)
            return 0;
        struct timespec ts = { 0, 100000 };
        nanosleep(&ts, NULL);
    }
    return 1;
}

static unsigned char pat(int area, size_t i)
{
    return (unsigned char)(area * 37 + i * 11 + (i >> 9));
}

static void fill(unsigned char *p, int area)
{
    for (size_t i = 0; i < AREA; i++)
        p[i] = pat(area, i);
}

static size_t count_bad(const unsigned char *p, int area)
{
    size_t bad = 0;
    for (size_t i = 0; i < AREA; i++)
        bad += p[i] != pat(area, i);
    return bad;
}

static void dev_shm_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/dev/shm/%s", name[0] == '/' ? name + 1 : name);
}

static void test_names(void)
{
    char name[ARM_SHM_NAME_MAX], want[ARM_SHM_NAME_MAX];
    arm_shm_make_name(name, sizeof name, 0xabcdef123ULL, 4321, 77);
    CHECK(strcmp(name, "/armada-abcdef123-4321-77") == 0, "make_name gave '%s'", name);
    snprintf(want, sizeof want, "/armada-%llx-%d-%lu", job_id, (int)getpid(), 5UL);
    arm_shm_make_name(name, sizeof name, job_id, (int)getpid(), 5);
    CHECK(strcmp(name, want) == 0, "make_name gave '%s', want '%s'", name, want);
    /* A short buffer is truncated and terminated. */
    char small[10];
    memset(small, 'x', sizeof small);
    arm_shm_make_name(small, sizeof small, 0xffffffffffffffffULL, 99999, 99999);
    CHECK(memchr(small, '\0', sizeof small) != NULL && strncmp(small, "/armada-", 8) == 0,
          "short make_name not terminated");
    unit_section("arm_shm_make_name format and truncation");
}

static void test_create_attach(void)
{
    char name[ARM_SHM_NAME_MAX], path[128];
    new_name(name, sizeof name, (int)getpid());
    dev_shm_path(path, sizeof path, name);

    arm_shm_seg_t seg;
    memset(&seg, 0, sizeof seg);
    arm_status_t st = arm_shm_create(name, SEG_LEN, &seg);
    CHECK(st == ARM_OK, "create %s: status %d", name, (int)st);
    if (st != ARM_OK)
        return;
    CHECK(seg.base != NULL && seg.len == SEG_LEN && strcmp(seg.name, name) == 0,
          "segment fields: base %p len %zu name '%s'", seg.base, seg.len, seg.name);

    struct stat sb;
    int sr = stat(path, &sb);
    CHECK(sr == 0, "stat %s: %s", path, strerror(errno));
    if (sr == 0) {
        CHECK((sb.st_mode & 07777) == 0600, "%s has mode %o, want 600", path,
              (unsigned)(sb.st_mode & 07777));
        CHECK(sb.st_size == SEG_LEN, "%s has size %lld, want %d", path, (long long)sb.st_size,
              SEG_LEN);
        CHECK(sb.st_uid == getuid(), "%s owned by uid %d", path, (int)sb.st_uid);
    }
    /* A new segment reads as zeros. */
    size_t nonzero = 0;
    for (size_t i = 0; i < SEG_LEN; i++)
        nonzero += ((unsigned char *)seg.base)[i] != 0;
    CHECK(nonzero == 0, "new segment has %zu non-zero bytes", nonzero);

    /* Create of the same name fails with ARM_ERR_EXISTS and leaves the
     * segment alone. */
    unsigned char *base = seg.base;
    handshake_t *hs = seg.base;
    unsigned char *a = base + 4096, *b = a + AREA, *c = b + AREA;
    fill(a, 1);
    arm_shm_seg_t dup;
    memset(&dup, 0, sizeof dup);
    printf("    (an error message about %s existing is expected next)\n", name);
    fflush(stdout);
    st = arm_shm_create(name, SEG_LEN, &dup);
    CHECK(st == ARM_ERR_EXISTS, "second create of %s: status %d, want ARM_ERR_EXISTS %d", name,
          (int)st, (int)ARM_ERR_EXISTS);
    CHECK(stat(path, &sb) == 0, "failed create removed %s", path);
    CHECK(count_bad(a, 1) == 0, "failed create changed the contents");

    /* A local second attach maps the same memory at another address. */
    arm_shm_seg_t again;
    memset(&again, 0, sizeof again);
    st = arm_shm_attach(name, SEG_LEN, &again);
    CHECK(st == ARM_OK && again.base && again.base != seg.base, "attach in the creator: %d",
          (int)st);
    if (st == ARM_OK) {
        CHECK(count_bad((unsigned char *)again.base + 4096, 1) == 0,
              "second mapping does not show the first's bytes");
        ((unsigned char *)again.base)[SEG_LEN - 1] = 0x5c;
        CHECK(base[SEG_LEN - 1] == 0x5c, "write through the second mapping not seen");
        base[SEG_LEN - 1] = 0;
        arm_shm_detach(&again);
        CHECK(again.base == NULL && again.len == 0, "detach left base %p len %zu", again.base,
              again.len);
    }
    unit_section("create: fields, mode 0600, size, zeros, EXISTS, local attach");

    /* A fork()ed child attaches by name. */
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        arm_shm_seg_t cs;
        memset(&cs, 0, sizeof cs);
        if (arm_shm_attach(name, SEG_LEN, &cs) != ARM_OK)
            _exit(10);
        if (cs.base == seg.base)
            _exit(11);      /* must be a new mapping, not the inherited one */
        unsigned char *cb = cs.base;
        handshake_t *ch = cs.base;
        if (count_bad(cb + 4096, 1) != 0)
            _exit(12);
        atomic_store(&ch->child_attached, 1);
        if (!wait_flag(&ch->parent_wrote))
            _exit(13);
        if (count_bad(cb + 4096 + AREA, 2) != 0)
            _exit(14);
        fill(cb + 4096 + 2 * AREA, 3);
        atomic_store(&ch->child_wrote, 1);
        arm_shm_detach(&cs);
        _exit(0);
    }
    CHECK(pid > 0, "fork failed: %s", strerror(errno));
    if (pid > 0) {
        int ok = wait_flag(&hs->child_attached);
        CHECK(ok, "child did not attach within 10 s");
        fill(b, 2);             /* written after the child attached */
        atomic_store(&hs->parent_wrote, 1);
        ok = ok && wait_flag(&hs->child_wrote);
        CHECK(ok, "child did not write within 10 s");
        CHECK(count_bad(c, 3) == 0, "parent does not see the child's writes");
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "child failed: status %d (10 attach, 11 same address, 12 pre-fork data, "
              "13 timeout, 14 post-attach data)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    unit_section("fork()ed child attaches: sees parent's writes and vice versa");

    /* Unlink: the name goes, the mapping stays. */
    st = arm_shm_unlink(name);
    CHECK(st == ARM_OK, "unlink: status %d", (int)st);
    errno = 0;
    CHECK(stat(path, &sb) != 0 && errno == ENOENT, "%s still exists after unlink", path);
    CHECK(count_bad(c, 3) == 0 && count_bad(a, 1) == 0, "mapping changed after unlink");
    fill(b, 4);
    CHECK(count_bad(b, 4) == 0, "mapping not writable after unlink");
    arm_shm_seg_t late;
    memset(&late, 0, sizeof late);
    printf("    (an error message about attaching %s is expected next)\n", name);
    fflush(stdout);
    st = arm_shm_attach(name, SEG_LEN, &late);
    CHECK(st != ARM_OK, "attach after unlink succeeded");
    st = arm_shm_unlink(name);
    CHECK(st == ARM_OK, "second unlink (ENOENT) gave status %d", (int)st);

    /* The name is free again: a new create succeeds and is a new segment. */
    arm_shm_seg_t fresh;
    memset(&fresh, 0, sizeof fresh);
    st = arm_shm_create(name, 4096, &fresh);
    CHECK(st == ARM_OK, "create after unlink: status %d", (int)st);
    if (st == ARM_OK) {
        CHECK(((unsigned char *)fresh.base)[4095] == 0 && ((handshake_t *)fresh.base)->child_wrote == 0,
              "re-created segment shows old contents");
        arm_shm_unlink(name);
        arm_shm_detach(&fresh);
    }
    arm_shm_detach(&seg);
    CHECK(seg.base == NULL && seg.len == 0, "detach did not clear the segment");
    unit_section("unlink: name gone, mapping valid, attach fails, ENOENT ok");
}

#ifdef ARMADA_UNIT_HAVE_SWEEP
static void test_sweep(void)
{
    /* A pid that is certainly gone: a child that has exited and been reaped. */
    fflush(stdout);
    fflush(stderr);
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    CHECK(dead > 0, "fork failed");
    if (dead <= 0)
        return;
    waitpid(dead, NULL, 0);
    CHECK(kill(dead, 0) != 0 && errno == ESRCH, "pid %d still exists", (int)dead);

    char dead_name[ARM_SHM_NAME_MAX], live_name[ARM_SHM_NAME_MAX], dpath[128], lpath[128];
    new_name(dead_name, sizeof dead_name, (int)dead);
    new_name(live_name, sizeof live_name, (int)getpid());
    dev_shm_path(dpath, sizeof dpath, dead_name);
    dev_shm_path(lpath, sizeof lpath, live_name);
    arm_shm_seg_t ds, ls;
    memset(&ds, 0, sizeof ds);
    memset(&ls, 0, sizeof ls);
    arm_status_t st1 = arm_shm_create(dead_name, 4096, &ds);
    arm_status_t st2 = arm_shm_create(live_name, 4096, &ls);
    CHECK(st1 == ARM_OK && st2 == ARM_OK, "creating the sweep segments: %d %d", (int)st1,
          (int)st2);
    struct stat sb;
    CHECK(stat(dpath, &sb) == 0 && stat(lpath, &sb) == 0, "sweep segments not in /dev/shm");

    /* The sweep leaves names younger than 10 s alone (another pid namespace
     * may own them): age both segments. */
    struct timespec old_times[2] = { { time(NULL) - 60, 0 }, { time(NULL) - 60, 0 } };
    CHECK(utimensat(AT_FDCWD, dpath, old_times, 0) == 0 &&
          utimensat(AT_FDCWD, lpath, old_times, 0) == 0, "ageing the sweep segments");
    int removed = arm_shm_sweep_stale();
    printf("    sweep removed %d segment(s)\n", removed);
    errno = 0;
    CHECK(stat(dpath, &sb) != 0 && errno == ENOENT, "%s (dead pid %d) survived the sweep",
          dpath, (int)dead);
    CHECK(stat(lpath, &sb) == 0, "%s (live pid %d) was removed by the sweep", lpath,
          (int)getpid());
    /* Another agent's sweep may have got there first, so only >= 0 is
     * certain; ours normally removes it. */
    CHECK(removed >= 0, "sweep returned %d", removed);
    /* The mapping of a swept segment stays valid. */
    ((volatile unsigned char *)ds.base)[100] = 7;
    CHECK(((volatile unsigned char *)ds.base)[100] == 7, "swept mapping not usable");
    /* A second sweep leaves the live one. */
    arm_shm_sweep_stale();
    CHECK(stat(lpath, &sb) == 0, "%s removed by a second sweep", lpath);
    arm_shm_unlink(live_name);
    arm_shm_unlink(dead_name);
    arm_shm_detach(&ds);
    arm_shm_detach(&ls);
    unit_section("sweep: removes a dead creator's segment, keeps a live one");
}
#endif

int main(void)
{
    job_id = ((unsigned long long)getpid() << 24) ^ (unsigned long long)time(NULL);
    test_names();
    test_create_attach();
#ifdef ARMADA_UNIT_HAVE_SWEEP
    test_sweep();
#else
    printf("  arm_shm_sweep_stale not declared in arm_shm_seg.h: sweep not tested\n");
#endif
    return unit_finish("unit.shm_seg");
}
