#!/usr/bin/env bash
# What split=true (a gemm a query, the first query's epilogue under the
# next one's wgmma) buys the persistent indexer on the peer benchmark's
# causal shapes: three groups, last first and zigzag, split or not (the tune
# table's picks at S = 4096 and ratio 1 are the unsplit ones); two groups
# split (stages=4, zigzag), and the table's pick at S = 16384 (two groups
# overlapped, stages=4) -- those two as --ptx points of their own unedited
# PTX (the space cannot hold them: split and overlap exclude each other),
# so all are timed in turn in one runner. The split three-group kernels
# spill outside their loop (--allow-spills).
#   bench/experiments/split.sh [BUILD_DIR] [OUT_DIR]
# then: TUNE_DIRS=OUT_DIR scripts/stage-gpu.sh and, on the GPU,
#   .gpu/tune/<OUT_DIR's name>/tune-runner --warmup 5 --reps 40
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-split}
minitile=$build/tools/minitile
ptx=$(mktemp -d)
trap 'rm -rf "$ptx"' EXIT
"$minitile" compile indexer_fwd -p persistent=true -p warpgroups=2 -p stages=4 -p overlap=true \
  -p last_first=true --emit ptx -o "$ptx/ov4.ptx"
"$minitile" compile indexer_fwd -p persistent=true -p warpgroups=2 -p stages=4 -p split=true \
  -p zigzag=true --emit ptx -o "$ptx/split-w2.ptx"
rm -rf "$out"
"$minitile" tune indexer_fwd -p persistent=true \
  --space split=false,true --space warpgroups=3 --space stages=6 --space overlap=false \
  --space last_first=true,false --space zigzag=false,true \
  --shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=4096,S_kv=4096 \
  --init ks=0 --init 'ke=iota*S_kv/S+1' --allow-spills \
  --ptx "split=false,warpgroups=2,stages=4,overlap=true,last_first=true,zigzag=false@$ptx/ov4.ptx" \
  --ptx "split=true,warpgroups=2,stages=4,overlap=false,last_first=false,zigzag=true@$ptx/split-w2.ptx" \
  -o "$out"
