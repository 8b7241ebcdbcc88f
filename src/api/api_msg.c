/* Armada: the armci_msg_* helpers of message.h, carried by MPI.
 *
 * They exist for set-up, bootstrap and collectives; Armada's data path never
 * goes through them. The world variants use Armada's duplicate of the
 * communicator ARMCI was initialised on, the group variants the group's
 * communicator, and the scoped variants the node or node-masters
 * communicators of the api layer (virtual nodes honoured). */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "core/arm_core.h"
#include "core/arm_ops.h"

/* ---- argument checks ---------------------------------------------------- */

static void check_count(const char *call, const char *name, int value)
{
    if (value < 0)
        arm_api_fatal(call, "argument '%s' is negative (%d)", name, value);
}

static void check_buffer(const char *call, const char *name, const void *buf, int len)
{
    if (len > 0 && buf == NULL)
        arm_api_fatal(call, "argument '%s' is NULL but %d bytes were asked for", name, len);
}

static void check_pointer(const char *call, const char *name, const void *p)
{
    if (p == NULL)
        arm_api_fatal(call, "argument '%s' is NULL", name);
}

static void check_rank(const char *call, const char *name, int rank, int size)
{
    if (rank < 0 || rank >= size)
        arm_api_fatal(call, "argument '%s' (%d) is not a rank in [0, %d)", name, rank, size);
}

static void check_tag(const char *call, int tag)
{
    if (tag < 0)
        arm_api_fatal(call, "argument 'tag' is negative (%d)", tag);
}

static void check_group(const char *call, const ARMCI_Group *group)
{
    if (group == NULL)
        arm_api_fatal(call, "argument 'group' is NULL");
    if (group->comm == MPI_COMM_NULL)
        arm_api_fatal(call, "argument 'group': the caller is not a member of the group");
}

static MPI_Comm world(const char *call)
{
    arm_api_require_init(call);
    return arm_api_world_comm();
}

static int comm_size(MPI_Comm comm)
{
    int n;
    MPI_Comm_size(comm, &n);
    return n;
}

static int comm_rank(MPI_Comm comm)
{
    int r;
    MPI_Comm_rank(comm, &r);
    return r;
}

/* Rank `rank` of `from` as a rank of `to`; MPI_UNDEFINED when absent. */
static int translate_rank(MPI_Comm from, int rank, MPI_Comm to)
{
    MPI_Group gfrom, gto;
    int out = MPI_UNDEFINED;
    MPI_Comm_group(from, &gfrom);
    MPI_Comm_group(to, &gto);
    MPI_Group_translate_ranks(gfrom, 1, &rank, gto, &out);
    MPI_Group_free(&gfrom);
    MPI_Group_free(&gto);
    return out;
}

/* ---- scopes ------------------------------------------------------------- */

/* World rank of the lowest process of the caller's node: a node's name that
 * every process computes locally. */
static int node_master_world_rank(void)
{
    static int cached = -1;
    if (cached < 0)
        cached = translate_rank(arm_api_node_comm(), 0, arm_api_world_comm());
    return cached;
}

/* The communicator of `scope` over the world (group == NULL) or over a
 * group's members. MPI_COMM_NULL when the caller takes no part (a non-master
 * under SCOPE_MASTERS). *owned is set when the caller must free it. Group
 * scopes other than SCOPE_ALL are built on the spot, collectively over the
 * group: they are set-up calls, not hot paths. */
static MPI_Comm scope_comm(const char *call, int scope, ARMCI_Group *group, int *owned)
{
    *owned = 0;
    if (scope != SCOPE_ALL && scope != SCOPE_NODE && scope != SCOPE_MASTERS)
        arm_api_fatal(call, "argument 'scope' (%d) is not SCOPE_ALL, SCOPE_NODE or SCOPE_MASTERS",
                      scope);
    if (group == NULL) {
        MPI_Comm w = world(call);
        if (scope == SCOPE_ALL)
            return w;
        return scope == SCOPE_NODE ? arm_api_node_comm() : arm_api_masters_comm();
    }
    check_group(call, group);
    arm_api_require_init(call);
    if (scope == SCOPE_ALL)
        return group->comm;

    MPI_Comm node;
    MPI_Comm_split(group->comm, node_master_world_rank(), comm_rank(group->comm), &node);
    if (scope == SCOPE_NODE) {
        *owned = 1;
        return node;
    }
    int lead = comm_rank(node) == 0;
    MPI_Comm_free(&node);
    MPI_Comm masters;
    MPI_Comm_split(group->comm, lead ? 0 : MPI_UNDEFINED, comm_rank(group->comm), &masters);
    *owned = masters != MPI_COMM_NULL;
    return masters;
}

