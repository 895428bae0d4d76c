//===- ConvertTileToLLVM.cpp - tile kernels to the LLVM + NVVM dialects ---===//
//
// Expects: tile.kernel bodies with tile memory/geometry/loop ops, arith and
//          math ops on scalars (lowering/ConvertMath.h says how the float
//          functions lower, fast or precise), and no op that an earlier pass lowers
//          (tile-distribute-parallel ... tile-plan-shared): each is reported
//          at the op, naming that pass. Arith ops of any kind: ceil/floor
//          divisions are expanded here.
// Leaves:  llvm.func kernels marked nvvm.kernel with nvvm.maxntid, using only
//          the LLVM and NVVM dialects (plus unrealized casts that
//          reconcile-unrealized-casts removes), tensor maps as grid constants
//          that the first thread prefetches as the kernel starts. tile.host
//          launchers are erased. With wgmma-descriptors-at-use, every wgmma
//          reads descriptors made right before it (sinkWgmmaDescriptors), as
//          PTX LLVM cannot hoist: the driver's retry where hoisted ones spill.
//
// A !tile.tensor becomes !llvm.struct<(ptr<1>, i64 x rank-1)>: the origin
// pointer and the outer strides in elements.
//
//===----------------------------------------------------------------------===//
#include "lowering/ConvertHopperOps.h"
#include "lowering/ConvertMath.h"
#include "lowering/LoweringPasses.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/TypeSwitch.h"

namespace minitile {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "lowering/LoweringPasses.h.inc"
} // namespace minitile

using namespace mlir;
namespace tile = minitile::tile;
namespace hopper = minitile::hopper;

namespace {

constexpr unsigned kGlobal = 1; // NVPTX address space of global memory

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

struct KernelOpLowering : ConvertOpToLLVMPattern<tile::KernelOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::KernelOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    const TypeConverter &converter = *getTypeConverter();
    TypeConverter::SignatureConversion signature(op.getNumArguments());
    SmallVector<Type> params;
    for (auto [i, type] : llvm::enumerate(op.getArgumentTypes())) {
      Type converted = converter.convertType(type);
      assert(converted && "checkLowerable refuses kernels with such arguments");
      signature.addInputs(i, converted);
      params.push_back(converted);
    }
    auto type = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(op.getContext()), params);
    auto fn = LLVM::LLVMFuncOp::create(rewriter, op.getLoc(), op.getSymName(), type);
    fn->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), rewriter.getUnitAttr());
    fn->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(), op.getBlockAttr());
    // Blocks that must fit on a multiprocessor at once: ptxas caps the
    // registers for them. setmaxnreg only takes effect with such a cap: one
    // block per multiprocessor at least.
    std::optional<int32_t> minBlocks = op.getMinBlocksPerSm();
    if (!minBlocks &&
        op->walk([](hopper::SetMaxNRegOp) { return WalkResult::interrupt(); }).wasInterrupted())
      minBlocks = 1;
    if (minBlocks)
      fn->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), rewriter.getI32IntegerAttr(*minBlocks));
    // Tensor maps are passed by value, as grid constants.
    for (auto [i, type] : llvm::enumerate(op.getArgumentTypes()))
      if (llvm::isa<hopper::TmaDescType>(type)) {
        fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(LLVM::LLVMArrayType::get(rewriter.getI8Type(), 128)));
        fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), rewriter.getI64IntegerAttr(64));
        fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), rewriter.getUnitAttr());
      }
    // The tensor maps the kernel copies through (before its body moves).
    SmallVector<unsigned> maps;
    for (auto [i, type] : llvm::enumerate(op.getArgumentTypes()))
      if (llvm::isa<hopper::TmaDescType>(type) && !op.getBody().getArgument(i).use_empty())
        maps.push_back(i);
    rewriter.inlineRegionBefore(op.getBody(), fn.getBody(), fn.end());
    Block *entry = rewriter.applySignatureConversion(&fn.getBody().front(), signature,
                                                     &converter);
    if (failed(rewriter.convertRegionTypes(&fn.getBody(), converter)))
      return failure();
    prefetchTensorMaps(op.getLoc(), entry, maps, rewriter);
    rewriter.eraseOp(op);
    return success();
  }

  /// Each tensor map the kernel copies through, fetched as the kernel starts
  /// (by its first thread; prefetch.tensormap): the first copy through it
  /// then waits for its data only, not for the descriptor before it.
  static void prefetchTensorMaps(Location loc, Block *entry, ArrayRef<unsigned> maps,
                                 ConversionPatternRewriter &rewriter) {
    if (maps.empty())
      return;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(entry);
    Type i32 = rewriter.getI32Type();
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, i32);
    Value zero = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
    Value first = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, tid, zero);
    for (unsigned i : maps)
      NVVM::PrefetchOp::create(rewriter, loc, /*cacheLevel=*/nullptr,
                               /*evictPriority=*/nullptr, entry->getArgument(i), first,
                               /*tensormap=*/true);
  }
};

