#!/usr/bin/env bash
# Installs what minitile builds with, from Debian's packages; safe to rerun.
# Needs root (or sudo) and apt; says what is missing otherwise.
set -euo pipefail

# python3-venv holds NVIDIA's SASS disassemblers from PyPI (below).
# clang-22 with its sanitizer and libFuzzer runtimes builds the sanitizer
# configuration and the fuzzer (scripts/sanitize.sh, run by CI).
packages=(cmake ninja-build g++ ccache llvm-22-dev libmlir-22-dev mlir-22-tools
          libcli11-dev libgtest-dev googletest
          clang-22 libclang-rt-22-dev libfuzzer-22-dev python3-venv)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: every package is installed"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then sudo=sudo; else
      echo "install-deps: not root and no sudo; install these yourself: ${missing[*]}" >&2
      exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null; then
    echo "install-deps: no apt-get; install these yourself: ${missing[*]}" >&2
    exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null; then
    echo "install-deps: apt-get could not install: ${missing[*]}" >&2
    echo "install-deps: LLVM/MLIR 22 and clang 22 come from Debian bookworm-security" \
         "(llvm-22-dev, libmlir-22-dev, mlir-22-tools, clang-22, ...); check your apt sources" >&2
    exit 1
  fi
fi

# Optional: the CUDA toolkit (cuda.h, ptxas). Without it minitile
# still emits PTX; the runtime, GPU tests, examples and cubin output are off.
if [ -x /usr/local/cuda/bin/ptxas ] || command -v ptxas >/dev/null; then
  echo "install-deps: CUDA toolkit found"
else
  echo "install-deps: no CUDA toolkit (/usr/local/cuda): PTX only; runtime, GPU tests and cubins are skipped"
fi

# NVIDIA's SASS disassemblers (cuobjdump, nvdisasm) from PyPI, for the test
# that holds the indexer's loop at its instruction count (sass-indexer-loop;
# it skips where they cannot be had). No GPU or toolkit needed to run them.
if "$(dirname "$0")/sass-tools.sh" install >/dev/null; then
  echo "install-deps: SASS disassemblers in ${SASS_TOOLS_VENV:-$HOME/.cache/sass-tools}"
else
  echo "install-deps: could not install NVIDIA's SASS disassemblers from PyPI; the SASS check will skip"
fi
