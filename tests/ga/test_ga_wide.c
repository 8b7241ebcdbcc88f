/* Global Arrays 5.8 (Debian's libga-openmpi.a, unchanged) on Armada's
 * libarmci, the way applications use it beyond puts and gets: the node
 * map (GA_Cluster_*), irregular distributions, GA's own linear algebra
 * (fill, scale, add, copy, dot products, patches with transposes,
 * transpose, element-wise product, selection, DGEMM), mutexes guarding a
 * read-modify-write with GA's fence, direct access to the local block,
 * broadcasts and reductions, arrays on a processor group, ghost cells,
 * periodic patches, strided accumulates, scatter-accumulates and
 * non-blocking gets and accumulates. Every result is compared with the
 * value computed here; all values are small integers, exact in double.
 * Prints a summary; exits non-zero on any mismatch. The same source
 * linked to ARMCI-MPI is the reference that the expectations are right. */
#include "ga_check.h"
#include <macdecls.h>
#include <stdlib.h>
#include <string.h>

static double pat(int i, int j, int salt)
{
    return (double)((i * 31 + j * 17 + salt * 5) % 23 - 11);
}

static int wrap(int i, int n)
{
    return ((i % n) + n) % n;
}

typedef double (*want_fn)(int i, int j, const void *arg);

static double want_pat(int i, int j, const void *arg)
{
    return pat(i, j, *(const int *)arg);
}

/* Member `rank` of `size` writes rows [n0 rank / size, n0 (rank+1) / size)
 * of want(): a split that ignores the distribution, so most rows cross to
 * another process. No sync. */
static void put_rows(int g, int n0, int n1, want_fn want, const void *arg, int rank, int size)
{
    int r0 = (int)((long)n0 * rank / size), r1 = (int)((long)n0 * (rank + 1) / size);
    if (r1 <= r0)
        return;
    double *buf = malloc(sizeof(double) * (size_t)(r1 - r0) * (size_t)n1);
    for (int i = r0; i < r1; i++)
        for (int j = 0; j < n1; j++)
            buf[(size_t)(i - r0) * n1 + j] = want(i, j, arg);
    int lo[2] = { r0, 0 }, hi[2] = { r1 - 1, n1 - 1 }, ld[1] = { n1 };
    NGA_Put(g, lo, hi, buf, ld);
    free(buf);
}

/* Every rank writes its share of rows, then all sync. */
static void fill_fn(int g, int n0, int n1, want_fn want, const void *arg)
{
    put_rows(g, n0, n1, want, arg, me, np);
    GA_Sync();
}

static void fill_pat(int g, int n0, int n1, int salt)
{
    fill_fn(g, n0, n1, want_pat, &salt);
}

/* Reads the whole n0 x n1 array of doubles and compares it with want().
 * Not collective: a processor group's members call it. */
static void check_2d_local(int g, int n0, int n1, want_fn want, const void *arg, const char *what)
{
    double *buf = malloc(sizeof(double) * (size_t)n0 * (size_t)n1);
    int lo[2] = { 0, 0 }, hi[2] = { n0 - 1, n1 - 1 }, ld[1] = { n1 };
    NGA_Get(g, lo, hi, buf, ld);
    long bad = 0;
    int fi = -1, fj = -1;
    for (int i = 0; i < n0; i++)
        for (int j = 0; j < n1; j++)
            if (buf[(size_t)i * n1 + j] != want(i, j, arg) && bad++ == 0) {
                fi = i;
                fj = j;
            }
    EXPECT(bad == 0, "%s: %ld of %d x %d elements wrong, first (%d, %d): got %g, want %g", what,
           bad, n0, n1, fi, fj, bad ? buf[(size_t)fi * n1 + fj] : 0.0,
           bad ? want(fi, fj, arg) : 0.0);
    free(buf);
}

/* check_2d_local, then a sync: nobody changes the array before every rank
 * has read it. */
static void check_2d(int g, int n0, int n1, want_fn want, const void *arg, const char *what)
{
    check_2d_local(g, n0, n1, want, arg, what);
    GA_Sync();
}

static int has_block(const int lo[2], const int hi[2])
{
    return hi[0] >= lo[0] && hi[1] >= lo[1];
}

/* ---- the node map ------------------------------------------------------ */

static void part_cluster(void)
{
    ga_check_part("cluster: nodes and their processes");
    int nn = GA_Cluster_nnodes(), mine = GA_Cluster_nodeid();
    int *node = malloc(sizeof(int) * (size_t)np);
    MPI_Allgather(&mine, 1, MPI_INT, node, 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int n = 0; n < nn; n++) {
        int k = GA_Cluster_nprocs(n);
        total += k;
        for (int i = 0; i < k; i++) {
            int p = GA_Cluster_procid(n, i);
            EXPECT(p >= 0 && p < np && node[p] == n,
                   "GA_Cluster_procid(%d, %d) = %d, on node %d", n, i, p,
                   p >= 0 && p < np ? node[p] : -1);
        }
    }
    EXPECT(total == np, "GA_Cluster_nprocs sum to %d over %d nodes, not %d", total, nn, np);
    for (int p = 0; p < np; p++)
        EXPECT(GA_Cluster_proc_nodeid(p) == node[p], "GA_Cluster_proc_nodeid(%d) = %d, not %d",
               p, GA_Cluster_proc_nodeid(p), node[p]);
    /* Under Armada's virtual nodes, every k consecutive ranks form a node. */
    const char *ppn = getenv("ARMADA_PPN");
    if (ppn && atoi(ppn) > 0) {
        int k = atoi(ppn);
        EXPECT(nn == (np + k - 1) / k, "GA_Cluster_nnodes %d with ARMADA_PPN=%d at %d ranks", nn,
               k, np);
        EXPECT(mine == me / k, "GA_Cluster_nodeid %d with ARMADA_PPN=%d", mine, k);
    }
    free(node);
}

