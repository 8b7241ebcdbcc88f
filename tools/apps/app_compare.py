#!/usr/bin/env python3
"""Run application kernels side by side and compare one figure of merit.

Every case is a command template with {np} in it; each run must print one
`RESULT key=value ...` line (armada-ft, armada-lu, armada-lj, armada-ra, the
ScaLAPACK and HPCC wrappers all do).  Repeats are interleaved (repeat 1 of
every case, then repeat 2, ...), so a drift of the machine hits every case
alike.  Writes into --out: results.md (table, machine, date, commands),
runs.csv (every run with every key it printed) and <metric>.png.

  tools/apps/app_compare.py --title "RandomAccess 2^20" --metric gups \\
      --np 4 --repeats 3 --baseline armci-mpi \\
      --case armada='mpirun -np {np} build/apps/ra/armada-ra -k 20' \\
      --case armci-mpi='mpirun --mca osc ucx -np {np} build/apps/ra/armada-ra-armcimpi -k 20'

A run fails when it exits non-zero, prints no RESULT line, or its RESULT has
verified=0; the script then exits 1 (the table still says which failed).
"""
import argparse
import csv
import datetime
import os
import re
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "ft"))
from machineinfo import machine  # noqa: E402  (tools/machineinfo.py)
from ft_compare import bar_chart  # noqa: E402  (tools/ft/ft_compare.py)

RESULT_RE = re.compile(r"^RESULT (.*)$", re.M)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", action="append", default=[], metavar="LABEL=COMMAND",
                    help="a command template with {np}; repeat for every implementation")
    ap.add_argument("--metric", default="time", help="RESULT key compared (default time)")
    ap.add_argument("--lower-better", action="store_true",
                    help="smaller is better (implied for --metric time)")
    ap.add_argument("--columns", default="", help="further RESULT keys to tabulate (medians)")
    ap.add_argument("--baseline", default=None, help="case the ratios are taken against "
                    "(default: the last case)")
    ap.add_argument("--np", default="4", help="comma-separated process counts")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=900, help="seconds per run")
    ap.add_argument("--env", action="append", default=[], metavar="VAR=VALUE",
                    help="extra environment for every run (repeatable)")
    ap.add_argument("--title", default="application comparison")
    ap.add_argument("--label", default="", help="free text recorded with the settings")
    ap.add_argument("--out", default=None, help="output folder (default app-results-DATE)")
    a = ap.parse_args()
    if not a.case:
        ap.error("give at least one --case LABEL=COMMAND")
    for c in a.case:
        if "=" not in c or "{np}" not in c:
            ap.error("--case %r: expected LABEL=COMMAND with {np} in the command" % c)
    return a


def run_one(cmd, env, timeout):
    try:
        p = subprocess.run(cmd, shell=True, env=env, capture_output=True, text=True,
                           timeout=timeout)
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) \
            else (e.stdout or "")
        out, rc = out, "timeout"
    found = RESULT_RE.findall(out)
    rec = {}
    if found:
        for kv in shlex.split(found[-1]):
            k, _, v = kv.partition("=")
            rec[k] = v
    rec["rc"] = str(rc)
    ok = bool(found) and rc == 0 and rec.get("verified", "1") == "1"
    if not ok:
        sys.stderr.write("run failed (rc=%s): %s\n%s\n" % (rc, cmd, out[-3000:]))
    rec["_ok"] = ok
    return rec


def num(rec, key):
    try:
        return float(rec[key])
    except (KeyError, ValueError):
        return None


def med(recs, key):
    vals = [v for v in (num(r, key) for r in recs) if v is not None]
    return statistics.median(vals) if vals else None


def summarize(runs, cases, nps, args):
    lower = args.lower_better or args.metric == "time"
    base = args.baseline or cases[-1][0]
    rows = []
    for np_ in nps:
        bm = med([r for r in runs.get((np_, base), []) if r["_ok"]], args.metric)
        brep = {r["_rep"]: num(r, args.metric) for r in runs.get((np_, base), []) if r["_ok"]}
        for label, _ in cases:
            recs = runs.get((np_, label), [])
            good = [r for r in recs if r["_ok"]]
            m = med(good, args.metric)
            ratio = None
            if m and bm:
                ratio = bm / m if lower else m / bm
            paired = []
            for r in good:
                v, b = num(r, args.metric), brep.get(r["_rep"])
                if v and b:
                    paired.append(b / v if lower else v / b)
            rows.append({"np": np_, "case": label, "n": len(good), "runs": len(recs),
                         "metric": m, "time": med(good, "time"), "ratio": ratio,
                         "per_repeat": (min(paired), max(paired)) if paired else None,
                         "cols": [med(good, c) for c in args.columns.split(",") if c],
                         "ok": bool(recs) and len(good) == len(recs)})
    return rows, base, lower


