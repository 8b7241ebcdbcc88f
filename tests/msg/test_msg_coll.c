/* armci_msg_* collectives and armci_domain_*: exact values at any process
 * count, every scope, world and group variants. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, getpid */

#include <armci.h>
#include <math.h>
#include <stdint.h>

#include "tst.h"

static int me, np;

/* ---- gop ---------------------------------------------------------------- */

#define N 5

static void test_int_gops(void)
{
    int x[N];
    long l[N];
    long long ll[N];

    for (int i = 0; i < N; i++) x[i] = (me + 1) * (i + 1);
    armci_msg_igop(x, N, "+");
    for (int i = 0; i < N; i++) CHECK_EQ(x[i], (i + 1) * np * (np + 1) / 2, "igop +");

    /* factors other than 1 on every fourth rank only: the product stays an
     * int at any count up to 64 processes (it overflowed from 9 up) */
    for (int i = 0; i < N; i++) x[i] = me % 4 == 0 ? 2 + i % 2 : 1;
    armci_msg_igop(x, N, "*");
    for (int i = 0; i < N; i++) {
        long long want = 1;
        for (int r = 0; r < np; r++) want *= r % 4 == 0 ? 2 + i % 2 : 1;
        CHECK_EQ(x[i], want, "igop *");
    }

    for (int i = 0; i < N; i++) x[i] = (me * 7 + i) % (np + 3) - 2;
    int want_max[N], want_min[N];
    for (int i = 0; i < N; i++) {
        want_max[i] = -1000; want_min[i] = 1000;
        for (int r = 0; r < np; r++) {
            int v = (r * 7 + i) % (np + 3) - 2;
            if (v > want_max[i]) want_max[i] = v;
            if (v < want_min[i]) want_min[i] = v;
        }
    }
    int y[N];
    memcpy(y, x, sizeof y);
    armci_msg_igop(x, N, "max");
    armci_msg_igop(y, N, "min");
    for (int i = 0; i < N; i++) {
        CHECK_EQ(x[i], want_max[i], "igop max");
        CHECK_EQ(y[i], want_min[i], "igop min");
    }

    /* absmax/absmin: rank r holds (-1)^r (r + 2 + i). */
    for (int i = 0; i < N; i++) x[i] = y[i] = (me % 2 ? -1 : 1) * (me + 2 + i);
    armci_msg_igop(x, N, "absmax");
    armci_msg_igop(y, N, "absmin");
    for (int i = 0; i < N; i++) {
        CHECK_EQ(x[i], np + 1 + i, "igop absmax");
        CHECK_EQ(y[i], 2 + i, "igop absmin");
    }

    /* or/and: bit r set on rank r; and of all-ones with one bit cleared each. */
    x[0] = 1 << (me % 30);
    x[1] = ~(1 << (me % 30));
    armci_msg_igop(x, 1, "or");
    armci_msg_igop(x + 1, 1, "and");
    int bits = np < 30 ? (1 << np) - 1 : (1 << 30) - 1;
    CHECK_EQ(x[0], bits, "igop or");
    CHECK_EQ(x[1], ~bits, "igop and");

    for (int i = 0; i < N; i++) l[i] = (long)(me + 1) * 10000000000L + i;
    armci_msg_lgop(l, N, "+");
    for (int i = 0; i < N; i++)
        CHECK_EQ(l[i], 10000000000L * np * (np + 1) / 2 + (long)i * np, "lgop +");
    for (int i = 0; i < N; i++) l[i] = -(long)me * 3000000000L - i;
    armci_msg_lgop(l, N, "min");
    for (int i = 0; i < N; i++) CHECK_EQ(l[i], -(long)(np - 1) * 3000000000L - i, "lgop min");
    for (int i = 0; i < N; i++) l[i] = -(long)me * 3000000000L - i;
    armci_msg_lgop(l, N, "absmax");
    for (int i = 0; i < N; i++) CHECK_EQ(l[i], (long)(np - 1) * 3000000000L + i, "lgop absmax");

    for (int i = 0; i < N; i++) ll[i] = (long long)(me + 1) << 33;
    armci_msg_llgop(ll, N, "max");
    for (int i = 0; i < N; i++) CHECK_EQ(ll[i], (long long)np << 33, "llgop max");
    for (int i = 0; i < N; i++) ll[i] = me < 20 ? me + 1 : 1;   /* 20! fits, 21! not */
    armci_msg_llgop(ll, N, "*");
    long long fact = 1;
    for (int r = 1; r <= np && r <= 20; r++) fact *= r;
    for (int i = 0; i < N; i++) CHECK_EQ(ll[i], fact, "llgop *");
}