/* ---- an irregular distribution ----------------------------------------- */

typedef struct { int salt; int lo[2], hi[2]; double add; } acc_want_t;

static double want_acc(int i, int j, const void *arg)
{
    const acc_want_t *a = arg;
    int in = i >= a->lo[0] && i <= a->hi[0] && j >= a->lo[1] && j <= a->hi[1];
    return pat(i, j, a->salt) + (in ? a->add : 0.0);
}

static void part_irregular(void)
{
    ga_check_part("irregular distribution: blocks, owners, patches across them");
    int n0 = 37, n1 = 53, dims[2] = { n0, n1 };
    int nb0 = np >= 2 ? 2 : 1, nb1 = np / nb0, block[2] = { nb0, nb1 };
    int *map = malloc(sizeof(int) * (size_t)(nb0 + nb1));
    /* Block starts that grow quadratically: uneven blocks, some of one row. */
    for (int i = 0; i < nb0; i++)
        map[i] = (int)((long)i * (i + 1) * n0 / ((long)nb0 * (nb0 + 1)));
    for (int i = 0; i < nb1; i++)
        map[nb0 + i] = (int)((long)i * (i + 1) * n1 / ((long)nb1 * (nb1 + 1)));
    int g = NGA_Create_irreg(C_DBL, 2, dims, "irregular", block, map);
    free(map);

    long area = 0;
    for (int p = 0; p < np; p++) {
        int lo[2], hi[2];
        NGA_Distribution(g, p, lo, hi);
        if (has_block(lo, hi))
            area += (long)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1);
    }
    EXPECT(area == (long)n0 * n1, "the blocks cover %ld elements of %d", area, n0 * n1);
    for (int s = 0; s < 40; s++) {
        int sub[2] = { (s * 13 + me) % n0, (s * 29 + 3 * me) % n1 }, lo[2], hi[2];
        int owner = NGA_Locate(g, sub);
        EXPECT(owner >= 0 && owner < np, "NGA_Locate(%d, %d) = %d", sub[0], sub[1], owner);
        if (owner >= 0 && owner < np) {
            NGA_Distribution(g, owner, lo, hi);
            EXPECT(sub[0] >= lo[0] && sub[0] <= hi[0] && sub[1] >= lo[1] && sub[1] <= hi[1],
                   "(%d, %d) is not in the block of its owner %d", sub[0], sub[1], owner);
        }
    }

    int salt = 1;
    fill_pat(g, n0, n1, salt);
    check_2d(g, n0, n1, want_pat, &salt, "irregular: rows put by every rank");

    acc_want_t w = { salt, { 5, 10 }, { 30, 45 }, (double)np * (np + 1) / 2 };
    int pn0 = w.hi[0] - w.lo[0] + 1, pn1 = w.hi[1] - w.lo[1] + 1, ld[1] = { pn1 };
    double *ones = malloc(sizeof(double) * (size_t)pn0 * pn1), alpha = me + 1;
    for (int i = 0; i < pn0 * pn1; i++)
        ones[i] = 1.0;
    NGA_Acc(g, w.lo, w.hi, ones, ld, &alpha);
    free(ones);
    GA_Sync();
    check_2d(g, n0, n1, want_acc, &w, "irregular: accumulate across blocks");
    GA_Destroy(g);
}

/* ---- GA's own linear algebra ------------------------------------------- */

typedef struct { double a, b; int salt; } lin_t;

static double want_lin(int i, int j, const void *arg)
{
    const lin_t *l = arg;
    return l->a + l->b * pat(i, j, l->salt);
}

typedef struct {
    int salt;
    int zlo[2], zhi[2];  /* zeroed */
    int flo[2], fhi[2];  /* filled with fval */
    double fval;
} patch_want_t;

static double want_patches(int i, int j, const void *arg)
{
    const patch_want_t *p = arg;
    if (i >= p->flo[0] && i <= p->fhi[0] && j >= p->flo[1] && j <= p->fhi[1])
        return p->fval;
    if (i >= p->zlo[0] && i <= p->zhi[0] && j >= p->zlo[1] && j <= p->zhi[1])
        return 0.0;
    return pat(i, j, p->salt);
}

/* c after the transposed copy and the patch addition below. */
static double want_copy_add(int i, int j, const void *arg)
{
    int salt = *(const int *)arg;
    if (i >= 20 && i <= 39 && j >= 10 && j <= 19)
        return pat(j - 10, i - 20, salt); /* c(20 + q, 10 + p) = b(p, q) */
    if (i >= 38 && j >= 30)
        return 2.0 * 3.0 + pat(i - 38 + 10, j - 30 + 10, salt);
    return 0.0;
}

static double want_transposed(int i, int j, const void *arg)
{
    return pat(j, i, *(const int *)arg);
}

