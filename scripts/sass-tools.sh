#!/usr/bin/env bash
# sass-tools.sh [install]
# NVIDIA's SASS disassemblers (cuobjdump, nvdisasm), from PyPI's
# nvidia-cuda-cuobjdump / nvidia-cuda-nvdisasm (CUDA 13), in a virtual
# environment at $SASS_TOOLS_VENV (default ~/.cache/sass-tools, the same cache
# as ../shared/tools/sass-loop-stats). They read cubins on any machine: no GPU,
# no driver, no CUDA toolkit.
#   sass-tools.sh          prints cuobjdump's path; exit 1 if not installed
#   sass-tools.sh install  installs them if missing (needs PyPI), then prints it
set -euo pipefail
venv=${SASS_TOOLS_VENV:-$HOME/.cache/sass-tools}
find_tool() { ls "$venv"/lib/python3*/site-packages/nvidia/cu13/bin/cuobjdump 2>/dev/null | head -1; }
tool=$(find_tool || true)
if [ -z "$tool" ] && [ "${1:-}" = install ]; then
  echo "sass-tools: installing nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm (CUDA 13) into $venv" >&2
  { [ -x "$venv/bin/python3" ] || python3 -m venv "$venv"; } >&2
  "$venv/bin/pip" install -q --disable-pip-version-check --retries 1 --timeout 20 \
      'nvidia-cuda-cuobjdump>=13,<14' 'nvidia-cuda-nvdisasm>=13,<14' >&2
  tool=$(find_tool || true)
fi
[ -n "$tool" ] || { echo "sass-tools: cuobjdump is not installed in $venv" >&2; exit 1; }
echo "$tool"
