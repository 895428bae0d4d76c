//===- DslFuzzer.cpp - libFuzzer target: random programs through the DSL --===//
//
// Each input drives a generator that makes random DSL calls -- arguments,
// tensors, loads and stores, arithmetic, fragments of random shapes, shared
// tiles, copies, gemms, loops, ifs -- valid or not, with empty values and
// absurd sizes among them. Building must end in a module or a
// minitile::Error (misuse is diagnosed at the user's line); the module must
// then pass or fail the tile passes and the lowering with diagnostics. Any
// other exception, a crash, a sanitizer report or a hang is a defect.
//
//===----------------------------------------------------------------------===//
#include "dsl/Build.h"
#include "lowering/Stages.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <functional>

using namespace minitile;

namespace {

[[noreturn]] void defect(const char *what) {
  std::fprintf(stderr, "dsl-fuzzer: %s\n", what);
  std::abort();
}

struct RandomKernel : Generator {
  explicit RandomKernel(FuzzedDataProvider &in) : in(in) {}

  FuzzedDataProvider &in;
  Kernel *k = nullptr;
  std::vector<Value> scalars, fragments;
  std::vector<Tensor> tensors;
  std::vector<Shared> tiles;
  int names = 0, depth = 0;

  int pick(int n) { return in.ConsumeIntegralInRange(0, n - 1); }
  bool coin() { return in.ConsumeBool(); }

  /// Mostly small powers of two, sometimes anything (absurd sizes too).
  int64_t extent() {
    switch (pick(8)) {
    case 0: return in.ConsumeIntegral<int64_t>();
    case 1: return in.ConsumeIntegralInRange<int64_t>(-4, 300);
    default: return int64_t(1) << pick(8);
    }
  }
  std::vector<int64_t> shape() {
    std::vector<int64_t> s(1 + pick(coin() ? 4 : 3));
    for (int64_t &d : s)
      d = extent();
    return s;
  }
  DType dtype() {
    static const DType all[] = {DType::i1,  DType::i8,   DType::i16, DType::i32, DType::i64,
                                DType::index, DType::f16, DType::bf16, DType::f32, DType::f64};
    return all[pick(10)];
  }
  std::string name() { return coin() && names ? "a" + std::to_string(pick(names)) : "a" + std::to_string(names++); }

  /// An operand: a scalar or fragment made so far, a constant, or an empty Value.
  Arg operand() {
    switch (pick(6)) {
    case 0: return Arg(in.ConsumeIntegralInRange<int64_t>(-3, 300));
    case 1: return Arg(in.ConsumeFloatingPoint<double>());
    case 2: return fragments.empty() || coin() ? Arg(Value()) : Arg(fragments[pick(fragments.size())]);
    default:
      if (scalars.empty())
        return Arg(int64_t(1));
      return Arg(scalars[pick(scalars.size())]);
    }
  }
  std::vector<Arg> operands(int n) {
    std::vector<Arg> r;
    for (int i = 0; i < n; ++i)
      r.push_back(operand());
    return r;
  }
  void keep(Value v) {
    if (v.valid() && !v.isFragment())
      scalars.push_back(v);
    else if (v.valid())
      fragments.push_back(v);
  }
  Tensor *tensor() { return tensors.empty() ? nullptr : &tensors[pick(tensors.size())]; }
  Shared *tile() { return tiles.empty() ? nullptr : &tiles[pick(tiles.size())]; }

  void body(int steps) {
    for (int i = 0; i < steps && in.remaining_bytes(); ++i)
      step();
  }

