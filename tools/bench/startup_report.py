#!/usr/bin/env python3
"""Tables and plots of suite startup (issue 57): what a process pays to start,
against the number of processes, Armada beside ARMCI-MPI in each
configuration. armada_bench.py calls write_report() with the suite's rows;
`python3 tools/bench/startup_report.py --from REPORT_DIR` redraws them from a
report's results.json.

Figures (bench/bench_startup.c), per process, medians over launches:
  init, malloc, first_get, ttfb   wall time, the slowest process (stat=max)
  init_malloc_cpu, ttfb_cpu       CPU time of the whole process, mean
  rss_init, rss_alloc             VmRSS, mean
  shm_alloc                       shared-memory files mapped, mean
"""
import argparse
import json
import os

CONFIG_TITLE = {
    "node": "one node",
    "vnode": "virtual nodes (ARMADA_PPN=1), UCX default transports",
    "vnode-tcp": "virtual nodes over TCP (UCX_TLS=tcp,self)",
}
# (op, stat, unit, label, scale, unit label)
FIGURES = [
    ("init", "max", "us", "ARMCI_Init, wall", 1e-3, "ms"),
    ("malloc", "max", "us", "1 MiB ARMCI_Malloc, wall", 1e-3, "ms"),
    ("first_get", "max", "us", "first get from another node, wall", 1e-3, "ms"),
    ("ttfb", "max", "us", "time to first byte (the three), wall", 1e-3, "ms"),
    ("init_malloc_cpu", "mean", "us", "CPU of ARMCI_Init + ARMCI_Malloc", 1e-3, "ms"),
    ("rss_alloc", "mean", "B", "RSS after the allocation", 2 ** -20, "MiB"),
    ("shm_alloc", "mean", "B", "shared memory mapped after the allocation", 2 ** -20, "MiB"),
    ("endpoints", "mean", "count", "transport endpoints after the first get (Armada)", 1,
     "endpoints"),
]
STEPS = ("settings", "world", "nodes", "control", "network", "words", "barrier")
PLOTTED = ("ttfb", "init_malloc_cpu", "rss_alloc")
IMPLS = ("armada", "armcimpi")


def stat_of(row):
    for part in (row.get("extra") or "").split(";"):
        if part.startswith("stat="):
            return part[5:]
    return None


def procs_of(row):
    for part in (row.get("extra") or "").split(";"):
        if part.startswith("procs="):
            return int(part[6:])
    return int(row.get("nproc") or 0)


def index(rows):
    """(config, op, stat, impl, procs) -> row."""
    idx = {}
    for r in rows:
        if r.get("suite") != "startup":
            continue
        idx[(r["config"], r["op"], stat_of(r), r["impl"], procs_of(r))] = r
    return idx


def fmt(v):
    """Three significant figures at most, fewer decimals as v grows."""
    if v is None:
        return "—"
    return ("%.0f" if v >= 100 else "%.1f" if v >= 10 else "%.2f") % v


def spread(r, scale):
    vals = r.get("run_values") or [r["value"]]
    if len(vals) < 2:
        return ""
    return " (%s-%s)" % (fmt(min(vals) * scale), fmt(max(vals) * scale))


def table(idx, config, op, stat, scale):
    nps = sorted({k[4] for k in idx if k[0] == config and k[1] == op and k[2] == stat})
    if not nps:
        return ""
    out = ["| processes | Armada | ARMCI-MPI | Armada / ARMCI-MPI |\n",
           "| ---: | ---: | ---: | ---: |\n"]
    for np in nps:
        a = idx.get((config, op, stat, "armada", np))
        p = idx.get((config, op, stat, "armcimpi", np))
        av = a["value"] * scale if a else None
        pv = p["value"] * scale if p else None
        ratio = "%.2f" % (av / pv) if av is not None and pv else "—"
        out.append("| %d | %s%s | %s%s | %s |\n" % (
            np, fmt(av), spread(a, scale) if a else "", fmt(pv),
            spread(p, scale) if p else "", ratio))
    return "".join(out)


