#!/usr/bin/env python3
"""loop_stats.py: the innermost loop holding tensor-core instructions (HGMMA)
in `cuobjdump --dump-sass` output on stdin: its instructions per warp per
iteration, its HGMMA count, and the mix by opcode. The same measure as
../shared/tools/sass-loop-stats.

  loop_stats.py [--max-per-hgmma X] < sass

Prints one line of figures and one of the mix; with --max-per-hgmma, exits 1
if the loop takes more than X instructions per HGMMA (2 if there is no such
loop)."""
import argparse
import collections
import re
import sys


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
        if target < a and any(target <= h <= a for h in hgmma):
            if best is None or a - target < best[1] - best[0]:
                best = (target, a)
    if best is None:
        return None
    return [op for a, op in ins if best[0] <= a <= best[1]], best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-per-hgmma", type=float)
    args = parser.parse_args()
    found = innermost_hgmma_loop(sys.stdin)
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
              "this check holds (a regression; if it is an intended trade, say so in "
              "docs/PERF.md and raise the bound in tests/CMakeLists.txt)")
        sys.exit(1)


if __name__ == "__main__":
    main()
