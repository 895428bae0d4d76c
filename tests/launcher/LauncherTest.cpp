//===- LauncherTest.cpp - generated launchers reject bad arguments -------===//
//
// The checks run before any kernel launch, so these tests need no GPU. Where
// there is one, the launcher also asks the driver whether each pointer is
// memory the GPU can reach; the pointers here are then real device memory.
//
//===----------------------------------------------------------------------===//
#include "axpy.h"
#include "clean_logits.h"
#include "indexer_fwd.h"
#include "indexer_fwd_plain.h"
#include "make_causal_cu_seqlens.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
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

/// A 256-byte aligned pointer the launchers' pointer checks accept: device
/// memory where there is a GPU, a made-up address where there is none.
template <class T = float> T *fakeDevicePointer() {
  static std::unique_ptr<minitile::rt::DeviceBuffer<char>> memory;
  if (!minitile::rt::available())
    return reinterpret_cast<T *>(uintptr_t(0x10000));
  if (!memory)
    memory = std::make_unique<minitile::rt::DeviceBuffer<char>>(1 << 16);
  return reinterpret_cast<T *>(memory->get());
}

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
  auto *odd = reinterpret_cast<float *>(reinterpret_cast<uintptr_t>(fakeDevicePointer()) + 2);
  auto *ks = fakeDevicePointer<const int32_t>();
  EXPECT_EQ(errorOf([&] { minitile::kernels::clean_logits(3, 4, odd, ks, ks); }),
            "clean_logits: logits is not aligned to 4 bytes");
}

TEST(Launcher, ChecksRequirementsOfTheKernel) {
  auto *p = fakeDevicePointer<int32_t>();
  EXPECT_EQ(errorOf([&] { minitile::kernels::make_causal_cu_seqlens(8, 2, 0, p, p); }),
            "make_causal_cu_seqlens: ratio must be positive");
  EXPECT_EQ(errorOf([&] {
              minitile::kernels::make_causal_cu_seqlens(8, int64_t(1) << 32, 4, p, p);
            }),
            "make_causal_cu_seqlens: S_kv must fit in int32");
}

TEST(Launcher, UserGeneratorsKernelChecksItsArguments) {
  auto *p = fakeDevicePointer();
  // The kernel's own bound on n, not the allocation check, which on a GPU
  // refuses this small buffer first (the two are both right; this is about
  // the first).
  minitile::rt::setAllocationChecks(false);
  EXPECT_EQ(errorOf([&] { minitile::kernels::axpy(int64_t(1) << 31, 0.5f, p, p); }),
            "axpy: n must be below 2^31");
  minitile::rt::setAllocationChecks(true);
  EXPECT_EQ(errorOf([&] { minitile::kernels::axpy(4, 0.5f, p, nullptr); }),
            "axpy: y is null but holds 4 elements");
}

TEST(Launcher, EmptyProblemsLaunchNothing) {
  // S = 0: a grid of zero blocks, so no CUDA call and no error, GPU or not.
  EXPECT_NO_THROW(minitile::kernels::clean_logits(0, 16, nullptr, nullptr, nullptr));
  EXPECT_NO_THROW(minitile::kernels::make_causal_cu_seqlens(0, 16, 4, nullptr, nullptr));
}

TEST(Launcher, RejectsSizesWhoseElementCountsOverflow) {
  // S * S_kv = 2^80 elements of logits: the product overflows int64, which
  // the launcher reports (naming the kernel's line) instead of wrapping.
  float *logits = fakeDevicePointer();
  auto *ks = fakeDevicePointer<const int32_t>();
  std::string message = errorOf([&] {
    minitile::kernels::clean_logits(int64_t(1) << 40, int64_t(1) << 40, logits, ks, ks);
  });
  EXPECT_EQ(message.rfind("clean_logits: the sizes are too large: the launcher's "
                          "computation at ", 0),
            0u)
      << message;
  EXPECT_NE(message.find("clean_logits.cpp:"), std::string::npos) << message;
  EXPECT_NE(message.find("overflows"), std::string::npos) << message;
}

TEST(Launcher, RejectsElementCountsLargerThanMemory) {
  // 2^61 floats fit in int64 but not in bytes.
  float *logits = fakeDevicePointer();
  auto *ks = fakeDevicePointer<const int32_t>();
  EXPECT_EQ(errorOf([&] {
              minitile::kernels::clean_logits(1, int64_t(1) << 61, logits, ks, ks);
            }),
            "clean_logits: logits holds 2305843009213693952 elements of 4 bytes: more "
            "than memory can");
}

TEST(Launcher, RejectsTensorsBeyondTheTmaCoordinates) {
  // The indexer reads kv [S_kv, D] by TMA, whose coordinates are signed
  // 32-bit: S_kv = 2^31 cannot be addressed.
  auto *bf = fakeDevicePointer<const minitile::rt::bf16>();
  auto *f = fakeDevicePointer<const float>();
  auto *i = fakeDevicePointer<const int32_t>();
  // On a GPU the 64 KiB buffer is far smaller than kv's 512 GiB, which the
  // allocation check would refuse first: off, for the check after it.
  minitile::rt::setAllocationChecks(false);
  std::string message = errorOf([&] {
    minitile::kernels::indexer_fwd_plain(1, int64_t(1) << 31, bf, bf, f, i, i,
                                         fakeDevicePointer());
  });
  minitile::rt::setAllocationChecks(true);
  EXPECT_EQ(message,
            "indexer_fwd_plain: kv: dimension 0 has 2147483648 elements; the tensor-memory "
            "accelerator addresses at most 2147483647");
}

// A launcher tuned per device: the table whose device its device's name
// holds (ignoring case), the fallback where none does;
// MINITILE_TUNED_DEVICE's name wins, and a name no table has is -1 (the
// launcher then throws).
TEST(Launcher, DeviceTablesMatchTheDevicesName) {
  const char *const tables[] = {"H100", "H200"};
  EXPECT_EQ(minitile::rt::matchDeviceTable("NVIDIA H200", nullptr, tables, 2, 0), 1);
  EXPECT_EQ(minitile::rt::matchDeviceTable("NVIDIA H100 80GB HBM3", nullptr, tables, 2, 1), 0);
  EXPECT_EQ(minitile::rt::matchDeviceTable("nvidia h200 nvl", nullptr, tables, 2, 0), 1);
  EXPECT_EQ(minitile::rt::matchDeviceTable("NVIDIA GH200 480GB", nullptr, tables, 2, 0), 1);
  EXPECT_EQ(minitile::rt::matchDeviceTable("NVIDIA A100-SXM4-80GB", nullptr, tables, 2, 0), 0);
  EXPECT_EQ(minitile::rt::matchDeviceTable("NVIDIA A100-SXM4-80GB", nullptr, tables, 2, 1), 1);
  EXPECT_EQ(minitile::rt::matchDeviceTable("NVIDIA H100", "h200", tables, 2, 0), 1);
  EXPECT_EQ(minitile::rt::matchDeviceTable("NVIDIA H100", "", tables, 2, 1), 0);
  EXPECT_EQ(minitile::rt::matchDeviceTable("NVIDIA H100", "b200", tables, 2, 0), -1);
}
