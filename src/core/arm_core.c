#define _GNU_SOURCE   /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "core/arm_core.h"
#include "core/arm_mpi.h"
#include "core/arm_remote.h"
#include "util/arm_config.h"
#include "util/arm_log.h"
#include "util/arm_timer.h"

arm_core_t arm_core = { .world = MPI_COMM_NULL, .node_comm = MPI_COMM_NULL,
                        .masters_comm = MPI_COMM_NULL };

_Noreturn void arm_core_abort(int code)
{
    arm_shm_guard_unlink_armed();   /* a segment in its naming window (decision 034) */
    int mpi_up = 0, mpi_down = 0;
    MPI_Initialized(&mpi_up);
    MPI_Finalized(&mpi_down);
    if (mpi_up && !mpi_down)
        MPI_Abort(MPI_COMM_WORLD, code ? code : 1);
    _exit(code ? code : 1);
}

static void abort_hook(int code)
{
    arm_core_abort(code);
}

/* A job id every rank agrees on: rank 0's pid and start time. It makes the
 * names of shared segments unique to this job. */
static unsigned long long make_job_id(MPI_Comm comm)
{
    unsigned long long job = 0;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    job = ((unsigned long long)getpid() << 24) ^ (unsigned long long)ts.tv_nsec ^
          ((unsigned long long)ts.tv_sec << 40);
    arm_mpi_bcast(&job, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    return job;
}

/* Whether MPI yields the CPU in its progress loop when it finds nothing to
 * do (decision 092). Open MPI keeps the answer in a one-byte flag that its
 * progress engine reads, set in MPI_Init from mpi_yield_when_idle (which
 * mpirun turns on for an oversubscribed host); the flag is looked up among
 * the symbols already loaded, so nothing new is mapped (decision 097: the
 * MPI tool interface this used to go through opened every component of
 * Open MPI, 200 ms). Without the symbols (another MPI, or a libmpi loaded
 * privately) the launcher's OMPI_MCA_mpi_yield_when_idle decides; 0 when
 * neither says. *known says whether either said. */
static int mpi_yields_when_idle(int *known)
{
    static const char *const flags[] = { "opal_progress_yield_when_idle",
                                         "ompi_mpi_yield_when_idle" };
    *known = 1;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        const volatile unsigned char *flag = dlsym(RTLD_DEFAULT, flags[i]);
        if (flag)
            return *flag != 0;
    }
    const char *env = getenv("OMPI_MCA_mpi_yield_when_idle");
    *known = env != NULL;
    return env && (strcmp(env, "1") == 0 || strcasecmp(env, "true") == 0 ||
                   strcasecmp(env, "yes") == 0);
}

/* An internal allocation of size bytes on every process, collective over
 * the world. *bases: every rank's block address (the caller frees it). */
static arm_status_t world_blocks(arm_core_t *c, size_t size, arm_alloc_t **alloc,
                                 void ***bases)
{
    *bases = malloc((size_t)c->nproc * sizeof **bases);
    int *members = malloc((size_t)c->nproc * sizeof *members);
    arm_status_t st = ARM_ERR_NO_MEMORY;
    if (*bases && members) {
        for (int r = 0; r < c->nproc; r++)
            members[r] = r;
        st = arm_reg_malloc(c->world, c->nproc, members, size, 1, *bases, alloc);
    }
    free(members);
    if (st != ARM_OK) {
        free(*bases);
        *bases = NULL;
    }
    return st;
}

/* Rank r's block of a world_blocks allocation in this process, NULL when r
 * is on another node. */
static void *world_block_local(int r, void *base, size_t size)
{
    return arm_same_node(r) ? arm_reg_lookup(r, (uintptr_t)base, size)->local : NULL;
}

/* The control blocks. On one node, where no server needs to reach them,
 * the collective-call words ride in the same allocation, after each block:
 * one allocation over the world at start instead of two (decision 098). */
static arm_status_t ctl_init(arm_core_t *c)
{
    void **bases;
    int with_words = c->nnodes == 1;
    size_t size = sizeof(arm_ctl_block_t) + (with_words ? sizeof(arm_coll_block_t) : 0);
    c->ctl = calloc((size_t)c->nproc, sizeof *c->ctl);
    c->coll = with_words ? calloc((size_t)c->nproc, sizeof *c->coll) : NULL;
    arm_status_t st = c->ctl && (c->coll || !with_words)
                          ? world_blocks(c, size, &c->ctl_alloc, &bases)
                          : ARM_ERR_NO_MEMORY;
    if (st != ARM_OK)
        return st;
    for (int r = 0; r < c->nproc; r++) {
        c->ctl[r] = world_block_local(r, bases[r], size);
        if (with_words)
            c->coll[r] = (arm_coll_block_t *)(void *)(c->ctl[r] + 1);
    }
    free(bases);
    return ARM_OK;
}

