/* unit.shm_sync: the futex mutex and the atomic helpers of
 * shm/arm_shm_sync.h, in a MAP_SHARED anonymous mapping shared by fork()ed
 * processes. Four processes on (typically) fewer cores force the sleeping
 * path of the mutex. */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "shm/arm_shm_sync.h"
#include "unit.h"

#define NPROC 4
#define ITERS 20000

typedef struct {
    arm_shm_mutex_t mutex;
    _Atomic int go;             /* start line, so the workers overlap */
    _Atomic int ready;
    int counter;                /* plain: protected by the mutex */
    int inside;                 /* plain: must never exceed 1 */
    int overlap_seen;
    int sleepers_seen;          /* critical sections entered with state 2 */
    int fadd_i;
    long fadd_l;
    int cas_i;
    long cas_l;
    int swap_i;
    long swap_l;
    long fadd_ret_sum[NPROC];   /* sum of the values fadd returned, per process */
    long fadd_l_ret_sum[NPROC];
    long cas_fail[NPROC];
    _Atomic int child_flag;
    /* swap results: every value each process got back */
    int swap_got_i[NPROC][ITERS];
    long swap_got_l[NPROC][ITERS];
} shared_t;

static shared_t *sh;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void tiny_sleep(long ns)
{
    struct timespec ts = { 0, ns };
    nanosleep(&ts, NULL);
}

/* Runs work(p) in NPROC children; returns how many exited non-zero. */
static int run_workers(void (*work)(int), const char *what, int verbose)
{
    pid_t pids[NPROC];
    atomic_store(&sh->go, 0);
    atomic_store(&sh->ready, 0);
    fflush(stdout);
    fflush(stderr);
    for (int p = 0; p < NPROC; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            alarm(30);          /* a lost wake-up ends as a failure, not a hang */
            atomic_fetch_add(&sh->ready, 1);
            while (!atomic_load(&sh->go))
                sched_yield();
            work(p);
            _exit(0);
        }
        if (pids[p] < 0) {
            fprintf(stderr, "fork: %s\n", strerror(errno));
            exit(2);
        }
    }
    double end = now() + 10;
    while (atomic_load(&sh->ready) < NPROC && now() < end)
        tiny_sleep(100000);
    double t0 = now();
    atomic_store(&sh->go, 1);
    int bad = 0;
    for (int p = 0; p < NPROC; p++) {
        int status = 0;
        waitpid(pids[p], &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            bad++;
    }
    if (verbose)
        printf("    %s: %d processes x %d in %.3f s\n", what, NPROC, ITERS, now() - t0);
    return bad;
}

static void mutex_work(int p)
{
    for (int i = 0; i < ITERS; i++) {
        arm_shm_mutex_lock(&sh->mutex);
        sh->inside++;
        if (sh->inside != 1)
            sh->overlap_seen++;
        if (atomic_load_explicit(&sh->mutex.state, memory_order_relaxed) == 2)
            sh->sleepers_seen++;
        sh->counter++;
        /* Hold it a little now and then so others reach the futex. */
        if ((i & 1023) == (p * 97 & 1023))
            tiny_sleep(20000);
        sh->inside--;
        arm_shm_mutex_unlock(&sh->mutex);
    }
}

static void atomic_work(int p)
{
    long sum = 0, suml = 0, fails = 0;
    for (int i = 0; i < ITERS; i++) {
        sum += arm_shm_fadd_int(&sh->fadd_i, 1);
        suml += arm_shm_fadd_long(&sh->fadd_l, 1L << 33) >> 33;
        /* CAS increment loops. */
        int old = __atomic_load_n(&sh->cas_i, __ATOMIC_RELAXED), prev;
        while ((prev = arm_shm_cas_int(&sh->cas_i, old, old + 1)) != old) {
            old = prev;
            fails++;
        }
        long oldl = __atomic_load_n(&sh->cas_l, __ATOMIC_RELAXED), prevl;
        while ((prevl = arm_shm_cas_long(&sh->cas_l, oldl, oldl + (1L << 32))) != oldl) {
            oldl = prevl;
            fails++;
        }
        /* Swap in a token unique to (p, i). */
        sh->swap_got_i[p][i] = arm_shm_swap_int(&sh->swap_i, p * ITERS + i + 1);
        sh->swap_got_l[p][i] = arm_shm_swap_long(&sh->swap_l, ((long)(p * ITERS + i + 1)) << 32);
        /* Let the others in now and then, so the processes interleave even
         * when fewer cores than processes are free. */
        if ((i & 255) == 255)
            sched_yield();
    }
    sh->fadd_ret_sum[p] = sum;
    sh->fadd_l_ret_sum[p] = suml;
    sh->cas_fail[p] = fails;
}

