#!/usr/bin/env bash
# What dynamic=true (each block's next query block claimed from the launch's
# work counter when its producer has a buffer for it) buys the persistent
# indexer on the peer benchmark's causal shapes, beside the same kernels
# with the items dealt out in advance (linear, last first, zigzag). Three
# runners, each timing its points in turn (dynamic with zigzag is left out):
#  - OUT_DIR (12 points): three plain groups, four stages (the tune table's
#    S = 4096 and ratio-1 shape), two or three item buffers;
#  - OUT_DIR-ov (12 points): two groups overlapped, four stages (the table's
#    S = 16384 and 65536 shape), two or three item buffers;
#  - OUT_DIR-q4 (3 points): four queries a block split and overlapped on two
#    groups, the weights reloaded (half the items: session 15's lead for
#    S = 4096), last first or zigzag, fixed or dynamic;
#  - OUT_DIR-b2 (12 points): two blocks a multiprocessor, one group each,
#    overlapped (session 11's "pers 2/SM overlap zz", 1.5 % behind three
#    groups at S = 4096: each block's items' ends fall apart from the
#    other's -- what "each group its own items" would do in one block),
#    split or not, each order fixed or dynamic.
# bench/experiments/schedule_model.py gives what a perfect balance would be
# worth under session 11's cost of an item and of a tile.
#   bench/experiments/dynamic.sh [BUILD_DIR] [OUT_DIR]
# then: TUNE_DIRS="OUT_DIR OUT_DIR-ov OUT_DIR-q4 OUT_DIR-b2" scripts/stage-gpu.sh and, on the
#   GPU, .gpu/tune/<each's name>/tune-runner --warmup 5 --reps 40
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-dynamic}
minitile=$build/tools/minitile
shapes=(--shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=4096,S_kv=4096
        --init ks=0 --init 'ke=iota*S_kv/S+1')
orders=(--space dynamic=false,true --space last_first=false,true --space zigzag=false,true)
rm -rf "$out" "$out-ov" "$out-q4" "$out-b2"
"$minitile" tune indexer_fwd -p persistent=true -p warpgroups=3 -p stages=4 \
  "${orders[@]}" --space item_buffers=2,3 "${shapes[@]}" -o "$out"
"$minitile" tune indexer_fwd -p persistent=true -p warpgroups=2 -p stages=4 -p overlap=true \
  "${orders[@]}" --space item_buffers=2,3 "${shapes[@]}" -o "$out-ov"
"$minitile" tune indexer_fwd -p persistent=true -p queries=4 -p split=true -p overlap=true \
  -p warpgroups=2 -p stages=4 -p reload_weights=true -p last_first=true \
  --space zigzag=false,true --space dynamic=false,true "${shapes[@]}" -o "$out-q4"
"$minitile" tune indexer_fwd -p persistent=true -p blocks_per_sm=2 -p warpgroups=1 -p stages=2 \
  -p overlap=true "${orders[@]}" --space split=false,true "${shapes[@]}" -o "$out-b2"