/* The collective-call words (decision 091): made once the inter-node path
 * is up, so that a leader waiting in the barrier can read the word of a
 * process of another node from that node's server. */
static arm_status_t coll_init(arm_core_t *c)
{
    void **bases;
    if (c->coll)
        return ARM_OK;   /* one node: made with the control blocks */
    c->coll = calloc((size_t)c->nproc, sizeof *c->coll);
    arm_status_t st = c->coll
        ? world_blocks(c, sizeof(arm_coll_block_t), &c->coll_alloc, &bases)
        : ARM_ERR_NO_MEMORY;
    if (st != ARM_OK)
        return st;
    for (int r = 0; r < c->nproc; r++)
        c->coll[r] = world_block_local(r, bases[r], sizeof(arm_coll_block_t));
    if (c->nnodes > 1 && (c->coll_addr = malloc((size_t)c->nproc * sizeof *c->coll_addr)))
        for (int r = 0; r < c->nproc; r++)
            c->coll_addr[r] = (uintptr_t)bases[r];
    free(bases);
    /* Without the addresses the barrier only looks at its own node. */
    return ARM_OK;
}

/* The process's CPU time, seconds. */
static double process_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* Ends the start-up step that began at *wall and *cpu, under name. */
static void start_step(arm_core_t *c, const char *name, double *wall, double *cpu)
{
    double w = arm_time_now(), u = process_cpu();
    if (c->nstart < ARM_START_STEPS)
        c->start[c->nstart++] = (arm_start_step_t){ name, 1e6 * (w - *wall), 1e6 * (u - *cpu) };
    *wall = w;
    *cpu = u;
}

arm_status_t arm_core_init(MPI_Comm comm, const char *call)
{
    arm_core_t *c = &arm_core;
    char err[256];
    int unknown = 0;
    double wall = arm_time_now(), cpu = process_cpu();
    c->nstart = 0;

    MPI_Comm_rank(comm, &c->me);
    MPI_Comm_size(comm, &c->nproc);
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    c->threads = level == MPI_THREAD_MULTIPLE;
    int yield_known;
    c->mpi_yields = mpi_yields_when_idle(&yield_known);
    arm_log_set_rank(c->me);
    arm_log_set_abort_hook(abort_hook);
    if (arm_config_load(c->me == 0, &unknown, err, sizeof err) != ARM_OK)
        arm_fatal(call, "%s", err);
    arm_log_set_level((arm_log_level_t)arm_config.log_level);
    if (arm_config.ppn < 0)
        arm_fatal(call, "setting ARMADA_PPN=%ld must be 0 or positive", arm_config.ppn);
    if (arm_config.server_slots < 1 || arm_config.server_slots > 4096)
        arm_fatal(call, "setting ARMADA_SERVER_SLOTS=%ld must be 1..4096",
                  arm_config.server_slots);
    if (arm_config.slot_size < 1024 || arm_config.slot_size > (1L << 30))
        arm_fatal(call, "setting ARMADA_SLOT_SIZE=%ld must be 1k..1g", arm_config.slot_size);
    /* Settings of type INT with a lower bound (-1 means "never" for the
     * last three); each named with its value when it is below it. */
    const struct { const char *name; long value, min; } lower[] = {
        { "POLL_SPINS", arm_config.poll_spins, 0 },
        { "PIPELINE_DEPTH", arm_config.pipeline_depth, 1 },
        { "PEER_TIMEOUT", arm_config.peer_timeout, 1 },
        { "YIELD_US", arm_config.yield_us, 0 },
        { "BARRIER_YIELD_US", arm_config.barrier_yield_us, -1 },
        { "SERVER_COMP_DELAY_US", arm_config.server_comp_delay_us, 0 },
        { "BATCH_IDLE_US", arm_config.batch_idle_us, -1 },
        { "FENCE_ACK_US", arm_config.fence_ack_us, -1 },
    };
    for (size_t i = 0; i < sizeof lower / sizeof lower[0]; i++)
        if (lower[i].value < lower[i].min)
            arm_fatal(call, "setting ARMADA_%s=%ld must be at least %ld", lower[i].name,
                      lower[i].value, lower[i].min);

    /* The settings are known: the collectives of the start wait as the
     * barrier does (decision 098). */
    start_step(c, "settings", &wall, &cpu);
    arm_mpi_comm_dup(comm, &c->world);
    start_step(c, "world", &wall, &cpu);
    arm_status_t st = arm_procmap_init(c, arm_config.ppn);
    if (st != ARM_OK)
        return st;
    start_step(c, "nodes", &wall, &cpu);
    /* mpirun turns Open MPI's yielding on when it places more processes on
     * a host than it has cores; a launcher that starts the processes itself
     * (srun) leaves it off, and every MPI call then spins: GA at 16
     * processes on 2 cores ran 5 to 10 times slower (decision 101). */
    if (c->me == 0 && yield_known && !c->mpi_yields && c->host_size > c->host_cores)
        ARM_WARN("init",
                 "%d processes share %d cores on this host, and MPI does not yield the "
                 "CPU when idle (mpirun sets that when it oversubscribes, srun does not): "
                 "export OMPI_MCA_mpi_yield_when_idle=1",
                 c->host_size, c->host_cores);
    c->index = calloc((size_t)c->nproc, sizeof *c->index);
    if (!c->index)
        return ARM_ERR_NO_MEMORY;
    c->job = make_job_id(c->world);
    c->next_alloc_id = 1;
    st = ctl_init(c);
    if (st != ARM_OK)
        return st;
    start_step(c, "control", &wall, &cpu);
    st = arm_remote_init(c);
    if (st != ARM_OK)
        return st;
    start_step(c, "network", &wall, &cpu);
    st = coll_init(c);
    if (st != ARM_OK)
        return st;
    start_step(c, "words", &wall, &cpu);
    c->initialized = 1;
    arm_mpi_barrier(c->world);
    start_step(c, "barrier", &wall, &cpu);
    return ARM_OK;
}

