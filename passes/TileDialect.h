//===- TileDialect.h - the tile dialect: types, attributes, ops -----------===//
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "passes/TileDialect.h.inc"
#include "passes/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "passes/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "passes/TileTypes.h.inc"

namespace minitile::tile {

/// Verifies that `op` sits inside a tile.kernel (device code).
mlir::LogicalResult verifyInKernel(mlir::Operation *op);

template <typename ConcreteType>
class InKernel : public mlir::OpTrait::TraitBase<ConcreteType, InKernel> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyInKernel(op);
  }
};

/// Bytes of one element of `type` (an int, float or index type).
int64_t elementBytes(mlir::Type type);

class ViewOp;
class KernelOp;
/// The tile.view a tensor value derives from through tile.select, or null.
ViewOp rootView(mlir::Value tensor);
/// bar.sync for the compute threads of `kernel`: barrier 0 for the whole
/// block, or named barrier 1 for the compute threads of a warp-specialised one.
void createComputeBarrier(mlir::OpBuilder &b, mlir::Location loc, KernelOp kernel);

/// The size of dimension `dim` of a tensor value (from its root view).
mlir::Value viewSize(mlir::OpBuilder &b, mlir::Value tensor, unsigned dim);

} // namespace minitile::tile

#define GET_OP_CLASSES
#include "passes/TileOps.h.inc"
