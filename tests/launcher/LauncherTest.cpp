//===- LauncherTest.cpp - generated launchers reject bad arguments -------===//
//
// The checks run before any kernel launch, so these tests need no GPU. Where
// there is one, the launcher also asks the driver whether each pointer is
// memory the GPU can reach; the pointers here are then real device memory.
//
//===----------------------------------------------------------------------===//
#include "clean_logits.h"
#include "indexer_fwd.h"
#include "make_causal_cu_seqlens.h"

#include <gtest/gtest.h>

#include <memory>
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
              minitile::kernels::clean_logits(nullptr, nullptr, nullptr, -1, 4);
            }),
            "clean_logits: S must not be negative");
}

TEST(Launcher, RejectsNullTensorsThatHoldElements) {
  EXPECT_EQ(errorOf([] { minitile::kernels::clean_logits(nullptr, nullptr, nullptr, 3, 4); }),
            "clean_logits: logits is null but holds 12 elements");
}

TEST(Launcher, RejectsMisalignedPointers) {
  auto *odd = reinterpret_cast<float *>(reinterpret_cast<uintptr_t>(fakeDevicePointer()) + 2);
  auto *ks = fakeDevicePointer<const int32_t>();
  EXPECT_EQ(errorOf([&] { minitile::kernels::clean_logits(odd, ks, ks, 3, 4); }),
            "clean_logits: logits is not aligned to 4 bytes");
}

TEST(Launcher, ChecksRequirementsOfTheKernel) {
  auto *p = fakeDevicePointer<int32_t>();
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

TEST(Launcher, RejectsSizesWhoseElementCountsOverflow) {
  // S * S_kv = 2^80 elements of logits: the product overflows int64, which
  // the launcher reports (naming the kernel's line) instead of wrapping.
  float *logits = fakeDevicePointer();
  auto *ks = fakeDevicePointer<const int32_t>();
  std::string message = errorOf([&] {
    minitile::kernels::clean_logits(logits, ks, ks, int64_t(1) << 40, int64_t(1) << 40);
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
              minitile::kernels::clean_logits(logits, ks, ks, 1, int64_t(1) << 61);
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
  std::string message = errorOf([&] {
    minitile::kernels::indexer_fwd(bf, bf, f, i, i, fakeDevicePointer(), 1,
                                   int64_t(1) << 31);
  });
  EXPECT_EQ(message,
            "indexer_fwd: kv: dimension 0 has 2147483648 elements; the tensor-memory "
            "accelerator addresses at most 2147483647");
}