struct ReturnOpLowering : ConvertOpToLLVMPattern<tile::ReturnOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::ReturnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Launch geometry: NVVM special registers, widened to index (i64)
//===----------------------------------------------------------------------===//

template <typename Op, typename X, typename Y, typename Z>
struct GeometryOpLowering : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    auto [lo, hi] = range(op);
    auto bounds = LLVM::ConstantRangeAttr::get(op.getContext(), 32, lo, hi);
    Value v;
    switch (op.getDim()) {
    case tile::Dim::x: v = X::create(rewriter, loc, i32, bounds); break;
    case tile::Dim::y: v = Y::create(rewriter, loc, i32, bounds); break;
    case tile::Dim::z: v = Z::create(rewriter, loc, i32, bounds); break;
    }
    rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, rewriter.getI64Type(), v);
    return success();
  }

  /// The half-open range of values the register can hold.
  static std::pair<int64_t, int64_t> range(Op op) {
    constexpr int64_t maxGrid = int64_t(1) << 31;
    if constexpr (std::is_same_v<Op, tile::ThreadIdOp>) {
      // The kernel may already be an llvm.func carrying nvvm.maxntid.
      int dim = static_cast<int>(op.getDim());
      if (auto kernel = op->template getParentOfType<tile::KernelOp>())
        return {0, kernel.getBlock()[dim]};
      if (auto fn = op->template getParentOfType<LLVM::LLVMFuncOp>())
        if (auto block = fn->template getAttrOfType<DenseI32ArrayAttr>(
                NVVM::NVVMDialect::getMaxntidAttrName()))
          return {0, block[dim]};
      return {0, 1024};
    } else if constexpr (std::is_same_v<Op, tile::BlockIdOp>) {
      return {0, maxGrid - 1};
    } else {
      return {1, maxGrid};
    }
  }
};

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

struct ViewOpLowering : ConvertOpToLLVMPattern<tile::ViewOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structType = getTypeConverter()->convertType(op.getType());
    Type element = op.getType().getElementType();
    Value origin = adaptor.getBase();
    if (Value offset = adaptor.getOffset())
      origin = LLVM::GEPOp::create(rewriter, loc, origin.getType(), element,
                                   origin, offset);
    Value view = LLVM::PoisonOp::create(rewriter, loc, structType);
    view = LLVM::InsertValueOp::create(rewriter, loc, view, origin,
                                       ArrayRef<int64_t>{0});
    for (auto [i, stride] : llvm::enumerate(adaptor.getStrides()))
      view = LLVM::InsertValueOp::create(rewriter, loc, view, stride,
                                         ArrayRef<int64_t>{int64_t(i) + 1});
    rewriter.replaceOp(op, view);
    return success();
  }
};

