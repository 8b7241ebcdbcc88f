/* armada-sim: the command line (tools/sim/README.md).
 *
 *   armada-sim [--model FILE] [--set key=value]... [--seed N] EXPERIMENT [options]
 *   armada-sim --calibrate REPORT/results.json [--out FILE]
 *
 * Prints the model in use (MODEL), the experiment's records (SIM), the
 * invariants it checked (SIMCHECK) and what the run cost (SIMSTAT). Exits
 * 1 when an invariant fails, 2 on bad arguments. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "server/srv_int.h"
#include "sim_exp.h"
#include "util/arm_config.h"

typedef struct cli {
    sim_model_t m;
    sim_params_t p;
    const char *exp, *topo_name;
    sim_hot_opts_t h;
    int default_buffers;       /* memory: the runtime's own slots and sizes */
    int op_set;                /* --op given                                */
} cli_t;

static void usage(const char *why)
{
    fprintf(stderr, "armada-sim: %s\n"
            "usage: armada-sim [--model FILE] [--set key=value]... [--seed N] EXPERIMENT [opts]\n"
            "       armada-sim --calibrate REPORT/results.json [--out FILE]\n"
            "EXPERIMENT memory  --topology T --procs N --ppn P [--slots 4] [--slot-size 16384]\n"
            "                   [--edge-slots 4] [--dims XxY] [--combine 0|1] [--split 0|1]\n"
            "           hotspot --topology T --procs N --ppn P --op fadd|putv --level L\n"
            "                   [--iters 20] [--measure K] [--hammers after|spread]\n"
            "                   [--connect eager|lazy]\n"
            "           hot100  --topology T --procs N --ppn P [--ops 10] [--iters 100]\n"
            "                   [--per-rank 0|1]\n"
            "           connect --topology T --procs N --ppn P --pattern all|clique|hotspot|random\n"
            "                   [--k 4] [--mode lazy|eager|edges] [--ops 10] [--op putv|fadd]\n"
            "T: fcg, mfcg, cfcg, hypercube or auto (the runtime's choice)\n", why);
    exit(2);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long num(const char *opt, const char *v, long lo, long hi)
{
    char *end;
    long x = strtol(v ? v : "", &end, 0);
    if (!v || *end || x < lo || x > hi) {
        char why[160];
        snprintf(why, sizeof why, "%s wants a number from %ld to %ld, not '%s'", opt, lo, hi,
                 v ? v : "");
        usage(why);
    }
    return x;
}

/* --set key=value: one model field. */
static void set_kv(sim_model_t *m, const char *v)
{
    char kv[256];
    snprintf(kv, sizeof kv, "%s", v ? v : "");
    char *eq = strchr(kv, '=');
    if (!eq)
        usage("--set wants key=value");
    *eq = '\0';
    if (sim_model_set(m, kv, eq + 1) != 0)
        usage("--set: unknown key or bad value");
}

static int calibrate(int argc, char **argv, int i, sim_model_t *m)
{
    const char *report = i + 1 < argc ? argv[i + 1] : NULL, *outp = NULL;
    if (i + 3 < argc && !strcmp(argv[i + 2], "--out"))
        outp = argv[i + 3];
    char why[512];
    if (!report)
        usage("--calibrate wants a results.json");
    if (sim_model_calibrate(m, report, why, sizeof why) != 0) {
        fprintf(stderr, "armada-sim: --calibrate %s: %s\n", report, why);
        return 1;
    }
    sim_model_print(m, stdout);
    if (outp) {
        FILE *f = fopen(outp, "w");
        if (!f || sim_model_save(m, f) != 0 || fclose(f) != 0) {
            fprintf(stderr, "armada-sim: cannot write %s\n", outp);
            return 1;
        }
    }
    return 0;
}

/* The index of v among the '|'-separated names. */
static int pick(const char *opt, const char *v, const char *names)
{
    size_t n = v ? strlen(v) : 0;
    int i = 0;
    for (const char *p = names; n && *p; i++) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, v, n))
            return i;
        p += len + (e != NULL);
    }
    char why[160];
    snprintf(why, sizeof why, "%s wants %s, not '%s'", opt, names, v ? v : "");
    usage(why);
    return -1;
}

