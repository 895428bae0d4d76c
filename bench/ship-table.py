#!/usr/bin/env python3
"""Makes a shipped table (kernels/tuned/KERNEL.DEVICE.txt) from a table a
tune runner wrote.

  bench/ship-table.py RUNNER_TABLE --key heads,dim,clean --driver 580.95.05 \\
      --command "bench/retune-shipped.sh; GPU_RUN=tune .gpu/gpu-run.sh" > kernels/tuned/K.h100.txt

A runner's key holds every parameter it did not search. A shipped line's key
holds only those that choose what the kernel computes (--key: heads, dim,
clean; windows; ...), so that a compile with other schedule values still
finds it; the rest move to the values, which -p overrides. The header says
the device, driver, date and command, and each line keeps its median times.
--drop leaves parameters out altogether: a top-k tuned with scores applies
to a compile without them too.
"""
import argparse
import re
import sys


def params(text):
    return [tuple(p.split("=", 1)) for p in text.split()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("table")
    ap.add_argument("--key", default="", help="the parameters that stay in the key, comma-separated")
    ap.add_argument("--drop", default="",
                    help="parameters left out of the line altogether (a compile's own value "
                         "stands: scores, sorted), comma-separated")
    ap.add_argument("--driver", required=True, help="the driver version the runner ran under")
    ap.add_argument("--command", required=True, help="how the table was made")
    ap.add_argument("--note", action="append", default=[], help="a line for the header (repeatable)")
    a = ap.parse_args()
    keep = [k for k in a.key.split(",") if k]
    drop = [k for k in a.drop.split(",") if k]
    header, lines = [], []
    for raw in open(a.table):
        raw = raw.rstrip("\n")
        if raw.startswith("#") or not raw.strip():
            header.append(raw)
            continue
        body, _, comment = raw.partition("#")
        left, _, values = body.partition(" : ")
        shape = ""
        if " @ " in left:
            left, _, shape = left.partition(" @ ")
        kernel, *key = left.split()
        key = params(" ".join(key))
        moved = [kv for kv in key if kv[0] not in keep and kv[0] not in drop]
        key = [kv for kv in key if kv[0] in keep]
        given = {k for k, _ in params(values)}
        values = [kv for kv in moved if kv[0] not in given] + params(values)
        text = " ".join([kernel] + [f"{k}={v}" for k, v in key])
        if shape:
            text += " @ " + shape.strip()
        text += " : " + " ".join(f"{k}={v}" for k, v in values)
        if comment.strip():
            text += "  # " + comment.strip()
        lines.append((kernel, text))
    if not lines:
        sys.exit(f"ship-table: {a.table} holds no line")
    # The runner's first line: "# minitile tune table: K for ARCH, on DEVICE (N
    # multiprocessors), DATE; median of ..."
    m = re.match(r"# minitile tune table: (\S+) for (\S+), on (.+?) \((\d+) multiprocessors\), "
                 r"(\d{4}-\d\d-\d\d); (.*)", header[0] if header else "")
    if not m:
        sys.exit(f"ship-table: {a.table} does not start with a tune runner's header")
    kernel, arch, device, sms, date, how = m.groups()
    shapes = next((h[len("# shapes: "):] for h in header if h.startswith("# shapes: ")), "")
    made = next((h[len("# made by: "):] for h in header if h.startswith("# made by: ")), "")
    out = [
        f"# {kernel}, {arch}: measured on an {device} ({sms} SMs), driver {a.driver}, {date}.",
        f"# Command: {a.command}",
        f"# The runner: {made}",
        f"# Timing: {how.rstrip('.')}; each line's median times beside it (shapes: {shapes}).",
        "# Read by: minitile compile and minitile_add_kernel_library, where -p gives no value",
        "# (--untuned / UNTUNED: the generator's defaults); a launcher picks the line of the",
        "# shape nearest each call's sizes.",
    ] + [f"# {n}" for n in a.note]
    print("\n".join(out + [t for _, t in lines]))


if __name__ == "__main__":
    main()
