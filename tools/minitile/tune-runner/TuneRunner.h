//===- TuneRunner.h - the GPU half of `minitile tune` ---------------------===//
//
// `minitile tune` compiles every point of a parameter space to a launcher and
// writes a directory: the launchers (point_N.h/.cpp, the kernel images
// embedded), this file and TuneRunner.cpp (copied from minitile's sources),
// and tune_main.cpp, which describes the kernel's arguments, the shapes and
// the points in a Spec and calls runTune(). Built against the minitile
// runtime alone, the program, tune-runner, runs where there is a GPU and no
// minitile (no MLIR, no LLVM): it times every point on every shape and
// writes the winners to a table (tools/minitile/TuneTable.h) that
// `minitile compile --tuned` reads.
//
// Needs only <minitile/runtime.h> and the standard library.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <minitile/runtime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace minitile::tune {

/// Element types of tensors, and the types of sizes and scalars.
enum class Elem { i1, i8, i16, i32, i64, f16, bf16, f32, f64 };

/// How a tensor's contents start. The index along the first dimension is i.
struct Init {
  enum class Kind {
    automatic, // read: uniform in [-1, 1] (floats) or 0; only written: NaN or -1
    constant,  // every element `lo`
    uniform,   // uniform in [lo, hi] (integers: whole numbers, both ends included)
    normal,    // normal with mean lo and standard deviation hi (floats)
    iota,      // i * mul / div + add, in integers
  };
  Kind kind = Kind::automatic;
  double lo = 0, hi = 0;
  int64_t mul = 1, div = 1, add = 0;
  // iota: where mul or div is a size argument (its index), the shape's value
  // of it instead, so that one init serves every shape (ke = i * S_kv / S + 1).
  int mulSize = -1, divSize = -1;
};

struct Value;

/// A dimension of a tensor: size argument `size` (an index into the
/// arguments), or `constant` where `size` is -1 -- or, where `compute` is
/// set, what it computes from the shape's values (an expression of the
/// sizes; it throws minitile::rt::Error where the launcher's computation
/// would overflow or divide by zero).
struct Dim {
  int size = -1;
  int64_t constant = 0;
  int64_t (*compute)(const std::vector<Value> &values) = nullptr;
};

/// One argument of the kernel's launchers, in their order.
struct Argument {
  enum class Kind { size, scalar, tensor };
  Kind kind = Kind::size;
  std::string name;
  Elem elem = Elem::i64;  // a tensor's element type; a size's or scalar's type
  std::vector<Dim> shape; // tensors
  Init init;              // tensors
  bool read = true, written = true; // tensors, as the kernel uses them
  /// Points agree on a row (the last dimension) holding the same values in
  /// any order (minitile tune --unordered: an unsorted top-k's indices).
  bool unordered = false;
};

/// The value of a size or scalar argument on one shape.
struct Value {
  int64_t i = 0; // sizes, integer and bool scalars
  double f = 0;  // float scalars
};

/// Values for the sizes and scalars: `values[a]` for argument a (unused
/// for tensors). `name` is how the user wrote it ("S=4096,S_kv=1024").
struct Shape {
  std::string name;
  std::vector<Value> values;
};

/// The arguments of one launch: `values[a]` for sizes and scalars,
/// `pointers[a]` for tensors.
struct Call {
  std::vector<Value> values;
  std::vector<void *> pointers;
  template <class T> T *tensor(int a) const { return static_cast<T *>(pointers[a]); }
};

/// A point of the space: its searched parameters ("stages=4 warpgroups=3"),
/// and a function calling its launcher. A point whose kernel image is the
/// same as an earlier point's names that point in `sameAs` and is not run.
struct Point {
  std::string params;
  void (*launch)(const Call &) = nullptr;
  int sameAs = -1;
  bool edited = false; // its PTX edited (minitile tune --ptx): timed, never a winner
};

struct Spec {
  std::string kernel, arch;
  std::string key;     // the table line's text before ':' ("indexer_fwd heads=64")
  std::string command; // the minitile tune command line that made this runner
  std::vector<Argument> arguments;
  std::vector<Shape> shapes;
  std::vector<Point> points;
};

/// What happened to one point on one shape.
struct Result {
  enum class Status {
    ok,            // ran, agreed with the majority, timed
    notApplicable, // its launch threw on this shape (a require(), ...)
    wrong,         // its results differ from those of most points
    failed,        // it faulted or hung: left out (--skip)
  };
  Status status = Status::notApplicable;
  double us = 0;   // median microseconds, when ok
  std::string why; // when not ok
};

/// `results[p][s]`: point p on shape s. The winner is the point that ran
/// right on every shape with the least geometric mean; -1 if none did.
int bestPoint(const Spec &spec, const std::vector<std::vector<Result>> &results);

/// The table file's text: a header of comments (`about`: the device, the
/// timing), the winner's line, and each shape's best point as comments.
/// Empty if no point ran right on every shape.
std::string formatTable(const Spec &spec, const std::vector<std::vector<Result>> &results,
                        const std::string &about);

/// "" if `got` matches `want` (a tensor of `dims`, the reference point's
/// contents), else where and how it differs (Argument::unordered: its rows
/// sorted first).
std::string compareContents(const Argument &a, const std::vector<int64_t> &dims,
                            const std::vector<unsigned char> &want,
                            const std::vector<unsigned char> &got, double rtol);

/// Sorts each row (innermost dimension) of `data`, a tensor of `dims`
/// holding `a`'s elements, ascending with NaN last: an unordered
/// argument's contents in the form compared. The rows are shared out
/// between the machine's cores (a top-k's 67 million indices take a
/// fraction of a second, not the minute a comparison sorting them anew
/// each time took).
void sortRows(const Argument &a, const std::vector<int64_t> &dims,
              std::vector<unsigned char> &data);

/// What tensor argument `a` of `dims` holds before each launch on `shape`
/// (its init; `seed` picks the random numbers), as its elements' bytes.
std::vector<unsigned char> initialContents(const Argument &a, const std::vector<int64_t> &dims,
                                           const Shape &shape, uint64_t seed);

/// main() of tune-runner: `tune-runner [--out FILE] [--warmup N] [--reps N]
/// [--rtol X] [--seed N] [--point-timeout S] [--skip POINT]...` (--help says
/// more). Returns the exit status.
int runTune(int argc, char **argv, const Spec &spec);

} // namespace minitile::tune
