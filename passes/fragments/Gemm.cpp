//===- Gemm.cpp - gemm on the tensor cores (wgmma) ------------------------===//
//
// Layouts: the result (and the accumulator) take the wgmma accumulator
// layout of the warps that run the gemm: M / 64 warpgroups, 64 rows each.
// Distribution (sm_90a): per warpgroup, one wgmma m64nNk16 per 16 of K with
// shared-memory descriptors (the tiles' 128-byte swizzle), between a fence
// and a commit. A is K-major. B stored [N, K] (transpose_b) is K-major too;
// B stored [K, N] is MN-major: its rows are K, 128-byte panels of 64 columns
// of N each (what a TMA copy into the tile writes), so a k-step's
// descriptor starts 16 rows (2048 bytes) further on, with groups of 8 rows
// of K 1024 bytes apart (the stride offset) and groups of 64 columns of N a
// panel apart (the leading offset), and the wgmma transposes B (imm-trans-b,
// which PTX has for 16-bit types). Nothing waits here: the result's
// registers are in flight until the first op that reads them
// (Distributor::read puts the wait there, for all but the gemms started
// after this one on every path to the read), so independent work overlaps
// the tensor cores; a wgmma accumulating into them does not wait. With
// `max_pending`, a wait for all but that many groups follows the commit.
//
// A from registers (a fragment, as attention's P . V takes P): A needs
// wgmma's A-operand layout (wgmmaOperandALayout, the accumulator layout of
// an [M, K] result: a gemm's result cast to bf16 has it already; another
// layout gets a tile.convert_layout from tile-assign-layouts). Each k-step's
// eight bf16 registers are packed in pairs into the four 32-bit registers
// the wgmma takes, all before the fence (the registers a wgmma reads must
// not be written between its fence and its wait; tile-order-async puts the
// wait before they are written again).
//
//===----------------------------------------------------------------------===//
#include "passes/fragments/Fragments.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <array>

using namespace mlir;

namespace minitile::tile {

namespace {

constexpr int64_t kHoistedDescriptors = 8;

class GemmFamily : public FragmentFamily {
public:
  bool handles(Operation *op) const override { return llvm::isa<GemmOp>(op); }

  LogicalResult inferLayouts(Operation *op, LayoutSolver &s) const override {
    auto gemm = llvm::cast<GemmOp>(op);
    auto type = gemm.getResult().getType();
    FailureOr<int64_t> warps = s.executingWarps(gemm.getResult());
    if (failed(warps))
      return failure();
    int64_t M = type.getShape()[0], N = type.getShape()[1];
    if (*warps % 4 || M != 16 * *warps)
      return gemm.emitOpError("runs on ")
             << *warps << " warps, whose warpgroups take 64 rows each, so its A has "
             << 16 * *warps << " rows, not " << M;
    if (N < 8 || N > 256 || N % 8)
      return gemm.emitOpError("has N = ") << N << "; wgmma takes a multiple of 8 from 8 to 256";
    auto acc = wgmmaAccumulatorLayout(op->getContext(), M, N, *warps);
    if (failed(s.set(gemm.getResult(), acc, op)))
      return failure();
    if (gemm.getAcc())
      s.require(gemm.getAccMutable()[0], acc);
    if (gemm.hasRegisterA()) {
      int64_t K = llvm::cast<RankedTensorType>(gemm.getA().getType()).getShape()[1];
      s.require(gemm.getAMutable(), wgmmaOperandALayout(op->getContext(), M, K, *warps));
    }
    return success();
  }

