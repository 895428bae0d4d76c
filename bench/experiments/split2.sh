#!/usr/bin/env bash
# Four queries an item as two gemms of two queries' width (split=true
# split_queries=2, queries=4), beside the two-query kernels of the tune
# table, in one runner (its points timed in turn): half the items, so half
# the item starts and ends that cost ~0.6 us each at S = 4096 (docs/PERF.md,
# sessions 11 and 18), for tiles of the same width -- unlike session 17's
# four one-query gemms (m64n64), which lost 10-20 %. With queries=0 the
# same split parameters give one part, the two-query kernel itself (the
# runner shares identical kernels). Spilling points are timed too (two
# groups overlapped with both parts' weights in registers spills 96 bytes;
# three groups of four queries much more). cooperative=true: both groups on
# every KV tile, a part each (each holds one part's weights: no spills),
# two to four stages. Not S = 65536 (its 4 GB of logits a point to compare
# would take most of the call; long items gain least). The bench's data:
# normal.
#   bench/experiments/split2.sh [BUILD_DIR] [OUT_DIR]
#   TUNE_DIRS=OUT_DIR scripts/stage-gpu.sh
#   there: TUNE=split2 NO_TESTS=1 bash bench/experiments/tests-and-rounds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-split2}
rm -rf "$out"
"$build/tools/minitile" tune indexer_fwd -p heads=64 -p dim=128 -p persistent=true \
  -p dynamic=true -p last_first=true -p split=true -p split_queries=2 \
  --space queries=0,4 --space warpgroups=3,2 --space overlap=false,true \
  --space item_buffers=2,3 --space cooperative=false,true --space stages=4,3,2 --allow-spills \
  --shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=4096,S_kv=4096 --init ks=0 --init 'ke=iota*S_kv/S+1' --init q=normal:0,1 \
  --init kv=normal:0,1 -o "$out"
