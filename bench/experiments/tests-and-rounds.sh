#!/usr/bin/env bash
# One device call over a staged .gpu/ (scripts/stage-gpu.sh), run from the
# repository root: every GPU test as scripts/gpu-run.sh runs them (8 gtest
# shards at once), unless NO_TESTS is set; then, unless NO_BENCH is set, the
# indexer's bench rounds (variants matching ONLY, cuBLAS in turn) and the
# peers. TUNE="a b" first runs the runners of .gpu/tune/tune-a and tune-b
# through gpu-run.sh (TUNE_LIMIT seconds each, 200 by default; TUNE_ARGS
# their options; tables into $OUT as tuned-tune-<name>.txt, logs in
# $OUT/tune-logs.tgz). The peers get what is left of CALL_LIMIT seconds
# (580: the device call's 600 less the fetch). PROFILE: see below. Logs in
# $OUT.
cd "$(dirname "$0")/../../.gpu" || exit 1
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
export OUT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv
if [ -n "${TUNE:-}" ]; then
  GPU_RUN=tune TUNE_ONLY="$TUNE" TUNE_LIMIT="${TUNE_LIMIT:-200}" LOGS_TGZ=tune-logs.tgz \
    ./gpu-run.sh 2>&1 | grep -v "^  S=" | tail -n 80
fi
# PROFILE="split2:3:0 ..." (RUNNER:POINT:SHAPE): Nsight Compute on each
# runner point at its shape (tune-runner --profile), one launch after the
# first; the duration, tensor-pipe and clock lines here, the details and the
# SASS source page (for ncu_diff.py) in $OUT/profile.tgz.
if [ -n "${PROFILE:-}" ]; then
  plog=$(mktemp -d)
  for spec in $PROFILE; do
    runner=${spec%%:*} run=${spec#*:} name=${spec//:/-}
    echo "== ncu $name"
    timeout "${PROFILE_LIMIT:-120}" ncu --clock-control none --set full --launch-skip 1 \
      --launch-count 1 -o "$plog/$name" "tune/tune-$runner/tune-runner" --warmup 1 --reps 1 \
      --profile "$run" > "$plog/ncu-$name.log" 2>&1 || tail -n 5 "$plog/ncu-$name.log"
    [ -f "$plog/$name.ncu-rep" ] || continue
    ncu --import "$plog/$name.ncu-rep" --print-details all > "$plog/$name.txt" 2>&1
    ncu --import "$plog/$name.ncu-rep" --page source --csv --print-source sass \
      > "$plog/$name.csv" 2>&1
    grep -E "^ *(Duration|SM Frequency|Issue Slots Busy|Pipe Tensor)" "$plog/$name.txt" | head -n 6
    rm -f "$plog/$name.ncu-rep"
  done
  tar czf "$OUT/profile.tgz" -C "$plog" .
fi
# The tests as gpu-run.sh runs them (its shards, the fault and launcher tests,
# the examples, the SASS), all in one run under TEST_LIMIT; their logs packed
# into $OUT/test-logs.tgz.
[ -n "${NO_TESTS:-}" ] ||
  GPU_RUN=tests GPU_FIRST= GPU_REST_LIMIT="${TEST_LIMIT:-220}" LOGS_TGZ=test-logs.tgz ./gpu-run.sh
[ -n "${NO_BENCH:-}" ] && exit 0
echo "== bench"
MINITILE_BENCH_ONLY="${ONLY:-tuned|persistent last_first|persistent zigzag|persistent overlap s4|pers dynamic last|pers dyn overlap s4|q4 split2|q4 coop}" \
  timeout "${BENCH_LIMIT:-200}" ./minitile-bench indexer 4096 16384 65536 2>&1 | tee "$OUT/bench.log" | grep -v "^ *$"
echo "== peers"
left=$(( ${CALL_LIMIT:-580} - SECONDS ))
[ "$left" -gt 20 ] || { echo "no time left for the peers"; exit 0; }
PYTHONUNBUFFERED=1 timeout "$left" python3 peers/indexer_peers.py 2>&1 | tee "$OUT/peers.log"
