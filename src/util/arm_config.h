/* The configuration table: one struct, filled from the environment. */
#ifndef ARM_CONFIG_H
#define ARM_CONFIG_H

#include <stdio.h>
#include "util/arm_config_table.h"
#include "util/arm_status.h"

/* TEXT: a short string (under ARM_CFG_TEXT_MAX bytes), read with
 * arm_config_text; its field holds its length. */
typedef enum { ARM_CFG_BOOL, ARM_CFG_INT, ARM_CFG_SIZE, ARM_CFG_ENUM, ARM_CFG_TEXT } arm_cfg_type_t;
#define ARM_CFG_TEXT_MAX 64

/* What a setting is about; armada-info groups the settings by it. */
typedef enum {
    ARM_CFG_CAT_TRANSPORT, ARM_CFG_CAT_SERVER, ARM_CFG_CAT_TOPOLOGY,
    ARM_CFG_CAT_CONNECTIONS, ARM_CFG_CAT_PROTOCOLS, ARM_CFG_CAT_DIAGNOSTICS,
    ARM_CFG_CAT_COUNT
} arm_cfg_cat_t;

/* "transport", "server", ... */
const char *arm_config_category_name(arm_cfg_cat_t cat);

typedef struct arm_config {
#define ARM_CFG_FIELD(field, name, type, def, choices, cat, help) long field;
    ARM_CONFIG_TABLE(ARM_CFG_FIELD)
#undef ARM_CFG_FIELD
} arm_config_t;

/* Values in force; valid after arm_config_load (defaults before). */
extern arm_config_t arm_config;

/* Parses every ARMADA_* variable. On a malformed value writes a message to
 * err (size errlen) naming the variable and returns ARM_ERR_INVALID_ARG.
 * Unknown ARMADA_* variables are counted in *unknown and, when warn is set,
 * reported with a warning. */
arm_status_t arm_config_load(int warn, int *unknown, char *err, size_t errlen);

/* Parses one value of a type (exposed for the unit tests). */
arm_status_t arm_config_parse(arm_cfg_type_t type, const char *choices, const char *text,
                              long *out);

/* Writes, for each category in turn, a line "category:" and then
 * "ARMADA_NAME = value  (type, default d)\n    help" for each of its settings. */
void arm_config_print(FILE *out, int with_help);

/* Name of the current value of an ENUM setting. */
const char *arm_config_enum_name(const char *choices, long index, char *buf, size_t len);

/* The value in force of TEXT setting NAME ("" when unset or unknown). */
const char *arm_config_text(const char *name);

/* The value in force of setting NAME (without the ARMADA_ prefix) as text,
 * enum values by name, written to buf; "?" for an unknown name. */
const char *arm_config_value(const char *name, char *buf, size_t len);

#endif
