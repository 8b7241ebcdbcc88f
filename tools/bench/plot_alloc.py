#!/usr/bin/env python3
"""Allocation time against processes, default mode and symmetric heap
(issue 23 item 5, decision 059).

Runs BUILD/bench/armada-bench-alloc at each process count and ARMADA_PPN,
once with ARMADA_SYMMETRIC=0 and once with ARMADA_SYMMETRIC=1 (and
armcimpi-bench-alloc, ARMCI-MPI's build of the same source, when it is
there and --peer is given), prints a Markdown table of ARMCI_Malloc,
ARMCI_Free and the pair (us per call, the slowest process, median of the
repetitions), and writes OUT/alloc.csv, OUT/alloc.md and OUT/alloc.png
(matplotlib, Agg). --from OUT/alloc.csv replots a saved table without
running anything.

Usage: plot_alloc.py [--build DIR] [--out DIR] [--np 2,4,8,16] [--ppn 1,4]
                     [--kib 64] [--live 0] [--reps 5] [--peer] [--timeout S]
       plot_alloc.py --from OUT/alloc.csv [--out DIR]
"""
import argparse
import csv
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
from armada_bench import log, maybe_reexec, parse_kv  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "--mca", "btl", "self,vader", "--mca", "mpi_yield_when_idle", "1"]
FIELDS = ["mode", "ppn", "np", "malloc_us", "free_us", "pair_us", "iters"]


def int_list(text):
    return [int(x) for x in text.split(",") if x.strip()]


def run_one(prog, np, ppn, sym, a):
    env = dict(os.environ, ARMADA_PPN=str(ppn), ARMADA_SYMMETRIC=str(sym),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = (["timeout", "-k", "5", str(a.timeout)] + MPIRUN +
           ["-np", str(np), prog, "-r", str(a.reps), "-R", str(a.rep_seconds),
            "-k", str(a.kib), "-L", str(a.live)])
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    rec = {}
    ok = False
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            kv = parse_kv(line)
            rec[kv["op"] + "_us"] = float(kv["value"])
            rec["iters"] = int(kv["iters"])
            rec["mode"] = kv.get("mode", "?")
        elif line.startswith("CHECK ") and "ok=1" in line:
            ok = True
    if p.returncode != 0 or not ok or "pair_us" not in rec:
        log("plot_alloc: np=%d ppn=%d sym=%d failed (exit %d):\n%s" %
            (np, ppn, sym, p.returncode, p.stdout[-2000:]))
        return None
    rec.update(np=np, ppn=ppn)
    return rec


def run_all(a):
    rows = []
    progs = [(os.path.join(a.build, "bench", "armada-bench-alloc"), (0, 1))]
    peer = os.path.join(a.build, "bench", "armcimpi-bench-alloc")
    if a.peer and os.path.exists(peer):
        progs.append((peer, (0,)))
    for prog, syms in progs:
        for ppn in int_list(a.ppn):
            for np in int_list(a.np):
                for sym in syms:
                    log("plot_alloc: %s np=%d ppn=%d sym=%d" %
                        (os.path.basename(prog), np, ppn, sym))
                    rec = run_one(prog, np, ppn, sym, a)
                    if rec:
                        rows.append(rec)
    return rows


def table(rows):
    out = ["| mode | ARMADA_PPN | processes | ARMCI_Malloc us | ARMCI_Free us | "
           "both us | iterations |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in sorted(rows, key=lambda r: (r["mode"], int(r["ppn"]), int(r["np"]))):
        out.append("| %s | %s | %s | %.1f | %.1f | %.1f | %s |" %
                   (r["mode"], r["ppn"], r["np"], float(r["malloc_us"]),
                    float(r["free_us"]), float(r["pair_us"]), r["iters"]))
    return "\n".join(out)


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib not available: no plot"
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    colors = {"default": "tab:red", "symmetric": "tab:blue", "armcimpi": "tab:gray"}
    for ax, op in zip(axes, ("malloc_us", "free_us")):
        for mode in sorted({r["mode"] for r in rows}):
            for ppn, style in zip(sorted({int(r["ppn"]) for r in rows}), ("-", "--", ":")):
                pts = sorted((int(r["np"]), float(r[op])) for r in rows
                             if r["mode"] == mode and int(r["ppn"]) == ppn)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o",
                            color=colors.get(mode, "k"), label="%s, PPN=%d" % (mode, ppn))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("processes")
        ax.set_title("ARMCI_Malloc" if op == "malloc_us" else "ARMCI_Free")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("us per call (slowest process)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default="alloc_study")
    ap.add_argument("--np", default="2,4,8,16")
    ap.add_argument("--ppn", default="1,4")
    ap.add_argument("--kib", type=int, default=64)
    ap.add_argument("--live", type=int, default=0)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rep-seconds", type=float, default=0.3)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--peer", action="store_true", help="also ARMCI-MPI's build")
    ap.add_argument("--from", dest="src", help="replot a saved alloc.csv")
    a = ap.parse_args()
    maybe_reexec()
    os.makedirs(a.out, exist_ok=True)
    if a.src:
        with open(a.src) as f:
            rows = list(csv.DictReader(f))
    else:
        rows = run_all(a)
        with open(os.path.join(a.out, "alloc.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)
    if not rows:
        log("plot_alloc: no figures")
        return 1
    md = table(rows)
    print(md)
    with open(os.path.join(a.out, "alloc.md"), "w") as f:
        f.write(md + "\n")
    print(plot(rows, os.path.join(a.out, "alloc.png")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
