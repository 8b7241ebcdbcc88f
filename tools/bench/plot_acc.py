#!/usr/bin/env python3
"""Accumulate by protocol, as gemini's Figs. 14 and 15 (issue 23 item 3,
decision 060).

Runs build/bench/armada-bench-acc on 2 processes as 2 virtual nodes
(ARMADA_PPN=1) once per accumulate protocol (ARMADA_ACC_PROTO=server and
origin) and per transport setting (UCX's defaults, and UCX_TLS=tcp,self),
keeps each run's output in OUT/acc-<transport>-<proto>.txt, prints per
transport the table size / server MB/s / origin MB/s (and us), with the
crossover: the smallest size from which the origin protocol is faster at
every larger size measured ("none" when the server path never loses), and
draws OUT/acc_<transport>.png: (a) latency of small accumulates, 8 B to
4 KiB (Fig. 14), (b) bandwidth of large ones, 4 KiB up (Fig. 15).

    python3 tools/bench/plot_acc.py --build build --out acc-results
    python3 tools/bench/plot_acc.py --from acc-results     # plot saved runs
"""
import argparse
import os
import re
import subprocess
import sys

PROTOS = ("server", "origin")
TRANSPORTS = {"default": {}, "tcp": {"UCX_TLS": "tcp,self"}}
LINE = re.compile(r"^RESULT (.*)$")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build", help="build folder holding bench/")
    p.add_argument("--out", default="acc-results", help="folder for outputs and plots")
    p.add_argument("--from", dest="src", help="plot the runs saved in this folder")
    p.add_argument("--min", default="8", help="smallest size (-m)")
    p.add_argument("--max", default="4M", help="largest size (-M)")
    p.add_argument("--reps", default="5", help="repetitions per size (-r)")
    p.add_argument("--transports", default="default,tcp",
                   help="comma-separated of: " + ", ".join(TRANSPORTS))
    p.add_argument("--mpirun", default="mpirun --allow-run-as-root --oversubscribe "
                   "--bind-to none --mca btl self,vader --mca mpi_yield_when_idle 1",
                   help="launcher and its flags")
    p.add_argument("--timeout", type=int, default=600, help="seconds per run")
    return p.parse_args()


def run_one(args, tls, proto, path):
    env = dict(os.environ)
    env.update(TRANSPORTS[tls])
    env["ARMADA_PPN"] = "1"
    env["ARMADA_ACC_PROTO"] = proto
    exports = []
    for k in ["ARMADA_PPN", "ARMADA_ACC_PROTO"] + list(TRANSPORTS[tls]):
        exports += ["-x", k]
    cmd = args.mpirun.split() + exports + [
        "-np", "2", os.path.join(args.build, "bench", "armada-bench-acc"),
        "-m", args.min, "-M", args.max, "-r", args.reps]
    print("running:", " ".join(cmd), "with", tls, "transports,", proto, file=sys.stderr)
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    with open(path, "w") as f:
        f.write(res.stdout)
        f.write(res.stderr)
    if res.returncode != 0:
        sys.exit("%s failed (status %d), see %s" % (cmd[-9], res.returncode, path))


def parse(path):
    """{size: {"us": value, "MB/s": value}} from one run's RESULT lines."""
    out = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            kv = dict(item.split("=", 1) for item in m.group(1).split() if "=" in item)
            if kv.get("op") != "acc":
                continue
            out.setdefault(int(kv["size"]), {})[kv["unit"]] = float(kv["value"])
    return out


def crossover(data):
    """Smallest size from which origin beats server at every larger size."""
    sizes = sorted(set(data["server"]) & set(data["origin"]))
    cross = None
    for s in reversed(sizes):
        if data["origin"][s]["MB/s"] > data["server"][s]["MB/s"]:
            cross = s
        else:
            break
    return cross


def table(tls, data):
    sizes = sorted(set(data["server"]) & set(data["origin"]))
    print("\naccumulate, 2 virtual nodes, %s transports" % tls)
    print("%10s %12s %12s %10s %10s  faster" % ("bytes", "server MB/s", "origin MB/s",
                                                "server us", "origin us"))
    for s in sizes:
        a, b = data["server"][s], data["origin"][s]
        print("%10d %12.1f %12.1f %10.2f %10.2f  %s" % (
            s, a["MB/s"], b["MB/s"], a["us"], b["us"],
            "origin" if b["MB/s"] > a["MB/s"] else "server"))
    c = crossover(data)
    print("crossover (origin faster from here up): %s" % (c if c else "none"))


def plot(tls, data, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {"server": ("tab:blue", "o", "server path"),
              "origin": ("tab:orange", "s", "origin: lock, get, acc, put (3 buffers)")}
    for proto in PROTOS:
        color, marker, label = styles[proto]
        small = sorted(s for s in data[proto] if s <= 4096)
        large = sorted(s for s in data[proto] if s >= 4096)
        a.plot(small, [data[proto][s]["us"] for s in small], marker=marker, color=color,
               label=label)
        b.plot(large, [data[proto][s]["MB/s"] for s in large], marker=marker, color=color,
               label=label)
    a.set_title("small accumulates: latency (cf. gemini Fig. 14)")
    a.set_ylabel("us per accumulate + fence")
    b.set_title("large accumulates: bandwidth (cf. gemini Fig. 15)")
    b.set_ylabel("MB/s")
    for ax in (a, b):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bytes")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("ARMCI_Acc (double) between 2 virtual nodes, %s transports" % tls)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main():
    args = parse_args()
    folder = args.src or args.out
    os.makedirs(folder, exist_ok=True)
    for tls in [t for t in args.transports.split(",") if t]:
        if tls not in TRANSPORTS:
            sys.exit("unknown transport setting %r" % tls)
        data = {}
        for proto in PROTOS:
            path = os.path.join(folder, "acc-%s-%s.txt" % (tls, proto))
            if not args.src:
                run_one(args, tls, proto, path)
            data[proto] = parse(path)
            if not data[proto]:
                sys.exit("no accumulate figures in %s" % path)
        table(tls, data)
        png = os.path.join(folder, "acc_%s.png" % tls)
        plot(tls, data, png)
        print("plot:", png)


if __name__ == "__main__":
    main()
