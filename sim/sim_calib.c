/* armada-sim --calibrate: the cost model from a benchmark report (decision
 * 046 gives the reasoning; the equations are repeated here).
 *
 * Figures, from the vnode-tcp configuration (else vnode), impl armada, at
 * the largest process count n of the hotspot suite (virtual nodes, one
 * process per node, so n nodes); ops figures at the same n when there:
 *   F0, M0  hotspot fadd, level 0, rank=mean, under FCG and MFCG (us)
 *   P0      hotspot putv (16 x 64 B + fence), level 0, FCG (us)
 *   Af, Av  hotspot fadd / putv at level 100, FCG, aggregate (Mops/s)
 *   Rget, Rput, Racc, Rfadd, Rlock   ops round trips (us); BW  put1m MB/s
 * Unknowns: k = client_us = svc_rmw_us = svc_fence_us = svc_seg_us and
 * m = send_us = recv_us (the assumed ratios), L = lat_us + wake_us.
 *
 * CPU per operation from the 100 % rates. With n - 1 origins and one hot
 * server busy on `cores` processors, p = min(cores, n) of them run at once;
 * an operation's CPU is C, half of it the server's (client side and server
 * side are alike under the ratios), so an operation leaves every
 * T = C * max(1/p, 1/2) microseconds, and with T = 1/A:
 *   Cf = (1/Af) / max(1/p, 1/2)    fetch-and-add:  Cf = 2k + 4m
 *   Cv = (1/Av) / max(1/p, 1/2)    putv + fence:   Cv = 4k + 6m + 1024 copy_ns
 *   =>  m = Cf - (Cv - 1024 copy_ns) / 2,   k = (Cf - 4m) / 2
 * (byte counts times copy_ns or byte_ns are nanoseconds, taken / 1000).
 * Without Av, from the idle putv: Cv = P0 - 2L - 1024 byte_ns (L below).
 * Without either, or when m or k come out below zero: k = m = Cf / 6.
 * Latency from the idle round trip, F0 = Cf + 2L:
 *   L = (F0 - Cf) / 2,  lat_us = wake_us = L / 2   (floored at 0)
 * Services from the ops suite, round trips that differ from Rfadd only in
 * the server's work (put and acc carry their fence in one batch):
 *   svc_X = k + (RX - Rfadd)   for get, put, acc
 *   Rlock (lock round trip + one-way unlock, served before the next lock)
 *     = Rfadd - svc_rmw + svc_lock + (client + send + recv + svc_lock)
 *   =>  svc_lock = (Rlock - Rfadd - 2m) / 2
 * One forwarding hop, H = lat + wake + recv + fwd + send + hop, from the
 * MFCG excess: M0 - F0 = x H, x the mean extra hops of ranks 1..n-1 to
 * rank 0 in the MFCG shape (computed by src/topo). The hop's CPU is taken
 * as a small service (fwd = k); the rest waits without a processor
 * (decision 048):
 *   fwd_us = k,  hop_us = (M0 - F0) / x - L - 2m - k    (floored at 0)
 * jitter (the CPU costs' variation) is not derived from the figures: it
 * keeps its default, 1 (exponential), which decision 048 argues from the
 * contended figures. 
 * byte_ns = 1000 / BW;  barrier_us = barrier_armci / ceil(log2 nb), at the
 * barrier suite's own largest process count nb. From configuration node
 * (shared memory), when the report has it: local_us = mean of its get,
 * put, acc, fadd; copy_ns = its 1 MiB put time / 1 MiB. */
#include "sim_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_json.h"
#include "topo/arm_topo.h"

typedef struct figs {
    const sj_value_t *list; /* the report's figures array */
    const char *config;
    int n;                  /* processes (nodes) of the hotspot figures */
    double cores;
    double bw, f0, m0, p0, af, av, f100, r_get, r_put, r_acc, r_fadd, r_lock, barrier;
    double local, copy;     /* from configuration node, when there */
} figs_t;

typedef struct notes {
    char kept[200];   /* fields left at their defaults */
    char extra[200];  /* fallbacks taken */
} notes_t;

static void note(char *buf, size_t len, const char *what)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? " " : "", what);
}

/* Whether extra ("level=0;hammers=0;rank=mean", ';' or ' ' between items)
 * holds the item want ("rank=mean"), whole. */
static int extra_has(const char *extra, const char *want)
{
    size_t w = strlen(want);
    for (const char *p = extra; p != NULL && *p != '\0';) {
        size_t k = strcspn(p, "; ");
        if (k == w && strncmp(p, want, w) == 0)
            return 1;
        p += k;
        p += strspn(p, "; ");
    }
    return 0;
}

