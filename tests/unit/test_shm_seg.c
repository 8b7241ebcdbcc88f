/* unit.shm_seg: shared-memory segments (shm/arm_shm_seg.h).
 * Names, mode 0600, attach from a fork()ed child seeing the parent's writes
 * and the reverse, unlink keeping mappings valid, create of an existing
 * name, and the sweep of segments whose creator is gone. Segments without a
 * name (decision 044): nothing in /dev/shm, attach through the creator's
 * /proc/<pid>/fd/<fd> from another process (also as a non-root user when run
 * as root), attach failing cleanly once the creator has closed it, and the
 * named path still there as the fallback. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
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

/* armada-* entries in /dev/shm made by this process (other jobs on the
 * machine make and remove their own meanwhile). */
static int count_dev_shm(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return -1;
    char mine[32];
    snprintf(mine, sizeof mine, "-%d-", (int)getpid());
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, "armada-", 7) == 0 && strstr(e->d_name, mine) != NULL;
    closedir(d);
    return n;
}

/* A fork()ed child that drops its own copy of the descriptor, opens the
 * segment through the parent's /proc entry, checks area 1 and writes area 2.
 * Exit codes: 20 attach, 21 data, 0 fine. */
static void anon_child(const char *path, int fd)
{
    close(fd);
    arm_shm_seg_t cs;
    memset(&cs, 0, sizeof cs);
    if (arm_shm_attach(path, SEG_LEN, &cs) != ARM_OK)
        _exit(20);
    unsigned char *cb = cs.base;
    if (count_bad(cb + 4096, 1) != 0)
        _exit(21);
    fill(cb + 4096 + AREA, 2);
    arm_shm_detach(&cs);
    _exit(0);
}

static int run_child_status(pid_t pid)
{
    int status = 0;
    if (pid <= 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static void test_anon(void)
{
    char path[ARM_SHM_NAME_MAX];
    arm_shm_handle_path(path, sizeof path, 4321, 17, 99ULL);
    CHECK(strcmp(path, "/proc/4321/fd/17:99") == 0, "handle path '%s'", path);
    CHECK(arm_shm_is_handle(path) && !arm_shm_is_handle("/armada-1-2-3"),
          "is_handle does not tell a handle path from a name");
    CHECK(arm_shm_unlink(path) == ARM_OK, "unlink of a handle path is not a no-op");
    unit_section("handle paths: format, told apart from names, unlink does nothing");

    /* The counter sees a named segment of this process. */
    char name[ARM_SHM_NAME_MAX];
    new_name(name, sizeof name, (int)getpid());
    int before = count_dev_shm();
    arm_shm_seg_t seg;
    memset(&seg, 0, sizeof seg);
    if (arm_shm_create(name, 4096, &seg) == ARM_OK) {
        CHECK(count_dev_shm() == before + 1, "named segment not counted in /dev/shm");
        arm_shm_unlink(name);
        arm_shm_detach(&seg);
    }
    before = count_dev_shm();
    memset(&seg, 0, sizeof seg);
    int fd = -1;
    arm_status_t st = arm_shm_create_anon(SEG_LEN, &seg, &fd);
    CHECK(st == ARM_OK && fd >= 0, "create_anon: status %d fd %d", (int)st, fd);
    if (st != ARM_OK)
        return;
    CHECK(count_dev_shm() == before, "create_anon put something in /dev/shm (%d, was %d)",
          count_dev_shm(), before);
    char link[256] = "";
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    ssize_t ln = readlink(self, link, sizeof link - 1);
    link[ln > 0 ? ln : 0] = '\0';
    CHECK(strncmp(link, "/memfd:armada", 13) == 0, "descriptor is '%s', not a memfd", link);
    CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0, "memfd is not close-on-exec");
    size_t nonzero = 0;
    for (size_t i = 0; i < SEG_LEN; i++)
        nonzero += ((unsigned char *)seg.base)[i] != 0;
    CHECK(seg.len == SEG_LEN && nonzero == 0, "len %zu, %zu non-zero bytes", seg.len, nonzero);
    struct stat fsb;
    CHECK(fstat(fd, &fsb) == 0, "fstat of the memfd");
    arm_shm_handle_path(path, sizeof path, (int)getpid(), fd, (unsigned long long)fsb.st_ino);
    CHECK(strcmp(seg.name, path) == 0, "segment's handle '%s', want '%s'", seg.name, path);
    unsigned char *a = (unsigned char *)seg.base + 4096;
    fill(a, 1);
    /* The same path with another inode is some other file (another pid
     * namespace): refused. So is a size larger than the file. */
    char wrong[ARM_SHM_NAME_MAX];
    arm_shm_handle_path(wrong, sizeof wrong, (int)getpid(), fd,
                        (unsigned long long)fsb.st_ino + 1);
    arm_shm_seg_t bad;
    memset(&bad, 0, sizeof bad);
    printf("    (two warnings about handles not being the segment are expected next)\n");
    fflush(stdout);
    CHECK(arm_shm_attach(wrong, SEG_LEN, &bad) != ARM_OK, "attach with a wrong inode worked");
    CHECK(arm_shm_attach(path, 2 * SEG_LEN, &bad) != ARM_OK, "attach beyond the size worked");
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0)
        anon_child(path, fd);
    int cst = run_child_status(pid);
    CHECK(cst == 0, "child through %s: status %d (20 attach, 21 data)", path, cst);
    CHECK(count_bad(a + AREA, 2) == 0, "parent does not see the child's writes");
    unit_section("create_anon: nothing in /dev/shm, zeros, a child attaches through /proc");

    /* Once the creator closes it, the path is gone and the mapping stays. */
    arm_shm_close_handle(fd);
    arm_shm_seg_t late;
    memset(&late, 0, sizeof late);
    printf("    (a warning about attaching %s is expected next)\n", path);
    fflush(stdout);
    CHECK(arm_shm_attach(path, SEG_LEN, &late) != ARM_OK, "attach after close succeeded");
    CHECK(count_bad(a, 1) == 0 && count_bad(a + AREA, 2) == 0, "mapping changed after close");
    arm_shm_detach(&seg);
    CHECK(count_dev_shm() == before, "/dev/shm changed");
    long long avail = arm_shm_free_bytes();
    if (avail >= 0) {
        fd = -1;
        st = arm_shm_create_anon((size_t)avail + (1ULL << 30), &seg, &fd);
        CHECK(st == ARM_ERR_NO_MEMORY && fd < 0, "create_anon beyond /dev/shm: %d", (int)st);
    }
    unit_section("close: attach fails cleanly (the fallback's trigger), mapping valid, "
                 "too large refused");
}