struct SliceOpLowering : ConvertOpToLLVMPattern<tile::SliceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t dim = op.getDim();
    Value view = adaptor.getSource();
    auto field = [&](int64_t i) {
      return LLVM::ExtractValueOp::create(rewriter, loc, view, ArrayRef<int64_t>{i});
    };
    Value stride = field(dim + 1);
    Value origin = LLVM::GEPOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(op.getContext(), kGlobal),
        op.getSource().getType().getElementType(), field(0),
        ValueRange{LLVM::MulOp::create(rewriter, loc, adaptor.getIndex(), stride)});
    Type structType = getTypeConverter()->convertType(op.getType());
    Value result = LLVM::PoisonOp::create(rewriter, loc, structType);
    result = LLVM::InsertValueOp::create(rewriter, loc, result, origin, ArrayRef<int64_t>{0});
    int64_t out = 1;
    for (int64_t d = 0; d + 1 < int64_t(op.getSource().getType().getRank()); ++d)
      if (d != dim)
        result = LLVM::InsertValueOp::create(rewriter, loc, result, field(d + 1),
                                             ArrayRef<int64_t>{out++});
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The element offset of `view[indices]`: sum(i_d * stride_d) + i_last.
Value elementOffset(ConversionPatternRewriter &rewriter, Location loc, Value view,
                    ValueRange indices) {
  Value linear = indices.back();
  for (unsigned d = 0; d + 1 < indices.size(); ++d) {
    Value stride = LLVM::ExtractValueOp::create(rewriter, loc, view,
                                                ArrayRef<int64_t>{int64_t(d) + 1});
    Value term = LLVM::MulOp::create(rewriter, loc, indices[d], stride);
    linear = LLVM::AddOp::create(rewriter, loc, linear, term);
  }
  return linear;
}

/// Address of `view[indices]`: origin + the element offset.
Value elementAddress(ConversionPatternRewriter &rewriter, Location loc,
                     tile::GlobalTensorType type, Value view, ValueRange indices) {
  Value origin =
      LLVM::ExtractValueOp::create(rewriter, loc, view, ArrayRef<int64_t>{0});
  return LLVM::GEPOp::create(rewriter, loc, origin.getType(), type.getElementType(), origin,
                             elementOffset(rewriter, loc, view, indices));
}

unsigned accessAlignment(Type access) {
  if (auto vec = llvm::dyn_cast<VectorType>(access))
    return vec.getNumElements() * tile::elementBytes(vec.getElementType());
  return tile::elementBytes(access);
}

struct LoadOpLowering : ConvertOpToLLVMPattern<tile::LoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value address = elementAddress(rewriter, op.getLoc(), op.getTensor().getType(),
                                   adaptor.getTensor(), adaptor.getIndices());
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, type, address,
                                              accessAlignment(op.getType()));
    return success();
  }
};

struct StoreOpLowering : ConvertOpToLLVMPattern<tile::StoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value address = elementAddress(rewriter, op.getLoc(), op.getTensor().getType(),
                                   adaptor.getTensor(), adaptor.getIndices());
    if (op.getAdd())
      return addTo(op, address, adaptor.getValue(), rewriter);
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(
        op, adaptor.getValue(), address, accessAlignment(op.getValue().getType()));
    return success();
  }

  /// red.global.add of an f32 or a vector of 2 or 4 (sm_90's vector
  /// reductions: one instruction for what a thread holds side by side).
  static LogicalResult addTo(tile::StoreOp op, Value address, Value value,
                             ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    SmallVector<Value> operands{
        LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), address)};
    std::string list;
    if (auto vec = llvm::dyn_cast<VectorType>(op.getValue().getType())) {
      for (int64_t i = 0; i < vec.getNumElements(); ++i) {
        operands.push_back(LLVM::ExtractElementOp::create(
            rewriter, loc, value,
            LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                     rewriter.getI32IntegerAttr(i))));
        list += (i ? ", $" : "$") + std::to_string(i + 1);
      }
      list = ".v" + std::to_string(vec.getNumElements()) + ".f32 [$0], {" + list + "};";
    } else {
      operands.push_back(value);
      list = ".f32 [$0], $1;";
    }
    std::string constraints = "l";
    for (size_t i = 1; i < operands.size(); ++i)
      constraints += ",f";
    LLVM::InlineAsmOp::create(rewriter, loc, TypeRange(), operands, "red.global.add" + list,
                              constraints + ",~{memory}", /*has_side_effects=*/true,
                              /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
                              LLVM::AsmDialectAttr(), ArrayAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// A bulk copy from shared to global memory: the destination is an element
/// of a tensor, so its address is computed here with the other accesses'.
struct BulkStoreOpLowering : ConvertOpToLLVMPattern<hopper::BulkStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::BulkStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value address = elementAddress(rewriter, op.getLoc(), op.getTensor().getType(),
                                   adaptor.getTensor(), adaptor.getIndices());
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkSharedCTAToGlobalOp>(
        op, address, adaptor.getSource(), adaptor.getBytes(), Value(), Value());
    return success();
  }
};

