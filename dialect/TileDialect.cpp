//===- TileDialect.cpp - the tile dialect and its types -------------------===//
#include "dialect/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace minitile::tile;

#include "dialect/TileDialect.cpp.inc"
#include "dialect/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/TileAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/TileTypes.cpp.inc"

namespace {
/// Prints layouts once at the top of a module as #frag, #frag1, ...
struct TileAsmInterface : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (llvm::isa<FragLayoutAttr>(attr)) {
      os << "frag";
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileAsmInterface>();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialect/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialect/TileOps.cpp.inc"
      >();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  // Set by tile-lower-copies on the mbarrier initialisation it emits once.
  if (attr.getName() == "tile.barrier_init")
    return success();
  // A gathered copy's rows by cp.async (passes/TmaCopies.h, kCpAsyncAttr).
  if (attr.getName() == kCpAsyncAttr) {
    auto copy = llvm::dyn_cast<CopyOp>(op);
    if (!copy || !copy.isGather() || !llvm::isa<UnitAttr>(attr.getValue()))
      return op->emitError("'tile.cp_async' is a unit attribute of a gathered tile.copy");
    return success();
  }
  // Warpgroups taking turns at their gemms (passes/PingPong.cpp, kPingPongAttr).
  if (attr.getName() == kPingPongAttr) {
    auto pipelined = llvm::dyn_cast<PipelinedOp>(op);
    if (!llvm::isa<UnitAttr>(attr.getValue()) ||
        !(llvm::isa<ForOp>(op) || (pipelined && pipelined.getGroups() == 1)))
      return op->emitError("'tile.ping_pong' is a unit attribute of a tile.pipelined of one "
                           "group or a tile.for");
    return success();
  }
  if (attr.getName() != kTargetAttrName)
    return op->emitError("unknown tile attribute '") << attr.getName().getValue()
                                                      << "' on an operation";
  auto arch = llvm::dyn_cast<StringAttr>(attr.getValue());
  if (!llvm::isa<ModuleOp>(op))
    return op->emitError("'") << kTargetAttrName << "' belongs on a module";
  if (!arch || !minitile::Target::get(arch.str()))
    return op->emitError("'") << kTargetAttrName << "' names an architecture ("
                              << minitile::Target::supportedList() << "), not "
                              << attr.getValue();
  return success();
}

const minitile::Target &minitile::tile::targetOf(Operation *op) {
  for (Operation *at = op; at; at = at->getParentOp())
    if (auto arch = at->getAttrOfType<StringAttr>(kTargetAttrName))
      if (const minitile::Target *t = minitile::Target::get(arch.str()))
        return *t;
  return minitile::Target::defaultTarget();
}

//===----------------------------------------------------------------------===//
// GlobalTensorType: !tile.tensor<?x64xf32>
//===----------------------------------------------------------------------===//

Type GlobalTensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type element;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(element) || parser.parseGreater())
    return {};
  return GlobalTensorType::getChecked(
      [&] { return parser.emitError(parser.getNameLoc()); },
      parser.getContext(), shape, element);
}

void GlobalTensorType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << (ShapedType::isDynamic(d) ? "?" : std::to_string(d)) << "x";
  printer << getElementType() << ">";
}

LogicalResult GlobalTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "a tile tensor has rank 1 or more";
  for (int64_t d : shape)
    if (!ShapedType::isDynamic(d) && d < 0)
      return emitError() << "tile tensor dimension " << d << " is negative";
  if (!elementType.isIntOrIndexOrFloat())
    return emitError() << "tile tensor elements are integers or floats, not "
                       << elementType;
  return success();
}

unsigned GlobalTensorType::getNumDynamicDims() const {
  return llvm::count_if(getShape(), ShapedType::isDynamic);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

LogicalResult minitile::tile::verifyInKernel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("is device code: it must be inside a tile.kernel");
  return success();
}

int64_t minitile::tile::elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

int64_t minitile::tile::maxSharedTileBytes() {
  static const int64_t bytes = [] {
    int64_t most = 0;
    for (const std::string &arch : minitile::Target::supported())
      most = std::max(most, minitile::Target::get(arch)->sharedMemoryPerBlock);
    return most;
  }();
  return bytes;
}

