//===- FaultTest.cpp - faults a launch causes, reported by name ----------===//
//
// Its own process (ctest gpu-fault): the second test leaves the CUDA context
// unusable, which no other GPU test could survive. The tests run in order.
//
//  1. Pointers the launcher can see are wrong -- pageable host memory, a
//     freed device buffer -- are refused before the launch with a clear
//     minitile::rt::Error, and launches afterwards still work.
//  2. A device buffer smaller than the sizes say is refused before the
//     launch, naming the tensor and both sizes, with nothing written (the
//     driver knows each allocation's extent: cuMemGetAddressRange); what
//     that check costs a launch is printed.
//  3. A fault the checks cannot see -- the same buffer with that check
//     turned off (MINITILE_ALLOCATION_CHECKS=0) -- is reported as the CUDA
//     error by name (an illegal address) through minitile::rt::Error, and
//     every later call says the context is lost.
//
//===----------------------------------------------------------------------===//
#include "GpuTest.h"
#include "clean_logits.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using minitile::rt::DeviceBuffer;

namespace {

/// The minitile::rt::Error `f` throws, if any.
template <class F> std::optional<minitile::rt::Error> errorOf(F &&f) {
  try {
    f();
  } catch (const minitile::rt::Error &e) {
    return e;
  }
  return std::nullopt;
}

/// clean_logits on a fresh [S, T] buffer with windows [1, T - 1): checks
/// every entry, so a launch that "works" really ran.
void cleanLogitsWorks(int64_t S, int64_t T) {
  DeviceBuffer<float> logits(S * T);
  logits.fillWords(gputest::kPoison);
  DeviceBuffer<int32_t> ks(std::vector<int32_t>(S, 1)),
      ke(std::vector<int32_t>(S, int32_t(T - 1)));
  minitile::kernels::clean_logits(S, T, logits.get(), ks.get(), ke.get());
  minitile::rt::synchronize();
  std::vector<float> out = logits.download();
  for (int64_t s = 0; s < S; ++s)
    for (int64_t t = 0; t < T; ++t) {
      bool outside = t < 1 || t >= T - 1;
      ASSERT_EQ(gputest::bits(out[s * T + t]), outside ? gputest::kNegInf : gputest::kPoison)
          << "s=" << s << " t=" << t;
    }
}

} // namespace

TEST(Fault, HostPointersAreRefusedBeforeTheLaunch) {
  std::vector<float> host(64 * 64);
  DeviceBuffer<int32_t> ks(std::vector<int32_t>(64, 0)), ke(std::vector<int32_t>(64, 8));
  auto e = errorOf([&] {
    minitile::kernels::clean_logits(64, 64, host.data(), ks.get(), ke.get());
  });
  ASSERT_TRUE(e) << "a host pointer was launched on";
  EXPECT_EQ(e->code(), CUDA_SUCCESS) << e->what();
  EXPECT_NE(std::string(e->what()).find("clean_logits: logits is not memory the GPU can reach"),
            std::string::npos)
      << e->what();
  cleanLogitsWorks(64, 64);
}

TEST(Fault, FreedBuffersAreRefusedBeforeTheLaunch) {
  // The windows first: allocated after the free, they could take the freed
  // addresses, and a pointer into a live allocation is valid to the driver.
  DeviceBuffer<int32_t> ks(std::vector<int32_t>(64, 0)), ke(std::vector<int32_t>(64, 8));
  float *freed;
  {
    DeviceBuffer<float> logits(64 * 64);
    freed = logits.get();
  }
  auto e = errorOf([&] {
    minitile::kernels::clean_logits(64, 64, freed, ks.get(), ke.get());
  });
  ASSERT_TRUE(e) << "a freed buffer was launched on";
  EXPECT_NE(std::string(e->what()).find("not memory the GPU can reach"), std::string::npos)
      << e->what();
  cleanLogitsWorks(64, 64);
}