/* As root: two processes of an ordinary user (dumpable, as a job's are):
 * one creates, the other opens its /proc entry, with no ptrace rights. */
static void test_anon_other_user(void)
{
    if (getuid() != 0) {
        printf("  not root: the unprivileged /proc open is what the other tests did\n");
        return;
    }
    int pfd[2];
    CHECK(pipe(pfd) == 0, "pipe");
    fflush(stdout);
    fflush(stderr);
    pid_t creator = fork();
    if (creator == 0) {
        close(pfd[0]);
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(30);
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        arm_shm_seg_t cs;
        int fd = -1;
        if (arm_shm_create_anon(4096, &cs, &fd) != ARM_OK)
            _exit(31);
        ((volatile unsigned char *)cs.base)[7] = 0x77;
        if (write(pfd[1], cs.name, sizeof cs.name) != (ssize_t)sizeof cs.name)
            _exit(32);
        sleep(10);   /* killed by the parent once the reader is done */
        _exit(0);
    }
    close(pfd[1]);
    char path[ARM_SHM_NAME_MAX];
    int got = creator > 0 && read(pfd[0], path, sizeof path) == (ssize_t)sizeof path;
    close(pfd[0]);
    CHECK(got, "the unprivileged creator did not report its handle");
    if (got) {
        path[sizeof path - 1] = '\0';
        pid_t reader = fork();
        if (reader == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(40);
            prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
            arm_shm_seg_t rs;
            if (arm_shm_attach(path, 4096, &rs) != ARM_OK)
                _exit(41);
            _exit(((volatile unsigned char *)rs.base)[7] == 0x77 ? 0 : 42);
        }
        int rst = run_child_status(reader);
        CHECK(rst == 0, "uid 65534 opening %s of uid 65534: status %d (41 attach, 42 data)",
              path, rst);
    }
    if (creator > 0)
        kill(creator, SIGKILL);
    run_child_status(creator);
    unit_section("an unprivileged user opens another of its processes' memfd via /proc");
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
    test_anon();
    test_anon_other_user();
#ifdef ARMADA_UNIT_HAVE_SWEEP
    test_sweep();
#else
    printf("  arm_shm_sweep_stale not declared in arm_shm_seg.h: sweep not tested\n");
#endif
    return unit_finish("unit.shm_seg");
}
