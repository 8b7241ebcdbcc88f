/* The strict JSON reader (see sim_json.h): recursive descent over the text,
 * values and decoded strings bump-allocated from an arena of blocks. */
#include "sim_json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SJ_BLOCK_BYTES ((size_t)256 * 1024)
#define SJ_NUMBER_MAX 400 /* longest number text accepted */

typedef struct sj_block {
    struct sj_block *next;
    size_t used, cap;
    max_align_t data[];
} sj_block_t;

struct sj_doc {
    sj_block_t *blocks;
    sj_value_t *root;
};

typedef struct parser {
    const char *t;
    size_t n, pos;
    sj_doc_t *doc;
    char *why;
    size_t why_len;
    int failed;
} parser_t;

static void *arena_alloc(sj_doc_t *d, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    sj_block_t *b = d->blocks;
    if (b == NULL || b->cap - b->used < size) {
        size_t cap = size > SJ_BLOCK_BYTES ? size : SJ_BLOCK_BYTES;
        b = malloc(sizeof *b + cap);
        if (b == NULL)
            return NULL;
        b->used = 0;
        b->cap = cap;
        b->next = d->blocks;
        d->blocks = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    return p;
}

static void fail(parser_t *ps, size_t at, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    if (ps->why == NULL || ps->why_len == 0)
        return;
    int k = snprintf(ps->why, ps->why_len, "byte %zu: ", at);
    if (k < 0 || (size_t)k >= ps->why_len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->why + k, ps->why_len - (size_t)k, fmt, ap);
    va_end(ap);
}

static sj_value_t *new_value(parser_t *ps, sj_type_t type)
{
    sj_value_t *v = arena_alloc(ps->doc, sizeof *v);
    if (v == NULL) {
        fail(ps, ps->pos, "out of memory");
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->type = type;
    return v;
}

static void skip_ws(parser_t *ps)
{
    while (ps->pos < ps->n) {
        char c = ps->t[ps->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        ps->pos++;
    }
}

static int peek(const parser_t *ps)
{
    return ps->pos < ps->n ? (unsigned char)ps->t[ps->pos] : -1;
}

static int hex4(parser_t *ps, size_t at, unsigned *out)
{
    if (ps->n - at < 4) {
        fail(ps, at, "truncated \\u escape");
        return -1;
    }
    unsigned v = 0;
    for (size_t i = 0; i < 4; i++) {
        char c = ps->t[at + i];
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else {
            fail(ps, at + i, "bad hex digit in \\u escape");
            return -1;
        }
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A \uXXXX escape at pos (the 'u'), a surrogate pair taken whole: the code
 * point, and pos moved past it. */
static int unicode_escape(parser_t *ps, size_t *pos, unsigned *cp)
{
    size_t at = *pos - 1; /* the backslash */
    if (hex4(ps, *pos + 1, cp) < 0)
        return -1;
    *pos += 5;
    if (*cp >= 0xDC00 && *cp <= 0xDFFF) {
        fail(ps, at, "lone low surrogate in \\u escape");
        return -1;
    }
    if (*cp < 0xD800 || *cp > 0xDBFF)
        return 0;
    unsigned lo;
    if (ps->n - *pos < 2 || ps->t[*pos] != '\\' || ps->t[*pos + 1] != 'u' ||
        hex4(ps, *pos + 2, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF) {
        fail(ps, at, "high surrogate without a low one in \\u escape");
        return -1;
    }
    *pos += 6;
    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
    return 0;
}

static int escape(parser_t *ps, size_t *pos, char *o, size_t *olen)
{
    char c = ps->t[*pos];
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    const char *hit = c != '\0' ? strchr(from, c) : NULL;
    if (hit != NULL) {
        o[(*olen)++] = to[hit - from];
        (*pos)++;
        return 0;
    }
    if (c != 'u') {
        fail(ps, *pos - 1, "bad escape '\\%c'", c);
        return -1;
    }
    unsigned cp;
    if (unicode_escape(ps, pos, &cp) < 0)
        return -1;
    *olen += put_utf8(o + *olen, cp);
    return 0;
}

/* A string at ps->pos (the opening quote): decoded into the arena. Decoded
 * text is never longer than its source, so the span sizes the copy. */
static int parse_string(parser_t *ps, const char **out, size_t *out_len)
{
    size_t start = ps->pos + 1, end = start;
    while (end < ps->n && ps->t[end] != '"')
        end += ps->t[end] == '\\' ? 2 : 1;
    if (end >= ps->n) {
        fail(ps, ps->pos, "unterminated string");
        return -1;
    }
    char *o = arena_alloc(ps->doc, end - start + 1);
    if (o == NULL) {
        fail(ps, ps->pos, "out of memory");
        return -1;
    }
    size_t olen = 0, pos = start;
    while (pos < end) {
        unsigned char c = (unsigned char)ps->t[pos];
        if (c < 0x20) {
            fail(ps, pos, "control character 0x%02x in string", c);
            return -1;
        }
        if (c != '\\') {
            o[olen++] = (char)c;
            pos++;
        } else {
            pos++;
            if (escape(ps, &pos, o, &olen) < 0)
                return -1;
        }
    }
    o[olen] = '\0';
    *out = o;
    *out_len = olen;
    ps->pos = end + 1;
    return 0;
}

static size_t digits(const parser_t *ps, size_t pos)
{
    while (pos < ps->n && ps->t[pos] >= '0' && ps->t[pos] <= '9')
        pos++;
    return pos;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? checked here, converted
 * by strtod. */
static int parse_number(parser_t *ps, sj_value_t *v)
{
    size_t s = ps->pos, p = s;
    if (p < ps->n && ps->t[p] == '-')
        p++;
    if (p < ps->n && ps->t[p] == '0')
        p++;
    else if (p < ps->n && ps->t[p] >= '1' && ps->t[p] <= '9')
        p = digits(ps, p);
    else
        return fail(ps, p, "bad number: digit expected"), -1;
    if (p < ps->n && ps->t[p] == '.') {
        size_t q = digits(ps, p + 1);
        if (q == p + 1)
            return fail(ps, q, "bad number: digit expected after '.'"), -1;
        p = q;
    }
    if (p < ps->n && (ps->t[p] == 'e' || ps->t[p] == 'E')) {
        p++;
        if (p < ps->n && (ps->t[p] == '+' || ps->t[p] == '-'))
            p++;
        size_t q = digits(ps, p);
        if (q == p)
            return fail(ps, q, "bad number: digit expected in exponent"), -1;
        p = q;
    }
    if (p - s > SJ_NUMBER_MAX)
        return fail(ps, s, "number longer than %d characters", SJ_NUMBER_MAX), -1;
    char buf[SJ_NUMBER_MAX + 1];
    memcpy(buf, ps->t + s, p - s);
    buf[p - s] = '\0';
    v->num = strtod(buf, NULL);
    ps->pos = p;
    return 0;
}

static int match_word(parser_t *ps, const char *w)
{
    size_t k = strlen(w);
    if (ps->n - ps->pos < k || memcmp(ps->t + ps->pos, w, k) != 0)
        return 0;
    ps->pos += k;
    return 1;
}

/* true, false, null, and the non-finite words (see sim_json.h). */
static sj_value_t *parse_word(parser_t *ps)
{
    size_t at = ps->pos;
    if (match_word(ps, "true")) return new_value(ps, SJ_TRUE);
    if (match_word(ps, "false")) return new_value(ps, SJ_FALSE);
    if (match_word(ps, "null")) return new_value(ps, SJ_NULL);
    double num = 0.0;
    if (match_word(ps, "NaN")) num = NAN;
    else if (match_word(ps, "Infinity")) num = INFINITY;
    else if (match_word(ps, "-Infinity")) num = -INFINITY;
    else {
        fail(ps, at, "unexpected character '%c'", ps->t[at]);
        return NULL;
    }
    sj_value_t *v = new_value(ps, SJ_NUMBER);
    if (v != NULL)
        v->num = num;
    return v;
}

static sj_value_t *parse_value(parser_t *ps, int depth);

/* The members of an array or object after its opening bracket. */
static sj_value_t *parse_container(parser_t *ps, int depth, sj_type_t type)
{
    char close = type == SJ_ARRAY ? ']' : '}';
    sj_value_t *c = new_value(ps, type);
    if (c == NULL)
        return NULL;
    sj_value_t **tail = &c->child;
    ps->pos++;
    skip_ws(ps);
    if (peek(ps) == close) {
        ps->pos++;
        return c;
    }
    for (;;) {
        const char *key = NULL;
        size_t klen;
        skip_ws(ps);
        if (type == SJ_OBJECT) {
            if (peek(ps) != '"')
                return fail(ps, ps->pos, "member name expected"), NULL;
            if (parse_string(ps, &key, &klen) < 0)
                return NULL;
            skip_ws(ps);
            if (peek(ps) != ':')
                return fail(ps, ps->pos, "':' expected after member name"), NULL;
            ps->pos++;
        }
        sj_value_t *m = parse_value(ps, depth + 1);
        if (m == NULL)
            return NULL;
        m->key = key;
        *tail = m;
        tail = &m->next;
        c->len++;
        skip_ws(ps);
        int ch = peek(ps);
        ps->pos++;
        if (ch == close)
            return c;
        if (ch != ',')
            return fail(ps, ps->pos - 1, "',' or '%c' expected", close), NULL;
    }
}

static sj_value_t *parse_value(parser_t *ps, int depth)
{
    if (depth > SJ_MAX_DEPTH)
        return fail(ps, ps->pos, "nested deeper than %d", SJ_MAX_DEPTH), NULL;
    skip_ws(ps);
    int c = peek(ps);
    if (c < 0)
        return fail(ps, ps->pos, "unexpected end of input"), NULL;
    if (c == '{')
        return parse_container(ps, depth, SJ_OBJECT);
    if (c == '[')
        return parse_container(ps, depth, SJ_ARRAY);
    if (c == '"') {
        sj_value_t *v = new_value(ps, SJ_STRING);
        if (v == NULL || parse_string(ps, &v->str, &v->len) < 0)
            return NULL;
        return v;
    }
    if (c == '-' && ps->n - ps->pos > 1 && ps->t[ps->pos + 1] == 'I')
        return parse_word(ps);
    if (c == '-' || (c >= '0' && c <= '9')) {
        sj_value_t *v = new_value(ps, SJ_NUMBER);
        if (v == NULL || parse_number(ps, v) < 0)
            return NULL;
        return v;
    }
    return parse_word(ps);
}

sj_doc_t *sj_parse(const char *text, size_t len, char *why, size_t why_len)
{
    sj_doc_t *doc = calloc(1, sizeof *doc);
    if (doc == NULL) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    parser_t ps = { text, len, 0, doc, why, why_len, 0 };
    doc->root = parse_value(&ps, 0);
    if (doc->root != NULL) {
        skip_ws(&ps);
        if (ps.pos < len)
            fail(&ps, ps.pos, "trailing characters after the value");
    }
    if (ps.failed) {
        sj_free(doc);
        return NULL;
    }
    return doc;
}

sj_doc_t *sj_parse_file(const char *path, char *why, size_t why_len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(why, why_len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (nb == NULL)
            free(buf);
        buf = nb;
        cap *= 2;
    }
    int bad = buf == NULL || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(why, why_len, "%s: read failed", path);
        return NULL;
    }
    char inner[200];
    sj_doc_t *doc = sj_parse(buf, n, inner, sizeof inner);
    free(buf);
    if (doc == NULL)
        snprintf(why, why_len, "%s: %s", path, inner);
    return doc;
}

void sj_free(sj_doc_t *doc)
{
    if (doc == NULL)
        return;
    sj_block_t *b = doc->blocks;
    while (b != NULL) {
        sj_block_t *next = b->next;
        free(b);
        b = next;
    }
    free(doc);
}

const sj_value_t *sj_root(const sj_doc_t *doc) { return doc->root; }

const sj_value_t *sj_get(const sj_value_t *v, const char *key)
{
    if (v == NULL || v->type != SJ_OBJECT)
        return NULL;
    for (const sj_value_t *m = v->child; m != NULL; m = m->next)
        if (strcmp(m->key, key) == 0)
            return m;
    return NULL;
}

const char *sj_get_str(const sj_value_t *v, const char *key)
{
    const sj_value_t *m = sj_get(v, key);
    return m != NULL && m->type == SJ_STRING ? m->str : NULL;
}

int sj_get_num(const sj_value_t *v, const char *key, double *out)
{
    const sj_value_t *m = sj_get(v, key);
    if (m == NULL || m->type != SJ_NUMBER)
        return 0;
    *out = m->num;
    return 1;
}
