/* Logging with levels, a subsystem name and a rank prefix. Debug output has
 * a compile-time ceiling (ARM_LOG_MAX_LEVEL). errno is preserved. */
#ifndef ARM_LOG_H
#define ARM_LOG_H

#include <stdarg.h>

typedef enum arm_log_level {
    ARM_LOG_OFF = -1,   /* nothing, not even errors or arm_fatal's message (the
                           fuzz drivers' setting; no variable selects it) */
    ARM_LOG_ERROR = 0, ARM_LOG_WARN = 1, ARM_LOG_INFO = 2, ARM_LOG_DEBUG = 3
} arm_log_level_t;

#ifndef ARM_LOG_MAX_LEVEL
#define ARM_LOG_MAX_LEVEL ARM_LOG_DEBUG
#endif

typedef void (*arm_abort_hook_fn)(int code);

void arm_log_set_rank(int rank);
int  arm_log_rank(void);
void arm_log_set_level(arm_log_level_t level);
/* Called by arm_fatal after printing; the core installs one that aborts
 * every process of the job. Without a hook, arm_fatal calls _exit. */
void arm_log_set_abort_hook(arm_abort_hook_fn hook);

void arm_log_v(arm_log_level_t level, const char *subsys, const char *fmt, va_list ap);
void arm_log(arm_log_level_t level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prints "armada[rank R]: <call>: <message>" and stops the whole job with a
 * non-zero exit. Used for bad arguments and unrecoverable failures. */
_Noreturn void arm_fatal(const char *call, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
_Noreturn void arm_fatal_v(const char *call, const char *fmt, va_list ap);

#define ARM_WARN(sub, ...)  arm_log(ARM_LOG_WARN, sub, __VA_ARGS__)
#define ARM_INFO(sub, ...)  arm_log(ARM_LOG_INFO, sub, __VA_ARGS__)
#define ARM_DEBUG(sub, ...) \
    do { if (ARM_LOG_MAX_LEVEL >= ARM_LOG_DEBUG) arm_log(ARM_LOG_DEBUG, sub, __VA_ARGS__); } while (0)

#endif
