//===- HeaderExampleTest.cpp - the example at the top of dsl.h works ------===//
//
// tests/CMakeLists.txt copies the lines between BEGIN EXAMPLE and END EXAMPLE
// of minitile/dsl.h into header_example.cpp; this test compiles that kernel
// to PTX, so the header's example cannot rot.
//
//===----------------------------------------------------------------------===//
#include "header_example.cpp"

#include "dsl/Build.h"
#include "lowering/Stages.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

static void compilesToPTX(const std::string &name) {
  const GeneratorInfo *info = Registry::global().find(name);
  ASSERT_NE(info, nullptr) << "the header example no longer registers '" << name << "'";
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  std::unique_ptr<Generator> gen = info->create();
  auto module = buildKernel(ctx, *gen, name, info->summary);
  ASSERT_TRUE(module);
  StageOptions opts;
  ASSERT_TRUE(mlir::succeeded(runTilePasses(*module, opts)));
  ASSERT_TRUE(mlir::succeeded(lowerToLLVMDialect(*module, opts)));
  llvm::LLVMContext llvmContext;
  const Target &target = Target::defaultTarget();
  auto llvmModule = translateToLLVMIR(*module, llvmContext, target);
  ASSERT_TRUE(llvmModule);
  optimizeLLVMIR(*llvmModule, target);
  std::string ptx = emitPTX(*llvmModule, target);
  EXPECT_NE(ptx.find(".entry " + name + "_kernel"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("ld.global"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("st.global"), std::string::npos) << ptx;
}

TEST(HeaderExample, CompilesToPTX) { compilesToPTX("scale"); }
TEST(HeaderExample, CarriedLoopCompilesToPTX) { compilesToPTX("row_sums"); }