int64_t minitile::tile::maxFragmentElements() {
  static const int64_t elements = [] {
    int64_t most = 0;
    for (const std::string &arch : minitile::Target::supported())
      most = std::max(most, minitile::Target::get(arch)->registersPerSM);
    return most;
  }();
  return elements;
}

std::optional<int64_t> minitile::tile::checkedProduct(ArrayRef<int64_t> values) {
  int64_t n = 1;
  for (int64_t v : values)
    if (__builtin_mul_overflow(n, v, &n))
      return std::nullopt;
  return n;
}

std::string minitile::tile::whyNotFragment(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return "a fragment is a ranked tensor";
  if (tensor.getRank() == 0)
    return "a fragment has at least one dimension";
  for (int64_t d : tensor.getShape())
    if (ShapedType::isDynamic(d) || d < 1 || (d & (d - 1)))
      return "fragment extents are static powers of two";
  std::optional<int64_t> n = checkedProduct(tensor.getShape());
  if (!n || *n > maxFragmentElements())
    return "a fragment has at most " + std::to_string(maxFragmentElements()) +
           " elements (a block's registers)";
  if (!tensor.getElementType().isIntOrIndexOrFloat())
    return "fragments hold integers or floats";
  return "";
}

bool minitile::tile::isFragmentType(Type type) { return whyNotFragment(type).empty(); }

//===----------------------------------------------------------------------===//
// SharedType: !tile.shared<64x128xbf16, swizzle = 128>
//===----------------------------------------------------------------------===//

Type SharedType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type element;
  int64_t swizzle = 0;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(element))
    return {};
  if (succeeded(parser.parseOptionalComma()))
    if (parser.parseKeyword("swizzle") || parser.parseEqual() ||
        parser.parseInteger(swizzle))
      return {};
  if (parser.parseGreater())
    return {};
  return SharedType::getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                                parser.getContext(), shape, element, swizzle);
}

void SharedType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType();
  if (getSwizzle())
    printer << ", swizzle = " << getSwizzle();
  printer << ">";
}

LogicalResult SharedType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType,
                                 int64_t swizzle) {
  if (shape.empty())
    return emitError() << "a shared tile has rank 1 or more";
  for (int64_t d : shape)
    if (d <= 0)
      return emitError() << "shared tile dimensions are positive, not " << d;
  if (!elementType.isIntOrFloat())
    return emitError() << "shared tiles hold integers or floats, not " << elementType;
  std::optional<int64_t> elements = checkedProduct(shape);
  if (!elements || *elements > maxSharedTileBytes() / elementBytes(elementType))
    return emitError() << "a shared tile holds at most " << maxSharedTileBytes()
                       << " bytes (a block's shared memory)";
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "swizzle is 0, 32, 64 or 128 bytes, not " << swizzle;
  if (swizzle) {
    int64_t rowBytes = shape.back() * elementBytes(elementType);
    if (rowBytes % swizzle)
      return emitError() << "a " << swizzle << "-byte swizzle needs rows of a multiple of "
                         << swizzle << " bytes; these have " << rowBytes;
    int64_t rows = 1;
    for (int64_t d : shape.drop_back())
      rows *= d;
    if (rows % 8)
      return emitError() << "a swizzled tile has a multiple of 8 rows, not " << rows;
  }
  return success();
}

int64_t SharedType::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}

int64_t SharedType::getBytes() const {
  return getNumElements() * elementBytes(getElementType());
}

int64_t SharedType::getPanelWidth() const {
  return getSwizzle() ? getSwizzle() / elementBytes(getElementType())
                      : getShape().back();
}

int64_t SharedType::byteOffset(int64_t row, int64_t col) const {
  int64_t e = elementBytes(getElementType());
  int64_t rows = getNumElements() / getShape().back();
  if (!getSwizzle())
    return (row * getShape().back() + col) * e;
  int64_t width = getPanelWidth();
  int64_t panel = col / width, inPanel = (col % width) * e;
  int64_t chunks = getSwizzle() / 16;
  int64_t chunk = (inPanel / 16) ^ (row % chunks);
  return panel * rows * getSwizzle() + row * getSwizzle() + chunk * 16 + inPanel % 16;
}

