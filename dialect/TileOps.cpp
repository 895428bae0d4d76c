//===- TileOps.cpp - verifiers, assembly formats and helpers of tile ops --===//
#include "dialect/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace minitile::tile;

/// The tile.yield ending `block`, or null when it ends otherwise. Op
/// verifiers run before the verifier looks at their regions, so a body may
/// still end in anything, or in nothing.
static YieldOp yieldOf(Block &block) {
  if (block.empty())
    return nullptr;
  return llvm::dyn_cast<YieldOp>(block.back());
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

template <typename FnOp>
static ParseResult parseTileFunction(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &b, ArrayRef<Type> args, ArrayRef<Type> results,
                      function_interface_impl::VariadicFlag, std::string &) {
    return b.getFunctionType(args, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      FnOp::getFunctionTypeAttrName(result.name), buildType,
      FnOp::getArgAttrsAttrName(result.name),
      FnOp::getResAttrsAttrName(result.name));
}

template <typename FnOp>
static void printTileFunction(FnOp op, OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, op, /*isVariadic=*/false, op.getFunctionTypeAttrName(),
      op.getArgAttrsAttrName(), op.getResAttrsAttrName());
}

template <typename FnOp>
static StringRef argName(FnOp op, unsigned i) {
  if (auto name = op.template getArgAttrOfType<StringAttr>(i, "tile.name"))
    return name.getValue();
  return "";
}

/// Names the entry block arguments after their tile.name: %S, %logits, ...
template <typename FnOp>
static void nameArguments(FnOp op, Region &region, OpAsmSetValueNameFn setName) {
  if (region.empty())
    return;
  for (unsigned i = 0, e = region.getNumArguments(); i < e; ++i) {
    StringRef name = i < op.getNumArguments() ? argName(op, i) : "";
    if (!name.empty())
      setName(region.getArgument(i), name);
  }
}

static LogicalResult verifyFunctionCommon(FunctionOpInterface op) {
  if (!op.getResultTypes().empty())
    return op->emitOpError("returns nothing; results go through tensors");
  return success();
}

ParseResult HostOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseTileFunction<HostOp>(parser, result);
}
void HostOp::print(OpAsmPrinter &p) { printTileFunction(*this, p); }
StringRef HostOp::getArgName(unsigned i) { return argName(*this, i); }
void HostOp::getAsmBlockArgumentNames(Region &region, OpAsmSetValueNameFn setName) {
  nameArguments(*this, region, setName);
}

LogicalResult HostOp::verify() {
  if (failed(verifyFunctionCommon(*this)))
    return failure();
  for (unsigned i = 0, e = getNumArguments(); i < e; ++i)
    if (getArgName(i).empty())
      return emitOpError("argument ") << i << " has no tile.name";
  auto launches = getBody().getOps<LaunchOp>();
  if (std::distance(launches.begin(), launches.end()) != 1)
    return emitOpError("launches exactly one kernel");
  return success();
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseTileFunction<KernelOp>(parser, result);
}
void KernelOp::print(OpAsmPrinter &p) { printTileFunction(*this, p); }
StringRef KernelOp::getArgName(unsigned i) { return argName(*this, i); }
void KernelOp::getAsmBlockArgumentNames(Region &region, OpAsmSetValueNameFn setName) {
  nameArguments(*this, region, setName);
}

int64_t KernelOp::getNumThreads() {
  int64_t n = 1;
  for (int32_t d : getBlock())
    n *= d;
  return n;
}

