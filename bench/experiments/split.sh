#!/usr/bin/env bash
# What split=true (a gemm a query, the first query's epilogue under the
# next one's wgmma) and split with overlap (each query's gemm of the next
# tile under this tile's code of the query after it) buy the persistent
# indexer on the peer benchmark's causal shapes. Two runners, each timing
# its points in turn:
#  - OUT_DIR (28 points, 22 kernels): split, overlap, two or three groups,
#    stages 4/6, last first or zigzag -- the tune table's picks among them
#    (three plain groups last first at S = 4096, zigzag at ratio 1; two
#    groups overlapped at S = 16384). Points that spill are left out
#    (overlap without split at three groups: two whole accumulators).
#  - OUT_DIR-q4: four queries a block (queries=4: half the items, half the
#    KV reads a query) split and overlapped on two groups, the weights read
#    from shared memory at every tile (reload_weights; held in registers
#    the kernel spills 548 bytes), against the same at two queries a block.
#   bench/experiments/split.sh [BUILD_DIR] [OUT_DIR]
# then: TUNE_DIRS="OUT_DIR OUT_DIR-q4" scripts/stage-gpu.sh and, on the GPU,
#   .gpu/tune/<each's name>/tune-runner --warmup 5 --reps 40
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-split}
minitile=$build/tools/minitile
shapes=(--shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=4096,S_kv=4096
        --init ks=0 --init 'ke=iota*S_kv/S+1')
rm -rf "$out" "$out-q4"
"$minitile" tune indexer_fwd -p persistent=true \
  --space split=false,true --space overlap=false,true --space warpgroups=2,3 \
  --space stages=4,6 --space zigzag=false,true --space last_first=true \
  "${shapes[@]}" -o "$out"
"$minitile" tune indexer_fwd -p persistent=true -p warpgroups=2 -p stages=4 -p split=true \
  -p overlap=true -p last_first=true \
  --space queries=0,4 --space reload_weights=false,true --space zigzag=false,true \
  "${shapes[@]}" -o "$out-q4"
