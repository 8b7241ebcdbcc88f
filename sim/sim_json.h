/* A small strict JSON reader for the simulator's calibration (issue 21):
 * objects, arrays, strings with every escape (\uXXXX with surrogate pairs
 * written as UTF-8), numbers, true, false, null. One extension: the bare
 * words NaN, Infinity and -Infinity, which Python's json module writes for
 * non-finite floats (the benchmark reports come from it).
 *
 * The whole tree lives in one arena owned by the document: values point
 * into it and stay valid until sj_free. Objects keep their members in file
 * order; a lookup is a linear scan (reports are flat: small objects in one
 * large array). Nesting deeper than SJ_MAX_DEPTH is an error, so hostile
 * input cannot exhaust the stack. */
#ifndef SIM_JSON_H
#define SIM_JSON_H

#include <stddef.h>

#define SJ_MAX_DEPTH 256

typedef enum sj_type {
    SJ_NULL,
    SJ_FALSE,
    SJ_TRUE,
    SJ_NUMBER,
    SJ_STRING,
    SJ_ARRAY,
    SJ_OBJECT
} sj_type_t;

typedef struct sj_value sj_value_t;
struct sj_value {
    sj_type_t type;
    double num;          /* SJ_NUMBER                                        */
    const char *str;     /* SJ_STRING: decoded, NUL-terminated (may hold NUL) */
    size_t len;          /* SJ_STRING: bytes; SJ_ARRAY, SJ_OBJECT: members    */
    const char *key;     /* a member of an object: its name, else NULL        */
    sj_value_t *child;   /* SJ_ARRAY, SJ_OBJECT: first member                 */
    sj_value_t *next;    /* the next member of the enclosing array or object  */
};

typedef struct sj_doc sj_doc_t;

/* Parses len bytes of text: the document, or NULL with "byte N: reason" in
 * why (N counted from 0). Nothing but white space may follow the value. */
sj_doc_t *sj_parse(const char *text, size_t len, char *why, size_t why_len);
/* Reads and parses a file; errors name the path. */
sj_doc_t *sj_parse_file(const char *path, char *why, size_t why_len);
void sj_free(sj_doc_t *doc);

const sj_value_t *sj_root(const sj_doc_t *doc);
/* Member `key` of an object (the first of that name), or NULL when v is no
 * object or has no such member. */
const sj_value_t *sj_get(const sj_value_t *v, const char *key);
/* The string of member `key`, or NULL when absent or not a string. */
const char *sj_get_str(const sj_value_t *v, const char *key);
/* The number of member `key` into *out: 1, or 0 when absent or no number. */
int sj_get_num(const sj_value_t *v, const char *key, double *out);

#endif