static void part_algebra(void)
{
    ga_check_part("linear algebra: fill, scale, add, copy, dot, patches, transpose, select");
    int n0 = 48, n1 = 40, dims[2] = { n0, n1 }, tdims[2] = { n1, n0 }, salt = 2;
    int a = NGA_Create(C_DBL, 2, dims, "a", NULL);
    int b = GA_Duplicate(a, "b"), c = GA_Duplicate(a, "c"), d = GA_Duplicate(a, "d");
    EXPECT(GA_Compare_distr(a, b) == 0, "a duplicate is distributed differently");

    double two = 2.0, onehalf = 1.5, minus1 = -1.0, one = 1.0;
    GA_Fill(a, &two);
    GA_Scale(a, &onehalf);
    lin_t three = { 3.0, 0.0, 0 };
    check_2d(a, n0, n1, want_lin, &three, "GA_Fill 2, GA_Scale 1.5");

    fill_pat(b, n0, n1, salt);
    GA_Add(&two, a, &minus1, b, c);
    lin_t sum = { 6.0, -1.0, salt };
    check_2d(c, n0, n1, want_lin, &sum, "GA_Add 2 a - b");

    double want_dot = 0.0;
    for (int i = 0; i < n0; i++)
        for (int j = 0; j < n1; j++)
            want_dot += 3.0 * pat(i, j, salt);
    double dot = GA_Ddot(a, b);
    EXPECT(dot == want_dot, "GA_Ddot %g, want %g", dot, want_dot);

    GA_Copy(b, d);
    check_2d(d, n0, n1, want_pat, &salt, "GA_Copy");

    GA_Elem_multiply(a, b, c);
    lin_t prod = { 0.0, 3.0, salt };
    check_2d(c, n0, n1, want_lin, &prod, "GA_Elem_multiply");

    patch_want_t pw = { salt, { 3, 5 }, { 20, 33 }, { 30, 0 }, { 47, 6 }, 7.0 };
    NGA_Zero_patch(d, pw.zlo, pw.zhi);
    NGA_Fill_patch(d, pw.flo, pw.fhi, &pw.fval);
    check_2d(d, n0, n1, want_patches, &pw, "NGA_Zero_patch, NGA_Fill_patch");

    /* b's 10 x 20 patch, transposed, into c's 20 x 10 patch; then
     * c(38.., 30..) = 2 a(0.., 0..) + 1 b(10.., 10..). */
    GA_Zero(c);
    int alo[2] = { 0, 0 }, ahi[2] = { 9, 19 }, clo[2] = { 20, 10 }, chi[2] = { 39, 19 };
    NGA_Copy_patch('T', b, alo, ahi, c, clo, chi);
    int plo[2] = { 0, 0 }, phi[2] = { 9, 9 }, qlo[2] = { 10, 10 }, qhi[2] = { 19, 19 };
    int rlo[2] = { 38, 30 }, rhi[2] = { 47, 39 };
    NGA_Add_patch(&two, a, plo, phi, &one, b, qlo, qhi, c, rlo, rhi);
    GA_Sync();
    check_2d(c, n0, n1, want_copy_add, &salt, "NGA_Copy_patch 'T', NGA_Add_patch");

    double want_sq = 0.0;
    for (int i = 0; i <= 9; i++)
        for (int j = 0; j <= 19; j++)
            want_sq += pat(i, j, salt) * pat(i, j, salt);
    double dp = NGA_Ddot_patch(b, 'T', alo, ahi, c, 'N', clo, chi);
    EXPECT(dp == want_sq, "NGA_Ddot_patch of b^T with its transposed copy: %g, want %g", dp,
           want_sq);

    double mx = 0.0;
    int idx[2] = { -1, -1 };
    NGA_Select_elem(b, "max", &mx, idx);
    EXPECT(mx == 11.0 && idx[0] >= 0 && idx[0] < n0 && idx[1] >= 0 && idx[1] < n1 &&
           pat(idx[0], idx[1], salt) == mx,
           "NGA_Select_elem max: %g at (%d, %d)", mx, idx[0], idx[1]);

    int e = NGA_Create(C_DBL, 2, tdims, "e", NULL);
    GA_Transpose(b, e);
    check_2d(e, n1, n0, want_transposed, &salt, "GA_Transpose");

    GA_Destroy(e);
    GA_Destroy(d);
    GA_Destroy(c);
    GA_Destroy(b);
    GA_Destroy(a);
}

typedef struct { int m, n, k; double alpha, beta; } gemm_t;

static double want_gemm(int i, int j, const void *arg)
{
    const gemm_t *g = arg;
    double s = 0.0;
    for (int l = 0; l < g->k; l++)
        s += pat(i, l, 3) * pat(l, j, 4);
    return g->alpha * s + g->beta * pat(i, j, 5);
}

static void part_dgemm(void)
{
    ga_check_part("GA_Dgemm: N N with beta, T N");
    int m = 23, n = 19, k = 31;
    int ad[2] = { m, k }, atd[2] = { k, m }, bd[2] = { k, n }, cd[2] = { m, n }, s3 = 3;
    int A = NGA_Create(C_DBL, 2, ad, "A", NULL), At = NGA_Create(C_DBL, 2, atd, "At", NULL);
    int B = NGA_Create(C_DBL, 2, bd, "B", NULL), C = NGA_Create(C_DBL, 2, cd, "C", NULL);
    fill_pat(A, m, k, 3);
    fill_fn(At, k, m, want_transposed, &s3);
    fill_pat(B, k, n, 4);
    fill_pat(C, m, n, 5);
    GA_Dgemm('N', 'N', m, n, k, 2.0, A, B, -1.0, C);
    gemm_t w = { m, n, k, 2.0, -1.0 };
    check_2d(C, m, n, want_gemm, &w, "GA_Dgemm N N, alpha 2, beta -1");
    GA_Dgemm('T', 'N', m, n, k, 1.0, At, B, 0.0, C);
    gemm_t w2 = { m, n, k, 1.0, 0.0 };
    check_2d(C, m, n, want_gemm, &w2, "GA_Dgemm T N");
    GA_Destroy(C);
    GA_Destroy(B);
    GA_Destroy(At);
    GA_Destroy(A);
}

/* ---- mutexes ----------------------------------------------------------- */