LogicalResult KernelOp::verify() {
  if (failed(verifyFunctionCommon(*this)))
    return failure();
  ArrayRef<int32_t> block = getBlock();
  if (block.size() != 3)
    return emitOpError("block has 3 extents (x, y, z), not ") << block.size();
  for (int32_t d : block)
    if (d <= 0)
      return emitOpError("block extents are positive, got [")
             << block[0] << ", " << block[1] << ", " << block[2] << "]";
  int maxThreads = targetOf(*this).maxThreadsPerBlock;
  if (getNumThreads() > maxThreads)
    return emitOpError("a block holds at most ")
           << maxThreads << " threads, not " << getNumThreads();
  // Every tensor value in device code is a fragment that fits the block's
  // registers, whichever op (a tile op, or arith on fragments) makes it.
  auto check = [](Operation *op, Value v) {
    if (!llvm::isa<RankedTensorType, UnrankedTensorType>(v.getType()))
      return success();
    std::string why = whyNotFragment(v.getType());
    if (why.empty())
      return success();
    return LogicalResult(op->emitOpError("has a value of ") << v.getType() << ": " << why);
  };
  WalkResult walk = getBody().walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (failed(check(op, v)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Value v : block.getArguments())
          if (failed(check(op, v)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (std::optional<int32_t> blocks = getMinBlocksPerSm(); blocks && *blocks < 1)
    return emitOpError("min_blocks_per_sm is positive, not ") << *blocks;
  if (std::optional<int32_t> r = getProducerRegisters(); r && !isProducerRegisterCount(*r))
    return emitOpError("producer_registers is 24 to 64, a multiple of 8 (setmaxnreg's steps), "
                       "not ")
           << *r;
  return success();
}

//===----------------------------------------------------------------------===//
// Host ops
//===----------------------------------------------------------------------===//

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto kernel = symbols.lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError("launches '") << getKernel() << "', which is not a tile.kernel";
  ArrayRef<Type> params = kernel.getArgumentTypes();
  if (params.size() != getArgs().size())
    return emitOpError("passes ") << getArgs().size() << " arguments to '"
                                  << getKernel() << "', which takes "
                                  << params.size();
  for (auto [i, arg, param] : llvm::enumerate(getArgs().getTypes(), params))
    if (arg != param)
      return emitOpError("argument ") << i << " is " << arg << " but '"
                                      << getKernel() << "' takes " << param;
  return success();
}

LogicalResult CheckPtrOp::verify() {
  int64_t align = getAlign();
  if (align <= 0 || (align & (align - 1)))
    return emitOpError("align is a positive power of two, not ") << align;
  return success();
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

LogicalResult ViewOp::verify() {
  auto ptr = llvm::cast<PtrType>(getBase().getType());
  auto tensor = llvm::cast<GlobalTensorType>(getResult().getType());
  if (ptr.getElementType() != tensor.getElementType())
    return emitOpError("views ") << ptr << " as " << tensor
                                 << ": the element types differ";
  if (getSizes().size() != tensor.getNumDynamicDims())
    return emitOpError("gives ") << getSizes().size() << " sizes but " << tensor
                                 << " has " << tensor.getNumDynamicDims()
                                 << " dynamic dimensions";
  if (getStrides().size() + 1 != tensor.getRank())
    return emitOpError("gives ") << getStrides().size() << " strides; a rank-"
                                 << tensor.getRank() << " view takes "
                                 << tensor.getRank() - 1
                                 << " (the innermost stride is 1)";
  return success();
}

Value ViewOp::getSize(OpBuilder &b, unsigned d) {
  auto tensor = llvm::cast<GlobalTensorType>(getResult().getType());
  int64_t size = tensor.getShape()[d];
  if (!ShapedType::isDynamic(size))
    return arith::ConstantIndexOp::create(b, getLoc(), size);
  unsigned dynamicIndex = llvm::count_if(tensor.getShape().take_front(d),
                                         ShapedType::isDynamic);
  return getSizes()[dynamicIndex];
}

ViewOp minitile::tile::rootView(Value tensor) {
  while (auto slice = tensor.getDefiningOp<SliceOp>())
    tensor = slice.getSource();
  return tensor.getDefiningOp<ViewOp>();
}

PointerAccess minitile::tile::pointerAccess(Value tensor) {
  PointerAccess access;
  SmallVector<Value> work{tensor};
  while (!work.empty()) {
    Value t = work.pop_back_val();
    for (OpOperand &use : t.getUses()) {
      Operation *op = use.getOwner();
      if (auto copy = llvm::dyn_cast<CopyOp>(op);
          copy && (use.get() == copy.getSource() || use.get() == copy.getRows())) {
        access.read = true; // into shared memory, or the rows it gathers
        continue;
      }
      if (isMemoryEffectFree(op)) {
        // Views, slices, address arithmetic: follow what they derive.
        for (Value r : op->getResults())
          if (llvm::isa<PtrType, GlobalTensorType>(r.getType()))
            work.push_back(r);
        continue;
      }
      SmallVector<MemoryEffects::EffectInstance> effects;
      if (auto iface = llvm::dyn_cast<MemoryEffectOpInterface>(op))
        iface.getEffectsOnValue(t, effects);
      if (effects.empty()) {
        access.read = access.written = true; // a use this does not know
        continue;
      }
      for (const MemoryEffects::EffectInstance &e : effects) {
        if (llvm::isa<MemoryEffects::Read>(e.getEffect()))
          access.read = true;
        else if (llvm::isa<MemoryEffects::Write>(e.getEffect()))
          access.written = true;
        else
          access.read = access.written = true;
      }
    }
  }
  return access;
}



Value minitile::tile::linearThreadId(OpBuilder &b, Location loc, ArrayRef<int32_t> block) {
  Value id = ThreadIdOp::create(b, loc, Dim::x);
  int64_t extent = block[0];
  for (auto [dim, size] : {std::pair{Dim::y, block[1]}, {Dim::z, block[2]}}) {
    if (size == 1)
      continue;
    Value t = ThreadIdOp::create(b, loc, dim);
    Value scaled =
        arith::MulIOp::create(b, loc, t, arith::ConstantIndexOp::create(b, loc, extent));
    id = arith::AddIOp::create(b, loc, id, scaled);
    extent *= size;
  }
  return id;
}

Value minitile::tile::viewSize(OpBuilder &b, Value tensor, unsigned dim) {
  while (auto slice = tensor.getDefiningOp<SliceOp>()) {
    if (dim >= slice.getDim())
      ++dim;
    tensor = slice.getSource();
  }
  return tensor.getDefiningOp<ViewOp>().getSize(b, dim);
}

LogicalResult SliceOp::verify() {
  auto src = getSource().getType(), dst = getResult().getType();
  int64_t dim = getDim();
  if (dim < 0 || dim + 1 >= int64_t(src.getRank()))
    return emitOpError("fixes dimension ") << dim << " of a rank-" << src.getRank()
                                           << " tensor; it can fix any but the innermost";
  SmallVector<int64_t> shape(src.getShape());
  shape.erase(shape.begin() + dim);
  if (ArrayRef<int64_t>(shape) != dst.getShape() ||
      src.getElementType() != dst.getElementType())
    return emitOpError("the result is ") << src << " without dimension " << dim;
  return success();
}

/// Checks `indices` address `tensor` and `access` is an element or a vector
/// of its elements.
static LogicalResult verifyAccess(Operation *op, GlobalTensorType tensor,
                                  ValueRange indices, Type access) {
  if (indices.size() != tensor.getRank())
    return op->emitOpError("indexes a rank-")
           << tensor.getRank() << " tensor with " << indices.size()
           << " indices";
  if (!access)
    return success();
  Type element = access;
  if (auto vec = llvm::dyn_cast<VectorType>(access)) {
    if (vec.getRank() != 1 || vec.isScalable())
      return op->emitOpError("accesses a 1-D fixed vector, not ") << vec;
    element = vec.getElementType();
    int64_t bytes = vec.getNumElements() * elementBytes(element);
    if (bytes > 16 || (bytes & (bytes - 1)))
      return op->emitOpError("vector accesses are 2, 4, 8 or 16 bytes, not ")
             << bytes;
    int64_t inner = tensor.getShape().back();
    if (!ShapedType::isDynamic(inner) && inner % vec.getNumElements())
      return op->emitOpError("a ") << vec << " access cannot tile the inner "
                                   << "dimension of " << tensor;
  }
  if (element != tensor.getElementType())
    return op->emitOpError("accesses ") << access << " in " << tensor
                                        << ": the element types differ";
  return success();
}

LogicalResult LoadOp::verify() {
  return verifyAccess(*this, getTensor().getType(), getIndices(),
                      getResult().getType());
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getTensorMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult StoreOp::verify() {
  if (failed(verifyAccess(*this, getTensor().getType(), getIndices(), getValue().getType())))
    return failure();
  if (getAdd()) {
    Type t = getValue().getType();
    auto vec = llvm::dyn_cast<VectorType>(t);
    if (!(vec ? vec.getElementType() : t).isF32() ||
        (vec && vec.getNumElements() != 2 && vec.getNumElements() != 4))
      return emitOpError("adds f32, or vectors of 2 or 4 of them, not ") << t;
  }
  return success();
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getAdd()) // reads what it adds to
    effects.emplace_back(MemoryEffects::Read::get(), &getTensorMutable(),
                         SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getTensorMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult ElemsToAlignedOp::verify() {
  int64_t bytes = getBytes();
  if (bytes <= 0 || (bytes & (bytes - 1)))
    return emitOpError("bytes is a positive power of two, not ") << bytes;
  return verifyAccess(*this, getTensor().getType(), getIndices(), Type());
}

LogicalResult FillAsyncOp::verify() {
  GlobalTensorType type = getTensor().getType();
  if (type.getRank() != 1)
    return emitOpError("fills a rank-1 tensor, not ") << type;
  if (getValue().getType() != type.getElementType())
    return emitOpError("fills ") << type << " with a " << getValue().getType() << " value";
  int64_t bytes = elementBytes(type.getElementType());
  if (bytes > 16 || (bytes & (bytes - 1)))
    return emitOpError("fills elements of 1, 2, 4, 8 or 16 bytes, not ") << bytes;
  for (Operation *p = (*this)->getParentOp(); p && !llvm::isa<KernelOp>(p); p = p->getParentOp()) {
    auto pipelined = llvm::dyn_cast<PipelinedOp>(p);
    if (llvm::isa<ParallelOp>(p) || (pipelined && pipelined.getGroups() != 1))
      return emitOpError("is issued once by the block, so every thread reaches it; it is "
                         "inside '")
             << p->getName() << "', whose iterations the threads share";
  }
  return success();
}

void FillAsyncOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getTensorMutable(),
                       SideEffects::DefaultResource::get());
}

/// Atomics take 32- and 64-bit integers and f32; floats only add and exchange.
static LogicalResult verifyAtomic(Operation *op, AtomicKind kind, Type value,
                                  Type element) {
  if (value != element)
    return op->emitOpError("a ") << value << " atomic on elements of " << element;
  if (llvm::isa<FloatType>(value) && kind != AtomicKind::add &&
      kind != AtomicKind::exchange)
    return op->emitOpError("'") << stringifyAtomicKind(kind)
                                << "' takes integers; floats take add and exchange";
  return success();
}

LogicalResult AtomicOp::verify() {
  if (failed(verifyAccess(*this, getTensor().getType(), getIndices(), Type())))
    return failure();
  return verifyAtomic(*this, getKind(), getValue().getType(),
                      getTensor().getType().getElementType());
}

//===----------------------------------------------------------------------===//
// Loops: `tile.for %i = %lb to %ub step %s [iter_args(%a = %x) -> (T)] {...}`
//===----------------------------------------------------------------------===//

static ParseResult parseLoopHeader(OpAsmParser &parser, OperationState &result,
                                   OpAsmParser::Argument &iv) {
  OpAsmParser::UnresolvedOperand lb, ub, step;
  Type index = parser.getBuilder().getIndexType();
  iv.type = index;
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lb) || parser.parseKeyword("to") ||
      parser.parseOperand(ub) || parser.parseKeyword("step") ||
      parser.parseOperand(step) ||
      parser.resolveOperands({lb, ub, step}, index, result.operands))
    return failure();
  return success();
}

/// The region of a loop (its block arguments given) and its attributes.
template <typename Loop>
static ParseResult parseLoopBody(OpAsmParser &parser, OperationState &result,
                                 ArrayRef<OpAsmParser::Argument> regionArgs) {
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, regionArgs))
    return failure();
  Loop::ensureTerminator(*body, parser.getBuilder(), result.location);
  return parser.parseOptionalAttrDict(result.attributes);
}