/* A figure of the chosen configuration: impl armada (for topology t, also
 * "armada-t"); a record without topology is FCG. */
static int rec_matches(const sj_value_t *r, const char *config, const char *topo,
                       const char *suite, const char *op, const char *unit)
{
    const char *c = sj_get_str(r, "config"), *i = sj_get_str(r, "impl");
    const char *t = sj_get_str(r, "topology"), *s = sj_get_str(r, "suite");
    const char *o = sj_get_str(r, "op"), *u = sj_get_str(r, "unit");
    if (c == NULL || i == NULL || s == NULL || o == NULL || u == NULL)
        return 0;
    if (t == NULL)
        t = "fcg";
    if (strcmp(c, config) || strcmp(t, topo) || strcmp(s, suite) || strcmp(o, op) ||
        strcmp(u, unit))
        return 0;
    return strcmp(i, "armada") == 0 ||
           (strncmp(i, "armada-", 7) == 0 && strcmp(i + 7, topo) == 0);
}

/* The value of the figure matching, with extra items e1 and e2 (or NULL),
 * at n processes (n = 0: the largest n there is; *n_found gets it). NAN
 * when there is none. */
static double find(const figs_t *f, const char *topo, const char *suite, const char *op,
                   const char *unit, const char *e1, const char *e2, int n, int *n_found)
{
    double best = NAN, v, np;
    int best_n = 0;
    for (const sj_value_t *r = f->list->child; r != NULL; r = r->next) {
        if (!rec_matches(r, f->config, topo, suite, op, unit) || !sj_get_num(r, "value", &v) ||
            !sj_get_num(r, "nproc", &np) || !isfinite(v))
            continue;
        const char *extra = sj_get_str(r, "extra");
        if ((e1 && !extra_has(extra, e1)) || (e2 && !extra_has(extra, e2)))
            continue;
        if ((n > 0 && (int)np != n) || (n == 0 && (int)np <= best_n))
            continue;
        best = v;
        best_n = (int)np;
    }
    if (n_found != NULL)
        *n_found = best_n;
    return best;
}

static int has_config(const sj_value_t *list, const char *config)
{
    for (const sj_value_t *r = list->child; r != NULL; r = r->next) {
        const char *c = sj_get_str(r, "config");
        if (c != NULL && strcmp(c, config) == 0)
            return 1;
    }
    return 0;
}

/* An ops figure at the hotspot's n, else at the largest n. */
static double find_ops(const figs_t *f, const char *op, const char *unit)
{
    double v = f->n > 0 ? find(f, "fcg", "ops", op, unit, NULL, NULL, f->n, NULL) : NAN;
    return isnan(v) ? find(f, "fcg", "ops", op, unit, NULL, NULL, 0, NULL) : v;
}

/* Configuration node (every process on one node, shared memory): local_us
 * the mean of the 8-byte get, put, acc and fadd there, copy_ns from its
 * 1 MiB put. */
static void read_node_figs(figs_t *f)
{
    const char *keep = f->config;
    static const char *const ops[] = { "get", "put", "acc", "fadd" };
    double sum = 0.0;
    int got = 0;
    f->config = "node";
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        double v = find(f, "fcg", "ops", ops[i], "us", NULL, NULL, 0, NULL);
        if (!isnan(v)) {
            sum += v;
            got++;
        }
    }
    f->local = got ? sum / got : NAN;
    f->copy = find(f, "fcg", "ops", "put1m", "us", NULL, NULL, 0, NULL) * 1000.0 / 1048576.0;
    f->config = keep;
}

static void read_figs(figs_t *f, const sj_value_t *root)
{
    f->cores = NAN;
    sj_get_num(sj_get(sj_get(root, "meta"), "machine"), "cores", &f->cores);
    f->f0 = find(f, "fcg", "hotspot", "fadd", "us", "level=0", "rank=mean", 0, &f->n);
    int n = f->n;
    f->m0 = n ? find(f, "mfcg", "hotspot", "fadd", "us", "level=0", "rank=mean", n, NULL) : NAN;
    f->p0 = n ? find(f, "fcg", "hotspot", "putv", "us", "level=0", "rank=mean", n, NULL) : NAN;
    f->af = n ? find(f, "fcg", "hotspot", "fadd", "Mops/s", "level=100", NULL, n, NULL) : NAN;
    f->av = n ? find(f, "fcg", "hotspot", "putv", "Mops/s", "level=100", NULL, n, NULL) : NAN;
    f->f100 = n ? find(f, "fcg", "hotspot", "fadd", "us", "level=100", "rank=mean", n, NULL)
                : NAN;
    f->bw = find_ops(f, "put1m", "MB/s");
    f->r_get = find_ops(f, "get", "us");
    f->r_put = find_ops(f, "put", "us");
    f->r_acc = find_ops(f, "acc", "us");
    f->r_fadd = find_ops(f, "fadd", "us");
    f->r_lock = find_ops(f, "lock", "us");
    int nb = 0;
    f->barrier = find(f, "fcg", "barrier", "barrier_armci", "us", NULL, NULL, 0, &nb);
    if (!isnan(f->barrier))
        f->barrier /= nb > 1 ? ceil(log2((double)nb)) : 1.0;
    if (n == 0) /* no hotspot figures: n from the ops suite */
        find(f, "fcg", "ops", "fadd", "us", NULL, NULL, 0, &f->n);
    read_node_figs(f);
}

