//===- ConvertHopperOps.cpp - machine-level ops to NVVM ------------------===//
//
// One pattern per op of the hopper dialect (HopperOps.td), and per op of the
// tile dialect's planned shared memory (loads, stores, atomics), barrier and
// warp-wide ops (shuffles, votes). Shared tiles and mbarriers are
// `!llvm.ptr<3>` into the kernel's dynamic shared memory, whose base is
// aligned up to 1024 bytes; tensor maps are kernel parameters passed by value
// (grid constants), used through their generic address.
//
//===----------------------------------------------------------------------===//
#include "lowering/ConvertHopperOps.h"

#include "llvm/ADT/SetVector.h"
#include "mlir/IR/Matchers.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
namespace tile = minitile::tile;
namespace hopper = minitile::hopper;

namespace minitile {

namespace {

constexpr unsigned kShared = 3;

Type sharedPtr(MLIRContext *ctx) { return LLVM::LLVMPointerType::get(ctx, kShared); }

Value i32(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v);
}
Value i64(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), v);
}

/// `p` + `bytes` (an i64 value).
Value offsetPtr(OpBuilder &b, Location loc, Value p, Value bytes) {
  return LLVM::GEPOp::create(b, loc, p.getType(), b.getI8Type(), p, ValueRange{bytes});
}

struct SharedViewLowering : ConvertOpToLLVMPattern<tile::SharedViewOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::SharedViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto global = module.lookupSymbol<LLVM::GlobalOp>(kDynamicSharedName);
    Value base = LLVM::AddressOfOp::create(rewriter, loc, global);
    // Round the base up to 1024 bytes (swizzled tiles need it).
    Value raw = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), base);
    Value pad = LLVM::SubOp::create(
        rewriter, loc,
        LLVM::AndOp::create(rewriter, loc,
                            LLVM::AddOp::create(rewriter, loc, raw, i64(rewriter, loc, 1023)),
                            i64(rewriter, loc, ~int64_t(1023))),
        raw);
    Value aligned = offsetPtr(rewriter, loc, base, pad);
    rewriter.replaceOp(op, offsetPtr(rewriter, loc, aligned, adaptor.getOffset()));
    return success();
  }
};

struct MBarrierOfLowering : ConvertOpToLLVMPattern<hopper::MBarrierOfOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::MBarrierOfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bytes = LLVM::MulOp::create(rewriter, loc, adaptor.getIndex(), i64(rewriter, loc, 8));
    rewriter.replaceOp(op, offsetPtr(rewriter, loc, adaptor.getTile(), bytes));
    return success();
  }
};

/// Address of element (row, col) of a shared tile, swizzle included.
Value sharedAddress(OpBuilder &b, Location loc, tile::SharedType type, Value tile,
                    Value row, Value col) {
  int64_t e = tile::elementBytes(type.getElementType());
  int64_t rows = type.getNumElements() / type.getShape().back();
  auto mul = [&](Value x, int64_t c) { return LLVM::MulOp::create(b, loc, x, i64(b, loc, c)); };
  auto add = [&](Value x, Value y) { return LLVM::AddOp::create(b, loc, x, y); };
  Value bytes;
  if (!type.getSwizzle()) {
    bytes = mul(add(mul(row, type.getShape().back()), col), e);
  } else {
    int64_t s = type.getSwizzle(), width = s / e;
    Value panel = LLVM::UDivOp::create(b, loc, col, i64(b, loc, width));
    Value inPanel = mul(LLVM::URemOp::create(b, loc, col, i64(b, loc, width)), e);
    Value chunk = LLVM::XOrOp::create(
        b, loc, LLVM::UDivOp::create(b, loc, inPanel, i64(b, loc, 16)),
        LLVM::URemOp::create(b, loc, row, i64(b, loc, s / 16)));
    bytes = add(add(mul(panel, rows * s), mul(row, s)),
                add(mul(chunk, 16), LLVM::URemOp::create(b, loc, inPanel, i64(b, loc, 16))));
  }
  return offsetPtr(b, loc, tile, bytes);
}

struct SharedLoadLowering : ConvertOpToLLVMPattern<tile::SharedLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::SharedLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value p = sharedAddress(rewriter, op.getLoc(), op.getTile().getType(), adaptor.getTile(),
                            adaptor.getRow(), adaptor.getCol());
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, type, p);
    return success();
  }
};

