//===- HopperDialect.cpp - the hopper dialect, its types and verifiers ----===//
#include "dialect/HopperDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace minitile;
using namespace minitile::hopper;

#include "dialect/HopperDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/HopperTypes.cpp.inc"

#define GET_OP_CLASSES
#include "dialect/HopperOps.cpp.inc"

void HopperDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/HopperTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/HopperOps.cpp.inc"
      >();
}

namespace {
template <class... Ops> std::optional<Feature> featureOf(Operation *op) {
  std::optional<Feature> feature;
  ((llvm::isa<Ops>(op) ? void(feature = Ops::requiredFeature()) : void()), ...);
  return feature;
}
} // namespace

std::optional<Feature> minitile::hopper::requiredFeature(Operation *op) {
  return featureOf<
#define GET_OP_LIST
#include "dialect/HopperOps.cpp.inc"
      >(op);
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult MBarrierOfOp::verify() {
  auto tile = getTile().getType();
  if (!tile.getElementType().isInteger(64) || tile.getRank() != 1)
    return emitOpError("takes a rank-1 shared tile of i64, not ") << tile;
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  // The arrival count is a 20-bit field.
  if (getCount() < 1 || getCount() >= (int64_t(1) << 20))
    return emitOpError("expects 1 to 2^20 - 1 arrivals, not ") << getCount();
  return success();
}

LogicalResult MBarrierExpectTxOp::verify() {
  // The transaction count is a 20-bit field.
  if (getBytes() < 0 || getBytes() >= (int64_t(1) << 20))
    return emitOpError("expects 0 to 2^20 - 1 bytes, not ") << getBytes();
  return success();
}

LogicalResult NamedBarrierOp::verify() {
  if (getId() < 1 || getId() > 15)
    return emitOpError("uses barrier 1 to 15 (0 is tile.barrier), not ") << getId();
  if (getThreads() < 32 || getThreads() > 1024 || getThreads() % 32)
    return emitOpError("waits for a multiple of 32 threads up to 1024, not ")
           << getThreads();
  return success();
}

LogicalResult SetMaxNRegOp::verify() {
  if (getCount() < 24 || getCount() > 256 || getCount() % 8)
    return emitOpError("sets a multiple of 8 registers from 24 to 256, not ") << getCount();
  return success();
}

LogicalResult MakeTmaDescOp::verify() {
  size_t rank = getDims().size();
  if (rank < 1 || rank > 5)
    return emitOpError("a tensor map has 1 to 5 dimensions, not ") << rank;
  if (getStrides().size() + 1 != rank || getBox().size() != rank)
    return emitOpError("needs rank-1 strides and rank box extents");
  for (int64_t b : getBox())
    if (b < 1 || b > 256)
      return emitOpError("box extents are 1 to 256, not ") << b;
  int64_t swizzle = getSwizzle();
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitOpError("swizzle is 0, 32, 64 or 128 bytes");
  int64_t innerBytes =
      getBox()[0] * tile::elementBytes(getBase().getType().getElementType());
  if (swizzle && innerBytes > swizzle)
    return emitOpError("the inner box extent (") << innerBytes
                                                  << " bytes) exceeds the swizzle";
  return success();
}

LogicalResult TmaLoadOp::verify() {
  if (getCoords().empty() || getCoords().size() > 5)
    return emitOpError("takes 1 to 5 coordinates, not ") << getCoords().size();
  if (getOffset() < 0 || getOffset() >= getDest().getType().getBytes())
    return emitOpError("lands at byte ") << getOffset() << " of a tile of "
                                         << getDest().getType().getBytes() << " bytes";
  return success();
}

LogicalResult WgmmaWaitOp::verify() {
  if (getPending() < 0 || getPending() > 7)
    return emitOpError("leaves 0 to 7 groups pending, not ") << getPending();
  return success();
}

LogicalResult WgmmaOp::verify() {
  int64_t n = getN();
  if (n < 8 || n > 256 || n % 8)
    return emitOpError("n is a multiple of 8 from 8 to 256, not ") << n;
  if (int64_t(getAcc().size()) != n / 2 || int64_t(getResults().size()) != n / 2)
    return emitOpError("m64n") << n << " has " << n / 2 << " accumulators per thread";
  return success();
}