static void test_float_gops(void)
{
    float f[N];
    double d[N];

    for (int i = 0; i < N; i++) f[i] = 0.5f * (me + 1) + i;
    armci_msg_fgop(f, N, "+");
    for (int i = 0; i < N; i++)
        CHECK(f[i] == 0.25f * np * (np + 1) + (float)i * np, "fgop + [%d] = %g", i, f[i]);
    for (int i = 0; i < N; i++) f[i] = (me % 2 ? -1.0f : 1.0f) * (me + 1.5f);
    armci_msg_fgop(f, N, "absmin");
    for (int i = 0; i < N; i++) CHECK(f[i] == 1.5f, "fgop absmin = %g", f[i]);

    for (int i = 0; i < N; i++) d[i] = (me + 1) * 0.25 - i;
    armci_msg_dgop(d, N, "+");
    for (int i = 0; i < N; i++)
        CHECK(d[i] == 0.125 * np * (np + 1) - (double)i * np, "dgop + [%d] = %g", i, d[i]);
    for (int i = 0; i < N; i++) d[i] = 2.0;
    armci_msg_dgop(d, N, "*");
    for (int i = 0; i < N; i++) CHECK(d[i] == ldexp(1.0, np), "dgop * = %g", d[i]);
    for (int i = 0; i < N; i++) d[i] = -1.0 * me - 0.5;
    armci_msg_dgop(d, N, "max");
    for (int i = 0; i < N; i++) CHECK(d[i] == -0.5, "dgop max = %g", d[i]);
    for (int i = 0; i < N; i++) d[i] = -1.0 * me - 0.5;
    armci_msg_dgop(d, N, "absmax");
    for (int i = 0; i < N; i++) CHECK(d[i] == np - 0.5, "dgop absmax = %g", d[i]);

    /* reduce is the same all-reduce, typed by argument. */
    double r = me + 1.0;
    armci_msg_reduce(&r, 1, "+", ARMCI_DOUBLE);
    CHECK(r == np * (np + 1) / 2.0, "reduce + = %g", r);
    int ri = me;
    armci_msg_reduce_scope(SCOPE_ALL, &ri, 1, "max", ARMCI_INT);
    CHECK_EQ(ri, np - 1, "reduce_scope ALL max");
    long long rl = me + 100;
    armci_msg_gop_scope(SCOPE_ALL, &rl, 1, "min", ARMCI_LONG_LONG);
    CHECK_EQ(rl, 100, "gop_scope ALL min");

    /* zero elements: a no-op that must not fail. */
    armci_msg_dgop(NULL, 0, "+");
    CHECK(1, "dgop of 0 elements");
}

/* ---- domains and scopes ------------------------------------------------- */