struct SharedStoreLowering : ConvertOpToLLVMPattern<tile::SharedStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::SharedStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value p = sharedAddress(rewriter, op.getLoc(), op.getTile().getType(), adaptor.getTile(),
                            adaptor.getRow(), adaptor.getCol());
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, adaptor.getValue(), p);
    return success();
  }
};

struct StMatrixLowering : ConvertOpToLLVMPattern<hopper::StMatrixOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::StMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value p = sharedAddress(rewriter, op.getLoc(), op.getTile().getType(), adaptor.getTile(),
                            adaptor.getRow(), adaptor.getCol());
    MLIRContext *ctx = rewriter.getContext();
    rewriter.replaceOpWithNewOp<NVVM::StMatrixOp>(
        op, p, adaptor.getValues(),
        NVVM::MMALayoutAttr::get(ctx, op.getTrans() ? NVVM::MMALayout::col
                                                    : NVVM::MMALayout::row),
        NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
        NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16));
    return success();
  }
};

struct SharedAtomicLowering : ConvertOpToLLVMPattern<tile::SharedAtomicOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::SharedAtomicOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value p = sharedAddress(rewriter, op.getLoc(), op.getTile().getType(), adaptor.getTile(),
                            adaptor.getRow(), adaptor.getCol());
    rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(
        op, atomicBinOp(op.getKind(), op.getValue().getType()), p, adaptor.getValue(),
        LLVM::AtomicOrdering::monotonic);
    return success();
  }
};

struct MBarrierInitLowering : ConvertOpToLLVMPattern<hopper::MBarrierInitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierInitOp>(
        op, adaptor.getBarrier(), i32(rewriter, op.getLoc(), op.getCount()), Value());
    return success();
  }
};

struct MBarrierArriveLowering : ConvertOpToLLVMPattern<hopper::MBarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::MBarrierArriveOp::create(rewriter, op.getLoc(), rewriter.getI64Type(),
                                   adaptor.getBarrier(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct CpAsyncArriveLowering : ConvertOpToLLVMPattern<hopper::CpAsyncArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::CpAsyncArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncMBarrierArriveOp>(op, adaptor.getBarrier(),
                                                               /*noinc=*/true);
    return success();
  }
};

struct MBarrierExpectTxLowering : ConvertOpToLLVMPattern<hopper::MBarrierExpectTxOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::MBarrierExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::MBarrierArriveExpectTxOp::create(rewriter, op.getLoc(), Type(), adaptor.getBarrier(),
                                           i32(rewriter, op.getLoc(), op.getBytes()),
                                           NVVM::MemScopeKind::CTA, false, Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitLowering : ConvertOpToLLVMPattern<hopper::MBarrierWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value parity = LLVM::TruncOp::create(rewriter, loc, rewriter.getI32Type(), adaptor.getParity());
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitParityOp>(
        op, adaptor.getBarrier(), parity, i32(rewriter, loc, 10000000));
    return success();
  }
};

template <typename From, typename To>
struct ReplaceWith : ConvertOpToLLVMPattern<From> {
  using ConvertOpToLLVMPattern<From>::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(From op, typename From::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<To>(op);
    return success();
  }
};

struct FenceProxyAsyncLowering : ConvertOpToLLVMPattern<hopper::FenceProxyAsyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::FenceProxyAsyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(op.getContext(), NVVM::SharedSpace::shared_cta));
    return success();
  }
};

struct NamedBarrierLowering : ConvertOpToLLVMPattern<hopper::NamedBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::NamedBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::BarrierOp::create(rewriter, loc, Type(), i32(rewriter, loc, op.getId()),
                            i32(rewriter, loc, op.getThreads()), nullptr, Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarSyncLowering : ConvertOpToLLVMPattern<hopper::BarSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::BarSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::BarrierOp::create(rewriter, loc, Type(), adaptor.getId(),
                            i32(rewriter, loc, op.getThreads()), nullptr, Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarArriveLowering : ConvertOpToLLVMPattern<hopper::BarArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::BarArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // (NVVM's barrier.arrive prints its operands as immediates; the
    // barrier's number here is a register.)
    Location loc = op.getLoc();
    LLVM::InlineAsmOp::create(rewriter, loc, TypeRange(),
                              ValueRange{adaptor.getId(), i32(rewriter, loc, op.getThreads())},
                              "bar.arrive $0, $1;", "r,n", /*has_side_effects=*/true,
                              /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
                              LLVM::AsmDialectAttr(), ArrayAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct WarpSyncLowering : ConvertOpToLLVMPattern<hopper::WarpSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::WarpSyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value all = i32(rewriter, op.getLoc(), -1);
    rewriter.replaceOpWithNewOp<NVVM::SyncWarpOp>(op, all);
    return success();
  }
};

struct ElectOneLowering : ConvertOpToLLVMPattern<hopper::ElectOneOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::ElectOneOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ElectSyncOp>(op, rewriter.getI1Type(), Value());
    return success();
  }
};

