#!/usr/bin/env bash
# The table's pick (four queries an item as two parts, two groups taking
# whole tiles, producer_registers=24, dynamic longest first) as one build of
# minitile compiles it, on the causal windows (S = 4096 ratio 4, 16384,
# ratio 1) and on full windows of one and eight tiles (S_kv = 64 and 512):
# run with two builds -- before and after a change to the persistent
# loop's producer (docs/PERF.md, session 20: the early barrier and the
# issuing thread an iteration ahead) -- and time the runners in turn in one
# device call, so the two kernels are compared on one card.
#   bench/experiments/ahead.sh BUILD_DIR NAME     (writes BUILD_DIR/tune-NAME-causal, -flat)
#   TUNE_DIRS="... " scripts/stage-gpu.sh; there, the runners in turn
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?BUILD_DIR}
name=${2:?NAME}
minitile=$build/tools/minitile
source bench/experiments/pick.sh
pick=("${pick_params[@]}" --space dynamic=true "${pick_inits[@]}")
rm -rf "$build/tune-$name-causal" "$build/tune-$name-flat"
"$minitile" tune indexer_fwd "${pick[@]}" --init 'ke=iota*S_kv/S+1' \
  --shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=4096,S_kv=4096 \
  -o "$build/tune-$name-causal"
"$minitile" tune indexer_fwd "${pick[@]}" --init 'ke=iota/S+1000000' \
  --shape S=4096,S_kv=64 --shape S=4096,S_kv=512 --shape S=1024,S_kv=512 \
  -o "$build/tune-$name-flat"