static void part_mutex(void)
{
    ga_check_part("mutexes: read-modify-write under GA_Lock with GA_Fence");
    enum { NM = 3, ITERS = 24 };
    int dims[1] = { NM };
    int g = NGA_Create(C_LONG, 1, dims, "counters", NULL);
    GA_Zero(g);
    EXPECT(GA_Create_mutexes(NM) == 1, "GA_Create_mutexes(%d) failed", NM);
    for (int it = 0; it < ITERS; it++) {
        int j = (it + me) % NM, lo[1] = { j };
        long v = -1;
        GA_Lock(j);
        NGA_Get(g, lo, lo, &v, NULL);
        v++;
        GA_Init_fence();
        NGA_Put(g, lo, lo, &v, NULL);
        GA_Fence();
        GA_Unlock(j);
    }
    GA_Sync();
    long got[NM];
    int lo[1] = { 0 }, hi[1] = { NM - 1 };
    NGA_Get(g, lo, hi, got, NULL);
    for (int j = 0; j < NM; j++)
        EXPECT(got[j] == (long)np * (ITERS / NM), "counter %d under mutex %d: %ld, want %ld", j,
               j, got[j], (long)np * (ITERS / NM));
    GA_Sync();
    EXPECT(GA_Destroy_mutexes() == 1, "GA_Destroy_mutexes failed");
    GA_Destroy(g);
}

/* ---- direct access to the local block ---------------------------------- */

static void part_access(void)
{
    ga_check_part("NGA_Access / NGA_Release_update: local writes seen remotely");
    int n0 = 29, n1 = 41, dims[2] = { n0, n1 };
    int g = NGA_Create(C_INT, 2, dims, "access", NULL), lo[2], hi[2];
    NGA_Distribution(g, me, lo, hi);
    if (has_block(lo, hi)) {
        int *p = NULL, ld[1] = { 0 };
        NGA_Access(g, lo, hi, &p, ld);
        for (int i = lo[0]; i <= hi[0]; i++)
            for (int j = lo[1]; j <= hi[1]; j++)
                p[(size_t)(i - lo[0]) * ld[0] + (j - lo[1])] = me * 100000 + i * n1 + j;
        NGA_Release_update(g, lo, hi);
    }
    GA_Sync();
    int *all = malloc(sizeof(int) * (size_t)n0 * n1), alo[2] = { 0, 0 },
        ahi[2] = { n0 - 1, n1 - 1 }, ld[1] = { n1 };
    NGA_Get(g, alo, ahi, all, ld);
    long bad = 0;
    for (int i = 0; i < n0; i++)
        for (int j = 0; j < n1; j++) {
            int sub[2] = { i, j };
            if (all[i * n1 + j] != NGA_Locate(g, sub) * 100000 + i * n1 + j)
                bad++;
        }
    EXPECT(bad == 0, "%ld elements written through NGA_Access read back wrong", bad);
    free(all);
    GA_Destroy(g);
}

/* ---- broadcast and reductions ------------------------------------------ */

static void part_collectives(void)
{
    ga_check_part("GA_Brdcst, GA_Dgop, GA_Fgop, GA_Igop, GA_Lgop");
    char msg[100];
    int root = np - 1;
    for (int i = 0; i < 100; i++)
        msg[i] = me == root ? (char)(i * 3 + root) : 0;
    GA_Brdcst(msg, 100, root);
    int bad = 0;
    for (int i = 0; i < 100; i++)
        bad += msg[i] != (char)(i * 3 + root);
    EXPECT(bad == 0, "GA_Brdcst from %d: %d bytes wrong", root, bad);

    double x[5];
    for (int i = 0; i < 5; i++)
        x[i] = (me + 1.0) * (i + 1);
    GA_Dgop(x, 5, "+");
    for (int i = 0; i < 5; i++)
        EXPECT(x[i] == (double)np * (np + 1) / 2 * (i + 1), "GA_Dgop + [%d] = %g", i, x[i]);
    int y[3] = { me, -me, me * me };
    GA_Igop(y, 3, "max");
    EXPECT(y[0] == np - 1 && y[1] == 0 && y[2] == (np - 1) * (np - 1),
           "GA_Igop max = %d %d %d", y[0], y[1], y[2]);
    float f[2] = { (float)me, 1.0f };
    GA_Fgop(f, 2, "+");
    EXPECT(f[0] == (float)(np * (np - 1) / 2) && f[1] == (float)np, "GA_Fgop + = %g %g", f[0],
           f[1]);
    long z[2] = { me + 10L, 100L - me };
    GA_Lgop(z, 2, "min");
    EXPECT(z[0] == 10 && z[1] == 100 - (np - 1), "GA_Lgop min = %ld %ld", z[0], z[1]);
}

/* ---- an array on a processor group ------------------------------------- */

