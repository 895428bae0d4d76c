//===- SizeExpr.h - a tensor extent as a function of the size arguments ---===//
//
// A tensor() argument's dimensions are integer expressions of the kernel's
// size arguments and constants: `n`, `64`, `BH * qBlocks * 64`,
// `ceildiv(n, 64) * 64`. The DSL reads them from the IR it builds (and
// refuses anything else), the launcher computes them with overflow checks,
// and `minitile tune` evaluates them on each shape it times.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Value.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace minitile::tile {

class KernelOp;

/// An extent: a size argument, a constant, or one of the signed integer
/// operations the launcher computes on two extents.
struct SizeExpr {
  enum class Kind { size, constant, add, sub, mul, div, rem, ceildiv, min, max };
  Kind kind = Kind::constant;
  std::string name;              // Kind::size: the argument's name
  int64_t constant = 0;          // Kind::constant
  std::vector<SizeExpr> operands; // the operations' two operands

  static SizeExpr size(std::string name);
  static SizeExpr of(int64_t constant);
  static SizeExpr apply(Kind kind, SizeExpr lhs, SizeExpr rhs);

  /// As C++ and the DSL write it, with the parentheses it needs:
  /// "BH * qBlocks * 64", "ceildiv(n, 64) * 64", "(n + 1) * 2".
  std::string text() const;
  /// The value, given the size arguments' values; nullopt where a step
  /// overflows int64 or divides by zero (as the launcher would refuse).
  /// Division truncates toward zero; ceildiv rounds up (signed).
  std::optional<int64_t> evaluate(llvm::function_ref<int64_t(llvm::StringRef)> sizeValue) const;
  /// Whether it is a single size argument or constant.
  bool isLeaf() const { return kind == Kind::size || kind == Kind::constant; }
  bool operator==(const SizeExpr &other) const;
};

/// Reads `v`, a value of `kernel`'s body, as a SizeExpr: an entry argument
/// marked `tile.size`, an index or integer constant, or arith addi, subi,
/// muli, divsi, remsi, ceildivsi, minsi, maxsi of such. Otherwise returns
/// nullopt and, if `why` is given, sets it to what the value depends on
/// ("scalar argument 'x'", "'tile.thread_id' (at FILE:LINE)").
std::optional<SizeExpr> sizeExprOf(mlir::Value v, KernelOp kernel, std::string *why = nullptr);

} // namespace minitile::tile