/// A thread's 16-byte copy into shared memory (cp.async.cg, L2 only), of
/// which the first `bytes` are read and the rest zeroed.
struct CpAsyncOpLowering : ConvertOpToLLVMPattern<hopper::CpAsyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(hopper::CpAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value address = elementAddress(rewriter, loc, op.getTensor().getType(),
                                   adaptor.getTensor(), adaptor.getIndices());
    Value dst = LLVM::GEPOp::create(rewriter, loc, adaptor.getDest().getType(),
                                    rewriter.getI8Type(), adaptor.getDest(),
                                    ValueRange{adaptor.getOffset()});
    NVVM::CpAsyncOp::create(rewriter, loc, dst, address, rewriter.getI32IntegerAttr(16),
                            NVVM::LoadCacheModifierKindAttr::get(
                                op.getContext(), NVVM::LoadCacheModifierKind::CG),
                            adaptor.getBytes());
    rewriter.eraseOp(op);
    return success();
  }
};

struct AtomicOpLowering : ConvertOpToLLVMPattern<tile::AtomicOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::AtomicOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value address = elementAddress(rewriter, op.getLoc(), op.getTensor().getType(),
                                   adaptor.getTensor(), adaptor.getIndices());
    rewriter.replaceOpWithNewOp<LLVM::AtomicRMWOp>(
        op, minitile::atomicBinOp(op.getKind(), op.getValue().getType()), address,
        adaptor.getValue(), LLVM::AtomicOrdering::monotonic);
    return success();
  }
};

struct ElemsToAlignedOpLowering : ConvertOpToLLVMPattern<tile::ElemsToAlignedOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::ElemsToAlignedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto constant = [&](int64_t v) {
      return LLVM::ConstantOp::create(rewriter, loc, i64, v);
    };
    int64_t bytes = op.getBytes();
    int64_t element = tile::elementBytes(op.getTensor().getType().getElementType());
    // ((bytes - (addr & (bytes-1))) & (bytes-1)) / element, the address as
    // integers (the origin plus the offset in bytes), not a getelementptr:
    // LLVM then sees that only the origin's low bits matter where the
    // offset's are known (a row of 128 f32 and an even column: the origin
    // alone, tested once outside the loops, not at every element).
    Value origin = LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getTensor(),
                                                ArrayRef<int64_t>{0});
    Value offset = LLVM::MulOp::create(
        rewriter, loc, elementOffset(rewriter, loc, adaptor.getTensor(), adaptor.getIndices()),
        constant(element));
    Value addr = LLVM::AddOp::create(
        rewriter, loc, LLVM::PtrToIntOp::create(rewriter, loc, i64, origin), offset);
    Value mask = constant(bytes - 1);
    Value misaligned = LLVM::AndOp::create(rewriter, loc, addr, mask);
    Value gap = LLVM::SubOp::create(rewriter, loc, constant(bytes), misaligned);
    gap = LLVM::AndOp::create(rewriter, loc, gap, mask);
    rewriter.replaceOpWithNewOp<LLVM::UDivOp>(op, gap, constant(element));
    return success();
  }
};

struct SplatOpLowering : ConvertOpToLLVMPattern<tile::SplatOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = getTypeConverter()->convertType(op.getType());
    Value zero = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(), 0);
    Value v = LLVM::PoisonOp::create(rewriter, loc, type);
    v = LLVM::InsertElementOp::create(rewriter, loc, v, adaptor.getValue(), zero);
    SmallVector<int32_t> mask(op.getType().getNumElements(), 0);
    rewriter.replaceOpWithNewOp<LLVM::ShuffleVectorOp>(op, v, v, mask);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Per-thread variables: allocas that LLVM promotes to registers
//===----------------------------------------------------------------------===//