/* One round; returns the critical sections entered with sleepers. */
static int mutex_round(int round)
{
    memset(sh, 0, sizeof *sh);
    int bad = run_workers(mutex_work, "mutex lock/increment/unlock", round == 0);
    CHECK(bad == 0, "%d workers failed", bad);
    CHECK(sh->counter == NPROC * ITERS, "counter %d, want %d", sh->counter, NPROC * ITERS);
    CHECK(sh->overlap_seen == 0, "two holders at once seen %d times", sh->overlap_seen);
    CHECK(atomic_load(&sh->mutex.state) == 0, "mutex state %u after all unlocked",
          (unsigned)atomic_load(&sh->mutex.state));
    return sh->sleepers_seen;
}

/* Rounds for about a second: whether two processes really run at the same
 * instant depends on the free cores, so one round may not overlap. */
#define MIN_ROUNDS 3
#define MAX_ROUNDS 200
#define ROUND_SECONDS 1.0

static void test_mutex_contention(void)
{
    long sleepers = 0;
    int rounds = 0;
    double end = now() + ROUND_SECONDS, hard_end = now() + 15 * ROUND_SECONDS;
    long failed_before = unit_failed;
    /* On a loaded machine the processes may not overlap for a while: keep
     * going (up to 15 s) until the sleeping path has been seen. */
    while (rounds < MAX_ROUNDS && unit_failed == failed_before &&
           (rounds < MIN_ROUNDS || now() < end || (sleepers == 0 && now() < hard_end)))
        sleepers += mutex_round(rounds++);
    printf("    %d rounds; critical sections entered with sleepers waiting: %ld\n", rounds,
           sleepers);
    CHECK(sleepers > 0, "the sleeping (futex) path was never taken");
    unit_section("mutex: 4 processes x 20000, exact count, never two holders");
}

static void test_trylock(void)
{
    memset(sh, 0, sizeof *sh);
    arm_shm_mutex_t *m = &sh->mutex;
    CHECK(arm_shm_mutex_trylock(m) == 1, "trylock of a zeroed (free) mutex failed");
    CHECK(atomic_load(&m->state) == 1, "state %u after trylock, want 1",
          (unsigned)atomic_load(&m->state));
    CHECK(arm_shm_mutex_trylock(m) == 0, "trylock of a held mutex succeeded");
    arm_shm_mutex_unlock(m);
    CHECK(atomic_load(&m->state) == 0, "state %u after unlock", (unsigned)atomic_load(&m->state));
    CHECK(arm_shm_mutex_trylock(m) == 1, "trylock after unlock failed");
    arm_shm_mutex_unlock(m);
    arm_shm_mutex_lock(m);
    CHECK(arm_shm_mutex_trylock(m) == 0, "trylock succeeded while locked by lock()");
    arm_shm_mutex_unlock(m);

    /* Across processes: held by the parent, a child's trylock fails; the
     * child's lock() sleeps (state 2) until the parent unlocks. */
    arm_shm_mutex_lock(m);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(30);
        if (arm_shm_mutex_trylock(m))
            _exit(20);
        arm_shm_mutex_lock(m);
        atomic_store(&sh->child_flag, 1);
        arm_shm_mutex_unlock(m);
        _exit(0);
    }
    CHECK(pid > 0, "fork failed");
    if (pid <= 0)
        return;
    /* Wait for the child to announce itself as a sleeper. */
    double end = now() + 10;
    while (atomic_load(&m->state) != 2 && now() < end)
        tiny_sleep(200000);
    CHECK(atomic_load(&m->state) == 2, "state %u while a child waits, want 2",
          (unsigned)atomic_load(&m->state));
    tiny_sleep(50 * 1000 * 1000);
    CHECK(atomic_load(&sh->child_flag) == 0, "child got the mutex while the parent held it");
    arm_shm_mutex_unlock(m);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exit %d (20: trylock succeeded)",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    CHECK(atomic_load(&sh->child_flag) == 1, "child never got the mutex");
    CHECK(atomic_load(&m->state) == 0, "state %u at the end", (unsigned)atomic_load(&m->state));
    unit_section("trylock semantics; a blocked child sleeps (state 2) and is woken");
}

