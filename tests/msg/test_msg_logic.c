/* The logical and bitwise operators of the *gop calls, spelled every way
 * ARMCI-MPI accepts them ("&&", "land", "||", "lor", "&", "band", "|",
 * "bor", "or", and names matched by prefix), for every element type and
 * every form (world, node, group, scope, TCGMSG), against values folded
 * here from the members' inputs; and a node id below 0 in every
 * armci_domain_* query that takes one (decision 030). */
#include <armci.h>
#include <stdint.h>

#include "tst.h"

long armci_tcgmsg_nodeid(void);
void armci_tcgmsg_igop(long *type, long *x, long *n, char *op, int oplen);
void armci_tcgmsg_dgop(long *type, double *x, long *n, char *op, int oplen);

#define NE 4
enum { LAND, LOR, BAND, BOR };

static int me, np;

static const struct {
    const char *spelling;
    int op;
} spellings[] = {
    { "&&", LAND }, { "land", LAND }, { "land-prefix", LAND },
    { "||", LOR },  { "lor", LOR },   { "||x", LOR },
    { "&", BAND },  { "band", BAND }, { "and", BAND },
    { "|", BOR },   { "bor", BOR },   { "or", BOR },
};
#define NSPELL ((int)(sizeof spellings / sizeof spellings[0]))

/* Inputs of rank r: element e. Logical sets mix true and false members;
 * bitwise sets give each rank its own bit. */
static long long in_logic(int r, int e)
{
    switch (e) {
    case 0: return r + 1;                       /* all true */
    case 1: return r % 2 ? 0 : -(r + 1);        /* mixed */
    case 2: return 0;                           /* all false */
    default: return r == 1 ? 5 : 0;             /* true on rank 1 only */
    }
}
static long long in_bits(int r, int e)
{
    switch (e) {
    case 0: return 1LL << (r % 30);
    case 1: return ~(1LL << (r % 30));
    case 2: return 0x55;
    default: return 7LL * r;
    }
}
static double in_float(int r, int e)
{
    switch (e) {
    case 0: return r + 0.5;
    case 1: return r % 2 ? 0.0 : -(r + 1.5);
    case 2: return 0.0;
    default: return r == 1 ? 1e-30 : 0.0;
    }
}

/* The expected result over the members, folded with C's own operators. */
static long long fold(int op, const int *members, int n, int e)
{
    long long acc = op == BAND ? in_bits(members[0], e)
                  : op == BOR  ? in_bits(members[0], e)
                               : in_logic(members[0], e) != 0;
    for (int i = 1; i < n; i++) {
        long long v = op == BAND || op == BOR ? in_bits(members[i], e) : in_logic(members[i], e);
        switch (op) {
        case LAND: acc = acc && v; break;
        case LOR:  acc = acc || v; break;
        case BAND: acc &= v; break;
        default:   acc |= v; break;
        }
    }
    return acc;
}
static double fold_float(int op, const int *members, int n, int e)
{
    int acc = in_float(members[0], e) != 0.0;
    for (int i = 1; i < n; i++)
        acc = op == LAND ? acc && in_float(members[i], e) != 0.0
                         : acc || in_float(members[i], e) != 0.0;
    return acc ? 1.0 : 0.0;
}

typedef enum { F_WORLD, F_NODE, F_GROUP, F_SCOPE_ALL, F_SCOPE_NODE, F_GROUP_SCOPE } form_t;
static const char *form_names[] = { "world", "clus", "group", "gop_scope(ALL)",
                                    "gop_scope(NODE)", "group_gop_scope(ALL)" };

static ARMCI_Group grp;          /* every rank, in reverse order */
static int *world_members, *node_members, nnode;

static const int *members_of(form_t f, int *n)
{
    if (f == F_NODE || f == F_SCOPE_NODE) {
        *n = nnode;
        return node_members;
    }
    *n = np;
    return world_members;
}

/* One reduction of NE elements of type t under form f; the values are
 * built, reduced and checked as long long or double. */
static void run_one(form_t f, int t, const char *opname, int op)
{
    int n;
    const int *m = members_of(f, &n);
    int logical = op == LAND || op == LOR;
    int ix[NE]; long lx[NE]; long long llx[NE]; float fx[NE]; double dx[NE];
    for (int e = 0; e < NE; e++) {
        long long v = logical ? in_logic(me, e) : in_bits(me, e);
        ix[e] = (int)v; lx[e] = (long)v; llx[e] = v;
        fx[e] = (float)in_float(me, e); dx[e] = in_float(me, e);
    }
    void *x = t == ARMCI_INT ? (void *)ix : t == ARMCI_LONG ? (void *)lx
            : t == ARMCI_LONG_LONG ? (void *)llx : t == ARMCI_FLOAT ? (void *)fx : (void *)dx;
    char *o = (char *)opname;
    switch (f) {
    case F_WORLD:
        if (t == ARMCI_INT) armci_msg_igop(ix, NE, o);
        else if (t == ARMCI_LONG) armci_msg_lgop(lx, NE, o);
        else if (t == ARMCI_LONG_LONG) armci_msg_llgop(llx, NE, o);
        else if (t == ARMCI_FLOAT) armci_msg_fgop(fx, NE, o);
        else armci_msg_dgop(dx, NE, o);
        break;
    case F_NODE:
        if (t == ARMCI_INT) armci_msg_clus_igop(ix, NE, o);
        else if (t == ARMCI_LONG) armci_msg_clus_lgop(lx, NE, o);
        else if (t == ARMCI_LONG_LONG) armci_msg_clus_llgop(llx, NE, o);
        else if (t == ARMCI_FLOAT) armci_msg_clus_fgop(fx, NE, o);
        else armci_msg_clus_dgop(dx, NE, o);
        break;
    case F_GROUP:
        if (t == ARMCI_INT) armci_msg_group_igop(ix, NE, o, &grp);
        else if (t == ARMCI_LONG) armci_msg_group_lgop(lx, NE, o, &grp);
        else if (t == ARMCI_LONG_LONG) armci_msg_group_llgop(llx, NE, o, &grp);
        else if (t == ARMCI_FLOAT) armci_msg_group_fgop(fx, NE, o, &grp);
        else armci_msg_group_dgop(dx, NE, o, &grp);
        break;
    case F_SCOPE_ALL:
        armci_msg_gop_scope(SCOPE_ALL, x, NE, o, t);
        break;
    case F_SCOPE_NODE:
        armci_msg_gop_scope(SCOPE_NODE, x, NE, o, t);
        break;
    default:
        armci_msg_group_gop_scope(SCOPE_ALL, x, NE, o, t, &grp);
        break;
    }
    for (int e = 0; e < NE; e++) {
        if (t == ARMCI_FLOAT || t == ARMCI_DOUBLE) {
            double got = t == ARMCI_FLOAT ? fx[e] : dx[e];
            CHECK(got == fold_float(op, m, n, e), "%s \"%s\" type %d element %d: got %g",
                  form_names[f], opname, t, e, got);
            continue;
        }
        long long want = fold(op, m, n, e);
        long long got = t == ARMCI_INT ? ix[e] : t == ARMCI_LONG ? lx[e] : llx[e];
        if (t == ARMCI_INT)
            want = (int)want;
        CHECK(got == want, "%s \"%s\" type %d element %d: got %lld, expected %lld",
              form_names[f], opname, t, e, got, want);
    }
}

