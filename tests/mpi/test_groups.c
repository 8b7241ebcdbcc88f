/* groups: ARMCI_Group_* and ARMCIX_Group_*, group allocations and puts,
 * ARMCI_Same_node and armci_domain_* consistency, ARMCIX mutex handles. */
#include <armci.h>
#include <armcix.h>
#ifdef ARMADA_ARMCI
#include <armada.h>
#endif
#include "tst.h"

static int me, np;

static void check_group(ARMCI_Group *g, int n, const int *abs, const char *what)
{
    int size = -1, rank = -2, pos = -1;
    for (int i = 0; i < n; i++)
        if (abs[i] == me)
            pos = i;
    ARMCI_Group_size(g, &size);
    CHECK_EQ(size, n, what);
    ARMCI_Group_rank(g, &rank);
    CHECK_EQ(rank, pos, what);
    for (int i = 0; i < n; i++) {
        CHECK_EQ(ARMCI_Absolute_id(g, i), abs[i], what);
        CHECK_EQ(g->grp_to_abs[i], abs[i], what);
    }
}

/* Allocates on the group, each member puts to the next, all check. */
static void group_ring(ARMCI_Group *g, int n, const int *abs, const char *what)
{
    int grank = -1;
    ARMCI_Group_rank(g, &grank);
    void **b = malloc(sizeof(void *) * n);
    CHECK_EQ(ARMCI_Malloc_group(b, 16 * sizeof(long), g), 0, "ARMCI_Malloc_group");
    for (int i = 0; i < n; i++)
        CHECK(b[i] != NULL, "%s: base[%d]", what, i);
    long v[3] = { me, 1000 + grank, -me * 77 };
    int nxt = (grank + 1) % n, prv = (grank + n - 1) % n;
    ARMCI_Put(v, (long *)b[nxt] + 5, sizeof v, ARMCI_Absolute_id(g, nxt));
    ARMCI_AllFence();
    armci_msg_group_barrier(g);
    long got[3] = { 0, 0, 0 };
    ARMCI_Get((long *)b[grank] + 5, got, sizeof got, me);
    CHECK_EQ(got[0], abs[prv], what);
    CHECK_EQ(got[1], 1000 + prv, what);
    CHECK_EQ(got[2], -abs[prv] * 77, what);
    armci_msg_group_barrier(g);
    CHECK_EQ(ARMCI_Free_group(b[grank], g), 0, "ARMCI_Free_group");
    free(b);
}

static void topology(void)
{
    int nd = armci_domain_count(ARMCI_DOMAIN_SMP);
    CHECK(nd >= 1 && nd <= np, "domain_count %d", nd);
    int myd = armci_domain_my_id(ARMCI_DOMAIN_SMP);
    CHECK(myd >= 0 && myd < nd, "domain_my_id %d", myd);
    CHECK_EQ(armci_domain_id(ARMCI_DOMAIN_SMP, me), myd, "domain_id(me) == my_id");
    int sum = 0, *seen = calloc(np, sizeof(int));
    for (int d = 0; d < nd; d++) {
        int n = armci_domain_nprocs(ARMCI_DOMAIN_SMP, d);
        CHECK(n >= 1, "domain %d has %d procs", d, n);
        sum += n;
        for (int l = 0; l < n; l++) {
            int g = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, d, l);
            CHECK(g >= 0 && g < np, "glob_proc_id(%d,%d) = %d", d, l, g);
            if (g < 0 || g >= np)
                continue;
            seen[g]++;
            CHECK_EQ(armci_domain_id(ARMCI_DOMAIN_SMP, g), d, "domain_id(glob_proc_id(d, l)) == d");
        }
    }
    CHECK_EQ(sum, np, "sum of domain_nprocs");
    for (int p = 0; p < np; p++) {
        CHECK_EQ(seen[p], 1, "each rank in exactly one domain");
        int same = armci_domain_id(ARMCI_DOMAIN_SMP, p) == myd;
        CHECK_EQ(ARMCI_Same_node(p) != 0, same, "Same_node agrees with domain_id");
        CHECK_EQ(armci_domain_same_id(ARMCI_DOMAIN_SMP, p) != 0, same, "domain_same_id");
    }
    CHECK(ARMCI_Same_node(me) != 0, "Same_node(me)");
    free(seen);
    /* every rank sees the same layout */
    int mine[2] = { nd, myd }, *all = malloc(sizeof(int) * 2 * np);
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    for (int p = 0; p < np; p++) {
        CHECK_EQ(all[2 * p], nd, "domain_count equal everywhere");
        CHECK_EQ(all[2 * p + 1], armci_domain_id(ARMCI_DOMAIN_SMP, p), "domain_id(p) == p's my_id");
    }
    free(all);
