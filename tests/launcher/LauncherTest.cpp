//===- LauncherTest.cpp - generated launchers reject bad arguments -------===//
//
// The checks run before any CUDA call, so these tests need no GPU.
//
//===----------------------------------------------------------------------===//
#include "clean_logits.h"
#include "make_causal_cu_seqlens.h"

#include <gtest/gtest.h>

#include <string>

namespace {

/// Runs `launch` and returns the message of the minitile::rt::Error it throws.
template <class F> std::string errorOf(F &&launch) {
  try {
    launch();
  } catch (const minitile::rt::Error &e) {
    return e.what();
  }
  return "(no error)";
}

float *fakeDevicePointer() { return reinterpret_cast<float *>(uintptr_t(0x10000)); }

} // namespace

TEST(Launcher, RejectsNegativeSizes) {
  EXPECT_EQ(errorOf([] {
              minitile::kernels::clean_logits(nullptr, nullptr, nullptr, -1, 4);
            }),
            "clean_logits: S must not be negative");
}

TEST(Launcher, RejectsNullTensorsThatHoldElements) {
  EXPECT_EQ(errorOf([] { minitile::kernels::clean_logits(nullptr, nullptr, nullptr, 3, 4); }),
            "clean_logits: logits is null but holds 12 elements");
}

TEST(Launcher, RejectsMisalignedPointers) {
  auto *odd = reinterpret_cast<float *>(uintptr_t(0x10002));
  auto *ks = reinterpret_cast<const int32_t *>(fakeDevicePointer());
  EXPECT_EQ(errorOf([&] { minitile::kernels::clean_logits(odd, ks, ks, 3, 4); }),
            "clean_logits: logits is not aligned to 4 bytes");
}

TEST(Launcher, ChecksRequirementsOfTheKernel) {
  auto *p = reinterpret_cast<int32_t *>(fakeDevicePointer());
  EXPECT_EQ(errorOf([&] { minitile::kernels::make_causal_cu_seqlens(p, p, 8, 2, 0); }),
            "make_causal_cu_seqlens: ratio must be positive");
  EXPECT_EQ(errorOf([&] {
              minitile::kernels::make_causal_cu_seqlens(p, p, 8, int64_t(1) << 32, 4);
            }),
            "make_causal_cu_seqlens: S_kv must fit in int32");
}

TEST(Launcher, EmptyProblemsLaunchNothing) {
  // S = 0: a grid of zero blocks, so no CUDA call and no error, GPU or not.
  EXPECT_NO_THROW(minitile::kernels::clean_logits(nullptr, nullptr, nullptr, 0, 16));
  EXPECT_NO_THROW(minitile::kernels::make_causal_cu_seqlens(nullptr, nullptr, 0, 16, 4));
}