/* Cf, and k, m from Cf and Cv (equations above); 0, or -1 without Af. */
static int derive_cpu(const figs_t *f, sim_model_t *m, notes_t *nt)
{
    double origins = f->n > 1 ? f->n - 1 : 1;
    double a = f->af;
    if ((isnan(a) || a <= 0) && f->f100 > 0) {
        a = origins / f->f100; /* closed loop: origins operations per f100 */
        note(nt->extra, sizeof nt->extra, "rate=origins/f100");
    }
    if (isnan(a) || a <= 0)
        return -1;
    double p = m->cores > 0 && m->cores < origins + 1 ? m->cores : origins + 1;
    double share = fmax(1.0 / p, 0.5);
    double cf = (1.0 / a) / share, k = cf / 6.0, mm = cf / 6.0;
    double cv = NAN;
    if (f->av > 0) {
        cv = (1.0 / f->av) / share;
    } else if (f->p0 > 0 && f->f0 > 0) {
        cv = f->p0 - (f->f0 - cf) - 1024.0 * m->byte_ns * 1e-3; /* P0 less 2L and wire */
        note(nt->extra, sizeof nt->extra, "putv-cpu-from-idle-putv");
    }
    if (!isnan(cv)) {
        cv -= 1024.0 * m->copy_ns * 1e-3;
        double m2 = cf - cv / 2.0, k2 = (cf - 4.0 * m2) / 2.0;
        if (m2 > 0 && k2 > 0) {
            mm = m2;
            k = k2;
        } else {
            note(nt->extra, sizeof nt->extra, "equal-split(putv-unfit)");
        }
    } else {
        note(nt->extra, sizeof nt->extra, "equal-split(no-putv)");
        note(nt->kept, sizeof nt->kept, "svc_seg_us");
    }
    m->client_us = m->svc_rmw_us = m->svc_fence_us = k;
    if (!isnan(cv))
        m->svc_seg_us = k;
    m->send_us = m->recv_us = mm;
    return 0;
}

/* Mean extra hops of ranks 1..n-1 to rank 0 under MFCG over FCG. */
static double mfcg_extra_hops(int n)
{
    arm_topo_t t;
    char why[128];
    if (n < 2 || arm_topo_init(&t, ARM_TOPO_MFCG, n, NULL, why, sizeof why) != ARM_OK)
        return 0.0;
    double sum = 0.0;
    for (int r = 1; r < n; r++)
        sum += arm_topo_hops(&t, r, 0) - 1;
    return sum / (n - 1);
}

static double floor0(double v, int *floored)
{
    if (v < 0.0) {
        *floored = 1;
        return 0.0;
    }
    return v;
}

/* Services from the ops suite, the hop from MFCG (equations above). */
static void derive_services(const figs_t *f, sim_model_t *m, notes_t *nt, double lw)
{
    int fl = 0;
    double k = m->svc_rmw_us, ref = !isnan(f->r_fadd) ? f->r_fadd : f->f0;
    struct { double r; double *field; const char *name; } svc[] = {
        { f->r_get, &m->svc_get_us, "svc_get_us" },
        { f->r_put, &m->svc_put_us, "svc_put_us" },
        { f->r_acc, &m->svc_acc_us, "svc_acc_us" },
    };
    for (size_t i = 0; i < sizeof svc / sizeof svc[0]; i++) {
        if (isnan(svc[i].r) || isnan(ref))
            note(nt->kept, sizeof nt->kept, svc[i].name);
        else
            *svc[i].field = floor0(k + (svc[i].r - ref), &fl);
    }
    if (isnan(f->r_lock) || isnan(ref))
        note(nt->kept, sizeof nt->kept, "svc_lock_us");
    else
        m->svc_lock_us = floor0((f->r_lock - ref - 2.0 * m->send_us) / 2.0, &fl);
    double x = mfcg_extra_hops(f->n);
    if (isnan(f->m0) || isnan(f->f0) || x <= 0.0) {
        note(nt->kept, sizeof nt->kept, "fwd_us hop_us");
    } else {
        /* The hop's CPU is a small service like the others (fwd = k); what
         * the hop costs beyond it and the wire waits without a processor. */
        m->fwd_us = k;
        m->hop_us = floor0((f->m0 - f->f0) / x - lw - m->recv_us - m->send_us - m->fwd_us,
                           &fl);
    }
    if (fl)
        note(nt->extra, sizeof nt->extra, "a-service-floored-at-0");
}