/// %laneid by side-effecting PTX: LLVM neither hoists nor merges it.
struct LaneIdLowering : ConvertOpToLLVMPattern<hopper::LaneIdOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::LaneIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto lane = LLVM::InlineAsmOp::create(
        rewriter, loc, rewriter.getI32Type(), ValueRange(), "mov.u32 $0, %laneid;", "=r",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    Type index = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, index, lane.getResult(0));
    return success();
  }
};

struct SetMaxNRegLowering : ConvertOpToLLVMPattern<hopper::SetMaxNRegOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::SetMaxNRegOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::SetMaxRegisterOp>(
        op, op.getCount(),
        op.getIncrease() ? NVVM::SetMaxRegisterAction::increase
                         : NVVM::SetMaxRegisterAction::decrease);
    return success();
  }
};

struct ShuffleXorLowering : ConvertOpToLLVMPattern<tile::ShuffleXorOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::ShuffleXorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::ShflOp>(
        op, adaptor.getValue().getType(), i32(rewriter, loc, -1), adaptor.getValue(),
        i32(rewriter, loc, op.getMask()), i32(rewriter, loc, 0x1f), NVVM::ShflKind::bfly,
        UnitAttr());
    return success();
  }
};

struct ShuffleIdxLowering : ConvertOpToLLVMPattern<tile::ShuffleIdxOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::ShuffleIdxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::ShflOp>(
        op, adaptor.getValue().getType(), i32(rewriter, loc, -1), adaptor.getValue(),
        adaptor.getLane(), i32(rewriter, loc, 0x1f), NVVM::ShflKind::idx, UnitAttr());
    return success();
  }
};

/// shfl.sync up / down: the clamp field is lane 0 for up, lane 31 for down.
template <typename Op, NVVM::ShflKind kind, int64_t clamp>
struct ShuffleByLowering : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::ShflOp>(
        op, adaptor.getValue().getType(), i32(rewriter, loc, -1), adaptor.getValue(),
        adaptor.getDelta(), i32(rewriter, loc, clamp), kind, UnitAttr());
    return success();
  }
};

struct VoteLowering : ConvertOpToLLVMPattern<tile::VoteOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::VoteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::VoteSyncKind kind = NVVM::VoteSyncKind::ballot;
    switch (op.getKind()) {
    case tile::VoteKind::ballot: break;
    case tile::VoteKind::any: kind = NVVM::VoteSyncKind::any; break;
    case tile::VoteKind::all: kind = NVVM::VoteSyncKind::all; break;
    }
    rewriter.replaceOpWithNewOp<NVVM::VoteSyncOp>(
        op, op.getType(), i32(rewriter, op.getLoc(), -1), adaptor.getPredicate(), kind);
    return success();
  }
};

struct TmaLoadLowering : ConvertOpToLLVMPattern<hopper::TmaLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dst = offsetPtr(rewriter, loc, adaptor.getDest(), i64(rewriter, loc, op.getOffset()));
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
        op, dst, adaptor.getDesc(), adaptor.getCoords(), adaptor.getBarrier(), ValueRange(),
        Value(), Value(), NVVM::TMALoadModeAttr::get(op.getContext(), NVVM::TMALoadMode::TILE),
        rewriter.getBoolAttr(true), nullptr, Value());
    return success();
  }
};

struct BulkWaitReadLowering : ConvertOpToLLVMPattern<hopper::BulkWaitReadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::BulkWaitReadOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, rewriter.getI32IntegerAttr(0), rewriter.getUnitAttr());
    return success();
  }
};

struct WgmmaDescLowering : ConvertOpToLLVMPattern<hopper::WgmmaDescOp> {
  WgmmaDescLowering(const LLVMTypeConverter &converter, bool atUse)
      : ConvertOpToLLVMPattern(converter), atUse(atUse) {}

