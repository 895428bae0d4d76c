//===- Energy.cpp - NVML and cuBLAS, opened at run time -------------------===//
//
// The few entry points used are declared here by hand (their C signatures
// and the enumerators' values as NVML's and cuBLAS's headers give them), so
// the bench needs neither header nor library to build.
//
//===----------------------------------------------------------------------===//
#include "Energy.h"

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace minitile::bench {

namespace {

void *openFirst(std::initializer_list<const char *> names, std::string &why) {
  for (const char *name : names)
    if (void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      return lib;
  const char *err = dlerror();
  why = err ? err : "not found";
  return nullptr;
}

template <class F> bool bind(void *lib, const char *name, F &fn, std::string &why) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn)
    why = std::string("no ") + name;
  return fn != nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// PowerMonitor
//===----------------------------------------------------------------------===//

struct PowerMonitor::Impl {
  using Device = void *;
  void *lib = nullptr;
  Device device = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*handleByIndex)(unsigned, Device *) = nullptr;
  int (*energy)(Device, unsigned long long *) = nullptr; // mJ since the driver loaded
  int (*power)(Device, unsigned *) = nullptr;            // mW
  int (*clock)(Device, int, unsigned *) = nullptr;       // MHz; type 1: SM
  int (*reasons)(Device, unsigned long long *) = nullptr;

  std::atomic<bool> running{false};
  std::thread sampler;
  unsigned long long startMilliJoules = 0;
  std::chrono::steady_clock::time_point startTime;
  struct Sample {
    unsigned mhz, milliWatts;
    unsigned long long why; // clock-event reasons
  };
  std::vector<Sample> samples;

  ~Impl() {
    if (sampler.joinable()) {
      running = false;
      sampler.join();
    }
    if (shutdown)
      shutdown();
    if (lib)
      dlclose(lib);
  }
};

PowerMonitor::PowerMonitor() {
  auto impl = std::make_unique<Impl>();
  impl->lib = openFirst({"libnvidia-ml.so.1", "libnvidia-ml.so"}, why_);
  if (!impl->lib)
    return;
  if (!bind(impl->lib, "nvmlInit_v2", impl->init, why_) ||
      !bind(impl->lib, "nvmlShutdown", impl->shutdown, why_) ||
      !bind(impl->lib, "nvmlDeviceGetHandleByIndex_v2", impl->handleByIndex, why_) ||
      !bind(impl->lib, "nvmlDeviceGetTotalEnergyConsumption", impl->energy, why_) ||
      !bind(impl->lib, "nvmlDeviceGetPowerUsage", impl->power, why_) ||
      !bind(impl->lib, "nvmlDeviceGetClockInfo", impl->clock, why_))
    return;
  // The reasons' newer name, else the older one.
  if (!bind(impl->lib, "nvmlDeviceGetCurrentClocksEventReasons", impl->reasons, why_) &&
      !bind(impl->lib, "nvmlDeviceGetCurrentClocksThrottleReasons", impl->reasons, why_))
    return;
  if (int rc = impl->init(); rc != 0) {
    impl->shutdown = nullptr;
    why_ = "nvmlInit_v2 returned " + std::to_string(rc);
    return;
  }
  unsigned long long mj = 0;
  if (int rc = impl->handleByIndex(0, &impl->device); rc != 0) {
    why_ = "nvmlDeviceGetHandleByIndex_v2(0) returned " + std::to_string(rc);
    return;
  }
  if (int rc = impl->energy(impl->device, &mj); rc != 0) {
    why_ = "nvmlDeviceGetTotalEnergyConsumption returned " + std::to_string(rc);
    return;
  }
  why_.clear();
  impl_ = std::move(impl);
}

PowerMonitor::~PowerMonitor() = default;

void PowerMonitor::start() {
  Impl &m = *impl_;
  m.samples.clear();
  m.energy(m.device, &m.startMilliJoules);
  m.startTime = std::chrono::steady_clock::now();
  m.running = true;
  m.sampler = std::thread([&m] {
    while (m.running) {
      unsigned mhz = 0, mw = 0;
      unsigned long long why = 0;
      if (m.clock(m.device, 1, &mhz) == 0 && m.reasons(m.device, &why) == 0 &&
          m.power(m.device, &mw) == 0)
        m.samples.push_back({mhz, mw, why});
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
}

PowerReading PowerMonitor::stop() {
  Impl &m = *impl_;
  m.running = false;
  m.sampler.join();
  unsigned long long mj = 0;
  m.energy(m.device, &mj);
  PowerReading r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m.startTime).count();
  r.joules = double(mj - m.startMilliJoules) / 1e3;
  r.meanWatts = r.seconds > 0 ? r.joules / r.seconds : 0;
  r.samples = int(m.samples.size());
  // Clock-event reasons: 0x4 the SW power cap; 0x8 HW slowdown, 0x20 SW
  // thermal, 0x40 HW thermal, 0x80 HW power brake.
  for (const Impl::Sample &x : m.samples) {
    r.meanSmMHz += x.mhz;
    r.sampledWatts += x.milliWatts / 1e3;
    r.powerCapped += (x.why & 0x4) ? 1 : 0;
    r.thermal += (x.why & (0x8 | 0x20 | 0x40 | 0x80)) ? 1 : 0;
  }
  if (r.samples) {
    r.meanSmMHz /= r.samples;
    r.sampledWatts /= r.samples;
    r.powerCapped /= r.samples;
    r.thermal /= r.samples;
  }
  return r;
}

//===----------------------------------------------------------------------===//
// CublasGemm
//===----------------------------------------------------------------------===//

struct CublasGemm::Impl {
  void *lib = nullptr;
  void *handle = nullptr;
  int (*create)(void **) = nullptr;
  int (*destroy)(void *) = nullptr;
  int (*gemmEx)(void *, int, int, int, int, int, const void *, const void *, int, int,
                const void *, int, int, const void *, void *, int, int, int, int) = nullptr;
  ~Impl() {
    if (handle)
      destroy(handle);
    if (lib)
      dlclose(lib);
  }
};

CublasGemm::CublasGemm() {
  auto impl = std::make_unique<Impl>();
  impl->lib = openFirst({"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, why_);
  if (!impl->lib)
    return;
  if (!bind(impl->lib, "cublasCreate_v2", impl->create, why_) ||
      !bind(impl->lib, "cublasDestroy_v2", impl->destroy, why_) ||
      !bind(impl->lib, "cublasGemmEx", impl->gemmEx, why_))
    return;
  if (int rc = impl->create(&impl->handle); rc != 0) {
    impl->handle = nullptr;
    why_ = "cublasCreate_v2 returned " + std::to_string(rc);
    return;
  }
  why_.clear();
  impl_ = std::move(impl);
}

CublasGemm::~CublasGemm() = default;

void CublasGemm::run(int64_t M, int64_t N, int64_t K, const void *A, const void *B, void *C) {
  // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS's m, n = N, M.
  constexpr int opN = 0, bf16 = 14 /* CUDA_R_16BF */, compute32F = 68 /* CUBLAS_COMPUTE_32F */,
                algoDefault = -1;
  const float alpha = 1, beta = 0;
  int rc = impl_->gemmEx(impl_->handle, opN, opN, int(N), int(M), int(K), &alpha, B, bf16,
                         int(N), A, bf16, int(K), &beta, C, bf16, int(N), compute32F,
                         algoDefault);
  if (rc != 0)
    throw std::runtime_error("cublasGemmEx returned " + std::to_string(rc));
}

} // namespace minitile::bench
