#!/usr/bin/env python3
"""The persistent indexer's launch in a fluid model with the memory in it
(docs/PERF.md, session 20): schedule_model.py's items (A us an item, B us
a tile on its multiprocessor), each multiprocessor holding BUFFERS items'
query tiles, which it fetches in order (one at a time, as its copies go
out) at a share of the DRAM's rate -- the rate split evenly among the
multiprocessors fetching, each at most SM_GBS. An item's tiles start when
its queries have landed. Dynamic items, longest first; four queries an
item (81 KB: queries, weights, bounds and its row of logits).

Prints, for each DRAM rate, the launch's time and the multiprocessors'
mean idle time in its first and last 8 us: what the start's fetch of
every first item costs, and whether the short items at the end wait on
the memory.

    bench/experiments/schedule_memory.py [S S_kv [A B]]
"""
import math
import sys

SMS = 132


def item_tiles(S, T, BQ=4, BK=64):
    return [math.ceil(max(min(min(i * BQ + r, S - 1) * T // S + 1, T) for r in range(BQ)) / BK)
            for i in range((S + BQ - 1) // BQ)]


def launch(seq, a, b, dram_tbs, sm_gbs=110.0, item_bytes=81e3, buffers=2, dt=0.005):
    nxt = 0
    loads = [[] for _ in range(SMS)]  # per multiprocessor: [tiles, bytes left], in order
    busy_until = [None] * SMS
    trace = []

    def claim(k):
        nonlocal nxt
        if nxt < len(seq):
            loads[k].append([seq[nxt], item_bytes])
            nxt += 1

    for k in range(SMS):
        for _ in range(buffers):
            claim(k)
    t = 0.0
    while True:
        fetching = [k for k in range(SMS) if loads[k] and any(l[1] > 0 for l in loads[k])]
        if fetching:
            rate = min(dram_tbs * 1e6 / len(fetching), sm_gbs * 1e3)  # bytes a us
            for k in fetching:
                next(l for l in loads[k] if l[1] > 0)[1] -= rate * dt
        done, busy = True, 0
        for k in range(SMS):
            if busy_until[k] is None and loads[k] and loads[k][0][1] <= 0:
                busy_until[k] = a + b * loads[k].pop(0)[0]
                claim(k)
            if busy_until[k] is not None:
                busy += 1
                busy_until[k] -= dt
                if busy_until[k] <= 0:
                    busy_until[k] = None
            done &= busy_until[k] is None and not loads[k]
        trace.append(busy)
        t += dt
        if done:
            edge = int(8 / dt)
            idle = lambda part: sum(SMS - x for x in part) * dt / SMS
            return t, idle(trace[:edge]), idle(trace[-edge:])


def main():
    S, T = (int(x) for x in sys.argv[1:3]) if len(sys.argv) > 2 else (4096, 1024)
    a, b = (float(x) for x in sys.argv[3:5]) if len(sys.argv) > 4 else (0.3, 0.74)
    tiles = sorted(item_tiles(S, T), reverse=True)
    print(f"S={S} S_kv={T}: {len(tiles)} items, {sum(tiles)} tiles; A = {a} us an item, "
          f"B = {b} us a tile; the tiles alone {sum(tiles) * b / SMS:.1f} us")
    for dram in (2.8, 3.8, 1000.0):
        total, first, last = launch(tiles, a, b, dram)
        print(f"  DRAM {dram:6.1f} TB/s: {total:5.1f} us; idle in the first 8 us {first:.2f} us, "
              f"in the last 8 us {last:.2f} us")


if __name__ == "__main__":
    main()
