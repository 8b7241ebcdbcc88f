#!/usr/bin/env python3
"""Suite "overheads" (issue 25, decisions 065/066): run, table and plot.

Usage: plot_overheads.py [--build build] [--out DIR] [--np-list 2,4,8,16]
                         [--quick] [--from DIR]

Runs, on one node (np 2) and on virtual nodes (ARMADA_PPN=1, np 2; the MPI
programs with --mca osc ucx; Armada's stack and nb groups also with
ARMADA_RMA_PATH=rma, config vnode-rma; stack and nb of every program over
UCX_TLS=tcp,self, config vnode-tcp: on one host UCX gives osc ucx its
shared-memory transports under plain vnode), armada-bench-overheads, armcimpi-bench-
overheads, armada-nochk-bench-overheads (argument checks compiled out) and
ref-overheads-mpi (rows mpi-rma and mpi-p2p; its checks group again with
OMPI_MCA_mpi_param_check=0), then the groups that grow with the job
(server, sparse) at every process count of --np-list as as many virtual
nodes. Writes DIR/results.csv, DIR/raw/*.txt, DIR/tables.md (one table per
cost, Armada beside MPI, with the issue's targets and verdicts) and one PNG
per cost. --from DIR re-reads DIR/raw instead of running.
"""
import argparse
import csv
import datetime
import glob
import os
import re
import subprocess
import sys

MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "--mca", "btl", "self,vader", "--mca", "mpi_yield_when_idle", "1"]
LINE = re.compile(r"^RESULT (.*)$")
PROGS = {"armada": "armada-bench-overheads", "armcimpi": "armcimpi-bench-overheads",
         "armada-nochk": "armada-nochk-bench-overheads", "mpi": "ref-overheads-mpi"}
# cost -> (title, ops, x label); the ops of each figure
COSTS = [
    ("stack", "Stack overhead over the transport (8 B)",
     ["stack_put", "stack_get", "stack_put_floor", "stack_get_floor", "stack_put_over",
      "stack_get_over"], None),
    ("handles", "Request handles (8 B)",
     ["nb_put_blocking", "nb_put_handle", "nb_get_blocking", "nb_get_handle",
      "nb_p2p_blocking", "nb_p2p_handle"], None),
    ("wait", "Waiting on one among many",
     ["wait_one", "waitany", "waitall", "allfence_ops"], "operations outstanding k"),
    ("targets", "AllFence / flush_all against targets touched",
     ["allfence_targets"], "targets touched"),
    ("server", "Serving one request among many clients / posted-receive queue",
     ["server_get", "server_per_req", "server_cpu_req", "queue_match"],
     "other clients k / posted receives d"),
    ("held", "Serving one request while k lock requests wait at the server",
     ["server_held"], "lock requests held k"),
    ("noncontig", "Non-contiguous 8 KiB against contiguous",
     ["nc_put_contig", "nc_get_contig", "nc_puts", "nc_gets", "nc_send_contig",
      "nc_send_vector"], "row bytes"),
    ("align", "Accumulate of 1 KiB at a byte offset",
     ["acc_int_off", "acc_dbl_off"], "byte offset"),
    ("checks", "Argument checks in and out", ["chk_put", "chk_acc", "chk_puts", "chk_fadd"],
     None),
    ("sparse", "Touched 1 of N targets", ["sparse_fence", "sparse_allfence", "sparse_barrier",
                                           "sparse_dgop"], "processes = virtual nodes"),
]

SWEEPS = ("server_get", "server_per_req", "server_cpu_req", "server_held", "queue_match")


def run(cmd, env, timeout):
    e = dict(os.environ)
    e.update(env)
    try:
        p = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, universal_newlines=True)
        return p.stdout
    except subprocess.TimeoutExpired as ex:
        return (ex.stdout or "") + "\nTIMEOUT\n"


def launch(a, impl, np, config, args, extra_env=None):
    prog = os.path.join(a.build, "bench", PROGS[impl])
    if not os.path.exists(prog):
        return ""
    opts, env = list(MPIRUN), dict(extra_env or {})
    if config in ("vnode", "vnode-tcp"):
        if impl in ("armcimpi", "mpi"):
            opts += ["--mca", "osc", "ucx"]
        env["ARMADA_PPN"] = "1"
    if config == "vnode-tcp":
        env["UCX_TLS"] = "tcp,self"
    for k, v in env.items():
        opts += ["-x", "%s=%s" % (k, v)]
    cmd = ["timeout", str(a.timeout)] + opts + ["-np", str(np), prog] + args
    print("  " + " ".join(cmd[2:]), flush=True)
    return run(cmd, env, a.timeout + 10)


