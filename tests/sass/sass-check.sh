#!/usr/bin/env bash
# sass-check.sh MINITILE PTXAS KERNEL [-p name=value]... -- CHECK.py [ARG]...
# Compiles KERNEL to a cubin, disassembles it with NVIDIA's cuobjdump (from
# PyPI, no GPU) and runs tests/sass/CHECK.py on the SASS with ARGs:
# loop_stats.py (instructions per HGMMA of the innermost loop), topk_loads.py
# (row loads issued together). Skips (77) only where the disassembler cannot
# be had: not installed (scripts/install-deps.sh installs it) and PyPI
# unreachable.
set -euo pipefail
minitile=$1 ptxas=$2 kernel=$3
shift 3
compile=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do compile+=("$1"); shift; done
if [ $# -lt 2 ]; then
  echo "usage: sass-check.sh MINITILE PTXAS KERNEL [-p name=value]... -- CHECK.py [ARG]..." >&2
  exit 2
fi
checker=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
if ! cuobjdump=$("$here/../../scripts/sass-tools.sh" install 2>&1 | tail -1) ||
   [ ! -x "$cuobjdump" ]; then
  echo "SKIP: NVIDIA's cuobjdump could not be installed from PyPI (offline?): $cuobjdump"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MINITILE_PTXAS="$ptxas" "$minitile" compile "$kernel" ${compile[@]+"${compile[@]}"} --emit cubin -o "$tmp/k.cubin"
export PATH="$(dirname "$cuobjdump"):$PATH"   # cuobjdump runs nvdisasm
"$cuobjdump" --dump-sass "$tmp/k.cubin" > "$tmp/k.sass"
echo "$kernel ${compile[*]+${compile[*]}}:"
python3 "$here/$checker" "$@" < "$tmp/k.sass"
