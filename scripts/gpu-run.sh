#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over what
# scripts/stage-gpu.sh put in .gpu/: the GPU tests, the example, the SASS of
# each kernel and the benchmark. Logs go to $OUT (or .gpu/out). With
# "peers" as an argument (and BENCH=what for minitile-bench, all by default) it also runs ../shared/bench/indexer_peers.py and
# bench/topk_torch.py.
set -uo pipefail
cd "$(dirname "$0")"
out=${OUT:-$PWD/out}
mkdir -p "$out"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
echo "== gpu-tests"; ./gpu-tests 2>&1 | tee "$out/gpu-tests.log" | tail -n 25; [ "${PIPESTATUS[0]}" = 0 ] || status=1
echo "== gpu-fault-tests"; ./gpu-fault-tests 2>&1 | tee "$out/gpu-fault.log" | tail -n 8; [ "${PIPESTATUS[0]}" = 0 ] || status=1
echo "== launcher-tests"; ./launcher-tests 2>&1 | tee "$out/launcher.log" | tail -n 5; [ "${PIPESTATUS[0]}" = 0 ] || status=1
echo "== example"; ./lightning-indexer-example 2>&1 | tee "$out/example.log"; [ "${PIPESTATUS[0]}" = 0 ] || status=1
echo "== sass"
for c in cubin/*.cubin; do
  cuobjdump --dump-sass "$c" > "$out/$(basename "$c" .cubin).sass" 2>&1
  printf '%s: %s\n' "$c" "$(grep -oE '(HGMMA|UTMALDG|SYNCS|STG\.E\.128|STG\.E)[.A-Z0-9]*' "$out/$(basename "$c" .cubin).sass" | sort | uniq -c | tr '\n' ' ')"
done
echo "== bench"; ./minitile-bench ${BENCH:-all} 2>&1 | tee "$out/bench.log"; [ "${PIPESTATUS[0]}" = 0 ] || status=1
if [ "${1:-}" = peers ] && [ -f peers/indexer_peers.py ]; then
  echo "== peers"; PYTHONUNBUFFERED=1 python3 peers/indexer_peers.py 2>&1 | tee "$out/peers.log"
fi
if [ "${1:-}" = peers ] && [ -f ../bench/topk_torch.py ]; then
  echo "== torch.topk"; PYTHONUNBUFFERED=1 python3 ../bench/topk_torch.py 2>&1 | tee "$out/topk-torch.log"
fi
exit $status
