#!/usr/bin/env python3
"""Where two runs of one kernel spend their warp samples differently.

  ncu_diff.py A.csv B.csv [N]

A and B: `ncu --import X.ncu-rep --page source --csv --print-source sass`
of the same kernel (say one tune-runner point on two shapes: `ncu
--launch-skip 1 --launch-count 1 -o X DIR/tune-runner --profile POINT:SHAPE`,
see docs/tools.md). Prints
each run's total, then the N (default 25) instructions whose share of the
samples grew most from A to B, with both shares and the SASS -- what the
slower run does more of.
"""
import csv
import sys


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    # The header is the first row naming an address column.
    for h, row in enumerate(rows):
        if any(c.strip() == "Address" for c in row):
            header = [c.strip() for c in row]
            break
    else:
        sys.exit("ncu_diff: no 'Address' column in " + path)
    addr = header.index("Address")
    source = next((i for i, c in enumerate(header) if c == "Source"), None)
    samples = next((i for i, c in enumerate(header)
                    if c.startswith("Warp Stall Sampling (All")), None)
    if samples is None:
        sys.exit("ncu_diff: no 'Warp Stall Sampling (All Samples)' column in " + path)
    out = {}
    for row in rows[h + 1:]:
        if len(row) <= max(addr, samples):
            continue
        try:
            n = float(row[samples].replace(",", "") or 0)
        except ValueError:
            continue
        text = row[source].strip() if source is not None else ""
        out[row[addr].strip()] = (n, text)
    return out


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    a, b = load(sys.argv[1]), load(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) == 4 else 25
    ta = sum(n for n, _ in a.values()) or 1.0
    tb = sum(n for n, _ in b.values()) or 1.0
    print("samples: A %d, B %d" % (ta, tb))
    rows = []
    for pc in set(a) | set(b):
        na = a.get(pc, (0.0, ""))[0] / ta
        nb = b.get(pc, (0.0, ""))[0] / tb
        text = (b.get(pc) or a.get(pc))[1]
        rows.append((nb - na, na, nb, pc, text))
    rows.sort(reverse=True)
    print("%8s %8s %8s  %-8s %s" % ("grew", "A %", "B %", "address", "SASS"))
    for d, na, nb, pc, text in rows[:top]:
        print("%+7.2f%% %7.2f%% %7.2f%%  %-8s %s" % (100 * d, 100 * na, 100 * nb, pc, text))


if __name__ == "__main__":
    main()
