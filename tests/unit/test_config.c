/* unit.config: the configuration table (util/arm_config.h).
 * Parsing of every type, every default, arm_config_load against a clean
 * environment, bad values, unknown ARMADA_* names, and arm_config_print. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arm_config.h"
#include "unit.h"

extern char **environ;

/* The table, seen from the test: built from the same X-macro list. */
typedef struct {
    const char *name;
    arm_cfg_type_t type;
    const char *def;
    const char *choices;
    arm_cfg_cat_t cat;
    const char *help;
    size_t offset;
} entry_t;

static const entry_t entries[] = {
#define X(field, name, type, def, choices, cat, help) \
    { name, ARM_CFG_##type, def, choices, ARM_CFG_CAT_##cat, help, \
      offsetof(arm_config_t, field) },
    ARM_CONFIG_TABLE(X)
#undef X
};
#define N_ENTRIES (sizeof entries / sizeof entries[0])

static long field_value(const entry_t *e)
{
    return *(const long *)((const char *)&arm_config + e->offset);
}

/* Removes every ARMADA_* variable from the environment. */
static void clean_env(void)
{
    for (;;) {
        char name[256] = "";
        for (char **env = environ; env && *env; env++) {
            if (strncmp(*env, "ARMADA_", 7) == 0) {
                const char *eq = strchr(*env, '=');
                size_t len = eq ? (size_t)(eq - *env) : strlen(*env);
                if (len >= sizeof name)
                    len = sizeof name - 1;
                memcpy(name, *env, len);
                name[len] = '\0';
                break;
            }
        }
        if (!name[0])
            return;
        unsetenv(name);
    }
}

static void expect_parse(arm_cfg_type_t type, const char *choices, const char *text,
                         long want, int line)
{
    long out = -12345;
    arm_status_t st = arm_config_parse(type, choices, text, &out);
    if (st != ARM_OK || out != want) {
        char msg[256];
        snprintf(msg, sizeof msg, "parse(type %d, '%s') gave status %d value %ld, want %ld",
                 (int)type, text, (int)st, out, want);
        unit_fail_report(__FILE__, line, msg);
    } else {
        unit_passed++;
    }
}

static void expect_reject(arm_cfg_type_t type, const char *choices, const char *text, int line)
{
    long out = -12345;
    arm_status_t st = arm_config_parse(type, choices, text, &out);
    if (st != ARM_ERR_INVALID_ARG || out != -12345) {
        char msg[256];
        snprintf(msg, sizeof msg, "parse(type %d, '%s') gave status %d value %ld, want "
                 "ARM_ERR_INVALID_ARG and the output untouched", (int)type, text, (int)st, out);
        unit_fail_report(__FILE__, line, msg);
    } else {
        unit_passed++;
    }
}

#define OK(type, choices, text, want) expect_parse(type, choices, text, want, __LINE__)
#define BAD(type, choices, text) expect_reject(type, choices, text, __LINE__)

static void test_parse_bool(void)
{
    const char *ones[] = { "1", "yes", "true", "on" };
    const char *zeros[] = { "0", "no", "false", "off" };
    for (int i = 0; i < 4; i++) {
        OK(ARM_CFG_BOOL, NULL, ones[i], 1);
        OK(ARM_CFG_BOOL, NULL, zeros[i], 0);
    }
    BAD(ARM_CFG_BOOL, NULL, "");
    BAD(ARM_CFG_BOOL, NULL, "2");
    BAD(ARM_CFG_BOOL, NULL, "-1");
    BAD(ARM_CFG_BOOL, NULL, "maybe");
    BAD(ARM_CFG_BOOL, NULL, "yess");
    BAD(ARM_CFG_BOOL, NULL, "o");
    BAD(ARM_CFG_BOOL, NULL, "1 ");
    unit_section("BOOL: 1/yes/true/on, 0/no/false/off, rejects");
}

