//===- Loops.cpp - fragments carried by tile.for, tile.pipelined, tile.if --===//
//
// Layouts: a carried fragment's initial value, its iter_arg, the value the
// body yields for it and the loop's result share one layout (an if's results
// and the values its regions yield likewise). It is what a user of the
// iter_arg or the result asks for (a gemm accumulating into it); failing
// that, once propagation stalls, the initial value's.
// Distribution: the loop (or if) is rebuilt carrying the registers of each
// fragment instead (scalars are carried as they are), its body moved into
// the new op; tile.yield yields registers. Registers of gemms still in
// flight stay in flight through the loop: reading a carried value after the
// loop, or in the next iteration, waits for them first.
//
//===----------------------------------------------------------------------===//
#include "passes/fragments/Fragments.h"

using namespace mlir;

namespace minitile::tile {

namespace {

/// The carried values of a loop: (initial value, iter_arg, result) each.
struct Carried {
  OpOperand *init = nullptr;
  BlockArgument arg;
  OpResult result;
};

SmallVector<Carried> carriedOf(Operation *op) {
  SmallVector<Carried> out;
  if (auto loop = llvm::dyn_cast<ForOp>(op)) {
    for (unsigned i = 0; i < loop.getInitArgs().size(); ++i)
      out.push_back({&loop.getInitArgsMutable()[i], loop.getRegionIterArgs()[i],
                     loop->getResult(i)});
  } else if (auto loop = llvm::dyn_cast<PipelinedOp>(op)) {
    for (unsigned i = 0; i < loop.getInitArgs().size(); ++i)
      out.push_back({&loop.getInitArgsMutable()[i], loop.getRegionIterArgs()[i],
                     loop->getResult(i)});
  }
  return out;
}

/// The operand the region of `op` yields for its result `i`, in each region.
SmallVector<OpOperand *> yieldsOf(Operation *op, unsigned i) {
  SmallVector<OpOperand *> out;
  for (Region &region : op->getRegions())
    if (!region.empty())
      out.push_back(&region.front().getTerminator()->getOpOperand(i));
  return out;
}

class LoopFamily : public FragmentFamily {
public:
  bool handles(Operation *op) const override {
    if (llvm::isa<ForOp, PipelinedOp, IfOp, YieldOp>(op))
      return touchesFragments(op);
    return false;
  }

  LogicalResult inferLayouts(Operation *op, LayoutSolver &s) const override {
    if (llvm::isa<YieldOp>(op))
      return success(); // its parent decides
    if (auto ifOp = llvm::dyn_cast<IfOp>(op)) {
      for (OpResult result : ifOp->getResults()) {
        if (!isFragment(result))
          continue;
        SmallVector<OpOperand *> yields = yieldsOf(op, result.getResultNumber());
        FragLayoutAttr l = s.get(result);
        if (!l)
          l = s.wish(result);
        for (OpOperand *y : yields)
          if (!l && s.stalled)
            l = s.get(y->get());
        if (!l)
          continue;
        if (failed(s.set(result, l, op)))
          return failure();
        for (OpOperand *y : yields)
          s.require(*y, l);
      }
      return success();
    }
    for (const Carried &c : carriedOf(op)) {
      if (!isFragment(c.result))
        continue;
      OpOperand &yield = *yieldsOf(op, c.result.getResultNumber()).front();
      FragLayoutAttr l = s.get(c.arg);
      for (FragLayoutAttr candidate : {s.get(c.result), s.wish(c.arg), s.wish(c.result)})
        if (!l)
          l = candidate;
      if (!l && s.stalled) {
        l = s.get(c.init->get());
        if (!l)
          l = s.get(yield.get());
      }
      if (!l)
        continue;
      if (failed(s.set(c.arg, l, op)) || failed(s.set(c.result, l, op)))
        return failure();
      s.require(*c.init, l);
      s.require(yield, l);
    }
    return success();
  }

