#!/usr/bin/env bash
# The question docs/PERF.md's session 14 leaves: why the indexer's per-item
# overlapped loop with rounds of four copies (stages=8) ties two (stages=4)
# with one long item a multiprocessor but loses 10-12 % with four or more.
# Builds a tune directory of the two, each also with its PTX edited
# (ptx_edit.py), on three shapes of full windows: one item of 1024 tiles a
# multiprocessor, four of 256, 62 of 64.
#   bench/experiments/u4-items.sh [BUILD_DIR] [OUT_DIR]
# then: TUNE_DIRS=OUT_DIR scripts/stage-gpu.sh and, on the GPU,
#   .gpu/tune/<OUT_DIR's name>/tune-runner --warmup 5 --reps 40
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-u4}
minitile=$build/tools/minitile
fixed=(-p persistent=true -p warpgroups=2 -p overlap=true)
ptx=$(mktemp -d)
trap 'rm -rf "$ptx"' EXIT
points=()
# The kernels as sessions 13-14 measured them: descriptors hoisted (s8 then
# spills 72 bytes outside its loop); each also with its descriptors made at
# each wgmma (session 15: s8 spills nothing that way, 60 more instructions
# in its loop).
for stages in 4 8; do
  "$minitile" compile indexer_fwd "${fixed[@]}" -p stages=$stages --emit ptx \
    --wgmma-descriptors hoisted -o "$ptx/s$stages.ptx" 2>/dev/null
  for edit in nohint nostore; do
    python3 bench/experiments/ptx_edit.py $edit "$ptx/s$stages.ptx" "$ptx/s$stages-$edit.ptx"
    points+=(--ptx "stages=$stages@$ptx/s$stages-$edit.ptx")
  done
  "$minitile" compile indexer_fwd "${fixed[@]}" -p stages=$stages --emit ptx \
    --wgmma-descriptors at-use -o "$ptx/s$stages-at-use.ptx" 2>/dev/null
  points+=(--ptx "stages=$stages@$ptx/s$stages-at-use.ptx")
done
rm -rf "$out"
"$minitile" tune indexer_fwd "${fixed[@]}" --space stages=4,8 --wgmma-descriptors hoisted \
  --shape S=264,S_kv=65536 --shape S=1056,S_kv=16384 --shape S=16384,S_kv=4096 \
  --init ks=0 --init ke=1000000 --allow-spills "${points[@]}" -o "$out"
