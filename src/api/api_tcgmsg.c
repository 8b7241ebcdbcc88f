/* Armada: the TCGMSG compatibility calls (armci_tcgmsg_*) that Global
 * Arrays' tcgmsg front ends (tcg_* in C, brdcst_ and friends in Fortran)
 * forward to.
 *
 * Every argument arrives by reference, Fortran style, exactly as the
 * callers in libga pass them; the op of the two gop calls comes with its
 * length as a trailing int. Messages travel on Armada's world communicator
 * with the TCGMSG message type as the MPI tag. NXTVAL is a fetch-and-add on
 * the long counter that ARMCI_Init places on rank 0. */
#define _XOPEN_SOURCE 700 /* nice() */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_internal.h"
#include "core/arm_core.h"

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

/* Asynchronous sends in flight, bounded: when the table is full the oldest
 * is completed first. */
#define TCG_MAX_PENDING 64

typedef struct {
    MPI_Request req;
    long        node;
} tcg_pending_t;

typedef struct {
    int           began_mpi;   /* PBEGINF initialised MPI, PEND finalises it   */
    int           began_armci; /* PBEGINF initialised ARMCI, PEND finalises it */
    int           ready;
    int           clock_set;
    double        t0;
    long          debug;
    long          sends, recvs, send_bytes, recv_bytes;
    int           npending;
    tcg_pending_t pending[TCG_MAX_PENDING];
} tcg_ctx_t;

static tcg_ctx_t tcg;

/* ---- helpers ------------------------------------------------------------ */

static MPI_Comm tcg_world(const char *call)
{
    arm_api_require_init(call);
    return arm_api_world_comm();
}

static int tcg_nprocs(MPI_Comm comm)
{
    int n;
    MPI_Comm_size(comm, &n);
    return n;
}

static int tcg_tag(const char *call, MPI_Comm comm, const long *type)
{
    if (type == NULL)
        arm_api_fatal(call, "argument 'type' is NULL");
    int *ub, found = 0;
    long limit = 32767;
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &found);
    if (found)
        limit = *ub;
    if (*type < 0 || *type > limit)
        arm_api_fatal(call, "argument 'type' (%ld) is not a message type in [0, %ld]",
                      *type, limit);
    return (int)*type;
}

static long tcg_value(const char *call, const char *name, const long *p)
{
    if (p == NULL)
        arm_api_fatal(call, "argument '%s' is NULL", name);
    return *p;
}

static void tcg_check_node(const char *call, const char *name, long node, int np)
{
    if (node < 0 || node >= np)
        arm_api_fatal(call, "argument '%s' (%ld) is not a process in [0, %d)", name, node, np);
}

static void tcg_check_buffer(const char *call, const char *name, const void *buf, long len)
{
    if (len < 0)
        arm_api_fatal(call, "argument 'lenbuf' is negative (%ld)", len);
    if (len > INT_MAX)
        arm_api_fatal(call, "argument 'lenbuf' (%ld) exceeds the %d bytes of one message",
                      len, INT_MAX);
    if (len > 0 && buf == NULL)
        arm_api_fatal(call, "argument '%s' is NULL but %ld bytes were asked for", name, len);
}

static void tcg_complete(int i)
{
    MPI_Wait(&tcg.pending[i].req, MPI_STATUS_IGNORE);
    tcg.pending[i] = tcg.pending[--tcg.npending];
}

static void tcg_complete_oldest(void)
{
    /* The table keeps no order after removals; the lowest slot is as good
     * as any for making room. */
    tcg_complete(0);
}

/* Reads a Fortran-style op (length given, maybe unterminated, blank
 * padded), matches it as the armci_msg_*gop calls do (api_gop.c) and writes
 * the canonical name of its operator into out. */
static void tcg_op(const char *call, const char *op, int oplen, int integer, char out[8])
{
    if (op == NULL)
        arm_api_fatal(call, "argument 'op' is NULL");
    size_t len = oplen > 0 ? (size_t)oplen : strlen(op);
    while (len > 0 && op[len - 1] == ' ')
        len--;
    char name[32];
    if (len >= sizeof name)
        len = sizeof name - 1;
    memcpy(name, op, len);
    name[len] = '\0';
    arm_gop_t kind = arm_api_gop_parse(call, name);
    arm_api_gop_check(call, name, kind, integer ? ARMCI_LONG : ARMCI_DOUBLE);
    snprintf(out, 8, "%s", arm_api_gop_name(kind));
}

/* ---- start, stop, identity ---------------------------------------------- */

