/* Command line of armada-lj. Every process parses the same argv, so a bad
 * option stops all of them the same way (no hang). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lj.h"

#define LJ_MAX_ATOMS 10000000L

static void usage(FILE *out)
{
    fprintf(out,
            "usage: armada-lj [-N atoms] [-s steps] [-m blocks | -b block_size] [-k check_steps]\n"
            "                 [-d dt] [-r density] [-c cutoff] [-T temperature]\n"
            "                 [-e energy_tol] [-f force_tol] [--inject-fault]\n"
            "  -N  atoms (default 8192)            -s  timed steps (default 10)\n"
            "  -m  atom blocks per side: the force matrix is m x m blocks, m (m + 1) / 2 tasks\n"
            "  -b  atoms per block instead of -m (default 64)\n"
            "  -k  steps the serial reference replays (default min(steps, 2))\n"
            "  -d  time step (default 0.002)       -r  density (default 0.8)\n"
            "  -c  cutoff radius, 0 = half the box (default 2.5)\n"
            "  -T  initial temperature (default 1.0)\n"
            "  -e  energy drift tolerance (default 2e-4)\n"
            "  -f  tolerance against the serial reference (default 1e-9)\n"
            "  --inject-fault  drop one block's forces (the verification must fail)\n");
}

static int bad(int me, const char *opt, const char *val, const char *why)
{
    if (me == 0)
        fprintf(stderr, "armada-lj: %s %s: %s (see --help)\n", opt, val ? val : "", why);
    return -1;
}

static int get_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static int get_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || v != v)
        return -1;
    *out = v;
    return 0;
}

static const char *const long_names[][2] = {
    { "--atoms", "-N" }, { "--steps", "-s" },   { "--blocks", "-m" },     { "--block-size", "-b" },
    { "--check-steps", "-k" }, { "--dt", "-d" }, { "--density", "-r" }, { "--cutoff", "-c" },
    { "--temp", "-T" },  { "--energy-tol", "-e" }, { "--force-tol", "-f" },
};

static const char *short_name(const char *a)
{
    for (size_t i = 0; i < sizeof long_names / sizeof long_names[0]; i++)
        if (strcmp(a, long_names[i][0]) == 0)
            return long_names[i][1];
    return a;
}

/* One "-X value" pair; returns 0, or -1 for a bad value or unknown option. */
static int set_option(lj_opts *o, const char *opt, const char *val, long *bsize, int me)
{
    long l = 0;
    double d = 0;
    const char *ints = "NsmbK", *reals = "drcTef";
    if (strlen(opt) != 2 || opt[0] != '-')
        return bad(me, opt, NULL, "unknown option");
    char c = opt[1] == 'k' ? 'K' : opt[1];
    if (strchr(ints, c)) {
        if (get_long(val, &l))
            return bad(me, opt, val, "not an integer");
    } else if (strchr(reals, c)) {
        if (get_double(val, &d))
            return bad(me, opt, val, "not a number");
    } else {
        return bad(me, opt, NULL, "unknown option");
    }
    switch (c) {
    case 'N': o->natoms = l; break;
    case 's': o->steps = l; break;
    case 'm': o->blocks = l; break;
    case 'b': *bsize = l; break;
    case 'K': o->check_steps = l; break;
    case 'd': o->dt = d; break;
    case 'r': o->density = d; break;
    case 'c': o->cutoff = d; break;
    case 'T': o->temp = d; break;
    case 'e': o->energy_tol = d; break;
    default: o->force_tol = d; break;
    }
    return 0;
}