def fmt(v):
    if v is None:
        return "-"
    return "%.4g" % v


def write_markdown(path, args, info, cases, rows, base, lower, started):
    cols = [c for c in args.columns.split(",") if c]
    L = ["# %s" % args.title, "", "Date: %s  " % started]
    L.append("Machine: %s, %s, %s cores, %s, %s  " % (info["host"], info["cpu"], info["cores"],
                                                     info["memory"], info["os"]))
    for label, cmd in cases:
        L.append("Case %s: `%s`  " % (label, cmd))
    if args.env:
        L.append("Environment: `%s`  " % " ".join(args.env))
    if args.label:
        L.append("Label: %s  " % args.label)
    L.append("Each cell: median of the runs that verified (of %d). Ratio: %s of the case over "
             "%s (above 1: the case is better); per repeat: the lowest and highest ratio "
             "against the baseline run of the same repeat." % (
                 args.repeats, args.metric + (" (inverted: lower is better)" if lower else ""),
                 base))
    L.append("")
    tcol = args.metric != "time"
    head = "| procs | case | %s |%s" % (args.metric, " time (s) |" if tcol else "") + "".join(
        " %s |" % c for c in cols) + " ratio vs %s | per repeat | verified |" % base
    L.append(head)
    L.append("|---:|---|---:|" + "---:|" * (len(cols) + tcol) + "---:|---:|---|")
    for r in rows:
        pr = r["per_repeat"]
        L.append("| %d | %s | %s |" % (r["np"], r["case"], fmt(r["metric"]))
                 + (" %s |" % fmt(r["time"]) if tcol else "")
                 + "".join(" %s |" % fmt(v) for v in r["cols"])
                 + " %s | %s | %s |" % ("%.2fx" % r["ratio"] if r["ratio"] else "-",
                                        "%.2f-%.2f" % pr if pr else "-",
                                        "yes" if r["ok"] else "NO (%d of %d)" % (r["n"],
                                                                                  r["runs"])))
    L.append("")
    L.append("![%s](%s.png)" % (args.metric, args.metric))
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def main():
    args = parse_args()
    nps = [int(x) for x in args.np.split(",") if x]
    cases = [tuple(c.split("=", 1)) for c in args.case]
    labels = [c[0] for c in cases]
    if args.baseline and args.baseline not in labels:
        sys.exit("--baseline %s: no such case (%s)" % (args.baseline, ", ".join(labels)))
    started = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    out = args.out or "app-results-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ)
    for kv in args.env:
        k, _, v = kv.partition("=")
        env[k] = v
    runs, keys = {}, []
    for rep in range(args.repeats):
        for np_ in nps:
            for label, tmpl in cases:
                rec = run_one(tmpl.replace("{np}", str(np_)), env, args.timeout)
                rec["_rep"] = rep
                runs.setdefault((np_, label), []).append(rec)
                keys += [k for k in rec if not k.startswith("_") and k not in keys]
                print("%s np=%d rep %d: %s=%s time=%s ok=%s" % (
                    label, np_, rep, args.metric, rec.get(args.metric, "?"),
                    rec.get("time", "?"), rec["_ok"]), flush=True)
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "np", "repeat", "ok"] + keys)
        for (np_, label), recs in runs.items():
            for r in recs:
                w.writerow([label, np_, r["_rep"], int(r["_ok"])] + [r.get(k, "") for k in keys])
    rows, base, lower = summarize(runs, cases, nps, args)
    write_markdown(os.path.join(out, "results.md"), args, machine(), cases, rows, base, lower,
                   started)
    by = {(r["np"], r["case"]): r["metric"] for r in rows}
    bar_chart(os.path.join(out, args.metric + ".png"), args.title,
              ["%d PROCS" % n for n in nps], labels,
              [[by.get((n, c)) for c in labels] for n in nps], args.metric)
    with open(os.path.join(out, "results.md")) as f:
        print(f.read())
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
