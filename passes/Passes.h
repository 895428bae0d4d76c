//===- Passes.h - passes over tile IR -------------------------------------===//
#pragma once

#include "dialect/HopperDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace minitile::tile {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace minitile::tile
