//===- AssignLayouts.cpp - choose which thread holds each fragment element ===//
//
// Expects: fragments (static tensors) without layouts in tile.kernel bodies.
// Leaves:  every fragment type carrying a #tile.frag layout. gemm results get
//          the wgmma accumulator layout of the warps that execute them (the
//          kernel's compute warps, split between a pipelined loop's groups);
//          layouts then flow forward through elementwise ops, reshape,
//          transpose and reduce, and backward into the operands of
//          elementwise ops, broadcasts, reshapes and transposes (so loads,
//          iota and constants take the layout their users need). Fragments
//          still without one get a blocked layout, and propagation resumes.
//          Two different layouts meeting at one op are an error.
//
//===----------------------------------------------------------------------===//
#include "passes/Layouts.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

namespace minitile::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "passes/Passes.h.inc"
} // namespace minitile::tile

using namespace mlir;
using namespace minitile::tile;

namespace {

bool isFragment(Value v) { return llvm::isa<RankedTensorType>(v.getType()); }

class LayoutAssignment {
public:
  explicit LayoutAssignment(KernelOp kernel) : kernel_(kernel) {}

  LogicalResult run() {
    if (failed(collect()))
      return failure();
    while (true) {
      if (failed(propagate()))
        return failure();
      Value open = firstUnassigned();
      if (!open)
        break;
      auto type = llvm::cast<RankedTensorType>(open.getType());
      FailureOr<int64_t> warps = executingWarps(open);
      if (failed(warps))
        return failure();
      set(open, blockedLayout(kernel_.getContext(), type.getShape(),
                              elementBytes(type.getElementType()), *warps));
    }
    return rewriteTypes();
  }

private:
  /// Every fragment value, in program order.
  LogicalResult collect() {
    WalkResult r = kernel_.walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isFragment(arg)) {
              op->emitOpError("carries a fragment through a block argument, which "
                              "is not supported yet");
              return WalkResult::interrupt();
            }
      for (Value v : op->getResults())
        if (isFragment(v)) {
          if (layoutOf(v.getType())) {
            layout_[v] = layoutOf(v.getType());
          }
          values_.push_back(v);
        }
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }

  Value firstUnassigned() {
    for (Value v : values_)
      if (!layout_.count(v))
        return v;
    return nullptr;
  }

  /// Warps that hold `v`: those executing its definition and its uses, the
  /// fewest (a fragment made outside a pipelined loop and used in it lives in
  /// each group of warps).
  FailureOr<int64_t> executingWarps(Value v) {
    Operation *op = v.getDefiningOp();
    int64_t all = kernel_.getNumComputeThreads() / 32;
    auto warpsAt = [&](Operation *at) -> int64_t {
      auto loop = at->getParentOfType<PipelinedOp>();
      return loop ? all / loop.getGroups() : all;
    };
    int64_t warps = warpsAt(op);
    for (Operation *user : v.getUsers())
      warps = std::min(warps, warpsAt(user));
    if (warps < 1 || !llvm::isPowerOf2_64(warps))
      return op->emitOpError("fragments need a power-of-two number of whole warps; "
                             "this code runs on ")
             << kernel_.getNumComputeThreads() << " threads";
    return warps;
  }

  /// Records `layout` for `v`; false (with an error) on a conflict.
  LogicalResult assign(Value v, FragLayoutAttr layout, Operation *at) {
    if (!layout)
      return success();
    auto it = layout_.find(v);
    if (it == layout_.end()) {
      set(v, layout);
      return success();
    }
    if (it->second != layout)
      return at->emitOpError("meets fragments of two different layouts: ")
             << it->second << " and " << layout
             << " (converting between layouts is not supported yet)";
    return success();
  }

  void set(Value v, FragLayoutAttr layout) {
    layout_[v] = layout;
    changed_ = true;
  }

  FragLayoutAttr get(Value v) { return layout_.lookup(v); }

