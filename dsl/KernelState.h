//===- dsl/KernelState.h - what a Kernel under construction holds --------===//
#pragma once

#include "minitile/dsl.h"
#include "dialect/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

#include <array>
#include <map>

namespace minitile::detail {

struct KernelState {
  KernelState(mlir::MLIRContext &ctx, const std::string &name, const Target &target);

  uint64_t id; // unique among all kernels built by this process
  mlir::MLIRContext *ctx;
  const Target *target;     // what the kernel is compiled for
  bool contract = true;     // float multiply-adds may fuse (fma)
  bool fastMath = false;    // math functions may be approximate (afn)
  mlir::ModuleOp module;
  tile::HostOp host;
  tile::KernelOp kernel;
  mlir::OpBuilder b;        // where device code goes next
  mlir::OpBuilder hostB;    // where host code goes next
  mlir::Operation *entryTail = nullptr; // last op of the kernel's entry prologue
  mlir::IRMapping toHostMap;
  std::map<void *, std::string> argNames; // kernel block argument -> name
  /// The launcher's values for the kernel arguments it makes itself (a work
  /// counter), which are the kernel's last, after every launcher argument.
  llvm::SmallVector<mlir::Value> hiddenArgs;
  std::optional<std::array<int, 3>> block;
  std::optional<std::array<mlir::Value, 3>> grid;
  SourceLoc gridLoc;

