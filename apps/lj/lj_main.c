/* armada-lj: Lennard-Jones molecular dynamics on Global Arrays, force
 * decomposition with dynamic load balancing by a shared counter.
 *
 *   armada-lj [-N atoms] [-s steps] [-m blocks | -b block_size] ... (--help)
 *
 * Verified against a serial replay of the first -k steps on rank 0 and by
 * energy conservation over the run. Exit status: 0 verified, 1 not
 * verified, 2 bad input or setup error. */
#include <ga.h>
#include <macdecls.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "lj_ga.h"

/* What rank 0 keeps of the parallel run for the serial comparison. */
typedef struct lj_record {
    double *x, *f; /* every atom after step k */
    double *e;     /* total energy after each step 0 .. steps */
} lj_record;

/* The run: forces of the initial state (untimed), then the timed steps.
 * Returns the wall-clock seconds of the timed steps. */
static double run(lj_par *p, const lj_opts *o, const lj_box *b, lj_record *r)
{
    lj_par_forces(p, o, b);
    r->e[0] = lj_par_close(p, o, 0);
    if (o->check_steps == 0)
        lj_par_snapshot(p);
    p->t_compute = p->t_comm = 0;
    memset(p->t_kind, 0, sizeof p->t_kind);
    p->reads = 0;
    GA_Sync();
    double t0 = lj_now();
    for (long s = 1; s <= o->steps; s++) {
        lj_par_drift(p, o, b);
        lj_par_forces(p, o, b);
        r->e[s] = lj_par_close(p, o, 1);
        if (s == o->check_steps)
            lj_par_snapshot(p);
    }
    double secs = lj_now() - t0;
    lj_par_gather(p, o->natoms, r->x, r->f);
    return secs;
}

/* Energies are compared relative to |E|, or absolutely when E is 0 (one
 * atom at rest). */
static double energy_scale(double e)
{
    return e != 0 ? fabs(e) : 1.0;
}

/* Rank 0: replays the first k steps serially and compares. */
static int verify_serial(const lj_opts *o, const lj_box *b, const lj_record *r)
{
    size_t n3 = 3 * (size_t)o->natoms;
    long k = o->check_steps;
    double *x = malloc(sizeof(double) * n3), *v = malloc(sizeof(double) * n3);
    double *f = malloc(sizeof(double) * n3), *e = malloc(sizeof(double) * (size_t)(k + 1));
    if (!x || !v || !f || !e) {
        fprintf(stderr, "armada-lj: rank 0: out of memory for the serial reference\n");
        free(x), free(v), free(f), free(e);
        return 0;
    }
    double t0 = lj_now();
    lj_serial_run(o, b, k, x, v, f, e);
    double dx = lj_max_rel_diff(r->x, x, n3), df = lj_max_rel_diff(r->f, f, n3), de = 0;
    for (long s = 0; s <= k; s++) {
        double d = fabs(r->e[s] - e[s]) / energy_scale(e[s]);
        if (d > de || d != d)
            de = d != d ? INFINITY : d;
    }
    int ok = dx <= o->force_tol && df <= o->force_tol && de <= o->force_tol;
    printf("serial reference: %ld step(s) in %.3f s; after step %ld: max relative difference"
           " positions %.3e, forces %.3e, energies %.3e (tolerance %.1e): %s\n",
           k, lj_now() - t0, k, dx, df, de, o->force_tol, ok ? "ok" : "MISMATCH");
    free(x), free(v), free(f), free(e);
    return ok;
}

static int verify_energy(const lj_opts *o, const lj_record *r, double *drift)
{
    double e0 = r->e[0], emax = 0;
    for (long s = 1; s <= o->steps; s++) {
        double d = fabs(r->e[s] - e0) / energy_scale(e0);
        if (d > emax || d != d)
            emax = d != d ? INFINITY : d;
    }
    *drift = fabs(r->e[o->steps] - e0) / energy_scale(e0);
    if (*drift != *drift)
        *drift = INFINITY;
    int ok = *drift <= o->energy_tol && emax <= 10 * o->energy_tol;
    printf("energy: E0 %.10f, E_end %.10f per atom; drift |E_end - E0|/|E0| %.3e, largest"
           " excursion %.3e (tolerance %.1e, excursion %.1e): %s\n",
           e0 / (double)o->natoms, r->e[o->steps] / (double)o->natoms, *drift, emax,
           o->energy_tol, 10 * o->energy_tol, ok ? "ok" : "DRIFT");
    return ok;
}

