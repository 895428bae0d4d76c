//===- dsl/Build.h - run a generator and get its tile IR ------------------===//
//
// The one entry point from the MLIR side into the DSL: tools and tests call
// it; kernels never include it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "minitile/dsl.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace minitile {

/// Runs `gen.generate()` for `target` and returns a verified module holding
/// `tile.host @name` and `tile.kernel @name_kernel`, marked `tile.target`. Throws minitile::Error on misuse,
/// with the user's file and line.
mlir::OwningOpRef<mlir::ModuleOp> buildKernel(mlir::MLIRContext &ctx,
                                              Generator &gen,
                                              const std::string &name,
                                              const std::string &doc = "",
                                              const Target &target = Target::defaultTarget());

} // namespace minitile
