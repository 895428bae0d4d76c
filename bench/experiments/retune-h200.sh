#!/usr/bin/env bash
# The H200 tune table's space with dynamic items in it (session 17: items
# claimed at run time won at every causal shape in the runners): builds
# OUT_DIR (36 points, 30 kernels, 28 left out for spilling or for zigzag
# with dynamic); on the GPU its runner writes the table that replaces
# kernels/tuned/indexer_fwd.h200.txt (about 2-4 minutes at 40 launches a
# point).
#   bench/experiments/retune-h200.sh [BUILD_DIR] [OUT_DIR]
#   TUNE_DIRS=OUT_DIR scripts/stage-gpu.sh
#   there: TUNE=<OUT_DIR's name without tune-> bash bench/experiments/tests-and-rounds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-s17}
"$build/tools/minitile" tune indexer_fwd -p heads=64 -p dim=128 --space stages=4 \
  --space warpgroups=3,2 --space overlap=false,true --space last_first=false,true \
  --space zigzag=false,true --space persistent=true --space item_buffers=2,3 \
  --space dynamic=false,true \
  --shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=65536,S_kv=16384 \
  --shape S=4096,S_kv=4096 --init ks=0 --init 'ke=iota*S_kv/S+1' --init q=normal:0,1 \
  --init kv=normal:0,1 -o "$out"