  LogicalResult
  matchAndRewrite(hopper::WgmmaDescOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t swizzle = op.getTile().getType().getSwizzle();
    int64_t layout = swizzle == 128 ? 1 : swizzle == 64 ? 2 : swizzle == 32 ? 3 : 0;
    // bits 0-13: address >> 4; 16-29: leading offset >> 4 (for a K-major
    // swizzled operand unused, 1; for an MN-major one the distance between
    // its 64-element groups of N); 32-45: stride offset >> 4; 62-63: the
    // swizzle. Shared addresses fit in 18 bits and wgmma operands are
    // 16-byte aligned, so the low word is ((tile >> 4) | lbo >> 4 << 16) +
    // (offset >> 4) with no carry out of the address field: the tile's part
    // is shared by every descriptor of the tile, and a constant offset is
    // one add.
    Type i32t = rewriter.getI32Type();
    Value tile = LLVM::PtrToIntOp::create(rewriter, loc, i32t, adaptor.getTile());
    Value offset =
        atUse ? Value() : LLVM::TruncOp::create(rewriter, loc, i32t, adaptor.getOffset());
    Value base = LLVM::OrOp::create(
        rewriter, loc, LLVM::LShrOp::create(rewriter, loc, tile, i32(rewriter, loc, 4)),
        i32(rewriter, loc, (op.getLbo() ? *op.getLbo() >> 4 : 1) << 16));
    // The high word (stride offset, swizzle) is fixed.
    int64_t high = (op.getSbo() >> 4) | (layout << 30);
    if (atUse) {
      // The offset's constant part becomes an immediate of an add in the
      // same PTX as the packing, which LLVM keeps where it is (side
      // effects): the tile's base (and a variable part of the offset) is
      // what stays live, and ptxas adds the immediate where the wgmma reads
      // the descriptor, in uniform registers.
      auto [variable, constantPart] = splitOffset(adaptor.getOffset());
      Value low = base;
      if (variable)
        low = LLVM::AddOp::create(
            rewriter, loc, base,
            LLVM::LShrOp::create(rewriter, loc,
                                 LLVM::TruncOp::create(rewriter, loc, i32t, variable),
                                 i32(rewriter, loc, 4)));
      std::string text = "{ .reg .b32 lo; add.s32 lo, $1, " +
                         std::to_string(constantPart >> 4) + "; mov.b64 $0, {lo, " +
                         std::to_string(high) + "}; }";
      auto pack = LLVM::InlineAsmOp::create(
          rewriter, loc, rewriter.getI64Type(), ValueRange{low}, text, "=l,r",
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
      rewriter.replaceOp(op, pack.getResult(0));
      return success();
    }
    Value low = LLVM::AddOp::create(
        rewriter, loc, base, LLVM::LShrOp::create(rewriter, loc, offset, i32(rewriter, loc, 4)));
    // Packed by `mov.b64 {lo, hi}`, not `or` with a 64-bit constant: ptxas
    // then keeps the high words in the uniform registers wgmma reads across
    // a run of wgmmas and writes only the low words (4 UMOV per wgmma become
    // 1-2). LLVM folds a bitcast of <2 x i32> back into the `or`, hence the
    // asm (pure: CSE and LICM still apply).
    auto pack = LLVM::InlineAsmOp::create(
        rewriter, loc, rewriter.getI64Type(), ValueRange{low, i32(rewriter, loc, high)},
        "mov.b64 $0, {$1, $2};", "=l,r,r", /*has_side_effects=*/false,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr(), ArrayAttr());
    rewriter.replaceOp(op, pack.getResult(0));
    return success();
  }

private:
  /// `offset` (an i64, converted) as variable + constant: a constant, a sum
  /// with a constant, or all variable (null variable: none). Both parts are
  /// multiples of 16 where the whole is (the fragment layer's offsets are
  /// a warpgroup's rows plus a panel and a k step, each a multiple of 16).
  static std::pair<Value, int64_t> splitOffset(Value offset) {
    // A constant that fits the immediate: 16-byte aligned, in shared memory.
    auto immediate = [](Value v) -> std::optional<int64_t> {
      if (auto c = v.getDefiningOp<LLVM::ConstantOp>())
        if (auto attr = llvm::dyn_cast<IntegerAttr>(c.getValue()))
          if (int64_t n = attr.getInt(); n % 16 == 0 && n >= 0 && n < (1 << 18))
            return n;
      return std::nullopt;
    };
    if (std::optional<int64_t> c = immediate(offset))
      return {Value(), *c};
    if (auto add = offset.getDefiningOp<LLVM::AddOp>())
      for (int i = 0; i < 2; ++i)
        if (std::optional<int64_t> c = immediate(add->getOperand(i)))
          return {add->getOperand(1 - i), *c};
    return {offset, 0};
  }

  bool atUse;
};

struct WgmmaWaitLowering : ConvertOpToLLVMPattern<hopper::WgmmaWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::WgmmaWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::WgmmaWaitGroupSyncOp>(op, op.getPending());
    return success();
  }
};