static int check(lj_opts *o, long bsize, int have_b, int me)
{
    char v[64];
    if (o->natoms < 1 || o->natoms > LJ_MAX_ATOMS) {
        snprintf(v, sizeof v, "%ld", o->natoms);
        return bad(me, "-N", v, "atoms must be between 1 and 10000000");
    }
    if (o->blocks != 0 && have_b)
        return bad(me, "-m", NULL, "give either -m (block count) or -b (block size), not both");
    if (o->blocks == 0) {
        if (!have_b)
            bsize = o->natoms < 64 ? o->natoms : 64;
        if (bsize < 1 || bsize > o->natoms) {
            snprintf(v, sizeof v, "%ld", bsize);
            return bad(me, "-b", v, "block size must be between 1 and the atom count -N");
        }
        o->blocks = (o->natoms + bsize - 1) / bsize;
    }
    if (o->blocks < 1 || o->blocks > o->natoms || o->blocks > 65536) {
        snprintf(v, sizeof v, "%ld", o->blocks);
        return bad(me, "-m", v, "block count must be between 1 and min(-N, 65536)");
    }
    if (o->steps < 0) {
        snprintf(v, sizeof v, "%ld", o->steps);
        return bad(me, "-s", v, "steps must be 0 or more");
    }
    if (o->check_steps < 0)
        o->check_steps = o->steps < 2 ? o->steps : 2;
    if (o->check_steps > o->steps) {
        snprintf(v, sizeof v, "%ld", o->check_steps);
        return bad(me, "-k", v, "check steps must be between 0 and the step count -s");
    }
    snprintf(v, sizeof v, "%g", o->dt);
    if (!(o->dt > 0 && o->dt <= 0.1))
        return bad(me, "-d", v, "time step must be in (0, 0.1]");
    snprintf(v, sizeof v, "%g", o->density);
    if (!(o->density > 0 && o->density <= 2))
        return bad(me, "-r", v, "density must be in (0, 2]");
    snprintf(v, sizeof v, "%g", o->cutoff);
    if (!(o->cutoff >= 0 && o->cutoff < 1e6) || (o->cutoff > 0 && o->cutoff < 0.5))
        return bad(me, "-c", v, "cutoff must be 0 (half the box) or at least 0.5");
    snprintf(v, sizeof v, "%g", o->temp);
    if (!(o->temp >= 0 && o->temp <= 100))
        return bad(me, "-T", v, "temperature must be in [0, 100]");
    snprintf(v, sizeof v, "%g", o->energy_tol);
    if (!(o->energy_tol > 0))
        return bad(me, "-e", v, "tolerance must be positive");
    snprintf(v, sizeof v, "%g", o->force_tol);
    if (!(o->force_tol > 0))
        return bad(me, "-f", v, "tolerance must be positive");
    return 0;
}

int lj_parse(int argc, char **argv, lj_opts *o, int me)
{
    *o = (lj_opts){ .natoms = 8192, .steps = 10, .blocks = 0, .check_steps = -1, .dt = 0.002,
                    .density = 0.8, .cutoff = 2.5, .temp = 1.0, .energy_tol = 2e-4,
                    .force_tol = 1e-9, .inject_fault = 0 };
    long bsize = 0;
    int explicit_blocks = 0, have_b = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = short_name(argv[i]);
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            if (me == 0)
                usage(stdout);
            return 1;
        }
        if (strcmp(a, "--inject-fault") == 0) {
            o->inject_fault = 1;
            continue;
        }
        if (strlen(a) != 2 || a[0] != '-' || !strchr("NsmbkdrcTef", a[1]))
            return bad(me, argv[i], NULL, "unknown option");
        if (i + 1 >= argc)
            return bad(me, argv[i], NULL, "needs a value");
        if (set_option(o, a, argv[++i], &bsize, me))
            return -1;
        if (strcmp(a, "-b") == 0)
            have_b = 1;
        if (strcmp(a, "-m") == 0)
            explicit_blocks = 1;
    }
    if (explicit_blocks && o->blocks < 1) {
        char v[32];
        snprintf(v, sizeof v, "%ld", o->blocks);
        return bad(me, "-m", v, "block count must be between 1 and min(-N, 65536)");
    }
    return check(o, bsize, have_b, me);
}
