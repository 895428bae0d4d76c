//===- GpuTest.h - shared pieces of the GPU suites -----------------------===//
#pragma once

#include <minitile/runtime.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>

namespace gputest {

/// A NaN no kernel writes: buffers hold it before each launch, so an entry
/// still holding it afterwards was not written.
constexpr uint32_t kPoison = 0x7fc0dead;

/// Fresh inputs every run; MINITILE_TEST_SEED repeats a run.
inline uint64_t seed() {
  static uint64_t s = []() -> uint64_t {
    if (const char *env = std::getenv("MINITILE_TEST_SEED"))
      return std::strtoull(env, nullptr, 10);
    return (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
  }();
  return s;
}

inline std::mt19937_64 &rng() {
  static std::mt19937_64 r(seed());
  return r;
}

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

constexpr uint32_t kNegInf = 0xff800000u;

} // namespace gputest
