//===- Reductions.cpp - reduce -------------------------------------------===//
//
// Layouts: the result of reducing `axis` keeps the source's registers, lanes
// and warps off the axis. The lanes along the axis are then free; the result
// may either leave copies of each element on them (what a broadcast back
// onto the source shape needs) or give them register bits, so each lane
// holds different elements (fewer registers and instructions after). The
// copy form is chosen when a user asks for it; otherwise, once propagation
// stalls, the compact form.
// Distribution: registers along the axis are combined in the thread
// (in order, so `acc = fma(x, w, acc)` chains form with contraction; from
// 8 registers on as two interleaved chains joined at the end, half the
// depth for one combine more: the indexer's head sums, whose one chain a
// sum left its compute warps waiting: 1.4-7 % faster on an H100,
// 2026-12-05, tune runners timed in turn);
// then lanes: a butterfly (shuffle-xor and combine) per lane bit along the
// axis -- or, where the result gives that lane bit a register bit, a
// reduce-scatter step that sends half the registers and keeps the other
// half; then shared memory across warps.
//
//===----------------------------------------------------------------------===//
#include "passes/Barriers.h"
#include "passes/fragments/Fragments.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace minitile::tile {

namespace {

bool isZero(ArrayRef<int64_t> basis) {
  return llvm::all_of(basis, [](int64_t x) { return x == 0; });
}

class ReductionFamily : public FragmentFamily {
public:
  bool handles(Operation *op) const override { return llvm::isa<ReduceOp>(op); }

  LogicalResult inferLayouts(Operation *op, LayoutSolver &s) const override {
    auto reduce = llvm::cast<ReduceOp>(op);
    FragLayoutAttr src = s.get(reduce.getSource());
    if (!src || s.get(reduce.getResult()))
      return success();
    FragLayoutAttr copies = reduceLayout(src, reduce.getAxis());
    FragLayoutAttr wish = s.wish(reduce.getResult());
    if (wish == copies)
      return s.set(reduce.getResult(), copies, op);
    if (!s.stalled)
      return success(); // a user may still ask for the copies
    return s.set(reduce.getResult(), compactReduceLayout(src, reduce.getAxis()), op);
  }

