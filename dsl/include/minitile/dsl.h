//===- minitile/dsl.h - the minitile kernel language, embedded in C++ -----===//
//
// A kernel is a C++ function that builds tile IR through this API. This
// example is compiled and run by the tests (tests/dsl/HeaderExampleTest.cpp):
//
// BEGIN EXAMPLE
//   #include "minitile/dsl.h"
//   using namespace minitile;
//
//   struct Scale : Generator {
//     Param<int> threads{"threads", 256, 32, 1024, "threads per block"};
//     void generate(Kernel &k) override {
//       Value n = k.size("n");
//       Tensor x = k.tensor("x", DType::f32, {n});
//       k.threads(threads);
//       k.grid(ceildiv(n, threads));
//       Value i = k.blockId() * threads + k.threadId();
//       k.if_(i < n, [&] { x(i) = x(i) * 2.0; });
//     }
//   };
//   MINITILE_KERNEL(Scale, "scale", "doubles every element");
//
//   // Loops carry values: the body gets the previous ones and returns the next.
//   struct RowSums : Generator {
//     void generate(Kernel &k) override {
//       Value rows = k.size("rows"), cols = k.size("cols");
//       Tensor x = k.tensor("x", DType::f32, {rows, cols});
//       Tensor sums = k.tensor("sums", DType::f32, {rows});
//       k.threads(128);
//       k.grid(ceildiv(rows, 128));
//       Value r = k.blockId() * 128 + k.threadId();
//       k.if_(r < rows, [&] {
//         sums(r) = k.serial(0, cols, 0.0, [&](Value c, Value sum) { return sum + x(r, c); });
//       });
//     }
//   };
//   MINITILE_KERNEL(RowSums, "row_sums", "the sum of each row");
// END EXAMPLE
//
// Every call records the caller's file and line; misuse throws
// minitile::Error naming them. No MLIR header is needed to write kernels.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <source_location>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "minitile/target.h"

namespace minitile {

using SourceLoc = std::source_location;

/// A mistake in a kernel program, found while it is built. `what()` reads
/// "file:line: error: message".
class Error : public std::runtime_error {
public:
  Error(const SourceLoc &loc, const std::string &message);
  Error(const std::string &file, unsigned line, const std::string &message);
  const std::string &file() const { return file_; }
  unsigned line() const { return line_; }
  const std::string &message() const { return message_; }

private:
  std::string file_;
  unsigned line_;
  std::string message_;
};

enum class DType { i1, i8, i16, i32, i64, index, f16, bf16, f32, f64 };

/// "f32", "index", ...
const char *dtypeName(DType t);
/// Bytes per element (index counts as 8, i1 as 1).
int dtypeBytes(DType t);
bool isFloat(DType t);

namespace detail {
struct KernelState;
struct Access;
} // namespace detail

class Value;
class Tensor;
class Shared;
class Element;
class Var;
template <class T> class Param;

/// A value computed in a kernel: a scalar (index, integer, float or bool), a
/// short vector, or a fragment -- a tile of registers spread over the threads
/// that run it. Arithmetic on values records IR; it computes nothing in C++.
/// Operators apply element by element to fragments, repeating scalars.
class Value {
public:
  Value() = default;
  /// An empty value (default-constructed, never assigned) has none of these:
  /// asking throws minitile::Error at the caller's line.
  DType dtype(SourceLoc loc = SourceLoc::current()) const;
  /// 1 for scalars, N for a vector of N lanes.
  int lanes(SourceLoc loc = SourceLoc::current()) const;
  /// The shape of a fragment; empty for scalars and vectors.
  std::vector<int64_t> shape(SourceLoc loc = SourceLoc::current()) const;
  bool isFragment(SourceLoc loc = SourceLoc::current()) const {
    return !shape(loc).empty();
  }
  bool valid() const { return impl_ != nullptr; }

private:
  friend struct detail::Access;
  uint64_t kernel_ = 0;  // the id of the kernel being built that made it
  void *impl_ = nullptr; // an mlir::Value
};

/// An operand: a Value, a tensor element, or a C++ constant, with the place
/// in the caller's source it appears. Constants take the type of the value
/// they meet (integers are index and floats f32 when nothing decides).
class Arg {
public:
  Arg(Value v, SourceLoc loc = SourceLoc::current()) : value_(v), loc_(loc) {}
  Arg(const Element &e, SourceLoc loc = SourceLoc::current());
  Arg(const Var &v, SourceLoc loc = SourceLoc::current());
  /// A generator parameter's value, as a constant.
  template <class T>
  Arg(const Param<T> &p, SourceLoc loc = SourceLoc::current()) : Arg(p.get(), loc) {}
  template <class T>
    requires std::is_arithmetic_v<T>
  Arg(T c, SourceLoc loc = SourceLoc::current())
      : isConstant_(true), isFloatConstant_(std::is_floating_point_v<T>),
        isBoolConstant_(std::is_same_v<T, bool>),
        constant_(static_cast<double>(c)),
        intConstant_(std::is_floating_point_v<T> ? 0 : static_cast<int64_t>(c)),
        loc_(loc) {}

