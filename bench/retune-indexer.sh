#!/usr/bin/env bash
# A tune runner for the space the shape lines of
# kernels/tuned/indexer_fwd.h200.txt were picked from: persistent kernels
# with items claimed at run time, longest first, a gemm a part of each
# item's queries (split) -- two or four queries an item, one or two queries
# a part, two or three compute groups, four or six KV stages, the producer
# warps at the compiler's registers or 24 -- on the four shapes of the peer
# benchmark (causal windows; normal queries and keys, as the bench's).
# Points that spill registers are left out; the runner checks every point
# against the others, times them in turn and writes a table.
#
#   bench/retune-indexer.sh [BUILD_DIR] [OUT_DIR]     (here: 32 points, 12 left out
#                                                     for spilling, 14 kernels; ~1 min)
#   TUNE_DIRS=OUT_DIR scripts/stage-gpu.sh
#   on the GPU: GPU_RUN=tune .gpu/gpu-run.sh          (the table: .gpu/out/tuned-<OUT_DIR's name>.txt)
#
# Its per-shape lines are what the shipped table's @ lines are; its default
# line is the best geometric mean over the shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$build/tune-indexer}
"$build/tools/minitile" tune indexer_fwd -p heads=64 -p dim=128 -p persistent=true \
  -p dynamic=true -p last_first=true -p item_buffers=2 -p split=true \
  --space queries=2,4 --space split_queries=1,2 --space warpgroups=2,3 --space stages=4,6 \
  --space producer_registers=0,24 \
  --shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=65536,S_kv=16384 \
  --shape S=4096,S_kv=4096 --init ks=0 --init 'ke=iota*S_kv/S+1' --init q=normal:0,1 \
  --init kv=normal:0,1 -o "$out"