static void scope_release(MPI_Comm *comm, int owned)
{
    if (owned && *comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
}

/* ---- identity, time, abort ---------------------------------------------- */

int armci_msg_me(void)
{
    return comm_rank(world("armci_msg_me"));
}

int armci_msg_nproc(void)
{
    return comm_size(world("armci_msg_nproc"));
}

void armci_msg_abort(int code)
{
    MPI_Comm comm = ARMCI_Initialized() ? arm_api_world_comm() : MPI_COMM_WORLD;
    MPI_Abort(comm, code == 0 ? 1 : code);
    abort(); /* MPI_Abort does not return; be sure. */
}

double armci_timer(void)
{
    return MPI_Wtime();
}

/* ---- point to point ----------------------------------------------------- */

void armci_msg_snd(int tag, void *buffer, int len, int to)
{
    const char *call = "armci_msg_snd";
    MPI_Comm comm = world(call);
    check_tag(call, tag);
    check_count(call, "len", len);
    check_buffer(call, "buffer", buffer, len);
    check_rank(call, "to", to, comm_size(comm));
    MPI_Send(buffer, len, MPI_BYTE, to, tag, comm);
}

/* Receives from `from` (or MPI_ANY_SOURCE); checks the message fits first so
 * a short buffer is reported by name rather than as an MPI truncation. */
static int receive(const char *call, MPI_Comm comm, int tag, void *buffer, int buflen,
                   int *msglen, int from)
{
    MPI_Status st;
    int count;
    MPI_Probe(from, tag, comm, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count > buflen)
        arm_api_fatal(call, "argument 'buflen' (%d) is smaller than the message from rank %d"
                      " (%d bytes)", buflen, st.MPI_SOURCE, count);
    MPI_Recv(buffer, count, MPI_BYTE, st.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
    if (msglen)
        *msglen = count;
    return st.MPI_SOURCE;
}

void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from)
{
    const char *call = "armci_msg_rcv";
    MPI_Comm comm = world(call);
    check_tag(call, tag);
    check_count(call, "buflen", buflen);
    check_buffer(call, "buffer", buffer, buflen);
    check_rank(call, "from", from, comm_size(comm));
    receive(call, comm, tag, buffer, buflen, msglen, from);
}

int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen)
{
    const char *call = "armci_msg_rcvany";
    MPI_Comm comm = world(call);
    check_tag(call, tag);
    check_count(call, "buflen", buflen);
    check_buffer(call, "buffer", buffer, buflen);
    return receive(call, comm, tag, buffer, buflen, msglen, MPI_ANY_SOURCE);
}

/* ---- barriers ----------------------------------------------------------- */
/* Each participant's writes, to any process, are complete before it enters
 * (decision 086): Global Arrays' GA_Pgroup_sync fences only the group's
 * members and then calls the group barrier, so a write to a process outside
 * the group would otherwise be read back stale by another member. The fence
 * costs nothing for nodes whose writes are known served (decision 058). */

void parmci_msg_barrier(void)
{
    MPI_Comm comm = world("armci_msg_barrier");
    arm_op_fence_all();
    arm_core_barrier(comm);
}

void parmci_msg_group_barrier(ARMCI_Group *group)
{
    const char *call = "armci_msg_group_barrier";
    arm_api_require_init(call);
    check_group(call, group);
    arm_op_fence_all();
    arm_core_barrier(group->comm);
}

void armci_msg_barrier(void)
{
    parmci_msg_barrier();
}

void armci_msg_group_barrier(ARMCI_Group *group)
{
    parmci_msg_group_barrier(group);
}

/* Binary tree over the processes of `scope`, rooted at its lowest member,
 * with every answer a world rank (-1 where there is none). */
