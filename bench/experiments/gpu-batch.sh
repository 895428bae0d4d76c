#!/usr/bin/env bash
# The experiments of one device call, run on the GPU machine from the
# repository root over a staged .gpu/ (sessions 14-16's open questions):
#   here:  bench/experiments/u4-items.sh && bench/experiments/floor.sh &&
#          bench/experiments/split.sh &&  (build/tune-split and build/tune-split-q4)
#          bench/experiments/dynamic.sh   (build/tune-dynamic, -ov, -q4 and -b2)
#          TUNE_DIRS="build/tune-u4 build/tune-floor build/tune-split build/tune-split-q4
#            build/tune-dynamic build/tune-dynamic-ov build/tune-dynamic-q4 build/tune-dynamic-b2" \
#            scripts/stage-gpu.sh
#          mkdir -p .gpu/micro && nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a \
#            -o .gpu/micro/wgmma-rounds bench/micro/wgmma_rounds.cu
#   there, first call:  GPU_RUN=tests .gpu/gpu-run.sh  (every GPU test: the
#          tensor-map prefetch, split=true and dynamic=true have not run on a
#          GPU; ~5-7 min)
#   there, second call: bash bench/experiments/gpu-batch.sh  (logs packed into
#          $OUT/batch.tgz)
# 0. dynamic.sh's points (items handed out at run time against the same
#    kernels' fixed orders, the three causal shapes);
# 1. floor.sh's points (the prefetch's gain), u4-items.sh's (P2: s4/s8,
#    nohint, nostore), split.sh's (split=true against the table's picks on
#    the three causal shapes, and four queries a block split and overlapped
#    on two groups);
# 2. the microbenchmark (interleaved stages for P1; shared stages, split N
#    and four groups);
# 3. Nsight Compute on s8 with one item a multiprocessor and with four, and
#    ncu_diff.py between their source pages; on s4 with one item.
set -uo pipefail
cd "$(dirname "$0")/../.."
log=$(mktemp -d)
out=${OUT:-$PWD/.gpu/out}
mkdir -p "$out"
step() { echo "== $*"; }
for t in dynamic dynamic-ov dynamic-q4 dynamic-b2 floor u4 split split-q4; do
  step "tune-$t"
  (cd ".gpu/tune/tune-$t" && timeout 200 ./tune-runner --warmup 5 --reps 40 --point-timeout 20 \
    --out "$log/tuned-$t.txt" > "$log/tune-$t.log" 2>&1; echo "rc $?" >> "$log/tune-$t.log")
  grep -v "^  S=" "$log/tune-$t.log" | head -n 14
done
if [ -x .gpu/micro/wgmma-rounds ]; then
  step micro
  timeout 90 .gpu/micro/wgmma-rounds > "$log/micro.log" 2>&1; tail -n 14 "$log/micro.log"
fi
step ncu
# s8 (point 1) with one item a multiprocessor (shape 0) and four (shape 1);
# s4 (point 0) with one: the cycle-based tensor-pipe figure says whether P1
# is real or the clock (the time-based ~79 % assumes 1.75 GHz).
for run in 1:0 1:1 0:0; do
  name=p${run%:*}-shape${run#*:}
  timeout 240 ncu --clock-control none --set full --launch-skip 1 --launch-count 1 \
    -o "$log/$name" .gpu/tune/tune-u4/tune-runner --warmup 1 --reps 1 \
    --profile "$run" > "$log/ncu-$name.log" 2>&1
  ncu --import "$log/$name.ncu-rep" --page source --csv --print-source sass \
    > "$log/$name.csv" 2>&1
  ncu --import "$log/$name.ncu-rep" --print-details all > "$log/$name.txt" 2>&1
  echo "$name:"; grep -E "Duration|Pipe Tensor|SM Frequency" "$log/$name.txt" | head -n 4
  rm -f "$log/$name.ncu-rep"
done
python3 bench/experiments/ncu_diff.py "$log/p1-shape0.csv" "$log/p1-shape1.csv" 20 | tee "$log/ncu-diff.txt"
tar czf "$out/batch.tgz" -C "$log" .