static void part_group(void)
{
    if (np < 2)
        return;
    ga_check_part("processor group: the odd ranks' array, sync, dgop, read-increment");
    int cnt = np / 2, *list = malloc(sizeof(int) * (size_t)cnt);
    for (int i = 0; i < cnt; i++)
        list[i] = 2 * i + 1;
    int grp = GA_Pgroup_create(list, cnt);
    free(list);
    if (me % 2 == 1) {
        int gme = GA_Pgroup_nodeid(grp);
        EXPECT(gme == me / 2 && GA_Pgroup_nnodes(grp) == cnt,
               "group rank %d of %d, want %d of %d", gme, GA_Pgroup_nnodes(grp), me / 2, cnt);
        int n0 = 17, n1 = 23, dims[2] = { n0, n1 }, salt = 6;
        int g = GA_Create_handle();
        GA_Set_data(g, 2, dims, C_DBL);
        GA_Set_array_name(g, "group");
        GA_Set_pgroup(g, grp);
        EXPECT(GA_Allocate(g) != 0, "GA_Allocate on the group failed");
        put_rows(g, n0, n1, want_pat, &salt, gme, cnt);
        GA_Pgroup_sync(grp);
        check_2d_local(g, n0, n1, want_pat, &salt, "array on the group");
        GA_Pgroup_sync(grp);

        double s = gme + 1.0;
        GA_Pgroup_dgop(grp, &s, 1, "+");
        EXPECT(s == (double)cnt * (cnt + 1) / 2, "GA_Pgroup_dgop + = %g", s);

        int one[1] = { 1 }, sub[1] = { 0 };
        int gc = GA_Create_handle();
        GA_Set_data(gc, 1, one, C_LONG);
        GA_Set_pgroup(gc, grp);
        GA_Allocate(gc);
        GA_Zero(gc);
        long prev = -1, mine = 0;
        int increasing = 1;
        for (int t = 0; t < 10; t++) {
            long v = NGA_Read_inc(gc, sub, 1);
            increasing &= v > prev;
            prev = v;
            mine += v;
        }
        EXPECT(increasing, "NGA_Read_inc on the group handed out a value twice to one member");
        double total = (double)mine;
        GA_Pgroup_dgop(grp, &total, 1, "+");
        long n = 10L * cnt;
        EXPECT(total == (double)(n * (n - 1) / 2), "NGA_Read_inc values sum to %g, want %ld",
               total, n * (n - 1) / 2);
        GA_Destroy(gc);
        GA_Destroy(g);
    }
    GA_Sync();
}

/* ---- subgroups as the default group ------------------------------------ */

static void part_split(void)
{
    if (np < 3)
        return;
    ga_check_part("GA_Pgroup_split_irreg into 3 colours, each the default group in turn");
    int world = GA_Pgroup_get_world(), color = me % 3;
    int grp = GA_Pgroup_split_irreg(world, color);
    int size = (np - color + 2) / 3, gme = me / 3;
    EXPECT(GA_Pgroup_nnodes(grp) == size && GA_Pgroup_nodeid(grp) == gme,
           "colour %d: group rank %d of %d, want %d of %d", color, GA_Pgroup_nodeid(grp),
           GA_Pgroup_nnodes(grp), gme, size);

    GA_Pgroup_set_default(grp);
    EXPECT(GA_Nnodes() == size && GA_Nodeid() == gme,
           "with the colour %d group as default: GA_Nodeid %d of GA_Nnodes %d", color,
           GA_Nodeid(), GA_Nnodes());
    int n0 = 13, n1 = 17, dims[2] = { n0, n1 }, salt = 10 + color;
    int g = NGA_Create(C_DBL, 2, dims, "split", NULL);
    put_rows(g, n0, n1, want_pat, &salt, gme, size);
    GA_Sync();
    check_2d_local(g, n0, n1, want_pat, &salt, "array on a subgroup made default");
    GA_Sync();

    int v[2] = { color * 100 + gme, gme };
    GA_Pgroup_igop(grp, v, 2, "max");
    EXPECT(v[0] == color * 100 + size - 1 && v[1] == size - 1, "GA_Pgroup_igop max = %d %d",
           v[0], v[1]);
    long word = gme == size - 1 ? 4242L + color : 0;
    GA_Pgroup_brdcst(grp, &word, (int)sizeof word, size - 1);
    EXPECT(word == 4242L + color, "GA_Pgroup_brdcst from the last member: %ld", word);
    GA_Destroy(g);
    GA_Pgroup_set_default(world);
    GA_Sync();
}

/* ---- segmented scans ---------------------------------------------------- */

enum { SCAN_N = 211 };

static long scan_src(int i) { return i % 7 + 1; }
static int scan_starts(int i) { return i % 13 == 0 || i == 100; }

static void part_scan(void)
{
    ga_check_part("GA_Scan_add (inclusive and exclusive) and GA_Scan_copy over segments");
    int n[1] = { SCAN_N };
    int src = NGA_Create(C_LONG, 1, n, "scan_src", NULL);
    int dst = GA_Duplicate(src, "scan_dst");
    int bits = NGA_Create(C_INT, 1, n, "scan_bits", NULL);
    if (me == 0) {
        long v[SCAN_N];
        int b[SCAN_N], lo[1] = { 0 }, hi[1] = { SCAN_N - 1 };
        for (int i = 0; i < SCAN_N; i++) {
            v[i] = scan_src(i);
            b[i] = scan_starts(i);
        }
        NGA_Put(src, lo, hi, v, NULL);
        NGA_Put(bits, lo, hi, b, NULL);
    }
    GA_Sync();
    for (int excl = 0; excl <= 2; excl++) {
        GA_Zero(dst);
        if (excl < 2)
            GA_Scan_add(src, dst, bits, 0, SCAN_N - 1, excl);
        else
            GA_Scan_copy(src, dst, bits, 0, SCAN_N - 1);
        GA_Sync();
        long got[SCAN_N], want = 0, first = 0;
        int lo[1] = { 0 }, hi[1] = { SCAN_N - 1 }, bad = 0, at = -1;
        NGA_Get(dst, lo, hi, got, NULL);
        for (int i = 0; i < SCAN_N; i++) {
            if (scan_starts(i)) {
                want = 0;
                first = scan_src(i);
            }
            long w = excl == 2 ? first : excl == 1 ? want : want + scan_src(i);
            want += scan_src(i);
            if (got[i] != w && bad++ == 0)
                at = i;
        }
        EXPECT(bad == 0, "%s: %d of %d wrong, first at %d", excl == 2 ? "GA_Scan_copy"
               : excl ? "GA_Scan_add exclusive" : "GA_Scan_add inclusive", bad, SCAN_N, at);
        GA_Sync();
    }
    GA_Destroy(bits);
    GA_Destroy(dst);
    GA_Destroy(src);
}