void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right)
{
    const char *call = "armci_msg_bintree";
    check_pointer(call, "Root", Root);
    check_pointer(call, "Up", Up);
    check_pointer(call, "Left", Left);
    check_pointer(call, "Right", Right);
    int owned;
    MPI_Comm comm = scope_comm(call, scope, NULL, &owned);
    *Root = *Up = *Left = *Right = -1;
    if (comm == MPI_COMM_NULL)
        return;
    int n = comm_size(comm), me = comm_rank(comm);
    int tree[4] = { 0, me == 0 ? MPI_PROC_NULL : (me - 1) / 2,
                    2 * me + 1 < n ? 2 * me + 1 : MPI_PROC_NULL,
                    2 * me + 2 < n ? 2 * me + 2 : MPI_PROC_NULL };
    int out[4];
    MPI_Group g, gw;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(arm_api_world_comm(), &gw);
    MPI_Group_translate_ranks(g, 4, tree, gw, out);
    MPI_Group_free(&g);
    MPI_Group_free(&gw);
    *Root = out[0];
    *Up = out[1] == MPI_PROC_NULL ? -1 : out[1];
    *Left = out[2] == MPI_PROC_NULL ? -1 : out[2];
    *Right = out[3] == MPI_PROC_NULL ? -1 : out[3];
}

/* ---- broadcast ---------------------------------------------------------- */

/* `root` is a world rank, for a group too: ARMCI's convention, which Global
 * Arrays' GA_Pgroup_brdcst relies on (decision 085). */
static void bcast_scoped(const char *call, int scope, void *buf, int len, int root,
                         ARMCI_Group *group)
{
    check_count(call, "len", len);
    check_buffer(call, "buffer", buf, len);
    int owned;
    MPI_Comm comm = scope_comm(call, scope, group, &owned);
    MPI_Comm base = arm_api_world_comm();
    check_rank(call, "root", root, comm_size(base));
    if (comm == MPI_COMM_NULL)
        return;
    int r = comm == base ? root : translate_rank(base, root, comm);
    if (r == MPI_UNDEFINED)
        arm_api_fatal(call, "argument 'root' (%d) is not among the processes of scope %d",
                      root, scope);
    if (comm == base)
        arm_core_coll_note(ARM_COLL_MSG_BCAST);
    MPI_Bcast(buf, len, MPI_BYTE, r, comm);
    scope_release(&comm, owned);
}

void armci_msg_bcast(void *buffer, int len, int root)
{
    bcast_scoped("armci_msg_bcast", SCOPE_ALL, buffer, len, root, NULL);
}

void armci_msg_brdcst(void *buffer, int len, int root)
{
    bcast_scoped("armci_msg_brdcst", SCOPE_ALL, buffer, len, root, NULL);
}

void armci_msg_bcast_scope(int scope, void *buffer, int len, int root)
{
    bcast_scoped("armci_msg_bcast_scope", scope, buffer, len, root, NULL);
}

void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group)
{
    const char *call = "armci_msg_group_bcast_scope";
    check_group(call, group);
    bcast_scoped(call, scope, buf, len, root, group);
}

/* From the node's master to the other processes of the node. */
void armci_msg_clus_brdcst(void *buf, int len)
{
    const char *call = "armci_msg_clus_brdcst";
    check_count(call, "len", len);
    check_buffer(call, "buf", buf, len);
    arm_api_require_init(call);
    MPI_Bcast(buf, len, MPI_BYTE, 0, arm_api_node_comm());
}

/* Among the members of `mastergroup` on the caller's node, from world rank
 * `grp_master`; `grp_clus_nproc` is how many such members there are. */
void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc,
                           ARMCI_Group *mastergroup)
{
    const char *call = "armci_grp_clus_brdcst";
    check_count(call, "len", len);
    check_buffer(call, "buf", buf, len);
    check_group(call, mastergroup);
    int owned;
    MPI_Comm comm = scope_comm(call, SCOPE_NODE, mastergroup, &owned);
    if (comm_size(comm) != grp_clus_nproc)
        arm_api_fatal(call, "argument 'grp_clus_nproc' (%d) differs from the group's %d"
                      " processes on this node", grp_clus_nproc, comm_size(comm));
    check_rank(call, "grp_master", grp_master, comm_size(arm_api_world_comm()));
    int r = translate_rank(arm_api_world_comm(), grp_master, comm);
    if (r == MPI_UNDEFINED)
        arm_api_fatal(call, "argument 'grp_master' (%d) is not a member of the group on this node",
                      grp_master);
    MPI_Bcast(buf, len, MPI_BYTE, r, comm);
    scope_release(&comm, owned);
}

/* ---- reductions ---------------------------------------------------------
 * The operators and the reduction itself live in api_gop.c. */

/* In-place all-reduce of n elements over the scope; every process of the
 * scope receives the result. */
