/* armada-ra: RandomAccess (GUPS) on a global table of 2^k 64-bit words,
 * updated by ARMCI accumulates (T[i] += v) from HPCC's random stream.
 *
 *   armada-ra [-k|--log2 K] [-u|--updates N] [-b|--batch N] [-w|--window N]
 *             [-t|--time-bound S] [-m|--mode vector|single]
 *
 * Exit status: 0 when every word verifies, 1 when one does not, 2 on a usage
 * or setup error. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ra.h"

#define RA_MAX_LOG2 40
#define RA_MAX_BATCH 1048576
#define RA_MAX_WINDOW 64
#define RA_MAX_UPDATES (UINT64_C(1) << 50)
#define RA_MAX_BOUND 86400

static void usage(FILE *out)
{
    fprintf(out,
            "usage: armada-ra [-k|--log2 K] [-u|--updates N] [-b|--batch N] [-w|--window N]\n"
            "                 [-t|--time-bound S] [-m|--mode vector|single]\n"
            "  -k K  table of 2^K 64-bit words over all processes (1..%d, default 20)\n"
            "  -u N  updates in all (default 4 x 2^K)\n"
            "  -b N  updates per vector accumulate to one owner (1..%d, default 1024)\n"
            "  -w N  vector accumulates in flight per owner (1..%d, default 4)\n"
            "  -t S  no update starts after S seconds, like HPCC's time bound\n"
            "        (0..%d, 0: none, default 60); the GUPS count the updates made\n"
            "  -m M  vector: ARMCI_NbAccV of the batch, one 8-byte segment per update;\n"
            "        single: one blocking ARMCI_Acc per update (no batching)\n",
            RA_MAX_LOG2, RA_MAX_BATCH, RA_MAX_WINDOW, RA_MAX_BOUND);
}

/* A whole decimal number in [lo, hi], or -1 after a message naming the option. */
static int parse_num(const char *opt, const char *val, uint64_t lo, uint64_t hi,
                     uint64_t *out, int me)
{
    char *end = NULL;
    unsigned long long v = 0;
    if (val && val[0] >= '0' && val[0] <= '9')
        v = strtoull(val, &end, 10);
    if (!end || *end != '\0' || v < lo || v > hi) {
        if (me == 0)
            fprintf(stderr,
                    "armada-ra: option %s needs a whole number from %" PRIu64 " to %" PRIu64
                    ", got '%s'\n", opt, lo, hi, val ? val : "(nothing)");
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_one(ra_opts *o, const char *name, const char *val, int me)
{
    uint64_t v = 0;
    if (strcmp(name, "log2") == 0) {
        if (parse_num("--log2 (-k)", val, 1, RA_MAX_LOG2, &v, me) != 0)
            return -1;
        o->log2 = (int)v;
    } else if (strcmp(name, "updates") == 0) {
        if (parse_num("--updates (-u)", val, 1, RA_MAX_UPDATES, &o->updates, me) != 0)
            return -1;
    } else if (strcmp(name, "batch") == 0) {
        if (parse_num("--batch (-b)", val, 1, RA_MAX_BATCH, &v, me) != 0)
            return -1;
        o->batch = (int)v;
    } else if (strcmp(name, "window") == 0) {
        if (parse_num("--window (-w)", val, 1, RA_MAX_WINDOW, &v, me) != 0)
            return -1;
        o->window = (int)v;
    } else if (strcmp(name, "time-bound") == 0) {
        if (parse_num("--time-bound (-t)", val, 0, RA_MAX_BOUND, &v, me) != 0)
            return -1;
        o->bound = (double)v;
    } else if (strcmp(name, "mode") == 0 && val && strcmp(val, "vector") == 0) {
        o->mode = RA_MODE_VECTOR;
    } else if (strcmp(name, "mode") == 0 && val && strcmp(val, "single") == 0) {
        o->mode = RA_MODE_SINGLE;
    } else {
        if (me == 0)
            fprintf(stderr, "armada-ra: option --%s: bad value '%s' (vector or single)\n",
                    name, val ? val : "(nothing)");
        return -1;
    }
    return 0;
}

/* Returns 0 to run, 1 after --help, -1 on bad arguments. */
static int parse(int argc, char **argv, ra_opts *o, int me)
{
    static const char *const names[][2] = {{"-k", "log2"}, {"-u", "updates"},
                                           {"-b", "batch"}, {"-w", "window"},
                                           {"-t", "time-bound"}, {"-m", "mode"}};
    *o = (ra_opts){.log2 = 20, .updates = 0, .batch = 1024, .window = 4, .bound = 60,
                   .mode = RA_MODE_VECTOR};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *name = NULL, *val = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            if (me == 0)
                usage(stdout);
            return 1;
        }
        for (size_t k = 0; k < sizeof names / sizeof names[0] && !name; k++) {
            size_t len = strlen(names[k][1]);
            if (strcmp(a, names[k][0]) == 0 ||
                (strncmp(a, "--", 2) == 0 && strcmp(a + 2, names[k][1]) == 0)) {
                name = names[k][1];
                val = i + 1 < argc ? argv[++i] : NULL;
            } else if (strncmp(a, "--", 2) == 0 && strncmp(a + 2, names[k][1], len) == 0 &&
                       a[2 + len] == '=') {
                name = names[k][1];
                val = a + 3 + len;
            }
        }
        if (!name) {
            if (me == 0) {
                fprintf(stderr, "armada-ra: unknown argument '%s'\n", a);
                usage(stderr);
            }
            return -1;
        }
        if (parse_one(o, name, val, me) != 0)
            return -1;
    }
    if (o->updates == 0)
        o->updates = UINT64_C(4) << o->log2;
    return 0;
}

