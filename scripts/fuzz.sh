#!/usr/bin/env bash
# Runs a fuzzer of a build configured with -DMINITILE_FUZZ=ON for a while and
# says what it found.
#   scripts/fuzz.sh BUILD_DIR SECONDS [ir|dsl] [extra libFuzzer flags...]
# ir (the default): tile-ir-fuzzer, seeded with the lit inputs and the tile IR
# of every kernel configuration the build compiles; dsl:
# dsl-fuzzer, random DSL programs. The corpus grows in BUILD_DIR/fuzz/ (kept
# between runs); a crash or a hang is written there and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/fuzz.sh BUILD_DIR SECONDS [ir|dsl] [libFuzzer flags]"
build=${1:?$usage}
seconds=${2:?$usage}
shift 2
target=ir
if [ $# -gt 0 ] && { [ "$1" = ir ] || [ "$1" = dsl ]; }; then
  target=$1
  shift
fi

if [ "$target" = dsl ]; then
  fuzzer=$build/tests/fuzz/dsl-fuzzer
  [ -x "$fuzzer" ] || { echo "fuzz: no $fuzzer (configure with -DMINITILE_FUZZ=ON)" >&2; exit 1; }
  out=$build/fuzz-dsl
  mkdir -p "$out/corpus"
  echo "fuzz: $fuzzer for ${seconds}s, corpus $out/corpus"
  set +e
  "$fuzzer" "$out/corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$out/" "$@" > "$out/last-run.log" 2>&1
  status=$?
  set -e
  grep -aE '^(#[0-9]+\s+(INITED|DONE)|stat::number|==[0-9]+==|SUMMARY|Test unit written|dsl-fuzzer:)' "$out/last-run.log"
  if [ "$status" -ne 0 ]; then
    echo "fuzz: FAILED (exit $status): see $out/last-run.log and the crash-*/timeout-* files in $out/" >&2
    exit 1
  fi
  echo "fuzz: no crash and no hang"
  exit 0
fi

fuzzer=$build/tests/fuzz/tile-ir-fuzzer
[ -x "$fuzzer" ] || { echo "fuzz: no $fuzzer (configure with -DMINITILE_FUZZ=ON)" >&2; exit 1; }

# Seeds: every lit input, one file per `// -----` split; and the tile IR of
# every kernel configuration the build compiles (`minitile compile K -p ...
# --emit tile`, as the DSL builds it: BUILD_DIR/kernel-configurations.txt,
# written by CMakeLists.txt), whose generators must be built.
seeds=$build/fuzz/seeds corpus=$build/fuzz/corpus
rm -rf "$seeds" && mkdir -p "$seeds" "$corpus"
for f in $(find tests/lit -name '*.mlir' | sort); do
  awk -v out="$seeds/$(echo "$f" | tr / _)" '
    /^\/\/ -----/ { n++; next }
    { print > (out "." n) }' n=0 "$f"
done
configurations=$build/kernel-configurations.txt
if [ ! -f "$configurations" ]; then
  echo "fuzz: no $configurations (configure the build again)" >&2
  exit 1
fi
generators=$(cut -f1 "$configurations" | sort -u)
cmake --build "$build" --target $(for g in $generators; do basename "$g"; done) > /dev/null
n=0 failed=0
while IFS=$'\t' read -r generator kernel arch flags; do
  n=$((n + 1))
  # shellcheck disable=SC2086 # flags: -p name=value words
  if ! "$generator" compile "$kernel" --arch "$arch" $flags --emit tile \
       -o "$seeds/kernel-$n-$kernel.mlir" 2> "$build/fuzz/seed-error.log"; then
    echo "fuzz: cannot make a seed of $(basename "$generator") $kernel$flags: $(cat "$build/fuzz/seed-error.log")" >&2
    failed=1
  fi
done < <(sort -u "$configurations")
[ "$failed" = 0 ] || exit 1
# Kernels built the same way give the same IR: one seed each. The longest
# input is the largest seed (a kernel's IR is 5 to 30 KB; libFuzzer would
# cut longer seeds, which would then no longer parse), up to 64 KB: the few
# kernels over it (topk fully unrolled, 700 KB) would slow every mutation.
declare -A seen
for f in "$seeds"/kernel-*; do
  sum=$(md5sum < "$f")
  if [ -n "${seen[$sum]:-}" ] || [ "$(stat -c %s "$f")" -gt 65536 ]; then
    rm "$f"
  else
    seen[$sum]=1
  fi
done
max_len=$(( $(find "$seeds" -type f -printf '%s\n' | sort -n | tail -1) ))
[ "$max_len" -ge 16384 ] || max_len=16384

# A dictionary of the dialect's words helps mutations stay parseable.
dict=$build/fuzz/tile.dict
grep -rhoE '(tile|arith)\.[a-z_]+|!tile\.[a-z_]+|#tile\.frag|\b(stages|groups|box|swizzle|block|smem_bytes|producer_threads|across_x|iter_args|axis|dims|perm|transpose_b|sizes|strides|align|bytes|to|step|at|dim|mask)\b' \
  tests/lit --include='*.mlir' | sort -u | sed 's/.*/"&"/' > "$dict"

echo "fuzz: $fuzzer for ${seconds}s, $(ls "$seeds" | wc -l) seeds, corpus $corpus"
# -timeout: an input taking 10 s is a hang; -rss_limit_mb: 4 GB is a leak.
set +e
"$fuzzer" "$corpus" "$seeds" -dict="$dict" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=4096 -max_len="$max_len" -print_final_stats=1 \
  -artifact_prefix="$build/fuzz/" "$@" 2>&1 | tee "$build/fuzz/last-run.log" |
  grep -E '^(#[0-9]+\s+(INITED|DONE)|stat::|==[0-9]+==|SUMMARY|artifact_prefix|Test unit written|tile-ir-fuzzer:|INFO: fuzzed for)'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  echo "fuzz: FAILED (exit $status): see $build/fuzz/last-run.log and the crash-*/timeout-* files in $build/fuzz/" >&2
  exit 1
fi
echo "fuzz: no crash and no hang"
