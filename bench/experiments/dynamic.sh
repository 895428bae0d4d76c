#!/usr/bin/env bash
# What dynamic=true (each block's next query block claimed from the launch's
# work counter when its producer has a buffer for it) buys the persistent
# indexer on the peer benchmark's causal shapes, beside the same kernels
# with the items dealt out in advance. Two runners, each timing its points
# in turn:
#  - OUT_DIR (8 points): three plain groups (the tune table's S = 4096 and
#    ratio-1 shape), linear or last first, two or three item buffers, the
#    order fixed or dynamic;
#  - OUT_DIR-ov (8 points): two groups overlapped, four stages (the table's
#    S = 16384 and 65536 shape), the same four choices;
#  - OUT_DIR-zz (1 point): zigzag, three groups (the table's ratio-1 pick).
#   bench/experiments/dynamic.sh [BUILD_DIR] [OUT_DIR]
# then: TUNE_DIRS="OUT_DIR OUT_DIR-ov OUT_DIR-zz" scripts/stage-gpu.sh and, on the
#   GPU, .gpu/tune/<each's name>/tune-runner --warmup 5 --reps 40
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-dynamic}
minitile=$build/tools/minitile
shapes=(--shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=4096,S_kv=4096
        --init ks=0 --init 'ke=iota*S_kv/S+1')
rm -rf "$out" "$out-ov" "$out-zz"
"$minitile" tune indexer_fwd -p persistent=true -p warpgroups=3 -p stages=4 \
  --space dynamic=false,true --space last_first=false,true --space item_buffers=2,3 \
  "${shapes[@]}" -o "$out"
"$minitile" tune indexer_fwd -p persistent=true -p warpgroups=2 -p stages=4 -p overlap=true \
  --space dynamic=false,true --space last_first=false,true --space item_buffers=2,3 \
  "${shapes[@]}" -o "$out-ov"
"$minitile" tune indexer_fwd -p persistent=true -p stages=4 -p zigzag=true \
  --space warpgroups=3 "${shapes[@]}" -o "$out-zz"