  void step() {
    Kernel &kk = *k;
    switch (pick(24)) {
    case 0: keep(kk.size(name())); break;
    case 1: keep(kk.scalar(name(), dtype())); break;
    case 2: {
      std::vector<Arg> dims = operands(1 + pick(3));
      tensors.push_back(kk.tensor(name(), dtype(), dims));
      break;
    }
    case 3:
      if (Tensor *t = tensor())
        keep(t->load(operands(t->rank()), 1 << pick(4)));
      break;
    case 4:
      if (Tensor *t = tensor())
        t->store(operands(t->rank()), operand());
      break;
    case 5: {
      Arg a = operand(), b = operand();
      switch (pick(8)) {
      case 0: keep(a + b); break;
      case 1: keep(a * b); break;
      case 2: keep(a - b); break;
      case 3: keep(a < b); break;
      case 4: keep(min(a, b)); break;
      case 5: keep(a / b); break;
      case 6: keep(select(operand(), a, b)); break;
      default: keep(cast(a, dtype()));
      }
      break;
    }
    case 6: keep(kk.threadId(pick(4))); break;
    case 7: keep(kk.blockId(pick(4))); break;
    case 8:
      if (Tensor *t = tensor())
        keep(loadTile(*t, operands(t->rank()), shape()));
      break;
    case 9:
      if (Tensor *t = tensor())
        storeTile(*t, operands(t->rank()), operand());
      break;
    case 10: keep(reshape(operand(), shape())); break;
    case 11: {
      std::vector<int64_t> perm(1 + pick(4));
      for (int64_t &p : perm)
        p = pick(5) - 1;
      keep(transpose(operand(), perm));
      break;
    }
    case 12: {
      std::vector<int64_t> dims(pick(3));
      for (int64_t &d : dims)
        d = pick(5) - 1;
      keep(broadcast(operand(), shape(), dims));
      break;
    }
    case 13: keep(reduceSum(operand(), pick(5) - 1)); break;
    case 14: keep(iota(shape(), pick(4) - 1, dtype())); break;
    case 15: tiles.push_back(kk.shared(dtype(), shape())); break;
    case 16:
      if (Tensor *t = tensor(); t && !tiles.empty())
        copy(*t, operands(t->rank()), *tile(), coin() ? std::vector<int64_t>{} : shape());
      break;
    case 17:
      if (tiles.size() >= 2)
        keep(gemm(*tile(), *tile(), coin(), coin() && !fragments.empty() ? fragments.back() : Value()));
      break;
    case 18:
    case 19:
    case 20:
    case 21: {
      if (depth > 3)
        break;
      ++depth;
      int steps = pick(6);
      auto nested = [&](Value iv) {
        keep(iv);
        body(steps);
      };
      int which = pick(4);
      if (which == 0)
        kk.serial(operand(), operand(), nested, operand());
      else if (which == 1)
        kk.parallel(operand(), operand(), nested, operand(), coin() ? Across::x : Across::block);
      else if (which == 2)
        kk.if_(operand(), [&] { body(steps); }, coin() ? std::function<void()>([&] { body(steps); })
                                                      : std::function<void()>());
      else
        kk.pipelined(operand(), operand(), nested,
                     {.stages = pick(6) - 1, .groups = pick(3) + (coin() ? 0 : 1)});
      --depth;
      break;
    }
    case 22: kk.require(operand(), "a requirement"); break;
    default: {
      Var v = kk.var(operand());
      v = operand();
      keep(v.get());
    }
    }
  }

  void generate(Kernel &kernel) override {
    k = &kernel;
    Value n = kernel.size("n");
    scalars.push_back(n);
    static const int threads[] = {32, 128, 256, 384, 512, 0, 2048};
    if (coin())
      kernel.threads(threads[pick(7)], coin() ? 1 : pick(4), 1);
    body(in.ConsumeIntegralInRange(0, 40));
    if (coin())
      kernel.threads(128);
    kernel.grid(coin() ? Arg(ceildiv(n, 128)) : operand());
  }
};

const mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *r = [] {
    auto *reg = new mlir::DialectRegistry;
    registerDialects(*reg);
    return reg;
  }();
  return *r;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  mlir::MLIRContext ctx(registry(), mlir::MLIRContext::Threading::DISABLED);
  ctx.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
  RandomKernel gen(in);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  try {
    module = buildKernel(ctx, gen, "fuzzed");
  } catch (const Error &e) {
    // A diagnosis: it must name a place (the user's line, or the generator).
    if (e.file().empty())
      defect("a minitile::Error without a file");
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "dsl-fuzzer: %s\n", e.what());
    defect("the DSL threw something other than minitile::Error");
  }
  StageOptions opts;
  if (mlir::succeeded(runTilePasses(*module, opts)))
    (void)lowerToLLVMDialect(*module, opts);
  return 0;
}