static void printLoopHeader(OpAsmPrinter &p, Value iv, Value lb, Value ub,
                            Value step) {
  p << " " << iv << " = " << lb << " to " << ub << " step " << step;
}

/// The body of a loop being built: one block taking the index (and the
/// iter_args), ended by a tile.yield when nothing is carried.
static void addLoopBody(OpBuilder &b, OperationState &state, ValueRange initArgs = {}) {
  Region *body = state.addRegion();
  Block *block = new Block;
  body->push_back(block);
  block->addArgument(b.getIndexType(), state.location);
  for (Value init : initArgs)
    block->addArgument(init.getType(), state.location);
  if (initArgs.empty()) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(block);
    YieldOp::create(b, state.location);
  }
}

/// `iter_args(%a = %x, ...) -> (T, ...)`, if present: the region arguments
/// after the index, the initial values and the result types.
static ParseResult parseIterArgs(OpAsmParser &parser, OperationState &result,
                                 SmallVectorImpl<OpAsmParser::Argument> &regionArgs) {
  SmallVector<OpAsmParser::UnresolvedOperand> inits;
  if (failed(parser.parseOptionalKeyword("iter_args")))
    return success();
  if (parser.parseAssignmentList(regionArgs, inits) ||
      parser.parseArrowTypeList(result.types))
    return failure();
  if (regionArgs.size() != result.types.size() + 1)
    return parser.emitError(parser.getNameLoc(), "a loop has one result type per iter_arg");
  for (auto [arg, type] : llvm::zip(llvm::drop_begin(regionArgs), result.types))
    arg.type = type;
  return parser.resolveOperands(inits, result.types, parser.getNameLoc(), result.operands);
}