/* Everything from the figures read; fields without one are noted. */
static void derive(const figs_t *f, sim_model_t *m, notes_t *nt)
{
    if (f->cores >= 1)
        m->cores = (int)f->cores;
    else
        note(nt->kept, sizeof nt->kept, "cores");
    if (f->bw > 0)
        m->byte_ns = 1000.0 / f->bw;
    else
        note(nt->kept, sizeof nt->kept, "byte_ns");
    if (f->copy > 0)
        m->copy_ns = f->copy;
    else
        note(nt->kept, sizeof nt->kept, "copy_ns");
    if (f->local > 0)
        m->local_us = f->local;
    else
        note(nt->kept, sizeof nt->kept, "local_us");
    double lw = NAN;
    if (derive_cpu(f, m, nt) < 0) {
        note(nt->kept, sizeof nt->kept,
             "client_us send_us recv_us svc_rmw_us svc_fence_us svc_seg_us");
    } else if (!isnan(f->f0) || !isnan(f->r_fadd)) {
        double f0 = !isnan(f->f0) ? f->f0 : f->r_fadd;
        double cf = m->client_us + 2 * m->send_us + 2 * m->recv_us + m->svc_rmw_us;
        int fl = 0;
        lw = floor0((f0 - cf) / 2.0, &fl);
        if (fl)
            note(nt->extra, sizeof nt->extra, "lat+wake-floored-at-0");
        m->lat_us = m->wake_us = lw / 2.0;
    }
    if (isnan(lw)) {
        note(nt->kept, sizeof nt->kept, "lat_us wake_us");
        lw = m->lat_us + m->wake_us;
    }
    derive_services(f, m, nt, lw);
    if (f->barrier > 0)
        m->barrier_us = f->barrier;
    else
        note(nt->kept, sizeof nt->kept, "barrier_us");
}

/* With a second report (decision 048): the servers' CPU from the 100 %
 * rates, the clients' CPU and poll_load from the idle round trips at two
 * process counts. Processes waiting outside the experiment (in MPI) share
 * the processors with the clients, stretching a client's CPU by
 * s(i) = 1 + p i / c for i of them (the idle figure at n has i = n - 1);
 * the servers, which sleep and are favoured when woken, are not
 * stretched, and at 100 % the hot server is the bottleneck:
 *   Tf = 1 / Af = 2 ms + ks,   Tv = 1 / Av = 3 ms + 2 ks + Bc
 *   (server: ms = send = recv, ks = svc_rmw = svc_seg = svc_fence = fwd;
 *    Bc: the 1,280 bytes of a vector put copied)
 *   F0(n) = Tf + Cf s(n - 1),   P0(n1) = Tv + Cv s(n1 - 1)
 *   (client: Cf = kc + 2 mc,  Cv = 2 kc + 3 mc + Bc; kc = client_us,
 *    mc = cli_msg_us; the wire and wake-ups, below a microsecond on
 *    loopback, are folded into them: lat = wake = 0)
 * so with r = (F0(n2) - Tf) / (F0(n1) - Tf):
 *   p = (r - 1) c / ((n2 - 1) - r (n1 - 1)),  Cf = (F0(n1) - Tf) / s(n1 - 1),
 *   mc = 2 Cf + Bc - Cv,  kc = Cf - 2 mc   (kc < 0: kc = 0, mc = Cf / 2);
 * the hop: hop_us = (M0 - F0) / x - (2 ms + ks). */
