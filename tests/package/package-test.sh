#!/usr/bin/env bash
# minitile as a user gets it: an install of this build in a temporary prefix,
# and projects built against that prefix alone.
#
#   package-test.sh STEP SOURCE_DIR BINARY_DIR WORK_DIR
#
# STEP (each a ctest, in this order; tests/CMakeLists.txt):
#   install       cmake --install into WORK/stage, then moved to WORK/prefix (the
#                 package must be relocatable); the installed headers are
#                 exactly the public ones; no file of the package names the
#                 source or build tree; the installed minitile runs.
#   consumer      tests/package/consumer (its own kernel and generator, a
#                 shipped kernel, an app, host-side tests, compile-fail tests)
#                 copied to WORK/a, built and tested against WORK/prefix.
#   reproducible  the same project copied to another place, WORK/b/elsewhere,
#                 built there: every generated file byte-identical to WORK/a's.
#   rebuild       in WORK/b: a new PARAMS value regenerates that kernel only; an
#                 edited kernel source rebuilds its generator and regenerates
#                 that generator's kernels only (the app gets the new kernel);
#                 then nothing is left to do.
#   rebuild-make  the same with Makefiles, which track changed commands their
#                 own way (in WORK/c; skipped, exit 77, without make).
#   example       examples/lightning_indexer copied to WORK/example, built
#                 against WORK/prefix and run (it says so without a GPU).
#   cleanup       removes WORK.
#   build-tree    (no install needed) find_package(minitile) pointed at the
#                 build tree (minitile_DIR=BINARY_DIR or BINARY_DIR/package)
#                 fails saying to install first; in WORK-build-tree, removed.
# WORK lies outside both trees; every project built here is checked not to
# name SOURCE_DIR or BINARY_DIR in its build files or generated sources.
set -euo pipefail

# Builds here take two jobs unless told otherwise (CI machines have two cores).
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}

step=$1
src=$(cd "$2" && pwd -P)
bin=$(cd "$3" && pwd -P)
work=$4
prefix=$work/prefix

say() { echo "package-test $step: $*"; }
regex() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }
fail() { echo "package-test $step: FAIL: $*" >&2; exit 1; }

# Fails if any file under $1 names the source or the build tree.
no_tree_paths() {
  local dir=$1 hits
  hits=$(grep -rlE "($(regex "$src")|$(regex "$bin"))([/\" ;:]|\$)" "$dir" \
           --include='*.cmake' --include='*.ninja' --include='*.txt' --include='*.h' \
           --include='*.cpp' --include='*.json' 2>/dev/null || true)
  [ -z "$hits" ] || fail "these files name minitile's source or build tree: $hits"
}

configure() { # [GENERATOR=...] configure SOURCE BUILD [cmake args...]
  local s=$1 b=$2 generator=()
  shift 2
  [ -e "$b/CMakeCache.txt" ] || generator=(-G "${GENERATOR:-Ninja}")
  cmake -S "$s" -B "$b" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" >"$b.configure.log" 2>&1 ||
    { cat "$b.configure.log"; fail "configuring $s failed"; }
}

# Builds $1 and prints the kernels it generated ("axpy threads=128"), sorted.
build_and_list_generated() {
  local log
  log=$(cmake --build "$1" 2>&1) || { echo "$log" >&2; fail "building $1 failed"; }
  echo "$log" >"$1.build.log"
  echo "$log" | sed -n 's/.*minitile: \(.*\) -> .*/\1/p' | sed 's/ *$//' | sort
}

expect_generated() { # expect_generated BUILD "what" "expected lines"
  local got
  got=$(build_and_list_generated "$1")
  if [ "$got" != "$3" ]; then
    cat "$1.build.log"
    fail "$2: generated [$(echo $got)], expected [$(echo $3)]"
  fi
  say "$2: generated [$(echo $got)]"
}

case $step in
install)
  case "$work/" in "$src/"* | "$bin/"*) fail "WORK ($work) must lie outside the trees" ;; esac
  rm -rf "$work"
  mkdir -p "$work"
  cmake --install "$bin" --prefix "$work/stage" >"$work/install.log" ||
    { cat "$work/install.log"; fail "cmake --install failed"; }
  mv "$work/stage" "$prefix"
  headers=$(cd "$prefix/include" && find . -type f | sort | tr '\n' ' ')
  want="./minitile/driver.h ./minitile/dsl.h ./minitile/target.h "
  [ -e "$src/runtime/include/minitile/runtime.h" ] && [ -e "$prefix/lib/libminitile-runtime.a" ] &&
    want="./minitile/driver.h ./minitile/dsl.h ./minitile/runtime.h ./minitile/target.h "
  [ "$headers" = "$want" ] || fail "installed headers are [$headers], expected [$want]"
  for f in minitileConfig.cmake minitileConfigVersion.cmake minitile.cmake \
           minitileToolsTargets.cmake minitileGeneratorTargets.cmake; do
    [ -f "$prefix/lib/cmake/minitile/$f" ] || fail "lib/cmake/minitile/$f is not installed"
  done
  no_tree_paths "$prefix"
  # Into a file first: grep -q stops reading at the first match, and under
  # pipefail the writer's SIGPIPE would fail the test.
  "$prefix/bin/minitile" list > "$work/list.txt" || fail "the installed minitile list failed"
  grep -q '^clean_logits:' "$work/list.txt" || fail "the installed minitile does not list its kernels"
  "$prefix/bin/minitile-opt" --help >/dev/null || fail "the installed minitile-opt does not run"
  say "installed in $prefix (moved there from $work/stage)"
  ;;