struct AllocLocalOpLowering : ConvertOpToLLVMPattern<tile::AllocLocalOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::AllocLocalOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type element = getTypeConverter()->convertType(op.getType().getElementType());
    Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(), 1);
    rewriter.replaceOpWithNewOp<LLVM::AllocaOp>(
        op, LLVM::LLVMPointerType::get(op.getContext()), element, one,
        tile::elementBytes(op.getType().getElementType()));
    return success();
  }
};

struct LocalLoadOpLowering : ConvertOpToLLVMPattern<tile::LocalLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, type, adaptor.getLocal());
    return success();
  }
};

struct LocalStoreOpLowering : ConvertOpToLLVMPattern<tile::LocalStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, adaptor.getValue(),
                                               adaptor.getLocal());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Structured control flow: to scf, which the scf-to-cf patterns take on
//===----------------------------------------------------------------------===//

/// Two f32 rounded to bf16 (f16) at once: one cvt.rn.bf16x2.f32, whose
/// 32-bit result holds both halves (the fragment layer makes the pairs, see
/// passes/fragments/Elementwise.cpp). As asm: LLVM splits a <2 x float>
/// fptrunc whose halves are used apart back into two conversions.
struct PairTruncLowering : ConvertOpToLLVMPattern<arith::TruncFOp> {
  PairTruncLowering(const LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    auto from = dyn_cast<VectorType>(op.getIn().getType());
    auto to = dyn_cast<VectorType>(op.getType());
    if (!from || !to || from.getShape() != ArrayRef<int64_t>{2} ||
        !from.getElementType().isF32() || op.getRoundingmodeAttr() ||
        !(to.getElementType().isBF16() || to.getElementType().isF16()))
      return failure();
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    auto half = [&](int64_t i) {
      return LLVM::ExtractElementOp::create(
          rewriter, loc, adaptor.getIn(),
          LLVM::ConstantOp::create(rewriter, loc, i32, rewriter.getI32IntegerAttr(i)));
    };
    // cvt d, a, b puts a in d's upper half: element 1 (the high bits).
    std::string text = std::string("cvt.rn.") +
                       (to.getElementType().isBF16() ? "bf16x2" : "f16x2") + ".f32 $0, $2, $1;";
    auto both = LLVM::InlineAsmOp::create(
        rewriter, loc, i32, ValueRange{half(0), half(1)}, text, "=r,f,f",
        /*has_side_effects=*/false, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, to, both.getResult(0));
    return success();
  }
};

struct ForOpLowering : ConvertOpToLLVMPattern<tile::ForOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::ForOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto loop = scf::ForOp::create(rewriter, op.getLoc(), adaptor.getLowerBound(),
                                   adaptor.getUpperBound(), adaptor.getStep(),
                                   adaptor.getInitArgs());
    rewriter.eraseBlock(loop.getBody());
    rewriter.inlineRegionBefore(op.getBody(), loop.getRegion(),
                                loop.getRegion().end());
    if (failed(rewriter.convertRegionTypes(&loop.getRegion(), *getTypeConverter())))
      return failure();
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

struct IfOpLowering : ConvertOpToLLVMPattern<tile::IfOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::IfOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), types)))
      return failure();
    auto branch = scf::IfOp::create(rewriter, op.getLoc(), types,
                                    adaptor.getCondition(),
                                    /*addThenBlock=*/false, /*addElseBlock=*/false);
    rewriter.inlineRegionBefore(op.getThenRegion(), branch.getThenRegion(),
                                branch.getThenRegion().end());
    rewriter.inlineRegionBefore(op.getElseRegion(), branch.getElseRegion(),
                                branch.getElseRegion().end());
    rewriter.replaceOp(op, branch.getResults());
    return success();
  }
};

/// A scf.while without values: the condition region before, the body after.
struct WhileOpLowering : ConvertOpToLLVMPattern<tile::WhileOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::WhileOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto loop = scf::WhileOp::create(rewriter, op.getLoc(), TypeRange(), ValueRange());
    rewriter.inlineRegionBefore(op.getCondition(), loop.getBefore(), loop.getBefore().end());
    rewriter.inlineRegionBefore(op.getBody(), loop.getAfter(), loop.getAfter().end());
    rewriter.eraseOp(op);
    return success();
  }
};

