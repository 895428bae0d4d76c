#!/usr/bin/env bash
# topk-check.sh MINITILE PTXAS LOADS STRIDE RUNS [-p name=value]...
# Compiles topk to a cubin and fails unless its register path issues each
# thread's LOADS row loads (STRIDE bytes apart) together, RUNS times (one per
# copy of the path; tests/sass/topk_loads.py). Skips (77) only where the
# disassembler cannot be had, as loop-check.sh.
set -euo pipefail
minitile=$1 ptxas=$2 loads=$3 stride=$4 runs=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
if ! cuobjdump=$("$here/../../scripts/sass-tools.sh" install 2>&1 | tail -1) ||
   [ ! -x "$cuobjdump" ]; then
  echo "SKIP: NVIDIA's cuobjdump could not be installed from PyPI (offline?): $cuobjdump"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MINITILE_PTXAS="$ptxas" "$minitile" compile topk "$@" --emit cubin -o "$tmp/k.cubin"
export PATH="$(dirname "$cuobjdump"):$PATH"
"$cuobjdump" --dump-sass "$tmp/k.cubin" > "$tmp/k.sass"
echo "topk $*:"
python3 "$here/topk_loads.py" --loads "$loads" --stride "$stride" --runs "$runs" < "$tmp/k.sass"
