#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over what
# scripts/stage-gpu.sh put in .gpu/: the GPU tests, the example, the SASS of
# each kernel and the benchmark. Logs go to $OUT (or .gpu/out). With
# "peers" as an argument it also runs ../shared/bench/indexer_peers.py,
# gemm_softmax_peers.py and bench/topk_torch.py. GPU_RUN=tune runs the
# tune-runners staged with TUNE_DIRS (TUNE_ARGS passes them options;
# TUNE_ONLY="a b" only tune-a's and tune-b's; TUNE_LIMIT seconds each, 600 by
# default) and keeps each table as tuned-<name>.txt beside the logs and in
# $OUT. The logs are packed into $OUT/$LOGS_TGZ (logs.tgz).
set -uo pipefail
cd "$(dirname "$0")"
# Logs and SASS go to a folder packed into $OUT/logs.tgz at the end (the
# device tool brings back only a few files).
out=${LOGDIR:-$(mktemp -d)}
mkdir -p "$out"
final=${OUT:-$PWD/out}
mkdir -p "$final"
status=0
# What to run: GPU_RUN="tests bench peers" by default with "peers" given, else
# "tests bench"; BENCH picks minitile-bench's kernels (all by default;
# BENCH="energy 4096 16384 65536": the sustained figures and energy per FLOP
# beside cuBLAS's, about 2 minutes).
what=${GPU_RUN:-tests bench${1:+ $1}}
has() { [[ " $what " == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
# The GPU tests in two runs, each under a time limit, so that a hang costs
# its limit, not the device call: first those GPU_FIRST names (gtest
# patterns; by default the features that have not yet run on a GPU), then
# the rest. Each run is GPU_SHARDS (8) gtest shards at once: the fp64 host
# references are the CPU's work and the machine has 16 cores.
first=${GPU_FIRST-*Dynamic*:*WorkCounter*:*Split*}
shards=${GPU_SHARDS:-8}
gpu_tests() { # NAME LIMIT FILTER
  echo "== gpu-tests ($1, $shards shards)"
  local i rc=0 pids=()
  for ((i = 0; i < shards; ++i)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i timeout "$2" ./gpu-tests \
      --gtest_filter="$3" > "$out/gpu-tests-$1-$i.log" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < shards; ++i)); do
    wait "${pids[$i]}" || rc=$?
    [ "$rc" = 124 ] && { echo "gpu-tests ($1, shard $i): stopped after $2 s (a hang?)"; rc=1; }
    grep -E "^\[  (FAILED|PASSED) |Failure|math  " "$out/gpu-tests-$1-$i.log" | head -n 20
  done
  [ "$rc" = 0 ] || status=1
}
if has tests; then
  if [ -n "$first" ]; then
    gpu_tests first "${GPU_FIRST_LIMIT:-150}" "$first"
    gpu_tests rest "${GPU_REST_LIMIT:-420}" "-$first"
  else
    gpu_tests all "${GPU_REST_LIMIT:-480}" "*"
  fi
  echo "== gpu-fault-tests"; ./gpu-fault-tests 2>&1 | tee "$out/gpu-fault.log" | tail -n 8; [ "${PIPESTATUS[0]}" = 0 ] || status=1
  echo "== launcher-tests"; ./launcher-tests 2>&1 | tee "$out/launcher.log" | tail -n 3; [ "${PIPESTATUS[0]}" = 0 ] || status=1
  for e in lightning-indexer-example gemm-example softmax-example attention-example; do
    [ -x "$e" ] || continue
    echo "== $e"; ./"$e" 2>&1 | tee "$out/$e.log" | tail -n 12; [ "${PIPESTATUS[0]}" = 0 ] || status=1
  done
  echo "== sass"
  for c in cubin/*.cubin; do
    cuobjdump --dump-sass "$c" > "$out/$(basename "$c" .cubin).sass" 2>&1
    printf '%s: %s\n' "$c" "$(grep -oE '(HGMMA|UTMALDG|SYNCS|STG\.E\.128|STG\.E)[.A-Z0-9]*' "$out/$(basename "$c" .cubin).sass" | sort | uniq -c | tr '\n' ' ')"
  done
fi
if has bench; then
  echo "== bench"; ./minitile-bench ${BENCH:-all} 2>&1 | tee "$out/bench.log"; [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if has tune; then
  for runner in tune/*/tune-runner; do
    [ -x "$runner" ] || continue
    name=$(basename "$(dirname "$runner")")
    [ -z "${TUNE_ONLY:-}" ] || [[ " $TUNE_ONLY " == *" ${name#tune-} "* ]] || continue
    echo "== tune $name"
    timeout "${TUNE_LIMIT:-600}" ./"$runner" --out "$out/tuned-$name.txt" ${TUNE_ARGS:-} 2>&1 | tee "$out/tune-$name.log"
    rc=${PIPESTATUS[0]}
    [ "$rc" = 124 ] && echo "tune $name: stopped after ${TUNE_LIMIT:-600} s"
    [ "$rc" = 0 ] || status=1
    if [ -f "$out/tuned-$name.txt" ]; then cp "$out/tuned-$name.txt" "$final/"; cat "$out/tuned-$name.txt"; fi
  done
fi
if has peers; then
  [ -f peers/indexer_peers.py ] && { echo "== peers"; PYTHONUNBUFFERED=1 python3 peers/indexer_peers.py 2>&1 | tee "$out/peers.log"; }
  [ -f peers/attention_peers.py ] && { echo "== attention peers"; PYTHONUNBUFFERED=1 python3 peers/attention_peers.py 2>&1 | tee "$out/attention-peers.log"; }
  [ -f peers/gemm_softmax_peers.py ] && { echo "== gemm/softmax peers"; PYTHONUNBUFFERED=1 python3 peers/gemm_softmax_peers.py 2>&1 | tee "$out/gemm-softmax-peers.log"; }
  [ -f ../bench/topk_torch.py ] && { echo "== torch.topk"; PYTHONUNBUFFERED=1 python3 ../bench/topk_torch.py 2>&1 | tee "$out/topk-torch.log"; }
fi
tar czf "$final/${LOGS_TGZ:-logs.tgz}" -C "$out" .
exit $status
