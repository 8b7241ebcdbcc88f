/* The inter-node path before the transport exists: every operation on a
 * process of another node stops the program with a clear message. */
#include "arm_build_config.h"
#if !ARMADA_HAVE_UCX
#include <string.h>
#include "core/arm_remote.h"
#include "util/arm_log.h"

static _Noreturn void unsupported(const char *call, int proc)
{
    arm_fatal(call, "rank %d is on node %d and this rank on node %d: operations between "
              "nodes are not supported yet (run with nodes that hold every process, "
              "e.g. ARMADA_PPN=0)", proc, arm_core.node_of[proc], arm_core.my_node);
}

arm_status_t arm_remote_init(arm_core_t *c) { (void)c; return ARM_OK; }
arm_status_t arm_remote_seg_register(arm_alloc_t *a, const char *name, size_t len)
{ return ARM_OK; }
void arm_remote_alloc_card(const arm_alloc_t *a, arm_remote_card_t *card)
{ (void)a; memset(card, 0, sizeof *card); }
arm_status_t arm_remote_alloc_publish(arm_alloc_t *a, const arm_remote_card_t *cards,
                                      size_t stride, const uint64_t **node_base)
{ (void)a; (void)cards; (void)stride; *node_base = NULL; return ARM_OK; }
void arm_remote_alloc_release(arm_alloc_t *a) { (void)a; }
void arm_remote_finalize(arm_core_t *c) { (void)c; }
void arm_remote_conn_stats(armada_stats_t *s) { (void)s; }

void arm_remote_put(const char *call, const void *src, const arm_slice_t *s, uintptr_t dst,
                    size_t n, int proc)
{ unsupported(call, proc); }
void arm_remote_get(const char *call, const arm_slice_t *s, uintptr_t src, void *dst,
                    size_t n, int proc)
{ unsupported(call, proc); }
void arm_remote_acc(const char *call, int type, const void *scale, const void *src,
                    const arm_slice_t *s, uintptr_t dst, size_t n, int proc)
{ unsupported(call, proc); }
void arm_remote_strided(const char *call, int op, int type, const void *scale,
                        void *src, const int *src_stride, void *dst, const int *dst_stride,
                        const int *count, int levels, int proc)
{ unsupported(call, proc); }
void arm_remote_vector(const char *call, int op, int type, const void *scale,
                       const void *const *src, void *const *dst, int n, size_t bytes,
                       int proc)
{ unsupported(call, proc); }
long arm_remote_rmw(const char *call, int op, const arm_slice_t *s, uintptr_t addr,
                    long value, long compare, int proc)
{ unsupported(call, proc); }
int arm_remote_amo_alloc(void) { return 0; }
void arm_remote_amo_acc(const char *call, int op, int type, const void *scale,
                        const void *src, const arm_slice_t *s, uintptr_t dst, size_t n,
                        int proc)
{ unsupported(call, proc); }
void arm_remote_lock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc)
{ unsupported(call, proc); }
int arm_remote_trylock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc)
{ unsupported(call, proc); }
void arm_remote_unlock(const char *call, const arm_slice_t *s, uintptr_t addr, int proc)
{ unsupported(call, proc); }
void arm_remote_flush(void) {}
void arm_remote_fence(int proc) { (void)proc; }
void arm_remote_fence_all(void) {}
void arm_remote_nb_begin(void) {}
int arm_remote_nb_end(void) { return 0; }
int arm_remote_nb_test(int token) { (void)token; return 1; }
void arm_remote_nb_wait(const char *call, int token) { (void)call; (void)token; }
void arm_remote_nb_wait_proc(const char *call, int proc) { (void)call; (void)proc; }
int arm_remote_nb_outstanding(void) { return 0; }

#include "core/arm_remote_info.h"
void arm_remote_print_info(FILE *out)
{
    fprintf(out, "inter-node path: not built (operations between nodes stop with an error)\n");
}
#endif /* !ARMADA_HAVE_UCX */
