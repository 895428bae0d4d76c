//===- DuplicateKernels.cpp - two generators registered under one name ---===//
//
// Linked into minitile-duplicate-kernels, a minitile CLI that must refuse to
// start: registration runs during static initialisation, so the CLI reports
// the clash at start-up (tests/lit/cli/duplicate-kernel.test).
//
//===----------------------------------------------------------------------===//
#include "minitile/dsl.h"

namespace {

struct First : minitile::Generator {
  void generate(minitile::Kernel &k) override {
    k.threads(32);
    k.grid(1);
  }
};

struct Second : minitile::Generator {
  void generate(minitile::Kernel &k) override {
    k.threads(64);
    k.grid(1);
  }
};

} // namespace

MINITILE_KERNEL(First, "twice", "the first kernel named 'twice'");
MINITILE_KERNEL(Second, "twice", "the second kernel named 'twice'");