static void test_helpers_single(void)
{
    int i = 5;
    long l = 5L << 40;
    CHECK(arm_shm_fadd_int(&i, 3) == 5 && i == 8, "fadd_int: i %d", i);
    CHECK(arm_shm_fadd_int(&i, -10) == 8 && i == -2, "fadd_int negative: i %d", i);
    CHECK(arm_shm_fadd_long(&l, 1L << 40) == 5L << 40 && l == 6L << 40, "fadd_long: l %ld", l);
    CHECK(arm_shm_swap_int(&i, 42) == -2 && i == 42, "swap_int: i %d", i);
    CHECK(arm_shm_swap_long(&l, -1L) == 6L << 40 && l == -1L, "swap_long: l %ld", l);
    /* cas returns the value it found; it stores only on a match. */
    CHECK(arm_shm_cas_int(&i, 42, 7) == 42 && i == 7, "cas_int match: i %d", i);
    CHECK(arm_shm_cas_int(&i, 42, 9) == 7 && i == 7, "cas_int mismatch: i %d", i);
    CHECK(arm_shm_cas_long(&l, -1L, 3L << 35) == -1L && l == 3L << 35, "cas_long match: l %ld", l);
    CHECK(arm_shm_cas_long(&l, 3L, 4L) == 3L << 35 && l == 3L << 35, "cas_long mismatch: l %ld", l);
    /* Only the addressed object changes. */
    int arr[3] = { 1, 2, 3 };
    arm_shm_fadd_int(&arr[1], 100);
    arm_shm_swap_int(&arr[0], 9);
    CHECK(arr[0] == 9 && arr[1] == 102 && arr[2] == 3, "neighbours changed: %d %d %d", arr[0],
          arr[1], arr[2]);
    unit_section("fadd/swap/cas return values and stores, int and long");
}

/* One round; returns the CAS retries (evidence the processes overlapped). */
static long helpers_round(int round)
{
    memset(sh, 0, sizeof *sh);
    int bad = run_workers(atomic_work, "fadd/cas/swap", round == 0);
    CHECK(bad == 0, "%d workers failed", bad);
    const long n = (long)NPROC * ITERS;
    CHECK(sh->fadd_i == n, "fadd_int total %d, want %ld", sh->fadd_i, n);
    CHECK(sh->fadd_l == n << 33, "fadd_long total %ld, want %ld", sh->fadd_l, n << 33);
    /* fadd returned each old value 0..n-1 exactly once, so they sum to
     * n(n-1)/2. */
    long s = 0, sl = 0, fails = 0;
    for (int p = 0; p < NPROC; p++) {
        s += sh->fadd_ret_sum[p];
        sl += sh->fadd_l_ret_sum[p];
        fails += sh->cas_fail[p];
    }
    CHECK(s == n * (n - 1) / 2, "fadd_int returned values sum to %ld, want %ld", s,
          n * (n - 1) / 2);
    CHECK(sl == n * (n - 1) / 2, "fadd_long returned values sum to %ld, want %ld", sl,
          n * (n - 1) / 2);
    CHECK(sh->cas_i == n, "cas_int increments %d, want %ld", sh->cas_i, n);
    CHECK(sh->cas_l == n << 32, "cas_long increments %ld, want %ld", sh->cas_l, n << 32);
    /* Swap: the values handed back plus the final value are the initial 0
     * and every token, each exactly once. */
    unsigned char *seen_i = calloc((size_t)n + 1, 1), *seen_l = calloc((size_t)n + 1, 1);
    long dup_i = 0, dup_l = 0, range = 0;
    for (int p = 0; p < NPROC; p++)
        for (int k = 0; k < ITERS; k++) {
            long vi = sh->swap_got_i[p][k], vl = sh->swap_got_l[p][k] >> 32;
            if (vi < 0 || vi > n || vl < 0 || vl > n || (sh->swap_got_l[p][k] & 0xffffffffL)) {
                range++;
                continue;
            }
            dup_i += seen_i[vi]++ != 0;
            dup_l += seen_l[vl]++ != 0;
        }
    long fi = sh->swap_i, fl = sh->swap_l >> 32;
    if (fi >= 0 && fi <= n)
        dup_i += seen_i[fi]++ != 0;
    if (fl >= 0 && fl <= n)
        dup_l += seen_l[fl]++ != 0;
    long missing_i = 0, missing_l = 0;
    for (long v = 0; v <= n; v++) {
        missing_i += !seen_i[v];
        missing_l += !seen_l[v];
    }
    CHECK(range == 0, "%ld swapped-out values out of range", range);
    CHECK(dup_i == 0 && missing_i == 0, "swap_int: %ld duplicates, %ld missing", dup_i, missing_i);
    CHECK(dup_l == 0 && missing_l == 0, "swap_long: %ld duplicates, %ld missing", dup_l,
          missing_l);
    /* Each process sees its own tokens leave in the order it swapped them
     * in: the value it gets back is never its own later token. */
    long order = 0;
    for (int p = 0; p < NPROC; p++)
        for (int k = 0; k < ITERS; k++) {
            int v = sh->swap_got_i[p][k];
            if (v > p * ITERS && v <= (p + 1) * ITERS && v - 1 - p * ITERS >= k)
                order++;
        }
    CHECK(order == 0, "%ld swaps returned the caller's own current or future token", order);
    free(seen_i);
    free(seen_l);
    return fails;
}

