/* Non-blocking calls: gets that complete as their replies arrive (decision
 * 011), and transfers the agent carries (remote_agent.c, decision 056). */
#define _POSIX_C_SOURCE 200809L
#include "arm_build_config.h"
#if ARMADA_HAVE_UCX
#include <stdlib.h>
#include <string.h>
#include "core/remote_int.h"

/* ---- non-blocking calls -----------------------------------------------------------
 * A call takes an entry only when something of it stays outstanding (a get,
 * an agent job), under the client's lock; until then, and for calls to this
 * node, it takes no lock at all. From then on the call keeps the lock until
 * it returns, as a blocking call does (a wait drops it), so that the agent
 * starts the call's jobs once the call has returned; and the entry stays
 * open, so that no other call takes it while it is briefly idle. A token
 * names one call's entry and its generation, so a handle waited on after its
 * entry was reused reads as complete (it was). */

int arm_rem_nb_index(void)
{
    if (arm_rem_nb_cur > 0)
        return arm_rem_nb_cur - 1;
    int i = arm_rc.nb_next, idle = 0, tried = 0;
    double since = 0.0;
    while (arm_rc.nb[i].live || arm_rc.nb[i].open) {
        /* Gets hold at most OP_POOL entries; agent jobs may hold the rest,
         * and the agent frees them. */
        i = (i + 1) % NB_MAX;
        if (++tried % NB_MAX == 0)
            arm_rem_wait_step(&idle, &since, 10);
    }
    arm_rc.nb_next = (i + 1) % NB_MAX;
    arm_rc.nb[i].gen++;
    arm_rc.nb[i].proc = -1;
    arm_rc.nb[i].jobs = 0;
    arm_rc.nb[i].open = 1;
    arm_rem_nb_cur = i + 1;
    arm_rem_enter();    /* held until arm_remote_nb_end, as the call's own */
    return i;
}

/* Hands op to the non-blocking call under way: it completes, and returns to
 * the pool, on its own. */
void arm_rem_nb_attach(const char *call, rop_t *op)
{
    int i = arm_rem_nb_index();
    op->nb = i;
    op->call = call;
    arm_rc.nb[i].live++;
    arm_rc.nb_live++;
    arm_rc.nb[i].proc = op->req.target;
    op->busy = 2;
    arm_rem_maybe_release(op);
}

void arm_remote_nb_begin(void)
{
    if (arm_rc.active)
        arm_rem_nb_cur = -1;
}

int arm_remote_nb_end(void)
{
    int i = arm_rem_nb_cur - 1;
    arm_rem_nb_cur = 0;
    if (!arm_rc.active || i < 0)
        return 0;
    arm_rc.nb[i].open = 0;
    int token = !arm_rc.nb[i].live ? 0 : 1 + i + NB_MAX * (int)(arm_rc.nb[i].gen & NB_GEN_MASK);
    arm_rem_leave();
    return token;
}

static int nb_entry(int token)
{
    int i = (token - 1) % NB_MAX;
    unsigned gen = (unsigned)(token - 1) / NB_MAX;
    return arm_rc.active && arm_rc.nb[i].live && (arm_rc.nb[i].gen & NB_GEN_MASK) == gen ? i : -1;
}

static int locked_nb_outstanding(void)
{
    return arm_rc.active ? arm_rc.nb_live : 0;
}

/* token 0: every outstanding get. */
static int locked_nb_test(int token)
{
    if (token ? nb_entry(token) >= 0 : locked_nb_outstanding() > 0)
        arm_net_progress(arm_rc.w);
    return token ? nb_entry(token) < 0 : locked_nb_outstanding() == 0;
}

/* Waits for entry i: its gets complete as this thread progresses the
 * worker; its agent jobs as the agent works, this thread asleep. */
static void wait_entry(const char *call, int i)
{
    arm_rem_deadline_t d = { 0, 0.0, 0.0 };
    while (arm_rc.nb[i].live > 0) {
        if (arm_rc.nb[i].live > arm_rc.nb[i].jobs)
            arm_rem_deadline_step(&d, call, arm_rc.nb[i].proc, 100);
        else
            arm_rem_agent_sleep();
    }
}

static void locked_nb_wait(const char *call, int token)
{
    int i = nb_entry(token);
    if (i >= 0)
        wait_entry(call, i);
}

/* Stops as soon as nothing is outstanding (decision 066): a WaitAll or
 * WaitProc with nothing in flight reads one counter, not the NB_MAX table. */
static void locked_nb_wait_proc(const char *call, int proc)
{
    if (!arm_rc.active)
        return;
    for (int i = 0; i < NB_MAX && arm_rc.nb_live > 0; i++)
        if (arm_rc.nb[i].live && (proc < 0 || arm_rc.nb[i].proc == proc))
            wait_entry(call, i);
}
int arm_remote_nb_test(int token)
{
    arm_rem_enter();
    int r = locked_nb_test(token);
    arm_rem_leave();
    return r;
}
void arm_remote_nb_wait(const char *call, int token)
{
    arm_rem_enter();
    locked_nb_wait(call, token);
    arm_rem_leave();
}
void arm_remote_nb_wait_proc(const char *call, int proc)
{
    arm_rem_enter();
    locked_nb_wait_proc(call, proc);
    arm_rem_leave();
}
int arm_remote_nb_outstanding(void)
{
    arm_rem_enter();
    int r = locked_nb_outstanding();
    arm_rem_leave();
    return r;
}
#endif /* ARMADA_HAVE_UCX */