  const SourceLoc &loc() const { return loc_; }

private:
  friend struct detail::Access;
  Value value_;
  bool isConstant_ = false, isFloatConstant_ = false, isBoolConstant_ = false;
  double constant_ = 0;
  int64_t intConstant_ = 0;
  SourceLoc loc_;
};

// Arithmetic. Integers of different widths meet at the wider one (i32 and
// index give index); ints never mix with floats silently.
Value operator+(Arg a, Arg b);
Value operator-(Arg a, Arg b);
Value operator*(Arg a, Arg b);
/// Integer division truncates toward zero, as in C++, and is defined for
/// every divisor on the GPU (docs/MATH.md): x / 0 is -1 and x % 0 is x;
/// MIN / -1 is MIN and MIN % -1 is 0 (ceildiv() likewise gives -1 for a
/// zero divisor). A divisor that is a constant zero is an Error at the
/// call's line. In a launcher's size arithmetic a zero divisor throws.
Value operator/(Arg a, Arg b);
Value operator%(Arg a, Arg b);
Value operator-(Arg a);
Value operator<(Arg a, Arg b);
Value operator<=(Arg a, Arg b);
Value operator>(Arg a, Arg b);
Value operator>=(Arg a, Arg b);
Value operator==(Arg a, Arg b);
Value operator!=(Arg a, Arg b);
/// Logical and/or/not on bools; both sides are always evaluated.
Value operator&&(Arg a, Arg b);
Value operator||(Arg a, Arg b);
Value operator!(Arg a);

// Bits of integers (and bools, for & | ^ ~). Integers are signed: `>>`
// sign-extends, as in C++; mask the result to read an unsigned field.
Value operator&(Arg a, Arg b);
Value operator|(Arg a, Arg b);
Value operator^(Arg a, Arg b);
Value operator~(Arg a);
/// `a` shifted by `b` bits, 0 <= b < a's width (else the result is undefined).
Value operator<<(Arg a, Arg b);
Value operator>>(Arg a, Arg b);

/// The smaller / larger of `a` and `b` (scalars or fragments). For floats
/// these are IEEE 754-2019 minimum / maximum: NaN if either operand is NaN
/// (a NaN is never dropped: relu of NaN is NaN), and -0.0 orders below +0.0
/// (max(-0.0, +0.0) is +0.0). They lower to one PTX min.NaN / max.NaN
/// (FMNMX), not a compare and select. For integers, signed order.
Value min(Arg a, Arg b);
Value max(Arg a, Arg b);
/// IEEE 754-2008 minNum / maxNum: like min / max, except that a NaN
/// operand is dropped -- the result is the other operand (NaN only if both
/// are NaN): maxNum(x, -inf) is x with NaN made -inf. Either zero may come
/// out of -0.0 and +0.0. One PTX min.f32 / max.f32 (FMNMX). For integers,
/// the same as min / max.
Value minNum(Arg a, Arg b);
Value maxNum(Arg a, Arg b);
/// min(max(v, lo), hi).
Value clamp(Arg v, Arg lo, Arg hi);
/// ceil(a / b) for integers, b > 0.
Value ceildiv(Arg a, Arg b);
Value select(Arg cond, Arg ifTrue, Arg ifFalse);
/// Converts between integer and float types (integers sign-extend; floats
/// to integers truncate toward zero) and between float types (to a
/// narrower one rounding to nearest even: f32 -> bf16 or f16). Scalars,
/// vectors and fragments alike. Not to or from bool: write `v != 0` or
/// `select(b, 1, 0)`.
Value cast(Arg v, DType to, SourceLoc loc = SourceLoc::current());
/// The bits of `v` as another type of the same width: f32 <-> i32,
/// f64 <-> i64, f16 / bf16 <-> i16.
Value bitcast(Arg v, DType to, SourceLoc loc = SourceLoc::current());
/// The number of set bits of an integer, of its leading (most significant)
/// zero bits, of its trailing zero bits; the width of the type for 0. The
/// result has the type of `v`.
Value popcount(Arg v, SourceLoc loc = SourceLoc::current());
Value countLeadingZeros(Arg v, SourceLoc loc = SourceLoc::current());
Value countTrailingZeros(Arg v, SourceLoc loc = SourceLoc::current());
/// A constant of an explicit type.
Value constant(double c, DType t, SourceLoc loc = SourceLoc::current());
/// A vector of `lanes` copies of `v`.
Value splat(Arg v, int lanes, SourceLoc loc = SourceLoc::current());
/// -infinity of a float type.
Value negInf(DType t = DType::f32, SourceLoc loc = SourceLoc::current());

/// One element of a tensor or of a shared tile: reading it loads, assigning
/// to it stores; the atomic functions (atomicAdd, ...) update it in place.
class Element {
public:
  operator Value() const;
  const Element &operator=(Arg v) const;
  /// Copies another element; its line is where `e` was indexed.
  const Element &operator=(const Element &e) const { return *this = Arg(e, e.loc_); }

private:
  friend class Tensor;
  friend class Shared;
  friend class Arg;
  friend struct detail::Access;
  Element(const Tensor &t, std::vector<Arg> idx, SourceLoc loc);
  Element(const Shared &s, std::vector<Arg> idx, SourceLoc loc);
  std::shared_ptr<const Tensor> tensor_; // one of the two is set
  std::shared_ptr<const Shared> shared_;
  std::vector<Arg> indices_;
  SourceLoc loc_;
};

/// A strided view of a global-memory tensor argument. Sizes are runtime
/// values; the innermost dimension is contiguous.
class Tensor {
public:
  const std::string &name() const { return name_; }
  DType dtype() const { return dtype_; }
  int rank() const { return static_cast<int>(sizes_.size()); }
  /// Size of dimension `d` (a runtime value).
  Value size(int d, SourceLoc loc = SourceLoc::current()) const;
  /// Static size of dimension `d`, if known when the kernel is built.
  std::optional<int64_t> staticSize(int d) const;

  Element operator()(Arg i0) const;
  Element operator()(Arg i0, Arg i1) const;
  Element operator()(Arg i0, Arg i1, Arg i2) const;
  Element operator()(Arg i0, Arg i1, Arg i2, Arg i3) const;

  /// Loads `lanes` consecutive innermost elements starting at `idx`; their
  /// address must be aligned to lanes * element size.
  Value load(std::vector<Arg> idx, int lanes = 1,
             SourceLoc loc = SourceLoc::current()) const;
  /// Stores `v` (a scalar, or a vector of consecutive innermost elements)
  /// at `idx`. A vector's address must be aligned to its size.
  void store(std::vector<Arg> idx, Arg v,
             SourceLoc loc = SourceLoc::current()) const;
  /// Elements from `idx` to the next address that is a multiple of `bytes`.
  Value elementsToAligned(std::vector<Arg> idx, int bytes,
                          SourceLoc loc = SourceLoc::current()) const;

