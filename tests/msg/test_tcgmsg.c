/* The armci_tcgmsg_* compatibility calls, called the way Global Arrays'
 * tcgmsg front ends call them: every argument by reference, the gop op
 * followed by its length. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, getpid */

#include <armci.h>
#include <stdint.h>
#include <unistd.h>

#include "tst.h"

/* No header declares them; these are the signatures libga's callers use. */
void   armci_tcgmsg_brdcst(long *type, void *buf, long *lenbuf, long *originator);
void   armci_tcgmsg_dgop(long *type, double *x, long *n, char *op, int oplen);
void   armci_tcgmsg_igop(long *type, long *x, long *n, char *op, int oplen);
void   armci_tcgmsg_llog(void);
long   armci_tcgmsg_mdtob(long *n);
long   armci_tcgmsg_mdtoi(long *n);
long   armci_tcgmsg_mitob(long *n);
long   armci_tcgmsg_mitod(long *n);
long   armci_tcgmsg_mtime(void);
long   armci_tcgmsg_niceftn(long *ival);
long   armci_tcgmsg_nnodes(void);
long   armci_tcgmsg_nodeid(void);
long   armci_tcgmsg_nxtval(long *mproc);
void   armci_tcgmsg_pbeginf(void);
void   armci_tcgmsg_pbginf(void);
void   armci_tcgmsg_pend(void);
void   armci_tcgmsg_pfilecopy(long *type, long *node0, char *fname);
long   armci_tcgmsg_probe(long *type, long *node);
void   armci_tcgmsg_rcv(long *type, void *buf, long *lenbuf, long *lenmes, long *nodeselect,
                        long *nodefrom, long *sync);
void   armci_tcgmsg_setdbg(long *value);
void   armci_tcgmsg_snd(long *type, void *buf, long *lenbuf, long *node, long *sync);
void   armci_tcgmsg_stats(void);
void   armci_tcgmsg_synch(long *type);
long   armci_tcgmsg_tcgready(void);
double armci_tcgmsg_tcgtime(void);
void   armci_tcgmsg_waitcom(long *node);

static long me, np;

static void test_sizes_and_time(void)
{
    long n = 5, z = 0, three = 3;
    CHECK_EQ(armci_tcgmsg_mdtob(&n), 5 * (long)sizeof(double), "mdtob");
    CHECK_EQ(armci_tcgmsg_mitob(&n), 5 * (long)sizeof(long), "mitob");
    CHECK_EQ(armci_tcgmsg_mdtoi(&n), (5 * (long)sizeof(double) + sizeof(long) - 1) / sizeof(long),
             "mdtoi");
    CHECK_EQ(armci_tcgmsg_mitod(&three),
             (3 * (long)sizeof(long) + sizeof(double) - 1) / sizeof(double), "mitod");
    CHECK_EQ(armci_tcgmsg_mdtob(&z), 0, "mdtob 0");
    double t0 = armci_tcgmsg_tcgtime();
    tst_nap(30000);
    double t1 = armci_tcgmsg_tcgtime();
    CHECK(t0 >= 0 && t1 - t0 >= 0.025, "tcgtime advances (%g -> %g)", t0, t1);
    long m = armci_tcgmsg_mtime();
    CHECK(m >= 2, "mtime in centiseconds: %ld", m);
    long nice0 = 0;
    armci_tcgmsg_niceftn(&nice0);
    long dbg = 0;
    armci_tcgmsg_setdbg(&dbg);
    armci_tcgmsg_llog();
    CHECK(armci_tcgmsg_tcgready() == 1, "tcgready after pbeginf");
}

