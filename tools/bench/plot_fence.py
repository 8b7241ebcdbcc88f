#!/usr/bin/env python3
"""Plot armada-bench-fence output: fence time against targets written.

Usage: plot_fence.py [-o fence.png] [--op allfence|fence] OUT...

Each OUT is the output of one armada-bench-fence run (its RESULT lines; the
node count is read from them). One line per run and state: solid for
`done` (every target's writes acknowledged before the fence), dashed for
`pending` (fenced at once). Left: the chosen operation's time (us, median);
right: the fence messages per round. Decision 058, issue 23 item 4.
"""
import argparse
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LINE = re.compile(r"^RESULT impl=(\S+) suite=fence op=(\w+) size=(\d+) nproc=(\d+) "
                  r"value=(\S+) unit=us .*msgs=(\S+) flushes=(\S+) .*nodes=(\d+)")


def parse(path):
    """{(op, state): [(targets, us, msgs)]} and the node count of one run."""
    series, nodes = {}, None
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            op, state = m.group(2).split("_", 1)
            nodes = int(m.group(8))
            series.setdefault((op, state), []).append(
                (int(m.group(3)), float(m.group(5)), float(m.group(6))))
    return series, nodes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="outputs of armada-bench-fence")
    ap.add_argument("-o", "--out", default="fence.png")
    ap.add_argument("--op", default="allfence", choices=["allfence", "fence"])
    a = ap.parse_args()
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(11, 4.2))
    drawn = 0
    runs = sorted((parse(p) + (p,) for p in a.runs), key=lambda r: r[1] or 0)
    for i, (series, nodes, path) in enumerate(runs):
        color = f"C{i % 10}"
        for state, style in (("pending", "--s"), ("done", "-o"), ("acked", ":^")):
            pts = sorted(series.get((a.op, state), []))
            if not pts:
                continue
            k = [p[0] for p in pts]
            label = f"{nodes} nodes, {state}"
            ax_t.plot(k, [p[1] for p in pts], style, color=color, label=label)
            ax_m.plot(k, [p[2] for p in pts], style, color=color, label=label)
            drawn += 1
    if not drawn:
        sys.exit(f"plot_fence: no '{a.op}' RESULT lines in {', '.join(a.runs)}")
    name = "ARMCI_AllFence" if a.op == "allfence" else "ARMCI_Fence per target"
    ax_t.set_title(f"{name}: time")
    ax_t.set_xlabel("targets written since the last fence")
    ax_t.set_ylabel("us per fence (median)")
    ax_t.set_xscale("log", base=2)
    ax_t.set_yscale("log")
    ax_t.set_ylim(bottom=0.01)
    ax_m.set_title("fence messages per fence")
    ax_m.set_xlabel("targets written since the last fence")
    ax_m.set_ylabel("messages")
    ax_m.set_xscale("log", base=2)
    for ax in (ax_t, ax_m):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"plot_fence: wrote {a.out}")


if __name__ == "__main__":
    main()