  /// The view one rank lower with dimension `dim` fixed at `i`.
  Tensor slice(int dim, Arg i, SourceLoc loc = SourceLoc::current()) const;
  /// `slice(0, i)`: row i of a matrix, matrix i of a batch.
  Tensor operator[](Arg i) const { return slice(0, i, i.loc()); }

private:
  friend class Kernel;
  friend struct detail::Access;
  uint64_t kernel_ = 0;
  std::string name_;
  DType dtype_ = DType::f32;
  Value base_;                // the pointer argument
  Value offset_;              // elements from base_ to the origin
  std::vector<Value> sizes_;  // every dimension
  std::vector<Value> strides_; // every dimension (innermost is 1)
  std::vector<std::optional<int64_t>> static_;
  void *view_ = nullptr;       // the tile.view op, created on first access
};

/// A mutable per-thread variable.
class Var {
public:
  Var() = default;
  Var(const Var &) = default;
  Value get(SourceLoc loc = SourceLoc::current()) const;
  operator Value() const { return get(); }
  void set(Arg v) const;
  const Var &operator=(Arg v) const {
    set(v);
    return *this;
  }
  const Var &operator=(const Var &v) const { return *this = Arg(v.get()); }

private:
  friend class Kernel;
  uint64_t kernel_ = 0;
  void *local_ = nullptr;
  DType dtype_ = DType::index;
};

/// A tile of shared memory with a static shape, seen by every thread of the
/// block. Its elements can be read, written and updated atomically one by
/// one (`hist(b) = 0`, `atomicAdd(hist(b), 1)`); a barrier (Kernel::barrier)
/// orders the threads' accesses.
class Shared {
public:
  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  /// Bytes of the swizzle pattern the tile is stored in (0: row-major).
  int swizzle() const { return swizzle_; }

  /// Element (i0, ...): one index per dimension.
  Element operator()(Arg i0) const;
  Element operator()(Arg i0, Arg i1) const;
  Element operator()(Arg i0, Arg i1, Arg i2) const;
  Element operator()(Arg i0, Arg i1, Arg i2, Arg i3) const;

private:
  friend class Kernel;
  friend struct detail::Access;
  uint64_t kernel_ = 0;
  void *impl_ = nullptr; // an mlir::Value
  DType dtype_ = DType::bf16;
  std::vector<int64_t> shape_;
  int swizzle_ = 0;
};

/// How a pipelined loop (Kernel::pipelined) runs.
struct PipelinedOptions {
  /// Iterations in flight: each has its own copies of the body's shared tiles.
  int stages = 3;
  /// The compute warps form this many groups; iterations alternate between
  /// them, each running its iterations' fragment code on its own warps.
  /// `stages` must be a multiple of it.
  int groups = 1;
  /// Where each group runs two or more stages in turn: the group starts its
  /// next iteration's gemm before the code after this iteration's, which
  /// then runs while the tensor cores work. Two gemm results are live at
  /// once: ask for it where the registers hold both (two groups of 64 x 128
  /// f32, say). A body of several gemms (one for each part of N, each read
  /// by its own code) overlaps part by part: each gemm starts before the
  /// code of the gemm before it (of the previous iteration, for the first),
  /// so one part's gemm runs under the next part's code with the registers
  /// of one iteration's gemms.
  bool overlap = false;
  /// Inside a prefetching persistent() loop (or a pipelined() loop of one
  /// group), as the last thing its body does: each group's iterations of
  /// this item and the next form one stream, so with `overlap` the group's
  /// gemms run on from one item into the next instead of draining at each
  /// item's end, and the groups take the items' iterations in turn as if
  /// they were one loop. The values the body reads from the item's code
  /// before the loop (its tiles, weights loaded from them, say) switch
  /// where a group's iterations cross into the next item. Needs `overlap`
  /// and two to four stages a group. (The indexer on an H200, 2026-12-04,
  /// minitile-bench indexer: 4-9 % faster than the per-item loop with one
  /// compute group, 12-20 % slower with two.)
  bool continuous = false;
  /// Every group runs every iteration, each its share of the body, rather
  /// than the groups taking the iterations in turn: the body's gemms (a
  /// multiple of `groups`, at its top level) are dealt out in order -- with
  /// two groups and two gemms, the first to group 0, the second to group 1
  /// -- and each group runs the code that reads its gemms' results. Each
  /// stage is read by every group (one copy feeds them all), so `stages`
  /// need not be a multiple of `groups`; with `overlap` each group starts
  /// its gemm of the next iteration before its code of this one. For a
  /// tile too wide for one group's registers: a gemm of each half of N,
  /// one a group, as in CUTLASS's cooperative kernels. Code that writes
  /// memory must read a gemm's result (it runs on that gemm's group).
  bool cooperative = false;
  /// In a loop of one group, the compute warpgroups take turns at issuing
  /// their gemms: each issues its gemms of one turn -- gemms with no wait
  /// between them for one another; where the body has two such runs, its
  /// last and the next iteration's first -- then hands the turn to the
  /// next warpgroup, so that one's code between its gemms (a softmax) runs
  /// while the tensor cores work on another's gemms, as
  /// FlashAttention-3's ping-pong schedule does.
  /// Needs two or more compute warpgroups and `groups` = 1; the body's
  /// gemms at its top level, and no barrier in it. (tile-ping-pong.)
  bool pingPong = false;
};

/// The order in which a persistent kernel's blocks take their work items.
enum class WorkOrder {
  /// Items 0, 1, 2, ...: block b takes b, b + grid, b + 2 grid, ...
  linear,
  /// The last item first: where items grow with their index (causal
  /// windows), the longest start first and the short ones fill the tail.
  lastFirst,
  /// The last item first, every second round of the grid reversed: block b
  /// takes the b-th longest item of the first round, the b-th shortest of
  /// the second, and so on, so that where items grow with their index each
  /// block's total is near the mean (with lastFirst, block 0 takes the
  /// longest item of every round). Fewer than 2^31 items.
  zigzag,
};

/// How a persistent kernel (Kernel::persistent) is laid out.
struct PersistentOptions {
  /// Blocks one multiprocessor holds at once: the grid is at most this many
  /// times the device's multiprocessors.
  int blocksPerSM = 1;
  WorkOrder order = WorkOrder::linear;
  /// The item loop is pipelined: the body's copies into shared tiles it
  /// allocates (at the top level of the body, as in pipelined()) run on the
  /// producer one item ahead, into two buffers, so the compute threads start
  /// the next item without waiting for them and without a barrier between
  /// items. The body then runs on all compute threads like a pipelined loop
  /// of one group, and may hold pipelined loops of its own.
  bool prefetch = false;
  /// With `prefetch`: buffers of each tile the body allocates, 2 or more.
  /// With 3 the producer fetches item i + 1's tiles before it starts item
  /// i's nested pipelined loops (one buffer stays with the item the compute
  /// threads are finishing), so an item's tiles -- its bounds, say -- have
  /// landed when its nested loops' copies begin; with 2 it fetches them
  /// only once item i - 1's nested copies are all out. More shared memory,
  /// fewer gaps between short items.
  int itemBuffers = 2;
  /// The items are handed out at run time: each block takes its first item
  /// by its index, and each next one when it is ready for it (with
  /// `prefetch`, when its producer has a buffer for it), from a counter all
  /// blocks share, in `order` (linear or lastFirst: the longest first, so
  /// the short ones even out the ends). No block then waits at the end for
  /// another that drew longer items or ran slower. The launcher passes the
  /// counter (the runtime's workCounter(stream), one a stream): launches
  /// on one stream share it in turn, each leaving it zero.
  bool dynamic = false;
};

/// Which threads a parallel loop spreads over: the whole block, or each row
/// of it (the threads sharing threadId(1) and threadId(2)), which then runs
/// its own loop with its own bounds.
enum class Across { block, x };

/// Builds one kernel. A Generator's generate() receives it.
class Kernel {
public:
  explicit Kernel(detail::KernelState *state);