static void test_helpers_contention(void)
{
    long retries = 0;
    int rounds = 0;
    double end = now() + ROUND_SECONDS;
    long failed_before = unit_failed;
    while (rounds < MAX_ROUNDS && (rounds < MIN_ROUNDS || now() < end) &&
           unit_failed == failed_before)
        retries += helpers_round(rounds++);
    printf("    %d rounds; cas retries under contention: %ld\n", rounds, retries);
    unit_section("fadd/cas/swap, int and long: exact under 4-process contention");
}

/* ---- accumulate lock stripes (decision 069) --------------------------------------- */
#define STRIDE 16u
typedef struct {
    arm_shm_mutex_t stripe[ARM_ACC_STRIPES * STRIDE];
    _Atomic int go;
    int data[2048];             /* 8 KiB, page-aligned below: plain ints */
} stripes_t;

static void test_acc_mask(void)
{
    char *b = (char *)(uintptr_t)0x10000;   /* a page-aligned address, never touched */
    CHECK(arm_acc_mask(b, 0) == 0, "nothing: no stripe");
    CHECK(arm_acc_mask(b, 8) == 1u, "first block: stripe 0 (%#x)", arm_acc_mask(b, 8));
    CHECK(arm_acc_mask(b + 512, 512) == 2u, "second block exactly: stripe 1");
    CHECK(arm_acc_mask(b + 504, 16) == 3u, "across the first boundary: stripes 0 and 1");
    CHECK(arm_acc_mask(b + 7 * 512 + 500, 24) == 0x81u, "wrapping: stripes 7 and 0 (%#x)",
          arm_acc_mask(b + 7 * 512 + 500, 24));
    CHECK(arm_acc_mask(b + 4096 + 3 * 512, 8) == 8u, "the pattern repeats every page");
    CHECK(arm_acc_mask(b + 100, 3 * 512) == 0xfu, "four blocks: stripes 0-3 (%#x)",
          arm_acc_mask(b + 100, 3 * 512));
    CHECK(arm_acc_mask(b + 100, 7 * 512) == ARM_ACC_ALL, "eight blocks: every stripe");
    CHECK(arm_acc_mask(b, 1 << 20) == ARM_ACC_ALL, "a MiB: every stripe");

    arm_shm_mutex_t m[ARM_ACC_STRIPES * STRIDE];
    memset(m, 0, sizeof m);
    arm_acc_lock(m, STRIDE, 0x81u);
    CHECK(atomic_load(&m[0].state) == 1 && atomic_load(&m[7 * STRIDE].state) == 1 &&
          atomic_load(&m[STRIDE].state) == 0, "lock takes exactly the stripes of its mask");
    CHECK(!arm_acc_trylock(m, STRIDE, ARM_ACC_ALL), "trylock of all fails while two are held");
    for (unsigned i = 1; i < 7; i++)
        CHECK(atomic_load(&m[i * STRIDE].state) == 0, "a failed trylock leaves stripe %u free",
              i);
    CHECK(arm_acc_trylock(m, STRIDE, 0x7eu), "trylock of the other six succeeds");
    arm_acc_unlock(m, STRIDE, ARM_ACC_ALL);
    for (unsigned i = 0; i < ARM_ACC_STRIPES; i++)
        CHECK(atomic_load(&m[i * STRIDE].state) == 0, "unlock of all frees stripe %u", i);
    arm_acc_lock(m, 0, 0x80u);
    CHECK(atomic_load(&m[0].state) == 1, "stride 0: the one mutex, whatever the mask");
    CHECK(!arm_acc_trylock(m, 0, 1u), "stride 0: held");
    arm_acc_unlock(m, 0, 0x80u);
    CHECK(atomic_load(&m[0].state) == 0, "stride 0: freed");
    unit_section("accumulate stripes: masks by 512-byte block, all-or-none trylock");
}