_Thread_local int arm_stat_shard;
static atomic_int stat_shards_given;

int arm_stat_shard_take(void)
{
    int s = atomic_fetch_add_explicit(&stat_shards_given, 1, memory_order_relaxed) %
            ARM_STAT_SHARDS;
    arm_stat_shard = s + 1;
    return s;
}

void arm_core_stats(armada_stats_t *out)
{
    *out = arm_core.stats;
    for (int o = 0; o < ARMADA_OP_COUNT; o++)
        for (int p = 0; p < ARMADA_PATH_COUNT; p++) {
            uint64_t ops = 0, bytes = 0;
            for (int k = 0; k < ARM_STAT_SHARDS; k++) {
                const arm_opstats_t *st = &arm_core.opstats[k];
                ops += atomic_load_explicit(&st->ops[o][p], memory_order_relaxed);
                bytes += atomic_load_explicit(&st->bytes[o][p], memory_order_relaxed);
            }
            out->ops[o][p] = ops;
            out->bytes[o][p] = bytes;
        }
    out->shm_bytes_mapped = arm_core.shm_bytes;
    arm_remote_conn_stats(out);
    for (int k = 0; k < ARM_STAT_SHARDS; k++)
        out->mapped_copies += atomic_load_explicit(&arm_core.opstats[k].mapped,
                                                   memory_order_relaxed);
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
        out->process_cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void arm_core_stats_reset(void)
{
    for (int k = 0; k < ARM_STAT_SHARDS; k++)
        for (int o = 0; o < ARMADA_OP_COUNT; o++)
            for (int p = 0; p < ARMADA_PATH_COUNT; p++) {
                atomic_store_explicit(&arm_core.opstats[k].ops[o][p], 0, memory_order_relaxed);
                atomic_store_explicit(&arm_core.opstats[k].bytes[o][p], 0,
                                      memory_order_relaxed);
            }
}

static void print_stats(arm_core_t *c)
{
    arm_core_stats(&c->stats);
    static const char *ops[ARMADA_OP_COUNT] = { "put", "get", "acc", "puts", "gets", "accs",
                                                "putv", "getv", "accv", "rmw", "lock",
                                                "fence" };
    static const char *paths[ARMADA_PATH_COUNT] = { "shm", "rma", "server" };
    char line[2048];
    int n = snprintf(line, sizeof line, "armada[rank %d] stats:", c->me);
    for (int o = 0; o < ARMADA_OP_COUNT; o++)
        for (int p = 0; p < ARMADA_PATH_COUNT; p++)
            if (c->stats.ops[o][p] && n < (int)sizeof line)
                n += snprintf(line + n, sizeof line - (size_t)n, " %s/%s=%llu(%lluB)", ops[o],
                              paths[p], (unsigned long long)c->stats.ops[o][p],
                              (unsigned long long)c->stats.bytes[o][p]);
    if (n < (int)sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n,
                      " shm_mapped=%lluB server_buffers=%lluB server_requests=%llu endpoints=%llu",
                      (unsigned long long)c->shm_bytes,
                      (unsigned long long)c->stats.server_buffer_bytes,
                      (unsigned long long)c->stats.server_requests,
                      (unsigned long long)c->stats.endpoints);
    const armada_stats_t *t = &c->stats;
    if (n < (int)sizeof line && c->nnodes > 1)
        n += snprintf(line + n, sizeof line - (size_t)n,
                      " eps_c2s=%llu eps_s2c=%llu eps_s2s=%llu connect_us=%.1f relayed=%llu"
                      " cpu_ms=%.1f server_cpu_ms=%.1f agent_jobs=%llu credit_replies=%llu packed=%llu"
                      " swept=%llu fence_reads=%llu",
                      (unsigned long long)t->eps_client_to_server,
                      (unsigned long long)t->eps_server_to_client,
                      (unsigned long long)t->eps_server_to_server, 1e-3 * (double)t->connect_ns,
                      (unsigned long long)t->server_relayed, 1e-6 * (double)t->process_cpu_ns,
                      1e-6 * (double)t->server_cpu_ns, (unsigned long long)t->agent_jobs,
                      (unsigned long long)t->credit_replies,
                      (unsigned long long)t->server_packed_replies,
                      (unsigned long long)t->batches_swept,
                      (unsigned long long)t->fence_reads);
    if (n < (int)sizeof line && t->server_clients)
        snprintf(line + n, sizeof line - (size_t)n,
                 " server_clients=%llu edges_in=%llu edges_out=%llu fwd_requests=%llu "
                 "fwd_messages=%llu fwd_combined=%llu fwd_in_requests=%llu fwd_in_messages=%llu "
                 "fwd_in_early=%llu split_sent=%llu split_replies=%llu fwd_acks=%llu",
                 (unsigned long long)t->server_clients, (unsigned long long)t->server_edges_in,
                 (unsigned long long)t->server_edges_out,
                 (unsigned long long)t->server_fwd_requests,
                 (unsigned long long)t->server_fwd_messages,
                 (unsigned long long)t->server_fwd_combined,
                 (unsigned long long)t->server_fwd_in_requests,
                 (unsigned long long)t->server_fwd_in_messages,
                 (unsigned long long)t->server_fwd_in_early,
                 (unsigned long long)t->server_split_sent,
                 (unsigned long long)t->server_split_replies,
                 (unsigned long long)t->server_fwd_acks);
    fprintf(stderr, "%s\n", line);
}

arm_status_t arm_core_finalize(void)
{
    arm_core_t *c = &arm_core;
    /* Gets still in flight complete while every server still serves. */
    arm_remote_nb_wait_proc("ARMCI_Finalize", -1);
    arm_remote_fence_all();
    MPI_Barrier(c->world);
    free(c->coll_addr);       /* no more gets of other nodes' words */
    c->coll_addr = NULL;
    arm_remote_finalize(c);   /* stops the server: its counters are final */
    if (arm_config.stats)
        print_stats(c);
    c->mutex_alloc = NULL;
    free(c->mutex_count);
    free(c->mutex_base);
    c->mutex_count = NULL;
    c->mutex_base = NULL;
    c->ctl_alloc = NULL;
    free(c->ctl);
    c->ctl = NULL;
    c->coll_alloc = NULL;
    free(c->coll);
    c->coll = NULL;
    arm_reg_release_all();
    for (int r = 0; r < c->nproc; r++)
        free(c->index[r].slices);
    free(c->index);
    c->index = NULL;
    arm_procmap_fini(c);
    MPI_Comm_free(&c->world);
    c->initialized = 0;
    return ARM_OK;
}
