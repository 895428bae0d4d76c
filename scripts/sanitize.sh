#!/usr/bin/env bash
# The sanitizer configuration: AddressSanitizer + UndefinedBehaviorSanitizer
# with assertions on, built with clang-22 where it is installed (then the
# libFuzzer target too), else with the default compiler.
#   scripts/sanitize.sh [BUILD_DIR] [--full] [--fuzz SECONDS]
# Builds the CLI, minitile-opt, the DSL and launcher tests and the fuzzer;
# runs the dsl, lit (the shipped kernels' compilation included) and launcher
# tests, then the tile IR fuzzer for SECONDS (default 60; 0 skips it) and the
# DSL fuzzer for half as long. --full builds
# everything and runs the whole ctest instead.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-sanitize full=0 fuzz_seconds=60
while [ $# -gt 0 ]; do
  case $1 in
    --full) full=1 ;;
    --fuzz) fuzz_seconds=$2; shift ;;
    *) build=$1 ;;
  esac
  shift
done

config=(-DCMAKE_BUILD_TYPE=Release -DMINITILE_SANITIZE=address,undefined)
fuzz=0
if command -v clang++-22 >/dev/null && command -v clang-22 >/dev/null; then
  config+=(-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 -DMINITILE_FUZZ=ON)
  fuzz=1
else
  echo "sanitize: no clang-22: building with the default compiler, without the fuzzer"
fi
cmake -S . -B "$build" -G Ninja "${config[@]}"

# A report stops the process that made it (and fails its test).
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

if [ "$full" = 1 ]; then
  cmake --build "$build"
  ctest --test-dir "$build" --output-on-failure
else
  targets=(lit-deps dsl-tests) # lit-deps: every tool the lit tests run (tests/CMakeLists.txt)
  tests='^(dsl|lit)$'
  if [ -d "$build/runtime" ]; then # the CUDA toolkit was found: launchers build
    targets+=(launcher-tests)
    tests='^(dsl|lit|launcher)$'
  fi
  [ "$fuzz" = 1 ] && targets+=(tile-ir-fuzzer dsl-fuzzer)
  cmake --build "$build" --target "${targets[@]}"
  ctest --test-dir "$build" -R "$tests" --output-on-failure
fi

if [ "$fuzz" = 1 ] && [ "$fuzz_seconds" != 0 ]; then
  scripts/fuzz.sh "$build" "$fuzz_seconds" ir
  scripts/fuzz.sh "$build" "$(( (fuzz_seconds + 1) / 2 ))" dsl
fi
