//===- Elementwise.cpp - arith and math on fragments, constants, iota -----===//
//
// Layouts: an elementwise op's operands and result share one layout (the
// result's, else the first known operand's; other operands are converted).
// Splat constants and iota take the layout their users need.
// Distribution: one scalar op per register; a constant is one scalar shared
// by every register; iota computes each register's coordinate from the
// thread's lane and warp.
//
//===----------------------------------------------------------------------===//
#include "passes/fragments/Fragments.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace minitile::tile {

namespace {

bool isElementwise(Operation *op) {
  if (!op->getDialect() || op->getNumResults() != 1)
    return false;
  StringRef ns = op->getDialect()->getNamespace();
  return (ns == "arith" || ns == "math") && op->hasTrait<OpTrait::Elementwise>();
}

class ElementwiseFamily : public FragmentFamily {
public:
  bool handles(Operation *op) const override {
    if (llvm::isa<IotaOp>(op))
      return true;
    if (auto c = llvm::dyn_cast<arith::ConstantOp>(op))
      return isFragment(c.getResult());
    return isElementwise(op) && touchesFragments(op);
  }

  LogicalResult inferLayouts(Operation *op, LayoutSolver &s) const override {
    if (!isElementwise(op))
      return success(); // constants and iota: their users decide
    Value result = op->getResult(0);
    FragLayoutAttr l = s.get(result);
    for (Value operand : op->getOperands())
      if (!l && isFragment(operand))
        l = s.get(operand);
    if (!l)
      return success();
    if (failed(s.set(result, l, op)))
      return failure();
    for (OpOperand &operand : op->getOpOperands())
      s.require(operand, l);
    return success();
  }

  LogicalResult distribute(Operation *op, Distributor &d, OpBuilder &b) const override {
    Location loc = op->getLoc();
    if (auto c = llvm::dyn_cast<arith::ConstantOp>(op)) {
      auto dense = llvm::cast<DenseElementsAttr>(c.getValue());
      Value scalar = arith::ConstantOp::create(
          b, loc, llvm::cast<TypedAttr>(dense.getSplatValue<Attribute>()));
      d.define(c.getResult(), Registers(d.layout(c.getResult()).getNumRegs(), scalar));
      return success();
    }
    if (auto iota = llvm::dyn_cast<IotaOp>(op))
      return distributeIota(iota, d, b);
    Value result = op->getResult(0);
    Type element = llvm::cast<RankedTensorType>(result.getType()).getElementType();
    int64_t n = d.layout(result).getNumRegs();
    SmallVector<const Registers *> operands;
    for (Value operand : op->getOperands())
      operands.push_back(isFragment(operand) ? &d.read(b, loc, operand) : nullptr);
    Registers out;
    // f32 to a 16-bit float two registers at a time: one cvt.rn.bf16x2.f32
    // (f16x2) makes both halves of the 32-bit register a pair is stored or
    // packed from. (ptxas also serialises the wgmmas of a loop whose
    // accumulator leaves it through single conversions, C7514.)
    if (auto trunc = llvm::dyn_cast<arith::TruncFOp>(op);
        trunc && n % 2 == 0 &&
        llvm::cast<RankedTensorType>(trunc.getIn().getType()).getElementType().isF32() &&
        (element.isBF16() || element.isF16())) {
      Type to = VectorType::get({2}, element);
      for (int64_t r = 0; r < n; r += 2) {
        OperationState state(loc, op->getName());
        state.addOperands(Distributor::pair(b, loc, (*operands[0])[r], (*operands[0])[r + 1]));
        state.addTypes(to);
        state.addAttributes(op->getAttrs());
        Value both = b.create(state)->getResult(0);
        for (int64_t half = 0; half < 2; ++half)
          out.push_back(LLVM::ExtractElementOp::create(
              b, loc, both, arith::ConstantIntOp::create(b, loc, b.getI32Type(), half)));
      }
      d.define(result, out);
      return success();
    }
    for (int64_t r = 0; r < n; ++r) {
      OperationState state(loc, op->getName());
      for (auto [i, operand] : llvm::enumerate(op->getOperands()))
        state.addOperands(operands[i] ? (*operands[i])[r] : operand);
      state.addTypes(element);
      state.addAttributes(op->getAttrs());
      out.push_back(b.create(state)->getResult(0));
    }
    d.define(result, out);
    return success();
  }

private:
  static LogicalResult distributeIota(IotaOp op, Distributor &d, OpBuilder &b) {
    Location loc = op.getLoc();
    FragLayoutAttr l = d.layout(op.getResult());
    int64_t axis = op.getAxis();
    Value base = d.threadOffset(b, loc, l)[axis];
    Type element = op.getResult().getType().getElementType();
    Registers out;
    for (int64_t r = 0; r < l.getNumRegs(); ++r) {
      Value v = arith::AddIOp::create(b, loc, base,
                                      Distributor::index(b, loc, l.coordinate(r, 0, 0)[axis]));
      out.push_back(element.isIndex() ? v : arith::IndexCastOp::create(b, loc, element, v));
    }
    d.define(op.getResult(), out);
    return success();
  }
};

} // namespace

const FragmentFamily &elementwiseFamily() {
  static ElementwiseFamily family;
  return family;
}

} // namespace minitile::tile