static void gop_scoped(const char *call, int scope, void *x, int n, const char *op, int type,
                       ARMCI_Group *group)
{
    size_t size;
    check_count(call, "n", n);
    check_buffer(call, "x", x, n);
    arm_api_msg_type(call, type, &size);
    arm_gop_t kind = arm_api_gop_parse(call, op);
    arm_api_gop_check(call, op, kind, type);
    int owned;
    MPI_Comm comm = scope_comm(call, scope, group, &owned);
    if (comm == arm_api_world_comm())
        arm_core_coll_note(ARM_COLL_MSG_GOP);
    if (comm != MPI_COMM_NULL && n > 0)
        arm_api_gop_allreduce(call, x, n, type, kind, comm);
    scope_release(&comm, owned);
}

void armci_msg_reduce(void *x, int n, char *op, int type)
{
    gop_scoped("armci_msg_reduce", SCOPE_ALL, x, n, op, type, NULL);
}

void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type)
{
    gop_scoped("armci_msg_reduce_scope", scope, x, n, op, type, NULL);
}

void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type)
{
    gop_scoped("armci_msg_gop_scope", scope, x, n, op, type, NULL);
}

void armci_msg_igop(int *x, int n, char *op)
{
    gop_scoped("armci_msg_igop", SCOPE_ALL, x, n, op, ARMCI_INT, NULL);
}

void armci_msg_lgop(long *x, int n, char *op)
{
    gop_scoped("armci_msg_lgop", SCOPE_ALL, x, n, op, ARMCI_LONG, NULL);
}

void armci_msg_llgop(long long *x, int n, char *op)
{
    gop_scoped("armci_msg_llgop", SCOPE_ALL, x, n, op, ARMCI_LONG_LONG, NULL);
}

void armci_msg_fgop(float *x, int n, char *op)
{
    gop_scoped("armci_msg_fgop", SCOPE_ALL, x, n, op, ARMCI_FLOAT, NULL);
}

void armci_msg_dgop(double *x, int n, char *op)
{
    gop_scoped("armci_msg_dgop", SCOPE_ALL, x, n, op, ARMCI_DOUBLE, NULL);
}

void armci_msg_clus_igop(int *x, int n, char *op)
{
    gop_scoped("armci_msg_clus_igop", SCOPE_NODE, x, n, op, ARMCI_INT, NULL);
}

void armci_msg_clus_lgop(long *x, int n, char *op)
{
    gop_scoped("armci_msg_clus_lgop", SCOPE_NODE, x, n, op, ARMCI_LONG, NULL);
}

void armci_msg_clus_llgop(long long *x, int n, char *op)
{
    gop_scoped("armci_msg_clus_llgop", SCOPE_NODE, x, n, op, ARMCI_LONG_LONG, NULL);
}

void armci_msg_clus_fgop(float *x, int n, char *op)
{
    gop_scoped("armci_msg_clus_fgop", SCOPE_NODE, x, n, op, ARMCI_FLOAT, NULL);
}

void armci_msg_clus_dgop(double *x, int n, char *op)
{
    gop_scoped("armci_msg_clus_dgop", SCOPE_NODE, x, n, op, ARMCI_DOUBLE, NULL);
}

void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group)
{
    const char *call = "armci_msg_group_gop_scope";
    check_group(call, group);
    gop_scoped(call, scope, x, n, op, type, group);
}

void armci_msg_group_igop(int *x, int n, char *op, ARMCI_Group *group)
{
    const char *call = "armci_msg_group_igop";
    check_group(call, group);
    gop_scoped(call, SCOPE_ALL, x, n, op, ARMCI_INT, group);
}

void armci_msg_group_lgop(long *x, int n, char *op, ARMCI_Group *group)
{
    const char *call = "armci_msg_group_lgop";
    check_group(call, group);
    gop_scoped(call, SCOPE_ALL, x, n, op, ARMCI_LONG, group);
}

void armci_msg_group_llgop(long long *x, int n, char *op, ARMCI_Group *group)
{
    const char *call = "armci_msg_group_llgop";
    check_group(call, group);
    gop_scoped(call, SCOPE_ALL, x, n, op, ARMCI_LONG_LONG, group);
}

void armci_msg_group_fgop(float *x, int n, char *op, ARMCI_Group *group)
{
    const char *call = "armci_msg_group_fgop";
    check_group(call, group);
    gop_scoped(call, SCOPE_ALL, x, n, op, ARMCI_FLOAT, group);
}

void armci_msg_group_dgop(double *x, int n, char *op, ARMCI_Group *group)
{
    const char *call = "armci_msg_group_dgop";
    check_group(call, group);
    gop_scoped(call, SCOPE_ALL, x, n, op, ARMCI_DOUBLE, group);
}