struct ConditionOpLowering : ConvertOpToLLVMPattern<tile::ConditionOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::ConditionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<scf::ConditionOp>(op, adaptor.getCondition(), ValueRange());
    return success();
  }
};

struct YieldOpLowering : ConvertOpToLLVMPattern<tile::YieldOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, adaptor.getValues());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The earlier pass that lowers `op`, a tile op this pass has no pattern
/// for; "" for others.
StringRef earlierPass(Operation *op) {
  return llvm::TypeSwitch<Operation *, StringRef>(op)
      .Case([](tile::ParallelOp) { return "tile-distribute-parallel"; })
      .Case([](tile::PipelinedOp) { return "tile-warp-specialize"; })
      .Case([](tile::CopyOp) { return "tile-lower-copies"; })
      .Case([](tile::FillAsyncOp) { return "tile-lower-fills"; })
      .Case<tile::AllocSharedOp, tile::StageOp>([](Operation *) { return "tile-plan-shared"; })
      .Default([](Operation *) { return ""; });
}

/// Reports, at each, the ops an earlier pass should have lowered and the
/// kernel arguments no LLVM type holds.
LogicalResult checkLowerable(ModuleOp module, const TypeConverter &converter) {
  bool ok = true;
  auto fragment = [](Type t) { return llvm::isa<RankedTensorType>(t); };
  module.walk([&](Operation *op) {
    auto fail = [&] {
      ok = false;
      return op->emitOpError();
    };
    if (auto kernel = llvm::dyn_cast<tile::KernelOp>(op))
      for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
        if (!converter.convertType(type))
          fail() << "argument " << i << " is " << type << ", which no LLVM type holds";
    if (StringRef pass = earlierPass(op); !pass.empty())
      fail() << "must be lowered by " << pass << " before convert-tile-to-llvm";
    else if (llvm::any_of(op->getOperandTypes(), fragment) ||
             llvm::any_of(op->getResultTypes(), fragment))
      fail() << "holds fragments, which tile-distribute-fragments must lower before "
                "convert-tile-to-llvm";
  });
  return success(ok);
}

/// Integer division made defined for every operand: LLVM's sdiv, udiv,
/// srem and urem are undefined behaviour on a zero divisor (and sdiv/srem
/// on MIN / -1), which lets LLVM delete the code around them -- a kernel
/// dividing by a zero became a bare `ret`. Here, as on RISC-V:
///   x / 0 = -1 (all ones)   x % 0 = x   ceildiv(x, 0) = floordiv(x, 0) = -1
///   MIN / -1 = MIN          MIN % -1 = 0 (the division by 1 it wraps to)
/// A divisor that is a constant other than 0 and -1 needs no guard and gets
/// none; the DSL refuses a constant zero at the user's line.
void guardIntegerDivisions(ModuleOp module) {
  SmallVector<Operation *> divisions;
  module.walk([&](Operation *op) {
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
            arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(op))
      divisions.push_back(op);
  });
  for (Operation *op : divisions) {
    Value x = op->getOperand(0), y = op->getOperand(1);
    Type type = y.getType();
    Type element = getElementTypeOrSelf(type);
    if (!element.isIntOrIndex())
      continue;
    const bool isSigned = isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                              arith::FloorDivSIOp>(op);
    APInt divisor;
    bool constant = matchPattern(y, m_ConstantInt(&divisor));
    if (constant && !divisor.isZero() && !(isSigned && divisor.isAllOnes()))
      continue;
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto splat = [&](Type t, const APInt &v) -> Value {
      TypedAttr attr;
      if (auto shaped = dyn_cast<ShapedType>(t))
        attr = DenseElementsAttr::get(shaped, b.getIntegerAttr(getElementTypeOrSelf(t), v));
      else
        attr = b.getIntegerAttr(t, v);
      return arith::ConstantOp::create(b, loc, t, attr);
    };
    unsigned bits = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
    Value zero = splat(type, APInt(bits, 0)), one = splat(type, APInt(bits, 1)),
          allOnes = splat(type, APInt::getAllOnes(bits));
    Value byZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
    Value unsafe = byZero;
    if (isSigned) {
      Value min = splat(type, APInt::getSignedMinValue(bits));
      Value isMin = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, min);
      Value byMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, allOnes);
      Value overflow = arith::AndIOp::create(b, loc, isMin, byMinusOne);
      unsafe = arith::OrIOp::create(b, loc, byZero, overflow);
    }
    Value safe = arith::SelectOp::create(b, loc, unsafe, one, y);
    op->setOperand(1, safe);
    b.setInsertionPointAfter(op);
    Value result = op->getResult(0);
    const bool remainder = isa<arith::RemSIOp, arith::RemUIOp>(op);
    auto chosen = arith::SelectOp::create(b, loc, byZero, remainder ? x : allOnes, result);
    result.replaceAllUsesExcept(chosen, chosen);
  }
}