  LogicalResult propagate() {
    do {
      changed_ = false;
      WalkResult r = kernel_.walk([&](Operation *op) {
        return failed(visit(op)) ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (r.wasInterrupted())
        return failure();
    } while (changed_);
    return success();
  }

  LogicalResult visit(Operation *op) {
    if (auto gemm = llvm::dyn_cast<GemmOp>(op)) {
      auto type = gemm.getResult().getType();
      FailureOr<int64_t> warps = executingWarps(gemm.getResult());
      if (failed(warps))
        return failure();
      int64_t M = type.getShape()[0], N = type.getShape()[1];
      if (*warps % 4 || M != 16 * *warps)
        return gemm.emitOpError("runs on ")
               << *warps << " warps, whose warpgroups take 64 rows each, so its A has "
               << 16 * *warps << " rows, not " << M;
      if (N < 8 || N > 256)
        return gemm.emitOpError("has N = ") << N << "; wgmma takes 8 to 256 columns";
      auto acc = wgmmaAccumulatorLayout(op->getContext(), M, N, *warps);
      if (failed(assign(gemm.getResult(), acc, op)))
        return failure();
      if (gemm.getAcc())
        return assign(gemm.getAcc(), acc, op);
      return success();
    }
    if (auto reshape = llvm::dyn_cast<ReshapeOp>(op)) {
      auto from = reshape.getSource().getType().getShape();
      auto to = reshape.getResult().getType().getShape();
      if (FragLayoutAttr l = get(reshape.getSource()))
        if (failed(assign(reshape.getResult(), reshapeLayout(l, from, to), op)))
          return failure();
      if (FragLayoutAttr l = get(reshape.getResult()))
        return assign(reshape.getSource(), reshapeLayout(l, to, from), op);
      return success();
    }
    if (auto transpose = llvm::dyn_cast<TransposeOp>(op)) {
      if (FragLayoutAttr l = get(transpose.getSource()))
        if (failed(assign(transpose.getResult(), transposeLayout(l, transpose.getPerm()), op)))
          return failure();
      if (FragLayoutAttr l = get(transpose.getResult()))
        return assign(transpose.getSource(), untransposeLayout(l, transpose.getPerm()), op);
      return success();
    }
    if (auto reduce = llvm::dyn_cast<ReduceOp>(op)) {
      if (FragLayoutAttr l = get(reduce.getSource()))
        return assign(reduce.getResult(), reduceLayout(l, reduce.getAxis()), op);
      return success();
    }
    if (auto store = llvm::dyn_cast<StoreTileOp>(op)) {
      // The mask goes with the value.
      if (!store.getMask())
        return success();
      if (FragLayoutAttr l = get(store.getValue()))
        if (failed(assign(store.getMask(), l, op)))
          return failure();
      if (FragLayoutAttr l = get(store.getMask()))
        return assign(store.getValue(), l, op);
      return success();
    }
    if (auto broadcast = llvm::dyn_cast<BroadcastOp>(op)) {
      if (FragLayoutAttr l = get(broadcast.getResult()))
        if (isFragment(broadcast.getSource()))
          return assign(broadcast.getSource(),
                        broadcastSourceLayout(l, broadcast.getDims()), op);
      return success();
    }
    if (op->getNumResults() == 1 && isFragment(op->getResult(0)) &&
        (op->hasTrait<OpTrait::Elementwise>() || llvm::isa<arith::ConstantOp>(op))) {
      // Elementwise: operands and result share one layout.
      FragLayoutAttr l = get(op->getResult(0));
      for (Value operand : op->getOperands())
        if (!l && isFragment(operand))
          l = get(operand);
      if (!l)
        return success();
      if (failed(assign(op->getResult(0), l, op)))
        return failure();
      for (Value operand : op->getOperands())
        if (isFragment(operand) && failed(assign(operand, l, op)))
          return failure();
    }
    return success();
  }

  LogicalResult rewriteTypes() {
    for (Value v : values_) {
      auto type = llvm::cast<RankedTensorType>(v.getType());
      auto typed = withLayout(type, layout_.lookup(v));
      v.setType(typed);
      if (auto constant = v.getDefiningOp<arith::ConstantOp>()) {
        auto dense = llvm::dyn_cast<DenseElementsAttr>(constant.getValue());
        if (!dense || !dense.isSplat())
          return constant.emitOpError("fragment constants are splats");
        constant.setValueAttr(DenseElementsAttr::get(typed, dense.getSplatValue<Attribute>()));
      }
    }
    return success();
  }

  KernelOp kernel_;
  SmallVector<Value> values_;
  llvm::DenseMap<Value, FragLayoutAttr> layout_;
  bool changed_ = false;
};

struct AssignLayouts : minitile::tile::impl::TileAssignLayoutsBase<AssignLayouts> {
  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<KernelOp>())
      if (failed(LayoutAssignment(kernel).run()))
        return signalPassFailure();
  }
};

} // namespace
