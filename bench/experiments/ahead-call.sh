#!/usr/bin/env bash
# One device call for session 20 (docs/PERF.md): the runners ahead.sh made
# for the two builds, timed in turn (old, new; causal then full windows;
# the causal pair twice), the GPU tests of the persistent loops (8 shards,
# TEST_FILTER, TEST_LIMIT s), the bench's rounds of ONLY (cuBLAS in turn),
# with ALONE=1 the same without cuBLAS's turns (the issue's own yardstick),
# with SHAPES=1 minitile-bench shapes (H=32, D=256, batched; SHAPES_LIMIT s),
# and the peers with what is left of CALL_LIMIT. From the repository root
# over a staged .gpu/ holding tune-old-* and tune-new-*.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.gpu" || exit 1
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,power.limit --format=csv,noheader
for r in ${RUNNERS:-old-causal new-causal old-flat new-flat old-causal new-causal}; do
  echo "== $r"
  timeout 60 "tune/tune-$r/tune-runner" --out "$OUT/t-$r.txt" 2>&1 | grep -E "^#[0-9]|FAIL|rror"
done
echo "== gpu-tests"
filter=${TEST_FILTER:-*Persistent*:*Dynamic*:*WorkCounter*:*Split*:*FourQuery*:*Tuned*:Batched*:*Continuous*:*TwoBlocks*:*Cooperative*:*Overlapped*}
"$here/test-shards.sh" "$filter" "${TEST_LIMIT:-150}" /tmp/gpu-tests
cat /tmp/gpu-tests/gpu-tests-*.log > "$OUT/tests.txt"  # one file: the tool brings back few
echo "== bench"
MINITILE_BENCH_ONLY="${ONLY:-tuned}" timeout "${BENCH_LIMIT:-90}" ./minitile-bench indexer ${LENGTHS:-4096 16384 65536} \
  2>&1 | tee "$OUT/bench.log" | grep -E "TFLOP|copy"
if [ -n "${ALONE:-}" ]; then
  echo "== bench alone (no cuBLAS turns: timed as the peers' do_bench times)"
  MINITILE_BENCH_CUBLAS_TURNS=0 MINITILE_BENCH_ONLY="${ONLY:-tuned}" timeout "${BENCH_LIMIT:-90}" \
    ./minitile-bench indexer ${LENGTHS:-4096 16384 65536} 2>&1 | tee "$OUT/alone.log" | grep -E "TFLOP"
fi
if [ -n "${SHAPES:-}" ]; then
  echo "== shapes (H=32, D=256, batched)"
  timeout "${SHAPES_LIMIT:-120}" ./minitile-bench shapes 2>&1 | tee "$OUT/shapes.log" | grep -E "TFLOP|atch"
fi
echo "== peers"
left=$(( ${CALL_LIMIT:-540} - SECONDS ))
[ "$left" -gt 20 ] || { echo "no time left for the peers"; exit 0; }
PYTHONUNBUFFERED=1 timeout "$left" python3 peers/indexer_peers.py 2>&1 | tee "$OUT/peers.log" | grep -E "^[0-9]|cuBLAS"
