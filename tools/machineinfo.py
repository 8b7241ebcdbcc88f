"""Facts about the machine a measurement ran on, shared by the benchmark
harness (tools/bench) and the FT comparison (tools/ft)."""
import os
import platform
import socket


def _first_field(path, prefix):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def machine():
    """host, cpu model, online cores, memory, kernel and OS of this machine."""
    cpu = _first_field("/proc/cpuinfo", "model name") or platform.processor() or "?"
    mem = "?"
    total = _first_field("/proc/meminfo", "MemTotal")
    if total:
        try:
            mem = "%.1f GiB" % (int(total.split()[0]) / 1048576)
        except ValueError:
            pass
    return {"host": socket.gethostname(), "cpu": cpu, "cores": os.cpu_count(),
            "memory": mem, "kernel": platform.release(), "os": platform.platform()}
