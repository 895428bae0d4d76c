#!/usr/bin/env bash
# The GPU tests whose names match FILTER, as 8 gtest shards at once (the
# fp64 host references are the CPU's work; the GPU machine has 16 cores),
# each stopped after LIMIT seconds. Each shard's log goes to
# LOGDIR/gpu-tests-N.log; its verdict lines and failures are printed. Run
# from a staged .gpu/ (it runs ./gpu-tests). Used by ahead-call.sh and
# claim-call.sh.
#   test-shards.sh FILTER LIMIT LOGDIR
filter=${1:?FILTER} limit=${2:?LIMIT} logs=${3:?LOGDIR}
mkdir -p "$logs"
pids=()
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout "$limit" ./gpu-tests \
    --gtest_filter="$filter" > "$logs/gpu-tests-$i.log" 2>&1 &
  pids+=($!)
done
for i in 0 1 2 3 4 5 6 7; do
  wait "${pids[$i]}"; rc=$?
  [ "$rc" = 124 ] && echo "shard $i: stopped after $limit s"
  grep -E "^\[ +(OK|FAILED|PASSED) |Failure" "$logs/gpu-tests-$i.log" | head -n 12
done