static void test_parse_int(void)
{
    OK(ARM_CFG_INT, NULL, "0", 0);
    OK(ARM_CFG_INT, NULL, "42", 42);
    OK(ARM_CFG_INT, NULL, "-7", -7);
    OK(ARM_CFG_INT, NULL, "+13", 13);
    OK(ARM_CFG_INT, NULL, "2147483647", 2147483647L);
    OK(ARM_CFG_INT, NULL, "-2147483648", -2147483648L);
    BAD(ARM_CFG_INT, NULL, "2147483648");          /* INT settings fit an int */
    BAD(ARM_CFG_INT, NULL, "9223372036854775807");
    BAD(ARM_CFG_INT, NULL, "");
    BAD(ARM_CFG_INT, NULL, "abc");
    BAD(ARM_CFG_INT, NULL, "12x");
    BAD(ARM_CFG_INT, NULL, "1.5");
    BAD(ARM_CFG_INT, NULL, "4k");
    BAD(ARM_CFG_INT, NULL, "-");
    BAD(ARM_CFG_INT, NULL, "9223372036854775808");   /* overflow */
    BAD(ARM_CFG_INT, NULL, "-9223372036854775809");  /* underflow */
    BAD(ARM_CFG_INT, NULL, "99999999999999999999999");
    unit_section("INT: signs, 64-bit range, trailing junk, overflow");
}

static void test_parse_size(void)
{
    OK(ARM_CFG_SIZE, NULL, "0", 0);
    OK(ARM_CFG_SIZE, NULL, "123", 123);
    OK(ARM_CFG_SIZE, NULL, "1k", 1024);
    OK(ARM_CFG_SIZE, NULL, "1K", 1024);
    OK(ARM_CFG_SIZE, NULL, "16k", 16 * 1024);
    OK(ARM_CFG_SIZE, NULL, "16kb", 16 * 1024);
    OK(ARM_CFG_SIZE, NULL, "16KB", 16 * 1024);
    OK(ARM_CFG_SIZE, NULL, "3m", 3L * 1024 * 1024);
    OK(ARM_CFG_SIZE, NULL, "3M", 3L * 1024 * 1024);
    OK(ARM_CFG_SIZE, NULL, "5mb", 5L * 1024 * 1024);
    OK(ARM_CFG_SIZE, NULL, "2g", 2L * 1024 * 1024 * 1024);
    OK(ARM_CFG_SIZE, NULL, "7G", 7L * 1024 * 1024 * 1024);
    OK(ARM_CFG_SIZE, NULL, "0k", 0);
    OK(ARM_CFG_SIZE, NULL, "0g", 0);
    /* Large but representable. */
    OK(ARM_CFG_SIZE, NULL, "1048576k", 1L << 30);
    OK(ARM_CFG_SIZE, NULL, "4294967296g", 1L << 62);
    OK(ARM_CFG_SIZE, NULL, "9223372036854775807", 9223372036854775807L);
    /* Overflow, with and without a suffix. */
    BAD(ARM_CFG_SIZE, NULL, "9223372036854775808");
    BAD(ARM_CFG_SIZE, NULL, "8589934592g");          /* 2^63 */
    BAD(ARM_CFG_SIZE, NULL, "9007199254740992m");    /* 2^73 */
    BAD(ARM_CFG_SIZE, NULL, "9007199254740992k");    /* 2^63 */
    BAD(ARM_CFG_SIZE, NULL, "99999999999999999999k");
    /* Malformed. */
    BAD(ARM_CFG_SIZE, NULL, "");
    BAD(ARM_CFG_SIZE, NULL, "k");
    BAD(ARM_CFG_SIZE, NULL, "-1");
    BAD(ARM_CFG_SIZE, NULL, "-1k");
    BAD(ARM_CFG_SIZE, NULL, "12x");
    BAD(ARM_CFG_SIZE, NULL, "1kk");
    BAD(ARM_CFG_SIZE, NULL, "1kbb");
    BAD(ARM_CFG_SIZE, NULL, "1t");
    BAD(ARM_CFG_SIZE, NULL, "1 k");
    BAD(ARM_CFG_SIZE, NULL, "1.5m");
    unit_section("SIZE: k/m/g (any case, optional b), overflow, malformed");
}