#ifdef ARMADA_ARMCI
    CHECK_EQ(armada_node_count(), nd, "armada_node_count == domain_count");
    CHECK_EQ(armada_node_of(me), myd, "armada_node_of(me) == domain_my_id");
    CHECK_EQ(armada_node_of(np), -1, "armada_node_of(invalid)");
#endif
}

static void mutex_hdl(ARMCI_Group *g, int n)
{
    int grank = -1;
    ARMCI_Group_rank(g, &grank);
    armcix_mutex_hdl_t h = ARMCIX_Create_mutexes_hdl(2, g);
    CHECK(h != NULL, "ARMCIX_Create_mutexes_hdl");
    void **b = malloc(sizeof(void *) * n);
    ARMCI_Malloc_group(b, sizeof(long), g);
    ARMCI_Access_begin(b[grank]);
    *(long *)b[grank] = 0;
    ARMCI_Access_end(b[grank]);
    armci_msg_group_barrier(g);
    const int iters = 15;
    for (int i = 0; i < iters; i++) {
        int p = (grank + i) % n;   /* group rank */
        int abs = ARMCI_Absolute_id(g, p);
        long v;
        ARMCIX_Lock_hdl(h, 0, abs);   /* ARMCIX_*_hdl take absolute ranks */
        ARMCI_Get(b[p], &v, sizeof v, abs);
        v++;
        ARMCI_Put(&v, b[p], sizeof v, abs);
        ARMCI_Fence(abs);
        ARMCIX_Unlock_hdl(h, 0, abs);
        ARMCIX_Progress();
    }
    armci_msg_group_barrier(g);
    ARMCI_Access_begin(b[grank]);
    CHECK_EQ(*(long *)b[grank], iters, "counter under ARMCIX mutex");
    ARMCI_Access_end(b[grank]);
    /* uncontended trylock of mutex 1 at my own rank */
    CHECK_EQ(ARMCIX_Trylock_hdl(h, 1, me), 0, "Trylock of a free mutex succeeds");
    ARMCIX_Unlock_hdl(h, 1, me);
    armci_msg_group_barrier(g);
    int contended_trylock = 1;
#ifndef ARMADA_ARMCI
    contended_trylock = 0;   /* ARMCI-MPI 0.3 hangs in a Trylock of a held mutex */
#endif
    if (n >= 2 && contended_trylock) {
        /* group rank 0 holds its mutex 1 while group rank 1 tries it */
        int r0 = ARMCI_Absolute_id(g, 0);
        if (grank == 0)
            ARMCIX_Lock_hdl(h, 1, r0);
        armci_msg_group_barrier(g);
        if (grank == 1)
            CHECK(ARMCIX_Trylock_hdl(h, 1, r0) != 0, "Trylock of a held mutex must fail");
        armci_msg_group_barrier(g);
        if (grank == 0)
            ARMCIX_Unlock_hdl(h, 1, r0);
        armci_msg_group_barrier(g);
        if (grank == 1) {
            int ok = 0;
            for (int i = 0; i < 2000 && !ok; i++) {
                ok = ARMCIX_Trylock_hdl(h, 1, r0) == 0;
                if (!ok)
                    tst_nap(100);
            }
            CHECK(ok, "Trylock after release succeeds");
            if (ok)
                ARMCIX_Unlock_hdl(h, 1, r0);
        }
    }
    armci_msg_group_barrier(g);
    ARMCI_Free_group(b[grank], g);
    free(b);
    CHECK_EQ(ARMCIX_Destroy_mutexes_hdl(h), 0, "ARMCIX_Destroy_mutexes_hdl");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int *ids = malloc(sizeof(int) * np);

    /* world */
    ARMCI_Group world, def;
    ARMCI_Group_get_world(&world);
    for (int i = 0; i < np; i++)
        ids[i] = i;
    check_group(&world, np, ids, "world group");
    ARMCI_Group_get_default(&def);
    check_group(&def, np, ids, "default group is world");
    TST_SAY("groups: world and default group: size, rank, Absolute_id, grp_to_abs");

    /* the odd-indexed ranks listed in reverse, plus rank 0: irregular order */
    int n = 0;
    ids[n++] = 0;
    for (int p = np - 1; p >= 1; p--)
        if (p % 2 == 1)
            ids[n++] = p;
    ARMCI_Group g;
    ARMCI_Group_create(n, ids, &g);
    int member = 0;
    for (int i = 0; i < n; i++)
        member |= ids[i] == me;
    if (member) {
        check_group(&g, n, ids, "created group");
        group_ring(&g, n, ids, "ring in created group");
    }
    ARMCI_Barrier();
    TST_SAY("groups: Group_create of %d ranks in irregular order; Malloc_group, puts in the group", n);

    /* child of g: its members at even positions of g */
    if (member) {
        int cn = 0, *cpos = malloc(sizeof(int) * n), *cabs = malloc(sizeof(int) * n);
        for (int i = 0; i < n; i += 2) {
            cpos[cn] = i;
            cabs[cn++] = ids[i];
        }
        ARMCI_Group child;
        ARMCI_Group_create_child(cn, cpos, &child, &g);
        int cmember = 0;
        for (int i = 0; i < cn; i++)
            cmember |= cabs[i] == me;
        if (cmember) {
            check_group(&child, cn, cabs, "child group");
            group_ring(&child, cn, cabs, "ring in child group");
            ARMCI_Group_free(&child);
        }
        armci_msg_group_barrier(&g);
        free(cpos);
        free(cabs);
    }
    ARMCI_Barrier();
    TST_SAY("groups: Group_create_child with parent-relative ranks");

    /* default group. ARMCI_Malloc itself stays collective over the world in
     * ARMCI-MPI, so the default group is used through Malloc_group. */
    if (member) {
        ARMCI_Group_set_default(&g);
        ARMCI_Group cur;
        ARMCI_Group_get_default(&cur);
        check_group(&cur, n, ids, "default after set_default");
        group_ring(&cur, n, ids, "ring in the default group");
        ARMCI_Group_set_default(&world);
    }
    ARMCI_Barrier();
    ARMCI_Group_get_default(&def);
    for (int i = 0; i < np; i++)
        ids[i] = i;
    check_group(&def, np, ids, "default restored to world");
    if (member)   /* a non-member's group object is not a group to free */
        ARMCI_Group_free(&g);
    TST_SAY("groups: set_default/get_default; Malloc_group on the default group");

    /* ARMCIX split (color by parity, reversed key) and dup */
    ARMCI_Group sp, dup;
    CHECK_EQ(ARMCIX_Group_split(&world, me % 2, -me, &sp), 0, "ARMCIX_Group_split");
    int sn = 0;
    for (int p = np - 1; p >= 0; p--)
        if (p % 2 == me % 2)
            ids[sn++] = p;
    check_group(&sp, sn, ids, "split group");
    group_ring(&sp, sn, ids, "ring in split group");
    CHECK_EQ(ARMCIX_Group_dup(&world, &dup), 0, "ARMCIX_Group_dup");
    for (int i = 0; i < np; i++)
        ids[i] = i;
    check_group(&dup, np, ids, "dup of world");
    group_ring(&dup, np, ids, "ring in dup group");
    TST_SAY("groups: ARMCIX_Group_split (reversed keys) and ARMCIX_Group_dup");

    mutex_hdl(&sp, sn);
    mutex_hdl(&dup, np);
    ARMCI_Group_free(&sp);
    ARMCI_Group_free(&dup);
    TST_SAY("groups: ARMCIX mutex handles: Lock/Unlock counter exact, Trylock free/held");

    topology();
    TST_SAY("groups: Same_node and armci_domain_* are consistent");

    ARMCI_Barrier();
    free(ids);
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("groups");
}
