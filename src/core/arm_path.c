/* Path and protocol per operation family (see arm_path.h).
 *
 * Contiguous put and get go by the transport's own RMA when it does RMA
 * natively (or when forced). Where it emulates RMA, a small get to a node
 * with no server-path writes outstanding takes the transport's get, which
 * the target's worker answers a little sooner than the server (decision
 * 009); where the node is reached by a zero-copy transport (cma), gets of
 * any size and puts too large to aggregate take it when the node is clean,
 * and with writes outstanding those of zcopy_min bytes or more, after the
 * writes are completed (decision 017). Everything else goes to the server:
 * small writes aggregated, puts up to copy_put_max copied, larger ones one
 * request from the source (eager up to eager_write_max, decision 013), and
 * accumulates too large to copy in slot-size chunks, except over a stream
 * transport, where one eager request is cheaper. Read-modify-write uses
 * the transport's atomics when forced, or where they are emulated (done
 * by the target's worker with CPU atomics) on a clean node; native NIC
 * atomics are not atomic with the CPU atomics of same-node processes, so
 * an allocation marked for them (decision 061) takes them always, whatever
 * the node (same-node processes too: core/arm_ops.c sends them here).
 * A contiguous accumulate of acc_origin_min bytes or more to a neighbour
 * node the transport's RMA reaches (or any, when forced) is done at the
 * origin under the target rank's accumulate lock (decision 060): through
 * the server it would cost two requests per chunk where the server path
 * sends one. To a node reached by forwarding it stays with the servers. */
#include "core/arm_path.h"
#include "util/arm_config.h"

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

void arm_path_settings_init(arm_path_settings_t *s, size_t slot_size, size_t batch_ent)
{
    s->rma_mode = (int)arm_config.rma_path;
    s->amo_mode = (int)arm_config.amo_path;
    s->aggregate = arm_config.aggregate != 0;
    s->slot_size = slot_size;
    s->clean_get_max = (size_t)arm_config.clean_get_max;
    s->zcopy_min = (size_t)arm_config.zcopy_min;
    s->eager_write_max = (size_t)arm_config.eager_write_max;
    /* A batch entry is its header plus the data padded to 8 bytes. */
    size_t room = slot_size > batch_ent + 8 ? (slot_size - batch_ent) & ~(size_t)7 : 0;
    s->batch_max_op = min_size((size_t)arm_config.batch_max_op, room);
    s->copy_put_max = min_size((size_t)arm_config.copy_put_max, slot_size);
    s->batch_stream_op = min_size(s->copy_put_max > s->batch_max_op ? s->copy_put_max
                                                                     : s->batch_max_op, room);
    s->strided_rma_min = (size_t)arm_config.strided_rma_min;
    s->seg_stream_max = min_size(min_size((size_t)arm_config.seg_stream_max,
                                          (size_t)arm_config.eager_write_max),
                                 (size_t)arm_config.reply_eager_max);
    s->agent = arm_config.nb_agent != 0;
    s->agent_min = (size_t)arm_config.nb_agent_min;
    s->acc_mode = (int)arm_config.acc_proto;
    s->acc_origin_min = (size_t)arm_config.acc_origin_min;
}

static int contig_via_rma(arm_path_family_t fam, size_t n, unsigned caps, int srv_dirty,
                          const arm_path_settings_t *s)
{
    if (caps & ARM_PATH_CAP_NO_DIRECT)
        return 0;
    if (s->rma_mode == ARM_PATH_FORCE_RMA)
        return 1;
    if (s->rma_mode == ARM_PATH_FORCE_SERVER)
        return 0;
    if (caps & ARM_PATH_CAP_RMA_NATIVE)
        return 1;
    /* A memcpy at any size; while server writes are outstanding, small ones
     * stay behind them on the server path rather than wait for them. */
    if (caps & ARM_PATH_CAP_MAPPED)
        return !srv_dirty || n >= s->zcopy_min;
    int get = fam == ARM_FAM_GET;
    if (get && !srv_dirty && n <= s->clean_get_max)
        return 1;
    return (caps & ARM_PATH_CAP_RMA_ZCOPY) &&
           (n >= s->zcopy_min || (!srv_dirty && (get || n > s->batch_max_op)));
}

