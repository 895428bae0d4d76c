//===- Passes.h - conversion passes from tile IR --------------------------===//
#pragma once

#include "dialect/HopperDialect.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace minitile {

#define GEN_PASS_DECL
#include "lowering/LoweringPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/LoweringPasses.h.inc"

} // namespace minitile