static void test_parse_enum(void)
{
    const char *ch = "error|warn|info|debug";
    OK(ARM_CFG_ENUM, ch, "error", 0);
    OK(ARM_CFG_ENUM, ch, "warn", 1);
    OK(ARM_CFG_ENUM, ch, "info", 2);
    OK(ARM_CFG_ENUM, ch, "debug", 3);
    BAD(ARM_CFG_ENUM, ch, "");
    BAD(ARM_CFG_ENUM, ch, "war");
    BAD(ARM_CFG_ENUM, ch, "warnx");
    BAD(ARM_CFG_ENUM, ch, "debu");
    BAD(ARM_CFG_ENUM, ch, "debugx");
    BAD(ARM_CFG_ENUM, ch, "error|warn");
    BAD(ARM_CFG_ENUM, ch, "2");
    BAD(ARM_CFG_ENUM, ch, "|");
    OK(ARM_CFG_ENUM, "only", "only", 0);
    BAD(ARM_CFG_ENUM, "only", "onl");
    BAD(ARM_CFG_ENUM, "only", "");

    /* The name of each index is the choice in that place. */
    const char *names[] = { "error", "warn", "info", "debug" };
    char buf[32];
    for (long i = 0; i < 4; i++) {
        const char *got = arm_config_enum_name(ch, i, buf, sizeof buf);
        CHECK(got && strcmp(got, names[i]) == 0, "enum_name(%ld) = '%s', want '%s'", i,
              got ? got : "(null)", names[i]);
    }
    const char *got = arm_config_enum_name(ch, 4, buf, sizeof buf);
    CHECK(got && strcmp(got, "?") == 0, "enum_name past the end = '%s'", got ? got : "(null)");
    char small[4];
    got = arm_config_enum_name(ch, 3, small, sizeof small);
    CHECK(got && strcmp(got, "deb") == 0, "enum_name truncated = '%s'", got ? got : "(null)");
    unit_section("ENUM: every choice, near-misses, enum_name");
}

static void test_defaults(void)
{
    clean_env();
    memset(&arm_config, 0x5a, sizeof arm_config);
    int unknown = -1;
    char err[256] = "";
    arm_status_t st = arm_config_load(0, &unknown, err, sizeof err);
    CHECK(st == ARM_OK, "load with a clean environment: status %d (%s)", (int)st, err);
    CHECK(unknown == 0, "unknown = %d with a clean environment", unknown);
    for (size_t i = 0; i < N_ENTRIES; i++) {
        const entry_t *e = &entries[i];
        long want = -1;
        arm_status_t pst = arm_config_parse(e->type, e->choices, e->def, &want);
        CHECK(pst == ARM_OK, "default '%s' of ARMADA_%s does not parse", e->def, e->name);
        CHECK(field_value(e) == want, "ARMADA_%s = %ld after load, default '%s' parses to %ld",
              e->name, field_value(e), e->def, want);
        CHECK(e->help && e->help[0], "ARMADA_%s has no help", e->name);
        CHECK(e->type != ARM_CFG_ENUM || (e->choices && e->choices[0]),
              "ENUM ARMADA_%s has no choices", e->name);
    }
    /* A few written down independently of the table. */
    CHECK(arm_config.ppn == 0, "ppn default %ld", arm_config.ppn);
    CHECK(arm_config.slot_size == 16384, "slot_size default %ld", arm_config.slot_size);
    CHECK(arm_config.log_level == 1, "log_level default %ld (want warn = 1)",
          arm_config.log_level);
    CHECK(arm_config.warn_unfreed == 1, "warn_unfreed default %ld", arm_config.warn_unfreed);
    CHECK(arm_config.shm_limit == 0, "shm_limit default %ld", arm_config.shm_limit);
    CHECK(arm_config.batch_max_op == 2048 && arm_config.copy_put_max == 4096 &&
          arm_config.clean_get_max == 4096 && arm_config.zcopy_min == 65536 &&
          arm_config.eager_write_max == 262144 && arm_config.reply_eager_max == 262144,
          "protocol thresholds: batch %ld copy-put %ld clean-get %ld zcopy %ld eager-write "
          "%ld reply-eager %ld", arm_config.batch_max_op, arm_config.copy_put_max,
          arm_config.clean_get_max, arm_config.zcopy_min, arm_config.eager_write_max,
          arm_config.reply_eager_max);
    CHECK(arm_config.test_inject == 0, "test_inject default %ld", arm_config.test_inject);
    for (size_t i = 0; i < N_ENTRIES; i++)
        CHECK((unsigned)entries[i].cat < ARM_CFG_CAT_COUNT &&
              strcmp(arm_config_category_name(entries[i].cat), "?") != 0,
              "ARMADA_%s has no category", entries[i].name);
    CHECK(strcmp(arm_config_category_name(ARM_CFG_CAT_DIAGNOSTICS), "diagnostics") == 0 &&
          strcmp(arm_config_category_name(ARM_CFG_CAT_COUNT), "?") == 0,
          "category names");
    /* Names are distinct. */
    for (size_t i = 0; i < N_ENTRIES; i++)
        for (size_t j = i + 1; j < N_ENTRIES; j++)
            CHECK(strcmp(entries[i].name, entries[j].name) != 0, "ARMADA_%s listed twice",
                  entries[i].name);
    unit_section("every default parses and is loaded from a clean environment");
}

