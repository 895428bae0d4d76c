#!/usr/bin/env bash
# Sets up a fresh machine and runs minitile's main job:
#   1. installs the Debian packages it needs (scripts/install-deps.sh),
#   2. configures and builds everything in build/ (ccache speeds up rebuilds),
#   3. compiles every shipped kernel to PTX: build/kernels/<kernel>.ptx,
#   4. where a GPU exists, runs the example application on it.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
echo "setup: kernels compiled to PTX:"
ls -1 build/kernels/*.ptx
if [ -x build/examples/lightning_indexer/lightning-indexer-example ]; then
  build/examples/lightning_indexer/lightning-indexer-example
fi