static void printIterArgs(OpAsmPrinter &p, Block::BlockArgListType args, ValueRange inits,
                          TypeRange types) {
  if (inits.empty())
    return;
  p << " iter_args(";
  llvm::interleaveComma(llvm::zip(args, inits), p, [&](auto pair) {
    p << std::get<0>(pair) << " = " << std::get<1>(pair);
  });
  p << ") -> (" << types << ")";
}

/// Shared by tile.for and tile.pipelined: the body takes the index and one
/// value per iter_arg, of its type, and yields the results' types.
static LogicalResult verifyCarried(Operation *op, Block &body, ValueRange inits,
                                   Block::BlockArgListType iterArgs, TypeRange results) {
  if (body.getNumArguments() != inits.size() + 1 || !body.getArgument(0).getType().isIndex())
    return op->emitOpError("body takes the index and one value per iter_arg");
  YieldOp yield = yieldOf(body);
  if (!yield)
    return op->emitOpError("body ends with a tile.yield");
  if (yield.getValues().getTypes() != results)
    return op->emitOpError("body yields ")
           << yield.getValues().size() << " values for " << results.size()
           << " results of other types";
  for (auto [arg, init] : llvm::zip(iterArgs, inits))
    if (arg.getType() != init.getType())
      return op->emitOpError("iter_arg type differs from its initial value");
  return success();
}

ParseResult ForOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> regionArgs(1);
  if (parseLoopHeader(parser, result, regionArgs[0]))
    return failure();
  if (parseIterArgs(parser, result, regionArgs))
    return failure();
  return parseLoopBody<ForOp>(parser, result, regionArgs);
}

void ForOp::print(OpAsmPrinter &p) {
  printLoopHeader(p, getInductionVar(), getLowerBound(), getUpperBound(),
                  getStep());
  printIterArgs(p, getRegionIterArgs(), getInitArgs(), getResultTypes());
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/!getInitArgs().empty());
  p.printOptionalAttrDict((*this)->getAttrs());
}

void ForOp::build(OpBuilder &b, OperationState &state, Value lb, Value ub,
                  Value step, ValueRange initArgs) {
  state.addOperands({lb, ub, step});
  state.addOperands(initArgs);
  state.addTypes(initArgs.getTypes());
  addLoopBody(b, state, initArgs);
}

LogicalResult ForOp::verify() {
  return verifyCarried(*this, getBody().front(), getInitArgs(), getRegionIterArgs(),
                       getResultTypes());
}


ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> regionArgs(1);
  if (parseLoopHeader(parser, result, regionArgs[0]))
    return failure();
  return parseLoopBody<ParallelOp>(parser, result, regionArgs);
}

void ParallelOp::print(OpAsmPrinter &p) {
  printLoopHeader(p, getInductionVar(), getLowerBound(), getUpperBound(),
                  getStep());
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
  p.printOptionalAttrDict((*this)->getAttrs());
}