static void test_good_values(void)
{
    clean_env();
    setenv("ARMADA_PPN", "4", 1);
    setenv("ARMADA_LOG_LEVEL", "debug", 1);
    setenv("ARMADA_STATS", "yes", 1);
    setenv("ARMADA_SLOT_SIZE", "64k", 1);
    setenv("ARMADA_PROGRESS", "poll", 1);
    setenv("ARMADA_SHM_LIMIT", "2g", 1);
    int unknown = -1;
    char err[256] = "";
    arm_status_t st = arm_config_load(0, &unknown, err, sizeof err);
    CHECK(st == ARM_OK, "load: status %d (%s)", (int)st, err);
    CHECK(unknown == 0, "unknown = %d", unknown);
    CHECK(arm_config.ppn == 4, "ppn %ld", arm_config.ppn);
    CHECK(arm_config.log_level == 3, "log_level %ld", arm_config.log_level);
    CHECK(arm_config.stats == 1, "stats %ld", arm_config.stats);
    CHECK(arm_config.slot_size == 65536, "slot_size %ld", arm_config.slot_size);
    CHECK(arm_config.progress == 0, "progress %ld", arm_config.progress);
    CHECK(arm_config.shm_limit == 2L << 30, "shm_limit %ld", arm_config.shm_limit);
    CHECK(arm_config.poll_spins == 200, "poll_spins (unset) %ld", arm_config.poll_spins);
    /* A later load with the variables gone goes back to the defaults. */
    clean_env();
    st = arm_config_load(0, &unknown, err, sizeof err);
    CHECK(st == ARM_OK && arm_config.ppn == 0 && arm_config.slot_size == 16384 &&
          arm_config.log_level == 1, "reload without variables: ppn %ld slot %ld log %ld",
          arm_config.ppn, arm_config.slot_size, arm_config.log_level);
    unit_section("values from the environment are loaded");
}

