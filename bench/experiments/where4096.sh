#!/usr/bin/env bash
# Where S = 4096, S_kv = 1024 loses its last points (docs/PERF.md, session
# 20): the table's pick (four queries an item as two parts, two groups
# taking whole tiles, producer_registers=24) on
#   - the causal windows at S = 2048, 4096 and 8192 (ratio 4), its items
#     handed out dynamically longest first or in a fixed order;
#   - full windows (ke past S_kv, clamped), S_kv = 512: every item eight
#     tiles, the causal case's work without its short items; at S = 1024 to
#     16384, so the launch's fixed cost and an item's follow from a line;
#   - full windows of one, two and sixteen tiles (S_kv = 64, 128, 1024) at
#     S = 4096: whether items of one tile are held to the memory's rate
#     (each brings its 64 KiB of queries for one tile's gemm).
# The bench's data (normal). Two runners, staged and run with
#   TUNE_DIRS="build/tune-worder build/tune-wflat" scripts/stage-gpu.sh
#   there: TUNE="worder wflat" NO_TESTS=1 NO_BENCH=1 bash bench/experiments/tests-and-rounds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
minitile=$build/tools/minitile
source bench/experiments/pick.sh
params=("${pick_params[@]}")
pick=("${params[@]}" "${pick_inits[@]}")
rm -rf "$build/tune-worder" "$build/tune-wflat"
"$minitile" tune indexer_fwd "${pick[@]}" --space dynamic=true,false --allow-spills \
  --shape S=4096,S_kv=1024 --shape S=2048,S_kv=512 --shape S=8192,S_kv=2048 \
  --init 'ke=iota*S_kv/S+1' -o "$build/tune-worder"
"$minitile" tune indexer_fwd "${pick[@]}" --space dynamic=true \
  --shape S=4096,S_kv=512 --shape S=1024,S_kv=512 --shape S=2048,S_kv=512 \
  --shape S=8192,S_kv=512 --shape S=16384,S_kv=512 --shape S=4096,S_kv=64 \
  --shape S=4096,S_kv=128 --shape S=4096,S_kv=1024 \
  --init 'ke=iota/S+1000000' -o "$build/tune-wflat"
# L2 policies (ptx_edit.py): the pick as compiled, its query tiles
# evict_first, its KV tiles evict_last, its logits stores evict_first, all
# three: whether the dirty L2 the bench's eviction copy leaves costs the
# loads that replace it (causal windows, three shapes).
ptx=$(mktemp -d)
trap 'rm -rf "$ptx"' EXIT
"$minitile" compile indexer_fwd "${params[@]}" -p dynamic=true --emit ptx -o "$ptx/k.ptx"
hinted=()
for edit in qfirst kvlast stfirst qfirst+kvlast+stfirst; do
  python3 bench/experiments/ptx_edit.py "$edit" "$ptx/k.ptx" "$ptx/$edit.ptx"
  hinted+=(--ptx "dynamic=true@$ptx/$edit.ptx")
done
rm -rf "$build/tune-whint"
"$minitile" tune indexer_fwd "${pick[@]}" --space dynamic=true "${hinted[@]}" \
  --shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=4096,S_kv=4096 \
  --init 'ke=iota*S_kv/S+1' -o "$build/tune-whint"
