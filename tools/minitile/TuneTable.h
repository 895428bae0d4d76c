//===- TuneTable.h - the table of tuned parameter values ------------------===//
//
// `minitile tune`'s runner writes it; `minitile compile --tuned FILE` (and
// minitile_add_kernel_library(... TUNED FILE)) reads it. A text file, one
// line per kernel configuration, '#' starting a comment:
//
//   # measured on NVIDIA H200, ...
//   indexer_fwd heads=64 dim=128 clean=true : stages=4 warpgroups=3  # 95.1 us
//
// Before ':' the kernel and the key: the values of the parameters it was
// tuned with (every parameter outside the searched space). After it the
// winning values of the searched parameters. A line applies to a compile of
// that kernel whose parameters have the key's values; of several, the one
// with the longest key. This file knows nothing of kernels: the caller checks
// names and values against the generator.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace minitile::tune {

/// name=value pairs, in the order written.
using ParamList = std::vector<std::pair<std::string, std::string>>;

struct TableLine {
  unsigned line = 0; // 1-based, in the file
  std::string kernel;
  ParamList key;    // the parameters the line is for
  ParamList values; // the tuned values
};

/// Parses a table. On a malformed line returns false with `error` set to
/// "FILE:LINE: error: ..." (`file` names the table in messages).
bool parseTable(const std::string &text, const std::string &file,
                std::vector<TableLine> &lines, std::string &error);

/// "stages=4 warpgroups=3".
std::string formatParams(const ParamList &params);

/// "indexer_fwd heads=64 dim=128 : stages=4 warpgroups=3" (no comment);
/// without values, the key alone: "indexer_fwd heads=64 dim=128".
std::string formatLine(const std::string &kernel, const ParamList &key,
                       const ParamList &values);

/// Of `lines`, the one for `kernel` whose key holds in `effective` (the
/// value of every parameter of the compile): the one with the longest key.
/// nullptr with `error` empty when none applies; nullptr with `error` set
/// ("FILE:LINE: error: ...") when two of the longest apply.
const TableLine *selectLine(const std::vector<TableLine> &lines, const std::string &kernel,
                            const std::map<std::string, std::string> &effective,
                            const std::string &file, std::string &error);

} // namespace minitile::tune
