//===- TileDialect.cpp - the tile dialect and its types -------------------===//
#include "passes/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace minitile::tile;

#include "passes/TileDialect.cpp.inc"
#include "passes/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "passes/TileAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "passes/TileTypes.cpp.inc"

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "passes/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "passes/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "passes/TileOps.cpp.inc"
      >();
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
