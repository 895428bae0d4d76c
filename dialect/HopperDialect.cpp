//===- HopperDialect.cpp - the hopper dialect, its types and verifiers ----===//
#include "dialect/HopperDialect.h"
#include "dialect/TileDialect.h"

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
  // I64Attr's getters are unsigned: read the attributes as signed so that a
  // negative value is reported as itself.
  int64_t count = getCountAttr().getInt();
  if (count < 1 || count >= (int64_t(1) << 20))
    return emitOpError("expects 1 to 2^20 - 1 arrivals, not ") << count;
  return success();
}

LogicalResult MBarrierExpectTxOp::verify() {
  // The transaction count is a 20-bit field.
  int64_t bytes = getBytesAttr().getInt();
  if (bytes < 0 || bytes >= (int64_t(1) << 20))
    return emitOpError("expects 0 to 2^20 - 1 bytes, not ") << bytes;
  return success();
}

LogicalResult NamedBarrierOp::verify() {
  int64_t id = getIdAttr().getInt(), threads = getThreadsAttr().getInt();
  if (id < 1 || id > 15)
    return emitOpError("uses barrier 1 to 15 (0 is tile.barrier), not ") << id;
  int maxThreads = tile::targetOf(*this).maxThreadsPerBlock;
  if (threads < 32 || threads > maxThreads || threads % 32)
    return emitOpError("waits for a multiple of 32 threads up to ")
           << maxThreads << ", not " << threads;
  return success();
}

/// The thread count of a barrier, for bar_sync and bar_arrive.
static LogicalResult verifyBarrierThreads(Operation *op, int64_t threads) {
  int maxThreads = tile::targetOf(op).maxThreadsPerBlock;
  if (threads < 32 || threads > maxThreads || threads % 32)
    return op->emitOpError("counts a multiple of 32 threads up to ")
           << maxThreads << ", not " << threads;
  return success();
}

LogicalResult BarSyncOp::verify() { return verifyBarrierThreads(*this, getThreads()); }

LogicalResult BarArriveOp::verify() { return verifyBarrierThreads(*this, getThreads()); }

LogicalResult SetMaxNRegOp::verify() {
  int64_t count = getCountAttr().getInt();
  if (count < 24 || count > 256 || count % 8)
    return emitOpError("sets a multiple of 8 registers from 24 to 256, not ") << count;
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
  int64_t swizzle = getSwizzleAttr().getInt();
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
  int64_t offset = getOffsetAttr().getInt();
  if (offset < 0 || offset >= int64_t(getDest().getType().getBytes()))
    return emitOpError("lands at byte ") << offset << " of a tile of "
                                         << getDest().getType().getBytes() << " bytes";
  return success();
}

LogicalResult CpAsyncOp::verify() {
  auto type = getTensor().getType();
  if (getIndices().size() != type.getRank())
    return emitOpError("indexes a rank-") << type.getRank() << " tensor with "
                                          << getIndices().size() << " indices";
  if (getDest().getType().getElementType() != type.getElementType())
    return emitOpError("copies ") << type.getElementType() << " into a tile of "
                                  << getDest().getType().getElementType();
  if (getDest().getType().getBytes() < 16)
    return emitOpError("copies 16 bytes into a tile of ") << getDest().getType().getBytes();
  return success();
}

LogicalResult BulkStoreOp::verify() {
  if (getIndices().size() != getTensor().getType().getRank())
    return emitOpError("indexes a rank-") << getTensor().getType().getRank() << " tensor with "
                                          << getIndices().size() << " indices";
  if (getSource().getType().getElementType() != getTensor().getType().getElementType())
    return emitOpError("copies a tile of ") << getSource().getType().getElementType()
                                            << " into " << getTensor().getType();
  return success();
}

LogicalResult WgmmaWaitOp::verify() {
  int64_t pending = getPendingAttr().getInt();
  if (pending < 0 || pending > 7)
    return emitOpError("leaves 0 to 7 groups pending, not ") << pending;
  return success();
}

LogicalResult WgmmaDescOp::verify() {
  // The descriptor's 14-bit fields hold the byte offsets >> 4.
  auto fits = [](int64_t bytes) { return bytes > 0 && bytes % 16 == 0 && bytes < (1 << 18); };
  if (!fits(getSbo()))
    return emitOpError("sbo is a positive multiple of 16 below 2^18 bytes, not ") << getSbo();
  if (std::optional<int64_t> lbo = getLbo(); lbo && !fits(*lbo))
    return emitOpError("lbo is a positive multiple of 16 below 2^18 bytes, not ") << *lbo;
  return success();
}

LogicalResult StMatrixOp::verify() {
  size_t n = getValues().size();
  if (n != 1 && n != 2 && n != 4)
    return emitOpError("stores 1, 2 or 4 matrices, not ") << n;
  Type element = getTile().getType().getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() != 16)
    return emitOpError("stores 16-bit elements, not ") << element;
  if (getTile().getType().getShape().back() % 8)
    return emitOpError("needs rows of a multiple of 8 elements (16-byte chunks), not ")
           << getTile().getType().getShape().back();
  return success();
}

LogicalResult WgmmaOp::verify() {
  int64_t n = getNAttr().getInt();
  if (n < 8 || n > 256 || n % 8)
    return emitOpError("n is a multiple of 8 from 8 to 256, not ") << n;
  if (int64_t(getAcc().size()) != n / 2 || int64_t(getResults().size()) != n / 2)
    return emitOpError("m64n") << n << " has " << n / 2 << " accumulators per thread";
  if (bool(getDescA()) == !getA().empty())
    return emitOpError("takes A from shared memory (a descriptor) or from registers, "
                       "one of the two");
  if (!getA().empty() && getA().size() != 4)
    return emitOpError("takes A from four registers a thread (a 64 x 16 k-step of bf16), "
                       "not ")
           << getA().size();
  return success();
}