static void report(const lj_par *p, const lj_opts *o, const lj_box *b, double secs, int ok,
                   double drift)
{
    double t[2 + LJ_NKINDS] = { p->t_compute, p->t_comm }, tmax[2 + LJ_NKINDS];
    memcpy(t + 2, p->t_kind, sizeof p->t_kind);
    memcpy(tmax, t, sizeof t);
    long reads = p->reads;
    GA_Dgop(t, 2 + LJ_NKINDS, "+");
    GA_Dgop(tmax, 2 + LJ_NKINDS, "max");
    GA_Lgop(&reads, 1, "+");
    if (p->me != 0)
        return;
    long tasks = p->ntasks * o->steps;
    printf("atoms %ld, box %.4f (density %.4f), cutoff %.3f, dt %g, %ld steps; %ld x %ld blocks"
           " of ~%ld atoms, %ld tasks a step\n",
           o->natoms, b->len, (double)o->natoms / (b->len * b->len * b->len), sqrt(b->rc2), o->dt, o->steps, o->blocks, o->blocks,
           o->natoms / o->blocks, p->ntasks);
    printf("time %.6f s; t_compute mean %.6f max %.6f; t_comm mean %.6f max %.6f;"
           " %ld read_inc (%.2f us of step time a task)\n",
           secs, t[0] / p->np, tmax[0], t[1] / p->np, tmax[1], reads,
           tasks > 0 ? 1e6 * secs / (double)tasks : 0.0);
    static const char *const kinds[LJ_NKINDS] = { "read_inc", "get", "acc", "put",
                                                  "sync/zero/dgop" };
    printf("t_comm by call, mean (max) s:");
    for (int k = 0; k < LJ_NKINDS; k++)
        printf(" %s %.6f (%.6f)", kinds[k], t[2 + k] / p->np, tmax[2 + k]);
    printf("\n");
    printf("VERIFICATION %s\n", ok ? "SUCCESSFUL" : "FAILED");
    printf("RESULT app=lj impl=%s np=%d atoms=%ld steps=%ld blocks=%ld time=%.6f t_compute=%.6f"
           " t_comm=%.6f t_counter=%.6f counter_ops=%ld energy_drift=%.3e verified=%d\n",
           LJ_IMPL, p->np, o->natoms, o->steps, o->blocks, secs, t[0] / p->np, t[1] / p->np,
           t[2] / p->np, reads, drift, ok);
    fflush(stdout);
}

static int finish(int status)
{
    GA_Terminate();
    MPI_Finalize();
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    GA_Initialize();
    MA_init(C_DBL, 1 << 16, 1 << 16);
    int me = GA_Nodeid();
    lj_opts o;
    lj_box b;
    int rc = lj_parse(argc, argv, &o, me);
    if (rc != 0)
        return finish(rc > 0 ? 0 : 2);
    if (lj_box_init(&b, &o, me))
        return finish(2);
    lj_record r = { 0 };
    size_t n3 = me == 0 ? 3 * (size_t)o.natoms : 1;
    r.x = malloc(sizeof(double) * n3);
    r.f = malloc(sizeof(double) * n3);
    r.e = malloc(sizeof(double) * (size_t)(o.steps + 1));
    int bad_setup = !r.x || !r.f || !r.e;
    if (bad_setup)
        fprintf(stderr, "armada-lj: rank %d: out of memory for %ld steps' records\n", me,
                o.steps);
    MPI_Allreduce(MPI_IN_PLACE, &bad_setup, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    lj_par p;
    if (!bad_setup) {
        bad_setup = lj_par_create(&p, &o, &b) != 0;
        MPI_Allreduce(MPI_IN_PLACE, &bad_setup, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    }
    if (bad_setup) {
        if (me == 0)
            fprintf(stderr, "armada-lj: setup failed\n");
        return finish(2);
    }
    double secs = run(&p, &o, &b, &r);
    double drift = 0;
    int ok = 1;
    if (me == 0) {
        printf("armada-lj (%s): %d processes\n", LJ_IMPL, p.np);
        ok = verify_serial(&o, &b, &r);
        ok = verify_energy(&o, &r, &drift) && ok;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    report(&p, &o, &b, secs, ok, drift);
    lj_par_destroy(&p);
    free(r.x), free(r.f), free(r.e);
    return finish(ok ? 0 : 1);
}