void ParallelOp::build(OpBuilder &b, OperationState &state, Value lb, Value ub,
                       Value step, bool acrossX) {
  state.addOperands({lb, ub, step});
  if (acrossX)
    state.addAttribute(getAcrossXAttrName(state.name), b.getUnitAttr());
  addLoopBody(b, state);
}

LogicalResult ParallelOp::verify() {
  if ((*this)->getParentOfType<ParallelOp>())
    return emitOpError("cannot nest in another tile.parallel: each iteration "
                       "runs on one thread, a parallel loop needs all of them");
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("body takes one index argument");
  YieldOp yield = yieldOf(body);
  if (!yield)
    return emitOpError("body ends with a tile.yield");
  if (!yield.getValues().empty())
    return emitOpError("body yields no values");
  return success();
}

//===----------------------------------------------------------------------===//
// If
//===----------------------------------------------------------------------===//

LogicalResult IfOp::verify() {
  if (getNumResults() && getElseRegion().empty())
    return emitOpError("with results needs an else region");
  for (Region *region : {&getThenRegion(), &getElseRegion()}) {
    if (region->empty())
      continue;
    YieldOp yield = yieldOf(region->front());
    if (!yield)
      return emitOpError("regions end with a tile.yield");
    if (yield.getValues().getTypes() != getResultTypes())
      return emitOpError("regions yield the types of its results");
  }
  return success();
}

LogicalResult WhileOp::verify() {
  if (!llvm::isa<ConditionOp>(getCondition().front().back()))
    return emitOpError("the condition region ends with tile.condition");
  auto yield = llvm::dyn_cast<YieldOp>(getBody().front().back());
  if (!yield || !yield.getValues().empty())
    return emitOpError("the body ends with a tile.yield of no values");
  return success();
}

#define GET_OP_CLASSES
#include "dialect/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Tiles
//===----------------------------------------------------------------------===//

LogicalResult AllocSharedOp::verify() {
  int64_t stages = getStages();
  if (stages < 1 || stages > kMaxStages)
    return emitOpError("has 1 to ") << kMaxStages << " stages, not " << stages;
  return success();
}

/// The rows operands of a gathered copy (`copy`) or store (`rows` null:
/// none): `tensorRank` is the rank of the tensor whose rows they pick.
static LogicalResult verifyRows(Operation *op, Value rows, int64_t tensorRank,
                                ValueRange rowIndices, bool copy) {
  if (!rows) {
    if (!rowIndices.empty())
      return op->emitOpError("has row indices but no rows tensor");
    return success();
  }
  auto type = llvm::cast<GlobalTensorType>(rows.getType());
  if (tensorRank != 2) {
    if (copy)
      return op->emitOpError("gathers rows of a rank-2 tensor, not of a rank-")
             << tensorRank << " one (slice it first)";
    return op->emitOpError("writes gathered rows of a rank-2 tensor, not of a rank-")
           << tensorRank << " one (slice it first)";
  }
  if (!type.getElementType().isInteger(32)) {
    if (copy)
      return op->emitOpError("gathers rows by an i32 index tensor, not ")
             << type.getElementType();
    return op->emitOpError("picks rows by an i32 index tensor, not ") << type.getElementType();
  }
  if (int64_t(rowIndices.size()) != type.getRank())
    return op->emitOpError("indexes its rank-") << type.getRank() << " rows tensor with "
                                                << rowIndices.size() << " indices";
  return success();
}

LogicalResult CopyOp::verify() {
  auto src = getSource().getType();
  auto dst = getDest().getType();
  ArrayRef<int64_t> box = getBox();
  if (box.size() != src.getRank())
    return emitOpError("box has ") << box.size() << " extents for a rank-"
                                   << src.getRank() << " tensor";
  if (getIndices().size() != src.getRank())
    return emitOpError("indexes a rank-") << src.getRank() << " tensor with "
                                          << getIndices().size() << " indices";
  if (src.getElementType() != dst.getElementType())
    return emitOpError("copies ") << src.getElementType() << " into a tile of "
                                  << dst.getElementType();
  for (int64_t extent : box)
    if (extent < 1)
      return emitOpError("box extents are positive; [") << box << "] is not";
  std::optional<int64_t> elements = checkedProduct(box);
  if (!elements || *elements != dst.getNumElements() ||
      box.back() != dst.getShape().back())
    return emitOpError("a box of [")
           << box << "] does not fill a tile of [" << dst.getShape()
           << "] (its outer extents flatten onto the tile's rows)";
  return verifyRows(*this, getRows(), src.getRank(), getRowIndices(), /*copy=*/true);
}