def steps_table(idx, config):
    """Armada's steps of ARMCI_Init (armada_startup_steps): CPU time, mean
    over processes, and the slowest process's wall time, ms."""
    nps = sorted({k[4] for k in idx if k[0] == config and k[1].startswith("step_")})
    if not nps:
        return ""
    out = ["| step | " + " | ".join("%d" % n for n in nps) + " |\n",
           "| --- |" + " ---: |" * len(nps) + "\n"]
    for step in STEPS:
        cells = []
        for n in nps:
            cpu = idx.get((config, "step_%s_cpu" % step, "mean", "armada", n))
            wall = idx.get((config, "step_" + step, "max", "armada", n))
            cells.append("%s (%s)" % (fmt(cpu["value"] * 1e-3) if cpu else "—",
                                      fmt(wall["value"] * 1e-3) if wall else "—"))
        out.append("| %s | %s |\n" % (step, " | ".join(cells)))
    return "".join(out)


def plot(idx, outdir, config):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    figs = [f for f in FIGURES if f[0] in PLOTTED]
    fig, axes = plt.subplots(1, len(figs), figsize=(5 * len(figs), 4))
    drawn = False
    for ax, (op, stat, unit, label, scale, ulabel) in zip(axes, figs):
        for impl, style in (("armada", "o-"), ("armcimpi", "s--")):
            pts = sorted((k[4], r["value"] * scale) for k, r in idx.items()
                         if k[0] == config and k[1] == op and k[2] == stat and k[3] == impl)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                        label="Armada" if impl == "armada" else "ARMCI-MPI")
                drawn = True
        ax.set_xscale("log", base=2)
        if op != "rss_alloc":
            ax.set_yscale("log")
        ax.set_xlabel("processes")
        ax.set_ylabel(ulabel)
        ax.set_title(label, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("start-up: " + CONFIG_TITLE.get(config, config), fontsize=10)
    fig.tight_layout()
    if not drawn:
        plt.close(fig)
        return None
    path = os.path.join(outdir, "startup-%s.png" % config)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def write_report(outdir, rows, name="startup.md"):
    idx = index(rows)
    configs = [c for c in CONFIG_TITLE if any(k[0] == c for k in idx)]
    md = ["# Start-up (suite startup)\n\n",
          "Per process, after `MPI_Init` and a barrier: `ARMCI_Init`, a collective "
          "1 MiB `ARMCI_Malloc`, then one 8-byte get from a process of another node "
          "(`bench/bench_startup.c`, the same source linked to each library). Wall "
          "times are the slowest process's, CPU time (`getrusage`, every thread of "
          "the process) and memory the mean over processes; each cell is the median "
          "over launches, the launches' range in brackets. Launches alternate "
          "between the libraries.\n"]
    for config in configs:
        md.append("\n## %s\n" % CONFIG_TITLE[config])
        p = plot(idx, outdir, config)
        if p:
            md.append("\n![startup %s](%s)\n" % (config, os.path.basename(p)))
        for op, stat, unit, label, scale, ulabel in FIGURES:
            t = table(idx, config, op, stat, scale)
            if t:
                md.append("\n**%s** (%s)\n\n%s" % (label, ulabel, t))
        t = steps_table(idx, config)
        if t:
            md.append("\n**Armada's steps of ARMCI_Init**, by processes: CPU time of "
                      "the process, mean (the slowest process's wall time), ms. "
                      "`world`: the world communicator's copy; `nodes`: the one "
                      "exchange of host records and the node and leader "
                      "communicators; `control`: the job id and the control blocks; "
                      "`network`: UCX's context and workers, the servers' address "
                      "exchange, the server thread; `words`: the collective-call "
                      "words, registered with the node's server; `barrier`: the "
                      "closing barrier.\n\n" + t)
    path = os.path.join(outdir, name)
    with open(path, "w") as fh:
        fh.write("".join(md))
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from", dest="src", required=True, help="a report folder")
    args = ap.parse_args()
    with open(os.path.join(args.src, "results.json")) as fh:
        rows = json.load(fh)["figures"]
    print(write_report(args.src, rows))


if __name__ == "__main__":
    main()