void armci_tcgmsg_pbeginf(void)
{
    int flag;
    MPI_Initialized(&flag);
    if (!flag) {
        MPI_Init(NULL, NULL);
        tcg.began_mpi = 1;
    }
    if (!ARMCI_Initialized()) {
        ARMCI_Init();
        tcg.began_armci = 1;
    }
    if (!tcg.clock_set) {
        tcg.t0 = MPI_Wtime();
        tcg.clock_set = 1;
    }
    tcg.ready = 1;
}

void armci_tcgmsg_pbginf(void)
{
    armci_tcgmsg_pbeginf();
}

void armci_tcgmsg_pend(void)
{
    while (tcg.npending > 0)
        tcg_complete_oldest();
    if (tcg.began_armci && ARMCI_Initialized())
        ARMCI_Finalize();
    if (tcg.began_mpi) {
        int done;
        MPI_Finalized(&done);
        if (!done)
            MPI_Finalize();
    }
    tcg.began_armci = tcg.began_mpi = 0;
    tcg.ready = 0;
}

long armci_tcgmsg_tcgready(void)
{
    return tcg.ready || ARMCI_Initialized();
}

long armci_tcgmsg_nnodes(void)
{
    return tcg_nprocs(tcg_world("armci_tcgmsg_nnodes"));
}

long armci_tcgmsg_nodeid(void)
{
    int me;
    MPI_Comm_rank(tcg_world("armci_tcgmsg_nodeid"), &me);
    return me;
}

/* ---- time, sizes, odds and ends ----------------------------------------- */

double armci_tcgmsg_tcgtime(void)
{
    if (!tcg.clock_set) {
        tcg.t0 = MPI_Wtime();
        tcg.clock_set = 1;
    }
    return MPI_Wtime() - tcg.t0;
}

/* Centiseconds, TCGMSG's MTIME unit. */
long armci_tcgmsg_mtime(void)
{
    return (long)(armci_tcgmsg_tcgtime() * 100.0);
}

static long tcg_count(const char *call, const long *n)
{
    long v = tcg_value(call, "n", n);
    if (v < 0)
        arm_api_fatal(call, "argument 'n' is negative (%ld)", v);
    return v;
}

long armci_tcgmsg_mdtob(long *n)
{
    return tcg_count("armci_tcgmsg_mdtob", n) * (long)sizeof(double);
}

long armci_tcgmsg_mitob(long *n)
{
    return tcg_count("armci_tcgmsg_mitob", n) * (long)sizeof(long);
}

/* Integers (TCGMSG integers are long) needed to hold n doubles. */
long armci_tcgmsg_mdtoi(long *n)
{
    long bytes = tcg_count("armci_tcgmsg_mdtoi", n) * (long)sizeof(double);
    return (bytes + (long)sizeof(long) - 1) / (long)sizeof(long);
}

/* Doubles needed to hold n integers. */
long armci_tcgmsg_mitod(long *n)
{
    long bytes = tcg_count("armci_tcgmsg_mitod", n) * (long)sizeof(long);
    return (bytes + (long)sizeof(double) - 1) / (long)sizeof(double);
}

long armci_tcgmsg_niceftn(long *ival)
{
    long inc = tcg_value("armci_tcgmsg_niceftn", "ival", ival);
    return nice((int)inc);
}

/* TCGMSG's LLOG sends each process's output to a log file of its own;
 * Armada leaves output where the launcher put it, which already tells
 * processes apart. */
void armci_tcgmsg_llog(void)
{
}

void armci_tcgmsg_setdbg(long *value)
{
    tcg.debug = tcg_value("armci_tcgmsg_setdbg", "value", value);
}

void armci_tcgmsg_stats(void)
{
    fprintf(stderr, "armada[rank %ld]: tcgmsg: %ld sends (%ld bytes), %ld receives (%ld bytes)\n",
            armci_tcgmsg_nodeid(), tcg.sends, tcg.send_bytes, tcg.recvs, tcg.recv_bytes);
}

/* ---- point to point ----------------------------------------------------- */

