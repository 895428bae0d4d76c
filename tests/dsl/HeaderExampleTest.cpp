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

TEST(HeaderExample, CompilesToPTX) {
  const GeneratorInfo *info = Registry::global().find("scale");
  ASSERT_NE(info, nullptr) << "the header example no longer registers 'scale'";
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext ctx(registry);
  std::unique_ptr<Generator> gen = info->create();
  auto module = buildKernel(ctx, *gen, "scale", info->summary);
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
  EXPECT_NE(ptx.find(".entry scale_kernel"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("ld.global"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("st.global"), std::string::npos) << ptx;
}