  LogicalResult distribute(Operation *op, Distributor &d, OpBuilder &b) const override {
    auto reduce = llvm::cast<ReduceOp>(op);
    Location loc = op->getLoc();
    FragLayoutAttr src = d.layout(reduce.getSource());
    FragLayoutAttr dst = d.layout(reduce.getResult());
    int64_t axis = reduce.getAxis();
    Type element = reduce.getResult().getType().getElementType();
    if (!element.isF32() && !element.isInteger(32))
      return op->emitOpError("reduces f32 or i32 fragments, not ") << element;
    const Registers &in = d.read(b, loc, reduce.getSource());
    arith::FastMathFlags fmf =
        reduce.getContract() ? arith::FastMathFlags::contract : arith::FastMathFlags::none;

    // In the thread: registers differing only in bits along the axis.
    SmallVector<unsigned> kept, reduced;
    for (unsigned bit = 0; bit < src.getNumRegBits(); ++bit)
      (src.regBasis(bit)[axis] ? reduced : kept).push_back(bit);
    Registers partial;
    for (int64_t q = 0; q < (int64_t(1) << kept.size()); ++q) {
      int64_t base = 0;
      for (unsigned i = 0; i < kept.size(); ++i)
        if (q >> i & 1)
          base |= int64_t(1) << kept[i];
      // Two interleaved chains where there are 8 or more registers, joined
      // at the end: half the chain's depth for one combine more.
      int64_t n = int64_t(1) << reduced.size();
      int64_t chains = n >= 8 ? 2 : 1;
      SmallVector<Value, 2> acc(chains);
      for (int64_t z = 0; z < n; ++z) {
        int64_t r = base;
        for (unsigned i = 0; i < reduced.size(); ++i)
          if (z >> i & 1)
            r |= int64_t(1) << reduced[i];
        Value &a = acc[z % chains];
        a = a ? combine(b, loc, reduce.getKind(), fmf, a, in[r]) : in[r];
      }
      partial.push_back(chains == 2 ? combine(b, loc, reduce.getKind(), fmf, acc[0], acc[1])
                                    : acc[0]);
    }
    // `partial` is indexed by the kept register bits, in order: bit i of
    // the index is register bit kept[i] of the source.

    // Across lanes. A lane bit along the axis to which the result gives a
    // register bit halves the registers (reduce-scatter); others butterfly.
    auto [lane, warp] = d.laneAndWarp(b, loc, src.getNumWarps());
    (void)warp;
    SmallVector<int64_t> bases; // per kept index bit: its coordinate basis
    for (unsigned k : kept)
      bases.push_back(flatBasis(src.regBasis(k), axis));
    for (unsigned bit = 0; bit < 5; ++bit) {
      if (!src.laneBasis(bit)[axis])
        continue;
      int64_t mask = int64_t(1) << bit;
      std::optional<unsigned> scatter;
      if (!isZero(dst.laneBasis(bit))) {
        int64_t target = flatBasis(dst.laneBasis(bit), -1);
        for (unsigned i = 0; i < bases.size(); ++i)
          if (bases[i] == target)
            scatter = i;
        if (!scatter)
          return op->emitOpError("its result's layout moves lane bit ")
                 << bit << " to an element the source's registers do not hold";
      }
      if (!scatter) {
        for (Value &v : partial)
          v = combine(b, loc, reduce.getKind(), fmf, v,
                      ShuffleXorOp::create(b, loc, v.getType(), v, mask));
        continue;
      }
      // Lanes with the bit clear keep the registers whose index bit
      // `*scatter` is clear and send the others; their partners the reverse.
      Value set = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne,
          arith::AndIOp::create(b, loc, lane, Distributor::index(b, loc, mask)),
          Distributor::index(b, loc, 0));
      Registers next;
      int64_t half = int64_t(1) << *scatter;
      for (int64_t i = 0; i < int64_t(partial.size()); ++i) {
        if (i & half)
          continue;
        Value low = partial[i], high = partial[i | half];
        Value keep = arith::SelectOp::create(b, loc, set, high, low);
        Value send = arith::SelectOp::create(b, loc, set, low, high);
        next.push_back(combine(b, loc, reduce.getKind(), fmf, keep,
                               ShuffleXorOp::create(b, loc, send.getType(), send, mask)));
      }
      partial = next;
      bases.erase(bases.begin() + *scatter);
    }

    // What remains is the result's registers, in order.
    Registers out = partial;
    bool matches = dst.getNumRegBits() == bases.size();
    for (unsigned i = 0; matches && i < bases.size(); ++i)
      matches = flatBasis(dst.regBasis(i), -1) == bases[i];
    if (!matches)
      return op->emitOpError("its result's layout does not keep the registers the "
                             "reduction leaves");

    // Across warps: through shared memory.
    SmallVector<unsigned> warpBits;
    for (unsigned bit = 0; bit < src.getNumWarpBits(); ++bit)
      if (src.warpBasis(bit)[axis])
        warpBits.push_back(bit);
    if (!warpBits.empty() && failed(acrossWarps(reduce, d, b, dst, warpBits, out)))
      return failure();
    d.define(reduce.getResult(), out);
    return success();
  }

private:
  /// The coordinate bit a basis vector names, as one number (dimension d's
  /// bits above those of dimensions after it), skipping `skip`.
  static int64_t flatBasis(ArrayRef<int64_t> basis, int64_t skip) {
    int64_t out = 0;
    unsigned dim = 0;
    for (unsigned d = 0; d < basis.size(); ++d) {
      if (int64_t(d) == skip)
        continue;
      if (basis[d])
        out = (int64_t(dim + 1) << 32) | basis[d];
      ++dim;
    }
    return out;
  }