/* Options of the experiments, after its name. */
static void exp_opt(cli_t *c, const char *o, const char *v)
{
    if (!strcmp(o, "--topology")) {
        c->topo_name = v;
        if (v && strcmp(v, "auto") && arm_topo_parse_kind(v, &c->p.kind) != ARM_OK)
            usage("--topology: fcg, mfcg, cfcg, hypercube or auto");
    } else if (!strcmp(o, "--procs")) c->p.nproc = (int)num(o, v, 2, 1 << 24);
    else if (!strcmp(o, "--ppn")) c->p.ppn = (int)num(o, v, 1, 1 << 20);
    else if (!strcmp(o, "--slots")) { c->p.slots = (int)num(o, v, 1, 1024); c->default_buffers = 0; }
    else if (!strcmp(o, "--slot-size")) { c->p.slot_size = (size_t)num(o, v, 64, 1L << 30); c->default_buffers = 0; }
    else if (!strcmp(o, "--edge-slots")) c->p.edge_slots = (int)num(o, v, 1, 1024);
    else if (!strcmp(o, "--dims")) c->p.dims = v;
    else if (!strcmp(o, "--combine")) c->p.combine = (int)num(o, v, 0, 1);
    else if (!strcmp(o, "--split")) c->p.split = (int)num(o, v, 0, 1);
    else if (!strcmp(o, "--op")) {
        if (!v || (strcmp(v, "fadd") && strcmp(v, "putv")))
            usage("--op: fadd or putv");
        c->h.op = !strcmp(v, "fadd") ? SIM_OP_FADD : SIM_OP_PUTV;
        c->op_set = 1;
    } else if (!strcmp(o, "--level")) c->h.level = (double)num(o, v, 0, 100);
    else if (!strcmp(o, "--iters")) c->h.iters = (int)num(o, v, 1, 1 << 24);
    else if (!strcmp(o, "--measure")) c->h.measure = (int)num(o, v, 0, 1 << 24);
    else if (!strcmp(o, "--ops")) c->h.ops = (int)num(o, v, 1, 1 << 20);
    else if (!strcmp(o, "--k")) c->h.k = (int)num(o, v, 1, 1 << 20);
    else if (!strcmp(o, "--pattern")) c->h.pattern = pick(o, v, "all|clique|hotspot|random");
    else if (!strcmp(o, "--mode")) c->h.mode = pick(o, v, "lazy|eager|edges");
    else if (!strcmp(o, "--per-rank")) c->h.per_rank = (int)num(o, v, 0, 1);
    else if (!strcmp(o, "--connect")) c->h.lazy_answers = pick(o, v, "eager|lazy");
    else if (!strcmp(o, "--hammers")) {
        if (!v || (strcmp(v, "after") && strcmp(v, "spread")))
            usage("--hammers: after or spread");
        c->h.spread = !strcmp(v, "spread");
    } else {
        char why[160];
        snprintf(why, sizeof why, "unknown option %s", o);
        usage(why);
    }
}

static void parse(cli_t *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i += 2) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char why[512];
        if (!c->exp && !strcmp(o, "--model")) {
            if (!v || sim_model_load(&c->m, v, why, sizeof why) != 0) {
                fprintf(stderr, "armada-sim: --model %s: %s\n", v ? v : "", v ? why : "missing");
                exit(2);
            }
        } else if (!c->exp && !strcmp(o, "--set")) {
            set_kv(&c->m, v);
        } else if (!c->exp && !strcmp(o, "--seed")) {
            c->p.seed = (uint64_t)num(o, v, 0, 0x7fffffff);
        } else if (!c->exp && o[0] != '-') {
            c->exp = o;
            i--;
        } else if (c->exp) {
            exp_opt(c, o, v);
        } else {
            snprintf(why, sizeof why, "unknown option %s", o);
            usage(why);
        }
    }
    if (!c->exp)
        usage("no experiment named");
}

/* topology auto and the runtime's own buffer settings, from its settings
 * table (ARMADA_* in the environment apply, as in a job). */
static void runtime_defaults(cli_t *c)
{
    char err[256];
    int unknown = 0;
    if (arm_config_load(0, &unknown, err, sizeof err) != ARM_OK) {
        fprintf(stderr, "armada-sim: settings: %s\n", err);
        exit(2);
    }
    if (c->default_buffers) {
        c->p.slots = (int)arm_config.server_slots;
        c->p.slot_size = (size_t)arm_config.slot_size;
    }
    if (c->p.edge_slots < 0)
        c->p.edge_slots = (int)arm_config.edge_slots;
    if (c->p.combine < 0)
        c->p.combine = (int)arm_config.combine;
    if (c->p.split < 0)
        c->p.split = (int)arm_config.split_replies;
    /* Under edges the servers answer along the topology's edges, as the
     * runtime's do under ARMADA_CONNECT=edges. */
    c->p.bound = c->exp && !strcmp(c->exp, "connect") && c->h.mode == SIM_MODE_EDGES;
    if (c->topo_name && !strcmp(c->topo_name, "auto"))
        c->p.kind = arm_topo_auto_kind(c->p.nproc, (c->p.nproc + c->p.ppn - 1) / c->p.ppn,
                                       c->p.slots, c->p.slot_size,
                                       (size_t)arm_config.topology_auto_max);
}