static arm_path_t path(arm_proto_t p, unsigned flags)
{
    arm_path_t r = { p, flags, 0 };
    return r;
}

/* Packed requests to a node reached directly over a stream carry up to
 * seg_stream_max bytes, eager (decision 072): there each request costs a
 * wake-up and a system call at both ends, and four slot-size requests in
 * flight keep 64 KiB on the wire. Forwarded requests stay within a slot
 * (a forwarded message holds whole requests). */
static arm_path_t seg_path(unsigned caps, const arm_path_settings_t *s)
{
    arm_path_t r = path(ARM_PROTO_SEG, 0);
    if ((caps & ARM_PATH_CAP_STREAM) && !(caps & ARM_PATH_CAP_RMA_NATIVE) &&
        !(caps & (ARM_PATH_CAP_FORWARDED | ARM_PATH_CAP_NO_DIRECT)) &&
        s->seg_stream_max > s->slot_size)
        r.seg_max = s->seg_stream_max;
    return r;
}

/* Aggregated: up to batch_max_op, in batches of a slot. To a node reached
 * directly over a stream a batch holds up to seg_stream_max, and a
 * non-blocking put or accumulate that would be copied into a request of its
 * own (up to batch_stream_op) joins it too: one request where each copy
 * cost one (decision 073). A blocking one of that size still leaves at
 * once, so that a write followed by computation is acknowledged before the
 * fence (decision 058). */
static arm_path_t write_path(arm_path_family_t fam, size_t n, unsigned caps,
                             const arm_path_settings_t *s)
{
    arm_path_t seg = seg_path(caps, s);
    size_t bmax = seg.seg_max && (caps & ARM_PATH_CAP_NB) ? s->batch_stream_op
                                                           : s->batch_max_op;
    if (s->aggregate && n <= bmax) {
        arm_path_t b = path(ARM_PROTO_BATCH, 0);
        b.seg_max = seg.seg_max;
        return b;
    }
    if (fam == ARM_FAM_PUT) {
        if (n <= s->copy_put_max)
            return path(ARM_PROTO_COPY, 0);
        if (n > s->slot_size && (caps & ARM_PATH_CAP_FORWARDED))
            return path(ARM_PROTO_SEG, 0);
        return path(ARM_PROTO_WHOLE, n <= s->slot_size ? 0
                    : n <= s->eager_write_max ? ARM_PATH_AM_EAGER : ARM_PATH_AM_RNDV);
    }
    if (n <= s->slot_size)
        return path(ARM_PROTO_COPY, 0);
    if (caps & ARM_PATH_CAP_FORWARDED)
        return path(ARM_PROTO_SEG, 0);
    if (n <= s->eager_write_max && (caps & ARM_PATH_CAP_STREAM) &&
        !(caps & ARM_PATH_CAP_RMA_NATIVE))
        return path(ARM_PROTO_WHOLE, ARM_PATH_AM_EAGER);
    return seg_path(caps, s);
}

arm_path_t arm_path_choose(arm_path_family_t fam, size_t n, unsigned caps, int srv_dirty,
                           const arm_path_settings_t *s)
{
    switch (fam) {
    case ARM_FAM_PUT:
        if (contig_via_rma(fam, n, caps, srv_dirty, s))
            return path(ARM_PROTO_RMA, 0);
        return write_path(fam, n, caps, s);
    case ARM_FAM_GET:
        return path(contig_via_rma(fam, n, caps, srv_dirty, s) ? ARM_PROTO_RMA
                                                                : ARM_PROTO_SERVER, 0);
    case ARM_FAM_ACC:
        if (!(caps & ARM_PATH_CAP_FORWARDED) && s->acc_mode != ARM_ACC_SERVER &&
            (s->acc_mode == ARM_ACC_ORIGIN ||
             (s->acc_origin_min && n >= s->acc_origin_min &&
              (caps & (ARM_PATH_CAP_RMA_NATIVE | ARM_PATH_CAP_RMA_ZCOPY)))))
            return path(ARM_PROTO_ORIGIN, 0);
        return write_path(fam, n, caps, s);
    case ARM_FAM_RMW:
        if (caps & ARM_PATH_CAP_ALLOC_AMO)
            return path(ARM_PROTO_RMA, 0);
        if (caps & ARM_PATH_CAP_NO_DIRECT)
            return path(ARM_PROTO_SERVER, 0);
        if (s->amo_mode == ARM_PATH_FORCE_RMA ||
            (s->amo_mode == ARM_PATH_AUTO && !srv_dirty && !(caps & ARM_PATH_CAP_AMO_NATIVE) &&
             !(caps & ARM_PATH_CAP_FORWARDED)))
            return path(ARM_PROTO_RMA, 0);
        return path(ARM_PROTO_SERVER, 0);
    case ARM_FAM_STRIDED:
    case ARM_FAM_VECTOR:
        return path(ARM_PROTO_SEG, 0);
    case ARM_FAM_LOCK:
    case ARM_FAM_FENCE:
    case ARM_FAM_COUNT:
        break;
    }
    return path(ARM_PROTO_SERVER, 0);
}