/* The next range [*first, *first + *n) of ints of stream x. */
static void next_range(unsigned *x, int *first, int *n)
{
    *x = *x * 1103515245u + 12345u;
    *first = (int)((*x >> 8) % 2048);
    *n = 1 + (int)((*x >> 20) % 300);
    if (*first + *n > 2048)
        *n = 2048 - *first;
}

/* NPROC processes add 1 to every int of ranges that start at varied
 * offsets and straddle blocks, under arm_acc_lock of the ranges' masks,
 * with plain read-modify-writes: a stripe left out would lose updates. */
static void test_acc_stripes_contention(void)
{
    size_t len = (sizeof(stripes_t) + 4095) & ~(size_t)4095;
    stripes_t *st = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(st != MAP_FAILED, "mmap");
    if (st == MAP_FAILED)
        return;
    enum { ROUNDS = 3000 };
    pid_t pid[NPROC];
    fflush(stdout);
    for (int p = 0; p < NPROC; p++) {
        pid[p] = fork();
        if (pid[p] == 0) {
            alarm(30);
            while (!atomic_load(&st->go))
                sched_yield();
            unsigned x = 12345u + 977u * (unsigned)p;
            for (int i = 0; i < ROUNDS; i++) {
                int first, n;
                next_range(&x, &first, &n);
                unsigned mask = arm_acc_mask(&st->data[first], (size_t)n * sizeof(int));
                arm_acc_lock(st->stripe, STRIDE, mask);
                for (int k = first; k < first + n; k++) {
                    int v = st->data[k];
                    if ((k & 63) == 0)
                        sched_yield();   /* widen the window */
                    st->data[k] = v + 1;
                }
                arm_acc_unlock(st->stripe, STRIDE, mask);
            }
            _exit(0);
        }
    }
    atomic_store(&st->go, 1);
    int ok = 1;
    for (int p = 0; p < NPROC; p++) {
        int status = 0;
        waitpid(pid[p], &status, 0);
        ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    CHECK(ok, "a worker failed");
    /* The same ranges, replayed: what every int must hold. */
    static int want[2048];
    memset(want, 0, sizeof want);
    for (int p = 0; p < NPROC; p++) {
        unsigned x = 12345u + 977u * (unsigned)p;
        for (int i = 0; i < ROUNDS; i++) {
            int first, n;
            next_range(&x, &first, &n);
            for (int k = first; k < first + n; k++)
                want[k]++;
        }
    }
    int bad = -1;
    for (int k = 0; k < 2048 && bad < 0; k++)
        if (st->data[k] != want[k])
            bad = k;
    CHECK(bad < 0, "int %d holds %d, want %d: an update was lost", bad,
          bad < 0 ? 0 : st->data[bad], bad < 0 ? 0 : want[bad]);
    for (unsigned i = 0; i < ARM_ACC_STRIPES; i++)
        CHECK(atomic_load(&st->stripe[i * STRIDE].state) == 0, "stripe %u free at the end", i);
    munmap(st, len);
    unit_section("accumulate stripes: 4 processes, straddling ranges, no update lost");
}

int main(void)
{
    alarm(50);
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    test_trylock();
    test_mutex_contention();
    test_helpers_single();
    test_helpers_contention();
    test_acc_mask();
    test_acc_stripes_contention();
    munmap(sh, sizeof *sh);
    return unit_finish("unit.shm_sync");
}