  LogicalResult distribute(Operation *op, Distributor &d, OpBuilder &b) const override {
    auto gemm = llvm::cast<GemmOp>(op);
    Location loc = op->getLoc();
    const minitile::Target &target = targetOf(op);
    if (!target.has(minitile::Feature::wgmma))
      return gemm.emitOpError("runs on wgmma, which ") << target.arch << " does not have";
    SharedType bt = gemm.getB().getType();
    auto sharedA = llvm::dyn_cast<SharedType>(gemm.getA().getType());
    const bool kMajorB = gemm.getTransposeB();
    if ((sharedA && sharedA.getSwizzle() != 128) || bt.getSwizzle() != 128)
      return gemm.emitOpError("needs operand tiles with a 128-byte swizzle (rows of a "
                              "multiple of 128 bytes, a multiple of 8 rows")
             << (kMajorB ? ")" : "; B stored [K, N] takes N a multiple of 64 bf16)");
    if (!bt.getElementType().isBF16())
      return gemm.emitOpError("multiplies bf16 tiles, not ") << bt.getElementType();
    FragLayoutAttr acc = d.layout(gemm.getResult());
    ArrayRef<int64_t> aShape = sharedA ? sharedA.getShape()
                                       : llvm::cast<RankedTensorType>(gemm.getA().getType())
                                             .getShape();
    int64_t M = aShape[0], K = aShape[1];
    int64_t N = kMajorB ? bt.getShape()[0] : bt.getShape()[1];
    if (K % 16)
      return gemm.emitOpError("needs K a multiple of 16, not ") << K;
    if (acc.getNumRegs() != N / 2)
      return gemm.emitOpError("its layout has ") << acc.getNumRegs() << " registers, wgmma "
                                                 << N / 2;
    // A from registers: each k-step's four 32-bit registers, packed before
    // the fence.
    SmallVector<std::array<Value, 4>> packedA;
    if (!sharedA) {
      FragLayoutAttr want = wgmmaOperandALayout(b.getContext(), M, K, acc.getNumWarps());
      if (d.layout(gemm.getA()) != want)
        return gemm.emitOpError("takes A from registers in wgmma's A-operand layout ")
               << want << ", not " << d.layout(gemm.getA());
      const Registers &aRegs = d.read(b, loc, gemm.getA());
      for (int64_t k = 0; k < K / 16; ++k) {
        std::array<Value, 4> step;
        for (int64_t q = 0; q < 4; ++q)
          step[q] = LLVM::BitcastOp::create(
              b, loc, b.getI32Type(),
              Distributor::pair(b, loc, aRegs[8 * k + 2 * q], aRegs[8 * k + 2 * q + 1]));
        packedA.push_back(step);
      }
    }
    // This warpgroup's 64 rows of a shared A.
    Value rowOffset;
    if (sharedA) {
      auto [lane, warp] = d.laneAndWarp(b, loc, acc.getNumWarps());
      (void)lane;
      Value group = arith::DivUIOp::create(b, loc, warp, Distributor::index(b, loc, 4));
      rowOffset = arith::MulIOp::create(b, loc, group, Distributor::index(b, loc, 64 * 128));
    }
    // Bytes per 64-column panel: A's rows are M, B's N (K-major) or K.
    int64_t panelsA = M * 128, panelsB = bt.getShape()[0] * 128;
    Type f32 = b.getF32Type();
    Registers regs;
    if (gemm.getAcc())
      regs = d.registers(gemm.getAcc());
    else
      regs = Registers(N / 2, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)));
    hopper::WgmmaFenceOp::create(b, loc);
    Type i64 = b.getI64Type();
    for (int64_t k = 0; k < K / 16; ++k) {
      int64_t inPanel = (k % 4) * 32;
      Value descA;
      ValueRange regsA;
      if (sharedA) {
        Value offA = arith::AddIOp::create(
            b, loc, rowOffset, Distributor::index(b, loc, (k / 4) * panelsA + inPanel));
        descA = hopper::WgmmaDescOp::create(b, loc, i64, gemm.getA(), offA, 1024,
                                            /*lbo=*/nullptr);
      } else {
        regsA = ArrayRef<Value>(packedA[k]);
      }
      // B's descriptors are made before the loops its tile is invariant in
      // (the queries' tile of a loop over keys): kept in registers, not
      // remade every iteration -- the first kHoistedDescriptors of them (two
      // uniform registers each, of 63; more spill).
      Value descB;
      {
        OpBuilder::InsertionGuard guard(b);
        if (k < kHoistedDescriptors)
          b.restoreInsertionPoint(Distributor::invariantPoint(b, gemm.getB()));
        if (kMajorB)
          descB = hopper::WgmmaDescOp::create(
              b, loc, i64, gemm.getB(),
              Distributor::index(b, loc, (k / 4) * panelsB + inPanel), 1024, /*lbo=*/nullptr);
        else
          descB = hopper::WgmmaDescOp::create(
              b, loc, i64, gemm.getB(), Distributor::index(b, loc, k * 16 * 128), 1024,
              b.getI64IntegerAttr(panelsB));
      }
      auto mma = hopper::WgmmaOp::create(b, loc, SmallVector<Type>(N / 2, f32), descA, regsA,
                                         descB, regs, N,
                                         /*zero_acc=*/k == 0 && !gemm.getAcc(),
                                         /*transpose_b=*/!kMajorB);
      regs = Registers(mma.getResults().begin(), mma.getResults().end());
    }
    auto commit = hopper::WgmmaCommitOp::create(b, loc);
    int started = d.newGroup();
    d.markInFlight(regs, started);
    d.noteCommit(commit, started);
    if (std::optional<int64_t> pending = gemm.getMaxPending())
      hopper::WgmmaWaitOp::create(b, loc, *pending);
    d.define(gemm.getResult(), regs);
    return success();
  }
};

} // namespace

const FragmentFamily &gemmFamily() {
  static GemmFamily family;
  return family;
}

} // namespace minitile::tile