  /// A non-negative size argument (int64_t in the launcher).
  Value size(const std::string &name, SourceLoc loc = SourceLoc::current());
  /// A scalar argument of type `t`.
  Value scalar(const std::string &name, DType t,
               SourceLoc loc = SourceLoc::current());
  /// A global-memory tensor argument, row-major with the given sizes: each an
  /// integer expression of size() arguments and C++ constants (+, -, *, /,
  /// %, ceildiv, min, max: `bh * ceildiv(S, 64) * 64`); a size that depends
  /// on a scalar argument or on the device is refused (make such a tensor
  /// with view()). The launcher takes a device pointer for it, computes each
  /// size with overflow checks and throws if one is negative.
  Tensor tensor(const std::string &name, DType t, std::vector<Arg> shape,
                SourceLoc loc = SourceLoc::current());
  /// A strided view of `base`'s memory: element (i0, i1, ...) lives at
  /// offset + sum(i_d * strides[d]); the last stride must be 1.
  Tensor view(const Tensor &base, Arg offset, std::vector<Arg> shape,
              std::vector<Arg> strides, SourceLoc loc = SourceLoc::current());

  /// Threads per block.
  void threads(int x, int y = 1, int z = 1, SourceLoc loc = SourceLoc::current());
  /// Asks that `blocks` blocks fit on one multiprocessor at once: each
  /// thread's registers are capped so that they do (ptxas spills what does
  /// not fit; a gemm whose accumulator does not fit is refused at its line),
  /// and a warp-specialised kernel's warpgroups share their block's part of
  /// the register file. Shared memory is not planned for it. After threads().
  void minBlocksPerSM(int blocks, SourceLoc loc = SourceLoc::current());
  /// The registers each producer warp keeps once a pipelined loop's loads
  /// move to a warpgroup of their own (24 to 64, a multiple of 8; 40 if
  /// not set): the compute threads get what that leaves of the block's.
  /// Less gives them more, if the producer's code fits (ptxas spills it
  /// otherwise; -v says).
  void producerRegisters(int registers, SourceLoc loc = SourceLoc::current());
  /// Blocks in the grid: values computed from size and scalar arguments.
  void grid(Arg x, Arg y = 1, Arg z = 1);
  /// A persistent kernel: min(items, blocksPerSM x the device's
  /// multiprocessors) blocks (the launcher reads the count at each launch),
  /// each running body(item) for its share of the items [0, items), items
  /// being a function of the size and scalar arguments. Sets the grid, so
  /// grid() is not called too. A pipelined loop in the body keeps its ring
  /// of stages from one item to the next: the producer starts on the next
  /// item's copies while the compute threads finish this one's. Shared
  /// tiles the body writes outside such a loop need a barrier() before they
  /// are written again -- or, with `prefetch`, are allocated in the body and
  /// filled by copy(): the producer then fetches them an item ahead.
  void persistent(Arg items, const std::function<void(Value)> &body,
                  PersistentOptions options = {});
  /// The launcher throws `message` unless `cond` (a function of the
  /// arguments) holds.
  void require(Arg cond, const std::string &message);

  Value threadId(int dim = 0, SourceLoc loc = SourceLoc::current());
  Value blockId(int dim = 0, SourceLoc loc = SourceLoc::current());
  Value gridDim(int dim = 0, SourceLoc loc = SourceLoc::current());
  /// Threads per block along `dim`, as set by threads().
  int blockDim(int dim = 0, SourceLoc loc = SourceLoc::current()) const;

