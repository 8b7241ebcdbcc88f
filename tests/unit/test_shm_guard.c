/* unit.shm_guard: shared memory reserved at creation and the naming-window
 * guard (decisions 033, 034). A segment larger than /dev/shm's free space
 * is refused with nothing left; a created one has its pages reserved; an
 * armed name is removed when SIGTERM (default action) or SIGINT (a handler
 * of the program's own, which must still run) ends a process, and by
 * arm_shm_guard_unlink_armed; a disarmed one is not touched. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "shm/arm_shm_seg.h"
#include "unit.h"

static unsigned long serial;

static void make_name(char *name, size_t len)
{
    arm_shm_make_name(name, len, 0x5eedULL, (int)getpid(), ++serial);
}

static int exists(const char *name)
{
    char path[128];
    struct stat st;
    snprintf(path, sizeof path, "/dev/shm%s", name);
    return stat(path, &st) == 0;
}

static void test_reserve(void)
{
    char name[ARM_SHM_NAME_MAX];
    arm_shm_seg_t seg;
    long long avail = arm_shm_free_bytes();
    CHECK(avail > 0, "free bytes of /dev/shm: %lld", avail);
    make_name(name, sizeof name);
    CHECK(arm_shm_create(name, (size_t)avail + (1ULL << 30), &seg) == ARM_ERR_NO_MEMORY,
          "a segment past the free space is refused");
    CHECK(!exists(name), "the refused segment left no name");

    make_name(name, sizeof name);
    size_t len = 1 << 20;
    CHECK(arm_shm_create(name, len, &seg) == ARM_OK, "1 MiB segment");
    char path[128];
    struct stat st;
    snprintf(path, sizeof path, "/dev/shm%s", name);
    CHECK(stat(path, &st) == 0 && (size_t)st.st_blocks * 512 >= len,
          "pages reserved at creation: %lld bytes of %zu", (long long)st.st_blocks * 512, len);
    arm_shm_unlink(name);
    arm_shm_detach(&seg);
    printf("unit.shm_guard: refusal past free space, 1 MiB reserved at creation\n");
}

static void own_sigint(int sig)
{
    (void)sig;
    _exit(42);
}

/* A child arms a name, creates the segment, and (mode) raises SIGTERM,
 * raises SIGINT under a handler of its own, disarms first, or unlinks the
 * armed names itself. Returns the child's wait status. */
static int child(const char *name, int mode)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (mode == 1)
            signal(SIGINT, own_sigint);
        int slot = arm_shm_guard_arm(name);
        arm_shm_seg_t seg;
        if (slot < 0 || arm_shm_create(name, 8192, &seg) != ARM_OK)
            _exit(3);
        if (mode == 2)
            arm_shm_guard_disarm(slot);
        if (mode == 3) {
            arm_shm_guard_unlink_armed();
            _exit(0);
        }
        raise(mode == 1 ? SIGINT : SIGTERM);
        _exit(4);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static void test_guard(void)
{
    char name[ARM_SHM_NAME_MAX];
    make_name(name, sizeof name);
    int st = child(name, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "SIGTERM still ends the process (%#x)", st);
    CHECK(!exists(name), "SIGTERM inside the window left no name");

    make_name(name, sizeof name);
    st = child(name, 1);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42, "the program's SIGINT handler ran (%#x)", st);
    CHECK(!exists(name), "SIGINT inside the window left no name");

    make_name(name, sizeof name);
    st = child(name, 3);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "unlink_armed child exit (%#x)", st);
    CHECK(!exists(name), "arm_shm_guard_unlink_armed removed the name");

    make_name(name, sizeof name);
    st = child(name, 2);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "disarmed child ends by SIGTERM (%#x)", st);
    CHECK(exists(name), "a disarmed name is left alone");
    arm_shm_unlink(name);
    printf("unit.shm_guard: SIGTERM (default), SIGINT (own handler chained), abort path, "
           "disarm\n");
}

int main(void)
{
    test_reserve();
    test_guard();
    return unit_finish("unit.shm_guard");
}
