#!/usr/bin/env bash
# What the tensor-map prefetch (session 14) buys: the indexer's persistent
# kernel, last first (the peer benchmark's "persistent last first"), with
# and without the prefetch (ptx_edit.py noprefetch), on the launch floor's
# shape (one item of one tile), S = 4096 and S = 16384 (causal, ratio 4).
#   bench/experiments/floor.sh [BUILD_DIR] [OUT_DIR]
# then: TUNE_DIRS=OUT_DIR scripts/stage-gpu.sh and, on the GPU,
#   .gpu/tune/<OUT_DIR's name>/tune-runner --warmup 10 --reps 100
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/tune-floor}
minitile=$build/tools/minitile
fixed=(-p persistent=true)
ptx=$(mktemp -d)
trap 'rm -rf "$ptx"' EXIT
"$minitile" compile indexer_fwd "${fixed[@]}" -p last_first=true --emit ptx -o "$ptx/k.ptx"
python3 bench/experiments/ptx_edit.py noprefetch "$ptx/k.ptx" "$ptx/noprefetch.ptx"
rm -rf "$out"
"$minitile" tune indexer_fwd "${fixed[@]}" --space last_first=true \
  --shape S=2,S_kv=64 --shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 \
  --init ks=0 --init 'ke=iota*S_kv/S+1' --ptx "last_first=true@$ptx/noprefetch.ptx" -o "$out"