/* ---- ghost cells ------------------------------------------------------- */

enum { GH_N0 = 24, GH_N1 = 30, GH_SALT = 7 };
static int gh_width[2] = { 1, 2 };

/* A ghosted array whose owned cells hold pat(), written through
 * NGA_Access; returns 1 if this rank owns a block (lo, hi). */
static int ghosts_make(int *g, int lo[2], int hi[2], const char *name)
{
    int dims[2] = { GH_N0, GH_N1 };
    *g = NGA_Create_ghosts(C_DBL, 2, dims, gh_width, (char *)name, NULL);
    NGA_Distribution(*g, me, lo, hi);
    int mine = has_block(lo, hi);
    if (mine) {
        double *p = NULL;
        int ld[1] = { 0 };
        NGA_Access(*g, lo, hi, &p, ld);
        for (int i = lo[0]; i <= hi[0]; i++)
            for (int j = lo[1]; j <= hi[1]; j++)
                p[(size_t)(i - lo[0]) * ld[0] + (j - lo[1])] = pat(i, j, GH_SALT);
        NGA_Release_update(*g, lo, hi);
    }
    GA_Sync();
    int salt = GH_SALT;
    check_2d(*g, GH_N0, GH_N1, want_pat, &salt, "ghosted array before the update");
    return mine;
}

/* Every cell of my block with its ghosts, periodic, corners included. */
static void ghosts_check(int g, const int lo[2], const int hi[2], const char *what)
{
    double *q = NULL;
    int gd[2] = { 0, 0 }, gld[1] = { 0 }, *w = gh_width;
    NGA_Access_ghosts(g, gd, &q, gld);
    EXPECT(gd[0] == hi[0] - lo[0] + 1 + 2 * w[0] && gd[1] == hi[1] - lo[1] + 1 + 2 * w[1],
           "%s: NGA_Access_ghosts dims %d x %d for block %d..%d x %d..%d", what, gd[0], gd[1],
           lo[0], hi[0], lo[1], hi[1]);
    long bad = 0;
    int fa = -1, fb = -1;
    for (int a = 0; a < gd[0]; a++)
        for (int b = 0; b < gd[1]; b++) {
            int gi = wrap(lo[0] - w[0] + a, GH_N0), gj = wrap(lo[1] - w[1] + b, GH_N1);
            if (q[(size_t)a * gld[0] + b] != pat(gi, gj, GH_SALT) && bad++ == 0) {
                fa = a;
                fb = b;
            }
        }
    EXPECT(bad == 0,
           "%s: %ld cells of the block %d..%d x %d..%d with its ghosts are wrong, first at "
           "(%d, %d) of the ghosted block: got %g, want %g",
           what, bad, lo[0], hi[0], lo[1], hi[1], fa, fb, bad ? q[(size_t)fa * gld[0] + fb] : 0.0,
           bad ? pat(wrap(lo[0] - w[0] + fa, GH_N0), wrap(lo[1] - w[1] + fb, GH_N1), GH_SALT)
               : 0.0);
    NGA_Release_ghosts(g);
}

static void part_ghosts(void)
{
    ga_check_part("ghost cells: GA_Update_ghosts, NGA_Update_ghost_dir, NGA_Update_ghosts_nb, corners included");
    int g, lo[2], hi[2];
    int mine = ghosts_make(&g, lo, hi, "ghosts");
    GA_Update_ghosts(g);
    GA_Sync();
    if (mine)
        ghosts_check(g, lo, hi, "GA_Update_ghosts");
    GA_Destroy(g);

    mine = ghosts_make(&g, lo, hi, "ghost_dir");
    for (int d = 0; d < 2; d++)
        for (int dir = -1; dir <= 1; dir += 2) {
            int ok = NGA_Update_ghost_dir(g, d, dir, 1);
            EXPECT(ok, "NGA_Update_ghost_dir(dimension %d, direction %d) failed", d, dir);
            GA_Sync();
        }
    if (mine)
        ghosts_check(g, lo, hi, "NGA_Update_ghost_dir");
    GA_Destroy(g);

    mine = ghosts_make(&g, lo, hi, "ghosts_nb");
    ga_nbhdl_t h;
    NGA_Update_ghosts_nb(g, &h);
    NGA_NbWait(&h);
    GA_Sync();
    if (mine)
        ghosts_check(g, lo, hi, "NGA_Update_ghosts_nb");
    GA_Destroy(g);
}

/* ---- a mirrored array: a copy per node, merged ------------------------- */

