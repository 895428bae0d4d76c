//===- Tune.h - `minitile tune` and `minitile compile --tuned` ------------===//
#pragma once

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
};

/// `minitile tune`: compiles every point of the space and writes the
/// directory `request.output` (launchers, tune_main.cpp, tune-runner) in full
/// or not at all. Returns "" on success, else a one-line error.
std::string tuneCommand(const TuneRequest &request);

/// `minitile compile --tuned FILE`: adds to `params` (the -p values, given
/// explicitly) the values of the line of table `file` that applies to
/// `kernel` with them, for each parameter not given. Returns "" on success
/// (a table with no line that applies changes nothing), else a one-line
/// error; a malformed line, an unknown parameter or value is named by
/// FILE:LINE.
std::string applyTunedTable(const std::string &file, const std::string &kernel,
                            std::vector<std::pair<std::string, std::string>> &params);

} // namespace minitile
