#!/usr/bin/env bash
# Four queries a block (queries=4: half the items, half the KV reads a
# query) on two groups that each hide their own epilogue: split with
# overlap, the weights read from shared memory at every tile
# (reload_weights; held in registers the kernel spills 548 bytes), against
# the same kernels at two queries a block. Beside split.sh's points (the
# tune table's picks are there), in a runner of its own.
#   bench/experiments/q4.sh [BUILD_DIR] [OUT_DIR]
# then: TUNE_DIRS=OUT_DIR scripts/stage-gpu.sh and, on the GPU,
#   .gpu/tune/<OUT_DIR's name>/tune-runner --warmup 5 --reps 40
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-q4}
minitile=$build/tools/minitile
rm -rf "$out"
"$minitile" tune indexer_fwd -p persistent=true -p warpgroups=2 -p stages=4 -p split=true \
  -p overlap=true -p last_first=true \
  --space queries=0,4 --space reload_weights=false,true --space zigzag=false,true \
  --shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=4096,S_kv=4096 \
  --init ks=0 --init 'ke=iota*S_kv/S+1' -o "$out"
