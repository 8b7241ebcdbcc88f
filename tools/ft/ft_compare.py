#!/usr/bin/env python3
"""Run armada-ft variants side by side and report speedups over mpi-alltoall.

For every process count and variant the benchmark runs --repeats times; the
table reports the median time, Mop/s and communication initiation/completion
times (the paper's Figure 9) and the speedup over mpi-alltoall (Figures 7 and
10).  Writes into --out: results.md (table, machine, date, settings),
runs.csv (every run), speedup.png and comm.png.

  tools/ft/ft_compare.py --binary build/apps/ft/armada-ft --class A --np 2,4
  tools/ft/ft_compare.py --binary armada=build/apps/ft/armada-ft \
      --binary armci-mpi=build/apps/ft/armada-ft-armcimpi --class A --np 2,4
"""
import argparse
import csv
import datetime
import os
import re
import shlex
import statistics
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from machineinfo import machine  # noqa: E402  (tools/machineinfo.py)

VARIANTS = ["mpi-alltoall", "put-exchange", "put-slabs", "put-pencils",
            "mpi-slabs", "mpi-pencils"]
ONE_SIDED_OVERLAP = ["put-slabs", "put-pencils"]
TWO_SIDED_OVERLAP = ["mpi-slabs", "mpi-pencils"]
RESULT_RE = re.compile(r"^RESULT (.*)$", re.M)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", action="append", default=[], metavar="[LABEL=]PATH",
                    help="armada-ft executable; repeat to compare builds (e.g. "
                    "armada=build/apps/ft/armada-ft armci-mpi=build/apps/ft/armada-ft-armcimpi)")
    ap.add_argument("--class", dest="cls", default="A")
    ap.add_argument("--np", default="2,4", help="comma-separated process counts")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=None, help="output folder (default ft-results-DATE)")
    ap.add_argument("--mpirun", default="mpirun --allow-run-as-root --oversubscribe "
                    "--bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1")
    ap.add_argument("--env", action="append", default=[], metavar="VAR=VALUE",
                    help="extra environment for every run (repeatable)")
    ap.add_argument("--extra", default="", help="extra armada-ft arguments")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per run")
    ap.add_argument("--label", default="", help="free text recorded with the settings")
    return ap.parse_args()


def run_one(args, binary, np_, variant, env):
    cmd = shlex.split(args.mpirun) + ["-np", str(np_), binary, "--class", args.cls,
                                      "--variant", variant] + shlex.split(args.extra)
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                           timeout=args.timeout)
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        out, rc = "", "timeout"
    m = RESULT_RE.search(out)
    if not m:
        sys.stderr.write("run failed (rc=%s): %s\n%s\n" % (rc, " ".join(cmd), out[-2000:]))
        return None
    rec = dict(kv.split("=", 1) for kv in m.group(1).split())
    rec["rc"] = str(rc)
    return rec


def median(recs, key):
    return statistics.median(float(r[key]) for r in recs)


def summarize(runs, nps, libs, variants):
    rows = []
    for lib in libs:
        for np_ in nps:
            rows += summarize_one(runs, np_, lib, variants)
    return rows


def summarize_one(runs, np_, lib, variants):
    rows = []
    base = runs.get((np_, lib, "mpi-alltoall"))
    tbase = median(base, "time") if base else None
    # the same repeat's mpi-alltoall run: repeats are interleaved, so a pair
    # saw the same state of the machine
    base_rep = {r["_rep"]: float(r["time"]) for r in base or []}
    for v in variants:
        recs = runs.get((np_, lib, v))
        if not recs:
            rows.append({"np": np_, "lib": lib, "variant": v, "ok": False})
            continue
        t = median(recs, "time")
        paired = [base_rep[r["_rep"]] / float(r["time"]) for r in recs if r["_rep"] in base_rep]
        rows.append({
            "np": np_, "lib": lib, "variant": v, "time": t, "mops": median(recs, "mops"),
            "init": median(recs, "init"), "wait": median(recs, "wait"),
            "msgs": int(recs[0]["msgs"]) // np_,
            "verified": all(r["verified"] == "1" and r["rc"] == "0" for r in recs),
            "speedup": tbase / t if tbase else None,
            "per_repeat": (min(paired), max(paired)) if paired else None, "ok": True})
    return rows


def best(rows, np_, lib, names):
    cand = [r for r in rows if r["np"] == np_ and r["lib"] == lib and r["variant"] in names
            and r["ok"]]
    return min(cand, key=lambda r: r["time"]) if cand else None