struct WgmmaLowering : ConvertOpToLLVMPattern<hopper::WgmmaOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::WgmmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Type f32 = rewriter.getF32Type();
    auto type = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(adaptor.getAcc().size(), f32));
    if (!adaptor.getA().empty())
      return registerA(op, adaptor, rewriter, type);
    Value acc = LLVM::PoisonOp::create(rewriter, loc, type);
    for (auto [i, v] : llvm::enumerate(adaptor.getAcc()))
      acc = LLVM::InsertValueOp::create(rewriter, loc, acc, v, ArrayRef<int64_t>{int64_t(i)});
    auto bf16 = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::bf16);
    auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
    auto mma = NVVM::WgmmaMmaAsyncOp::create(
        rewriter, loc, type, acc, adaptor.getDescA(), adaptor.getDescB(),
        NVVM::MMAShapeAttr::get(ctx, 64, op.getN(), 16), bf16, bf16,
        NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, op.getZeroAcc() ? NVVM::WGMMAScaleOut::zero
                                                          : NVVM::WGMMAScaleOut::one),
        one, one,
        // A K-major ("row", no transpose); B K-major ("col") or, with
        // transpose_b, MN-major ("row": imm-trans-b 1).
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, op.getTransposeB() ? NVVM::MMALayout::row
                                                         : NVVM::MMALayout::col),
        nullptr);
    SmallVector<Value> results;
    for (int64_t i = 0, e = adaptor.getAcc().size(); i < e; ++i)
      results.push_back(LLVM::ExtractValueOp::create(rewriter, loc, mma, ArrayRef<int64_t>{i}));
    rewriter.replaceOp(op, results);
    return success();
  }

