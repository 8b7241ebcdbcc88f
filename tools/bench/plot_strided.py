#!/usr/bin/env python3
"""Strided bandwidth against chunk size, one line per protocol (issue 23
item 2; gemini Figs. 9 and 12), from the RESULT lines of armada-bench-strided
runs.

  plot_strided.py --run LABEL=FILE [--run LABEL=FILE ...] --out DIR

Each FILE holds the output of one run (for example with
ARMADA_STRIDED_RMA_MIN=1 for the pipelined zero-copy chunks and
ARMADA_STRIDED_RMA_MIN=1g for the chunks packed through the server). Writes
DIR/strided.md (a table: chunk size, MB/s per run, per operation) and
DIR/strided_puts.png, DIR/strided_gets.png."""
import argparse
import os
import re

RESULT = re.compile(r"^RESULT (.*)$")


def parse(path):
    """{(op, size): MB/s} from the RESULT lines of one run."""
    out = {}
    with open(path) as f:
        for line in f:
            m = RESULT.match(line.strip())
            if not m:
                continue
            kv = dict(p.split("=", 1) for p in m.group(1).split() if "=" in p)
            if kv.get("unit") != "MB/s" or kv.get("suite") != "strided":
                continue
            out[(kv["op"], int(kv["size"]))] = float(kv["value"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="append", required=True, help="LABEL=FILE")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    runs = []
    for r in a.run:
        label, path = r.split("=", 1)
        runs.append((label, parse(path)))
    os.makedirs(a.out, exist_ok=True)
    ops = sorted({op for _, d in runs for op, _ in d})
    lines = []
    if a.title:
        lines += ["# " + a.title, ""]
    for op in ops:
        sizes = sorted({s for _, d in runs for o, s in d if o == op})
        lines += ["## " + op, "",
                  "| chunk (B) | " + " | ".join(l + " MB/s" for l, _ in runs) + " |",
                  "|---:|" + "---:|" * len(runs)]
        for s in sizes:
            cells = ["%.0f" % d[(op, s)] if (op, s) in d else "-" for _, d in runs]
            lines.append("| %d | %s |" % (s, " | ".join(cells)))
        lines.append("")
    with open(os.path.join(a.out, "strided.md"), "w") as f:
        f.write("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: table only")
        return
    for op in ops:
        fig, ax = plt.subplots(figsize=(6, 4))
        for label, d in runs:
            pts = sorted((s, v) for (o, s), v in d.items() if o == op)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("contiguous chunk (bytes)")
        ax.set_ylabel("bandwidth (MB/s)")
        ax.set_title("%s %s" % (a.title, op) if a.title else op)
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "strided_%s.png" % op), dpi=120)
        plt.close(fig)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
