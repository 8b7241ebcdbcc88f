#include "util/arm_config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include "util/arm_log.h"

extern char **environ;

typedef struct {
    const char *name;       /* without the ARMADA_ prefix */
    arm_cfg_type_t type;
    const char *def;
    const char *choices;
    arm_cfg_cat_t cat;
    const char *help;
    size_t offset;
} arm_cfg_entry_t;

static const arm_cfg_entry_t cfg_entries[] = {
#define ARM_CFG_ENTRY(field, name, type, def, choices, cat, help) \
    { name, ARM_CFG_##type, def, choices, ARM_CFG_CAT_##cat, help, \
      offsetof(arm_config_t, field) },
    ARM_CONFIG_TABLE(ARM_CFG_ENTRY)
#undef ARM_CFG_ENTRY
};
#define CFG_COUNT (sizeof cfg_entries / sizeof cfg_entries[0])

arm_config_t arm_config;
static char cfg_text[CFG_COUNT][ARM_CFG_TEXT_MAX];

static const char *type_name(arm_cfg_type_t t)
{
    switch (t) {
    case ARM_CFG_BOOL: return "bool";
    case ARM_CFG_INT:  return "int";
    case ARM_CFG_SIZE: return "size";
    case ARM_CFG_ENUM: return "enum";
    case ARM_CFG_TEXT: return "text";
    }
    return "?";
}

static int enum_index(const char *choices, const char *text)
{
    size_t tl = strlen(text);
    int idx = 0;
    for (const char *p = choices; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == tl && strncmp(p, text, len) == 0)
            return idx;
        if (!bar)
            break;
        p = bar + 1;
    }
    return -1;
}

const char *arm_config_enum_name(const char *choices, long index, char *buf, size_t len)
{
    const char *p = choices;
    for (long i = 0; i < index && p; i++) {
        p = strchr(p, '|');
        if (p)
            p++;
    }
    if (!p || len == 0)
        return "?";
    const char *bar = strchr(p, '|');
    size_t n = bar ? (size_t)(bar - p) : strlen(p);
    if (n >= len)
        n = len - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

arm_status_t arm_config_parse(arm_cfg_type_t type, const char *choices, const char *text,
                              long *out)
{
    char *end;
    long v;
    switch (type) {
    case ARM_CFG_BOOL:
        if (!strcmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "true") ||
            !strcasecmp(text, "on"))
            v = 1;
        else if (!strcmp(text, "0") || !strcasecmp(text, "no") || !strcasecmp(text, "false") ||
                 !strcasecmp(text, "off"))
            v = 0;
        else
            return ARM_ERR_INVALID_ARG;
        break;
    case ARM_CFG_INT:
        errno = 0;
        v = strtol(text, &end, 10);
        if (errno || end == text || *end != '\0' || v < INT_MIN || v > INT_MAX)
            return ARM_ERR_INVALID_ARG;
        break;
    case ARM_CFG_SIZE: {
        errno = 0;
        v = strtol(text, &end, 10);
        if (errno || end == text || v < 0)
            return ARM_ERR_INVALID_ARG;
        long mult = 1;
        switch (tolower((unsigned char)*end)) {
        case '\0': break;
        case 'k': mult = 1L << 10; end++; break;
        case 'm': mult = 1L << 20; end++; break;
        case 'g': mult = 1L << 30; end++; break;
        default: return ARM_ERR_INVALID_ARG;
        }
        if (*end == 'b' || *end == 'B')
            end++;
        if (*end != '\0' || (v > 0 && mult > 1 && v > (1L << 62) / mult))
            return ARM_ERR_INVALID_ARG;
        v *= mult;
        break;
    }
    case ARM_CFG_ENUM:
        v = enum_index(choices, text);
        if (v < 0)
            return ARM_ERR_INVALID_ARG;
        break;
    case ARM_CFG_TEXT:
        v = (long)strlen(text);
        if (v >= ARM_CFG_TEXT_MAX)
            return ARM_ERR_INVALID_ARG;
        break;
    default:
        return ARM_ERR_INVALID_ARG;
    }
    *out = v;
    return ARM_OK;
}

static int is_known(const char *name, size_t len)
{
    for (size_t i = 0; i < CFG_COUNT; i++)
        if (strlen(cfg_entries[i].name) == len && !strncmp(cfg_entries[i].name, name, len))
            return 1;
    return 0;
}

