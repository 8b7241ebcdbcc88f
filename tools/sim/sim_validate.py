#!/usr/bin/env python3
"""sim_validate: armada-sim against real runs (issue 21, item 2).

For the hot-spot experiment (fetch-and-add and vector put to rank 0 at 0, 11,
20 and 100 % contention) at --np virtual nodes (one process per node) under
FCG and MFCG, compares the measured mean per-operation time (rank=mean) with
the simulated one, cell by cell, and counts the cells within 25 %.

Measured side: unless --measured gives report files, runs the benchmark
harness once per process count:
  armada_bench.py --build BUILD --impls armada --configs vnode-tcp
                  --suites hotspot --topologies fcg,mfcg --np N --runs R
                  --out DIR/measured-npN
and reads its results.json (suite hotspot, unit us, extra
level=L;hammers=k;rank=mean; impl armada is FCG, armada-mfcg MFCG).
Simulated side, per cell:
  armada-sim [--model FILE] hotspot --topology T --procs N --ppn 1 --op OP
             --level L --hammers after
(--hammers after: the k ranks after the measuring one, as the benchmark
program does). With --calibrate-from-measured the model is first derived
from the measured report (armada-sim --calibrate ... --out DIR/model.txt).

Writes DIR/validate.md and DIR/validate.json. It is a report, not a test:
the exit status is 0 whatever the agreement, 1 only when something failed to
run (the harness, the calibration, a simulator run).

Usage: sim_validate.py --sim PATH --build BUILD --out DIR [--np 8,16]
                       [--runs 3] [--measured results.json[,...]]
                       [--model FILE] [--calibrate-from-measured]
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import sim_study  # noqa: E402  (tools/sim/sim_study.py)

HARNESS = os.path.join(ROOT, "tools", "bench", "armada_bench.py")
TOLERANCE = 0.25          # issue 21: within 25 % of measured
PREFERRED_CONFIG = "vnode-tcp"
log = sim_study.log


def topo_of(impl):
    """The topology of an Armada implementation name in a report (as the
    harness names them: armada is FCG, armada-T is T); None for peers."""
    if impl == "armada":
        return "fcg"
    if impl.startswith("armada-"):
        return impl[len("armada-"):]
    return None


def parse_extra(extra):
    """"level=20;hammers=2;rank=mean" -> {"level": "20", ...}."""
    return dict(x.split("=", 1) for x in extra.split(";") if "=" in x)


def measured_cells(report, source=""):
    """{(np, topo, op, level): cell} of a results.json dict: hot-spot mean
    per-operation times. Where several configurations hold a cell, vnode-tcp
    wins, then the first in the file."""
    cells = {}
    for f in report.get("figures", []):
        if f.get("suite") != "hotspot" or f.get("unit") != "us":
            continue
        kv = parse_extra(f.get("extra", ""))
        topo = topo_of(f.get("impl", ""))
        if kv.get("rank") != "mean" or "level" not in kv or topo is None:
            continue
        key = (int(f.get("nproc", 0)), topo, f.get("op"), int(kv["level"]))
        cell = {"us": float(f["value"]), "hammers": int(kv.get("hammers", -1)),
                "config": f.get("config"), "runs": f.get("runs"),
                "run_values": f.get("run_values"), "source": source}
        old = cells.get(key)
        if old is None or (old["config"] != PREFERRED_CONFIG
                           and cell["config"] == PREFERRED_CONFIG):
            cells[key] = cell
    return cells


def sim_cells(runs):
    """{(np, topo, op, level): {"us", "hammers", "max", "run", "seed_values"}}
    from the simulator runs (rank=mean line, else the mean of the per-rank
    lines). A cell simulated under several seeds gets the median of their
    means, as the measured side is a median over launches."""
    per = {}
    for i, r in enumerate(runs):
        if r.get("status") != "ok":
            continue
        recs = [x for x in r["records"] if x.get("exp") == "hotspot"]
        if not recs:
            continue
        s = sim_study.per_rank_summary(recs)
        m = r["meta"]
        per.setdefault((m["procs"], m["topo"], m["op"], m["level"]), []).append({
            "us": s.get("mean"), "max": s.get("max"), "run": i,
            "hammers": next((x["hammers"] for x in recs if "hammers" in x), None)})
    out = {}
    for key, cells in per.items():
        cells = sorted((c for c in cells if c["us"] is not None), key=lambda c: c["us"])
        if cells:
            values = [c["us"] for c in cells]
            out[key] = dict(cells[len(cells) // 2], us=statistics.median(values),
                            seed_values=values)
    return out


def sim_specs(opts, keys):
    """The simulator runs of the cells keys, one per seed of opts.seed_list
    (None: armada-sim's own seed, or the --seed on every command)."""
    specs = []
    for n, t, op, lv in keys:
        for sd in opts.seed_list:
            specs.append({"part": "validate",
                          "meta": {"procs": n, "topo": t, "op": op, "level": lv, "seed": sd},
                          "args": (["--seed", sd] if sd is not None else []) +
                                  ["hotspot", "--topology", t, "--procs", n, "--ppn", 1,
                                   "--op", op, "--level", lv, "--hammers", "after"] +
                                  (["--connect", opts.connect]
                                   if getattr(opts, "connect", None) else [])})
    return specs


def compare(measured, simulated, keys):
    """Rows, one per key: measured and simulated us, their ratio and whether
    the simulated is within TOLERANCE of the measured."""
    rows = []
    for key in keys:
        m, s = measured.get(key), simulated.get(key)
        row = {"np": key[0], "topology": key[1], "op": key[2], "level": key[3],
               "measured_us": m["us"] if m else None, "sim_us": s["us"] if s else None,
               "measured_hammers": m["hammers"] if m else None,
               "measured_runs": (m.get("run_values") or []) if m else [],
               "sim_hammers": s["hammers"] if s else None,
               "sim_seeds": (s.get("seed_values") or []) if s else []}
        if m and s and m["us"] > 0 and s["us"] is not None:
            row["ratio"] = s["us"] / m["us"]
            row["within"] = abs(row["ratio"] - 1.0) <= TOLERANCE
        else:
            row["ratio"], row["within"] = None, None
        rows.append(row)
    return rows


def span(values):
    """lowest-highest (count) of several values; "-" for fewer than two."""
    if len(values) < 2:
        return "-"
    return "%s-%s (%d)" % (sim_study.fmt(min(values)), sim_study.fmt(max(values)), len(values))


def report_md(rows, meta, model):
    L = ["# armada-sim validation: hot-spot mean per-operation time, simulated against measured",
         ""]
    L.append("Command: `%s`  " % meta["command"])
    L.append("Date %s; measured: %s; simulator `%s`; model: %s." % (
        meta["date"], ", ".join("`%s`" % s for s in meta["measured_sources"]) or "-",
        meta["sim"], meta.get("model_file") or "the simulator's defaults"))
    L.append("")
    both = [r for r in rows if r["within"] is not None]
    ok = [r for r in both if r["within"]]
    L.append("**%d of %d cells within %d %%** (%d cells lack a measured or a simulated figure)."
             % (len(ok), len(both), round(TOLERANCE * 100), len(rows) - len(both)))
    L.append("")
    for op in sorted({r["op"] for r in rows}):
        for topo in sorted({r["topology"] for r in rows}):
            sub = [r for r in both if r["op"] == op and r["topology"] == topo]
            if sub:
                L.append("- %s %s: %d of %d within, sim/measured %s to %s" % (
                    topo, op, sum(1 for r in sub if r["within"]), len(sub),
                    sim_study.fmt(min(r["ratio"] for r in sub)),
                    sim_study.fmt(max(r["ratio"] for r in sub))))
    L.append("")
    head = ["np", "topology", "op", "level %", "hammers (meas/sim)", "measured us",
            "measured runs", "simulated us", "simulated seeds", "sim/measured", "within 25 %"]
    body = []
    for r in rows:
        hm = "%s/%s" % ("-" if r["measured_hammers"] is None else r["measured_hammers"],
                        "-" if r["sim_hammers"] is None else r["sim_hammers"])
        if (r["measured_hammers"] is not None and r["sim_hammers"] is not None
                and r["measured_hammers"] != r["sim_hammers"]):
            hm += " (differ)"
        body.append([r["np"], r["topology"], r["op"], r["level"], hm,
                     sim_study.fmt(r["measured_us"]), span(r["measured_runs"]),
                     sim_study.fmt(r["sim_us"]), span(r["sim_seeds"]),
                     sim_study.fmt(r["ratio"]),
                     "-" if r["within"] is None else ("yes" if r["within"] else "no")])
    L += sim_study.md_table(head, body)
    L.append("")
    L.append("Measured us: the harness's median over launches of each launch's median; "
             "measured runs: the launches' lowest-highest (count), the measurement's own "
             "spread. Simulated us: the median over simulator seeds of each seed's mean; "
             "simulated seeds: their lowest-highest (count).")
    L.append("")
    if model:
        L.append("Model in use (MODEL line):")
        L.append("")
        L.append("```")
        L.append(" ".join("%s=%s" % (k, v) for k, v in model.items() if k != "kind"))
        L.append("```")
        L.append("")
    if meta.get("problems"):
        L += ["Problems:", ""] + ["- " + p for p in meta["problems"]] + [""]
    L += ["Commands:", "", "```"] + meta["commands"] + ["```", ""]
    return "\n".join(L)


def run_harness(opts, n, problems, commands):
    """Runs the benchmark at n processes; the results.json path or None."""
    out = os.path.join(opts.out, "measured-np%d" % n)
    cmd = [sys.executable, HARNESS, "--build", opts.build, "--impls", "armada",
           "--configs", PREFERRED_CONFIG, "--suites", "hotspot",
           "--topologies", ",".join(opts.topologies), "--np", str(n), "--runs", str(opts.runs),
           "--timeout", str(opts.bench_timeout), "--out", out]
    commands.append(" ".join(cmd))
    log("sim_validate: measuring at %d processes: %s" % (n, " ".join(cmd)))
    t0 = time.time()
    p = subprocess.run(cmd)
    log("sim_validate: harness at np=%d: rc=%d in %.0fs" % (n, p.returncode, time.time() - t0))
    path = os.path.join(out, "results.json")
    if p.returncode != 0:
        problems.append("harness at np=%d exited %d (see %s/report.md)" % (n, p.returncode, out))
    if not os.path.exists(path):
        problems.append("harness at np=%d wrote no results.json" % n)
        return None
    return path


def calibrate(opts, source, problems, commands):
    """Runs armada-sim --calibrate; the model file or None."""
    model = os.path.join(opts.out, "model.txt")
    cmd = [opts.sim, "--calibrate", source, "--out", model]
    commands.append(" ".join(cmd))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log("sim_validate: calibrate: rc=%d %s" % (p.returncode, p.stdout.strip()[-500:]))
    if p.returncode != 0 or not os.path.exists(model):
        problems.append("armada-sim --calibrate %s failed (rc=%d): %s"
                        % (source, p.returncode, p.stdout.strip()[-300:]))
        return None
    return model


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", required=True, help="the armada-sim binary")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="CMake build folder of the benchmark programs")
    ap.add_argument("--out", required=True, help="report folder")
    ap.add_argument("--np", default="8,16", help="process counts = virtual nodes (8,16)")
    ap.add_argument("--runs", type=int, default=3, help="harness launches per program (3)")
    ap.add_argument("--measured", default=None,
                    help="results.json file(s), comma-separated: skip measuring")
    ap.add_argument("--model", default=None, help="model file passed to armada-sim")
    ap.add_argument("--calibrate-from-measured", action="store_true",
                    help="derive the model from the (first) measured results.json first")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a model parameter passed to armada-sim (repeatable)")
    ap.add_argument("--seed", type=int, default=None,
                    help="the first simulator seed (armada-sim's own default if absent)")
    ap.add_argument("--seeds", type=int, default=5,
                    help="simulator seeds per cell, the median taken (5)")
    ap.add_argument("--connect", default=None, choices=("eager", "lazy"),
                    help="armada-sim hotspot --connect: what the measured runtime used "
                         "(ARMADA_CONNECT; the simulator's default is eager)")
    ap.add_argument("--levels", default="0,11,20,100")
    ap.add_argument("--ops", default="fadd,putv")
    ap.add_argument("--topologies", default="fcg,mfcg")
    ap.add_argument("--jobs", type=int, default=2, help="simulator runs at once (2)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per simulator run")
    ap.add_argument("--bench-timeout", type=int, default=600,
                    help="seconds per benchmark launch (harness --timeout)")
    opts = ap.parse_args(argv)
    opts.np = sim_study.parse_list(opts.np)
    opts.levels = sim_study.parse_list(opts.levels)
    opts.ops = sim_study.parse_list(opts.ops, str)
    opts.topologies = sim_study.parse_list(opts.topologies, str)
    opts.budget = None
    opts.seed_list = [None]
    if opts.seeds > 1:
        opts.seed_list = [(opts.seed or 1) + i for i in range(opts.seeds)]
        opts.seed = None          # each run names its own
    if not os.path.exists(opts.sim):
        ap.error("no simulator at %s" % opts.sim)
    opts.sim = os.path.abspath(opts.sim)
    opts.build = os.path.abspath(opts.build)
    os.makedirs(opts.out, exist_ok=True)
    t0 = time.time()
    problems, commands = [], []

    # Measured side.
    if opts.measured:
        sources = [os.path.abspath(p) for p in opts.measured.split(",") if p]
    else:
        sources = [s for s in (run_harness(opts, n, problems, commands) for n in opts.np) if s]
    measured = {}
    for src in sources:
        try:
            with open(src) as fh:
                cells = measured_cells(json.load(fh), src)
        except (OSError, ValueError) as e:
            problems.append("cannot read %s: %s" % (src, e))
            continue
        for k, v in cells.items():
            measured.setdefault(k, v)

    # The model.
    if opts.calibrate_from_measured:
        if sources:
            model = calibrate(opts, sources[0], problems, commands)
            if model:
                opts.model = model
        else:
            problems.append("--calibrate-from-measured: no measured report to calibrate from")
    if opts.model:
        opts.model = os.path.abspath(opts.model)

    # Simulated side.
    keys = [(n, t, op, lv) for n in opts.np for t in opts.topologies for op in opts.ops
            for lv in opts.levels]
    specs = sim_specs(opts, keys)
    log("sim_validate: %d simulator runs, %d at once" % (len(specs), opts.jobs))
    runs = sim_study.run_all(specs, opts)
    # One command per cell in the report: its first seed's (the others
    # differ only in --seed).
    first = opts.seed_list[0]
    commands += [r["cmdline"] for r in runs
                 if r.get("meta", {}).get("seed") == first or first is None]
    if len(opts.seed_list) > 1:
        commands.append("# each cell also with --seed %s" % ", ".join(
            str(sd) for sd in opts.seed_list[1:]))
    for r in runs:
        if r.get("status") != "ok":
            problems.append("simulator run %s: %s (%s)" % (r["status"], r["cmdline"],
                                                           r.get("reason", "")))
    simulated = sim_cells(runs)
    rows = compare(measured, simulated, keys)
    missing = [r for r in rows if r["measured_us"] is None]
    if missing:
        problems.append("%d cells have no measured figure (e.g. np=%d %s %s level %d)" % (
            len(missing), missing[0]["np"], missing[0]["topology"], missing[0]["op"],
            missing[0]["level"]))

    model = next((r["model"] for r in runs if r.get("model")), None)
    meta = {"command": " ".join([os.path.basename(sys.argv[0])] + (argv if argv is not None
                                                                   else sys.argv[1:])),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "sim": opts.sim, "model_file": opts.model, "measured_sources": sources,
            "tolerance": TOLERANCE, "problems": problems, "commands": commands,
            "seconds": round(time.time() - t0, 1)}
    with open(os.path.join(opts.out, "validate.md"), "w") as fh:
        fh.write(report_md(rows, meta, model))
    with open(os.path.join(opts.out, "validate.json"), "w") as fh:
        json.dump(sim_study.json_safe({
            "meta": meta, "model": model, "cells": rows,
            "measured": [dict(v, key=list(k)) for k, v in sorted(measured.items())],
            "runs": [{k: v for k, v in r.items() if k not in ("records", "stdout", "stderr", "model", "cmd", "other_lines")}
                     for r in runs]}), fh, indent=1)
    both = [r for r in rows if r["within"] is not None]
    log("sim_validate: %d of %d cells within %d %%; %s" % (
        sum(1 for r in both if r["within"]), len(both), round(TOLERANCE * 100),
        os.path.join(opts.out, "validate.md")))
    failed = [p for p in problems if "no measured figure" not in p]
    for p in failed:
        log("sim_validate: problem: " + p)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