/* ---- selection ---------------------------------------------------------- */

/* One process's bid: the leading element of its buffer and whether it takes
 * part. */
typedef struct {
    union { int i; long l; long long ll; float f; double d; } v;
    int contribute;
} sel_bid_t;

/* Does bid a beat bid b under "min" (want_min) or "max"? Ties do not. */
static int sel_beats(const sel_bid_t *a, const sel_bid_t *b, int type, int want_min)
{
    int less, more;
    switch (type) {
    case ARMCI_INT:       less = a->v.i < b->v.i;   more = a->v.i > b->v.i;   break;
    case ARMCI_LONG:      less = a->v.l < b->v.l;   more = a->v.l > b->v.l;   break;
    case ARMCI_LONG_LONG: less = a->v.ll < b->v.ll; more = a->v.ll > b->v.ll; break;
    case ARMCI_FLOAT:     less = a->v.f < b->v.f;   more = a->v.f > b->v.f;   break;
    default:              less = a->v.d < b->v.d;   more = a->v.d > b->v.d;   break;
    }
    return want_min ? less : more;
}

/* x holds n bytes whose leading element, of `type`, is the key. Among the
 * contributing processes the one with the smallest ("min") or largest
 * ("max") key wins (the lowest rank on a tie) and its n bytes are copied to
 * every process. With no contributor x is left as it was. */
static void sel_scoped(const char *call, int scope, void *x, int n, const char *op, int type,
                       int contribute)
{
    size_t size;
    check_count(call, "n", n);
    check_buffer(call, "x", x, n);
    arm_api_msg_type(call, type, &size);
    check_pointer(call, "op", op);
    int want_min;
    if (strncmp(op, "min", 3) == 0)   /* by prefix, as the gop operators */
        want_min = 1;
    else if (strncmp(op, "max", 3) == 0)
        want_min = 0;
    else
        arm_api_fatal(call, "argument 'op' (\"%.16s\") is neither min nor max", op);
    if ((size_t)n < size)
        arm_api_fatal(call, "argument 'n' (%d) is smaller than one element of type %d", n, type);

    int owned;
    MPI_Comm comm = scope_comm(call, scope, NULL, &owned);
    if (comm == MPI_COMM_NULL)
        return;
    if (comm == arm_api_world_comm())
        arm_core_coll_note(ARM_COLL_MSG_SEL);
    int np = comm_size(comm);
    sel_bid_t mine;
    memset(&mine, 0, sizeof mine);
    memcpy(&mine.v, x, size);
    mine.contribute = contribute != 0;
    sel_bid_t *bids = malloc((size_t)np * sizeof *bids);
    if (bids == NULL)
        arm_api_fatal(call, "out of memory for %d selection bids", np);
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, bids, (int)sizeof mine, MPI_BYTE, comm);
    int winner = -1;
    for (int r = 0; r < np; r++)
        if (bids[r].contribute && (winner < 0 || sel_beats(&bids[r], &bids[winner], type, want_min)))
            winner = r;
    free(bids);
    if (winner >= 0)
        MPI_Bcast(x, n, MPI_BYTE, winner, comm);
    scope_release(&comm, owned);
}

void armci_msg_sel(void *x, int n, char *op, int type, int contribute)
{
    sel_scoped("armci_msg_sel", SCOPE_ALL, x, n, op, type, contribute);
}

void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute)
{
    sel_scoped("armci_msg_sel_scope", scope, x, n, op, type, contribute);
}

/* ---- address exchange --------------------------------------------------- */

/* ptr_ar[r] of every rank r ends up on every process. */
static void exchange_on(const char *call, MPI_Comm comm, void *ptr_ar[], int n)
{
    check_pointer(call, "ptr_ar", ptr_ar);
    if (n != comm_size(comm))
        arm_api_fatal(call, "argument 'n' (%d) differs from the number of processes (%d)",
                      n, comm_size(comm));
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ptr_ar, (int)sizeof(void *), MPI_BYTE,
                  comm);
}

void armci_exchange_address(void *ptr_ar[], int n)
{
    const char *call = "armci_exchange_address";
    exchange_on(call, world(call), ptr_ar, n);
}

void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group)
{
    const char *call = "armci_exchange_address_grp";
    arm_api_require_init(call);
    check_group(call, group);
    exchange_on(call, group->comm, ptr_arr, n);
}
