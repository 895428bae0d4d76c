//===- EmitLauncher.h - tile.host -> a C++ launcher with an embedded image ===//
#pragma once

#include "dialect/SizeExpr.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
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
  /// A tensor's dimensions, outermost first, as text: the name of a size
  /// argument, a decimal constant, or an expression of them ("S", "64",
  /// "BH * qBlocks * 64"): `dims[d].text()`.
  std::vector<std::string> shape;
  /// The same dimensions as expressions of the size arguments.
  std::vector<tile::SizeExpr> dims;
  TensorAccess access; // a tensor's, from analyzeTensorAccess()
};

/// The arguments of the launcher of the (first) tile.host in `module`, in
/// order, from the IR as the DSL built it (before the tile passes). Returns
/// false with `error` set if the module has no tile.host or a tensor's shape
/// is not an expression of sizes and constants (tile::sizeExprOf).
bool describeLauncherArguments(mlir::ModuleOp module, const TensorAccessMap &access,
                               std::vector<LauncherArgument> &out, std::string &error);

struct LauncherOptions {
  std::string cppNamespace = "minitile::kernels";
  std::string headerName;  // how the source includes the header
  std::string provenance;  // "generated from ..." line for both files
  TensorAccessMap access;  // from analyzeTensorAccess(); a tensor missing
                           // here is taken as read and written
  /// For one of several variants composeDispatch() joins: a suffix ("_v1")
  /// for the source's internal names -- the image and a function of
  /// internal linkage, NAME_v1 -- while the header still declares NAME.
  std::string variant;
};

struct LauncherSource {
  std::string header, source;
  /// The source without its preamble (the provenance line and the
  /// includes): the image and the function.
  std::string definitions;
  /// "void NAME(<parameters>, CUstream stream)", without the default
  /// argument, and the call that forwards them to the (variant's) function:
  /// "NAME_v1(S, S_kv, q, ..., stream)".
  std::string signature, call;
  /// The launcher's size arguments, by name.
  std::vector<std::string> sizes;
};

/// One variant of a dispatching launcher: its launcher, emitted with
/// LauncherOptions::variant set, and the shapes (sizes by name) it was
/// tuned for, each on one of the dispatch's tables (DispatchTables).
struct DispatchVariant {
  LauncherSource launcher;
  std::string description; // its parameters, for the files' comments
  struct Shape {
    int table = 0;
    std::vector<std::pair<std::string, int64_t>> sizes;
  };
  std::vector<Shape> shapes;
  /// The tables whose line for all shapes gives it: on their device, the
  /// kernel where shapes of different variants are equally near a call, or
  /// every call where the table has no shape (at most one variant a table).
  std::vector<int> generalOn;
};

/// The tables a dispatching launcher's variants come from: one per device
/// they were measured on ("H100", as the device's name holds it), the call
/// choosing by the device it runs on (minitile::rt::deviceTable), or one
/// table (a name or not) for every device.
struct DispatchTables {
  std::vector<std::string> devices;
  int fallback = 0; // the table of devices none names
};

/// Joins variants of one kernel -- each compiled with other parameters,
/// with the same launcher arguments -- into one header and source whose
/// function runs, on each call, the variant the call's device's table
/// tuned for the shape nearest the call's sizes
/// (minitile::rt::nearestVariant), or that table's general variant where
/// shapes of different variants are equally near. `options` gives the
/// namespace, header name and provenance. The shapes name sizes of the
/// launcher only (LauncherSource::sizes; the caller drops the scalars a
/// tuning records). False with `error` set if the variants' launchers differ.
bool composeDispatch(const std::vector<DispatchVariant> &variants,
                     const DispatchTables &tables, const LauncherOptions &options,
                     LauncherSource &out, std::string &error);

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