LogicalResult GemmOp::verify() {
  // A: a shared tile or a fragment (wgmma's register operand).
  ArrayRef<int64_t> aShape;
  Type aElement;
  if (auto shared = llvm::dyn_cast<SharedType>(getA().getType())) {
    aShape = shared.getShape();
    aElement = shared.getElementType();
  } else {
    auto frag = llvm::cast<RankedTensorType>(getA().getType());
    aShape = frag.getShape();
    aElement = frag.getElementType();
  }
  auto b = getB().getType();
  auto c = getResult().getType();
  if (aShape.size() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("multiplies matrices (rank-2 tiles)");
  int64_t M = aShape[0], K = aShape[1];
  int64_t N = getTransposeB() ? b.getShape()[0] : b.getShape()[1];
  int64_t KB = getTransposeB() ? b.getShape()[1] : b.getShape()[0];
  if (K != KB)
    return emitOpError("A is ") << M << "x" << K << " but B" << (getTransposeB() ? "^T" : "")
                                << " is " << KB << "x" << N << ": the K extents differ";
  if (c.getShape()[0] != M || c.getShape()[1] != N)
    return emitOpError("the result is [") << c.getShape() << "], not [" << M << ", " << N << "]";
  if (!c.getElementType().isF32())
    return emitOpError("accumulates in f32, not ") << c.getElementType();
  if (getAcc() && getAcc().getType() != c)
    return emitOpError("the accumulator's type differs from the result's");
  if (aElement != b.getElementType())
    return emitOpError("A holds ") << aElement << " but B holds " << b.getElementType();
  return success();
}

bool GemmOp::hasRegisterA() { return llvm::isa<RankedTensorType>(getA().getType()); }

static LogicalResult verifyTileAccess(Operation *op, GlobalTensorType tensor,
                                      ValueRange indices, RankedTensorType frag) {
  if (indices.size() != tensor.getRank())
    return op->emitOpError("indexes a rank-") << tensor.getRank() << " tensor with "
                                              << indices.size() << " indices";
  if (frag.getRank() != tensor.getRank())
    return op->emitOpError("a rank-") << frag.getRank() << " fragment and a rank-"
                                      << tensor.getRank() << " tensor";
  if (frag.getElementType() != tensor.getElementType())
    return op->emitOpError("the fragment holds ") << frag.getElementType()
                                                  << " but the tensor holds "
                                                  << tensor.getElementType();
  return success();
}

LogicalResult LoadTileOp::verify() {
  return verifyTileAccess(*this, getSource().getType(), getIndices(), getResult().getType());
}

void LoadTileOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getSourceMutable(),
                       SideEffects::DefaultResource::get());
}

/// A fragment read from or written to a shared tile at `indices`: one index
/// a dimension, the fragment's rank and element type the tile's.
template <typename Op>
static LogicalResult verifySharedTileAccess(Op op, SharedType tile, RankedTensorType frag) {
  int64_t rank = tile.getShape().size();
  if (int64_t(op.getIndices().size()) != rank)
    return op.emitOpError("indexes a rank-") << rank << " shared tile with "
                                             << op.getIndices().size() << " indices";
  if (frag.getRank() != rank)
    return op.emitOpError("a rank-") << frag.getRank() << " fragment and a rank-" << rank
                                     << " shared tile";
  if (frag.getElementType() != tile.getElementType())
    return op.emitOpError("the fragment holds ") << frag.getElementType()
                                                 << " but the shared tile holds "
                                                 << tile.getElementType();
  return success();
}

LogicalResult SharedLoadTileOp::verify() {
  return verifySharedTileAccess(*this, getTile().getType(), getResult().getType());
}

void SharedLoadTileOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getTileMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult StoreTileOp::verify() {
  if (failed(verifyTileAccess(*this, getDest().getType(), getIndices(),
                              getValue().getType())))
    return failure();
  if (getMask()) {
    auto mask = getMask().getType();
    if (mask.getShape() != getValue().getType().getShape() ||
        !mask.getElementType().isInteger(1))
      return emitOpError("the mask is an i1 fragment of the value's shape");
  }
  if (getAdd() && !getValue().getType().getElementType().isF32())
    return emitOpError("adds an f32 fragment, not one of ")
           << getValue().getType().getElementType();
  return verifyRows(*this, getRows(), getDest().getType().getRank(), getRowIndices(),
                    /*copy=*/false);
}

void StoreTileOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getAdd()) // reads what it adds to
    effects.emplace_back(MemoryEffects::Read::get(), &getDestMutable(),
                         SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &getDestMutable(),
                       SideEffects::DefaultResource::get());
  if (getRows())
    effects.emplace_back(MemoryEffects::Read::get(), &getRowsMutable()[0],
                         SideEffects::DefaultResource::get());
}

LogicalResult SharedStoreTileOp::verify() {
  return verifySharedTileAccess(*this, getTile().getType(), getValue().getType());
}

void SharedStoreTileOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getTileMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult BroadcastOp::verify() {
  auto result = getResult().getType();
  auto src = llvm::dyn_cast<RankedTensorType>(getSource().getType());
  Type element = src ? src.getElementType() : getSource().getType();
  if (element != result.getElementType())
    return emitOpError("broadcasts ") << element << " to a fragment of "
                                      << result.getElementType();
  ArrayRef<int64_t> dims = getDims();
  int64_t srcRank = src ? src.getRank() : 0;
  if (int64_t(dims.size()) != srcRank)
    return emitOpError("dims has ") << dims.size() << " entries for a rank-" << srcRank
                                    << " source";
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= result.getRank() || (i && dims[i - 1] >= d))
      return emitOpError("dims are increasing result dimensions");
    if (src.getShape()[i] != result.getShape()[d])
      return emitOpError("source dimension ") << i << " has extent " << src.getShape()[i]
                                              << " but result dimension " << d << " has "
                                              << result.getShape()[d];
  }
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSource().getType(), dst = getResult().getType();
  if (src.getNumElements() != dst.getNumElements())
    return emitOpError("[") << src.getShape() << "] has " << src.getNumElements()
                            << " elements, [" << dst.getShape() << "] has "
                            << dst.getNumElements();
  if (src.getElementType() != dst.getElementType())
    return emitOpError("changes the element type");
  return success();
}