static void test_bad_values(void)
{
    for (size_t i = 0; i < N_ENTRIES; i++) {
        const entry_t *e = &entries[i];
        char var[64];
        snprintf(var, sizeof var, "ARMADA_%s", e->name);
        clean_env();
        /* A text setting takes any short text: too long is its bad value. */
        setenv(var, e->type == ARM_CFG_TEXT
                   ? "zz!-text-longer-than-any-text-setting-takes-0123456789-0123456789"
                   : "zz!", 1);
        char err[512] = "";
        int unknown = -1;
        arm_status_t st = arm_config_load(0, &unknown, err, sizeof err);
        CHECK(st == ARM_ERR_INVALID_ARG, "%s=zz! gave status %d", var, (int)st);
        CHECK(strstr(err, var) != NULL, "message for a bad %s does not name it: '%s'", var, err);
        CHECK(strstr(err, "zz!") != NULL, "message for a bad %s does not show the value: '%s'",
              var, err);
        if (e->choices)
            CHECK(strstr(err, e->choices) != NULL, "message for %s does not list '%s': '%s'",
                  var, e->choices, err);
    }
    /* A short message buffer is truncated, not overrun (ASan watches). */
    clean_env();
    setenv("ARMADA_PROGRESS", "sometimes", 1);
    char small[12];
    memset(small, 'x', sizeof small);
    arm_status_t st = arm_config_load(0, NULL, small, sizeof small);
    CHECK(st == ARM_ERR_INVALID_ARG, "bad PROGRESS gave status %d", (int)st);
    CHECK(memchr(small, '\0', sizeof small) != NULL, "short message is not terminated");
    /* A bad value among good ones still fails. */
    clean_env();
    setenv("ARMADA_PPN", "2", 1);
    setenv("ARMADA_SLOT_SIZE", "12q", 1);
    char err[256] = "";
    st = arm_config_load(0, NULL, err, sizeof err);
    CHECK(st == ARM_ERR_INVALID_ARG && strstr(err, "ARMADA_SLOT_SIZE"),
          "ARMADA_SLOT_SIZE=12q: status %d, '%s'", (int)st, err);
    printf("    example message: %s\n", err);
    clean_env();
    unit_section("a bad value of every setting fails, naming the variable");
}

static void test_unknown(void)
{
    clean_env();
    setenv("ARMADA_FOO", "1", 1);
    int unknown = -1;
    char err[256] = "";
    arm_status_t st = arm_config_load(0, &unknown, err, sizeof err);
    CHECK(st == ARM_OK && unknown == 1, "ARMADA_FOO: status %d, unknown %d", (int)st, unknown);

    setenv("ARMADA_BAR", "", 1);
    setenv("ARMADA_PP", "3", 1);        /* a prefix of a real name */
    setenv("ARMADA_PPNX", "3", 1);      /* a real name plus more */
    setenv("ARMADA_ppn", "3", 1);       /* wrong case */
    setenv("ARMADA_TEST", "1", 1);      /* marks test runs, not a setting */
    setenv("ARMADA_PPN", "5", 1);       /* known */
    setenv("ARMADAFOO", "1", 1);        /* no underscore: not ours */
    setenv("XARMADA_FOO", "1", 1);
    unknown = -1;
    st = arm_config_load(0, &unknown, err, sizeof err);
    CHECK(st == ARM_OK, "status %d (%s)", (int)st, err);
    CHECK(unknown == 5, "unknown = %d, want 5 (FOO BAR PP PPNX ppn)", unknown);
    CHECK(arm_config.ppn == 5, "ppn %ld", arm_config.ppn);
    /* With warnings on, the count is the same (the warnings go to stderr). */
    unknown = -1;
    st = arm_config_load(1, &unknown, err, sizeof err);
    CHECK(st == ARM_OK && unknown == 5, "warn=1: status %d unknown %d", (int)st, unknown);
    /* unknown may be NULL. */
    st = arm_config_load(0, NULL, err, sizeof err);
    CHECK(st == ARM_OK, "unknown=NULL: status %d", (int)st);
    unsetenv("ARMADAFOO");
    unsetenv("XARMADA_FOO");
    clean_env();
    unit_section("unknown ARMADA_ names are counted, ARMADA_TEST is not");
}