void armci_tcgmsg_snd(long *type, void *buf, long *lenbuf, long *node, long *sync)
{
    const char *call = "armci_tcgmsg_snd";
    MPI_Comm comm = tcg_world(call);
    int tag = tcg_tag(call, comm, type);
    long len = tcg_value(call, "lenbuf", lenbuf);
    long to = tcg_value(call, "node", node);
    long synchronous = tcg_value(call, "sync", sync);
    tcg_check_buffer(call, "buf", buf, len);
    tcg_check_node(call, "node", to, tcg_nprocs(comm));
    tcg.sends++;
    tcg.send_bytes += len;
    if (synchronous) {
        MPI_Send(buf, (int)len, MPI_BYTE, (int)to, tag, comm);
        return;
    }
    if (tcg.npending == TCG_MAX_PENDING)
        tcg_complete_oldest();
    tcg_pending_t *p = &tcg.pending[tcg.npending++];
    p->node = to;
    MPI_Isend(buf, (int)len, MPI_BYTE, (int)to, tag, comm, &p->req);
}

/* nodeselect -1 takes a message from any process; *nodefrom and *lenmes
 * say where it came from and how long it was. */
void armci_tcgmsg_rcv(long *type, void *buf, long *lenbuf, long *lenmes, long *nodeselect,
                      long *nodefrom, long *sync)
{
    const char *call = "armci_tcgmsg_rcv";
    MPI_Comm comm = tcg_world(call);
    int tag = tcg_tag(call, comm, type);
    long len = tcg_value(call, "lenbuf", lenbuf);
    long from = tcg_value(call, "nodeselect", nodeselect);
    tcg_check_buffer(call, "buf", buf, len);
    if (from != -1)
        tcg_check_node(call, "nodeselect", from, tcg_nprocs(comm));
    MPI_Status st;
    int count;
    MPI_Probe(from == -1 ? MPI_ANY_SOURCE : (int)from, tag, comm, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count > len)
        arm_api_fatal(call, "argument 'lenbuf' (%ld) is smaller than the message from process"
                      " %d (%d bytes)", len, st.MPI_SOURCE, count);
    MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
    tcg.recvs++;
    tcg.recv_bytes += count;
    if (lenmes)
        *lenmes = count;
    if (nodefrom)
        *nodefrom = st.MPI_SOURCE;
    (void)sync; /* receives always complete before returning */
}

/* 1 when a message of this type from `node` (-1: anyone) is waiting. */
long armci_tcgmsg_probe(long *type, long *node)
{
    const char *call = "armci_tcgmsg_probe";
    MPI_Comm comm = tcg_world(call);
    int tag = tcg_tag(call, comm, type);
    long from = tcg_value(call, "node", node);
    if (from != -1)
        tcg_check_node(call, "node", from, tcg_nprocs(comm));
    int flag;
    MPI_Iprobe(from == -1 ? MPI_ANY_SOURCE : (int)from, tag, comm, &flag, MPI_STATUS_IGNORE);
    return flag ? 1 : 0;
}

/* Completes the asynchronous sends to `node` (-1: to everyone). */
void armci_tcgmsg_waitcom(long *node)
{
    const char *call = "armci_tcgmsg_waitcom";
    MPI_Comm comm = tcg_world(call);
    long to = tcg_value(call, "node", node);
    if (to != -1)
        tcg_check_node(call, "node", to, tcg_nprocs(comm));
    for (int i = tcg.npending - 1; i >= 0; i--)
        if (to == -1 || tcg.pending[i].node == to)
            tcg_complete(i);
}

/* ---- collectives -------------------------------------------------------- */

void armci_tcgmsg_brdcst(long *type, void *buf, long *lenbuf, long *originator)
{
    const char *call = "armci_tcgmsg_brdcst";
    MPI_Comm comm = tcg_world(call);
    tcg_tag(call, comm, type);
    long len = tcg_value(call, "lenbuf", lenbuf);
    long root = tcg_value(call, "originator", originator);
    tcg_check_buffer(call, "buf", buf, len);
    tcg_check_node(call, "originator", root, tcg_nprocs(comm));
    arm_core_coll_note(ARM_COLL_MSG_BCAST);
    MPI_Bcast(buf, (int)len, MPI_BYTE, (int)root, comm);
}

void armci_tcgmsg_synch(long *type)
{
    const char *call = "armci_tcgmsg_synch";
    MPI_Comm comm = tcg_world(call);
    tcg_tag(call, comm, type);
    arm_core_barrier(comm);
}

void armci_tcgmsg_dgop(long *type, double *x, long *n, char *op, int oplen)
{
    const char *call = "armci_tcgmsg_dgop";
    MPI_Comm comm = tcg_world(call);
    tcg_tag(call, comm, type);
    long count = tcg_count(call, n);
    if (count > 0 && x == NULL)
        arm_api_fatal(call, "argument 'x' is NULL but %ld elements were asked for", count);
    char name[8];
    tcg_op(call, op, oplen, 0, name);
    for (long done = 0; done < count; done += INT_MAX) {
        long chunk = count - done < INT_MAX ? count - done : INT_MAX;
        armci_msg_dgop(x + done, (int)chunk, name);
    }
}

