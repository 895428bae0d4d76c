//===- SizeExpr.cpp - a tensor extent as a function of the size arguments -===//
#include "dialect/SizeExpr.h"
#include "dialect/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>

namespace minitile::tile {

using Kind = SizeExpr::Kind;

SizeExpr SizeExpr::size(std::string name) {
  SizeExpr e;
  e.kind = Kind::size;
  e.name = std::move(name);
  return e;
}

SizeExpr SizeExpr::of(int64_t constant) {
  SizeExpr e;
  e.constant = constant;
  return e;
}

SizeExpr SizeExpr::apply(Kind kind, SizeExpr lhs, SizeExpr rhs) {
  SizeExpr e;
  e.kind = kind;
  e.operands.push_back(std::move(lhs));
  e.operands.push_back(std::move(rhs));
  return e;
}

bool SizeExpr::operator==(const SizeExpr &other) const {
  return kind == other.kind && name == other.name && constant == other.constant &&
         operands == other.operands;
}

namespace {

/// Binding strength of an infix operation (0: a call or a leaf).
int precedence(Kind k) {
  switch (k) {
  case Kind::add:
  case Kind::sub:
    return 1;
  case Kind::mul:
  case Kind::div:
  case Kind::rem:
    return 2;
  default:
    return 0;
  }
}

const char *symbol(Kind k) {
  switch (k) {
  case Kind::add: return " + ";
  case Kind::sub: return " - ";
  case Kind::mul: return " * ";
  case Kind::div: return " / ";
  case Kind::rem: return " % ";
  case Kind::ceildiv: return "ceildiv";
  case Kind::min: return "min";
  case Kind::max: return "max";
  default: return "";
  }
}

} // namespace

std::string SizeExpr::text() const {
  if (kind == Kind::size)
    return name;
  if (kind == Kind::constant)
    return std::to_string(constant);
  const SizeExpr &l = operands[0], &r = operands[1];
  int p = precedence(kind);
  if (!p)
    return std::string(symbol(kind)) + "(" + l.text() + ", " + r.text() + ")";
  // Left-associative: the left operand needs parentheses when it binds
  // less tightly, the right one also when it binds as tightly (a - (b + c),
  // a / (b * c)), except for + and * after + and * (associative).
  auto wrap = [&](const SizeExpr &e, bool right) {
    int q = precedence(e.kind);
    bool parens = q && (q < p || (right && q == p &&
                                  !((kind == Kind::add && e.kind == Kind::add) ||
                                    (kind == Kind::mul && e.kind == Kind::mul))));
    return parens ? "(" + e.text() + ")" : e.text();
  };
  return wrap(l, false) + symbol(kind) + wrap(r, true);
}

std::optional<int64_t>
SizeExpr::evaluate(llvm::function_ref<int64_t(llvm::StringRef)> sizeValue) const {
  if (kind == Kind::size)
    return sizeValue(name);
  if (kind == Kind::constant)
    return constant;
  std::optional<int64_t> l = operands[0].evaluate(sizeValue);
  std::optional<int64_t> r = operands[1].evaluate(sizeValue);
  if (!l || !r)
    return std::nullopt;
  int64_t a = *l, b = *r, v = 0;
  const bool divides = kind == Kind::div || kind == Kind::rem || kind == Kind::ceildiv;
  if (divides && (b == 0 || (a == INT64_MIN && b == -1)))
    return std::nullopt;
  switch (kind) {
  case Kind::add:
    if (__builtin_add_overflow(a, b, &v))
      return std::nullopt;
    return v;
  case Kind::sub:
    if (__builtin_sub_overflow(a, b, &v))
      return std::nullopt;
    return v;
  case Kind::mul:
    if (__builtin_mul_overflow(a, b, &v))
      return std::nullopt;
    return v;
  case Kind::div: return a / b;
  case Kind::rem: return a % b;
  case Kind::ceildiv: return a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
  case Kind::min: return std::min(a, b);
  case Kind::max: return std::max(a, b);
  default: return std::nullopt;
  }
}

namespace {

std::string where(mlir::Location loc) {
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc))
    return file.getFilename().str() + ":" + std::to_string(file.getLine());
  return "an unknown place";
}

} // namespace

std::optional<SizeExpr> sizeExprOf(mlir::Value v, KernelOp kernel, std::string *why) {
  auto fail = [&](std::string what) -> std::optional<SizeExpr> {
    if (why)
      *why = std::move(what);
    return std::nullopt;
  };
  if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
    if (arg.getOwner() != &kernel.getBody().front())
      return fail("a loop variable");
    // The argument attributes as they stand: the DSL sets the kernel's
    // function type only once every argument is made (getArgAttr checks the
    // index against it), the attributes as each argument comes.
    unsigned i = arg.getArgNumber();
    mlir::ArrayAttr all = kernel.getArgAttrsAttr();
    auto attrs = all && i < all.size() ? llvm::dyn_cast<mlir::DictionaryAttr>(all[i])
                                       : mlir::DictionaryAttr();
    auto nameAttr = attrs ? attrs.getAs<mlir::StringAttr>("tile.name") : mlir::StringAttr();
    llvm::StringRef name = nameAttr ? nameAttr.getValue() : llvm::StringRef();
    if (!attrs || !attrs.get("tile.size"))
      return fail(name.empty() ? std::string("an argument that is not a size")
                               : "scalar argument '" + name.str() + "'");
    return SizeExpr::size(name.str());
  }
  mlir::Operation *op = v.getDefiningOp();
  if (!v.getType().isIndex())
    return fail("a value of type " + [&] {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << v.getType();
      return s;
    }() + " ('" + op->getName().getStringRef().str() + "' at " + where(op->getLoc()) + ")");
  if (auto c = llvm::dyn_cast<mlir::arith::ConstantIndexOp>(op))
    return SizeExpr::of(c.value());
  std::optional<Kind> kind =
      llvm::TypeSwitch<mlir::Operation *, std::optional<Kind>>(op)
          .Case([](mlir::arith::AddIOp) { return Kind::add; })
          .Case([](mlir::arith::SubIOp) { return Kind::sub; })
          .Case([](mlir::arith::MulIOp) { return Kind::mul; })
          .Case([](mlir::arith::DivSIOp) { return Kind::div; })
          .Case([](mlir::arith::RemSIOp) { return Kind::rem; })
          .Case([](mlir::arith::CeilDivSIOp) { return Kind::ceildiv; })
          .Case([](mlir::arith::MinSIOp) { return Kind::min; })
          .Case([](mlir::arith::MaxSIOp) { return Kind::max; })
          .Default([](mlir::Operation *) { return std::nullopt; });
  if (!kind)
    return fail("'" + op->getName().getStringRef().str() + "' (at " + where(op->getLoc()) + ")");
  std::optional<SizeExpr> l = sizeExprOf(op->getOperand(0), kernel, why);
  if (!l)
    return std::nullopt;
  std::optional<SizeExpr> r = sizeExprOf(op->getOperand(1), kernel, why);
  if (!r)
    return std::nullopt;
  return SizeExpr::apply(*kind, std::move(*l), std::move(*r));
}

} // namespace minitile::tile