static void test_domain_and_scopes(void)
{
    int nnodes = armci_domain_count(ARMCI_DOMAIN_SMP);
    int mynode = armci_domain_my_id(ARMCI_DOMAIN_SMP);
    CHECK(nnodes >= 1 && nnodes <= np, "domain_count %d", nnodes);
    CHECK(mynode >= 0 && mynode < nnodes, "domain_my_id %d", mynode);
    CHECK_EQ(armci_domain_id(ARMCI_DOMAIN_SMP, me), mynode, "domain_id(me)");
    int total = 0, prev_first = -1;
    for (int d = 0; d < nnodes; d++) {
        int n = armci_domain_nprocs(ARMCI_DOMAIN_SMP, d);
        CHECK(n >= 1, "node %d has %d processes", d, n);
        total += n;
        for (int loc = 0; loc < n; loc++) {
            int p = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, d, loc);
            CHECK_EQ(armci_domain_id(ARMCI_DOMAIN_SMP, p), d, "domain of glob_proc_id");
        }
        /* nodes are numbered in the order of their lowest rank */
        int first = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, d, 0);
        CHECK(first > prev_first, "node %d starts at rank %d after %d", d, first, prev_first);
        prev_first = first;
    }
    CHECK_EQ(total, np, "processes over all nodes");
    for (int p = 0; p < np; p++) {
        int same = armci_domain_id(ARMCI_DOMAIN_SMP, p) == mynode;
        CHECK_EQ(armci_domain_same_id(ARMCI_DOMAIN_SMP, p), same, "domain_same_id");
        CHECK_EQ(ARMCI_Same_node(p), same, "ARMCI_Same_node");
    }

    int nodesize = armci_domain_nprocs(ARMCI_DOMAIN_SMP, mynode);
    int master = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, mynode, 0);
    int i_am_master = master == me;

    int one = 1;
    armci_msg_gop_scope(SCOPE_NODE, &one, 1, "+", ARMCI_INT);
    CHECK_EQ(one, nodesize, "gop_scope NODE counts the node");
    long cnt = 1;
    armci_msg_gop_scope(SCOPE_MASTERS, &cnt, 1, "+", ARMCI_LONG);
    CHECK_EQ(cnt, i_am_master ? nnodes : 1, "gop_scope MASTERS counts nodes (masters only)");
    int c = me;
    armci_msg_clus_igop(&c, 1, "max");
    CHECK_EQ(c, armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, mynode, nodesize - 1),
             "clus_igop max is the node's top rank");
    long cl = 1; long long cll = 2; float cf = 1.0f; double cd = 0.5;
    armci_msg_clus_lgop(&cl, 1, "+");
    armci_msg_clus_llgop(&cll, 1, "*");
    armci_msg_clus_fgop(&cf, 1, "+");
    armci_msg_clus_dgop(&cd, 1, "+");
    CHECK_EQ(cl, nodesize, "clus_lgop");
    CHECK_EQ(cll, 1LL << nodesize, "clus_llgop");
    CHECK(cf == (float)nodesize && cd == 0.5 * nodesize, "clus_fgop %g clus_dgop %g", cf, cd);

    int b = i_am_master ? 4242 + mynode : -1;
    armci_msg_clus_brdcst(&b, sizeof b);
    CHECK_EQ(b, 4242 + mynode, "clus_brdcst");
    b = i_am_master ? 77 + mynode : -1;
    armci_msg_bcast_scope(SCOPE_NODE, &b, sizeof b, master);
    CHECK_EQ(b, 77 + mynode, "bcast_scope NODE from the master");
    /* from the node's last process too */
    int last = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, mynode, nodesize - 1);
    b = me == last ? 99 + last : -1;
    armci_msg_bcast_scope(SCOPE_NODE, &b, sizeof b, last);
    CHECK_EQ(b, 99 + last, "bcast_scope NODE from the last");
    b = me == 0 ? 555 : -1;
    armci_msg_bcast_scope(SCOPE_MASTERS, &b, sizeof b, 0);
    CHECK_EQ(b, i_am_master ? 555 : -1, "bcast_scope MASTERS (non-masters untouched)");
    double dd = me == 0 ? 3.25 : 0.0;
    armci_msg_bcast_scope(SCOPE_ALL, &dd, sizeof dd, 0);
    CHECK(dd == 3.25, "bcast_scope ALL %g", dd);

    int root, up, left, right;
    armci_msg_bintree(SCOPE_ALL, &root, &up, &left, &right);
    CHECK_EQ(root, 0, "bintree root");
    CHECK_EQ(up, me == 0 ? -1 : (me - 1) / 2, "bintree up");
    CHECK_EQ(left, 2 * me + 1 < np ? 2 * me + 1 : -1, "bintree left");
    CHECK_EQ(right, 2 * me + 2 < np ? 2 * me + 2 : -1, "bintree right");
    armci_msg_bintree(SCOPE_NODE, &root, &up, &left, &right);
    CHECK_EQ(root, master, "bintree NODE root");
    CHECK(me == master ? up == -1 : armci_domain_id(ARMCI_DOMAIN_SMP, up) == mynode,
          "bintree NODE up %d", up);
}

/* ---- broadcast, selection, exchange --------------------------------------- */

