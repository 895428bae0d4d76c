#!/usr/bin/env bash
# loop-check.sh MINITILE PTXAS MAX KERNEL [-p name=value]...
# Compiles KERNEL to a cubin and fails if its innermost HGMMA loop takes more
# than MAX SASS instructions per HGMMA (tests/sass/loop_stats.py). Skips (77)
# only where the disassembler cannot be had: not installed
# (scripts/install-deps.sh installs it) and PyPI unreachable.
set -euo pipefail
minitile=$1 ptxas=$2 max=$3 kernel=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
if ! cuobjdump=$("$here/../../scripts/sass-tools.sh" install 2>&1 | tail -1) ||
   [ ! -x "$cuobjdump" ]; then
  echo "SKIP: NVIDIA's cuobjdump could not be installed from PyPI (offline?): $cuobjdump"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MINITILE_PTXAS="$ptxas" "$minitile" compile "$kernel" "$@" --emit cubin -o "$tmp/k.cubin"
export PATH="$(dirname "$cuobjdump"):$PATH"   # cuobjdump runs nvdisasm
"$cuobjdump" --dump-sass "$tmp/k.cubin" > "$tmp/k.sass"
echo "$kernel $*:"
python3 "$here/loop_stats.py" --max-per-hgmma "$max" < "$tmp/k.sass"
