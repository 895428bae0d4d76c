#!/usr/bin/env python3
"""loop_stats.py: the innermost loop holding tensor-core instructions (HGMMA)
in `cuobjdump --dump-sass` output on stdin: its instructions per warp per
iteration, its HGMMA count, and the mix by opcode. The same measure as
../shared/tools/sass-loop-stats.

  loop_stats.py [--max-per-hgmma X] [--no-local] [--require OP]... < sass

Prints one line of figures and one of the mix; with --max-per-hgmma, exits 1
if the loop takes more than X instructions per HGMMA (2 if there is no such
loop). --no-local fails on any local-memory instruction (LDL, STL: spills)
anywhere in the kernel, --require OP where no instruction starts with OP
(UTMALDG: the TMA loads)."""
import argparse
import collections
import re
import sys


def opcodes(lines):
    for line in lines:
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m:
            yield re.sub(r"^@!?U?P\w+\s+", "", m.group(2).strip()).split()[0]


def innermost_hgmma_loop(lines):
    ins = []  # (address, opcode)
    texts = []
    for line in lines:
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if not m:
            continue
        addr, text = int(m.group(1), 16), m.group(2).strip()
        op = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]
        ins.append((addr, op))
        texts.append(text)
    hgmma = [a for a, op in ins if op.startswith("HGMMA")]
    best = None
    for (a, op), text in zip(ins, texts):
        if not op.startswith("BRA"):
            continue
        t = re.search(r"BRA(?:\.\S+)?\s+(?:`\(\S+\)\s*)?0x([0-9a-f]+)", text)
        if not t:
            continue
        target = int(t.group(1), 16)
        # A back edge around HGMMAs; not the jump back from a barrier
        # wait's slow path that ptxas places after the kernel's EXIT (the
        # range up to it spans the end of the kernel, not a loop).
        if (target < a and any(target <= h <= a for h in hgmma) and
                not any(target <= x <= a and o == "EXIT" for x, o in ins)):
            if best is None or a - target < best[1] - best[0]:
                best = (target, a)
    if best is None:
        return None
    return [op for a, op in ins if best[0] <= a <= best[1]], best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-per-hgmma", type=float)
    parser.add_argument("--no-local", action="store_true")
    parser.add_argument("--require", action="append", default=[])
    args = parser.parse_args()
    lines = sys.stdin.readlines()
    ops = list(opcodes(lines))
    failed = False
    local = [op for op in ops if op.split(".")[0] in ("LDL", "STL")]
    if args.no_local and local:
        print(f"FAIL: {len(local)} local-memory instructions ({', '.join(sorted(set(local)))}): "
              "spills or a stack")
        failed = True
    for op in args.require:
        if not any(o.startswith(op) for o in ops):
            print(f"FAIL: no {op} instruction")
            failed = True
    found = innermost_hgmma_loop(lines)
    if not found:
        print("no HGMMA in a loop")
        sys.exit(2 if args.max_per_hgmma is not None else 0)
    body, (start, end) = found
    n = sum(1 for op in body if op.startswith("HGMMA"))
    per = len(body) / n
    mix = collections.Counter(op.split(".")[0] for op in body)
    print(f"innermost HGMMA loop 0x{start:x}..0x{end:x}: {len(body)} instructions per warp "
          f"per iteration, {n} HGMMA, {per:.2f} per HGMMA")
    print("mix: " + ", ".join(f"{k} {v}" for k, v in mix.most_common()))
    if args.max_per_hgmma is not None and per > args.max_per_hgmma:
        print(f"FAIL: {per:.2f} instructions per HGMMA, more than the {args.max_per_hgmma} "
              "this check holds (a regression; if it is an intended trade, raise the "
              "bound in tests/CMakeLists.txt and say there what it buys)")
        failed = True
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
