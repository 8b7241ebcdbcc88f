/* The simulator's cost model (issue 21): the model file (load, save, set,
 * print), the JSON reader, and the calibration from benchmark reports.
 * Usage: test_sim_model [FIXTURE_DIR] (default tests/sim/fixtures). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_json.h"
#include "sim_model.h"
#include "unit.h"

static const char *fixtures = "tests/sim/fixtures";

/* A fresh file to write and read back: its path in buf. */
static FILE *temp_file(char *buf, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s/test_sim_model_XXXXXX", dir != NULL ? dir : "/tmp");
    int fd = mkstemp(buf);
    return fd < 0 ? NULL : fdopen(fd, "w");
}

static int write_text(char *path, size_t len, const char *text)
{
    FILE *f = temp_file(path, len);
    if (f == NULL)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static int models_equal(const sim_model_t *a, const sim_model_t *b)
{
    return a->cores == b->cores && a->lat_us == b->lat_us && a->byte_ns == b->byte_ns &&
           a->send_us == b->send_us && a->recv_us == b->recv_us && a->wake_us == b->wake_us &&
           a->client_us == b->client_us && a->svc_put_us == b->svc_put_us &&
           a->svc_get_us == b->svc_get_us && a->svc_acc_us == b->svc_acc_us &&
           a->svc_seg_us == b->svc_seg_us && a->svc_rmw_us == b->svc_rmw_us &&
           a->svc_lock_us == b->svc_lock_us && a->svc_fence_us == b->svc_fence_us &&
           a->fwd_us == b->fwd_us && a->copy_ns == b->copy_ns && a->local_us == b->local_us &&
           a->barrier_us == b->barrier_us && strcmp(a->source, b->source) == 0;
}

static const char *const names[] = {
    "cores", "lat_us", "byte_ns", "send_us", "recv_us", "wake_us", "client_us",
    "svc_put_us", "svc_get_us", "svc_acc_us", "svc_seg_us", "svc_rmw_us", "svc_lock_us",
    "svc_fence_us", "fwd_us", "copy_ns", "local_us", "barrier_us",
};
#define NNAMES (sizeof names / sizeof names[0])

static void test_set_and_print(void)
{
    sim_model_t m, before;
    sim_model_defaults(&m);
    CHECK(m.cores == 2 && m.lat_us > 0 && m.svc_rmw_us > 0 && m.fwd_us > 0, "defaults");
    CHECK(strcmp(m.source, "defaults") == 0, "source '%.300s'", m.source);
    CHECK(sim_model_set(&m, "lat_us", "12.5") == 0 && m.lat_us == 12.5, "set lat_us");
    CHECK(sim_model_set(&m, "cores", "16") == 0 && m.cores == 16, "set cores");
    CHECK(sim_model_set(&m, "barrier_us", "1e-3") == 0 && m.barrier_us == 1e-3, "set 1e-3");
    CHECK(sim_model_set(&m, "source", "by \"hand\"") == 0, "set source");
    before = m;
    static const char *const bad[][2] = {
        { "lat", "1" },       { "lat_us", "abc" }, { "lat_us", "1.5x" }, { "lat_us", "" },
        { "lat_us", "-1" },   { "lat_us", "nan" }, { "lat_us", "inf" },  { "lat_us", "1e999" },
        { "cores", "2.5" },   { "cores", "-1" },   { "cores", "x" },     { "LAT_US", "1" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(sim_model_set(&m, bad[i][0], bad[i][1]) == -1, "set %s=%s accepted", bad[i][0],
              bad[i][1]);
    CHECK(models_equal(&m, &before), "a refused set changed the model");

    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    sim_model_print(&m, out);
    fclose(out);
    CHECK(strncmp(text, "MODEL source=\"by \\\"hand\\\"\" cores=16 lat_us=12.5 ", 46) == 0,
          "print: %s", text);
    for (size_t i = 0; i < NNAMES; i++) {
        char key[40];
        snprintf(key, sizeof key, " %s=", names[i]);
        CHECK(strstr(text, key) != NULL, "print lacks %s", names[i]);
    }
    CHECK(len > 0 && text[len - 1] == '\n' && strchr(text, '\n') == text + len - 1,
          "one line");
    free(text);
    unit_section("defaults, set, print");
}

static void test_round_trip(void)
{
    sim_model_t m, back;
    sim_model_defaults(&m);
    double *fields[] = { &m.lat_us, &m.byte_ns, &m.send_us, &m.recv_us, &m.wake_us,
                         &m.client_us, &m.svc_put_us, &m.svc_get_us, &m.svc_acc_us,
                         &m.svc_seg_us, &m.svc_rmw_us, &m.svc_lock_us, &m.svc_fence_us,
                         &m.fwd_us, &m.copy_ns, &m.local_us, &m.barrier_us };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        *fields[i] = (double)unit_rand() / 3.0 / (double)(1 + i * i * i) * 1e-17;
    m.svc_get_us = 1.0 / 3.0;
    m.fwd_us = 5e-324; /* the smallest subnormal */
    m.cores = 12345;
    snprintf(m.source, sizeof m.source, "calibrated from x.json; defaults: none");
    char path[256];
    FILE *f = temp_file(path, sizeof path);
    CHECK(f != NULL && sim_model_save(&m, f) == 0, "save");
    if (f != NULL)
        fclose(f);
    char why[300] = "";
    sim_model_defaults(&back);
    CHECK(sim_model_load(&back, path, why, sizeof why) == 0, "load: %s", why);
    CHECK(models_equal(&m, &back), "save then load differs (lat_us %.17g vs %.17g)", m.lat_us,
          back.lat_us);
    remove(path);

    /* No source line: the file's path is the source. Comments, blanks. */
    CHECK(write_text(path, sizeof path, "# c\n\n  lat_us = 7 # no\n") == 0, "write");
    sim_model_defaults(&back);
    int rc = sim_model_load(&back, path, why, sizeof why);
    CHECK(rc == -1 && strstr(why, ":3:") && strstr(why, "lat_us"), "trailing comment: %s",
          why);
    remove(path);
    CHECK(write_text(path, sizeof path, "# c\n\n  lat_us\t=  7  \n") == 0, "write");
    sim_model_defaults(&back);
    CHECK(sim_model_load(&back, path, why, sizeof why) == 0 && back.lat_us == 7.0, "load");
    CHECK(strcmp(back.source, path) == 0, "source '%.300s'", back.source);
    sim_model_t d;
    sim_model_defaults(&d);
    CHECK(back.cores == d.cores && back.svc_rmw_us == d.svc_rmw_us, "other fields kept");
    remove(path);
    unit_section("save then load, exactly");
}

static void load_error(const char *text, const char *at, const char *word)
{
    char path[256], why[300] = "";
    CHECK(write_text(path, sizeof path, text) == 0, "write");
    sim_model_t m;
    sim_model_defaults(&m);
    int rc = sim_model_load(&m, path, why, sizeof why);
    CHECK(rc == -1 && strstr(why, path) && strstr(why, at) && strstr(why, word),
          "'%s' gave rc %d: %s", text, rc, why);
    remove(path);
}

static void test_load_errors(void)
{
    load_error("lat_us = 1\nfoo = 2\n", ":2:", "unknown key 'foo'");
    load_error("# x\nlat_us = 1\ncores = 2\nbyte_ns = 1.2.3\n", ":4:", "byte_ns");
    load_error("lat_us 1\n", ":1:", "key = value");
    load_error("\n\nsend_us =\n", ":3:", "send_us");
    load_error("cores = 1e3\n", ":1:", "cores");
    char why[300] = "";
    sim_model_t m;
    sim_model_defaults(&m);
    CHECK(sim_model_load(&m, "/nonexistent/model.txt", why, sizeof why) == -1 &&
          strstr(why, "/nonexistent/model.txt"), "missing file: %s", why);
    unit_section("model file errors name the key and the line");
}

static sj_doc_t *parse(const char *text, char *why, size_t len)
{
    return sj_parse(text, strlen(text), why, len);
}

static void test_json_good(void)
{
    char why[200] = "";
    const char *text = " {\"a\\\"b\": \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\u0000z\","
                       " \"n\": [-0, 1e-5, 1.5E+3, 123, -2.5e-2, NaN, -Infinity],"
                       " \"o\": {\"t\": true, \"f\": false, \"z\": null, \"e\": {}, \"x\": []},"
                       " \"d\": 1, \"d\": 2}\r\n";
    sj_doc_t *d = parse(text, why, sizeof why);
    CHECK(d != NULL, "parse: %s", why);
    if (d == NULL)
        return;
    const sj_value_t *r = sj_root(d);
    const sj_value_t *s = sj_get(r, "a\"b");
    static const char want[] = "q\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\0z";
    CHECK(s && s->type == SJ_STRING && s->len == sizeof want - 1 &&
          memcmp(s->str, want, sizeof want - 1) == 0, "escapes decoded");
    const sj_value_t *n = sj_get(r, "n");
    CHECK(n && n->type == SJ_ARRAY && n->len == 7, "array of 7");
    double expect[] = { 0.0, 1e-5, 1500.0, 123.0, -0.025 };
    const sj_value_t *v = n ? n->child : NULL;
    for (size_t i = 0; i < 5 && v; i++, v = v->next)
        CHECK(v->type == SJ_NUMBER && v->num == expect[i], "number %zu: %g", i, v->num);
    CHECK(v && isnan(v->num) && v->next && isinf(v->next->num) && v->next->num < 0, "NaN -Inf");
    const sj_value_t *o = sj_get(r, "o");
    CHECK(sj_get(o, "t")->type == SJ_TRUE && sj_get(o, "f")->type == SJ_FALSE &&
          sj_get(o, "z")->type == SJ_NULL, "literals");
    CHECK(sj_get(o, "e")->type == SJ_OBJECT && sj_get(o, "e")->len == 0 &&
          sj_get(o, "x")->type == SJ_ARRAY && sj_get(o, "x")->child == NULL, "empty containers");
    double dv = 0;
    CHECK(sj_get_num(r, "d", &dv) == 1 && dv == 1.0, "first of a repeated key");
    CHECK(sj_get(r, "missing") == NULL && sj_get_str(r, "d") == NULL && !sj_get_num(r, "o", &dv),
          "absent or mistyped members");
    sj_free(d);

    char deep[2 * SJ_MAX_DEPTH + 8];
    size_t k = SJ_MAX_DEPTH;
    memset(deep, '[', k);
    memset(deep + k, ']', k);
    deep[2 * k] = '\0';
    d = parse(deep, why, sizeof why);
    CHECK(d != NULL, "depth %zu: %s", k, why);
    sj_free(d);
    unit_section("JSON reader: escapes, numbers, nesting, literals");
}

static void bad_json(const char *text, size_t at, const char *word)
{
    char why[200] = "", want[40];
    sj_doc_t *d = parse(text, why, sizeof why);
    snprintf(want, sizeof want, "byte %zu: ", at);
    CHECK(d == NULL && strncmp(why, want, strlen(want)) == 0 && strstr(why, word),
          "'%s': want '%s...%s', got '%s'", text, want, word, why);
    sj_free(d);
}

static void test_json_bad(void)
{
    bad_json("", 0, "end of input");
    bad_json("01", 1, "trailing");
    bad_json("1.", 2, "after '.'");
    bad_json("-", 1, "digit expected");
    bad_json(".5", 0, "unexpected character");
    bad_json("1e", 2, "exponent");
    bad_json("+1", 0, "unexpected");
    bad_json("[1,]", 3, "unexpected");
    bad_json("{\"a\":1,}", 7, "member name");
    bad_json("{'a':1}", 1, "member name");
    bad_json("[1 2]", 3, "',' or ']'");
    bad_json("{\"a\" 1}", 5, "':'");
    bad_json("\"abc", 0, "unterminated");
    bad_json("\"a\tb\"", 2, "control character");
    bad_json("[\"\\x\"]", 2, "bad escape");
    bad_json("\"\\u12g4\"", 5, "hex digit");
    bad_json("\"\\ud800x\"", 1, "high surrogate");
    bad_json("\"\\udc00\"", 1, "low surrogate");
    bad_json("tru", 0, "unexpected");
    bad_json("[1] x", 4, "trailing");
    bad_json("{\"a\":[1,{\"b\":nul}]}", 13, "unexpected");
    char deep[2 * SJ_MAX_DEPTH + 8];
    memset(deep, '[', SJ_MAX_DEPTH + 2);
    deep[SJ_MAX_DEPTH + 2] = '\0';
    bad_json(deep, SJ_MAX_DEPTH + 1, "nested deeper");
    unit_section("JSON reader: bad input rejected with its byte offset");
}

/* A report of some megabytes: the reader's speed is shown, not asserted. */
static void test_json_large(void)
{
    const char *rec = "{\"config\": \"vnode-tcp\", \"impl\": \"armada\", \"topology\": \"fcg\", "
                      "\"suite\": \"hotspot\", \"op\": \"fadd\", \"size\": 4, \"unit\": \"us\", "
                      "\"extra\": \"level=0;hammers=0;rank=1\", \"value\": 19.6691, "
                      "\"run_values\": [19.1, 20.2, 18.3], \"nproc\": 8}";
    size_t nrec = 20000, rl = strlen(rec), cap = nrec * (rl + 2) + 64;
    char *buf = malloc(cap);
    size_t n = (size_t)snprintf(buf, cap, "{\"figures\": [");
    for (size_t i = 0; i < nrec; i++) {
        memcpy(buf + n, rec, rl);
        n += rl;
        buf[n++] = i + 1 < nrec ? ',' : ']';
    }
    buf[n++] = '}';
    char why[200] = "";
    clock_t t0 = clock();
    sj_doc_t *d = sj_parse(buf, n, why, sizeof why);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    const sj_value_t *f = d ? sj_get(sj_root(d), "figures") : NULL;
    CHECK(f && f->len == nrec, "large report: %s", why);
    double last = 0;
    const sj_value_t *v = f ? f->child : NULL;
    while (v && v->next)
        v = v->next;
    CHECK(v && sj_get_num(v, "value", &last) && last == 19.6691, "last record");
    printf("  (%.1f MB parsed in %.3f s)\n", n / 1e6, secs);
    sj_free(d);
    free(buf);
    unit_section("JSON reader: a report of several megabytes");
}

static int near(double a, double b) { return fabs(a - b) <= 1e-9; }

static void test_calibrate_full(void)
{
    char path[300], why[400] = "";
    snprintf(path, sizeof path, "%s/calib_full.json", fixtures);
    sim_model_t m;
    sim_model_defaults(&m);
    int rc = sim_model_calibrate(&m, path, why, sizeof why);
    CHECK(rc == 0, "calibrate: %s", why);
    /* By hand (sim_calib.c's equations): Af 0.1 -> Cf = 10 / max(1/2, 1/2)
     * = 20; Av 0.0625, copy_ns 65.536 us / 1 MiB = 0.0625 ns -> Cv = 32 -
     * 0.064 = 31.936; m = 20 - 15.968 = 4.032, k = (20 - 16.128) / 2 =
     * 1.936; F0 24 -> L = 2, lat = wake = 1; Rfadd 22: svc_get = k + 3,
     * svc_put = k + 1, svc_acc = k + 2, svc_lock = (40 - 22 - 8.064) / 2;
     * MFCG 3x3 for 8 nodes, ranks 4, 5, 7 one hop more: x = 3/7, H = 12 / x
     * = 28, fwd = k, hop = 28 - 2 - 8.064 - 1.936 = 16; barrier 36 / log2 8; local = mean(0.01,
     * 0.02, 0.03, 0.04); byte_ns = 1000 / 5000. */
    CHECK(m.cores == 2, "cores %d", m.cores);
    CHECK(near(m.send_us, 4.032) && near(m.recv_us, 4.032), "send %.17g", m.send_us);
    CHECK(near(m.client_us, 1.936) && near(m.svc_rmw_us, 1.936) && near(m.svc_fence_us, 1.936) &&
          near(m.svc_seg_us, 1.936), "k %.17g", m.client_us);
    CHECK(near(m.lat_us, 1.0) && near(m.wake_us, 1.0), "lat %.17g", m.lat_us);
    CHECK(near(m.svc_get_us, 4.936) && near(m.svc_put_us, 2.936) && near(m.svc_acc_us, 3.936),
          "svc get %.17g put %.17g acc %.17g", m.svc_get_us, m.svc_put_us, m.svc_acc_us);
    CHECK(near(m.svc_lock_us, 4.968), "lock %.17g", m.svc_lock_us);
    CHECK(near(m.fwd_us, 1.936) && near(m.hop_us, 16.0), "fwd %.17g hop %.17g", m.fwd_us,
          m.hop_us);
    CHECK(near(m.barrier_us, 12.0) && near(m.local_us, 0.025) && near(m.copy_ns, 0.0625) &&
          near(m.byte_ns, 0.2), "barrier %g local %g copy %g byte %g", m.barrier_us,
          m.local_us, m.copy_ns, m.byte_ns);
    CHECK(strstr(m.source, path) && strstr(m.source, "vnode-tcp, 8 processes") &&
          strstr(m.source, "defaults: poll_load"), "source '%.300s'", m.source);
    unit_section("calibrate: every parameter of a hand-made report");
}

/* A second report with the idle fetch-and-add at 16 processes: the
 * servers' CPU from the rates, the clients' and poll_load from the idle
 * round trips (sim_calib.c). By hand: Tf = 10, Tv = 16, Bc = 1280 x
 * 0.0625 ns = 0.08; ms = 20 - 15.92 = 4.08, ks = 10 - 8.16 = 1.84;
 * r = (29.714285714 - 10) / (24 - 10) = 1.408163265, p = 2 (r - 1) / (15 -
 * 7 r) = 10/63; s = 1 + 7 p / 2 = 14/9, Cf = 14 / s = 9, Cv = 17 / s =
 * 10.928571; mc = 18 + 0.08 - 10.93 gives kc < 0, so kc = 0, mc = 4.5;
 * hop = 12 / (3/7) - (8.16 + 1.84) = 18. */
static void test_calibrate_poll(void)
{
    char path[700], why[600] = "";
    snprintf(path, sizeof path, "%s/calib_full.json,%s/calib_np16.json", fixtures, fixtures);
    sim_model_t m;
    sim_model_defaults(&m);
    int rc = sim_model_calibrate(&m, path, why, sizeof why);
    CHECK(rc == 0, "calibrate: %.300s", why);
    CHECK(near(m.poll_load, 10.0 / 63.0), "poll_load %.17g", m.poll_load);
    CHECK(near(m.send_us, 4.08) && near(m.recv_us, 4.08) && near(m.svc_rmw_us, 1.84) &&
          near(m.fwd_us, 1.84), "send %.17g svc %.17g", m.send_us, m.svc_rmw_us);
    CHECK(near(m.client_us, 0.0) && near(m.cli_msg_us, 4.5), "client %.17g cli_msg %.17g",
          m.client_us, m.cli_msg_us);
    CHECK(near(m.lat_us, 0.0) && near(m.wake_us, 0.0) && near(m.hop_us, 18.0),
          "lat %.17g hop %.17g", m.lat_us, m.hop_us);
    CHECK(strstr(why, "clients-and-poll_load-from-8-and-16") && strstr(why, "defaults: none"),
          "why '%.300s'", why);
    unit_section("calibrate: a second report gives the client/server split and poll_load");
}

static void test_calibrate_sparse(void)
{
    char path[300], why[400] = "";
    snprintf(path, sizeof path, "%s/calib_sparse.json", fixtures);
    sim_model_t m, d;
    sim_model_defaults(&d);
    sim_model_defaults(&m);
    int rc = sim_model_calibrate(&m, path, why, sizeof why);
    CHECK(rc == 0, "calibrate: %s", why);
    CHECK(near(m.svc_get_us, d.svc_rmw_us + 2.5), "svc_get %.17g", m.svc_get_us);
    CHECK(strstr(m.source, "(vnode, 4 processes)") != NULL, "source '%.300s'", m.source);
    /* The whole text is in why (the source keeps what fits its 256 bytes). */
    const char *kept = strstr(why, "defaults: ");
    static const char *const want[] = {
        "cores", "byte_ns", "copy_ns", "local_us", "client_us", "send_us", "recv_us",
        "svc_rmw_us", "svc_fence_us", "svc_seg_us", "lat_us", "wake_us", "svc_put_us",
        "svc_acc_us", "svc_lock_us", "fwd_us", "hop_us", "barrier_us", "poll_load",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(kept && strstr(kept, want[i]), "default %s not named: %s", want[i], why);
    CHECK(kept && !strstr(kept, "svc_get_us"), "svc_get_us named a default");
    m.svc_get_us = d.svc_rmw_us + 2.5;
    d.svc_get_us = m.svc_get_us;
    snprintf(d.source, sizeof d.source, "%s", m.source);
    CHECK(models_equal(&m, &d), "fields without figures differ from the defaults");
    unit_section("calibrate: missing figures keep defaults and are named");
}

static void calib_error(const char *text, const char *word)
{
    char path[256], why[400] = "";
    CHECK(write_text(path, sizeof path, text) == 0, "write");
    sim_model_t m;
    sim_model_defaults(&m);
    int rc = sim_model_calibrate(&m, path, why, sizeof why);
    CHECK(rc == -1 && strstr(why, path) && strstr(why, word), "'%s': rc %d, %s", text, rc, why);
    remove(path);
}

static void test_calibrate_errors(void)
{
    calib_error("{\"figures\": [1, 2", "byte 17");
    calib_error("{\"meta\": {}}", "figures");
    calib_error("{\"figures\": [{\"config\": \"node\", \"value\": 1}]}", "vnode");
    char why[400] = "";
    sim_model_t m;
    sim_model_defaults(&m);
    CHECK(sim_model_calibrate(&m, "/nonexistent/r.json", why, sizeof why) == -1 &&
          strstr(why, "/nonexistent/r.json"), "missing report: %.200s", why);
    unit_section("calibrate: bad reports refused with the reason");
}

int main(int argc, char **argv)
{
    if (argc > 1)
        fixtures = argv[1];
    test_set_and_print();
    test_round_trip();
    test_load_errors();
    test_json_good();
    test_json_bad();
    test_json_large();
    test_calibrate_full();
    test_calibrate_sparse();
    test_calibrate_poll();
    test_calibrate_errors();
    return unit_finish("sim.model");
}