  LogicalResult distribute(Operation *op, Distributor &d, OpBuilder &b) const override {
    if (auto yield = llvm::dyn_cast<YieldOp>(op))
      return distributeYield(yield, d, b);
    if (auto ifOp = llvm::dyn_cast<IfOp>(op))
      return distributeIf(ifOp, d, b);
    if (auto loop = llvm::dyn_cast<ForOp>(op))
      return distributeFor(loop, d, b);
    return op->emitOpError("carries fragments; tile-warp-specialize should have turned it "
                           "into a tile.for");
  }

private:
  /// Registers of fragment results, scalars as they are.
  static SmallVector<Value> flatten(Distributor &d, OpBuilder &b, Location loc,
                                    ValueRange values, bool wait) {
    SmallVector<Value> out;
    for (Value v : values) {
      if (!isFragment(v)) {
        out.push_back(v);
        continue;
      }
      const Registers &regs = wait ? d.read(b, loc, v) : d.registers(v);
      out.append(regs.begin(), regs.end());
    }
    return out;
  }

  static SmallVector<Type> flatTypes(Distributor &d, TypeRange types) {
    SmallVector<Type> out;
    for (Type t : types) {
      auto frag = llvm::dyn_cast<RankedTensorType>(t);
      if (!frag) {
        out.push_back(t);
        continue;
      }
      out.append(layoutOf(frag).getNumRegs(), frag.getElementType());
    }
    return out;
  }

  /// Gives `old` values the registers (or scalars) `flat` holds, in order.
  static void rebind(Distributor &d, ValueRange old, ValueRange flat) {
    unsigned at = 0;
    for (Value v : old) {
      if (!isFragment(v)) {
        v.replaceAllUsesWith(flat[at++]);
        continue;
      }
      int64_t n = d.layout(v).getNumRegs();
      d.define(v, Registers(flat.begin() + at, flat.begin() + at + n));
      at += n;
    }
  }

  static LogicalResult distributeFor(ForOp loop, Distributor &d, OpBuilder &b) {
    Location loc = loop.getLoc();
    SmallVector<Value> inits = flatten(d, b, loc, loop.getInitArgs(), /*wait=*/true);
    auto rebuilt = ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                                 loop.getStep(), inits);
    rebuilt->setAttrs(loop->getAttrs());
    Block &from = loop.getBody().front(), &to = rebuilt.getBody().front();
    to.getOperations().splice(to.end(), from.getOperations());
    loop.getInductionVar().replaceAllUsesWith(rebuilt.getInductionVar());
    rebind(d, loop.getRegionIterArgs(), rebuilt.getRegionIterArgs());
    // A carried gemm result is in flight when the next iteration reads it.
    unsigned at = 0;
    auto yield = llvm::cast<YieldOp>(to.getTerminator());
    for (auto [arg, yielded] : llvm::zip(loop.getRegionIterArgs(), yield.getValues())) {
      unsigned n = isFragment(arg) ? d.layout(arg).getNumRegs() : 1;
      if (isFragment(arg) && yielded.getDefiningOp<GemmOp>())
        d.markInFlight(
            SmallVector<Value>(rebuilt.getRegionIterArgs().slice(at, n)), d.newGroup());
      at += n;
    }
    rebind(d, loop.getResults(), rebuilt.getResults());
    return success();
  }

  static LogicalResult distributeIf(IfOp ifOp, Distributor &d, OpBuilder &b) {
    auto rebuilt = IfOp::create(b, ifOp.getLoc(), flatTypes(d, ifOp.getResultTypes()),
                                ifOp.getCondition());
    rebuilt->setAttrs(ifOp->getAttrs());
    rebuilt.getThenRegion().takeBody(ifOp.getThenRegion());
    rebuilt.getElseRegion().takeBody(ifOp.getElseRegion());
    rebind(d, ifOp.getResults(), rebuilt.getResults());
    return success();
  }

  static LogicalResult distributeYield(YieldOp yield, Distributor &d, OpBuilder &b) {
    SmallVector<Value> values = flatten(d, b, yield.getLoc(), yield.getValues(), /*wait=*/false);
    YieldOp::create(b, yield.getLoc(), values);
    // Registers still in flight leave the loop (or if) in flight.
    Operation *parent = yield->getParentOp();
    if (llvm::isa<ForOp, IfOp>(parent)) {
      SmallVector<Value> inFlight;
      for (auto [v, result] : llvm::zip(values, parent->getResults()))
        if (d.groupOf(v))
          inFlight.push_back(result);
      if (!inFlight.empty())
        d.markInFlight(inFlight, d.newGroup());
    }
    return success();
  }
};

} // namespace

const FragmentFamily &loopFamily() {
  static LoopFamily family;
  return family;
}

} // namespace minitile::tile