def collect_runs(a):
    raw = os.path.join(a.out, "raw")
    os.makedirs(raw, exist_ok=True)
    base = ["-r", "3" if a.quick else "5", "-n", "300" if a.quick else "2000",
            "-K", "256" if a.quick else "1024", "-S", "100" if a.quick else "300"]
    fixed = "stack,nb,wait,noncontig,align,checks"
    for config in ("node", "vnode"):
        for impl in PROGS:
            out = launch(a, impl, 2, config, base + ["-o", fixed])
            open(os.path.join(raw, "%s_%s_np2.txt" % (config, impl)), "w").write(out)
        out = launch(a, "mpi", 2, config, base + ["-o", "checks"],
                     {"OMPI_MCA_mpi_param_check": "0"})
        open(os.path.join(raw, "%s_mpi-nochk_np2.txt" % config), "w").write(out)
    # Over TCP every program crosses the same kernel path: on one host UCX
    # gives osc ucx its shared-memory transports under plain vnode.
    for impl in PROGS:
        out = launch(a, impl, 2, "vnode-tcp", base + ["-o", "stack,nb"])
        open(os.path.join(raw, "vnode-tcp_%s_np2.txt" % impl), "w").write(out)
    # Armada forced onto direct RMA across nodes (ARMADA_RMA_PATH=rma): the
    # software over UCP itself, where auto would take the server.
    for impl in ("armada", "armada-nochk"):
        out = launch(a, impl, 2, "vnode", base + ["-o", "stack,nb"], {"ARMADA_RMA_PATH": "rma"})
        open(os.path.join(raw, "vnode-rma_%s_np2.txt" % impl), "w").write(out)
    for np in a.np_list:
        for impl in ("armada", "armcimpi", "mpi"):
            out = launch(a, impl, np, "vnode", base + ["-o", "server,held,sparse"])
            # its own name: at np 2 the fixed groups' file has vnode_IMPL_np2
            open(os.path.join(raw, "vnode_%s_sweep_np%d.txt" % (impl, np)), "w").write(out)


def parse_raw(a):
    rows = []
    for path in sorted(glob.glob(os.path.join(a.out, "raw", "*.txt"))):
        config = os.path.basename(path).split("_")[0]
        for line in open(path):
            m = LINE.match(line.strip())
            if not m:
                continue
            kv = dict(t.split("=", 1) for t in m.group(1).split() if "=" in t)
            if kv.get("suite") != "overheads":
                continue
            rows.append({"config": config, "impl": kv["impl"], "op": kv["op"],
                         "size": int(kv["size"]), "nproc": int(kv["nproc"]),
                         "value": float(kv["value"]), "unit": kv["unit"],
                         "path": kv.get("path", "")})
    # A server or queue sweep runs at every process count: keep the largest.
    top = {}
    for r in rows:
        if r["op"] in SWEEPS:
            k = (r["config"], r["impl"], r["op"])
            top[k] = max(top.get(k, 0), r["nproc"])
    return [r for r in rows if r["op"] not in SWEEPS
            or r["nproc"] == top[(r["config"], r["impl"], r["op"])]]


def fmt(v):
    if v is None:
        return "-"
    return "%.0f" % v if abs(v) >= 100 else "%.3g" % v


def find(rows, config, impl, op, size=None, unit="ns"):
    for r in rows:
        if (r["config"] == config and r["impl"] == impl and r["op"] == op
                and r["unit"] == unit and (size is None or r["size"] == size)):
            return r["value"]
    return None


def cost_table(rows, cost, ops):
    impls = sorted({r["impl"] for r in rows if r["op"] in ops and r["unit"] == "ns"},
                   key=lambda i: (not i.startswith("armada"), i))
    keys = sorted({(r["config"], r["op"], r["size"]) for r in rows
                   if r["op"] in ops and r["unit"] == "ns"},
                  key=lambda k: (k[0], ops.index(k[1]), k[2]))
    out = ["| config | op | size | " + " | ".join(impls) + " |",
           "| --- | --- | --- |" + " --- |" * len(impls)]
    for c, op, size in keys:
        vals = [fmt(find(rows, c, i, op, size)) for i in impls]
        out.append("| %s | %s | %d | %s |" % (c, op, size, " | ".join(vals)))
    return "\n".join(out) + "\n"


def growth(rows, config, impl, op):
    pts = sorted((r["size"], r["value"]) for r in rows if r["config"] == config
                 and r["impl"] == impl and r["op"] == op and r["unit"] == "ns")
    if len(pts) < 2 or pts[0][1] <= 0:
        return None
    return pts[0][0], pts[-1][0], pts[-1][1] / pts[0][1] - 1.0