LogicalResult TransposeOp::verify() {
  auto src = getSource().getType(), dst = getResult().getType();
  ArrayRef<int64_t> perm = getPerm();
  if (int64_t(perm.size()) != src.getRank() || dst.getRank() != src.getRank())
    return emitOpError("perm has one entry per dimension");
  SmallVector<bool> seen(perm.size());
  for (auto [i, p] : llvm::enumerate(perm)) {
    if (p < 0 || p >= int64_t(perm.size()) || seen[p])
      return emitOpError("perm is a permutation of the dimensions");
    seen[p] = true;
    if (dst.getShape()[i] != src.getShape()[p])
      return emitOpError("result dimension ") << i << " is source dimension " << p
                                              << " but their extents differ";
  }
  if (src.getElementType() != dst.getElementType())
    return emitOpError("changes the element type");
  return success();
}

LogicalResult ReduceOp::verify() {
  auto src = getSource().getType(), dst = getResult().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError("axis ") << axis << " of a rank-" << src.getRank() << " fragment";
  SmallVector<int64_t> shape(src.getShape());
  shape.erase(shape.begin() + axis);
  if (shape.empty())
    shape.push_back(1);
  if (ArrayRef<int64_t>(shape) != dst.getShape())
    return emitOpError("reducing [") << src.getShape() << "] along " << axis
                                     << " gives [" << shape << "], not [" << dst.getShape()
                                     << "]";
  if (src.getElementType() != dst.getElementType())
    return emitOpError("changes the element type");
  return success();
}

LogicalResult IotaOp::verify() {
  auto t = getResult().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= t.getRank())
    return emitOpError("axis ") << axis << " of a rank-" << t.getRank() << " fragment";
  if (!t.getElementType().isSignlessIntOrIndex())
    return emitOpError("counts in an integer type, not ") << t.getElementType();
  return success();
}

ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> regionArgs(1);
  if (parseLoopHeader(parser, result, regionArgs[0]))
    return failure();
  int64_t stages = 0, groups = 1;
  if (parser.parseKeyword("stages") || parser.parseInteger(stages))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("groups")) && parser.parseInteger(groups))
    return failure();
  // `queue %q : !tile.tensor<1xi32>`
  int32_t queues = 0;
  if (succeeded(parser.parseOptionalKeyword("queue"))) {
    OpAsmParser::UnresolvedOperand queue;
    Type type;
    if (parser.parseOperand(queue) || parser.parseColonType(type) ||
        parser.resolveOperand(queue, type, result.operands))
      return failure();
    queues = 1;
  }
  size_t before = result.operands.size();
  if (parseIterArgs(parser, result, regionArgs))
    return failure();
  Builder &b = parser.getBuilder();
  result.getOrAddProperties<PipelinedOp::Properties>().operandSegmentSizes = {
      1, 1, 1, queues, int32_t(result.operands.size() - before)};
  result.addAttribute("stages", b.getI64IntegerAttr(stages));
  result.addAttribute("groups", b.getI64IntegerAttr(groups));
  return parseLoopBody<PipelinedOp>(parser, result, regionArgs);
}

void PipelinedOp::print(OpAsmPrinter &p) {
  printLoopHeader(p, getInductionVar(), getLowerBound(), getUpperBound(), getStep());
  p << " stages " << getStages();
  if (getGroups() != 1)
    p << " groups " << getGroups();
  if (Value queue = getQueue())
    p << " queue " << queue << " : " << queue.getType();
  printIterArgs(p, getRegionIterArgs(), getInitArgs(), getResultTypes());
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/!getInitArgs().empty());
  p.printOptionalAttrDict((*this)->getAttrs(), {"stages", "groups", "operandSegmentSizes"});
}

void PipelinedOp::build(OpBuilder &b, OperationState &state, Value lb, Value ub,
                        Value step, int64_t stages, int64_t groups, ValueRange initArgs,
                        Value queue) {
  state.addOperands({lb, ub, step});
  if (queue)
    state.addOperands(queue);
  state.addOperands(initArgs);
  state.getOrAddProperties<Properties>().operandSegmentSizes = {
      1, 1, 1, queue ? 1 : 0, int32_t(initArgs.size())};
  state.addTypes(initArgs.getTypes());
  state.addAttribute(getStagesAttrName(state.name), b.getI64IntegerAttr(stages));
  state.addAttribute(getGroupsAttrName(state.name), b.getI64IntegerAttr(groups));
  addLoopBody(b, state, initArgs);
}

int64_t PipelinedOp::getTopLevelGemms() {
  int64_t gemms = 0;
  bool nested = false;
  getBody().walk([&](GemmOp gemm) {
    if (gemm->getParentOp() == getOperation())
      ++gemms;
    else
      nested = true;
  });
  return nested ? -1 : gemms;
}