  mlir::Location loc(const SourceLoc &l) const;
  mlir::Type type(DType t) const;
  /// Adds a kernel (and launcher) argument.
  mlir::Value addArgument(const std::string &name, mlir::Type type,
                          const SourceLoc &l, bool isSize);
  /// Adds a kernel argument the launcher passes as `hostValue` (computed in
  /// the launcher, not a parameter of it).
  mlir::Value addHiddenArgument(const std::string &name, mlir::Value hostValue,
                                const SourceLoc &l);
  /// Runs `fn` with device code going into the kernel's entry prologue (the
  /// views of arguments and the variables), ahead of all other code.
  template <class F> auto atEntry(F &&fn) {
    mlir::OpBuilder::InsertionGuard guard(b);
    mlir::Block *entry = &kernel.getBody().front();
    if (entryTail)
      b.setInsertionPointAfter(entryTail);
    else
      b.setInsertionPointToStart(entry);
    struct Tail {
      KernelState &k;
      mlir::Block *entry;
      ~Tail() {
        auto it = k.b.getInsertionPoint();
        if (it != entry->begin())
          k.entryTail = &*std::prev(it);
      }
    } tail{*this, entry};
    return fn();
  }
  /// The host twin of a device value computed from arguments only.
  mlir::Value toHost(mlir::Value v, const SourceLoc &use, const char *what);
};

/// The DSL's friend: converts between public handles and MLIR values.
struct Access {
  static mlir::Value get(const Value &v) {
    return mlir::Value::getFromOpaquePointer(v.impl_);
  }
  static Value make(KernelState *k, mlir::Value v) {
    Value r;
    r.kernel_ = k->id;
    r.impl_ = v.getAsOpaquePointer();
    return r;
  }
  static uint64_t kernelOf(const Value &v) { return v.kernel_; }
  static bool isConstant(const Arg &a) { return a.isConstant_; }
  static bool isFloatConstant(const Arg &a) { return a.isFloatConstant_; }
  static bool isBoolConstant(const Arg &a) { return a.isBoolConstant_; }
  static double constant(const Arg &a) { return a.constant_; }
  static int64_t intConstant(const Arg &a) { return a.intConstant_; }
  static const Value &value(const Arg &a) { return a.value_; }
  static mlir::Value viewOf(const Tensor &t) {
    return mlir::Value::getFromOpaquePointer(t.view_);
  }
  static void setView(Tensor &t, mlir::Value v) { t.view_ = v.getAsOpaquePointer(); }
  static void fill(Tensor &t, KernelState *k, std::string name, DType dt,
                   Value base, Value offset, std::vector<Value> sizes,
                   std::vector<Value> strides,
                   std::vector<std::optional<int64_t>> statics) {
    t.kernel_ = k->id;
    t.name_ = std::move(name);
    t.dtype_ = dt;
    t.base_ = base;
    t.offset_ = offset;
    t.sizes_ = std::move(sizes);
    t.strides_ = std::move(strides);
    t.static_ = std::move(statics);
  }
  static uint64_t kernelOfTensor(const Tensor &t) { return t.kernel_; }
  static const Tensor *elementTensor(const Element &e) { return e.tensor_.get(); }
  static const Shared *elementShared(const Element &e) { return e.shared_.get(); }
  static const std::vector<Arg> &elementIndices(const Element &e) { return e.indices_; }
  static void *sharedImpl(const Shared &s) { return s.impl_; }
  static uint64_t kernelOfShared(const Shared &s) { return s.kernel_; }
  static void fillShared(Shared &s, KernelState *k, mlir::Value v, DType t,
                         std::vector<int64_t> shape, int swizzle) {
    s.kernel_ = k->id;
    s.impl_ = v.getAsOpaquePointer();
    s.dtype_ = t;
    s.shape_ = std::move(shape);
    s.swizzle_ = swizzle;
  }
};

/// The kernel being built on this thread (set by buildKernel).
KernelState *&current();

/// The kernel being built, if it is the one with id `kernel`; else an Error
/// at `loc` (a value or tensor kept from an earlier kernel).
KernelState &checked(uint64_t kernel, const SourceLoc &loc);

/// The kernel an operation on these operands builds into.
KernelState &kernelFor(std::initializer_list<const Arg *> args,
                       const SourceLoc &loc);

/// An Error at `loc` where the builder stands inside parallel() or a
/// pipelined() loop of several groups, whose iterations the threads share:
/// "`what` inside a parallel() loop: `why`". (A pipelined loop of one group,
/// a prefetching persistent loop say, runs every iteration on every compute
/// thread.)
void requireEveryThread(KernelState &k, const char *what, const char *why,
                        const SourceLoc &loc);

/// The value of non-constant `a`; an Error at its line when it is empty or
/// belongs to another kernel. `what` names the call ("if_()").
mlir::Value valueOf(const Arg &a, const char *what);

/// Makes `a` an MLIR value. A constant takes type `like` when given, else
/// index for integers, f32 for floats, i1 for bools.
mlir::Value materialize(KernelState &k, const Arg &a,
                        std::optional<mlir::Type> like, const char *what);

/// The shared tile's value (tile.alloc_shared).
mlir::Value sharedValue(const Shared &s);
/// Row and column of element `idx` of shared tile `s` (its outer dimensions
/// flattened onto rows), as tile.shared_load/store/atomic address it.
std::pair<mlir::Value, mlir::Value> sharedRowCol(KernelState &k, const Shared &s,
                                                 const std::vector<Arg> &idx,
                                                 const SourceLoc &loc);
/// Reads / writes element `idx` of shared tile `s`.
Value loadShared(const Shared &s, const std::vector<Arg> &idx, const SourceLoc &loc);
void storeShared(const Shared &s, const std::vector<Arg> &idx, const Arg &v,
                 const SourceLoc &loc);
/// Tensor indices (integers of any width) as index values.
llvm::SmallVector<mlir::Value> tensorIndices(KernelState &k, const std::vector<Arg> &idx);

/// The initial values of a loop's carried values (constants take the type
/// they would alone: index, f32, i1).
llvm::SmallVector<mlir::Value> carriedInits(KernelState &k, const std::vector<Arg> &init,
                                            const char *what);

/// Builds the body of `loop`, a loop carrying `inits` whose block is `block`
/// (index, then the carried values): runs `body`, checks that it returns one
/// value of each carried type, and yields them. Returns the loop's results.
/// Errors at `loc` (the loop's line); `single` for the one-value form.
std::vector<Value> buildCarriedBody(
    KernelState &k, mlir::Operation *loop, mlir::Block &block,
    const std::function<std::vector<Value>(Value, std::vector<Value>)> &body,
    const SourceLoc &loc, const char *what, bool single);

/// "[4, 64]": a shape in diagnostics.
std::string shapeText(llvm::ArrayRef<int64_t> shape);

/// DType of an MLIR scalar (or vector element) type.
DType dtypeOf(mlir::Type t);
std::string describe(mlir::Type t);

} // namespace minitile::detail