def write_markdown(path, args, info, rows, nps, libs, started):
    L = ["# armada-ft: variants side by side, class %s" % args.cls, ""]
    L.append("Date: %s  " % started)
    L.append("Machine: %s, %s, %s cores, %s, %s  " % (info["host"], info["cpu"], info["cores"],
                                                     info["memory"], info["os"]))
    for lib, binary in libs.items():
        L.append("Binary %s: `%s`  " % (lib, binary))
    L.append("Launcher: `%s -np N`  " % args.mpirun)
    if args.env:
        L.append("Environment: `%s`  " % " ".join(args.env))
    if args.extra:
        L.append("Extra arguments: `%s`  " % args.extra)
    if args.label:
        L.append("Label: %s  " % args.label)
    L.append("Each cell: median of %d runs. Times in seconds; comm init/complete are the mean "
             "over ranks of the time spent initiating and completing communication; per repeat: "
             "the lowest and highest speedup over the mpi-alltoall run of the same repeat "
             "(repeats are interleaved)." % args.repeats)
    L.append("")
    L.append("| library | procs | variant | time (s) | Mop/s | comm init (s) "
             "| comm complete (s) | msgs/proc | speedup vs mpi-alltoall | per repeat | verified |")
    L.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        if not r["ok"]:
            L.append("| %s | %d | %s | failed | | | | | | | no |" % (r["lib"], r["np"],
                                                                  r["variant"]))
            continue
        pr = r["per_repeat"]
        L.append("| %s | %d | %s | %.3f | %.1f | %.4f | %.4f | %d | %s | %s | %s |" % (
            r["lib"], r["np"], r["variant"], r["time"], r["mops"], r["init"], r["wait"], r["msgs"],
            "%.2fx" % r["speedup"] if r["speedup"] else "-",
            "%.2f-%.2f" % pr if pr else "-", "yes" if r["verified"] else "NO"))
    L.append("")
    for lib, np_ in [(lib, n) for lib in libs for n in nps]:
        b1 = best(rows, np_, lib, ONE_SIDED_OVERLAP)
        b2 = best(rows, np_, lib, TWO_SIDED_OVERLAP)
        if b1 and b2:
            L.append("- %s, %d processes: best one-sided overlapped %s %.2fx, best two-sided "
                     "overlapped %s %.2fx over mpi-alltoall; one-sided/two-sided %.2fx" % (
                         lib, np_, b1["variant"], b1["speedup"] or 0, b2["variant"],
                         b2["speedup"] or 0, b2["time"] / b1["time"]))
    L.append("")
    L.append("![speedup](speedup.png)")
    L.append("![communication](comm.png)")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


# ---- plotting: matplotlib when present, else a small built-in PNG painter --
COLORS = [(90, 90, 90), (70, 130, 180), (46, 139, 87), (218, 112, 40), (160, 80, 160),
          (200, 60, 60)]

# 3x5 glyphs, rows top to bottom, 3 bits per row (msb = left column)
FONT = {
    "0": "75557", "1": "26227", "2": "71747", "3": "71717", "4": "55711", "5": "74717",
    "6": "74757", "7": "71111", "8": "75757", "9": "75717", "A": "25755", "B": "65656",
    "C": "34443", "D": "65556", "E": "74647", "F": "74644", "G": "34553", "H": "55755",
    "I": "72227", "J": "11153", "K": "55655", "L": "44447", "M": "57755", "N": "65555",
    "O": "25552", "P": "65644", "Q": "25563", "R": "65655", "S": "34216", "T": "72222",
    "U": "55557", "V": "55552", "W": "55775", "X": "55255", "Y": "55222", "Z": "71247",
    "-": "00700", ".": "00002", "/": "11244", "(": "24442", ")": "42224", ":": "02020",
    " ": "00000", "%": "51245", "=": "07070",
}


class Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray(b"\xff" * (w * h * 3))

    def rect(self, x0, y0, x1, y1, c):
        for y in range(max(0, y0), min(self.h, y1)):
            row = y * self.w * 3
            for x in range(max(0, x0), min(self.w, x1)):
                self.px[row + 3 * x:row + 3 * x + 3] = bytes(c)

    def text(self, x, y, s, c=(0, 0, 0), scale=2):
        for ch in s.upper():
            g = FONT.get(ch, FONT[" "])
            for r, bits in enumerate(g):
                b = int(bits, 16)
                for col in range(3):
                    if b & (4 >> col):
                        self.rect(x + col * scale, y + r * scale, x + (col + 1) * scale,
                                  y + (r + 1) * scale, c)
            x += 4 * scale

    def save(self, path):
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3])
                       for y in range(self.h))

        def chunk(t, d):
            return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(
                ">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)) + chunk(
                b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def bar_chart(path, title, groups, series, values, ylabel, ref_line=None):
    """values[g][s] -> float or None; one group of bars per process count."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 4.5))
        width = 0.8 / len(series)
        for si, s in enumerate(series):
            xs = [gi + si * width for gi in range(len(groups))]
            ax.bar(xs, [values[gi][si] or 0 for gi in range(len(groups))], width, label=s,
                   color=[c / 255 for c in COLORS[si % len(COLORS)]])
        ax.set_xticks([gi + 0.4 - width / 2 for gi in range(len(groups))])
        ax.set_xticklabels(groups)
        if ref_line is not None:
            ax.axhline(ref_line, color="black", linewidth=0.8)
        vals = [v for row in values for v in row if v and v > 0]
        if vals and max(vals) > 10 * min(vals):
            ax.set_yscale("log")   # values spanning decades stay readable
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return
    except ImportError:
        pass
    W, H, left, bottom, top = 900, 480, 70, 60, 50
    cv = Canvas(W, H)
    vmax = max([v for row in values for v in row if v] + [ref_line or 0, 1e-9]) * 1.15
    ph = H - top - bottom
    cv.text(left, 15, title, scale=3)
    cv.text(5, top - 18, ylabel)
    cv.rect(left, top, left + 2, H - bottom, (0, 0, 0))
    cv.rect(left, H - bottom, W - 190, H - bottom + 2, (0, 0, 0))
    for i in range(6):
        v = vmax * i / 5
        y = H - bottom - int(ph * i / 5)
        cv.rect(left - 6, y, left, y + 1, (0, 0, 0))
        cv.text(5, y - 5, "%.2f" % v)
    if ref_line is not None:
        y = H - bottom - int(ph * ref_line / vmax)
        cv.rect(left, y, W - 190, y + 1, (0, 0, 0))
    gw = (W - 190 - left - 20) / max(1, len(groups))
    bw = int(gw * 0.8 / len(series))
    for gi, g in enumerate(groups):
        gx = int(left + 10 + gi * gw)
        for si in range(len(series)):
            v = values[gi][si]
            if not v:
                continue
            x = gx + si * bw
            cv.rect(x, H - bottom - int(ph * v / vmax), x + bw - 2, H - bottom,
                    COLORS[si % len(COLORS)])
        cv.text(gx + int(gw * 0.3), H - bottom + 12, g)
    for si, s in enumerate(series):
        y = top + 10 + si * 22
        cv.rect(W - 180, y, W - 166, y + 12, COLORS[si % len(COLORS)])
        cv.text(W - 160, y + 1, s)
    cv.save(path)


def main():
    args = parse_args()
    nps = [int(x) for x in args.np.split(",") if x]
    variants = [v for v in args.variants.split(",") if v]
    started = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    out = args.out or "ft-results-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    for kv in args.env:
        k, v = kv.split("=", 1)
        env[k] = v
    info = machine()

    libs = {}
    for item in args.binary or ["build/apps/ft/armada-ft"]:
        lib, _, path = item.rpartition("=")
        libs[lib or os.path.basename(path)] = path

    runs = {}
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["library", "np", "variant", "repeat", "time", "mops", "init", "wait",
                    "msgs", "verified", "rc"])
        # repeats outermost so that slow drifts of the machine hit every run alike
        for rep in range(args.repeats):
            for np_ in nps:
                for lib, binary in libs.items():
                    for v in variants:
                        rec = run_one(args, binary, np_, v, env)
                        if rec is None:
                            continue
                        rec["_rep"] = rep
                        runs.setdefault((np_, lib, v), []).append(rec)
                        w.writerow([lib, np_, v, rep, rec["time"], rec["mops"], rec["init"],
                                    rec["wait"], rec["msgs"], rec["verified"], rec["rc"]])
                        f.flush()
                        print("%s np=%d %-13s rep %d: %8.3f s  verified=%s" % (
                            lib, np_, v, rep, float(rec["time"]), rec["verified"]), flush=True)

    rows = summarize(runs, nps, libs, variants)
    write_markdown(os.path.join(out, "results.md"), args, info, rows, nps, libs, started)
    keys = [(lib, n) for lib in libs for n in nps]
    groups = [("%s %dP" % (lib, n)) if len(libs) > 1 else "%d PROCS" % n for lib, n in keys]
    by = {(r["lib"], r["np"], r["variant"]): r for r in rows}
    sp = [[(by[(lib, n, v)].get("speedup") if by[(lib, n, v)]["ok"] else None)
           for v in variants] for lib, n in keys]
    bar_chart(os.path.join(out, "speedup.png"), "FT class %s: speedup over mpi-alltoall"
              % args.cls, groups, variants, sp, "speedup", ref_line=1.0)
    cm = [[(by[(lib, n, v)]["init"] + by[(lib, n, v)]["wait"] if by[(lib, n, v)]["ok"]
            else None) for v in variants] for lib, n in keys]
    bar_chart(os.path.join(out, "comm.png"), "FT class %s: comm init + complete (s)"
              % args.cls, groups, variants, cm, "seconds")
    with open(os.path.join(out, "results.md")) as f:
        print(f.read())
    ok = all(r["ok"] and r["verified"] for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
