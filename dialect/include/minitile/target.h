//===- minitile/target.h - what a GPU architecture offers the compiler ----===//
//
// One Target per architecture minitile compiles for. Generators read it
// (Kernel::target()), passes read it from the module's `tile.target`
// attribute, and the backend takes the PTX version and chip from it. No other
// file states a target fact (shared memory, registers, features).
// No MLIR in here: generators include it through minitile/dsl.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace minitile {

/// Hardware features that some operations need.
enum class Feature : unsigned {
  mbarrier,      // mbarrier objects in shared memory (sm_80)
  namedBarriers, // bar.sync with an id and a thread count, bar.warp.sync (all)
  tma,           // tensor-memory accelerator, mbarrier transactions, async proxy fences (sm_90)
  elect,         // elect.sync (sm_90)
  clusters,      // thread-block clusters (sm_90)
  stmatrix,      // stmatrix: a warp stores 8 x 8 matrices of 16-bit elements (sm_90)
  setmaxnreg,    // register reallocation between warpgroups (sm_90a)
  wgmma,         // warpgroup matrix multiply-accumulate (sm_90a)
};

/// "wgmma", "tma", ...
const char *featureName(Feature f);

struct Target {
  std::string arch;                  // "sm_90a": the chip name ptxas takes
  int smVersion = 0;                 // 90
  int ptxVersion = 0;                // PTX ISA version, 86 = 8.6
  int64_t sharedMemoryPerBlock = 0;  // bytes one block may allocate (opt-in maximum)
  int64_t registersPerSM = 0;        // 32-bit registers of a multiprocessor
  int maxRegistersPerThread = 0;
  int maxThreadsPerBlock = 0;
  unsigned features = 0;             // bit i: Feature(i)
  int maxThreadsPerSM = 0;           // threads a multiprocessor holds at once
  int64_t sharedMemoryReservedPerBlock = 0; // bytes the system keeps of each block's share
  int warpgroupThreads = 128;        // four warps: what wgmma and setmaxnreg act on

  bool has(Feature f) const { return features >> unsigned(f) & 1; }
  /// The registers a thread has at launch -- what ptxas caps a kernel's at
  /// -- with `blocks` blocks of `threads` threads on a multiprocessor at
  /// once: its share of the file, a multiple of 8, at most the most a
  /// thread may have.
  int64_t registersAtLaunch(int64_t threads, int64_t blocks = 1) const;
  /// The shared memory each of `blocks` blocks on one multiprocessor may
  /// allocate: its share of the multiprocessor's (the opt-in maximum and
  /// one reserve), less the reserve the system keeps for it.
  int64_t sharedMemoryPerBlockAt(int64_t blocks) const;

  /// The target for `arch`, or null when minitile does not compile for it.
  static const Target *get(const std::string &arch);
  /// What `minitile compile` uses unless told otherwise: sm_90a.
  static const Target &defaultTarget();
  /// Every supported architecture, oldest first ("sm_75, sm_80, ...").
  static std::vector<std::string> supported();
  static std::string supportedList();
};

} // namespace minitile
