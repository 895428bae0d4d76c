//===- ParserGuard.h - refuse text that crashes MLIR 22's parser ----------===//
//
// Upstream MLIR 22's attribute parser dereferences a null FloatType on a
// dense array of `index` (`array<index: 1>`, or `array<!t: 1>` after
// `!t = index`): any op's attribute, a tile.kernel's included, takes the
// process down with SIGSEGV. So does nesting a few thousand brackets deep
// (the parser recurses for each). Until the library is fixed, text that
// reaches the parser is scanned first: such arrays, and brackets nested
// deeper than 256 levels, are a one-line error instead.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace minitile {

struct ParserHazard {
  size_t offset;       // where in the text
  std::string message; // what is wrong with it
};

/// The first construct in `text` that MLIR 22's parser crashes on, if any.
/// `//` comments and string literals are skipped.
std::optional<ParserHazard> findParserHazard(llvm::StringRef text);

} // namespace minitile