consumer)
  rm -rf "$work/a"
  mkdir -p "$work/a"
  cp -R "$src/tests/package/consumer" "$work/a/consumer"
  configure "$work/a/consumer" "$work/a/build"
  build_and_list_generated "$work/a/build" >/dev/null
  (cd "$work/a/build" && ctest --output-on-failure) || fail "the consumer's tests failed"
  header=$work/a/build/axpy-kernel.minitile/axpy.h
  for line in "// axpy: kernel axpy of kernels/axpy.cpp with threads=128, for sm_90a" \
              "///   n: size, int64_t" "///   a: scalar, float" \
              "///   x: device pointer to f32, read" \
              "///   y: device pointer to f32, read and written" \
              "void axpy(minitile::rt::Scalar<int64_t> n, minitile::rt::Scalar<float> a, const float *x, float *y, CUstream stream = nullptr);"; do
    grep -qxF "$line" "$header" || { cat "$header"; fail "axpy.h lacks the line: $line"; }
  done
  no_tree_paths "$work/a/build"
  say "built and tested in $work/a"
  ;;

reproducible)
  rm -rf "$work/b"
  mkdir -p "$work/b/elsewhere"
  cp -R "$src/tests/package/consumer" "$work/b/elsewhere/consumer"
  configure "$work/b/elsewhere/consumer" "$work/b/build"
  build_and_list_generated "$work/b/build" >/dev/null
  n=0
  for f in $(cd "$work/a/build" && find . -path '*.minitile/*' \( -name '*.h' -o -name '*.cpp' \) | sort); do
    cmp -s "$work/a/build/$f" "$work/b/build/$f" || fail "$f differs between $work/a and $work/b"
    n=$((n + 1))
  done
  [ "$n" -eq 6 ] || fail "expected 6 generated files (3 kernels), found $n"
  no_tree_paths "$work/b/build"
  say "$n generated files byte-identical in two checkouts and build directories"
  ;;

rebuild | rebuild-make)
  # Ninja in WORK/b (as built by the reproducible step); Makefiles in a copy
  # in WORK/c.
  if [ "$step" = rebuild ]; then
    b=$work/b/build
    project=$work/b/elsewhere/consumer
    [ -d "$b" ] || fail "run the reproducible step first"
  else
    command -v make >/dev/null || { say "skipped: no make"; exit 77; }
    rm -rf "$work/c"
    mkdir -p "$work/c"
    cp -R "$src/tests/package/consumer" "$work/c/consumer"
    project=$work/c/consumer
    b=$work/c/build
    GENERATOR="Unix Makefiles" configure "$project" "$b"
    build_and_list_generated "$b" >/dev/null
  fi
  expect_generated "$b" "nothing changed" ""
  configure "$project" "$b" -DAXPY_THREADS=256
  expect_generated "$b" "PARAMS threads=256 for axpy" "axpy threads=256"
  grep -q "with threads=256," "$b/axpy-kernel.minitile/axpy.h" || fail "axpy.h was not regenerated"
  grep -q "consumer-app" "$b.build.log" || fail "the app was not relinked"
  sed -i 's/"y = a \* x + y")/"y = a * x + y, edited")/' "$project/kernels/axpy.cpp"
  grep -q "edited" "$project/kernels/axpy.cpp" || fail "could not edit axpy.cpp"
  expect_generated "$b" "kernels/axpy.cpp edited" "$(printf 'axpy threads=256\naxpy threads=512')"
  grep -q "Linking CXX executable consumer-kernels" "$b.build.log" || fail "the generator was not rebuilt"
  grep -q "Linking CXX executable consumer-app" "$b.build.log" || fail "the app was not relinked"
  grep -qxF "/// axpy: y = a * x + y, edited" "$b/axpy-kernel.minitile/axpy.h" ||
    fail "axpy.h does not have the edited kernel"
  expect_generated "$b" "nothing changed again" ""
  ! grep -qE "Building|Linking" "$b.build.log" || { cat "$b.build.log"; fail "a build after the rebuild did work"; }
  ;;

example)
  rm -rf "$work/example"
  mkdir -p "$work/example"
  cp -R "$src/examples/lightning_indexer" "$work/example/lightning_indexer"
  configure "$work/example/lightning_indexer" "$work/example/build"
  build_and_list_generated "$work/example/build" >/dev/null
  no_tree_paths "$work/example/build"
  # An application of shipped kernels does not need LLVM/MLIR.
  ! grep -q '^MLIR_DIR:' "$work/example/build/CMakeCache.txt" ||
    fail "find_package(minitile) looked for MLIR without the generator component"
  "$work/example/build/lightning-indexer-example" || fail "the example failed"
  ;;

cleanup)
  rm -rf "$work"
  ;;

build-tree)
  dir=$work-build-tree
  rm -rf "$dir" && mkdir -p "$dir/project"
  printf '%s\n' 'cmake_minimum_required(VERSION 3.20)' 'project(p LANGUAGES NONE)' \
    'find_package(minitile 0.1 CONFIG REQUIRED COMPONENTS generator)' >"$dir/project/CMakeLists.txt"
  for d in "$bin" "$bin/package"; do
    rm -rf "$dir/build"
    if cmake -S "$dir/project" -B "$dir/build" -Dminitile_DIR="$d" >"$dir/log" 2>&1; then
      fail "find_package(minitile) accepted the build tree ($d)"
    fi
    grep -q "install minitile first" "$dir/log" || { cat "$dir/log"; fail "no 'install minitile first' for $d"; }
    say "minitile_DIR=$d: refused, saying to install first"
  done
  rm -rf "$dir"
  ;;

*)
  fail "unknown step (install, consumer, reproducible, rebuild, example, cleanup, build-tree)"
  ;;
esac