/* Chunks go by RMA from strided_rma_min bytes a chunk where the transport
 * does RMA natively, or when RMA is forced. Where it only emulates RMA with
 * a zero-copy copy (cma: one system call per chunk), puts take it and gets
 * do not: measured on 2 virtual nodes (decision 057), cma chunks of 8 KiB
 * to 256 KiB put at 2.6-3.9 GB/s against 1.7-2.0 packed through the
 * server, while packed gets reach 7.7-8.1 GB/s against 3.1-3.9. Smaller
 * chunks are cheaper packed into a few requests. To a mapped node (decision
 * 068) both directions are a memcpy and take RMA, or, when no server write
 * is outstanding there, one local copy of every row (decision 079). One
 * chunk is a contiguous transfer and takes the contiguous rule. */
arm_path_t arm_path_choose_chunks(arm_path_family_t fam, int put, int acc, size_t chunk,
                                  size_t count, unsigned caps, int srv_dirty,
                                  const arm_path_settings_t *s)
{
    arm_path_t seg = seg_path(caps, s), rma = path(ARM_PROTO_RMA, 0);
    (void)fam;
    if (acc || (caps & ARM_PATH_CAP_NO_DIRECT))
        return seg;
    /* To a mapped node with no server write of this process outstanding,
     * rows of every size are copied here (decision 079); with one
     * outstanding, the rules below keep small rows behind it. */
    if ((caps & ARM_PATH_CAP_MAPPED) && s->rma_mode == ARM_PATH_AUTO && !srv_dirty)
        return path(ARM_PROTO_MAPPED, 0);
    if (count <= 1)
        return contig_via_rma(put ? ARM_FAM_PUT : ARM_FAM_GET, chunk, caps, srv_dirty, s)
               ? rma : seg;
    if (s->rma_mode == ARM_PATH_FORCE_SERVER || chunk < s->strided_rma_min)
        return seg;
    if (s->rma_mode == ARM_PATH_FORCE_RMA ||
        (caps & (ARM_PATH_CAP_RMA_NATIVE | ARM_PATH_CAP_MAPPED)) ||
        (put && (caps & ARM_PATH_CAP_RMA_ZCOPY)))
        return rma;
    return seg;
}

/* A transfer from agent_min bytes on: below it, what the call does before
 * it returns (a copy into a request, or a get's request sent) costs less
 * than handing it over. Locks, fences and read-modify-write wait anyway. */
int arm_path_offload(arm_path_family_t fam, size_t n, const arm_path_settings_t *s)
{
    switch (fam) {
    case ARM_FAM_PUT:
    case ARM_FAM_GET:
    case ARM_FAM_ACC:
    case ARM_FAM_STRIDED:
    case ARM_FAM_VECTOR:
        return s->agent && n >= s->agent_min;
    default:
        return 0;
    }
}

const char *arm_proto_name(arm_proto_t p)
{
    static const char *const names[] = { "rma", "batch", "copy", "whole", "seg", "server",
                                         "origin", "mapped" };
    return (unsigned)p < sizeof names / sizeof names[0] ? names[p] : "?";
}
