#!/usr/bin/env bash
# S = 4096, S_kv = 1024 (ratio 4) alone, the shape still short of 70 % of
# cuBLAS (docs/PERF.md, session 17): the tuned pick (three groups, dynamic
# last first, three item buffers) beside what could still move it -- six
# or nine stages, two blocks a multiprocessor with dynamic items (two or
# three item buffers, overlapped or not), and the pick on the bench's data
# (normal queries and keys) as well as the runner's default (uniform), so
# the rounds' 65.3 us and the runner's 61.7 can be told apart. One shape:
# the runner takes seconds.
#   bench/experiments/s4096.sh [BUILD_DIR] [OUT_DIR]
#   TUNE_DIRS="OUT_DIR OUT_DIR-normal" scripts/stage-gpu.sh; there, each runner.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-s4096}
minitile=$build/tools/minitile
shape=(--shape S=4096,S_kv=1024 --init ks=0 --init 'ke=iota*S_kv/S+1')
rm -rf "$out" "$out-b2" "$out-normal"
"$minitile" tune indexer_fwd -p persistent=true -p dynamic=true -p last_first=true \
  -p warpgroups=3 --space stages=3,6,9 --space item_buffers=2,3 "${shape[@]}" -o "$out"
"$minitile" tune indexer_fwd -p persistent=true -p dynamic=true -p last_first=true \
  -p blocks_per_sm=2 -p warpgroups=1 --space stages=2,3,4 --space overlap=false,true \
  --space item_buffers=2,3 "${shape[@]}" -o "$out-b2"
"$minitile" tune indexer_fwd -p persistent=true -p dynamic=true -p last_first=true \
  -p warpgroups=3 -p stages=4 --space item_buffers=2,3 "${shape[@]}" \
  --init q=normal:0,1 --init kv=normal:0,1 -o "$out-normal"