static void part_mirrored(void)
{
    /* GA 5.8 merges the copies of nodes of unequal sizes with reductions
     * whose lengths differ between ranks: GA's limit, not the runtime's. */
    int nn = GA_Cluster_nnodes();
    for (int n = 1; n < nn; n++)
        if (GA_Cluster_nprocs(n) != GA_Cluster_nprocs(0)) {
            ga_check_part("mirrored array: skipped, the nodes differ in size");
            return;
        }
    ga_check_part("mirrored array: a copy per node, accumulated, merged");
    int n0 = 19, n1 = 27, dims[2] = { n0, n1 };
    int g = NGA_Create_config(C_DBL, 2, dims, "mirrored", NULL, GA_Pgroup_get_mirror());
    /* GA mirrors only across more than one node. */
    EXPECT(GA_Is_mirrored(g) == (nn > 1), "GA_Is_mirrored is %d on %d nodes", GA_Is_mirrored(g),
           nn);
    GA_Zero(g);
    double *ones = malloc(sizeof(double) * (size_t)n0 * n1), alpha = me + 1;
    for (int i = 0; i < n0 * n1; i++)
        ones[i] = 1.0;
    int lo[2] = { 0, 0 }, hi[2] = { n0 - 1, n1 - 1 }, ld[1] = { n1 };
    NGA_Acc(g, lo, hi, ones, ld, &alpha);
    free(ones);
    GA_Sync();
    GA_Merge_mirrored(g);
    GA_Sync();
    lin_t all = { (double)np * (np + 1) / 2, 0.0, 0 };
    check_2d(g, n0, n1, want_lin, &all, "mirrored copies after GA_Merge_mirrored");
    GA_Destroy(g);
}

/* ---- block-cyclic and restricted distributions ------------------------- */

typedef struct { int salt; double add; } bc_want_t;

static double want_bc(int i, int j, const void *arg)
{
    const bc_want_t *w = arg;
    return pat(i, j, w->salt) + (i % 3 == 1 ? w->add : 0.0);
}

static void part_block_cyclic(void)
{
    ga_check_part("block-cyclic (simple and on a process grid) and restricted arrays");
    int n0 = 41, n1 = 35, dims[2] = { n0, n1 }, salt = 9;
    for (int grid = 0; grid < 2; grid++) {
        int g = GA_Create_handle();
        GA_Set_data(g, 2, dims, C_DBL);
        GA_Set_array_name(g, grid ? "cyclic_grid" : "cyclic");
        int block[2] = { 4, 3 };
        if (grid) {
            /* The process grid: p0 x p1 with p0 the largest divisor of np
             * up to its square root. */
            int p0 = 1;
            for (int d = 1; d * d <= np; d++)
                if (np % d == 0)
                    p0 = d;
            int pg[2] = { p0, np / p0 };
            GA_Set_block_cyclic_proc_grid(g, block, pg);
        } else {
            GA_Set_block_cyclic(g, block);
        }
        EXPECT(GA_Allocate(g) != 0, "GA_Allocate of a block-cyclic array failed");
        fill_pat(g, n0, n1, salt);
        check_2d(g, n0, n1, want_pat, &salt, grid ? "block-cyclic on a grid" : "block-cyclic");
        /* Every rank accumulates into every third row: many small blocks,
         * each on its own owner. */
        double *ones = malloc(sizeof(double) * (size_t)n1), alpha = me + 1;
        for (int j = 0; j < n1; j++)
            ones[j] = 1.0;
        for (int i = 1; i < n0; i += 3) {
            int lo[2] = { i, 0 }, hi[2] = { i, n1 - 1 }, ld[1] = { n1 };
            NGA_Acc(g, lo, hi, ones, ld, &alpha);
        }
        free(ones);
        GA_Sync();
        bc_want_t w = { salt, (double)np * (np + 1) / 2 };
        check_2d(g, n0, n1, want_bc, &w,
                 grid ? "accumulate into a block-cyclic array on a grid"
                      : "accumulate into a block-cyclic array");
        GA_Destroy(g);
    }

    /* Data only on the upper half of the ranks, reversed; every rank reads
     * and writes it. */
    int nr = np > 1 ? np / 2 : 1, *list = malloc(sizeof(int) * (size_t)nr);
    for (int i = 0; i < nr; i++)
        list[i] = np - 1 - i;
    int g = GA_Create_handle();
    GA_Set_data(g, 2, dims, C_DBL);
    GA_Set_array_name(g, "restricted");
    GA_Set_restricted(g, list, nr);
    EXPECT(GA_Allocate(g) != 0, "GA_Allocate of a restricted array failed");
    long owned_elsewhere = 0;
    for (int p = 0; p < np; p++) {
        int lo[2], hi[2], listed = 0;
        NGA_Distribution(g, p, lo, hi);
        for (int i = 0; i < nr; i++)
            listed |= list[i] == p;
        if (!listed && has_block(lo, hi))
            owned_elsewhere++;
    }
    EXPECT(owned_elsewhere == 0, "%ld ranks outside the restriction hold data",
           owned_elsewhere);
    fill_pat(g, n0, n1, salt + 1);
    int s1 = salt + 1;
    check_2d(g, n0, n1, want_pat, &s1, "restricted array");
    GA_Destroy(g);
    free(list);
}

/* ---- periodic patches, strided accumulate, scatter-accumulate, nb ------ */

typedef struct { int salt, lo[2], n[2], n0, n1; double add; } wrap_want_t;

static double want_wrapped(int i, int j, const void *arg)
{
    const wrap_want_t *w = arg;
    int in = wrap(i - w->lo[0], w->n0) < w->n[0] && wrap(j - w->lo[1], w->n1) < w->n[1];
    return pat(i, j, w->salt) + (in ? w->add : 0.0);
}