/* The table and the verification's copy must fit in this node's memory, and
 * every process must hold at least one word. */
static int check_size(const ra_opts *o, int np, int me)
{
    uint64_t words = UINT64_C(1) << o->log2;
    double need = 2.0 * (double)words * sizeof(uint64_t);
    double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (words < (uint64_t)np) {
        if (me == 0)
            fprintf(stderr, "armada-ra: option --log2 (-k) %d gives %" PRIu64
                    " words, fewer than the %d processes\n", o->log2, words, np);
        return -1;
    }
    if (need > 0.8 * have) {
        if (me == 0)
            fprintf(stderr, "armada-ra: option --log2 (-k) %d needs %.1f GiB, more than"
                    " this node has\n", o->log2, need / (1 << 30));
        return -1;
    }
    return 0;
}

static const char *mode_name(ra_mode m)
{
    return m == RA_MODE_SINGLE ? "single" : "vector";
}

/* What the timed phase did: its time (slowest rank), accumulate calls and
 * updates made over all ranks, and each rank's planned start and updates
 * made (start has np + 1 entries, the last one the planned total). */
typedef struct ra_outcome {
    double secs;
    long calls;
    uint64_t made;
    uint64_t *start, *done;
} ra_outcome;

static void report(const ra_opts *o, const ra_layout *l, const ra_outcome *t,
                   int64_t errors, int np)
{
    double gups = (double)t->made / t->secs / 1e9;
    int ok = errors == 0;
    printf(" RandomAccess on ARMCI accumulates (%s)\n", RA_IMPL);
    printf(" Table size             = 2^%d words (%.1f MiB), %" PRIu64 "..%" PRIu64
           " per process\n", o->log2, (double)l->size * 8 / (1 << 20), l->base,
           l->base + (l->rem ? 1 : 0));
    printf(" Processes              = %d\n", np);
    printf(" Updates                = %" PRIu64 " (mode %s, batch %d, window %d)\n",
           t->made, mode_name(o->mode), o->batch, o->window);
    if (t->made < o->updates)
        printf(" Time bound             = %.0f s reached: %" PRIu64 " of %" PRIu64
               " updates made\n", o->bound, t->made, o->updates);
    printf(" Accumulates / process  = %.1f\n", (double)t->calls / np);
    printf(" Time in seconds        = %.6f\n", t->secs);
    printf(" GUP/s                  = %.9f\n", gups);
    printf(" Errors                 = %" PRId64 "\n", errors);
    printf(" %s\n", ok ? "VERIFICATION SUCCESSFUL" : "VERIFICATION FAILED");
    printf("RESULT app=ra impl=%s np=%d log2=%d updates=%" PRIu64 " mode=%s batch=%d"
           " time=%.6f gups=%.9f errors=%" PRId64 " verified=%d\n",
           RA_IMPL, np, o->log2, t->made, mode_name(o->mode), o->batch, t->secs, gups,
           errors, ok);
    fflush(stdout);
}

