#!/usr/bin/env bash
# The indexer's figures as README.md and docs/PERF.md give them, in one
# device call. Here: build, then `scripts/stage-gpu.sh` (it copies the
# benchmark into .gpu/, and ../shared/bench's peer scripts into .gpu/peers/
# when that folder exists). On the GPU machine, from the repository root:
#
#   bench/indexer-figures.sh            (about 3 minutes; SHAPES=1: 2 more)
#
# It prints the card, then:
#   in turn  the tuned launcher (kernels/tuned/indexer_fwd.h200.txt) at
#            S = 4096, 16384, 65536 (S_kv = S / 4, causal) and S = S_kv =
#            4096, each launch taking turns with cuBLAS's bf16 GEMM 8192^3,
#            so both run at the clock the card's power leaves them; each
#            line's % columns are its rate over cuBLAS's in the same rounds
#            (MINITILE_BENCH_ONLY=tuned minitile-bench indexer ...);
#   alone    the same launches without cuBLAS's turns (each still after an
#            L2 eviction), as triton.testing.do_bench times the peers; the
#            log's first cuBLAS line is cuBLAS timed alone in the same
#            harness (MINITILE_BENCH_CUBLAS_TURNS=0 ...);
#   shapes   with SHAPES=1: H = 32, D = 256 and the batched kernel at B = 4
#            (minitile-bench shapes);
#   peers    autotuned Triton, the PyTorch reference and cuBLAS in do_bench
#            (peers/indexer_peers.py), with what is left of CALL_LIMIT
#            seconds (540).
# Logs go to $OUT (default .gpu/out): in-turn.log, alone.log, shapes.log,
# peers.log.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.gpu" || { echo "indexer-figures: no .gpu/ (run scripts/stage-gpu.sh first)" >&2; exit 1; }
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
lengths=${LENGTHS:-4096 16384 65536}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv,noheader
echo "== in turn (cuBLAS 8192^3 in turn)"
MINITILE_BENCH_ONLY=tuned timeout "${BENCH_LIMIT:-120}" ./minitile-bench indexer $lengths \
  2>&1 | tee "$OUT/in-turn.log" | grep -E "TFLOP|cuBLAS"
echo "== alone (no cuBLAS turns)"
MINITILE_BENCH_CUBLAS_TURNS=0 MINITILE_BENCH_ONLY=tuned timeout "${BENCH_LIMIT:-120}" \
  ./minitile-bench indexer $lengths 2>&1 | tee "$OUT/alone.log" | grep -E "TFLOP|cuBLAS"
if [ -n "${SHAPES:-}" ]; then
  echo "== shapes (H=32, D=256, batched)"
  timeout "${SHAPES_LIMIT:-150}" ./minitile-bench shapes 2>&1 | tee "$OUT/shapes.log" |
    grep -E "TFLOP|atch"
fi
if [ -f peers/indexer_peers.py ]; then
  left=$(( ${CALL_LIMIT:-540} - SECONDS ))
  if [ "$left" -gt 20 ]; then
    echo "== peers"
    PYTHONUNBUFFERED=1 timeout "$left" python3 peers/indexer_peers.py 2>&1 |
      tee "$OUT/peers.log" | grep -E "^[0-9]|cuBLAS"
  else
    echo "indexer-figures: no time left for the peers"
  fi
else
  echo "indexer-figures: no peers/ in .gpu/ (stage with ../shared/bench present)"
fi
