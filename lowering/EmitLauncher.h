//===- EmitLauncher.h - tile.host -> a C++ launcher with an embedded image ===//
#pragma once

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace minitile {

struct LauncherOptions {
  std::string cppNamespace = "minitile::kernels";
  std::string headerName;  // how the source includes the header
  std::string provenance;  // "generated from ..." line for both files
};

struct LauncherSource {
  std::string header, source;
};

/// Writes a header declaring one typed function per tile.host in `module`,
/// and a source defining it: argument checks, grid computation and a launch
/// of the kernel in `image` (cubin when `isCubin`, else PTX text). Returns
/// false with `error` set, and an MLIR error at the op (its DSL line), if
/// the launcher computes something other than integer arithmetic.
bool emitLauncher(mlir::ModuleOp module, const std::vector<char> &image,
                  bool isCubin, const LauncherOptions &options,
                  LauncherSource &out, std::string &error);

} // namespace minitile