static int poll_from(sim_model_t *m, const figs_t *f1, const char *path, notes_t *nt)
{
    char why[256];
    sj_doc_t *doc = sj_parse_file(path, why, sizeof why);
    figs_t f2 = *f1;
    f2.list = doc ? sj_get(sj_root(doc), "figures") : NULL;
    int n2 = 0;
    double f0 = f2.list && f2.list->type == SJ_ARRAY
                    ? find(&f2, "fcg", "hotspot", "fadd", "us", "level=0", "rank=mean", 0, &n2)
                    : NAN;
    if (doc)
        sj_free(doc);
    double c = m->cores, n1 = f1->n, bc = 1280.0 * m->copy_ns * 1e-3;
    if (isnan(f0) || n2 == f1->n || !(f1->f0 > 0) || !(f1->p0 > 0) || c <= 0 ||
        !(f1->af > 0) || !(f1->av > 0))
        return -1;
    double tf = 1.0 / f1->af, tv = 1.0 / f1->av;
    double ms = 2.0 * tf - (tv - bc), ks = tf - 2.0 * ms;
    if (ks < 0) {
        ks = 0.0;
        ms = tf / 2.0;
    }
    double r = (f0 - tf) / (f1->f0 - tf);
    double p = (r - 1.0) * c / ((n2 - 1) - r * (n1 - 1));
    if (!(f1->f0 > tf) || !(p > 0) || !isfinite(p))
        return -1;
    double s1 = 1.0 + p * (n1 - 1) / c, cf = (f1->f0 - tf) / s1, cv = (f1->p0 - tv) / s1;
    double mc = 2.0 * cf + bc - cv, kc = cf - 2.0 * mc;
    if (kc < 0 || mc <= 0) {
        kc = 0.0;
        mc = cf / 2.0;
    }
    m->poll_load = p;
    m->send_us = m->recv_us = ms;
    m->svc_rmw_us = m->svc_seg_us = m->svc_fence_us = m->fwd_us = ks;
    m->client_us = kc;
    m->cli_msg_us = mc;
    m->lat_us = m->wake_us = 0.0;
    double x = mfcg_extra_hops(f1->n);
    int fl = 0;
    if (!isnan(f1->m0) && x > 0.0)
        m->hop_us = floor0((f1->m0 - f1->f0) / x - (2.0 * ms + ks), &fl);
    char what[64];
    snprintf(what, sizeof what, "servers-from-rates-clients-and-poll_load-from-%d-and-%d",
             f1->n, n2);
    note(nt->extra, sizeof nt->extra, what);
    return 0;
}

int sim_model_calibrate(sim_model_t *m, const char *results_json, char *why, size_t why_len)
{
    char first[1024];
    size_t k = strcspn(results_json, ",");
    snprintf(first, sizeof first, "%.*s", (int)k, results_json);
    const char *more = results_json[k] == ',' ? results_json + k + 1 : NULL;
    results_json = first;
    double jitter = m->jitter;   /* a model choice, not a measurement */
    sim_model_defaults(m);
    m->jitter = jitter;
    sj_doc_t *doc = sj_parse_file(results_json, why, why_len);
    if (doc == NULL)
        return -1;
    figs_t f;
    memset(&f, 0, sizeof f);
    f.list = sj_get(sj_root(doc), "figures");
    if (f.list == NULL || f.list->type != SJ_ARRAY) {
        snprintf(why, why_len, "%s: no \"figures\" array", results_json);
        sj_free(doc);
        return -1;
    }
    f.config = has_config(f.list, "vnode-tcp") ? "vnode-tcp"
               : has_config(f.list, "vnode")   ? "vnode" : NULL;
    if (f.config == NULL) {
        snprintf(why, why_len, "%s: no figures of configuration vnode-tcp or vnode",
                 results_json);
        sj_free(doc);
        return -1;
    }
    read_figs(&f, sj_root(doc));
    notes_t nt = { "", "" };
    derive(&f, m, &nt);
    m->cli_msg_us = m->send_us;   /* one report: clients' messages as the servers' */
    char other[1024];
    if (more)
        snprintf(other, sizeof other, "%.*s", (int)strcspn(more, ","), more);
    if (!more || poll_from(m, &f, other, &nt) != 0)
        note(nt.kept, sizeof nt.kept, "poll_load");
    /* The whole text goes to why; the source keeps what fits. */
    char text[sizeof nt.kept + sizeof nt.extra + 128];
    snprintf(text, sizeof text, "(%s, %d processes)%s%s; defaults: %s", f.config, f.n,
             nt.extra[0] ? "; " : "", nt.extra, nt.kept[0] ? nt.kept : "none");
    char full[sizeof text + sizeof first + 32];
    snprintf(full, sizeof full, "calibrated from %s %s", results_json, text);
    if (why != NULL && why_len > 0)
        snprintf(why, why_len, "%s", full);
    size_t n = strlen(full) < sizeof m->source ? strlen(full) : sizeof m->source - 1;
    memcpy(m->source, full, n);
    m->source[n] = '\0';
    sj_free(doc);
    return 0;
}