static void part_periodic(void)
{
    ga_check_part("periodic get and accumulate across both edges");
    int n0 = 20, n1 = 26, dims[2] = { n0, n1 }, salt = 8;
    int g = NGA_Create(C_DBL, 2, dims, "periodic", NULL);
    fill_pat(g, n0, n1, salt);
    int lo[2] = { -3, 20 }, hi[2] = { 4, 31 }, ld[1] = { 12 };
    double buf[8 * 12];
    NGA_Periodic_get(g, lo, hi, buf, ld);
    long bad = 0;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 12; b++)
            bad += buf[a * 12 + b] != pat(wrap(-3 + a, n0), wrap(20 + b, n1), salt);
    EXPECT(bad == 0, "NGA_Periodic_get: %ld of 96 wrong", bad);
    GA_Sync();

    int alo[2] = { 15, -4 }, ahi[2] = { 24, 3 }, ald[1] = { 8 };
    double ones[10 * 8], alpha = 1.0;
    for (int i = 0; i < 80; i++)
        ones[i] = 1.0;
    NGA_Periodic_acc(g, alo, ahi, ones, ald, &alpha);
    GA_Sync();
    wrap_want_t w = { salt, { 15, -4 }, { 10, 8 }, n0, n1, (double)np };
    check_2d(g, n0, n1, want_wrapped, &w, "NGA_Periodic_acc");
    GA_Destroy(g);
}

typedef struct { int lo[2], hi[2], skip[2]; double add; } strided_want_t;

static double want_strided(int i, int j, const void *arg)
{
    const strided_want_t *s = arg;
    int in = i >= s->lo[0] && i <= s->hi[0] && j >= s->lo[1] && j <= s->hi[1] &&
             (i - s->lo[0]) % s->skip[0] == 0 && (j - s->lo[1]) % s->skip[1] == 0;
    return in ? s->add : 0.0;
}

enum { SCAT_N0 = 30, SCAT_N1 = 36, SCAT_T = 40 };

static void scatter_subs(int r, int t, int *i, int *j)
{
    *i = (r * 7 + t * 5) % SCAT_N0;
    *j = (r * 3 + t * 11) % SCAT_N1;
}

static double want_scatter(int i, int j, const void *arg)
{
    (void)arg;
    double s = 0.0;
    for (int r = 0; r < np; r++)
        for (int t = 0; t < SCAT_T; t++) {
            int a, b;
            scatter_subs(r, t, &a, &b);
            if (a == i && b == j)
                s += 2.0 * (t % 3 + 1);
        }
    return s;
}

static void part_strided_scatter(void)
{
    ga_check_part("strided accumulate, scatter-accumulate, non-blocking get and accumulate");
    int dims[2] = { SCAT_N0, SCAT_N1 };
    int g = NGA_Create(C_DBL, 2, dims, "strided", NULL);
    GA_Zero(g);
    strided_want_t s = { { 1, 2 }, { 28, 35 }, { 3, 4 }, (double)np * (np + 1) / 2 };
    int ne0 = (s.hi[0] - s.lo[0]) / s.skip[0] + 1, ne1 = (s.hi[1] - s.lo[1]) / s.skip[1] + 1;
    int ld[1] = { ne1 };
    double *ones = malloc(sizeof(double) * (size_t)ne0 * ne1), alpha = me + 1;
    for (int i = 0; i < ne0 * ne1; i++)
        ones[i] = 1.0;
    NGA_Strided_acc(g, s.lo, s.hi, s.skip, ones, ld, &alpha);
    free(ones);
    GA_Sync();
    check_2d(g, SCAT_N0, SCAT_N1, want_strided, &s, "NGA_Strided_acc, every 3rd row, 4th column");

    int h = GA_Duplicate(g, "scatter");
    GA_Zero(h);
    double v[SCAT_T], two = 2.0;
    int subs[SCAT_T][2], *sp[SCAT_T];
    for (int t = 0; t < SCAT_T; t++) {
        scatter_subs(me, t, &subs[t][0], &subs[t][1]);
        sp[t] = subs[t];
        v[t] = t % 3 + 1;
    }
    NGA_Scatter_acc(h, v, sp, SCAT_T, &two);
    GA_Sync();
    check_2d(h, SCAT_N0, SCAT_N1, want_scatter, NULL, "NGA_Scatter_acc");

    /* Non-blocking: get my row of g while accumulating into my row of h. */
    int row = me % SCAT_N0, lo[2] = { row, 0 }, hi[2] = { row, SCAT_N1 - 1 };
    double got[SCAT_N1], add[SCAT_N1], one = 1.0;
    for (int j = 0; j < SCAT_N1; j++)
        add[j] = j;
    ga_nbhdl_t hg, ha;
    int rld[1] = { SCAT_N1 };
    NGA_NbGet(g, lo, hi, got, rld, &hg);
    NGA_NbAcc(h, lo, hi, add, rld, &one, &ha);
    NGA_NbWait(&hg);
    NGA_NbWait(&ha);
    long bad = 0;
    for (int j = 0; j < SCAT_N1; j++)
        bad += got[j] != want_strided(row, j, &s);
    EXPECT(bad == 0, "NGA_NbGet of row %d: %ld wrong", row, bad);
    GA_Sync();
    double hrow[SCAT_N1];
    NGA_Get(h, lo, hi, hrow, rld);
    int writers = 0; /* ranks whose row is this one */
    for (int r = 0; r < np; r++)
        writers += r % SCAT_N0 == row;
    bad = 0;
    for (int j = 0; j < SCAT_N1; j++)
        bad += hrow[j] != want_scatter(row, j, NULL) + (double)writers * j;
    EXPECT(bad == 0, "NGA_NbAcc into row %d: %ld wrong", row, bad);
    GA_Destroy(h);
    GA_Destroy(g);
}

int main(int argc, char **argv)
{
    ga_check_start(&argc, &argv);

    part_cluster();
    part_irregular();
    part_algebra();
    part_dgemm();
    part_mutex();
    part_access();
    part_collectives();
    part_group();
    part_split();
    part_scan();
    part_ghosts();
    part_mirrored();
    part_block_cyclic();
    part_periodic();
    part_strided_scatter();

    int rc = ga_check_summary("ga_wide");
    GA_Terminate();
    MPI_Finalize();
    return rc;
}