static int run_world(cli_t *c, unsigned long long *events, double *sim_us)
{
    sim_world_t w;
    char why[256];
    if (sim_world_init(&w, &c->m, &c->p, why, sizeof why) != 0) {
        fprintf(stderr, "armada-sim: %s\n", why);
        sim_world_fini(&w);
        return 2;
    }
    int st = !strcmp(c->exp, "hotspot") ? sim_hotspot(&w, &c->h, stdout)
             : !strcmp(c->exp, "connect") ? sim_connect(&w, &c->h, stdout)
                                          : sim_hot100(&w, &c->h, stdout);
    int ok = sim_check(&w, stdout) && st != 1;
    st = st == 1 ? 0 : st;
    *events = (unsigned long long)w.events;
    *sim_us = w.now;
    sim_world_fini(&w);
    return st != 0 ? 2 : ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    cli_t c;
    memset(&c, 0, sizeof c);
    sim_model_defaults(&c.m);
    c.p.kind = ARM_TOPO_FCG;
    c.p.slots = 4;
    c.p.slot_size = 16384;
    c.p.edge_slots = -1;       /* -1: the runtime's setting */
    c.p.combine = -1;
    c.p.split = -1;
    c.p.seed = 1;
    c.default_buffers = 1;
    c.topo_name = "fcg";
    c.h.iters = 20;
    c.h.ops = 10;
    c.h.per_rank = 1;
    c.h.pattern = SIM_PAT_ALL;
    c.h.k = 4;
    c.h.mode = SIM_MODE_LAZY;
    c.h.op = SIM_OP_FADD;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--set") && i + 1 < argc)
            set_kv(&c.m, argv[i + 1]);
        if (!strcmp(argv[i], "--calibrate"))
            return calibrate(argc, argv, i, &c.m);
    }
    parse(&c, argc, argv);
    if (!strcmp(c.exp, "hot100") && c.h.iters == 20)
        c.h.iters = 100;
    if (!strcmp(c.exp, "connect")) {
        /* Counts, not times: a processor per thread (as at 4,096 processes
         * on real nodes), unless --set cores=N says otherwise (decision 051). */
        int cores_set = 0;
        for (int i = 1; i + 1 < argc; i++)
            cores_set |= !strcmp(argv[i], "--set") && !strncmp(argv[i + 1], "cores=", 6);
        if (!cores_set)
            c.m.cores = 0;
        if (!c.op_set)
            c.h.op = SIM_OP_PUTV;
        /* Fetch-and-adds count on rank 0's counter only (sim_check). */
        if (c.h.op == SIM_OP_FADD && c.h.pattern != SIM_PAT_HOTSPOT)
            usage("connect: --op fadd only with --pattern hotspot");
    }
    runtime_defaults(&c);
    if (!c.p.nproc || !c.p.ppn)
        usage("--procs and --ppn are needed");
    char tn[32];
    snprintf(tn, sizeof tn, "%s%s", strcmp(c.topo_name, "auto") ? "" : "auto:",
             arm_topo_name(c.p.kind));
    c.h.topo_name = tn;
    setvbuf(stdout, NULL, _IOLBF, 0);   /* a run stopped early keeps its records */
    sim_model_print(&c.m, stdout);
    double t0 = now_s(), sim_us = 0.0;
    unsigned long long events = 0;
    int rc;
    if (!strcmp(c.exp, "memory")) {
        char why[256];
        rc = sim_memory(&c.p, tn, stdout, why, sizeof why) == 0 ? 0 : 1;
        if (rc)
            fprintf(stderr, "armada-sim: memory: %s\n", why);
    } else if (!strcmp(c.exp, "hotspot") || !strcmp(c.exp, "hot100") ||
               !strcmp(c.exp, "connect")) {
        rc = run_world(&c, &events, &sim_us);
    } else {
        usage("experiments: memory, hotspot, hot100, connect");
        rc = 2;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("SIMSTAT events=%llu sim_us=%.3f wall_s=%.3f maxrss_kb=%ld\n", events, sim_us,
           now_s() - t0, ru.ru_maxrss);
    return rc;
}
