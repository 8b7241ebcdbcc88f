/* The cost model's values (sim_model.h): defaults, the model file, printing.
 * One table names every numeric field, so loading, saving, printing and
 * setting cannot disagree about which fields exist. */
#include "sim_model.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES 1024

typedef struct field {
    const char *name;
    int is_int; /* cores; every other field is a double */
    size_t off;
} field_t;

#define DF(f) { #f, 0, offsetof(sim_model_t, f) }
static const field_t fields[] = {
    { "cores", 1, offsetof(sim_model_t, cores) },
    DF(lat_us),      DF(byte_ns),     DF(send_us),     DF(recv_us),
    DF(wake_us),     DF(client_us),   DF(svc_put_us),  DF(svc_get_us),
    DF(svc_acc_us),  DF(svc_seg_us),  DF(svc_rmw_us),  DF(svc_lock_us),
    DF(svc_fence_us), DF(fwd_us),     DF(copy_ns),     DF(local_us),
    DF(barrier_us),  DF(hop_us),      DF(jitter),      DF(poll_load),   DF(cli_msg_us),
    DF(srv_poll_load), DF(poll_window_us),
};
#undef DF
#define NFIELDS (sizeof fields / sizeof fields[0])

/* The calibration of docs/bench/2026-11-24-topo/results.json (vnode-tcp,
 * 8 virtual nodes over loopback TCP on the 2-core VM), rounded; that report
 * has no shared-memory or barrier figures: copy_ns and local_us come from a
 * default armada_bench.py run on the same VM the same day (configuration
 * node), barrier_us is an estimate (decision 046). sim/model-vm.txt holds
 * the unrounded calibration. */
void sim_model_defaults(sim_model_t *m)
{
    memset(m, 0, sizeof *m);
    m->cores = 2;
    m->lat_us = 0.39;
    m->byte_ns = 0.197;
    m->send_us = 3.39;
    m->recv_us = 3.39;
    m->wake_us = 0.39;
    m->client_us = 2.33;
    m->svc_put_us = 4.91;
    m->svc_get_us = 6.49;
    m->svc_acc_us = 4.25;
    m->svc_seg_us = 2.33;
    m->svc_rmw_us = 2.33;
    m->svc_lock_us = 2.16;
    m->svc_fence_us = 2.33;
    m->fwd_us = 2.33;
    m->copy_ns = 0.024;
    m->local_us = 0.022;
    m->barrier_us = 10.0;
    m->hop_us = 13.2;
    m->jitter = 1.0;
    m->poll_window_us = 100.0;   /* ARMADA_YIELD_US's default */
    m->cli_msg_us = 3.39;
    snprintf(m->source, sizeof m->source, "defaults");
}

static const field_t *find_field(const char *key)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(fields[i].name, key) == 0)
            return &fields[i];
    return NULL;
}

/* Whole text a finite number >= 0 (cores: an integer 0..1000000). */
static int parse_field(const field_t *f, const char *value, sim_model_t *m)
{
    char *end;
    errno = 0;
    if (f->is_int) {
        long v = strtol(value, &end, 10);
        if (end == value || *end != '\0' || errno != 0 || v < 0 || v > 1000000)
            return -1;
        *(int *)(void *)((char *)m + f->off) = (int)v;
        return 0;
    }
    double v = strtod(value, &end); /* ERANGE on underflow is fine; overflow is inf */
    if (end == value || *end != '\0' || !isfinite(v) || v < 0.0)
        return -1;
    *(double *)(void *)((char *)m + f->off) = v;
    return 0;
}

int sim_model_set(sim_model_t *m, const char *key, const char *value)
{
    if (strcmp(key, "source") == 0) {
        size_t n = strlen(value);
        if (n >= sizeof m->source || strchr(value, '\n') != NULL)
            return -1;
        memcpy(m->source, value, n + 1);
        return 0;
    }
    const field_t *f = find_field(key);
    return f != NULL ? parse_field(f, value, m) : -1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* One line of a model file: 0 (set, blank or comment) or -1 with why. */
static int load_line(sim_model_t *m, char *line, const char *path, int lineno,
                     int *named_source, char *why, size_t why_len)
{
    char *s = trim(line);
    if (*s == '\0' || *s == '#')
        return 0;
    char *eq = strchr(s, '=');
    if (eq == NULL) {
        snprintf(why, why_len, "%s:%d: expected 'key = value', got '%.60s'", path, lineno, s);
        return -1;
    }
    *eq = '\0';
    char *key = trim(s), *value = trim(eq + 1);
    if (strcmp(key, "source") != 0 && find_field(key) == NULL) {
        snprintf(why, why_len, "%s:%d: unknown key '%.60s'", path, lineno, key);
        return -1;
    }
    if (sim_model_set(m, key, value) < 0) {
        snprintf(why, why_len, "%s:%d: bad value '%.60s' for key '%s'", path, lineno, value,
                 key);
        return -1;
    }
    if (strcmp(key, "source") == 0)
        *named_source = 1;
    return 0;
}

/* Fields the file does not name keep their values in m (callers start from
 * sim_model_defaults); a file without a source line makes its path the
 * source. On an error m may hold the lines before it. */
int sim_model_load(sim_model_t *m, const char *path, char *why, size_t why_len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(why, why_len, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[LINE_MAX_BYTES];
    int lineno = 0, rc = 0, named_source = 0;
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        lineno++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n' && !feof(f)) {
            snprintf(why, why_len, "%s:%d: line longer than %d bytes", path, lineno,
                     LINE_MAX_BYTES - 2);
            rc = -1;
            break;
        }
        rc = load_line(m, line, path, lineno, &named_source, why, why_len);
    }
    if (rc == 0 && ferror(f)) {
        snprintf(why, why_len, "%s: read failed", path);
        rc = -1;
    }
    fclose(f);
    if (rc == 0 && !named_source)
        snprintf(m->source, sizeof m->source, "%s", path);
    return rc;
}

static void print_value(const sim_model_t *m, const field_t *f, FILE *out, const char *sep)
{
    const char *p = (const char *)m + f->off;
    if (f->is_int)
        fprintf(out, "%s%s%d", f->name, sep, *(const int *)(const void *)p);
    else
        fprintf(out, "%s%s%.17g", f->name, sep, *(const double *)(const void *)p);
}

int sim_model_save(const sim_model_t *m, FILE *out)
{
    fprintf(out, "# armada-sim cost model (sim/sim_model.h gives each field's meaning)\n");
    fprintf(out, "source = %s\n", m->source);
    for (size_t i = 0; i < NFIELDS; i++) {
        print_value(m, &fields[i], out, " = ");
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

/* The source is quoted (it holds spaces); '"' and '\' inside are escaped. */
void sim_model_print(const sim_model_t *m, FILE *out)
{
    fputs("MODEL source=\"", out);
    for (const char *s = m->source; *s != '\0'; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
    for (size_t i = 0; i < NFIELDS; i++) {
        fputc(' ', out);
        print_value(m, &fields[i], out, "=");
    }
    fputc('\n', out);
}