TEST(Fault, AnUndersizedBufferIsRefusedBeforeTheLaunch) {
  // Logits of [64, 64] at the last 64 x 32 floats of one allocation: the
  // sizes say 16384 bytes, the allocation holds 8192 from that pointer.
  ASSERT_TRUE(minitile::rt::allocationChecks());
  DeviceBuffer<float> whole(64 * 64 + 64 * 32);
  whole.fillWords(gputest::kPoison);
  DeviceBuffer<int32_t> ks(std::vector<int32_t>(64, 1)), ke(std::vector<int32_t>(64, 8));
  auto e = errorOf([&] {
    minitile::kernels::clean_logits(64, 64, whole.get() + 64 * 64, ks.get(), ke.get());
    minitile::rt::synchronize();
  });
  ASSERT_TRUE(e) << "a buffer half the size the sizes say was launched on";
  EXPECT_EQ(e->code(), CUDA_SUCCESS) << e->what();
  EXPECT_NE(std::string(e->what()).find("clean_logits: logits needs 16384 bytes (4096 elements "
                                        "of 4) but its allocation holds 8192 bytes from that "
                                        "pointer"),
            std::string::npos)
      << e->what();
  std::vector<float> out = whole.download();
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(gputest::bits(out[i]), gputest::kPoison) << "entry " << i << " was written";
  // The same buffer from its start holds [64, 64] and more: launched.
  cleanLogitsWorks(64, 64);
}

TEST(Fault, WhatTheAllocationCheckCostsALaunch) {
  // Launch-side time of one clean_logits call (3 tensors, so 3
  // cuMemGetAddressRange) with the allocation check on and off, the kernel
  // itself tiny; the launches queue on the stream and are timed on the host.
  DeviceBuffer<float> logits(64);
  DeviceBuffer<int32_t> ks(std::vector<int32_t>(1, 0)), ke(std::vector<int32_t>(1, 64));
  auto perCall = [&](bool on) {
    minitile::rt::setAllocationChecks(on);
    const int calls = 20000;
    for (int i = 0; i < 1000; ++i) // warm
      minitile::kernels::clean_logits(1, 64, logits.get(), ks.get(), ke.get());
    minitile::rt::synchronize();
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i)
      minitile::kernels::clean_logits(1, 64, logits.get(), ks.get(), ke.get());
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() -
                                                          start)
                    .count() /
                calls;
    minitile::rt::synchronize();
    return us;
  };
  double off = perCall(false), on = perCall(true), offAgain = perCall(false);
  minitile::rt::setAllocationChecks(true);
  double base = std::min(off, offAgain);
  std::printf("clean_logits launcher, host time a call: %.3f us with the allocation check, "
              "%.3f us without (%.3f us for 3 tensors, %.3f us a tensor)\n",
              on, base, on - base, (on - base) / 3);
  RecordProperty("check_us_per_launch", std::to_string(on - base));
}

TEST(Fault, AFaultIsNamedAndLaterCallsSayTheContextIsLost) {
  // 4 KiB of logits but sizes that say 16 GiB: with the allocation check
  // off, every check passes (the base pointer is device memory), and the
  // kernel writes far past the buffer.
  minitile::rt::setAllocationChecks(false);
  const int64_t S = 65536, T = 65536;
  DeviceBuffer<float> small(1024);
  DeviceBuffer<int32_t> ks(std::vector<int32_t>(S, int32_t(T))),
      ke(std::vector<int32_t>(S, int32_t(T)));
  // ks = ke = T: every row is all -inf, so every entry is written.
  auto e = errorOf([&] {
    minitile::kernels::clean_logits(S, T, small.get(), ks.get(), ke.get());
    minitile::rt::synchronize();
  });
  ASSERT_TRUE(e) << "writing 16 GiB into 4 KiB did not fault";
  std::printf("the fault: %s\n", e->what());
  // Which error a store far past the allocation raises depends on what lies
  // there: the H200 with driver 580 gave CUDA_ERROR_LAUNCH_FAILED and
  // CUDA_ERROR_INVALID_ADDRESS_SPACE in two runs (ILLEGAL_ADDRESS is the
  // usual one). Whichever it is, the message names it.
  EXPECT_NE(e->code(), CUDA_SUCCESS) << e->what();
  EXPECT_NE(std::string(e->what()).find(minitile::rt::errorName(e->code())), std::string::npos)
      << e->what();
  EXPECT_NE(std::string(e->what()).find("the CUDA context is lost"), std::string::npos)
      << e->what();

  // Later work either runs correctly or says why it cannot.
  auto later = errorOf([] { cleanLogitsWorks(64, 64); });
  if (later) {
    std::printf("a later launch: %s\n", later->what());
    EXPECT_TRUE(minitile::rt::losesContext(later->code())) << later->what();
    EXPECT_NE(std::string(later->what()).find("the CUDA context is lost"), std::string::npos)
        << later->what();
  } else {
    std::printf("a later launch ran correctly\n");
  }
}