  static Value combine(OpBuilder &b, Location loc, ReduceKind kind, arith::FastMathFlags fmf,
                       Value x, Value y) {
    bool fl = llvm::isa<FloatType>(x.getType());
    switch (kind) {
    case ReduceKind::sum:
      return fl ? Value(arith::AddFOp::create(b, loc, x, y, fmf))
                : Value(arith::AddIOp::create(b, loc, x, y));
    case ReduceKind::max:
      return fl ? Value(arith::MaximumFOp::create(b, loc, x, y))
                : Value(arith::MaxSIOp::create(b, loc, x, y));
    case ReduceKind::min:
      return fl ? Value(arith::MinimumFOp::create(b, loc, x, y))
                : Value(arith::MinSIOp::create(b, loc, x, y));
    }
    return x;
  }

  /// Each warp writes its partial results to shared memory; after a barrier
  /// every thread combines the partials of the warps along the axis.
  static LogicalResult acrossWarps(ReduceOp op, Distributor &d, OpBuilder &b,
                                   FragLayoutAttr dst, ArrayRef<unsigned> warpBits,
                                   Registers &out) {
    Location loc = op.getLoc();
    KernelOp kernel = d.kernel();
    int64_t warps = d.layout(op.getSource()).getNumWarps();
    if (warps * 32 != kernel.getNumComputeThreads())
      return op.emitOpError("reduces across warps inside a group of a pipelined loop, "
                            "which is not supported yet");
    auto shape = op.getResult().getType().getShape();
    int64_t elements = 1;
    for (int64_t n : shape)
      elements *= n;
    int64_t partials = int64_t(1) << warpBits.size();
    Type element = op.getResult().getType().getElementType();
    OpBuilder entry = OpBuilder::atBlockBegin(&kernel.getBody().front());
    auto scratchType = SharedType::get(b.getContext(), {partials, elements}, element, 0);
    Value scratch = AllocSharedOp::create(entry, loc, scratchType, 1);

    auto [lane, warp] = d.laneAndWarp(b, loc, warps);
    (void)lane;
    Value slot = Distributor::index(b, loc, 0);
    for (unsigned i = 0; i < warpBits.size(); ++i) {
      Value bitSet = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, warp, Distributor::index(b, loc, warpBits[i])),
          Distributor::index(b, loc, 1));
      slot = arith::OrIOp::create(
          b, loc, slot, arith::ShLIOp::create(b, loc, bitSet, Distributor::index(b, loc, i)));
    }
    SmallVector<Value> offset = d.threadOffset(b, loc, dst);
    auto linear = [&](int64_t r) {
      Coord c = dst.coordinate(r, 0, 0);
      Value l = Distributor::index(b, loc, 0);
      for (unsigned dim = 0; dim < shape.size(); ++dim)
        l = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, l, Distributor::index(b, loc, shape[dim])),
            arith::AddIOp::create(b, loc, offset[dim], Distributor::index(b, loc, c[dim])));
      return l;
    };
    for (int64_t r = 0; r < int64_t(out.size()); ++r)
      SharedStoreOp::create(b, loc, out[r], scratch, slot, linear(r));
    createComputeBarrier(b, loc, kernel);
    for (int64_t r = 0; r < int64_t(out.size()); ++r) {
      Value acc;
      for (int64_t p = 0; p < partials; ++p) {
        Value v = SharedLoadOp::create(b, loc, element, scratch,
                                       Distributor::index(b, loc, p), linear(r));
        acc = acc ? combine(b, loc, op.getKind(),
                            op.getContract() ? arith::FastMathFlags::contract
                                             : arith::FastMathFlags::none,
                            acc, v)
                  : v;
      }
      out[r] = acc;
    }
    createComputeBarrier(b, loc, kernel);
    return success();
  }
};

} // namespace

const FragmentFamily &reductionFamily() {
  static ReductionFamily family;
  return family;
}

} // namespace minitile::tile
