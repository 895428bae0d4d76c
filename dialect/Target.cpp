//===- Target.cpp - the architectures minitile compiles for ---------------===//
#include "minitile/target.h"

#include <algorithm>

namespace minitile {

namespace {

constexpr unsigned bit(Feature f) { return 1u << unsigned(f); }

// Every target fact of the project is in this table. Shared memory is the
// per-block opt-in maximum of the CUDA programming guide's table of compute
// capabilities, as are the threads a multiprocessor holds and the shared
// memory the system reserves a block (1 KiB from sm_80 on). PTX 8.6 is what
// TMA into shared::cta needs, and ptxas of CUDA 12.8 and later takes it for
// every architecture here. CUDA 13 no longer assembles for architectures
// before sm_75.
const std::vector<Target> &table() {
  constexpr unsigned all = bit(Feature::namedBarriers);
  constexpr unsigned ampere = all | bit(Feature::mbarrier);
  constexpr unsigned hopper =
      ampere | bit(Feature::tma) | bit(Feature::elect) | bit(Feature::clusters) |
      bit(Feature::stmatrix);
  constexpr unsigned hopperA = hopper | bit(Feature::setmaxnreg) | bit(Feature::wgmma);
  static const std::vector<Target> targets = {
      {"sm_75", 75, 86, 64 * 1024, 65536, 255, 1024, all, 1024, 0},
      {"sm_80", 80, 86, 163 * 1024, 65536, 255, 1024, ampere, 2048, 1024},
      {"sm_86", 86, 86, 99 * 1024, 65536, 255, 1024, ampere, 1536, 1024},
      {"sm_89", 89, 86, 99 * 1024, 65536, 255, 1024, ampere, 1536, 1024},
      {"sm_90", 90, 86, 227 * 1024, 65536, 255, 1024, hopper, 2048, 1024},
      {"sm_90a", 90, 86, 227 * 1024, 65536, 255, 1024, hopperA, 2048, 1024},
  };
  return targets;
}

} // namespace

const char *featureName(Feature f) {
  switch (f) {
  case Feature::mbarrier: return "mbarrier";
  case Feature::namedBarriers: return "named barriers";
  case Feature::tma: return "the tensor-memory accelerator";
  case Feature::elect: return "elect.sync";
  case Feature::clusters: return "thread-block clusters";
  case Feature::stmatrix: return "stmatrix";
  case Feature::setmaxnreg: return "setmaxnreg";
  case Feature::wgmma: return "wgmma";
  }
  return "?";
}

const Target *Target::get(const std::string &arch) {
  for (const Target &t : table())
    if (t.arch == arch)
      return &t;
  return nullptr;
}

const Target &Target::defaultTarget() { return *get("sm_90a"); }

int64_t Target::registersAtLaunch(int64_t threads, int64_t blocks) const {
  return std::min<int64_t>(maxRegistersPerThread, registersPerSM / (threads * blocks)) / 8 * 8;
}

int64_t Target::sharedMemoryPerBlockAt(int64_t blocks) const {
  return (sharedMemoryPerBlock + sharedMemoryReservedPerBlock) / std::max<int64_t>(blocks, 1) -
         sharedMemoryReservedPerBlock;
}

std::vector<std::string> Target::supported() {
  std::vector<std::string> names;
  for (const Target &t : table())
    names.push_back(t.arch);
  return names;
}

std::string Target::supportedList() {
  std::string list;
  for (const std::string &name : supported())
    list += (list.empty() ? "" : ", ") + name;
  return list;
}

} // namespace minitile
