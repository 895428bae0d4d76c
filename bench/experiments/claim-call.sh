#!/usr/bin/env bash
# One device call for session 21 (docs/PERF.md): the issuing thread an
# iteration ahead, claiming before (new) or after (new2) its wait for a
# free stage, against main (old) -- runners made by ahead.sh, timed in turn
# -- then the launch's fixed cost (new2-fixed: one item, one wave, two
# waves), Nsight Compute on new2's S = 4096, and the GPU tests of the
# persistent loops in 8 shards (TEST_LIMIT s) from the staged build.
# From the repository root over a staged .gpu/; the profile in $OUT/ncu.txt
# and $OUT/tests.txt (the device tool brings back few files).
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.gpu" || exit 1
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,power.limit --format=csv,noheader
for r in ${RUNNERS:-old-causal new-causal new2-causal old-flat new-flat new2-flat new2-fixed \
                     new2-causal new-causal old-causal}; do
  echo "== $r"
  timeout 60 "tune/tune-$r/tune-runner" --out "$OUT/t.txt" 2>&1 | grep -E "^#[0-9]|^ +S=|FAIL|rror"
done
if [ -z "${NO_NCU:-}" ]; then
  echo "== ncu (new2-causal, S = 4096)"
  timeout 120 ncu --clock-control none --set full -k regex:indexer --launch-skip 1 --launch-count 1 \
    -o /tmp/p tune/tune-new2-causal/tune-runner --out /tmp/t.txt > /tmp/ncu.log 2>&1
  ncu --import /tmp/p.ncu-rep --print-details all > "$OUT/ncu.txt" 2>&1
  grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Tensor|Issue Slots|Elapsed Cycles|SM Active|L2 Hit|Achieved Occ" "$OUT/ncu.txt" | head -30
fi
echo "== gpu-tests"
filter=${TEST_FILTER:-*Persistent*:*Dynamic*:*WorkCounter*:*Split*:*FourQuery*:*Tuned*:Batched*:*Continuous*:*TwoBlocks*:*Cooperative*:*Overlapped*:IndexerFwd.ShapesAndWindows}
"$here/test-shards.sh" "$filter" "${TEST_LIMIT:-150}" /tmp/gpu-tests
cat /tmp/gpu-tests/gpu-tests-*.log > "$OUT/tests.txt"
