#!/usr/bin/env bash
# Copies what a GPU run needs from build/ into .gpu/ (ignored by git), for the
# device tool to carry: the GPU test binary, the example, the benchmark, the
# kernels' cubins, and the peer benchmark of ../shared/bench when present.
# TUNE_DIRS="DIR ..." adds the tune-runner of each directory `minitile tune`
# wrote, as .gpu/tune/<DIR's name>/tune-runner (GPU_RUN=tune runs them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=$root/.gpu
exclude=$(git -C "$root" rev-parse --path-format=absolute --git-path info/exclude)  # worktrees too
mkdir -p "$(dirname "$exclude")"
grep -qx '/.gpu/' "$exclude" 2>/dev/null || echo '/.gpu/' >> "$exclude"
rm -rf "$out" && mkdir -p "$out/cubin"
cp "$build/tests/gpu-tests" "$build/tests/gpu-fault-tests" "$build/tests/launcher-tests" \
   "$build/bench/minitile-bench" \
   "$build/examples/lightning_indexer/lightning-indexer-example" \
   "$build/examples/gemm/gemm-example" "$build/examples/softmax/softmax-example" \
   "$build/examples/attention/attention-example" "$out/"
for k in $(grep -o 'MINITILE_SHIPPED_KERNELS:INTERNAL=.*' "$build/CMakeCache.txt" | cut -d= -f2 | tr ';' ' '); do
  "$build/tools/minitile" compile "$k" --emit cubin -o "$out/cubin/$k.cubin"
done
if [ -d "$root/../shared/bench" ]; then cp -r "$root/../shared/bench" "$out/peers"; fi
for d in ${TUNE_DIRS:-}; do
  if [ ! -x "$d/tune-runner" ]; then
    echo "stage-gpu: $d has no tune-runner (minitile tune ... -o $d writes one)" >&2
    exit 1
  fi
  mkdir -p "$out/tune/$(basename "$d")"
  cp "$d/tune-runner" "$out/tune/$(basename "$d")/"
done
cp "$root/scripts/gpu-run.sh" "$out/"
du -sh "$out"
