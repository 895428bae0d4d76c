//===- Energy.h - the GPU's energy, power and clocks over a run; cuBLAS ---===//
//
// Under sustained load an H200 runs into its 700 W power cap (measured
// 2026-12-03 with `minitile-bench energy`): the clock falls until the card draws its limit --
// cuBLAS's GEMM as much as minitile's kernels -- so energy per useful FLOP
// and the clock under load say what a short timing does not. PowerMonitor reads
// the driver's energy counter around a run and samples power, SM clock and
// the clock-event reasons every 10 ms meanwhile (NVML, opened at run time:
// the bench builds and runs without it). CublasGemm runs cuBLAS's bf16 GEMM
// in the same process (libcublas opened at run time), so that its rate and
// energy are measured by the same harness as minitile's kernels.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace minitile::bench {

/// What the GPU did over one run.
struct PowerReading {
  double joules = 0;       // from the energy counter
  double seconds = 0;      // wall time of the run
  double meanWatts = 0;    // joules / seconds
  double sampledWatts = 0; // the power readings' mean (a check on meanWatts)
  double meanSmMHz = 0;    // over the samples
  double powerCapped = 0;  // share of samples with the SW power cap active
  double thermal = 0;      // share with a thermal or hardware slowdown
  int samples = 0;
};

class PowerMonitor {
public:
  /// Opens NVML for the first GPU; available() says whether that worked.
  PowerMonitor();
  ~PowerMonitor();
  PowerMonitor(const PowerMonitor &) = delete;
  PowerMonitor &operator=(const PowerMonitor &) = delete;
  bool available() const { return impl_ != nullptr; }
  const std::string &why() const { return why_; } // when not available

  /// Starts counting and sampling (on a thread of its own).
  void start();
  /// Stops; what happened since start().
  PowerReading stop();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string why_;
};

/// C = A B in bf16 with f32 accumulation (row-major M x K times K x N), by
/// cuBLAS on the legacy default stream -- the stream minitile's launchers use.
class CublasGemm {
public:
  CublasGemm();
  ~CublasGemm();
  CublasGemm(const CublasGemm &) = delete;
  CublasGemm &operator=(const CublasGemm &) = delete;
  bool available() const { return impl_ != nullptr; }
  const std::string &why() const { return why_; }
  /// Throws std::runtime_error if cuBLAS reports an error.
  void run(int64_t M, int64_t N, int64_t K, const void *A, const void *B, void *C);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string why_;
};

} // namespace minitile::bench
