//===- EmitLauncher.h - tile.host -> a C++ launcher with an embedded image ===//
#pragma once

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <string>
#include <vector>

namespace minitile {

/// How a kernel uses one of its tensor arguments.
struct TensorAccess {
  bool read = false, written = false;
};
/// Keyed by "launcher/argument".
using TensorAccessMap = std::map<std::string, TensorAccess>;

/// `s` as a C++ string literal: quotes, backslashes escaped, newlines as \n.
std::string cppStringLiteral(llvm::StringRef s);

/// For every tensor argument of every tile.host in `module`, as the DSL
/// built it (before the tile passes turn copies into TMA descriptors):
/// whether its kernel reads it, writes it, or both. A use the analysis does
/// not know counts as both.
TensorAccessMap analyzeTensorAccess(mlir::ModuleOp module);

/// One argument of a kernel's launcher, as a program that calls it without
/// knowing the kernel needs it (minitile tune's runner): what it is, its
/// type, and for a tensor its shape in terms of the sizes.
struct LauncherArgument {
  enum class Kind { size, scalar, tensor };
  Kind kind = Kind::size;
  std::string name;
  /// The value's type ("index", "f32", "i32"; a size is "index"), or for a
  /// tensor its element type ("bf16").
  std::string type;
  /// A tensor's dimensions, outermost first: each the name of a size argument
  /// or a decimal constant ("S", "64").
  std::vector<std::string> shape;
  TensorAccess access; // a tensor's, from analyzeTensorAccess()
};

/// The arguments of the launcher of the (first) tile.host in `module`, in
/// order, from the IR as the DSL built it (before the tile passes). Returns
/// false with `error` set if the module has no tile.host or a tensor's shape
/// is not made of sizes and constants.
bool describeLauncherArguments(mlir::ModuleOp module, const TensorAccessMap &access,
                               std::vector<LauncherArgument> &out, std::string &error);

struct LauncherOptions {
  std::string cppNamespace = "minitile::kernels";
  std::string headerName;  // how the source includes the header
  std::string provenance;  // "generated from ..." line for both files
  TensorAccessMap access;  // from analyzeTensorAccess(); a tensor missing
                           // here is taken as read and written
};

struct LauncherSource {
  std::string header, source;
};

/// Writes a header declaring one typed function per tile.host in `module`
/// (its parameters in the order the kernel declared them, then the stream;
/// sizes and scalars as minitile::rt::Scalar<T>, which refuses inexact
/// conversions), and a source defining it: argument checks, grid computation and a launch
/// of the kernel in `image` (cubin when `isCubin`, else PTX text). Returns
/// false with `error` set, and an MLIR error at the op (its DSL line), if
/// the launcher computes something other than integer arithmetic.
bool emitLauncher(mlir::ModuleOp module, const std::vector<char> &image,
                  bool isCubin, const LauncherOptions &options,
                  LauncherSource &out, std::string &error);

} // namespace minitile