static void test_p2p(void)
{
    long type = 17, sync = 1, async = 0;
    long right = (me + 1) % np, left = (me + np - 1) % np;
    /* Asynchronous ring: everyone sends first, then receives. */
    long out[64], in[64];
    for (int i = 0; i < 64; i++) out[i] = me * 1000 + i;
    long len = sizeof out;
    armci_tcgmsg_snd(&type, out, &len, &right, &async);
    long lenbuf = sizeof in, lenmes = -1, from = -1;
    armci_tcgmsg_rcv(&type, in, &lenbuf, &lenmes, &left, &from, &sync);
    long all = -1;
    armci_tcgmsg_waitcom(&all);
    CHECK_EQ(lenmes, sizeof out, "rcv lenmes");
    CHECK_EQ(from, left, "rcv nodefrom");
    int bad = 0;
    for (int i = 0; i < 64; i++) bad += in[i] != left * 1000 + i;
    CHECK_EQ(bad, 0, "async ring payload wrong");

    /* Synchronous to rank 0 from everyone, received with nodeselect -1. */
    long type2 = 18, zero = 0;
    long v = me + 1;
    long vlen = sizeof v;
    if (me != 0) {
        armci_tcgmsg_snd(&type2, &v, &vlen, &zero, &sync);
    } else {
        long sum = 0;
        for (long k = 1; k < np; k++) {
            long w = 0, wl = -1, src = -2, any = -1;
            armci_tcgmsg_rcv(&type2, &w, &vlen, &wl, &any, &src, &sync);
            CHECK(src >= 1 && src < np && w == src + 1 && wl == (long)sizeof w,
                  "rcv any: from %ld value %ld", src, w);
            sum += w;
        }
        CHECK_EQ(sum, np * (np + 1) / 2 - 1, "sum received by rank 0");
    }

    /* probe: nothing pending, then something pending from a known sender. */
    long type3 = 19, any = -1;
    armci_tcgmsg_synch(&type3);
    CHECK_EQ(armci_tcgmsg_probe(&type3, &any), 0, "probe with nothing sent");
    armci_tcgmsg_synch(&type3);
    long tag = 0x5a;
    long tlen = sizeof tag;
    armci_tcgmsg_snd(&type3, &tag, &tlen, &right, &async);
    long seen = 0;
    for (int tries = 0; tries < 2000 && !seen; tries++) {
        seen = armci_tcgmsg_probe(&type3, &left);
        if (!seen) tst_nap(1000);
    }
    CHECK_EQ(seen, 1, "probe sees the message from the left");
    long got = 0, gl = 0, src = 0;
    armci_tcgmsg_rcv(&type3, &got, &tlen, &gl, &left, &src, &sync);
    armci_tcgmsg_waitcom(&right);
    CHECK_EQ(got, 0x5a, "probed message");
    armci_tcgmsg_synch(&type3);
}

static void test_collectives(void)
{
    long type = 30;
    for (long root = 0; root < np; root++) {
        char buf[100];
        for (int i = 0; i < 100; i++) buf[i] = me == root ? (char)tst_byte((int)root, i) : 0;
        long len = sizeof buf;
        armci_tcgmsg_brdcst(&type, buf, &len, &root);
        int bad = 0;
        for (int i = 0; i < 100; i++) bad += buf[i] != (char)tst_byte((int)root, i);
        CHECK_EQ(bad, 0, "brdcst bytes wrong");
    }

    long x[3] = { me + 1, -(me + 1), 1L << me };
    long n1 = 1;
    armci_tcgmsg_igop(&type, x, &n1, "+", 1);
    armci_tcgmsg_igop(&type, x + 1, &n1, "absmax", 6);
    armci_tcgmsg_igop(&type, x + 2, &n1, "or", 2);
    CHECK_EQ(x[0], np * (np + 1) / 2, "igop +");
    CHECK_EQ(x[1], np, "igop absmax");
    CHECK_EQ(x[2], (1L << np) - 1, "igop or");
    /* Fortran passes no terminator: only oplen characters count. */
    long y[2] = { me, me };
    long n2 = 2;
    armci_tcgmsg_igop(&type, y, &n2, "maxGARBAGE", 3);
    CHECK(y[0] == np - 1 && y[1] == np - 1, "igop max with length");

    double d[2] = { 0.5 * (me + 1), (double)me };
    armci_tcgmsg_dgop(&type, d, &n2, "+", 1);
    CHECK(d[0] == 0.25 * np * (np + 1) && d[1] == np * (np - 1) / 2.0, "dgop + %g %g", d[0], d[1]);
    double e = me + 2.0;
    armci_tcgmsg_dgop(&type, &e, &n1, "*", 1);
    double want = 1;
    for (long r = 0; r < np; r++) want *= r + 2.0;
    CHECK(e == want, "dgop * %g", e);
    double f = -1.0 * me;
    armci_tcgmsg_dgop(&type, &f, &n1, "min", 3);
    CHECK(f == -(np - 1.0), "dgop min %g", f);
}