void armci_tcgmsg_igop(long *type, long *x, long *n, char *op, int oplen)
{
    const char *call = "armci_tcgmsg_igop";
    MPI_Comm comm = tcg_world(call);
    tcg_tag(call, comm, type);
    long count = tcg_count(call, n);
    if (count > 0 && x == NULL)
        arm_api_fatal(call, "argument 'x' is NULL but %ld elements were asked for", count);
    char name[8];
    tcg_op(call, op, oplen, 1, name);
    for (long done = 0; done < count; done += INT_MAX) {
        long chunk = count - done < INT_MAX ? count - done : INT_MAX;
        armci_msg_lgop(x + done, (int)chunk, name);
    }
}

/* ---- shared counter ----------------------------------------------------- */

/* mproc > 0 (or 0): the next value of the job-wide counter, starting at 0.
 * mproc < 0: collective; every process calls it and the counter returns to
 * 0 (the value returned is 0). */
long armci_tcgmsg_nxtval(long *mproc)
{
    const char *call = "armci_tcgmsg_nxtval";
    MPI_Comm comm = tcg_world(call);
    long m = tcg_value(call, "mproc", mproc);
    long *counter = arm_api_nxtval_counter();
    if (m >= 0) {
        long old = 0;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, counter, 1, 0);
        return old;
    }
    int me;
    MPI_Comm_rank(comm, &me);
    /* world barriers: counted and compared with the other processes' calls,
     * and waited for by naps, not spun in MPI (decisions 010, 089) */
    arm_core_barrier(comm);
    if (me == 0) {
        long zero = 0;
        ARMCI_Rmw(ARMCI_SWAP_LONG, &zero, counter, 0, 0);
    }
    arm_core_barrier(comm);
    return 0;
}

/* ---- files -------------------------------------------------------------- */

/* Process node0's file `fname` is copied to the same name on every other
 * process. Collective. node0 reads the whole file before anyone writes, and
 * the others write a private temporary and rename it into place, so
 * processes that share a file system (or the file itself) never see it
 * half written. */
void armci_tcgmsg_pfilecopy(long *type, long *node0, char *fname)
{
    const char *call = "armci_tcgmsg_pfilecopy";
    MPI_Comm comm = tcg_world(call);
    tcg_tag(call, comm, type);
    long root = tcg_value(call, "node0", node0);
    tcg_check_node(call, "node0", root, tcg_nprocs(comm));
    if (fname == NULL)
        arm_api_fatal(call, "argument 'fname' is NULL");
    int me;
    MPI_Comm_rank(comm, &me);

    long size = 0;
    char *data = NULL;
    if (me == root) {
        FILE *f = fopen(fname, "rb");
        if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
            fseek(f, 0, SEEK_SET) != 0)
            arm_api_fatal(call, "argument 'fname': cannot read \"%s\"", fname);
        data = malloc(size > 0 ? (size_t)size : 1);
        if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size)
            arm_api_fatal(call, "argument 'fname': reading the %ld bytes of \"%s\" failed",
                          size, fname);
        fclose(f);
    }
    arm_core_coll_note(ARM_COLL_MSG_BCAST);   /* one call, however many pieces */
    MPI_Bcast(&size, 1, MPI_LONG, (int)root, comm);
    if (me != root) {
        data = malloc(size > 0 ? (size_t)size : 1);
        if (data == NULL)
            arm_api_fatal(call, "out of memory for the %ld bytes of \"%s\"", size, fname);
    }
    for (long done = 0; done < size; done += INT_MAX) {
        long chunk = size - done < INT_MAX ? size - done : INT_MAX;
        MPI_Bcast(data + done, (int)chunk, MPI_BYTE, (int)root, comm);
    }
    if (me != root) {
        size_t tlen = strlen(fname) + 32;
        char *tmp = malloc(tlen);
        if (tmp == NULL)
            arm_api_fatal(call, "out of memory for a file name");
        snprintf(tmp, tlen, "%s.armada-%d", fname, me);
        FILE *f = fopen(tmp, "wb");
        if (f == NULL || fwrite(data, 1, (size_t)size, f) != (size_t)size || fclose(f) != 0 ||
            rename(tmp, fname) != 0)
            arm_api_fatal(call, "argument 'fname': writing \"%s\" failed", fname);
        free(tmp);
    }
    free(data);
    arm_core_barrier(comm);   /* counted, as above */
}
