#!/usr/bin/env bash
# One device call over a staged .gpu/ (scripts/stage-gpu.sh), run from the
# repository root: every GPU test as scripts/gpu-run.sh runs them (8 gtest
# shards at once), unless NO_TESTS is set; then, unless NO_BENCH is set, the
# indexer's bench rounds (variants matching ONLY, cuBLAS in turn) and the
# peers. TUNE=name first runs .gpu/tune/tune-<name>'s runner (its table
# into $OUT; TUNE_ARGS its options). The peers get what is left of
# CALL_LIMIT seconds (580: the device call's 600 less the fetch). Logs in
# $OUT.
cd "$(dirname "$0")/../../.gpu" || exit 1
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv
if [ -n "${TUNE:-}" ]; then
  echo "== tune-$TUNE"
  (cd "tune/tune-$TUNE" && timeout "${TUNE_LIMIT:-200}" ./tune-runner ${TUNE_ARGS:-} --out "$OUT/tuned-$TUNE.txt" \
     > "$OUT/tune-$TUNE.log" 2>&1; echo "rc $?" >> "$OUT/tune-$TUNE.log")
  grep -v "^  S=" "$OUT/tune-$TUNE.log" | tail -n 60
fi
# The tests as gpu-run.sh runs them (its shards, the fault and launcher tests,
# the examples, the SASS), all in one run under TEST_LIMIT; their logs packed
# into $OUT/logs.tgz.
[ -n "${NO_TESTS:-}" ] ||
  GPU_RUN=tests GPU_FIRST= GPU_REST_LIMIT="${TEST_LIMIT:-220}" LOGDIR="$OUT/tests" ./gpu-run.sh
[ -n "${NO_BENCH:-}" ] && exit 0
echo "== bench"
MINITILE_BENCH_ONLY="${ONLY:-tuned|persistent last_first|persistent zigzag|persistent overlap s4|pers dynamic last|pers dyn overlap s4}" \
  timeout "${BENCH_LIMIT:-200}" ./minitile-bench indexer 4096 16384 65536 2>&1 | tee "$OUT/bench.log" | grep -v "^ *$"
echo "== peers"
left=$(( ${CALL_LIMIT:-580} - SECONDS ))
[ "$left" -gt 20 ] || { echo "no time left for the peers"; exit 0; }
PYTHONUNBUFFERED=1 timeout "$left" python3 peers/indexer_peers.py 2>&1 | tee "$OUT/peers.log"