/* Every value handed out exactly once, then a reset starts again at 0. */
static void test_nxtval(void)
{
    enum { K = 50 };
    long mproc = np;
    long reset = -np;
    armci_tcgmsg_nxtval(&reset);
    long mine[K];
    for (int k = 0; k < K; k++) mine[k] = armci_tcgmsg_nxtval(&mproc);
    for (int k = 1; k < K; k++) CHECK(mine[k] > mine[k - 1], "nxtval increases per process");
    long *all = malloc(sizeof(long) * K * (size_t)np);
    MPI_Allgather(mine, K, MPI_LONG, all, K, MPI_LONG, MPI_COMM_WORLD);
    long total = K * np;
    char *hit = calloc((size_t)total, 1);
    int bad = 0;
    for (long i = 0; i < total; i++) {
        if (all[i] < 0 || all[i] >= total || hit[all[i]]) bad++;
        else hit[all[i]] = 1;
    }
    CHECK_EQ(bad, 0, "nxtval values out of range or handed out twice");
    free(hit);
    free(all);
    armci_tcgmsg_nxtval(&reset);
    long first = -1;
    if (me == 0) first = armci_tcgmsg_nxtval(&mproc);
    if (me == 0) CHECK_EQ(first, 0, "nxtval after reset");
    armci_tcgmsg_nxtval(&reset);
}

static void test_pfilecopy(void)
{
    /* One name for everyone: rank 0 writes it, the others get it by copy. */
    char name[256];
    long root = 0, type = 40;
    long stamp = 0;
    if (me == 0) stamp = (long)getpid();
    long slen = sizeof stamp;
    armci_tcgmsg_brdcst(&type, &stamp, &slen, &root);
    snprintf(name, sizeof name, "/tmp/armada-pfilecopy-%ld.txt", stamp);
    enum { SIZE = 3 * 1000 * 1000 + 17 };
    if (me == 0) {
        FILE *f = fopen(name, "wb");
        for (long i = 0; i < SIZE; i++) fputc(tst_byte(3, i), f);
        fclose(f);
    }
    armci_tcgmsg_pfilecopy(&type, &root, name);
    FILE *f = fopen(name, "rb");
    CHECK(f != NULL, "copied file opens");
    if (f) {
        long n = 0, bad = 0;
        int c;
        while ((c = fgetc(f)) != EOF) {
            if (c != tst_byte(3, n)) bad++;
            n++;
        }
        fclose(f);
        CHECK_EQ(n, SIZE, "copied file size");
        CHECK_EQ(bad, 0, "copied file bytes wrong");
    }
    armci_tcgmsg_synch(&type);
    if (me == 0) remove(name);
}

int main(int argc, char **argv)
{
    /* PBEGINF starts MPI and ARMCI itself when nobody has. */
    armci_tcgmsg_pbeginf();
    armci_tcgmsg_pbginf(); /* a second start is harmless */
    me = armci_tcgmsg_nodeid();
    np = armci_tcgmsg_nnodes();
    int wme, wnp;
    MPI_Comm_rank(MPI_COMM_WORLD, &wme);
    MPI_Comm_size(MPI_COMM_WORLD, &wnp);
    CHECK_EQ(me, wme, "nodeid");
    CHECK_EQ(np, wnp, "nnodes");

    TST_SAY("sizes and time");
    test_sizes_and_time();
    TST_SAY("point to point");
    test_p2p();
    TST_SAY("collectives");
    test_collectives();
    TST_SAY("nxtval");
    test_nxtval();
    TST_SAY("pfilecopy");
    test_pfilecopy();
    if (getenv("ARMADA_TEST_VERBOSE")) armci_tcgmsg_stats();

    tst_me(); /* cache the rank before MPI ends */
    armci_tcgmsg_pend();
    return tst_finish("tcgmsg");
}
