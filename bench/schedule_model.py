#!/usr/bin/env python3
"""How long the persistent indexer's blocks take under each work order, in
a model: every item costs A us plus B us a KV tile on its multiprocessor
(the defaults, A = 0.58, B = 0.37 and LAUNCH = 4.3: a line through the
persistent kernel of three groups on full windows of 8 to 64 tiles an item,
timed by a tune runner on an H200 at ~1.7 GHz, 2026-12-04),
every launch LAUNCH us more, every multiprocessor runs at the same
speed. Causal windows as the peer benchmark's (ks = 0, ke = s * S_kv / S + 1),
two queries an item, tiles of 64 KV rows.

Prints, for each shape, the launch's time under the fixed orders (linear,
last first, zigzag: persistent()'s WorkOrder) and under dynamic items
(each block claims its next item when it starts one -- two item buffers,
AHEAD = 1 -- or one further ahead with three), against the mean: what a
perfect balance would give. The model leaves out what differs between
multiprocessors (clocks, L2 distance), which dynamic items absorb too, and
the tail of the last items' drains.

With QUERIES = 4 an item holds four queries and a tile's gemm twice the
columns (B doubled), the cost of an item assumed the same: half the items.

    bench/schedule_model.py [A B LAUNCH [QUERIES]]
"""
import heapq
import math
import sys

SMS = 132


def item_tiles(S, T, BQ=2, BK=64):
    tiles = []
    for i in range((S + BQ - 1) // BQ):
        hi = max(min((min(i * BQ + r, S - 1)) * T // S + 1, T) for r in range(BQ))
        tiles.append(math.ceil(hi / BK))
    return tiles


def fixed(order, tiles, a, b):
    n, load = len(tiles), [0.0] * SMS
    for p in range(n):
        rnd, j = divmod(p, SMS)
        item = p if order == "linear" else n - 1 - p
        m = min(SMS, n - rnd * SMS)
        block = m - 1 - j if order == "zigzag" and rnd % 2 else j
        load[block] += a + b * tiles[item]
    return max(load), sum(load) / SMS


def dynamic(order, tiles, a, b, ahead):
    n = len(tiles)
    seq = list(range(n)) if order == "linear" else list(range(n - 1, -1, -1))
    claimed = [[seq[k]] for k in range(SMS)]
    nxt, end = SMS, 0.0
    starts = [(0.0, k) for k in range(SMS)]
    heapq.heapify(starts)
    while starts:
        t, k = heapq.heappop(starts)
        if not claimed[k]:
            end = max(end, t)
            continue
        item = claimed[k].pop(0)
        # Starting an item frees the previous item's buffer: claim into it.
        while len(claimed[k]) < ahead and nxt < n:
            claimed[k].append(seq[nxt])
            nxt += 1
        heapq.heappush(starts, (t + a + b * tiles[item], k))
    return end


def main():
    a, b, launch = (float(x) for x in sys.argv[1:4]) if len(sys.argv) > 3 else (0.58, 0.37, 4.3)
    queries = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    b *= queries / 2
    print(f"A = {a} us an item, B = {b} us a tile, {launch} us a launch, {SMS} multiprocessors, "
          f"{queries} queries an item")
    for S, T in [(4096, 1024), (4096, 4096), (16384, 4096), (65536, 16384)]:
        tiles = item_tiles(S, T, BQ=queries)
        cols = []
        for order in ("linear", "last first", "zigzag"):
            worst, mean = fixed(order, tiles, a, b)
            cols.append(f"{order} {worst + launch:.1f}")
        for order in ("linear", "last first"):
            for ahead in (1, 2):
                cols.append(f"dynamic {order}/{ahead + 1} buf "
                            f"{dynamic(order, tiles, a, b, ahead) + launch:.1f}")
        print(f"S={S} S_kv={T} ({len(tiles)} items): balanced {mean + launch:.1f} us; "
              + "; ".join(cols))


if __name__ == "__main__":
    main()
