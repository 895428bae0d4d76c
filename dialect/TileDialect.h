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

#include "minitile/target.h"

#include "dialect/TileDialect.h.inc"
#include "dialect/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/TileTypes.h.inc"

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

/// Most stages a pipelined loop (and a staged shared tile) has.
constexpr int64_t kMaxStages = 16;
/// Whether a kernel's producer warps may keep `registers` each (its
/// producer_registers): what setmaxnreg takes (multiples of 8), from the
/// least it allows up to what a producer ever gets (64).
constexpr bool isProducerRegisterCount(int64_t registers) {
  return registers >= 24 && registers <= 64 && registers % 8 == 0;
}
/// Bytes of the shared tile of a value tile-lower-fills keeps for the bulk
/// copies of tile.fill_async (one per kernel and value): the most one copy
/// moves.
constexpr int64_t kFillSourceBytes = 2048;
/// Bounds that hold whatever the target, so that types and ops verify (and
/// passes never compute with absurd sizes) without knowing it: a shared tile
/// holds at most the largest shared memory of a block on any target, a
/// fragment at most as many elements as the largest register file of a
/// multiprocessor has 32-bit registers (minitile/target.h).
int64_t maxSharedTileBytes();
int64_t maxFragmentElements();

/// The product of `values`, or nothing when it overflows int64.
std::optional<int64_t> checkedProduct(llvm::ArrayRef<int64_t> values);

/// A fragment type: a builtin ranked tensor of ints or floats with a static
/// shape of power-of-two extents and at most maxFragmentElements() elements.
bool isFragmentType(mlir::Type type);
/// Why `type` is not a fragment type ("" when it is).
std::string whyNotFragment(mlir::Type type);

class ViewOp;
class KernelOp;
/// The tile.view a tensor value derives from through tile.slice, or null.
ViewOp rootView(mlir::Value tensor);
/// Whether memory behind `pointer` (a tile.ptr or a tensor view) is read or
/// written, through it and everything derived from it: each use's
/// MemoryEffectOpInterface says (a tile.copy's source is read into shared
/// memory); a use that declares no effect counts as both. The one answer
/// to "which tensors does this kernel write?" -- the launcher's const
/// pointers and the producer warps' loads both ask it.
struct PointerAccess {
  bool read = false, written = false;
};
PointerAccess pointerAccess(mlir::Value pointer);
/// The target the module holding `op` is compiled for: its `tile.target`
/// attribute (an architecture name), or the default target without one.
const Target &targetOf(mlir::Operation *op);
/// The name of the module attribute holding the target's architecture.
inline constexpr const char *kTargetAttrName = "tile.target";
/// The unit attribute of a gathered tile.copy whose rows a pipelined loop's
/// producer copies by 16-byte cp.async of its warp's lanes rather than a TMA
/// box a row (passes/TmaCopies.h).
inline constexpr const char *kCpAsyncAttr = "tile.cp_async";
/// The unit attribute of a pipelined loop of one group (and of the tile.for
/// its compute threads run) whose compute warpgroups take turns at issuing
/// their gemms (passes/PingPong.cpp).
inline constexpr const char *kPingPongAttr = "tile.ping_pong";

/// The size of dimension `dim` of a tensor value (from its root view).
mlir::Value viewSize(mlir::OpBuilder &b, mlir::Value tensor, unsigned dim);
/// The thread's place in a block of extents `block`, row-major (x fastest),
/// from tile.thread_id (only the dimensions wider than 1).
mlir::Value linearThreadId(mlir::OpBuilder &b, mlir::Location loc,
                           llvm::ArrayRef<int32_t> block);

} // namespace minitile::tile

#define GET_OP_CLASSES
#include "dialect/TileOps.h.inc"
