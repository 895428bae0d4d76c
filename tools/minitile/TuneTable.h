//===- TuneTable.h - the table of tuned parameter values ------------------===//
//
// `minitile tune`'s runner writes it; `minitile compile --tuned FILE` (and
// minitile_add_kernel_library(... TUNED FILE)) reads it. A text file, one
// line per kernel configuration, '#' starting a comment:
//
//   # measured on NVIDIA H200, ...
//   indexer_fwd heads=64 dim=128 clean=true : stages=4 warpgroups=3  # 95.1 us
//
//   indexer_fwd heads=64 dim=128 @ S=4096,S_kv=1024 : stages=6 warpgroups=2
//
// Before ':' the kernel and the key: the values of the parameters it was
// tuned with (every parameter outside the searched space), and after '@'
// the shape (sizes) a line's values won on, where it is for one shape only;
// a line without a shape won over all of them (geometric mean). After ':'
// the winning values of the searched parameters. A line applies to a
// compile of that kernel whose parameters have the key's values; of
// several keys, the longest. This file knows nothing of kernels: the caller
// checks names and values against the generator.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
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
  ParamList shape;  // after '@': the one shape it won on (empty: all)
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

/// "S=4096,S_kv=1024".
std::string formatShape(const ParamList &shape);

/// Parses "S=4096,S_kv=1024" (a shape also gives the scalar arguments the
/// tuning used: "a=0.5,n=3000"); false with `error` set (without a
/// location) if malformed.
bool parseShape(const std::string &text, ParamList &shape, std::string &error);

/// The lines of one key: the one without a shape, if any, and those for
/// one shape each.
struct Selection {
  const TableLine *general = nullptr;
  std::vector<const TableLine *> shaped;
  bool empty() const { return !general && shaped.empty(); }
};

/// Of `lines`, those for `kernel` whose key holds in `effective` (the value
/// of every parameter of the compile) and is the longest such key. Empty
/// with `error` empty when none applies; empty with `error` set ("FILE:LINE:
/// error: ...") when two different keys of that length apply.
Selection selectLines(const std::vector<TableLine> &lines, const std::string &kernel,
                      const std::map<std::string, std::string> &effective,
                      const std::string &file, std::string &error);

/// Of `shaped` (lines with shapes), the one whose shape is nearest `shape`:
/// the least sum, over the names both give numbers for, of |log2 value -
/// log2 tuned| (values below 1 count as 1); the first of equals.
const TableLine *nearestLine(const std::vector<const TableLine *> &shaped,
                             const ParamList &shape);

} // namespace minitile::tune
