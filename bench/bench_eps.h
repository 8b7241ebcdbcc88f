/* Armada's endpoint counters as RESULT lines (armada-bench-connect and
 * armada-bench-clique); the ARMCI-MPI build of the same source reports
 * that it has none. */
#ifndef BENCH_EPS_H
#define BENCH_EPS_H

#include "bench_common.h"
#ifdef BENCH_ARMADA
#include "armada.h"
#endif

static void bench_report_eps(const bench_opts_t *o, const char *extra)
{
#ifdef BENCH_ARMADA
    armada_stats_t st;
    if (armada_stats_get(&st) != 0)
        ARMCI_Error("bench: armada_stats_get failed", 1);
    bench_report_spread(o, "eps_c2s", "count", (double)st.eps_client_to_server, extra);
    bench_report_spread(o, "eps_s2c", "count", (double)st.eps_server_to_client, extra);
    bench_report_spread(o, "connect_us", "us", 1e-3 * (double)st.connect_ns, extra);
#else
    (void)extra;
    if (o->rank == 0)
        bench_skip(o, "eps", "no_endpoint_counters");
#endif
}

#endif
