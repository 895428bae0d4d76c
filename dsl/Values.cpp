//===- Values.cpp - scalar arithmetic of the DSL --------------------------===//
//
// Each operator checks its operands (kinds, widths, lanes) and records one
// arith op at the caller's line. Integer operands of different widths meet at
// the wider one; nothing converts between ints and floats implicitly.
//
//===----------------------------------------------------------------------===//
#include "dsl/KernelState.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

namespace minitile {
using detail::Access;
using detail::KernelState;

namespace detail {

DType dtypeOf(mlir::Type t) {
  t = mlir::getElementTypeOrSelf(t);
  if (t.isIndex()) return DType::index;
  if (t.isInteger(1)) return DType::i1;
  if (t.isInteger(8)) return DType::i8;
  if (t.isInteger(16)) return DType::i16;
  if (t.isInteger(32)) return DType::i32;
  if (t.isInteger(64)) return DType::i64;
  if (t.isF16()) return DType::f16;
  if (t.isBF16()) return DType::bf16;
  if (t.isF32()) return DType::f32;
  return DType::f64;
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string describe(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

void requireEveryThread(KernelState &k, const char *what, const char *why,
                        const SourceLoc &loc) {
  for (mlir::Operation *p = k.b.getInsertionBlock()->getParentOp(); p; p = p->getParentOp()) {
    auto pipelined = llvm::dyn_cast<tile::PipelinedOp>(p);
    if (llvm::isa<tile::ParallelOp>(p) || (pipelined && pipelined.getGroups() != 1))
      throw Error(loc, std::string(what) + " inside a " +
                           (pipelined ? "pipelined() loop of " +
                                            std::to_string(pipelined.getGroups()) + " groups"
                                      : std::string("parallel() loop")) +
                           ": " + why);
  }
}

KernelState &kernelFor(std::initializer_list<const Arg *> args,
                       const SourceLoc &loc) {
  for (const Arg *a : args) {
    if (Access::isConstant(*a))
      continue;
    const Value &v = Access::value(*a);
    if (!v.valid())
      throw Error(a->loc(), "an operand is an empty minitile::Value (never assigned)");
    checked(Access::kernelOf(v), a->loc());
  }
  if (!current())
    throw Error(loc, "DSL call outside a kernel being built");
  return *current();
}

mlir::Value valueOf(const Arg &a, const char *what) {
  const Value &v = Access::value(a);
  if (!v.valid())
    throw Error(a.loc(), std::string(what) +
                             ": an operand is an empty minitile::Value (never assigned)");
  checked(Access::kernelOf(v), a.loc());
  return Access::get(v);
}

mlir::Value materialize(KernelState &k, const Arg &a,
                        std::optional<mlir::Type> like, const char *what) {
  if (!Access::isConstant(a))
    return valueOf(a, what);
  mlir::OpBuilder &b = k.b;
  mlir::Location loc = k.loc(a.loc());
  mlir::Type t = like.value_or(
      Access::isBoolConstant(a) ? b.getI1Type()
      : Access::isFloatConstant(a) ? mlir::Type(b.getF32Type())
                                   : mlir::Type(b.getIndexType()));
  mlir::Type element = mlir::getElementTypeOrSelf(t);
  auto shaped = llvm::dyn_cast<mlir::ShapedType>(t);
  double c = Access::constant(a);
  mlir::TypedAttr attr;
  if (llvm::isa<mlir::FloatType>(element)) {
    if (Access::isBoolConstant(a))
      throw Error(a.loc(), std::string("a bool constant cannot be ") +
                               describe(element) + " in " + what);
    attr = b.getFloatAttr(element, c);
  } else {
    if (Access::isFloatConstant(a) && c != std::floor(c))
      throw Error(a.loc(), "constant " + std::to_string(c) + " in " + what +
                               " is not an integer, but the other operand is " +
                               describe(element));
    if (element.isInteger(1) && !Access::isBoolConstant(a) && c != 0 && c != 1)
      throw Error(a.loc(), std::string("constant ") + std::to_string(c) +
                               " in " + what + " is not a bool");
    // 2^63 as a double: the float constants int64 holds are below it.
    constexpr double kTwo63 = 9223372036854775808.0;
    if (Access::isFloatConstant(a) && !(c >= -kTwo63 && c < kTwo63))
      throw Error(a.loc(), "constant " + std::to_string(c) + " in " + what +
                               " does not fit " + describe(element));
    int64_t v = Access::isFloatConstant(a) ? static_cast<int64_t>(c)
                                           : Access::intConstant(a);
    // Narrow integers take what their bits hold, read signed or unsigned.
    unsigned width = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
    if (width < 64 && !element.isInteger(1) && !llvm::isIntN(width, v) &&
        !llvm::isUIntN(width, static_cast<uint64_t>(v)))
      throw Error(a.loc(), "constant " + std::to_string(v) + " in " + what +
                               " does not fit " + describe(element));
    attr = element.isIndex() ? mlir::TypedAttr(b.getIndexAttr(v))
                             : mlir::TypedAttr(b.getIntegerAttr(element, v));
  }
  if (shaped)
    attr = mlir::DenseElementsAttr::get(shaped, mlir::Attribute(attr));
  return mlir::arith::ConstantOp::create(b, loc, attr);
}

} // namespace detail

namespace {

/// `contract` unless the kernel turned contraction off.
mlir::arith::FastMathFlags floatFlags(const KernelState &k) {
  return k.contract ? mlir::arith::FastMathFlags::contract : mlir::arith::FastMathFlags::none;
}


enum class Kind { any, integer, boolean, number /* int or float, not bool */,
                  bits /* int or bool */ };

bool isInt(mlir::Type t) {
  t = mlir::getElementTypeOrSelf(t);
  return t.isIndex() || (t.isInteger() && !t.isInteger(1));
}
bool isBool(mlir::Type t) { return mlir::getElementTypeOrSelf(t).isInteger(1); }
bool isFloatType(mlir::Type t) {
  return llvm::isa<mlir::FloatType>(mlir::getElementTypeOrSelf(t));
}
unsigned intWidth(mlir::Type t) {
  t = mlir::getElementTypeOrSelf(t);
  return t.isIndex() ? 65 : t.getIntOrFloatBitWidth(); // index is the widest
}
int lanesOf(mlir::Type t) {
  auto vec = llvm::dyn_cast<mlir::VectorType>(t);
  return vec ? vec.getNumElements() : 1;
}

/// `element` in the container (vector or fragment) of `like`, or alone.
mlir::Type withElement(mlir::Type like, mlir::Type element) {
  if (auto shaped = llvm::dyn_cast<mlir::ShapedType>(like))
    return shaped.clone(element);
  return element;
}

/// Sign-extends integer `v` to the integer element type of `to`, keeping
/// v's own container.
mlir::Value widen(KernelState &k, mlir::Value v, mlir::Type to, mlir::Location loc) {
  to = withElement(v.getType(), mlir::getElementTypeOrSelf(to));
  if (v.getType() == to)
    return v;
  if (mlir::getElementTypeOrSelf(to).isIndex() ||
      mlir::getElementTypeOrSelf(v.getType()).isIndex())
    return mlir::arith::IndexCastOp::create(k.b, loc, to, v);
  return mlir::arith::ExtSIOp::create(k.b, loc, to, v);
}

std::string typeName(mlir::Type t) { return detail::describe(t); }

/// A scalar made into a fragment of `shape` (every element a copy).
mlir::Value toFragment(KernelState &k, mlir::Value v, llvm::ArrayRef<int64_t> shape,
                       mlir::Location loc) {
  auto type = mlir::RankedTensorType::get(shape, v.getType());
  return minitile::tile::BroadcastOp::create(k.b, loc, type, v,
                                             k.b.getDenseI64ArrayAttr({}));
}

/// Checks and converts the operands of a binary operator to one type.
std::pair<mlir::Value, mlir::Value> unify(KernelState &k, const Arg &a,
                                          const Arg &b, const char *what,
                                          Kind kind) {
  const SourceLoc &where = a.loc();
  mlir::Location loc = k.loc(where);
  mlir::Value x, y;
  if (!Access::isConstant(a))
    x = detail::valueOf(a, what);
  if (!Access::isConstant(b))
    y = detail::valueOf(b, what);
  if (!x && !y) {
    x = detail::materialize(k, a, std::nullopt, what);
    y = detail::materialize(k, b, x.getType(), what);
  } else if (!x) {
    x = detail::materialize(k, a, y.getType(), what);
  } else if (!y) {
    y = detail::materialize(k, b, x.getType(), what);
  }
  mlir::Type tx = x.getType(), ty = y.getType();
  if (lanesOf(tx) != lanesOf(ty))
    throw Error(where, std::string("operands of ") + what + " have " +
                           std::to_string(lanesOf(tx)) + " and " +
                           std::to_string(lanesOf(ty)) + " lanes");
  if (isInt(tx) && isInt(ty)) {
    if (intWidth(tx) < intWidth(ty))
      x = widen(k, x, ty, loc);
    else if (intWidth(ty) < intWidth(tx))
      y = widen(k, y, tx, loc);
  }
  // A scalar meeting a fragment is repeated over it.
  auto fx = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  auto fy = llvm::dyn_cast<mlir::RankedTensorType>(y.getType());
  if (fx && fy && fx.getShape() != fy.getShape())
    throw Error(where, std::string("operands of ") + what + " are fragments of " +
                           detail::shapeText(fx.getShape()) + " and " + detail::shapeText(fy.getShape()) +
                           ": broadcast() one to the other's shape");
  if (fx && !fy && !llvm::isa<mlir::VectorType>(y.getType()))
    y = toFragment(k, y, fx.getShape(), loc);
  if (fy && !fx && !llvm::isa<mlir::VectorType>(x.getType()))
    x = toFragment(k, x, fy.getShape(), loc);
  tx = x.getType();
  ty = y.getType();
  if (isInt(tx) && isInt(ty)) {
  } else if (tx != ty) {
    throw Error(where, std::string("operands of ") + what + " are " +
                           typeName(tx) + " and " + typeName(ty) +
                           ": convert one with minitile::cast()");
  }
  mlir::Type t = x.getType();
  bool ok = kind == Kind::any ||
            (kind == Kind::integer && isInt(t)) ||
            (kind == Kind::boolean && isBool(t)) ||
            (kind == Kind::number && !isBool(t)) ||
            (kind == Kind::bits && !isFloatType(t));
  if (!ok) {
    const char *need = kind == Kind::integer ? "integers"
                       : kind == Kind::boolean ? "bools"
                       : kind == Kind::bits    ? "integers or bools"
                                               : "numbers (not bools)";
    throw Error(where, std::string(what) + " takes " + need + ", not " +
                           typeName(t));
  }
  return {x, y};
}

using namespace mlir::arith;

/// An integer division or remainder by a constant zero is a mistake, not
/// the -1 or x the GPU code defines for a zero divisor at run time
/// (ConvertTileToLLVM.cpp): an Error at the divisor's line.
void refuseZeroDivisor(mlir::Value divisor, const char *what, const SourceLoc &loc) {
  if (mlir::matchPattern(divisor, mlir::m_Zero()))
    throw Error(loc, std::string(what) + " by a constant zero");
}

Value arith2(const Arg &a, const Arg &b, const char *what, Kind kind,
             const std::function<mlir::Value(KernelState &, mlir::Location,
                                             mlir::Value, mlir::Value, bool)> &make) {
  KernelState &k = detail::kernelFor({&a, &b}, a.loc());
  auto [x, y] = unify(k, a, b, what, kind);
  mlir::Location loc = k.loc(a.loc());
  return Access::make(&k, make(k, loc, x, y, isFloatType(x.getType())));
}

Value compare(const Arg &a, const Arg &b, const char *what, CmpIPredicate ip,
              CmpFPredicate fp) {
  return arith2(a, b, what, Kind::any,
                [&](KernelState &k, mlir::Location loc, mlir::Value x,
                    mlir::Value y, bool fl) -> mlir::Value {
                  if (fl)
                    return CmpFOp::create(k.b, loc, fp, x, y);
                  return CmpIOp::create(k.b, loc, ip, x, y);
                });
}

} // namespace

Arg::Arg(const Element &e, SourceLoc loc) : value_(Value(e)), loc_(loc) {}
Arg::Arg(const Var &v, SourceLoc loc) : value_(v.get(loc)), loc_(loc) {}

/// The MLIR value of `v`, which must be a value of the kernel being built.
static mlir::Value valueOf(const Value &v, const char *what, const SourceLoc &loc) {
  if (!v.valid())
    throw Error(loc, std::string(what) + " of an empty minitile::Value (never assigned)");
  detail::checked(Access::kernelOf(v), loc);
  return Access::get(v);
}

DType Value::dtype(SourceLoc loc) const {
  return detail::dtypeOf(valueOf(*this, "dtype()", loc).getType());
}

std::vector<int64_t> Value::shape(SourceLoc loc) const {
  if (auto t = llvm::dyn_cast<mlir::RankedTensorType>(valueOf(*this, "shape()", loc).getType()))
    return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
  return {};
}

int Value::lanes(SourceLoc loc) const {
  return lanesOf(valueOf(*this, "lanes()", loc).getType());
}

Value operator+(Arg a, Arg b) {
  return arith2(a, b, "'+'", Kind::number,
                [](KernelState &k, mlir::Location loc, mlir::Value x,
                   mlir::Value y, bool fl) -> mlir::Value {
                  if (fl)
                    return AddFOp::create(k.b, loc, x, y, floatFlags(k));
                  return AddIOp::create(k.b, loc, x, y);
                });
}

Value operator-(Arg a, Arg b) {
  return arith2(a, b, "'-'", Kind::number,
                [](KernelState &k, mlir::Location loc, mlir::Value x,
                   mlir::Value y, bool fl) -> mlir::Value {
                  if (fl)
                    return SubFOp::create(k.b, loc, x, y, floatFlags(k));
                  return SubIOp::create(k.b, loc, x, y);
                });
}

Value operator*(Arg a, Arg b) {
  return arith2(a, b, "'*'", Kind::number,
                [](KernelState &k, mlir::Location loc, mlir::Value x,
                   mlir::Value y, bool fl) -> mlir::Value {
                  if (fl)
                    return MulFOp::create(k.b, loc, x, y, floatFlags(k));
                  return MulIOp::create(k.b, loc, x, y);
                });
}

Value operator/(Arg a, Arg b) {
  return arith2(a, b, "'/'", Kind::number,
                [&b](KernelState &k, mlir::Location loc, mlir::Value x,
                     mlir::Value y, bool fl) -> mlir::Value {
                  // Under fastMath the GPU's approximate division (afn:
                  // div.approx.f32, 2 ulp; see "Math functions" in dsl.h).
                  if (fl)
                    return DivFOp::create(k.b, loc, x, y,
                                          k.fastMath ? mlir::arith::FastMathFlags::afn
                                                     : mlir::arith::FastMathFlags::none);
                  refuseZeroDivisor(y, "division", b.loc());
                  return DivSIOp::create(k.b, loc, x, y);
                });
}

Value operator%(Arg a, Arg b) {
  return arith2(a, b, "'%'", Kind::number,
                [&b](KernelState &k, mlir::Location loc, mlir::Value x,
                     mlir::Value y, bool fl) -> mlir::Value {
                  if (fl)
                    return RemFOp::create(k.b, loc, x, y);
                  refuseZeroDivisor(y, "remainder", b.loc());
                  return RemSIOp::create(k.b, loc, x, y);
                });
}

Value operator-(Arg a) {
  KernelState &k = detail::kernelFor({&a}, a.loc());
  mlir::Value x = detail::materialize(k, a, std::nullopt, "unary '-'");
  mlir::Location loc = k.loc(a.loc());
  if (isBool(x.getType()))
    throw Error(a.loc(), "unary '-' takes a number, not a bool");
  if (isFloatType(x.getType()))
    return Access::make(&k, NegFOp::create(k.b, loc, x));
  Arg zero(0, a.loc());
  return Access::make(
      &k, SubIOp::create(k.b, loc, detail::materialize(k, zero, x.getType(), "'-'"), x));
}

Value operator<(Arg a, Arg b) {
  return compare(a, b, "'<'", CmpIPredicate::slt, CmpFPredicate::OLT);
}
Value operator<=(Arg a, Arg b) {
  return compare(a, b, "'<='", CmpIPredicate::sle, CmpFPredicate::OLE);
}
Value operator>(Arg a, Arg b) {
  return compare(a, b, "'>'", CmpIPredicate::sgt, CmpFPredicate::OGT);
}
Value operator>=(Arg a, Arg b) {
  return compare(a, b, "'>='", CmpIPredicate::sge, CmpFPredicate::OGE);
}
Value operator==(Arg a, Arg b) {
  return compare(a, b, "'=='", CmpIPredicate::eq, CmpFPredicate::OEQ);
}
Value operator!=(Arg a, Arg b) {
  return compare(a, b, "'!='", CmpIPredicate::ne, CmpFPredicate::UNE);
}

Value operator&&(Arg a, Arg b) {
  return arith2(a, b, "'&&'", Kind::boolean,
                [](KernelState &k, mlir::Location loc, mlir::Value x,
                   mlir::Value y, bool) -> mlir::Value {
                  return AndIOp::create(k.b, loc, x, y);
                });
}

Value operator||(Arg a, Arg b) {
  return arith2(a, b, "'||'", Kind::boolean,
                [](KernelState &k, mlir::Location loc, mlir::Value x,
                   mlir::Value y, bool) -> mlir::Value {
                  return OrIOp::create(k.b, loc, x, y);
                });
}

Value operator!(Arg a) {
  KernelState &k = detail::kernelFor({&a}, a.loc());
  mlir::Value x = detail::materialize(k, a, k.b.getI1Type(), "'!'");
  if (!isBool(x.getType()))
    throw Error(a.loc(), "'!' takes a bool, not " + typeName(x.getType()));
  Arg one(true, a.loc());
  return Access::make(
      &k, XOrIOp::create(k.b, k.loc(a.loc()), x,
                         detail::materialize(k, one, x.getType(), "'!'")));
}

Value operator&(Arg a, Arg b) {
  return arith2(a, b, "'&'", Kind::bits,
                [](KernelState &k, mlir::Location loc, mlir::Value x, mlir::Value y,
                   bool) -> mlir::Value { return AndIOp::create(k.b, loc, x, y); });
}

Value operator|(Arg a, Arg b) {
  return arith2(a, b, "'|'", Kind::bits,
                [](KernelState &k, mlir::Location loc, mlir::Value x, mlir::Value y,
                   bool) -> mlir::Value { return OrIOp::create(k.b, loc, x, y); });
}

Value operator^(Arg a, Arg b) {
  return arith2(a, b, "'^'", Kind::bits,
                [](KernelState &k, mlir::Location loc, mlir::Value x, mlir::Value y,
                   bool) -> mlir::Value { return XOrIOp::create(k.b, loc, x, y); });
}

Value operator~(Arg a) {
  KernelState &k = detail::kernelFor({&a}, a.loc());
  mlir::Value x = detail::materialize(k, a, std::nullopt, "'~'");
  if (isFloatType(x.getType()))
    throw Error(a.loc(), "'~' takes an integer or a bool, not " + typeName(x.getType()));
  Arg ones(isBool(x.getType()) ? Arg(true, a.loc()) : Arg(-1, a.loc()));
  return Access::make(&k, XOrIOp::create(k.b, k.loc(a.loc()), x,
                                         detail::materialize(k, ones, x.getType(), "'~'")));
}

Value operator<<(Arg a, Arg b) {
  return arith2(a, b, "'<<'", Kind::integer,
                [](KernelState &k, mlir::Location loc, mlir::Value x, mlir::Value y,
                   bool) -> mlir::Value { return ShLIOp::create(k.b, loc, x, y); });
}

Value operator>>(Arg a, Arg b) {
  return arith2(a, b, "'>>'", Kind::integer,
                [](KernelState &k, mlir::Location loc, mlir::Value x, mlir::Value y,
                   bool) -> mlir::Value { return ShRSIOp::create(k.b, loc, x, y); });
}

Value min(Arg a, Arg b) {
  return arith2(a, b, "min()", Kind::number,
                [](KernelState &k, mlir::Location loc, mlir::Value x,
                   mlir::Value y, bool fl) -> mlir::Value {
                  if (fl)
                    return MinimumFOp::create(k.b, loc, x, y);
                  return MinSIOp::create(k.b, loc, x, y);
                });
}

Value max(Arg a, Arg b) {
  return arith2(a, b, "max()", Kind::number,
                [](KernelState &k, mlir::Location loc, mlir::Value x,
                   mlir::Value y, bool fl) -> mlir::Value {
                  if (fl)
                    return MaximumFOp::create(k.b, loc, x, y);
                  return MaxSIOp::create(k.b, loc, x, y);
                });
}

Value minNum(Arg a, Arg b) {
  return arith2(a, b, "minNum()", Kind::number,
                [](KernelState &k, mlir::Location loc, mlir::Value x,
                   mlir::Value y, bool fl) -> mlir::Value {
                  if (fl)
                    return MinNumFOp::create(k.b, loc, x, y);
                  return MinSIOp::create(k.b, loc, x, y);
                });
}

Value maxNum(Arg a, Arg b) {
  return arith2(a, b, "maxNum()", Kind::number,
                [](KernelState &k, mlir::Location loc, mlir::Value x,
                   mlir::Value y, bool fl) -> mlir::Value {
                  if (fl)
                    return MaxNumFOp::create(k.b, loc, x, y);
                  return MaxSIOp::create(k.b, loc, x, y);
                });
}

Value clamp(Arg v, Arg lo, Arg hi) {
  Value low = max(v, lo);
  return min(Arg(low, v.loc()), hi);
}

Value ceildiv(Arg a, Arg b) {
  return arith2(a, b, "ceildiv()", Kind::integer,
                [&b](KernelState &k, mlir::Location loc, mlir::Value x,
                     mlir::Value y, bool) -> mlir::Value {
                  refuseZeroDivisor(y, "ceildiv()", b.loc());
                  return CeilDivSIOp::create(k.b, loc, x, y);
                });
}

Value select(Arg cond, Arg ifTrue, Arg ifFalse) {
  KernelState &k = detail::kernelFor({&cond, &ifTrue, &ifFalse}, cond.loc());
  mlir::Value c = detail::materialize(k, cond, k.b.getI1Type(), "select()");
  if (!isBool(c.getType()) || lanesOf(c.getType()) != 1)
    throw Error(cond.loc(), "select() takes a bool condition, not " +
                                typeName(c.getType()));
  auto [x, y] = unify(k, ifTrue, ifFalse, "select()", Kind::any);
  mlir::Location loc = k.loc(cond.loc());
  // A fragment of conditions picks element by element.
  if (auto fc = llvm::dyn_cast<mlir::RankedTensorType>(c.getType())) {
    auto fx = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
    if (fx && fx.getShape() != fc.getShape())
      throw Error(cond.loc(), "select() of " + detail::shapeText(fx.getShape()) +
                                  " values under a " + detail::shapeText(fc.getShape()) +
                                  " condition");
    if (!fx) {
      x = toFragment(k, x, fc.getShape(), loc);
      y = toFragment(k, y, fc.getShape(), loc);
    }
  } else if (llvm::isa<mlir::RankedTensorType>(x.getType())) {
    c = toFragment(k, c, llvm::cast<mlir::RankedTensorType>(x.getType()).getShape(), loc);
  }
  return Access::make(&k, SelectOp::create(k.b, loc, c, x, y));
}

Value cast(Arg v, DType to, SourceLoc loc) {
  KernelState &k = detail::kernelFor({&v}, loc);
  mlir::Value x = detail::materialize(k, v, std::nullopt, "cast()");
  mlir::Type from = x.getType();
  mlir::Type target = withElement(from, k.type(to));
  if (isBool(from) && !isBool(target))
    throw Error(loc, "cast() of a bool to " + std::string(dtypeName(to)) +
                         ": write select(b, 1, 0) (a cast would make true -1)");
  if (isBool(target) && !isBool(from))
    throw Error(loc, "cast() of " + typeName(from) + " to i1: compare instead (v != 0)");
  mlir::Location l = k.loc(loc);
  mlir::Value r;
  if (from == target) {
    r = x;
  } else if (isFloatType(from) && isFloatType(target)) {
    if (mlir::getElementTypeOrSelf(from).getIntOrFloatBitWidth() <
        mlir::getElementTypeOrSelf(target).getIntOrFloatBitWidth())
      r = ExtFOp::create(k.b, l, target, x);
    else
      r = TruncFOp::create(k.b, l, target, x);
  } else if (isFloatType(from)) {
    mlir::Type wide = mlir::getElementTypeOrSelf(target).isIndex()
                          ? withElement(from, k.b.getI64Type()) : target;
    r = FPToSIOp::create(k.b, l, wide, x);
    if (wide != target)
      r = IndexCastOp::create(k.b, l, target, r);
  } else if (isFloatType(target)) {
    mlir::Value src = x;
    if (mlir::getElementTypeOrSelf(from).isIndex())
      src = IndexCastOp::create(k.b, l, withElement(from, k.b.getI64Type()), x);
    r = SIToFPOp::create(k.b, l, target, src);
  } else if (intWidth(from) < intWidth(target)) {
    r = widen(k, x, target, l);
  } else if (mlir::getElementTypeOrSelf(from).isIndex() ||
             mlir::getElementTypeOrSelf(target).isIndex()) {
    r = IndexCastOp::create(k.b, l, target, x);
  } else {
    r = TruncIOp::create(k.b, l, target, x);
  }
  return Access::make(&k, r);
}

Value bitcast(Arg v, DType to, SourceLoc loc) {
  KernelState &k = detail::kernelFor({&v}, loc);
  if (Access::isConstant(v))
    throw Error(loc, "bitcast() of a constant; write the constant of the type you want");
  mlir::Value x = Access::get(Access::value(v));
  mlir::Type from = x.getType();
  mlir::Type element = mlir::getElementTypeOrSelf(from);
  if (element.isIndex() || element.isInteger(1) || to == DType::index || to == DType::i1 ||
      dtypeBytes(detail::dtypeOf(element)) != dtypeBytes(to))
    throw Error(loc, "bitcast() from " + typeName(from) + " to " + dtypeName(to) +
                         ": the types must have the same width, and neither be index or i1");
  return Access::make(&k, BitcastOp::create(k.b, k.loc(loc), withElement(from, k.type(to)), x));
}

/// A bit count (math.ctpop, ctlz, cttz) of an integer.
template <typename Op>
static Value countBits(const Arg &v, const char *what, const SourceLoc &loc) {
  KernelState &k = detail::kernelFor({&v}, loc);
  mlir::Value x = detail::materialize(k, v, std::nullopt, what);
  if (!isInt(x.getType()) || mlir::getElementTypeOrSelf(x.getType()).isIndex())
    throw Error(loc, std::string(what) + " takes a sized integer (i8 .. i64), not " +
                         typeName(x.getType()));
  return Access::make(&k, Op::create(k.b, k.loc(loc), x));
}

Value popcount(Arg v, SourceLoc loc) {
  return countBits<mlir::math::CtPopOp>(v, "popcount()", loc);
}
Value countLeadingZeros(Arg v, SourceLoc loc) {
  return countBits<mlir::math::CountLeadingZerosOp>(v, "countLeadingZeros()", loc);
}
Value countTrailingZeros(Arg v, SourceLoc loc) {
  return countBits<mlir::math::CountTrailingZerosOp>(v, "countTrailingZeros()", loc);
}

Value constant(double c, DType t, SourceLoc loc) {
  KernelState &k = detail::kernelFor({}, loc);
  Arg a(c, loc);
  if (!isFloat(t) && c != std::floor(c))
    throw Error(loc, "constant " + std::to_string(c) + " is not an integer, " +
                         "but its type is " + dtypeName(t));
  return Access::make(&k, detail::materialize(k, a, k.type(t), "constant()"));
}

Value negInf(DType t, SourceLoc loc) {
  if (!isFloat(t))
    throw Error(loc, std::string("negInf() of ") + dtypeName(t) +
                         ", which is not a float type");
  return constant(-INFINITY, t, loc);
}

Value splat(Arg v, int lanes, SourceLoc loc) {
  KernelState &k = detail::kernelFor({&v}, loc);
  if (lanes < 1)
    throw Error(loc, "splat() takes a positive lane count, not " +
                         std::to_string(lanes));
  if (Access::isConstant(v)) {
    mlir::Type element = Access::isBoolConstant(v) ? k.b.getI1Type()
                         : Access::isFloatConstant(v) ? mlir::Type(k.b.getF32Type())
                                                      : mlir::Type(k.b.getIndexType());
    auto vec = mlir::VectorType::get({lanes}, element);
    return Access::make(&k, detail::materialize(k, v, vec, "splat()"));
  }
  mlir::Value x = detail::valueOf(v, "splat()");
  if (llvm::isa<mlir::ShapedType>(x.getType()))
    throw Error(loc, "splat() takes a scalar, not " + typeName(x.getType()));
  auto vec = mlir::VectorType::get({lanes}, x.getType());
  return Access::make(&k, minitile::tile::SplatOp::create(k.b, k.loc(loc), vec, x));
}

} // namespace minitile