struct ConvertTileToLLVM
    : minitile::impl::ConvertTileToLLVMBase<ConvertTileToLLVM> {
  using ConvertTileToLLVMBase::ConvertTileToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    for (auto host : llvm::make_early_inc_range(module.getOps<tile::HostOp>()))
      host.erase();
    guardIntegerDivisions(module);

    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter converter(ctx, options);
    converter.addConversion([ctx](tile::PtrType) {
      return LLVM::LLVMPointerType::get(ctx, kGlobal);
    });
    converter.addConversion([ctx](tile::LocalType) {
      return LLVM::LLVMPointerType::get(ctx);
    });
    converter.addConversion([ctx](tile::GlobalTensorType type) -> Type {
      SmallVector<Type> fields{LLVM::LLVMPointerType::get(ctx, kGlobal)};
      fields.append(type.getRank() - 1, IntegerType::get(ctx, 64));
      return LLVM::LLVMStructType::getLiteral(ctx, fields);
    });

    RewritePatternSet patterns(ctx);
    if (module->walk([](tile::SharedViewOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      minitile::declareDynamicShared(module);
    if (wgmmaDescriptorsAtUse)
      minitile::sinkWgmmaDescriptors(module);
    minitile::pinLoopAccumulators(module);
    minitile::populateHopperConversions(converter, patterns, wgmmaDescriptorsAtUse);
    if (failed(checkLowerable(module, converter)) ||
        failed(minitile::prepareMathConversions(module)))
      return signalPassFailure();
    patterns.add<KernelOpLowering, ReturnOpLowering,
                 GeometryOpLowering<tile::ThreadIdOp, NVVM::ThreadIdXOp,
                                    NVVM::ThreadIdYOp, NVVM::ThreadIdZOp>,
                 GeometryOpLowering<tile::BlockIdOp, NVVM::BlockIdXOp,
                                    NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
                 GeometryOpLowering<tile::GridDimOp, NVVM::GridDimXOp,
                                    NVVM::GridDimYOp, NVVM::GridDimZOp>,
                 ViewOpLowering, SliceOpLowering, LoadOpLowering, StoreOpLowering, BulkStoreOpLowering, CpAsyncOpLowering,
                 ElemsToAlignedOpLowering, AtomicOpLowering, SplatOpLowering,
                 AllocLocalOpLowering, LocalLoadOpLowering, LocalStoreOpLowering,
                 ForOpLowering, WhileOpLowering, ConditionOpLowering, IfOpLowering,
                 YieldOpLowering, PairTruncLowering>(converter);
    // ceildivsi and friends expand to arith first; float min/max lower to
    // llvm.minimum/maximum (one min.NaN/max.NaN instruction on sm_80 and
    // later) rather than to compares and selects.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    minitile::populateMathConversions(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    populateSCFToControlFlowConversionPatterns(patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addLegalOp<ModuleOp>();
    target.addIllegalDialect<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                             scf::SCFDialect, cf::ControlFlowDialect>();
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // NVVM ops without an LLVM intrinsic (wgmma, mbarrier waits, ...) become
    // inline PTX.
    RewritePatternSet ptx(ctx);
    populateNVVMToLLVMConversionPatterns(ptx);
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    // Each pattern turns one NVVM op into inline PTX, which no pattern
    // matches: the rewrite converges in one sweep.
    LogicalResult converged = applyPatternsGreedily(module, std::move(ptx), config);
    assert(succeeded(converged) && "NVVM to inline PTX did not converge");
    (void)converged;
  }
};

} // namespace
