/* What the fuzz drivers share: reading an input, and the two entries.
 *
 * A driver defines run_one(data, size, why, whylen), which returns the
 * failures it found (the first described in why), and then FUZZ_MAIN(name,
 * default count, largest generated input). Built with ARMADA_LIBFUZZER,
 * that is LLVMFuzzerTestOneInput, which aborts on a failure; otherwise a
 * main() that replays the files (or directories of files) named on its command
 * line, then runs `-n N`
 * pseudo-random inputs from `-s SEED` (failing ones written to `-o DIR`;
 * with FUZZ_LAST=FILE set, each one written there before it runs, so that
 * one that hangs is left there), `-v` tracing, and ends with "NAME: P
 * passed, F failed". */
#ifndef ARMADA_TESTS_FUZZ_DRIVER_H
#define ARMADA_TESTS_FUZZ_DRIVER_H

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arm_log.h"

typedef struct input {
    const uint8_t *p;
    size_t n;
} input_t;

/* The next byte, 0 once the input is spent. */
static inline uint8_t u8(input_t *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static inline uint32_t u16(input_t *in)
{
    uint32_t a = u8(in);
    return a | (uint32_t)u8(in) << 8;
}

/* len bytes into dst, zeros past the input's end. */
static inline void take(input_t *in, void *dst, size_t len)
{
    size_t k = len < in->n ? len : in->n;
    memcpy(dst, in->p, k);
    memset((char *)dst + k, 0, len - k);
    in->p += k;
    in->n -= k;
}

/* -v: the driver prints what it delivers and what comes back. */
static int trace;

/* arm_fatal caught: a driver whose code under test may stop the program
 * installs fuzz_on_stop as the abort hook (arm_log_set_abort_hook) and runs
 * each such step through fuzz_stops. */
static jmp_buf fuzz_stop_jb;
static int fuzz_stop_armed;

static inline void fuzz_on_stop(int code)
{
    (void)code;
    if (fuzz_stop_armed)
        longjmp(fuzz_stop_jb, 1);
    abort();
}

/* Runs fn(arg): 1 when it stopped the program (arm_fatal), 0 when it
 * returned. */
static inline int fuzz_stops(void (*fn)(void *), void *arg)
{
    fuzz_stop_armed = 1;
    if (setjmp(fuzz_stop_jb)) {
        fuzz_stop_armed = 0;
        return 1;
    }
    fn(arg);
    fuzz_stop_armed = 0;
    return 0;
}

typedef long (*fuzz_run_fn)(const uint8_t *data, size_t size, char *why, size_t whylen);

#define FUZZ_WHY 400

/* Counts a failure; the first one's description goes to why. */
static inline void fuzz_fail(long *failed, char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void fuzz_fail(long *failed, char *why, size_t len, const char *fmt, ...)
{
    if (!(*failed)++) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
}

#ifdef ARMADA_LIBFUZZER
static inline int fuzz_one(const char *name, fuzz_run_fn run, const uint8_t *data, size_t size)
{
    static int quiet;
    if (!quiet && !getenv("FUZZ_VERBOSE")) {
        arm_log_set_level(ARM_LOG_OFF);   /* every refusal is logged */
        quiet = 1;
    }
    char why[FUZZ_WHY];
    if (run(data, size, why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", name, why);
        abort();
    }
    return 0;
}

#define FUZZ_MAIN(name, n, max_len)                                      \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)         \
    {                                                                    \
        return fuzz_one(name, run_one, data, size);                      \
    }
#else
static inline uint64_t fuzz_next(uint64_t *rng)
{
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return *rng;
}

static inline int fuzz_main(int argc, char **argv, const char *name, fuzz_run_fn run, long n,
                            size_t max_len)
{
    long passed = 0, failed = 0;
    uint64_t seed = 1;
    const char *save = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            save = argv[++i];
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            n = atol(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "-v"))
            trace = 1;
    }
    if (!trace)
        arm_log_set_level(ARM_LOG_OFF);
    static uint8_t buf[1 << 20];
    char why[FUZZ_WHY];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "-s") || !strcmp(argv[i], "-o")) {
            i++;
            continue;
        }
        if (!strcmp(argv[i], "-v"))
            continue;
        /* A file, or a directory of them (a corpus). */
        DIR *d = opendir(argv[i]);
        struct dirent *de = NULL;
        do {
            char path[4096];
            if (d) {
                if (!(de = readdir(d)))
                    break;
                if (de->d_name[0] == '.')
                    continue;
                snprintf(path, sizeof path, "%s/%s", argv[i], de->d_name);
            } else {
                snprintf(path, sizeof path, "%s", argv[i]);
            }
            FILE *fp = fopen(path, "rb");
            size_t len = fp ? fread(buf, 1, sizeof buf, fp) : 0;
            if (fp)
                fclose(fp);
            if (!fp || run(buf, len, why, sizeof why)) {
                printf("FAIL %s: %s\n", path, fp ? why : "cannot open");
                failed++;
            } else {
                passed++;
            }
        } while (d);
        if (d)
            closedir(d);
    }
    const char *last = getenv("FUZZ_LAST");   /* each generated input written there first */
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    if (max_len > sizeof buf)
        max_len = sizeof buf;
    for (long k = 0; k < n; k++) {
        size_t len = 1 + fuzz_next(&rng) % max_len;
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)fuzz_next(&rng);
        /* A third use few command kinds, so that long runs of requests for
         * one client reach its credits and its sync slot. */
        if (k % 3 == 0)
            for (size_t i = 1; i < len; i += 1 + fuzz_next(&rng) % 96)
                buf[i] &= 3;
        if (last) {                 /* left behind by an input that hangs */
            FILE *o = fopen(last, "wb");
            if (o) {
                fwrite(buf, 1, len, o);
                fclose(o);
            }
        }
        if (!run(buf, len, why, sizeof why)) {
            passed++;
            continue;
        }
        printf("FAIL seed %llu input %ld: %s\n", (unsigned long long)seed, k, why);
        failed++;
        if (save) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s-seed%llu-%ld", save, name,
                     (unsigned long long)seed, k);
            FILE *o = fopen(path, "wb");
            if (o) {
                fwrite(buf, 1, len, o);
                fclose(o);
            }
        }
    }
    printf("%s: %ld passed, %ld failed\n", name, passed, failed);
    return failed || !passed;
}

#define FUZZ_MAIN(name, n, max_len)                                      \
    int main(int argc, char **argv)                                      \
    {                                                                    \
        return fuzz_main(argc, argv, name, run_one, n, max_len);         \
    }
#endif

#endif
