//===- LauncherTest.cpp - generated launchers reject bad arguments -------===//
//
// The checks run before any CUDA call, so these tests need no GPU.
//
//===----------------------------------------------------------------------===//
#include "axpy.h"
#include "clean_logits.h"
#include "make_causal_cu_seqlens.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <type_traits>

using minitile::rt::Scalar;

// Parameters in the order the kernels declare them (sizes first, then the
// tensors), tensors the kernel only reads as const pointers.
static_assert(std::is_same_v<decltype(&minitile::kernels::clean_logits),
                             void (*)(Scalar<int64_t>, Scalar<int64_t>, float *,
                                      const int32_t *, const int32_t *, CUstream)>);
static_assert(std::is_same_v<decltype(&minitile::kernels::make_causal_cu_seqlens),
                             void (*)(Scalar<int64_t>, Scalar<int64_t>, Scalar<int64_t>,
                                      int32_t *, int32_t *, CUstream)>);
static_assert(std::is_same_v<decltype(&minitile::kernels::axpy),
                             void (*)(Scalar<int64_t>, Scalar<float>, const float *, float *,
                                      CUstream)>);

// Sizes and scalars take only what they hold exactly.
static_assert(std::is_convertible_v<int, Scalar<int64_t>>);
static_assert(std::is_convertible_v<int64_t, Scalar<int64_t>>);
static_assert(std::is_convertible_v<uint32_t, Scalar<int64_t>>);
static_assert(!std::is_convertible_v<size_t, Scalar<int64_t>>);
static_assert(!std::is_convertible_v<int64_t, Scalar<int32_t>>);
static_assert(!std::is_convertible_v<float, Scalar<int64_t>>);
static_assert(!std::is_convertible_v<double, Scalar<int64_t>>);
static_assert(!std::is_convertible_v<bool, Scalar<int64_t>>);
static_assert(std::is_convertible_v<float, Scalar<float>>);
static_assert(!std::is_convertible_v<double, Scalar<float>>);
static_assert(!std::is_convertible_v<int, Scalar<float>>);
static_assert(!std::is_convertible_v<int64_t, Scalar<double>>);
static_assert(std::is_convertible_v<float, Scalar<double>>);
static_assert(!std::is_convertible_v<int, Scalar<bool>>);
static_assert(!std::is_convertible_v<const int *, Scalar<int64_t>>);
static_assert(sizeof(Scalar<int64_t>) == sizeof(int64_t));

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
              minitile::kernels::clean_logits(-1, 4, nullptr, nullptr, nullptr);
            }),
            "clean_logits: S must not be negative");
}

TEST(Launcher, RejectsNullTensorsThatHoldElements) {
  EXPECT_EQ(errorOf([] { minitile::kernels::clean_logits(3, 4, nullptr, nullptr, nullptr); }),
            "clean_logits: logits is null but holds 12 elements");
}

TEST(Launcher, RejectsMisalignedPointers) {
  auto *odd = reinterpret_cast<float *>(uintptr_t(0x10002));
  auto *ks = reinterpret_cast<const int32_t *>(fakeDevicePointer());
  EXPECT_EQ(errorOf([&] { minitile::kernels::clean_logits(3, 4, odd, ks, ks); }),
            "clean_logits: logits is not aligned to 4 bytes");
}

TEST(Launcher, ChecksRequirementsOfTheKernel) {
  auto *p = reinterpret_cast<int32_t *>(fakeDevicePointer());
  EXPECT_EQ(errorOf([&] { minitile::kernels::make_causal_cu_seqlens(8, 2, 0, p, p); }),
            "make_causal_cu_seqlens: ratio must be positive");
  EXPECT_EQ(errorOf([&] {
              minitile::kernels::make_causal_cu_seqlens(8, int64_t(1) << 32, 4, p, p);
            }),
            "make_causal_cu_seqlens: S_kv must fit in int32");
}

TEST(Launcher, UserGeneratorsKernelChecksItsArguments) {
  auto *p = fakeDevicePointer();
  EXPECT_EQ(errorOf([&] { minitile::kernels::axpy(int64_t(1) << 31, 0.5f, p, p); }),
            "axpy: n must be below 2^31");
  EXPECT_EQ(errorOf([&] { minitile::kernels::axpy(4, 0.5f, p, nullptr); }),
            "axpy: y is null but holds 4 elements");
}

TEST(Launcher, EmptyProblemsLaunchNothing) {
  // S = 0: a grid of zero blocks, so no CUDA call and no error, GPU or not.
  EXPECT_NO_THROW(minitile::kernels::clean_logits(0, 16, nullptr, nullptr, nullptr));
  EXPECT_NO_THROW(minitile::kernels::make_causal_cu_seqlens(0, 16, 4, nullptr, nullptr));
}