static void test_bcast_sel_exchange(void)
{
    char buf[300];
    for (int root = 0; root < np; root++) {
        for (int i = 0; i < (int)sizeof buf; i++)
            buf[i] = me == root ? (char)tst_byte(root, i) : 0;
        if (root % 2)
            armci_msg_bcast(buf, sizeof buf, root);
        else
            armci_msg_brdcst(buf, sizeof buf, root);
        int bad = 0;
        for (int i = 0; i < (int)sizeof buf; i++)
            bad += buf[i] != (char)tst_byte(root, i);
        CHECK_EQ(bad, 0, "bcast/brdcst bytes wrong");
    }

    /* sel: the buffer is {key, payload}; the winner's whole buffer is
     * copied. Keys repeat so ties go to the lowest rank. */
    struct { double key; long who; } s;
    s.key = (double)((me * 5) % 3); s.who = me;
    armci_msg_sel(&s, sizeof s, "min", ARMCI_DOUBLE, 1);
    CHECK(s.key == 0.0 && s.who == 0, "sel min key %g who %ld", s.key, s.who);
    s.key = (double)((me * 5) % 3); s.who = me;
    armci_msg_sel(&s, sizeof s, "max", ARMCI_DOUBLE, 1);
    int want_who = -1; double want_key = -1;
    for (int r = 0; r < np; r++)
        if ((r * 5) % 3 > want_key) { want_key = (r * 5) % 3; want_who = r; }
    CHECK(s.key == want_key && s.who == want_who, "sel max key %g who %ld", s.key, s.who);

    struct { int key; int who; } si = { 100 - me, me };
    armci_msg_sel_scope(SCOPE_ALL, &si, sizeof si, "min", ARMCI_INT, me % 2 == 0);
    int top_even = (np - 1) / 2 * 2;
    CHECK(si.key == 100 - top_even && si.who == top_even, "sel_scope contribute evens %d %d",
          si.key, si.who);
    struct { long long key; int who; } sl = { -5, me };
    armci_msg_sel(&sl, sizeof sl, "max", ARMCI_LONG_LONG, 0);
    CHECK(sl.key == -5 && sl.who == me, "sel with no contributor leaves x");
    struct { long key; } sk = { me == np - 1 ? 1L << 40 : me };
    armci_msg_sel_scope(SCOPE_ALL, &sk, sizeof sk, "max", ARMCI_LONG, 1);
    CHECK(sk.key == 1L << 40, "sel long max");
    float fk = (float)me;
    armci_msg_sel(&fk, sizeof fk, "max", ARMCI_FLOAT, 1);
    CHECK(fk == (float)(np - 1), "sel float max %g", fk);

    void **ptrs = calloc((size_t)np, sizeof *ptrs);
    ptrs[me] = (void *)(uintptr_t)(0x1000 * (me + 1) + 7);
    armci_exchange_address(ptrs, np);
    int bad = 0;
    for (int r = 0; r < np; r++) bad += ptrs[r] != (void *)(uintptr_t)(0x1000 * (r + 1) + 7);
    CHECK_EQ(bad, 0, "exchange_address wrong entries");
    free(ptrs);

    double t0 = armci_timer();
    armci_msg_barrier();
    double t1 = armci_timer();
    CHECK(t1 >= t0, "armci_timer goes forward");
    parmci_msg_barrier();
}

/* ---- groups ------------------------------------------------------------- */

