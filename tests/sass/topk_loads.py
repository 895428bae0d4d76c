#!/usr/bin/env python3
"""topk_loads.py: topk's register path, read from `cuobjdump --dump-sass` on
stdin. Each run of row loads at fixed offsets from one pointer (the entries
lo + u * threads + tid of one thread, u = 0, 1, ...; `--stride` bytes apart)
must hold `--loads` LDGs with nothing computed from a loaded value between
the first and the last: were the keys' float work (FMNMX, FADD) moved among
the loads, ptxas would wait for each load before issuing the next -- right
answers, each row's loads one memory latency after another.

  topk_loads.py --loads N --stride B [--runs R] < sass

Exits 1 unless at least R such runs (one per copy of the path) are whole."""
import argparse
import re
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loads", type=int, required=True)
    parser.add_argument("--stride", type=int, required=True)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    ins = []
    for line in sys.stdin:
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m:
            ins.append(m.group(2).strip())
    wanted = {args.stride * u for u in range(args.loads)}
    whole = 0
    i = 0
    while i < len(ins):
        m = re.search(r"LDG\.E\S* R\d+, desc\[\w+\]\[(R\d+)\.64(?:\+(0x[0-9a-f]+))?\]", ins[i])
        if not m:
            i += 1
            continue
        # The loads from this pointer, up to the first instruction that uses
        # a loaded value's float (FMNMX or FADD) or a barrier.
        base, seen, j = m.group(1), set(), i
        while j < len(ins) and not re.search(r"\b(FMNMX|FADD|BAR)\b", ins[j]):
            m2 = re.search(r"LDG\.E\S* R\d+, desc\[\w+\]\[(R\d+)\.64(?:\+(0x[0-9a-f]+))?\]", ins[j])
            if m2 and m2.group(1) == base:
                seen.add(int(m2.group(2) or "0", 16))
            j += 1
        if wanted <= seen:
            whole += 1
            print(f"{len(wanted)} loads issued together at instruction {i}")
        i = j + 1
    print(f"{whole} whole runs of {args.loads} loads ({args.runs} wanted)")
    sys.exit(0 if whole >= args.runs else 1)


if __name__ == "__main__":
    main()