/* Adds 0 to one word of every process, so that connections made on first
 * use are not timed. */
static void warm_up(void **base, int np)
{
    long one = 1, zero = 0;
    for (int p = 0; p < np; p++)
        ARMCI_Acc(ARMCI_ACC_LNG, &one, &zero, base[p], (int)sizeof zero, p);
    ARMCI_Barrier();
}

/* Timed: every process's share of the updates, then a barrier (which
 * completes every accumulate everywhere).  Returns -1 when a rank ran out of
 * memory. */
static int timed_phase(ra_run *r, ra_outcome *t)
{
    int np = r->lay->np, me = r->me;
    uint64_t u = r->o->updates, share = u / (uint64_t)np, extra = u % (uint64_t)np;
    for (int p = 0; p <= np; p++) {
        uint64_t q = (uint64_t)p;
        t->start[p] = q * share + (q < extra ? q : extra);
    }
    uint64_t mine = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    r->deadline = r->o->bound > 0 ? t0 + r->o->bound : 0;
    t->calls = ra_update(r, (int64_t)t->start[me], t->start[me + 1] - t->start[me], &mine);
    ARMCI_Barrier();
    t->secs = MPI_Wtime() - t0;
    int failed = t->calls < 0;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &t->secs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &t->calls, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allgather(&mine, 1, MPI_UINT64_T, t->done, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    t->made = 0;
    for (int p = 0; p < np; p++)
        t->made += t->done[p];
    return failed ? -1 : 0;
}

/* Runs, verifies and reports; the table is allocated and initialised. */
static int run_table(const ra_opts *o, const ra_layout *lay, void **base, int me)
{
    int np = lay->np;
    ra_run r = {.lay = lay, .o = o, .base = base, .me = me, .deadline = 0};
    ra_outcome t = {0};
    t.start = malloc(((size_t)np + 1) * sizeof *t.start);
    t.done = malloc((size_t)np * sizeof *t.done);
    int oom = !t.start || !t.done;
    MPI_Allreduce(MPI_IN_PLACE, &oom, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    int64_t errors = -1;
    if (!oom && timed_phase(&r, &t) == 0)
        errors = ra_verify(lay, base[me], me, t.start, t.done);
    oom = errors < 0;
    MPI_Allreduce(MPI_IN_PLACE, &oom, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    int status = 2;
    if (oom) {
        if (me == 0)
            fprintf(stderr, "armada-ra: out of memory for the update buffers"
                            " or the verification\n");
    } else {
        MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (me == 0)
            report(o, lay, &t, errors, np);
        status = errors == 0 ? 0 : 1;
    }
    free(t.done);
    free(t.start);
    return status;
}

static int run_ra(const ra_opts *o, int me, int np)
{
    ra_layout lay;
    if (check_size(o, np, me) != 0)
        return 2;
    ra_layout_init(&lay, o->log2, np);
    uint64_t most = lay.base + (lay.rem ? 1 : 0);
    void **base = calloc((size_t)np, sizeof *base);
    int err = !base || ARMCI_Malloc(base, (armci_size_t)(most * sizeof(uint64_t))) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (err) {
        if (me == 0)
            fprintf(stderr, "armada-ra: out of memory for the table\n");
        free(base);
        return 2;
    }
    uint64_t *mine = base[me], first = ra_first(&lay, me), n = ra_count(&lay, me);
    for (uint64_t j = 0; j < n; j++)
        mine[j] = first + j;
    warm_up(base, np);
    int status = run_table(o, &lay, base, me);
    ARMCI_Barrier();
    ARMCI_Free(mine);
    free(base);
    return status;
}

int main(int argc, char **argv)
{
    int me, np, status;
    ra_opts o;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int rc = parse(argc, argv, &o, me);
    if (rc == 0)
        status = run_ra(&o, me, np);
    else
        status = rc > 0 ? 0 : 2;
    ARMCI_Finalize();
    MPI_Finalize();
    return status;
}