static void test_groups(void)
{
    /* Group of the even ranks, and one of the ranks in reverse order. */
    int neven = (np + 1) / 2;
    int *evens = malloc(sizeof(int) * (size_t)np);
    for (int i = 0; i < neven; i++) evens[i] = 2 * i;
    ARMCI_Group g;
    ARMCI_Group_create(neven, evens, &g);
    if (me % 2 == 0) {
        int grank;
        ARMCI_Group_rank(&g, &grank);
        CHECK_EQ(grank, me / 2, "group rank");
        armci_msg_group_barrier(&g);
        parmci_msg_group_barrier(&g);
        int x = me;
        armci_msg_group_igop(&x, 1, "+", &g);
        CHECK_EQ(x, neven * (neven - 1), "group_igop + of evens");
        long l = me; long long ll = me + 1; float f = 1.0f; double d = me;
        armci_msg_group_lgop(&l, 1, "max", &g);
        armci_msg_group_llgop(&ll, 1, "min", &g);
        armci_msg_group_fgop(&f, 1, "+", &g);
        armci_msg_group_dgop(&d, 1, "max", &g);
        CHECK_EQ(l, 2 * (neven - 1), "group_lgop max");
        CHECK_EQ(ll, 1, "group_llgop min");
        CHECK(f == (float)neven && d == 2.0 * (neven - 1), "group_fgop %g group_dgop %g", f, d);
        int y = 1;
        armci_msg_group_gop_scope(SCOPE_ALL, &y, 1, "+", ARMCI_INT, &g);
        CHECK_EQ(y, neven, "group_gop_scope ALL");
        /* SCOPE_NODE within the group: the group's members on my node */
        int mynode = armci_domain_my_id(ARMCI_DOMAIN_SMP), want = 0, firstmember = -1;
        for (int i = 0; i < neven; i++)
            if (armci_domain_id(ARMCI_DOMAIN_SMP, evens[i]) == mynode) {
                want++;
                if (firstmember < 0) firstmember = evens[i];
            }
        y = 1;
        armci_msg_group_gop_scope(SCOPE_NODE, &y, 1, "+", ARMCI_INT, &g);
        CHECK_EQ(y, want, "group_gop_scope NODE");
        int nodes_in_group = 0;
        for (int dd = 0; dd < armci_domain_count(ARMCI_DOMAIN_SMP); dd++)
            for (int i = 0; i < neven; i++)
                if (armci_domain_id(ARMCI_DOMAIN_SMP, evens[i]) == dd) { nodes_in_group++; break; }
        y = 1;
        armci_msg_group_gop_scope(SCOPE_MASTERS, &y, 1, "+", ARMCI_INT, &g);
        CHECK_EQ(y, me == firstmember ? nodes_in_group : 1, "group_gop_scope MASTERS");

        /* The root is a world rank, as in ARMCI (decision 085). */
        int b = me == 2 * (neven - 1) ? 31337 : 0;
        armci_msg_group_bcast_scope(SCOPE_ALL, &b, sizeof b, 2 * (neven - 1), &g);
        CHECK_EQ(b, 31337, "group_bcast_scope from the last member");
        b = me == firstmember ? 808 : 0;
        armci_msg_group_bcast_scope(SCOPE_NODE, &b, sizeof b, firstmember, &g);
        CHECK_EQ(b, 808, "group_bcast_scope NODE");

        void **ptrs = calloc((size_t)neven, sizeof *ptrs);
        ptrs[me / 2] = (void *)(uintptr_t)(me * 16 + 8);
        armci_exchange_address_grp(ptrs, neven, &g);
        int bad = 0;
        for (int i = 0; i < neven; i++) bad += ptrs[i] != (void *)(uintptr_t)(i * 32 + 8);
        CHECK_EQ(bad, 0, "exchange_address_grp wrong entries");
        free(ptrs);
    }
    ARMCI_Group_free(&g);

    for (int i = 0; i < np; i++) evens[i] = np - 1 - i;
    ARMCI_Group all;
    ARMCI_Group_create(np, evens, &all);
    int grank;
    ARMCI_Group_rank(&all, &grank);
    CHECK_EQ(grank, np - 1 - me, "reversed group rank");
    int b = grank == 0 ? np * 11 : 0;
    /* The root is named by its world rank (np - 1), not by its rank in the
     * group (0): the two differ here, so a mix-up fails. */
    armci_msg_group_bcast_scope(SCOPE_ALL, &b, sizeof b, np - 1, &all);
    CHECK_EQ(b, np * 11, "reversed group bcast from world rank np-1 (group rank 0)");
    ARMCI_Group_free(&all);
    free(evens);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    me = armci_msg_me();
    np = armci_msg_nproc();
    int wme, wnp;
    MPI_Comm_rank(MPI_COMM_WORLD, &wme);
    MPI_Comm_size(MPI_COMM_WORLD, &wnp);
    CHECK_EQ(me, wme, "armci_msg_me");
    CHECK_EQ(np, wnp, "armci_msg_nproc");

    TST_SAY("integer gops");
    test_int_gops();
    TST_SAY("floating gops and reduce");
    test_float_gops();
    TST_SAY("domains and scopes");
    test_domain_and_scopes();
    TST_SAY("bcast, sel, exchange_address");
    test_bcast_sel_exchange();
    TST_SAY("groups");
    test_groups();

    tst_me(); /* cache the rank before MPI ends */
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("msg_coll");
}
