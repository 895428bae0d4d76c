//===- Tune.h - `minitile tune` and `minitile compile --tuned` ------------===//
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace minitile {

struct TuneRequest {
  std::string kernel;
  std::vector<std::string> params; // -p name=value: fixed
  std::vector<std::string> spaces; // --space name=v1,v2,...: searched
  std::vector<std::string> shapes; // --shape S=4096,S_kv=1024
  std::vector<std::string> inits;  // --init TENSOR=SPEC
  std::string arch = "sm_90a";
  std::string output;      // -o DIR
  std::string commandLine; // as typed, for the runner's table
  bool allowSpills = false; // --allow-spills: keep points whose kernels spill
  std::vector<std::string> ptx; // --ptx PARAMS@FILE: points of edited PTX
  std::string wgmmaDescriptors = "auto"; // --wgmma-descriptors, for every point
  std::vector<std::string> unordered; // --unordered TENSOR: rows compared in any order
};

/// `minitile tune`: compiles every point of the space and writes the
/// directory `request.output` (launchers, tune_main.cpp, tune-runner) in full
/// or not at all. Returns "" on success, else a one-line error.
std::string tuneCommand(const TuneRequest &request);

/// One kernel to compile from a tuned table: the parameters, and the shapes
/// it won on (empty: the table's line for all shapes, or no line).
struct TunedVariant {
  std::vector<std::pair<std::string, std::string>> params;
  /// Each as the table wrote it: sizes, and the scalars the tuning used.
  std::vector<std::vector<std::pair<std::string, std::string>>> shapes;
  /// The line for all shapes gives it: a dispatching launcher runs it where
  /// shapes of other kernels are equally near.
  bool general = false;
  /// "FILE:LINE" of the first table line giving it ("" if none): a kernel
  /// its values do not build names it.
  std::string from;
};

/// `minitile compile --tuned FILE`: the kernels to compile. Each is `params`
/// (the -p values, given explicitly) plus, for each parameter not given, the
/// value of a line of table `file` that applies to `kernel` with them:
///  - `perShape` (C++ with a launcher that dispatches) and the key has
///    lines for single shapes: one variant per distinct set of values
///    those lines (and the line for all shapes) give, with the shapes it
///    won on;
///  - else, with `shape` given (--shape): the line of the nearest shape;
///  - else the line for all shapes (a table with no line that applies
///    changes nothing).
/// Returns "" on success, else a one-line error; a malformed line, an
/// unknown parameter or value is named by FILE:LINE.
std::string applyTunedTable(const std::string &file, const std::string &kernel,
                            const std::vector<std::pair<std::string, std::string>> &params,
                            const std::string &shape, bool perShape,
                            std::vector<TunedVariant> &variants);
/// applyTunedTable() of a table's text, `name` naming it in messages (a
/// shipped table: minitile::TunedTableInfo).
std::string applyTunedText(const std::string &text, const std::string &name,
                           const std::string &kernel,
                           const std::vector<std::pair<std::string, std::string>> &params,
                           const std::string &shape, bool perShape,
                           std::vector<TunedVariant> &variants);

} // namespace minitile