  /// for (i = lo; i < hi; i += step) body(i), in every thread.
  void serial(Arg lo, Arg hi, const std::function<void(Value)> &body,
              Arg step = 1);
  /// A serial loop that carries a value from one iteration to the next:
  /// `body(i, v)` gets the value of the previous iteration (`init` in the
  /// first) and returns the next one; serial() returns the value after the
  /// last iteration (`init` when the loop runs none). Scalars and fragments
  /// alike; the body returns what `init` is (same dtype, same shape), and
  /// a fragment stays in registers from iteration to iteration:
  ///
  ///   Value sum = k.serial(0, n, 0.0, [&](Value i, Value s) { return s + x(i); });
  Value serial(Arg lo, Arg hi, Arg init, const std::function<Value(Value, Value)> &body,
               Arg step = 1);
  /// The same with several carried values: `body(i, {v0, v1, ...})`
  /// returns as many, in the same order, each of its initial value's type.
  ///
  ///   std::vector<Value> r = k.serial(0, n, {0.0, negInf()},
  ///       [&](Value i, std::vector<Value> c) -> std::vector<Value> {
  ///         return {c[0] + x(i), max(c[1], x(i))};
  ///       });
  ///   Value sum = r[0], largest = r[1];
  std::vector<Value> serial(
      Arg lo, Arg hi, std::vector<Arg> init,
      const std::function<std::vector<Value>(Value, std::vector<Value>)> &body,
      Arg step = 1);
  /// The iterations of [lo, hi) by step, spread over the block's threads
  /// (or over each row's, with Across::x). Every thread they spread over
  /// must reach it.
  void parallel(Arg lo, Arg hi, const std::function<void(Value)> &body,
                Arg step = 1, Across across = Across::block);
  /// Runs `then` where `cond` holds, else `otherwise` (if given).
  void if_(Arg cond, const std::function<void()> &then,
           const std::function<void()> &otherwise = {});
  /// The value `then` gives where `cond` holds, else the one `otherwise`
  /// gives (of the same type: a scalar or a fragment); only the branch
  /// taken runs. Work only some iterations need -- a mask at the edge
  /// of a loop's range, say -- costs the others nothing:
  ///
  ///   s = k.ifElse(j == last, [&] { return select(valid, s, negInf()); },
  ///                [&] { return s; });
  Value ifElse(Arg cond, const std::function<Value()> &then,
               const std::function<Value()> &otherwise);
  /// Runs `body` as long as `cond()`, evaluated before each iteration,
  /// gives true. Values carry from one iteration to the next through
  /// variables (var()) and shared tiles. Where the body holds a barrier or
  /// a warp-wide function, the condition must agree in all the threads that
  /// meet them.
  void while_(const std::function<Value()> &cond, const std::function<void()> &body,
              SourceLoc loc = SourceLoc::current());
  /// Waits until every thread of the block has reached it: shared-memory
  /// writes before it are seen by reads after it. Every thread of the block
  /// must reach it, so not inside parallel() or a pipelined() loop of more
  /// than one group, nor where the threads' branches or trip counts differ.
  void barrier(SourceLoc loc = SourceLoc::current());
  /// A loop over [lo, hi) by 1 whose body starts by copying global boxes
  /// into shared tiles it allocates; the copies of later iterations run
  /// ahead of the computation of earlier ones (`tile-warp-specialize`).
  void pipelined(Arg lo, Arg hi, const std::function<void(Value)> &body,
                 PipelinedOptions options = {});
  /// A pipelined loop carrying a value, as serial() carries one: a gemm's
  /// accumulator, say, which stays in registers for the whole loop while
  /// each iteration's gemm runs on as the next iteration starts (at most one
  /// left running; the value after the loop waits for the last):
  ///
  ///   Value c = k.pipelined(0, ceildiv(K, 64), broadcast(0.0, {128, 128}),
  ///       [&](Value kt, Value acc) {
  ///         Shared a = k.shared(DType::bf16, {128, 64}), b = k.shared(DType::bf16, {128, 64});
  ///         copy(A, {m0, kt * 64}, a);
  ///         copy(B, {n0, kt * 64}, b);
  ///         return gemm(a, b, /*transposeB=*/true, acc);
  ///       }, {.stages = 4});
  ///
  /// Loops that carry values run on one group (`options.groups` = 1).
  Value pipelined(Arg lo, Arg hi, Arg init, const std::function<Value(Value, Value)> &body,
                  PipelinedOptions options = {});
  /// The same with several carried values (see serial()).
  std::vector<Value> pipelined(
      Arg lo, Arg hi, std::vector<Arg> init,
      const std::function<std::vector<Value>(Value, std::vector<Value>)> &body,
      PipelinedOptions options = {});

  /// A shared-memory tile. Its rows are stored with a 128-byte swizzle when
  /// they span a multiple of 128 bytes and there are a multiple of 8 of
  /// them (what copies by the tensor-memory accelerator and gemm want).
  Shared shared(DType t, std::vector<int64_t> shape,
                SourceLoc loc = SourceLoc::current());

  /// A per-thread variable holding `init`.
  Var var(Arg init, SourceLoc loc = SourceLoc::current());
  Var var(DType t, Arg init, SourceLoc loc = SourceLoc::current());

  /// Whether a float multiplication feeding an addition (or a reduceSum) may
  /// fuse into one fma, rounding once instead of twice. On by default (as
  /// with nvcc and TileLang): `a * b + c` is one fma.rn.f32 (FFMA), and
  /// reduceSum(x * w, axis) accumulates acc = fma(x, w, acc) in place.
  /// Results then differ from separate rounding by at most the rounding of
  /// the product. contractFloats(false) keeps every multiplication and
  /// addition separately rounded (mul.rn / add.rn, which ptxas does not fuse
  /// either): bit-for-bit what a host computing in float gets. Applies to
  /// the operations built after the call: call it first in generate() for
  /// the whole kernel.
  void contractFloats(bool on, SourceLoc loc = SourceLoc::current());

  /// Whether the math functions (exp, log, sqrt, tanh, ...; see "Math
  /// functions" below) of f32, f16 and bf16 may be the GPU's fast
  /// approximations instead of the precise ones. Off by default. Like
  /// contractFloats(), applies to the functions built after the call.
  void fastMath(bool on, SourceLoc loc = SourceLoc::current());