static void test_print(void)
{
    clean_env();
    setenv("ARMADA_SLOT_SIZE", "32k", 1);
    setenv("ARMADA_PROGRESS", "block", 1);
    char err[256] = "";
    arm_status_t st = arm_config_load(0, NULL, err, sizeof err);
    CHECK(st == ARM_OK, "load: %d (%s)", (int)st, err);
    for (int with_help = 0; with_help <= 1; with_help++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        CHECK(f != NULL, "open_memstream failed");
        if (!f)
            return;
        arm_config_print(f, with_help);
        fclose(f);
        int lines = 0;
        for (size_t i = 0; i < len; i++)
            lines += text[i] == '\n';
        int ncat = 0;
        for (int cat = 0; cat < ARM_CFG_CAT_COUNT; cat++) {
            int used = 0;
            for (size_t i = 0; i < N_ENTRIES; i++)
                used |= entries[i].cat == (arm_cfg_cat_t)cat;
            ncat += used;
        }
        CHECK(lines == (int)N_ENTRIES * (with_help ? 2 : 1) + ncat, "with_help=%d: %d lines "
              "for %zu settings in %d categories", with_help, lines, N_ENTRIES, ncat);
        /* Each setting is listed under its category's heading (a line with
         * one leading space), every setting once. */
        char heading[32] = "";
        int listed[64] = { 0 };
        for (char *line = text; line && *line;) {
            char *eol = strchr(line, '\n');
            size_t ll = eol ? (size_t)(eol - line) : strlen(line);
            if (ll > 2 && line[0] == ' ' && line[1] != ' ' && ll < sizeof heading) {
                memcpy(heading, line + 1, ll - 2);      /* " name:" */
                heading[ll - 2] = '\0';
            }
            for (size_t i = 0; i < N_ENTRIES && i < 64; i++) {
                char var[64];
                snprintf(var, sizeof var, "  ARMADA_%s ", entries[i].name);
                if (strncmp(line, var, strlen(var)) != 0)
                    continue;
                listed[i]++;
                CHECK(strcmp(heading, arm_config_category_name(entries[i].cat)) == 0,
                      "ARMADA_%s is listed under '%s', not '%s'", entries[i].name, heading,
                      arm_config_category_name(entries[i].cat));
            }
            line = eol ? eol + 1 : NULL;
        }
        for (size_t i = 0; i < N_ENTRIES && i < 64; i++)
            CHECK(listed[i] == 1, "ARMADA_%s listed %d times", entries[i].name, listed[i]);
        for (size_t i = 0; i < N_ENTRIES; i++) {
            char var[64];
            snprintf(var, sizeof var, "ARMADA_%s ", entries[i].name);
            /* Find the name followed by a space or '=' so PPN does not match
             * inside another name. */
            char *p = strstr(text, var);
            CHECK(p != NULL, "print (with_help=%d) does not list ARMADA_%s", with_help,
                  entries[i].name);
            if (p) {
                char *eol = strchr(p, '\n');
                size_t ll = eol ? (size_t)(eol - p) : strlen(p);
                char line[200];
                if (ll >= sizeof line)
                    ll = sizeof line - 1;
                memcpy(line, p, ll);
                line[ll] = '\0';
                char want_def[64];
                snprintf(want_def, sizeof want_def, "default %s", entries[i].def);
                CHECK(strstr(line, want_def) != NULL, "line '%s' lacks '%s'", line, want_def);
                if (with_help)
                    CHECK(eol && strstr(eol + 1, entries[i].help) == eol + 1 + strspn(eol + 1, " "),
                          "help of ARMADA_%s does not follow its line", entries[i].name);
            }
        }
        /* Current values: SLOT_SIZE 32768, PROGRESS block. */
        char *p = strstr(text, "ARMADA_SLOT_SIZE ");
        CHECK(p && strstr(p, "32768") && strstr(p, "32768") < strchr(p, '\n'),
              "SLOT_SIZE line lacks its value 32768");
        p = strstr(text, "ARMADA_PROGRESS ");
        CHECK(p && strstr(p, "block") && strstr(p, "block") < strchr(p, '('),
              "PROGRESS line lacks its value 'block'");
        if (!with_help)
            printf("    arm_config_print:\n%s", text);
        free(text);
    }
    clean_env();
    arm_config_load(0, NULL, err, sizeof err);
    unit_section("arm_config_print lists every ARMADA_ name, default and value");
}

int main(void)
{
    printf("unit.config: %zu settings in the table\n", N_ENTRIES);
    test_parse_bool();
    test_parse_int();
    test_parse_size();
    test_parse_enum();
    test_defaults();
    test_good_values();
    test_bad_values();
    test_unknown();
    test_print();
    return unit_finish("unit.config");
}