//===----------------------------------------------------------------------===//
// FragLayoutAttr: #tile.frag<reg = [[..], ..], lane = [..], warp = [..]>
//===----------------------------------------------------------------------===//

static ParseResult parseBases(AsmParser &parser, StringRef key, unsigned &rank,
                              SmallVectorImpl<int64_t> &flat) {
  if (parser.parseKeyword(key) || parser.parseEqual() || parser.parseLSquare())
    return failure();
  if (succeeded(parser.parseOptionalRSquare()))
    return success();
  do {
    SmallVector<int64_t> vec;
    if (parser.parseLSquare() ||
        parser.parseCommaSeparatedList([&] {
          int64_t v;
          if (parser.parseInteger(v))
            return failure();
          vec.push_back(v);
          return success();
        }) ||
        parser.parseRSquare())
      return failure();
    if (rank == 0)
      rank = vec.size();
    if (vec.size() != rank)
      return parser.emitError(parser.getCurrentLocation(),
                              "every basis vector has the same rank");
    flat.append(vec);
  } while (succeeded(parser.parseOptionalComma()));
  return parser.parseRSquare();
}

Attribute FragLayoutAttr::parse(AsmParser &parser, Type) {
  unsigned rank = 0;
  SmallVector<int64_t> reg, lane, warp;
  if (parser.parseLess() || parseBases(parser, "reg", rank, reg) ||
      parser.parseComma() || parseBases(parser, "lane", rank, lane) ||
      parser.parseComma() || parseBases(parser, "warp", rank, warp) ||
      parser.parseGreater())
    return {};
  return FragLayoutAttr::getChecked(
      [&] { return parser.emitError(parser.getNameLoc()); }, parser.getContext(),
      rank, reg, lane, warp);
}

static void printBases(AsmPrinter &printer, StringRef key, unsigned rank,
                       ArrayRef<int64_t> flat) {
  printer << key << " = [";
  for (size_t i = 0; i < flat.size(); i += rank) {
    printer << (i ? ", [" : "[");
    llvm::interleaveComma(flat.slice(i, rank), printer);
    printer << "]";
  }
  printer << "]";
}

void FragLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBases(printer, "reg", getRank(), getReg());
  printer << ", ";
  printBases(printer, "lane", getRank(), getLane());
  printer << ", ";
  printBases(printer, "warp", getRank(), getWarp());
  printer << ">";
}

LogicalResult FragLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                     unsigned rank, ArrayRef<int64_t> reg,
                                     ArrayRef<int64_t> lane, ArrayRef<int64_t> warp) {
  if (rank == 0)
    return emitError() << "a fragment layout has rank 1 or more";
  if (reg.size() % rank || lane.size() % rank || warp.size() % rank)
    return emitError() << "basis vectors have " << rank << " entries";
  if (lane.size() != 5 * rank)
    return emitError() << "a fragment layout has 5 lane vectors (32 lanes), not "
                       << lane.size() / rank;
  for (ArrayRef<int64_t> all : {reg, lane, warp})
    for (size_t i = 0; i < all.size(); i += rank) {
      int nonzero = 0;
      for (int64_t v : all.slice(i, rank)) {
        if (v < 0 || (v & (v - 1)))
          return emitError() << "basis entries are 0 or powers of two, not " << v;
        nonzero += v != 0;
      }
      if (nonzero > 1)
        return emitError() << "a basis vector moves along one dimension at most";
    }
  return success();
}

SmallVector<int64_t> FragLayoutAttr::coordinate(int64_t reg, int64_t lane,
                                                int64_t warp) const {
  SmallVector<int64_t> c(getRank(), 0);
  auto add = [&](ArrayRef<int64_t> bases, int64_t index) {
    for (unsigned bit = 0; bit * getRank() < bases.size(); ++bit)
      if (index >> bit & 1)
        for (unsigned d = 0; d < getRank(); ++d)
          c[d] ^= bases[bit * getRank() + d];
  };
  add(getReg(), reg);
  add(getLane(), lane);
  add(getWarp(), warp);
  return c;
}