def targets(rows):
    out = ["| target | figure | value | bound | verdict |", "| --- | --- | --- | --- | --- |"]
    for config, bound in (("node", 50.0), ("vnode", 300.0), ("vnode-rma", 300.0),
                          ("vnode-tcp", 300.0)):
        for op in ("stack_put_over", "stack_get_over"):
            a = find(rows, config, "armada", op)
            m = find(rows, config, "mpi-rma", op)
            if a is not None:
                out.append("| %s overhead <= %.0f ns | %s | %s | %.0f | %s |" % (
                    config, bound, op, fmt(a), bound, "met" if a <= bound else "missed"))
            if a is not None and m is not None:
                out.append("| %s overhead <= 1/2 MPI RMA | %s | %s vs %s | 0.5x | %s |" % (
                    config, op, fmt(a), fmt(m), "met" if a <= 0.5 * m else "missed"))
    # server_get is the wait behind the other clients' 8k queued gets (it
    # grows with k by construction, decision 100); server_per_req (the
    # server's time per get, waits for a core included), server_cpu_req
    # (its thread's processor time per get) and server_held (lock requests
    # waiting there) are what one request costs.
    for config, op in (("node", "wait_one"), ("vnode", "wait_one"),
                       ("vnode", "server_per_req"), ("vnode", "server_cpu_req"),
                       ("vnode", "server_held"),
                       ("vnode", "sparse_fence"), ("vnode", "sparse_allfence")):
        g = growth(rows, config, "armada", op)
        if g:
            out.append("| flat: %s %s | %s..%s | %+.0f %% | +10 %% | %s |" % (
                config, op, g[0], g[1], 100 * g[2], "met" if g[2] <= 0.10 else "missed"))
    return "\n".join(out) + "\n"


def plot(rows, outdir, cost, title, ops, xlabel):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    configs = [c for c in ("node", "vnode", "vnode-rma", "vnode-tcp")
               if any(r["config"] == c and r["op"] in ops for r in rows)]
    fig, axes = plt.subplots(1, max(1, len(configs)), figsize=(6 * max(1, len(configs)), 4.2),
                             squeeze=False)
    for ax, config in zip(axes[0], configs):
        sel = [r for r in rows if r["config"] == config and r["op"] in ops and r["unit"] == "ns"]
        if not sel:
            ax.set_visible(False)
            continue
        if xlabel is None:   # bars: one group per op, one bar per impl
            impls = sorted({r["impl"] for r in sel})
            opl = [o for o in ops if any(r["op"] == o for r in sel)]
            w = 0.8 / max(1, len(impls))
            for j, impl in enumerate(impls):
                ys = [find(sel, config, impl, o) or 0 for o in opl]
                ax.bar([i + j * w for i in range(len(opl))], ys, w, label=impl)
            ax.set_xticks([i + 0.4 - w / 2 for i in range(len(opl))])
            ax.set_xticklabels(opl, rotation=30, ha="right", fontsize=8)
        else:
            # colour: the implementation; line and marker: the operation
            styles = ["-o", "--s", ":^", "-.v", "-D", "--x"]
            for ci, impl in enumerate(sorted({r["impl"] for r in sel})):
                for oi, op in enumerate(ops):
                    pts = sorted((r["size"], r["value"]) for r in sel
                                 if r["impl"] == impl and r["op"] == op)
                    if pts:
                        ax.plot([p[0] for p in pts], [p[1] for p in pts],
                                styles[oi % len(styles)], ms=3, color="C%d" % (ci % 10),
                                label="%s %s" % (impl, op))
            ax.set_xscale("symlog", linthresh=1)
            ax.set_xlabel(xlabel)
        ax.set_yscale("log")
        ax.set_ylabel("ns")
        ax.set_title("%s (%s)" % (title, config), fontsize=9)
        ax.legend(fontsize=6)
    fig.tight_layout()
    path = os.path.join(outdir, "overheads_%s.png" % cost)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default=None)
    ap.add_argument("--np-list", default="2,4,8,16")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--from", dest="from_dir", default=None)
    a = ap.parse_args()
    a.np_list = [int(x) for x in a.np_list.split(",") if x]
    if a.from_dir:
        a.out = a.from_dir
    elif a.out is None:
        a.out = "report/overheads-%s" % datetime.date.today().isoformat()
    if not a.from_dir:
        collect_runs(a)
    rows = parse_raw(a)
    if not rows:
        sys.exit("no RESULT lines under %s/raw" % a.out)
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    write_report(a.out, rows, "tables.md")
    print("wrote %s/tables.md, results.csv and plots" % a.out)


def write_report(outdir, rows, name):
    """Tables (targets, one per cost) and one PNG per cost into outdir/name;
    rows: dicts with config, impl, op, size, value, unit (the harness's
    figures of suite overheads too). Returns the path written."""
    md = ["# Non-data overheads (suite overheads)\n",
          "Values in ns (medians); `node`: one node, `vnode`: ARMADA_PPN=1 (MPI: osc ucx; "
          "on one host UCX's shared-memory transports), `vnode-rma`: Armada with "
          "ARMADA_RMA_PATH=rma, `vnode-tcp`: UCX_TLS=tcp,self for all.\n",
          "\n## Targets (issue 25)\n\n", targets(rows)]
    for cost, title, ops, xlabel in COSTS:
        md += ["\n## %s\n\n" % title, cost_table(rows, cost, ops)]
        p = plot(rows, outdir, cost, title, ops, xlabel)
        if p:
            md.append("\n![%s](%s)\n" % (cost, os.path.basename(p)))
    path = os.path.join(outdir, name)
    open(path, "w").write("".join(md))
    return path

if __name__ == "__main__":
    main()