  /// What the kernel is being compiled for (`minitile compile --arch`): its
  /// shared memory, registers and features.
  const Target &target() const;

private:
  detail::KernelState *state_;
  uint64_t id_;
};

//===----------------------------------------------------------------------===//
// Computing: free functions. Kernel members declare (arguments, launch
// geometry, tiles, variables, loops); free functions compute and move data.
//===----------------------------------------------------------------------===//

/// Writes `value` to t[lo, hi) of a rank-1 tensor with the block's threads
/// (or, with Across::x, with the threads of one block row): 16-byte vector
/// stores where alignment allows, single elements at the unaligned ends;
/// each part, and the whole, skipped where it is empty. Every thread it
/// spreads over must reach it.
void fill(const Tensor &t, Arg lo, Arg hi, Arg value, Across across = Across::block,
          SourceLoc loc = SourceLoc::current());

/// Writes constant `value` to t[lo, hi) of a rank-1 tensor, asynchronously:
/// one thread starts the writes -- bulk copies of a shared tile of `value`
/// over the 16-byte aligned run, single stores at the ends -- and the block
/// goes on. In a kernel with a producer warpgroup (pipelined loops fed by
/// the TMA) the producer issues it, so the compute threads spend nothing on
/// it. Done when the kernel ends; the block must not read or write t[lo, hi)
/// itself. Every thread of the block reaches it (not in parallel() or a
/// pipelined() loop of several groups). Without the TMA (before sm_90) it is
/// fill().
void fillAsync(const Tensor &t, Arg lo, Arg hi, Arg value,
               SourceLoc loc = SourceLoc::current());
/// The shared memory fillAsync() takes, once per kernel and value: a tile of
/// the value that its bulk copies read (count it where a kernel sizes its
/// tiles to what shared memory holds).
constexpr int64_t kFillAsyncSharedBytes = 2048;

/// Copies the box of `src` at `origin` with extents `box` (default: the
/// tile's shape) into `dst`; the box's outer extents flatten onto the tile's
/// rows. Elements outside `src` read as zero. The data is there before `dst`
/// is next used.
void copy(const Tensor &src, std::vector<Arg> origin, const Shared &dst,
          std::vector<int64_t> box = {}, SourceLoc loc = SourceLoc::current());
/// Copies rows of `src` (rank 2) chosen by the i32 tensor `rows` into the
/// tile `dst`: tile row r is row origin[0] + rows[rowsOrigin[0], ...,
/// rowsOrigin[-1] + r] of `src`, its columns from origin[1] on. A row whose
/// index is negative, or lies past the end of `rows`' innermost dimension,
/// reads as zeros, as does one outside `src`. Asynchronous like copy(): in
/// a pipelined() loop the producer issues it, on the TMA one box per row.
/// Sparse attention and the indexer's backward gather the kv rows a top-k
/// selected this way: gather(kv, {0, 0}, idx, {s, j0}, kvTile).
///
/// `by` picks how a pipelined loop's producer moves the rows: GatherBy::tma,
/// one TMA box a row (per 128-byte panel of a swizzled tile) from one
/// thread, or GatherBy::cpAsync, 16-byte cp.async pieces from every lane of
/// the producer warp, 32 at a time (the copies of a loop that holds or is
/// inside another pipelined loop, or a queue's, take the TMA; elsewhere,
/// outside a pipelined loop, the copy is the TMA's either way).
enum class GatherBy { tma, cpAsync };
void gather(const Tensor &src, std::vector<Arg> origin, const Tensor &rows,
            std::vector<Arg> rowsOrigin, const Shared &dst, GatherBy by = GatherBy::tma,
            SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Atomics: on one element of a tensor (global memory) or a shared tile
//===----------------------------------------------------------------------===//

/// Replaces element `e` with e + v (max(e, v), min(e, v), e & v, e | v,
/// e ^ v, v) in one indivisible step and returns the value it held. Integers
/// of 32 and 64 bits take every one; f32 takes add and exchange. Relaxed:
/// atomic against the other atomics on `e`, ordered against plain loads and
/// stores only by a barrier (or the end of the kernel).
Value atomicAdd(const Element &e, Arg v, SourceLoc loc = SourceLoc::current());
Value atomicMax(const Element &e, Arg v, SourceLoc loc = SourceLoc::current());
Value atomicMin(const Element &e, Arg v, SourceLoc loc = SourceLoc::current());
Value atomicAnd(const Element &e, Arg v, SourceLoc loc = SourceLoc::current());
Value atomicOr(const Element &e, Arg v, SourceLoc loc = SourceLoc::current());
Value atomicXor(const Element &e, Arg v, SourceLoc loc = SourceLoc::current());
Value atomicExchange(const Element &e, Arg v, SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Warp-wide functions: the 32 lanes of a warp (threads 32w .. 32w + 31 of
// the block, counted x first) exchange values. Every lane of the warp must
// call them together -- not where the lanes' branches or trip counts differ
// -- and the block must be whole warps.
//===----------------------------------------------------------------------===//

/// An i32 whose bit l is lane l's `pred`.
Value warpBallot(Arg pred, SourceLoc loc = SourceLoc::current());
/// Whether `pred` holds in some lane / in every lane of the warp.
Value warpAny(Arg pred, SourceLoc loc = SourceLoc::current());
Value warpAll(Arg pred, SourceLoc loc = SourceLoc::current());
/// `v` (i32 or f32) as held by lane `lane` (taken mod 32).
Value warpShuffle(Arg v, Arg lane, SourceLoc loc = SourceLoc::current());
/// `v` as held by lane (this lane - delta); lanes below `delta` get their own.
Value warpShuffleUp(Arg v, Arg delta, SourceLoc loc = SourceLoc::current());
/// `v` as held by lane (this lane + delta); lanes past 31 - delta get their own.
Value warpShuffleDown(Arg v, Arg delta, SourceLoc loc = SourceLoc::current());
/// `v` as held by lane (this lane ^ mask), 0 <= mask < 32.
Value warpShuffleXor(Arg v, int mask, SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Math functions: element by element on float scalars and fragments (f16,
// bf16, f32, f64; f16 and bf16 are computed in f32 and rounded back). An
// integer must be cast() first.
//
// Precise (the default): sqrt is correctly rounded; exp, exp2, rsqrt and
// tanh are within 2 ulp, log and log2 within 1 ulp (CUDA's libdevice, which
// the compiler links). With Kernel::fastMath(true), f32, f16 and bf16 use
// the GPU's approximations, a few instructions each; subnormal inputs and
// results become zero. The bounds CUDA documents for the same instructions:
//   exp2   ex2.approx.ftz             2 ulp
//   exp    ex2.approx.ftz(x log2 e)   2 + 1.173 |x| ulp (the product's rounding)
//   log2   lg2.approx.ftz             absolute error 2^-22 in [0.5, 2], else 2 ulp
//   log    lg2.approx.ftz(x) ln 2     absolute error 2^-21.4 in [0.5, 2], else 3 ulp
//   sqrt   sqrt.approx.ftz            rsqrt  rsqrt.approx.ftz: 2 ulp
//   tanh   tanh.approx.f32            relative error 2^-10.99 (bf16-grade)
// Measured on the H200 against fp64, four exceed those by a little: exp2
// 2.06 ulp (both paths), fast log 3.21, fast log2 2.19; the GPU test holds
// them at 2.1, 3.3 and 2.25. docs/MATH.md has every measured figure.
//===----------------------------------------------------------------------===//

Value exp(Arg x, SourceLoc loc = SourceLoc::current());
/// 2^x.
Value exp2(Arg x, SourceLoc loc = SourceLoc::current());
/// The natural logarithm: -inf at 0, NaN below.
Value log(Arg x, SourceLoc loc = SourceLoc::current());
Value log2(Arg x, SourceLoc loc = SourceLoc::current());
Value sqrt(Arg x, SourceLoc loc = SourceLoc::current());
/// 1 / sqrt(x).
Value rsqrt(Arg x, SourceLoc loc = SourceLoc::current());
Value tanh(Arg x, SourceLoc loc = SourceLoc::current());
/// |x| of a float or an integer (of the integer minimum, itself), exact;
/// vectors too.
Value abs(Arg x, SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

/// A x B (+ acc) for shared tiles A [M, K] and B: an f32 fragment [M, N].
/// B is stored [N, K] with transposeB = true (C = A . B^T: keys against
/// queries), or [K, N] with transposeB = false (C = A . B: attention's
/// P . V, V stored [keys, D]). On sm_90a it runs on the tensor cores
/// (wgmma), each warpgroup of the executing warps taking 64 rows; a B stored
/// [K, N] is read N-major (the wgmma transposes it), so its N is a multiple
/// of 64 (rows of 128 bytes, for the 128-byte swizzle).
Value gemm(const Shared &a, const Shared &b, bool transposeB = false,
           Value acc = Value(), SourceLoc loc = SourceLoc::current());
/// The same with A a fragment [M, K] of bf16 in registers (the wgmma's
/// register operand): attention's P . V with P = cast(S, DType::bf16) of
/// the scores an earlier gemm computed, never stored. A gemm's result (cast
/// to bf16) is already in the layout the wgmma reads A in; a fragment of
/// another layout is moved into it first (through shared memory where its
/// elements change warps). K is a multiple of 16; B as above.
Value gemm(const Value &a, const Shared &b, bool transposeB = false, Value acc = Value(),
           SourceLoc loc = SourceLoc::current());
/// The box of `t` at `origin` with extents `shape`, as a fragment; elements
/// outside `t` read as `padding`.
Value loadTile(const Tensor &t, std::vector<Arg> origin, std::vector<int64_t> shape,
               double padding = 0, SourceLoc loc = SourceLoc::current());
/// The box of shared tile `s` at `origin` with extents `shape`, as a
/// fragment; elements outside the tile read as `padding`. It holds what the
/// block stored before its last barrier, or what a copy() into `s` brought.
Value loadTile(const Shared &s, std::vector<Arg> origin, std::vector<int64_t> shape,
               double padding = 0, SourceLoc loc = SourceLoc::current());
/// Writes fragment `v` to the box of `t` at `origin`; elements outside `t`,
/// and where the i1 fragment `mask` (if given) is false, are not written.
void storeTile(const Tensor &t, std::vector<Arg> origin, Arg v, Value mask = Value(),
               SourceLoc loc = SourceLoc::current());
/// Adds fragment `v` (f32) into the box of `t` at `origin`, each element in
/// one indivisible step (red.global.add, two or four elements an
/// instruction where a thread holds them side by side; where each warp
/// holds whole rows, as of a gemm's result, the rows go through a scratch
/// tile of the warp's so that an instruction's lanes add 16 bytes each of
/// a row side by side, whole 128-byte lines): partial sums that
/// many blocks add into one tensor. Elements outside `t`, and where `mask`
/// is false, are left alone. Relaxed, as the atomics are: the sums are
/// whole when the kernel ends.
void addTile(const Tensor &t, std::vector<Arg> origin, Arg v, Value mask = Value(),
             SourceLoc loc = SourceLoc::current());
/// The same into rows of `t` (rank 2) that the i32 tensor `rows` picks, as
/// gather() reads them: fragment row r adds into row origin[0] +
/// rows[rowsOrigin[0], ..., rowsOrigin[-1] + r], its columns from origin[1]
/// on. A row whose index is negative or lies past the end of `rows`'
/// innermost dimension (or outside `t`) is left alone; rows named twice get
/// both additions. The indexer's backward adds each query's dkv this way.
void addRows(const Tensor &t, std::vector<Arg> origin, const Tensor &rows,
             std::vector<Arg> rowsOrigin, Arg v, SourceLoc loc = SourceLoc::current());
/// Writes fragment `v` to the box of shared tile `s` at `origin`, in the
/// tile's layout (its swizzle: what a gemm reading the tile, or a copy,
/// expects); elements outside the tile are not written. Every thread holding
/// `v` calls it (not under an if that only some take). The compiler puts
/// the barrier after the stores (so the tile is whole for the next gemm or
/// loadTile()), one before them where the tile may have been read before,
/// and the proxy fence a gemm reading the tile needs.
void storeTile(const Shared &s, std::vector<Arg> origin, Arg v,
               SourceLoc loc = SourceLoc::current());
/// Fragment `v` with another shape (same elements, row-major order).
Value reshape(Arg v, std::vector<int64_t> shape, SourceLoc loc = SourceLoc::current());
/// Result dimension i is dimension perm[i] of `v`.
Value transpose(Arg v, std::vector<int64_t> perm, SourceLoc loc = SourceLoc::current());
/// `v` (a scalar or fragment) repeated into `shape`: its dimension i becomes
/// dimension dims[i] of the result.
Value broadcast(Arg v, std::vector<int64_t> shape, std::vector<int64_t> dims = {},
                SourceLoc loc = SourceLoc::current());
/// Sum, max or min of fragment `v` along `axis` (the result drops it).
Value reduceSum(Arg v, int axis, SourceLoc loc = SourceLoc::current());
Value reduceMax(Arg v, int axis, SourceLoc loc = SourceLoc::current());
Value reduceMin(Arg v, int axis, SourceLoc loc = SourceLoc::current());
/// A fragment of `shape` whose elements are their index along `axis`.
Value iota(std::vector<int64_t> shape, int axis, DType t = DType::i32,
           SourceLoc loc = SourceLoc::current());

//===----------------------------------------------------------------------===//
// Generators: registered kernel programs with named parameters
//===----------------------------------------------------------------------===//

class Generator;

class ParamBase {
public:
  /// Throws Error at `loc` unless `name` is a name (letters, digits and '_',
  /// not starting with a digit: what -p, --space and tune tables can write)
  /// that no other Param of the generator has, and the Param is a member of
  /// a Generator.
  ParamBase(const std::string &name, const std::string &help, const SourceLoc &loc);
  virtual ~ParamBase() = default;
  const std::string &name() const { return name_; }
  const std::string &help() const { return help_; }
  /// Sets the value from text; returns an error message, or "" on success.
  virtual std::string set(const std::string &text) = 0;
  virtual std::string value() const = 0;
  /// The accepted values, e.g. "1..1024" or "8|16|32".
  virtual std::string domain() const = 0;

private:
  std::string name_, help_;
};

/// A generator parameter: an int (with a range or a set of choices) or a bool.
/// A declaration whose default is outside its range or choices, or whose
/// range or choices are empty, throws Error at its line when the generator
/// is made (GCC names the line of the generator's `struct`, where its
/// implicit constructor is; clang the Param's).
template <class T> class Param : public ParamBase {
  static_assert(std::is_same_v<T, int> || std::is_same_v<T, bool>,
                "Param<T> takes int or bool");

public:
  /// A bool, or an int taking values in [1, 2^30].
  Param(const std::string &name, T def, const std::string &help = "",
        SourceLoc loc = SourceLoc::current())
      : ParamBase(name, help, loc), value_(def) {
    validate(loc);
  }
  /// An int taking values in [lo, hi].
  Param(const std::string &name, T def, T lo, T hi, const std::string &help,
        SourceLoc loc = SourceLoc::current())
    requires std::is_same_v<T, int>
      : ParamBase(name, help, loc), value_(def), lo_(lo), hi_(hi) {
    validate(loc);
  }
  /// An int taking one of `choices`.
  Param(const std::string &name, T def, std::initializer_list<T> choices,
        const std::string &help, SourceLoc loc = SourceLoc::current())
    requires std::is_same_v<T, int>
      : ParamBase(name, help, loc), value_(def), choices_(choices) {
    if (choices_.empty())
      throw Error(loc, "Param '" + name + "': its choices {} are empty");
    validate(loc);
  }

  operator T() const { return value_; }
  T get() const { return value_; }
  std::string set(const std::string &text) override;
  std::string value() const override;
  std::string domain() const override;

private:
  void validate(const SourceLoc &loc) const;

  T value_;
  T lo_ = T(1), hi_ = T(std::is_same_v<T, int> ? (1 << 30) : 1);
  std::vector<T> choices_;
};
template <> void Param<int>::validate(const SourceLoc &loc) const;
template <> void Param<bool>::validate(const SourceLoc &loc) const;

class Generator {
public:
  Generator();
  virtual ~Generator();
  Generator(const Generator &) = delete;
  Generator &operator=(const Generator &) = delete;

  /// Builds the kernel's IR through `k`.
  virtual void generate(Kernel &k) = 0;
  const std::vector<ParamBase *> &params() const { return params_; }
  ParamBase *param(const std::string &name) const;

private:
  friend class ParamBase;
  std::vector<ParamBase *> params_;
};

struct GeneratorInfo {
  std::string name;
  std::string summary;
  std::string file; // the generator's source file
  std::function<std::unique_ptr<Generator>()> create;
  unsigned line = 0; // the line of its MINITILE_KERNEL
};

/// A table of tuned parameter values (minitile tune's format) shipped with
/// a generator: `minitile compile` and minitile_add_kernel_library use it
/// when no table is named (--untuned: the plain defaults). Launchers pick a
/// kernel's tables by the device they run on (minitile::rt::deviceTable).
struct TunedTableInfo {
  std::string kernel; // the kernel its lines are for
  std::string device; // the device it was measured on, as its name holds it ("H100")
  std::string name;   // its file's name, for messages ("indexer_fwd.h100.txt")
  std::string text;
  /// The table for devices no table of the kernel names (one a kernel).
  bool fallback = false;
};

/// Every generator linked into the program, by name.
class Registry {
public:
  static Registry &global();
  /// Registers `info`. A second generator of the same name, or one whose
  /// name cannot name a launcher (isCppIdentifier), is not added but
  /// remembered: registration runs during static initialisation, where
  /// throwing would abort the program before main() could say why.
  void add(GeneratorInfo info);
  const GeneratorInfo *find(const std::string &name) const;
  const std::vector<GeneratorInfo> &all() const { return generators_; }
  /// Registers a shipped table (MINITILE_TUNED_TABLE).
  void addTunedTable(TunedTableInfo table);
  /// The tables shipped for `kernel`, the fallback first, then by device.
  std::vector<const TunedTableInfo *> tunedTables(const std::string &kernel) const;
  /// "" when every name is unique and a C++ name; else one line naming the
  /// first that is not (and the files registering it, or its
  /// MINITILE_KERNEL's file and line). Tools check it at start-up.
  std::string problems() const;

private:
  std::vector<GeneratorInfo> generators_;
  std::vector<GeneratorInfo> refused_;
  std::vector<TunedTableInfo> tuned_;
};

/// "" if `name` can name a launcher, one of its arguments or a part of its
/// namespace: a C++ identifier, not a keyword, not reserved to the
/// implementation ('_' and a capital, '__'), and not a macro of the headers
/// a launcher includes (NULL, errno, CUDA_VERSION, ...); else why not ("is
/// not a C++ identifier (or is a keyword)", ...).
std::string cppNameProblem(const std::string &name);
/// cppNameProblem(name).empty().
bool isCppIdentifier(const std::string &name);

template <class G> struct Registration {
  Registration(const char *name, const char *summary, const char *file, unsigned line = 0) {
    Registry::global().add(
        {name, summary, file, [] { return std::unique_ptr<Generator>(new G()); }, line});
  }
};

struct TunedTableRegistration {
  TunedTableRegistration(const char *kernel, const char *device, const char *name,
                         bool fallback, const char *text) {
    Registry::global().addTunedTable({kernel, device, name, text, fallback});
  }
};

} // namespace minitile

/// Ships a tuned table with kernel `kernel` (a string), measured on `device`
/// ("H100"); `id` names the registration. minitile_embed_tuned_tables() in
/// CMake writes these from table files.
#define MINITILE_TUNED_TABLE(id, kernel, device, name, fallback, text)        \
  static ::minitile::TunedTableRegistration minitile_tuned_##id(kernel, device, name, \
                                                               fallback, text)

/// Registers generator class `Class` as kernel `name`.
#define MINITILE_KERNEL(Class, name, summary)                                  \
  static ::minitile::Registration<Class> minitile_registration_##Class(        \
      name, summary, __FILE__, __LINE__)
