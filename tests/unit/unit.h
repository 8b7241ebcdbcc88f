/* Helpers of the unit tier (no MPI).
 *
 * CHECK(cond, fmt, ...) counts a pass or a failure; a failure prints the
 * file, line, condition and message (the first UNIT_MAX_REPORTS of them).
 * unit_finish("unit.x") prints "unit.x: N passed, M failed" and returns the
 * exit status for main: 0 only when nothing failed and something was
 * checked. */
#ifndef ARMADA_TESTS_UNIT_H
#define ARMADA_TESTS_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT_MAX_REPORTS 30

static long unit_passed;
static long unit_failed;

static inline void unit_fail_report(const char *file, int line, const char *msg)
{
    unit_failed++;
    if (unit_failed <= UNIT_MAX_REPORTS)
        fprintf(stderr, "FAIL %s:%d: %s\n", file, line, msg);
    else if (unit_failed == UNIT_MAX_REPORTS + 1)
        fprintf(stderr, "FAIL: further failures not shown\n");
}

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (cond) {                                                             \
            unit_passed++;                                                      \
        } else {                                                                \
            char unit_msg_[512];                                                \
            int unit_n_ = snprintf(unit_msg_, sizeof unit_msg_, "%s: ", #cond); \
            if (unit_n_ > 0 && unit_n_ < (int)sizeof unit_msg_)                 \
                snprintf(unit_msg_ + unit_n_, sizeof unit_msg_ - unit_n_, __VA_ARGS__); \
            unit_fail_report(__FILE__, __LINE__, unit_msg_);                    \
        }                                                                       \
    } while (0)

/* Prints what a section checked, with the running counts. */
static inline void unit_section(const char *what)
{
    printf("  checked %-58s (%ld passed, %ld failed so far)\n", what, unit_passed,
           unit_failed);
    fflush(stdout);
}

static inline int unit_finish(const char *name)
{
    printf("%s: %ld passed, %ld failed\n", name, unit_passed, unit_failed);
    fflush(stdout);
    return (unit_failed == 0 && unit_passed > 0) ? 0 : 1;
}

/* A small deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t unit_rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t unit_rand(void)
{
    uint64_t x = unit_rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    unit_rng_state = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in [lo, hi]. */
static inline long unit_range(long lo, long hi)
{
    return lo + (long)(unit_rand() % (uint64_t)(hi - lo + 1));
}

#endif
