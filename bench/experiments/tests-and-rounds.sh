#!/usr/bin/env bash
# One device call over a staged .gpu/ (scripts/stage-gpu.sh), run from the
# repository root: every GPU test in 8 shards at once (the fp64 host
# references are the CPU's work, and the machine has 16 cores: ~4 minutes
# one after another, under one at once), the launcher tests and examples
# beside them, the fault tests after; then, unless NO_BENCH is set, the
# indexer's bench rounds (variants matching ONLY, cuBLAS in turn) and the
# peers. TUNE=name first runs .gpu/tune/tune-<name>'s runner (its table
# into $OUT). Logs in $OUT.
cd "$(dirname "$0")/../../.gpu" || exit 1
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv
if [ -n "${TUNE:-}" ]; then
  echo "== tune-$TUNE"
  (cd "tune/tune-$TUNE" && timeout "${TUNE_LIMIT:-200}" ./tune-runner ${TUNE_ARGS:-} --out "$OUT/tuned-$TUNE.txt" \
     > "$OUT/tune-$TUNE.log" 2>&1; echo "rc $?" >> "$OUT/tune-$TUNE.log")
  grep -v "^  S=" "$OUT/tune-$TUNE.log" | tail -n 60
fi
if [ -z "${NO_TESTS:-}" ]; then
  for i in 0 1 2 3 4 5 6 7; do
    GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout "${TEST_LIMIT:-220}" ./gpu-tests \
      > "$OUT/tests-$i.log" 2>&1 &
  done
  (./launcher-tests > "$OUT/launcher.log" 2>&1; echo "launcher rc $?" >> "$OUT/launcher.log"
   for e in lightning-indexer-example gemm-example softmax-example; do
     ./$e > "$OUT/$e.log" 2>&1; echo "$e rc $?" >> "$OUT/$e.log"
   done) &
  wait
  ./gpu-fault-tests > "$OUT/fault.log" 2>&1; echo "fault rc $?" >> "$OUT/fault.log"
  for f in "$OUT"/tests-*.log; do
    echo "== $(basename "$f"): $(grep -c '^\[       OK' "$f") ok; $(tail -n 1 "$f")"
    grep -E "^\[  FAILED|Failure" "$f" | head -n 5
  done
  grep -h "rc " "$OUT/launcher.log" "$OUT"/*example.log "$OUT/fault.log"
fi
[ -n "${NO_BENCH:-}" ] && exit 0
echo "== bench"
MINITILE_BENCH_ONLY="${ONLY:-tuned|persistent last_first|persistent zigzag|persistent overlap s4|pers dynamic last|pers dyn overlap s4}" \
  timeout "${BENCH_LIMIT:-200}" ./minitile-bench indexer 4096 16384 65536 2>&1 | tee "$OUT/bench.log" | grep -v "^ *$"
echo "== peers"
left=$(( ${CALL_LIMIT:-580} - SECONDS ))
[ "$left" -gt 20 ] || { echo "no time left for the peers"; exit 0; }
PYTHONUNBUFFERED=1 timeout "$left" python3 peers/indexer_peers.py 2>&1 | tee "$OUT/peers.log"
