#!/usr/bin/env bash
# What split=true (a gemm a query, the first query's epilogue under the
# next one's wgmma) and split with overlap (each query's gemm of the next
# tile under this tile's code of the query after it) buy the persistent
# indexer on the peer benchmark's causal shapes, beside the tune table's
# picks (three plain groups last first at S = 4096, zigzag at ratio 1; two
# groups overlapped at S = 16384) -- all in one space, timed in turn (28
# points, 22 kernels). Points that spill are left out (overlap without split
# at three groups: two whole accumulators a thread).
#   bench/experiments/split.sh [BUILD_DIR] [OUT_DIR]
# then: TUNE_DIRS=OUT_DIR scripts/stage-gpu.sh and, on the GPU,
#   .gpu/tune/<OUT_DIR's name>/tune-runner --warmup 5 --reps 40
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-split}
minitile=$build/tools/minitile
rm -rf "$out"
"$minitile" tune indexer_fwd -p persistent=true \
  --space split=false,true --space overlap=false,true --space warpgroups=2,3 \
  --space stages=4,6 --space zigzag=false,true --space last_first=true \
  --shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=4096,S_kv=4096 \
  --init ks=0 --init 'ke=iota*S_kv/S+1' -o "$out"
