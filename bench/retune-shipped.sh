#!/usr/bin/env bash
# Tune runners for every shipped kernel's table (kernels/tuned/KERNEL.DEVICE.txt):
#   OUT/indexer        indexer_fwd: bench/retune-indexer.sh's space and shapes
#   OUT/batched        batched_indexer_fwd: the same space (the items in
#                      either order, batch_major, for producer_registers),
#                      B = 2 and 8 at S = 4096 and 16384 (ratio 4), spilling points kept:
#                      the batch index costs the four-query kernels 32 bytes
#                      of spills a thread, and the runner decides
#   OUT/topk           topk, full rows: threads x registers a thread, on the
#                      rows of minitile-bench topk (S_kv 4096 to 262144)
#   OUT/topk-windows   topk over causal windows (ratio 4), the DeepSeek-V4 step
#   OUT/batched-topk   batched_topk over causal windows, B = 4
#   OUT/clean          clean_logits: threads a row x rows a block
# Points that spill are left out; each runner checks every point against the
# others (a top-k's unsorted rows as multisets), times them in turn and
# writes a table.
#
#   bench/retune-shipped.sh [BUILD_DIR] [OUT_DIR]        (here: ~5 min;
#                                                         ONLY="topk clean" makes those only)
#   TUNE_DIRS="$(ls -d OUT_DIR/*)" scripts/stage-gpu.sh
#   on the GPU: GPU_RUN=tune .gpu/gpu-run.sh             (tables: .gpu/out/tuned-<name>.txt)
#   then: bench/ship-table.py (the header and key of a shipped table)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$build/tune-shipped}
mt=$build/tools/minitile
mkdir -p "$out"
causal=(--init ks=0 --init 'ke=iota*S_kv/S+1')
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

want indexer && bench/retune-indexer.sh "$build" "$out/indexer"

want batched && \
"$mt" tune batched_indexer_fwd -p heads=64 -p dim=128 -p persistent=true \
  -p dynamic=true -p last_first=true -p item_buffers=2 -p split=true \
  --space queries=2,4 --space split_queries=1,2 --space warpgroups=2,3 --space stages=4,6 \
  --space batch_major=false,true \
  --shape B=2,S=4096,S_kv=1024 --shape B=8,S=4096,S_kv=1024 \
  --shape B=2,S=16384,S_kv=4096 --shape B=8,S=16384,S_kv=4096 \
  "${causal[@]}" --init q=normal:0,1 --init kv=normal:0,1 --allow-spills -o "$out/batched"

want topk && \
"$mt" tune topk -p scores=true \
  --space threads=256,512,1024 --space regs=8,16,32 \
  --shape S=16384,S_kv=4096,k=512 --shape S=16384,S_kv=4096,k=2048 \
  --shape S=4096,S_kv=65536,k=2048 --shape S=1024,S_kv=262144,k=1024 \
  --init logits=normal:0,1 --unordered indices --unordered scores -o "$out/topk"

want topk-windows && \
"$mt" tune topk -p windows=true -p scores=true \
  --space threads=256,512,1024 --space regs=8,16,32 \
  --shape S=4096,S_kv=1024,k=512 --shape S=16384,S_kv=4096,k=512 \
  --shape S=16384,S_kv=4096,k=1024 --shape S=65536,S_kv=16384,k=1024 \
  "${causal[@]}" --init logits=normal:0,1 --unordered indices --unordered scores \
  -o "$out/topk-windows"

want batched-topk && \
"$mt" tune batched_topk -p windows=true -p scores=true \
  --space threads=256,512,1024 --space regs=8,16,32 \
  --shape B=4,S=4096,S_kv=1024,k=512 --shape B=4,S=16384,S_kv=4096,k=1024 \
  "${causal[@]}" --init logits=normal:0,1 --unordered indices --unordered scores \
  -o "$out/batched-topk"

want clean && \
"$mt" tune clean_logits \
  --space threads_per_row=32,64,128,256 --space rows_per_block=1,2,4,8,16 \
  --shape S=4096,S_kv=1024 --shape S=16384,S_kv=4096 --shape S=65536,S_kv=16384 \
  "${causal[@]}" --init logits=normal:0,1 -o "$out/clean"
:
