//===- HopperDialect.h - the hopper dialect: Hopper's machine operations --===//
#pragma once

#include "dialect/TileDialect.h"
#include "minitile/target.h"

#include <optional>

#include "dialect/HopperDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialect/HopperTypes.h.inc"

#define GET_OP_CLASSES
#include "dialect/HopperOps.h.inc"

namespace minitile::hopper {

/// The target feature `op` needs, if it is a hopper op.
std::optional<Feature> requiredFeature(mlir::Operation *op);

} // namespace minitile::hopper
