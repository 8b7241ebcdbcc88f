#!/usr/bin/env python3
"""sim_fit: fits one armada-sim model parameter to measured hot-spot runs.

armada-sim --calibrate derives most of the model in closed form from a
benchmark report. A parameter that no single figure isolates needs the
simulator in the loop. One example is srv_poll_load: how much the polling
clients slow a server that must be woken. For each value of --grid, this tool
runs the hot-spot validation cells through tools/sim/sim_validate.py. Each
cell takes the median over --seeds simulator seeds, with the parameter set.
The tool scores each value by the root mean square of log(simulated /
measured) over every cell. It then picks the value with the lowest score:
the fit never looks at the 25 % tolerance. It writes:

  DIR/model.txt  the --model file with the parameter set to the chosen value
                 and the fit named in its source line;
  DIR/fit.md     one row per value: the score and the cells within 25 %;
  DIR/fit.json   the same, with every cell's ratio.

Usage: sim_fit.py --sim PATH --model FILE --measured A.json[,B.json]
                  --key srv_poll_load --grid 0.10:0.30:0.01 --out DIR
                  [--np 8,16] [--seeds 5]
"""
import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sim_study  # noqa: E402
import sim_validate  # noqa: E402


def grid_of(text):
    lo, hi, step = (float(x) for x in text.split(":"))
    n = int(round((hi - lo) / step))
    return [round(lo + i * step, 10) for i in range(n + 1)]


def score(cells):
    ratios = [c["ratio"] for c in cells if c.get("ratio")]
    if not ratios:
        return None, 0, 0
    rms = math.sqrt(sum(math.log(r) ** 2 for r in ratios) / len(ratios))
    within = sum(1 for c in cells if c.get("within"))
    return rms, within, len(ratios)


def model_with(path, key, value, note):
    """The model file's text with key = value and note added to its source."""
    out, seen = [], False
    with open(path) as fh:
        for line in fh:
            k = line.split("=", 1)[0].strip()
            if k == key:
                line, seen = "%s = %r\n" % (key, value), True
            elif k == "source":
                line = line.rstrip("\n") + "; " + note + "\n"
            out.append(line)
    if not seen:
        out.append("%s = %r\n" % (key, value))
    return "".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--model", required=True, help="the model file to start from")
    ap.add_argument("--measured", required=True, help="benchmark reports, comma-separated")
    ap.add_argument("--key", required=True, help="the model parameter to fit")
    ap.add_argument("--grid", required=True, metavar="LO:HI:STEP")
    ap.add_argument("--out", required=True)
    ap.add_argument("--np", default="8,16")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    opts = ap.parse_args(argv)
    os.makedirs(opts.out, exist_ok=True)
    rows = []
    for v in grid_of(opts.grid):
        sub = os.path.join(opts.out, "at-%g" % v)
        args = ["--sim", opts.sim, "--out", sub, "--measured", opts.measured,
                "--model", opts.model, "--np", opts.np, "--seeds", str(opts.seeds),
                "--jobs", str(opts.jobs), "--set", "%s=%r" % (opts.key, v)]
        if sim_validate.main(args) != 0:
            sim_study.log("sim_fit: the validation at %s=%g failed" % (opts.key, v))
            return 1
        with open(os.path.join(sub, "validate.json")) as fh:
            cells = json.load(fh)["cells"]
        rms, within, n = score(cells)
        rows.append({"value": v, "log_rms": rms, "within": within, "cells": n,
                     "ratios": [c.get("ratio") for c in cells]})
        sim_study.log("sim_fit: %s=%g log-rms %.4f, %d of %d within 25 %%" % (
            opts.key, v, rms, within, n))
    best = min((r for r in rows if r["log_rms"] is not None), key=lambda r: r["log_rms"])
    note = "%s by sim_fit.py (np %s, %d seeds)" % (opts.key, opts.np, opts.seeds)
    with open(os.path.join(opts.out, "model.txt"), "w") as fh:
        fh.write(model_with(opts.model, opts.key, best["value"], note))
    head = [opts.key, "log-rms of sim/measured", "cells within 25 %"]
    body = [["**%g**" % r["value"] if r is best else "%g" % r["value"],
             "%.4f" % r["log_rms"], "%d of %d" % (r["within"], r["cells"])] for r in rows]
    with open(os.path.join(opts.out, "fit.md"), "w") as fh:
        fh.write("# sim_fit: %s\n\nCommand: `sim_fit.py %s`\n\nChosen: %s = %g, the lowest "
                 "log-rms (%.4f).\n\n" % (opts.key, " ".join(argv if argv is not None
                                                            else sys.argv[1:]),
                                          opts.key, best["value"], best["log_rms"]))
        fh.write("\n".join(sim_study.md_table(head, body)) + "\n")
    with open(os.path.join(opts.out, "fit.json"), "w") as fh:
        json.dump({"key": opts.key, "chosen": best["value"], "rows": rows}, fh, indent=1)
    sim_study.log("sim_fit: chose %s=%g; %s" % (opts.key, best["value"],
                                               os.path.join(opts.out, "model.txt")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