static void test_operators(void)
{
    static const int types[] = { ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT,
                                 ARMCI_DOUBLE };
    int runs = 0;
    for (int f = F_WORLD; f <= F_GROUP_SCOPE; f++)
        for (int s = 0; s < NSPELL; s++)
            for (int ti = 0; ti < 5; ti++) {
                int op = spellings[s].op;
                /* bitwise operators need integers (the float case is a
                 * bad-input test) */
                if ((op == BAND || op == BOR) && ti >= 3)
                    continue;
                run_one((form_t)f, types[ti], spellings[s].spelling, op);
                runs++;
            }
    TST_SAY("logic: %d reductions (6 forms x 12 spellings x their types) exact", runs);
}

static void test_tcgmsg(void)
{
    long type = 7, n = NE, x[NE];
    double d[NE];
    for (int e = 0; e < NE; e++) {
        x[e] = (long)in_logic(me, e);
        d[e] = in_float(me, e);
    }
    armci_tcgmsg_igop(&type, x, &n, "&&  ", 4);   /* blank-padded, Fortran style */
    armci_tcgmsg_dgop(&type, d, &n, "lor", 3);
    for (int e = 0; e < NE; e++) {
        CHECK_EQ(x[e], fold(LAND, world_members, np, e), "tcgmsg igop && element");
        CHECK(d[e] == fold_float(LOR, world_members, np, e), "tcgmsg dgop lor [%d] = %g", e,
              d[e]);
    }
    for (int e = 0; e < NE; e++)
        x[e] = (long)in_bits(me, e);
    armci_tcgmsg_igop(&type, x, &n, "|", 1);
    for (int e = 0; e < NE; e++)
        CHECK_EQ(x[e], fold(BOR, world_members, np, e), "tcgmsg igop | element");
    TST_SAY("logic: armci_tcgmsg_igop \"&&\" and \"|\", armci_tcgmsg_dgop \"lor\"");
}

/* A node id below 0 is the caller's node, in each query that takes an id. */
static void test_domain_negative_id(void)
{
    int my = armci_domain_my_id(ARMCI_DOMAIN_SMP);
    int size = armci_domain_nprocs(ARMCI_DOMAIN_SMP, my);
    CHECK_EQ(armci_domain_nprocs(ARMCI_DOMAIN_SMP, -1), size, "domain_nprocs(-1)");
    CHECK_EQ(armci_domain_nprocs(ARMCI_DOMAIN_SMP, -9), size, "domain_nprocs(-9)");
    for (int loc = 0; loc < size; loc++) {
        int want = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, my, loc);
        CHECK_EQ(armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, -1, loc), want,
                 "domain_glob_proc_id(-1, loc)");
        CHECK_EQ(armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, -2, loc), want,
                 "domain_glob_proc_id(-2, loc)");
    }
    int found = 0;
    for (int loc = 0; loc < size; loc++)
        found += armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, -1, loc) == me;
    CHECK_EQ(found, 1, "the caller is among the processes of node -1");
    TST_SAY("logic: armci_domain_nprocs and armci_domain_glob_proc_id take id < 0 as my node");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    me = armci_msg_me();
    np = armci_msg_nproc();
    world_members = malloc(sizeof(int) * (size_t)np);
    int *rev = malloc(sizeof(int) * (size_t)np);
    for (int i = 0; i < np; i++) {
        world_members[i] = i;
        rev[i] = np - 1 - i;
    }
    ARMCI_Group_create(np, rev, &grp);
    int my = armci_domain_my_id(ARMCI_DOMAIN_SMP);
    nnode = armci_domain_nprocs(ARMCI_DOMAIN_SMP, my);
    node_members = malloc(sizeof(int) * (size_t)nnode);
    for (int i = 0; i < nnode; i++)
        node_members[i] = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, my, i);

    test_operators();
    test_tcgmsg();
    test_domain_negative_id();

    ARMCI_Group_free(&grp);
    free(rev);
    free(world_members);
    free(node_members);
    tst_me();
    ARMCI_Finalize();
    MPI_Finalize();
    return tst_finish("msg_logic");
}
