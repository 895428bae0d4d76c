//===- DslTestSupport.h - building kernels from lambdas in the DSL tests --===//
#pragma once

#include "dsl/Build.h"
#include "lowering/Stages.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <functional>
#include <source_location>
#include <string>

namespace dsltest {

using namespace minitile;

/// A generator whose body is a lambda.
struct LambdaGenerator : Generator {
  std::function<void(Kernel &)> body;
  void generate(Kernel &k) override { body(k); }
};

/// Builds `body` as kernel "t" and returns the printed tile IR.
inline std::string build(const std::function<void(Kernel &)> &body) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  LambdaGenerator gen;
  gen.body = body;
  auto module = buildKernel(ctx, gen, "t");
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// Runs `body` and returns the Error it raises (or fails the test).
inline Error buildError(const std::function<void(Kernel &)> &body) {
  try {
    build(body);
  } catch (const Error &e) {
    return e;
  }
  ADD_FAILURE() << "building the kernel raised no minitile::Error";
  return Error("", 0, "");
}

/// Expects building `body` to fail at `line` of the calling test's file
/// (which `body` sets) with a message containing `text`.
inline void expectDslError(const unsigned &line, const std::string &text,
                           const std::function<void(Kernel &)> &body,
                           std::source_location caller = std::source_location::current()) {
  Error e = buildError(body);
  EXPECT_EQ(e.file(), caller.file_name());
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_NE(e.message().find(text), std::string::npos) << e.what();
}

/// How many times `what` occurs in `text` (overlaps counted).
inline size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

/// The smallest valid kernel prologue.
inline void launch(Kernel &k, Value n) {
  k.threads(128);
  k.grid(ceildiv(n, 128));
}

} // namespace dsltest