private:
  /// A from registers, which nvvm.wgmma.mma_async does not take: the
  /// instruction as inline PTX, in the form the NVVM op's own lowering
  /// writes (accumulators tied in and out, scale-d through a predicate):
  ///   wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16
  ///       {d...}, {a0, a1, a2, a3}, b-desc, p, 1, 1, imm-trans-b;
  static LogicalResult registerA(hopper::WgmmaOp op, OpAdaptor adaptor,
                                 ConversionPatternRewriter &rewriter, Type type) {
    Location loc = op.getLoc();
    int64_t n = adaptor.getAcc().size();
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(2 * n + 5) +
                       ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(op.getN()) +
                       "k16.f32.bf16.bf16 {";
    std::string constraints;
    for (int64_t i = 0; i < n; ++i) {
      text += (i ? ", $" : "$") + std::to_string(i);
      constraints += (i ? ",=f" : "=f");
    }
    for (int64_t i = 0; i < n; ++i)
      constraints += "," + std::to_string(i);
    text += "}, {";
    for (int64_t i = 0; i < 4; ++i)
      text += (i ? ", $" : "$") + std::to_string(2 * n + i);
    text += "}, $" + std::to_string(2 * n + 4) + ", p, 1, 1, " +
            (op.getTransposeB() ? "1" : "0") + ";\n}\n";
    constraints += ",r,r,r,r,l,n";
    SmallVector<Value> operands(adaptor.getAcc().begin(), adaptor.getAcc().end());
    operands.append(adaptor.getA().begin(), adaptor.getA().end());
    operands.push_back(adaptor.getDescB());
    operands.push_back(i32(rewriter, loc, op.getZeroAcc() ? 0 : 1));
    auto mma = LLVM::InlineAsmOp::create(
        rewriter, loc, type, operands, text, constraints, /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(rewriter.getContext(), LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
    SmallVector<Value> results;
    for (int64_t i = 0; i < n; ++i)
      results.push_back(
          LLVM::ExtractValueOp::create(rewriter, loc, mma.getResult(0), ArrayRef<int64_t>{i}));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

/// The LLVM read-modify-write of an atomic kind on `type`.
LLVM::AtomicBinOp atomicBinOp(tile::AtomicKind kind, Type type) {
  bool isFloat = llvm::isa<FloatType>(type);
  switch (kind) {
  case tile::AtomicKind::add: return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case tile::AtomicKind::max: return LLVM::AtomicBinOp::max;
  case tile::AtomicKind::min: return LLVM::AtomicBinOp::min;
  case tile::AtomicKind::and_: return LLVM::AtomicBinOp::_and;
  case tile::AtomicKind::or_: return LLVM::AtomicBinOp::_or;
  case tile::AtomicKind::xor_: return LLVM::AtomicBinOp::_xor;
  case tile::AtomicKind::exchange: return LLVM::AtomicBinOp::xchg;
  }
  llvm_unreachable("an atomic kind");
}

void populateHopperConversions(LLVMTypeConverter &converter, RewritePatternSet &patterns,
                               bool descriptorsAtUse) {
  MLIRContext *ctx = &converter.getContext();
  converter.addConversion([ctx](tile::SharedType) { return sharedPtr(ctx); });
  converter.addConversion([ctx](hopper::MBarrierType) { return sharedPtr(ctx); });
  converter.addConversion([ctx](hopper::TmaDescType) { return LLVM::LLVMPointerType::get(ctx); });
  patterns.add<SharedViewLowering, MBarrierOfLowering, SharedLoadLowering, SharedStoreLowering,
               MBarrierInitLowering, MBarrierArriveLowering, CpAsyncArriveLowering, MBarrierExpectTxLowering,
               MBarrierWaitLowering, ReplaceWith<hopper::FenceMBarrierInitOp, NVVM::FenceMbarrierInitOp>,
               FenceProxyAsyncLowering, ReplaceWith<tile::BarrierOp, NVVM::BarrierOp>,
               NamedBarrierLowering, BarSyncLowering, BarArriveLowering, WarpSyncLowering, ElectOneLowering, LaneIdLowering, SetMaxNRegLowering, SharedAtomicLowering,
               StMatrixLowering,
               ShuffleXorLowering, ShuffleIdxLowering,
               ShuffleByLowering<tile::ShuffleUpOp, NVVM::ShflKind::up, 0>,
               ShuffleByLowering<tile::ShuffleDownOp, NVVM::ShflKind::down, 0x1f>, VoteLowering,
               TmaLoadLowering, BulkWaitReadLowering,
               ReplaceWith<hopper::BulkCommitOp, NVVM::CpAsyncBulkCommitGroupOp>,
               ReplaceWith<hopper::WgmmaFenceOp, NVVM::WgmmaFenceAlignedOp>,
               ReplaceWith<hopper::WgmmaCommitOp, NVVM::WgmmaGroupSyncAlignedOp>,
               WgmmaWaitLowering, WgmmaLowering>(converter);
  patterns.add<WgmmaDescLowering>(converter, descriptorsAtUse);
}

void sinkWgmmaDescriptors(ModuleOp module) {
  llvm::SetVector<Operation *> made;
  module.walk([&](hopper::WgmmaOp wgmma) {
    for (OpOperand &use : wgmma->getOpOperands()) {
      auto desc = use.get().getDefiningOp<hopper::WgmmaDescOp>();
      if (!desc)
        continue;
      OpBuilder b(wgmma);
      use.set(b.clone(*desc)->getResult(0));
      made.insert(desc);
    }
  });
  for (Operation *desc : made)
    if (desc->use_empty())
      desc->erase();
}

void pinLoopAccumulators(ModuleOp module) {
  module.walk([](tile::ForOp loop) {
    // Any f32 the loop carries: an accumulator may reach its wgmma through
    // other ops (attention's rescaled O), and a few moves cost nothing.
    bool wgmmas = loop.getBody().walk([](hopper::WgmmaOp) {
                                  return WalkResult::interrupt();
                                }).wasInterrupted();
    if (!wgmmas)
      return;
    for (auto [init, arg] : llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs())) {
      if (!init.getType().isF32() || !matchPattern(init, m_Constant()))
        continue;
      OpBuilder b(loop);
      // With side effects: neither merged with its twins (one register
      // for all would need the copies again) nor moved.
      auto pinned = LLVM::InlineAsmOp::create(
          b, loop.getLoc(), init.getType(), ValueRange{init}, "mov.f32 $0, $1;", "=f,f",
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
      loop.getInitArgsMutable()[arg.getArgNumber() - 1].set(pinned.getResult(0));
    }
  });
}

void declareDynamicShared(ModuleOp module) {
  if (module.lookupSymbol(kDynamicSharedName))
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), 0);
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/false,
                         LLVM::Linkage::External, kDynamicSharedName, Attribute(),
                         /*alignment=*/1024, kShared);
}

} // namespace minitile