LogicalResult PipelinedOp::verify() {
  if (failed(verifyCarried(*this, getBody().front(), getInitArgs(), getRegionIterArgs(),
                           getResultTypes())))
    return failure();
  int64_t stages = getStages(), groups = getGroups();
  if (!getInitArgs().empty() && groups != 1)
    return emitOpError("carries values from iteration to iteration, so it runs on one "
                       "group, not ")
           << groups;
  if (stages < 1 || stages > kMaxStages)
    return emitOpError("has 1 to ") << kMaxStages << " stages, not " << stages;
  if (groups < 1)
    return emitOpError("runs on at least one group, not ") << groups;
  // A stage's buffers must always be read by the same group: a group waiting
  // on a stage's barrier by phase parity cannot tell the phase it wants from
  // the one two before it, which another group may still be waiting for.
  if (stages % groups && !getCooperative())
    return emitOpError("has ") << stages << " stages for " << groups
                               << " groups; the stages must be a multiple of the groups";
  if (getCooperative()) {
    if (getContinuous())
      return emitOpError("is cooperative and continuous; a continuous stream alternates "
                         "its iterations between the groups, so choose one");
    // The gemms the groups share out: at the body's top level, a multiple
    // of the groups.
    int64_t gemms = getTopLevelGemms();
    if (gemms < 0)
      return emitOpError("is cooperative, so its gemms are at the top level of its body (each "
                         "group takes whole gemms); one is nested in a region");
    if (groups > 1 && (gemms == 0 || gemms % groups))
      return emitOpError("is cooperative: its ")
             << gemms << " top-level gemms are dealt out to " << groups
             << " groups, so they are a nonzero multiple of the groups";
  }
  // Nested only where every compute thread runs each iteration of the loops
  // around it (one group): a group's warps cannot wait on a ring that the
  // other groups' iterations also fill.
  for (auto outer = (*this)->getParentOfType<PipelinedOp>(); outer;
       outer = outer->getParentOfType<PipelinedOp>())
    if (outer.getGroups() != 1)
      return emitOpError("nests in a tile.pipelined of ")
             << outer.getGroups() << " groups; it nests only in loops of one group";
  if (Value queue = getQueue()) {
    auto t = llvm::cast<GlobalTensorType>(queue.getType());
    if (!t.getElementType().isInteger(32) || t.getRank() != 1)
      return emitOpError("takes its queue as a one-dimensional i32 tensor, not ") << t;
    if (groups != 1 || !getInitArgs().empty() || getContinuous() ||
        (*this)->getParentOfType<PipelinedOp>())
      return emitOpError("hands its iterations out from a queue, so it runs on one group, "
                         "carries nothing and nests in no pipelined loop");
  }
  if (getContinuous()) {
    auto outer = llvm::dyn_cast<PipelinedOp>((*this)->getParentOp());
    if (!outer)
      return emitOpError("is continuous (one stream across the runs of the loop around "
                         "it), so it nests directly in a tile.pipelined");
    if (!getInitArgs().empty())
      return emitOpError("is continuous and carries values; a continuous loop carries "
                         "nothing (each group's stream crosses the outer iterations)");
  }
  return success();
}


//===----------------------------------------------------------------------===//
// Elements of shared tiles, atomics, warp-wide ops
//===----------------------------------------------------------------------===//

/// A shared access moves the tile's element type, or a vector of it within a
/// 16-byte chunk.
static LogicalResult verifySharedAccess(Operation *op, SharedType tile, Type access) {
  Type element = access;
  if (auto vec = llvm::dyn_cast<VectorType>(access)) {
    element = vec.getElementType();
    int64_t bytes = vec.getNumElements() * elementBytes(element);
    if (vec.getRank() != 1 || bytes > 16 || (bytes & (bytes - 1)))
      return op->emitOpError("vector accesses are 2, 4, 8 or 16 bytes, not ") << vec;
  }
  if (element != tile.getElementType())
    return op->emitOpError("accesses ") << access << " in " << tile
                                        << ": the element types differ";
  return success();
}

LogicalResult SharedLoadOp::verify() {
  return verifySharedAccess(*this, getTile().getType(), getResult().getType());
}

LogicalResult SharedStoreOp::verify() {
  return verifySharedAccess(*this, getTile().getType(), getValue().getType());
}

LogicalResult SharedAtomicOp::verify() {
  return verifyAtomic(*this, getKind(), getValue().getType(),
                      getTile().getType().getElementType());
}

/// Warp-wide ops need every lane of every warp: a block of whole warps.
static LogicalResult verifyWholeWarps(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (kernel && kernel.getNumThreads() % 32)
    return op->emitOpError("is warp-wide, but the block's ")
           << kernel.getNumThreads() << " threads are not whole warps of 32";
  return success();
}

LogicalResult ShuffleUpOp::verify() { return verifyWholeWarps(*this); }
LogicalResult ShuffleDownOp::verify() { return verifyWholeWarps(*this); }

LogicalResult VoteOp::verify() {
  bool wantsMask = getKind() == VoteKind::ballot;
  if (wantsMask != getResult().getType().isInteger(32))
    return emitOpError("'") << stringifyVoteKind(getKind()) << "' gives "
                            << (wantsMask ? "an i32 mask" : "an i1");
  return verifyWholeWarps(*this);
}