arm_status_t arm_config_load(int warn, int *unknown, char *err, size_t errlen)
{
    int n_unknown = 0;
    arm_config_t next;   /* committed only when every setting parsed */
    char text_next[CFG_COUNT][ARM_CFG_TEXT_MAX];
    for (size_t i = 0; i < CFG_COUNT; i++) {
        const arm_cfg_entry_t *e = &cfg_entries[i];
        long *slot = (long *)((char *)&next + e->offset);
        char var[64];
        snprintf(var, sizeof var, "ARMADA_%s", e->name);
        const char *text = getenv(var);
        if (arm_config_parse(e->type, e->choices, e->def, slot) != ARM_OK)
            *slot = 0; /* a default that does not parse is a bug caught by the unit test */
        if (text && arm_config_parse(e->type, e->choices, text, slot) != ARM_OK) {
            snprintf(err, errlen, "setting %s='%s' is not a valid %s%s%s", var, text,
                     type_name(e->type), e->choices ? " (one of " : "",
                     e->choices ? e->choices : "");
            if (e->choices)
                strncat(err, ")", errlen - strlen(err) - 1);
            return ARM_ERR_INVALID_ARG;
        }
        if (e->type == ARM_CFG_TEXT)
            snprintf(text_next[i], ARM_CFG_TEXT_MAX, "%s", text ? text : e->def);
    }
    arm_config = next;
    memcpy(cfg_text, text_next, sizeof cfg_text);
    for (char **env = environ; env && *env; env++) {
        if (strncmp(*env, "ARMADA_", 7) != 0)
            continue;
        const char *name = *env + 7;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        if (is_known(name, len))
            continue;
        /* ARMADA_TEST marks test runs; it is not a setting of the runtime. */
        if (len == 4 && !strncmp(name, "TEST", 4))
            continue;
        n_unknown++;
        if (warn)
            arm_log(ARM_LOG_WARN, "config", "unknown setting ARMADA_%.*s ignored "
                    "(armada-info lists the settings)", (int)len, name);
    }
    if (unknown)
        *unknown = n_unknown;
    return ARM_OK;
}

static const char *entry_value(const arm_cfg_entry_t *e, char *buf, size_t len)
{
    long v = *(const long *)((const char *)&arm_config + e->offset);
    if (e->type == ARM_CFG_ENUM)
        return arm_config_enum_name(e->choices, v, buf, len);
    if (e->type == ARM_CFG_TEXT) {
        snprintf(buf, len, "%s", cfg_text[e - cfg_entries]);
        return buf;
    }
    snprintf(buf, len, "%ld", v);
    return buf;
}

const char *arm_config_text(const char *name)
{
    for (size_t i = 0; i < CFG_COUNT; i++)
        if (cfg_entries[i].type == ARM_CFG_TEXT && strcmp(cfg_entries[i].name, name) == 0)
            return cfg_text[i];
    return "";
}

const char *arm_config_value(const char *name, char *buf, size_t len)
{
    for (size_t i = 0; i < CFG_COUNT; i++)
        if (strcmp(cfg_entries[i].name, name) == 0)
            return entry_value(&cfg_entries[i], buf, len);
    return "?";
}

const char *arm_config_category_name(arm_cfg_cat_t cat)
{
    static const char *const names[ARM_CFG_CAT_COUNT] = {
        "transport", "server", "topology", "connections", "protocols", "diagnostics"
    };
    return (unsigned)cat < ARM_CFG_CAT_COUNT ? names[cat] : "?";
}

static void print_category(FILE *out, arm_cfg_cat_t cat, int with_help)
{
    int header = 0;
    for (size_t i = 0; i < CFG_COUNT; i++) {
        const arm_cfg_entry_t *e = &cfg_entries[i];
        if (e->cat != cat)
            continue;
        if (!header++)
            fprintf(out, " %s:\n", arm_config_category_name(cat));
        char buf[64];
        const char *val = entry_value(e, buf, sizeof buf);
        fprintf(out, "  ARMADA_%-18s = %-10s (%s%s%s, default %s)\n", e->name, val,
                type_name(e->type), e->choices ? ": " : "", e->choices ? e->choices : "",
                e->def);
        if (with_help)
            fprintf(out, "      %s\n", e->help);
    }
}

void arm_config_print(FILE *out, int with_help)
{
    for (int cat = 0; cat < ARM_CFG_CAT_COUNT; cat++)
        print_category(out, (arm_cfg_cat_t)cat, with_help);
}
