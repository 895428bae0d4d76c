//===- FakeCuda.cpp - a CUDA driver that runs nothing, for tests ----------===//
//
// libcuda.so.1 for machines without a GPU: the driver functions the minitile
// runtime opens (runtime/DriverFunctions.def), over host memory. Kernels do
// not run: a launch only records which module it came from, so that CUDA
// events time it as 10 us + 1 us per module loaded before it (the first
// module is the fastest). With FAKE_CUDA_SCRIBBLE=N, launches of the N-th
// module loaded (from 0) write a byte into the first device allocation among
// their arguments, a kernel that computes something else. With
// FAKE_CUDA_FAULT=N (or FAKE_CUDA_HANG=N) and FAKE_CUDA_ONCE=FILE, the first
// launch of the N-th module faults with CUDA_ERROR_ILLEGAL_ADDRESS (or never
// finishes) unless FILE exists, which it then creates: once per test. With
// FAKE_CUDA_LOG=1 every launch prints its module, grid and block to stderr
// (which of a dispatching launcher's kernels ran). Lets
// tune-runner's whole path (allocate, fill, launch, check, time, write the
// table, start again without a point that faults or hangs) run in the lit
// tests (tests/lit/cli/tune.test).
//
//===----------------------------------------------------------------------===//
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include <unistd.h>

namespace {

std::map<CUdeviceptr, size_t> allocations;
int modules = 0;
int lastModule = 0;                         // of the last launch
std::map<CUevent, int> recorded;            // event -> module launched before it
int fakeContext, fakeEvents[64], nextEvent; // addresses as handles

} // namespace

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr) {
  *pStr = error == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr) {
  *pStr = "an error of the fake CUDA driver";
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGet(CUdevice *device, int) {
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice) {
  // FAKE_CUDA_DEVICE_NAME: the name to report (a launcher choosing its
  // tuned table by the device's name).
  const char *fake = std::getenv("FAKE_CUDA_DEVICE_NAME");
  std::strncpy(name, fake ? fake : "Fake GPU", len);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute, CUdevice) {
  *pi = 4;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice) {
  *pctx = reinterpret_cast<CUcontext>(&fakeContext);
  return CUDA_SUCCESS;
}
static CUcontext current = nullptr;
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx) {
  *pctx = current;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  current = ctx;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetDevice(CUdevice *device) {
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *, unsigned int, CUjit_option *,
                                    void **) {
  *module = reinterpret_cast<CUmodule>(intptr_t(++modules)); // 1, 2, ...
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *) {
  *hfunc = reinterpret_cast<CUfunction>(hmod);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  return CUDA_SUCCESS;
}
/// True, once, if `variable` names the module launched and FAKE_CUDA_ONCE's
/// file does not exist yet.
static bool once(const char *variable) {
  const char *which = std::getenv(variable), *file = std::getenv("FAKE_CUDA_ONCE");
  if (!which || !file || std::atoi(which) != lastModule)
    return false;
  if (FILE *f = std::fopen(file, "r")) {
    std::fclose(f);
    return false;
  }
  if (FILE *f = std::fopen(file, "w"))
    std::fclose(f);
  return true;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                unsigned int bx, unsigned int by, unsigned int bz, unsigned int,
                                CUstream, void **kernelParams, void **) {
  lastModule = int(reinterpret_cast<intptr_t>(f)) - 1;
  if (const char *log = std::getenv("FAKE_CUDA_LOG"); log && *log == '1')
    std::fprintf(stderr, "fake cuda: launch of module %d, grid (%u, %u, %u), block (%u, %u, %u)\n",
                 lastModule, gx, gy, gz, bx, by, bz);
  if (once("FAKE_CUDA_FAULT"))
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  if (once("FAKE_CUDA_HANG"))
    for (;;)
      pause();
  const char *scribble = std::getenv("FAKE_CUDA_SCRIBBLE");
  if (scribble && std::atoi(scribble) == lastModule)
    // minitile's launchers end their parameters with a null.
    for (void **p = kernelParams; *p; ++p) {
      CUdeviceptr value;
      std::memcpy(&value, *p, sizeof value);
      if (allocations.count(value)) {
        reinterpret_cast<unsigned char *>(value)[0] ^= 0x40;
        break;
      }
    }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  void *p = std::aligned_alloc(256, (bytesize + 255) / 256 * 256);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *dptr = reinterpret_cast<CUdeviceptr>(p);
  allocations[*dptr] = bytesize;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemFree(CUdeviceptr dptr) {
  allocations.erase(dptr);
  std::free(reinterpret_cast<void *>(dptr));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) {
  std::memcpy(reinterpret_cast<void *>(dst), src, n);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) {
  std::memcpy(dst, reinterpret_cast<void *>(src), n);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream) {
  std::memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), n);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemsetD32(CUdeviceptr dst, unsigned int ui, size_t n) {
  for (size_t i = 0; i < n; ++i)
    std::memcpy(reinterpret_cast<char *>(dst) + 4 * i, &ui, 4);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int) {
  *phEvent = reinterpret_cast<CUevent>(&fakeEvents[nextEvent++ % 64]);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream) {
  recorded[hEvent] = lastModule;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent, CUevent hEnd) {
  *ms = 0.010f + 0.001f * float(recorded[hEnd]);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventDestroy(CUevent) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType, cuuint32_t,
                                        void *, const cuuint64_t *, const cuuint64_t *,
                                        const cuuint32_t *, const cuuint32_t *,
                                        CUtensorMapInterleave, CUtensorMapSwizzle,
                                        CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  std::memset(tensorMap, 0, sizeof *tensorMap);
  return CUDA_SUCCESS;
}
CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute, CUdeviceptr ptr) {
  for (const auto &[base, bytes] : allocations)
    if (ptr >= base && ptr < base + bytes) {
      *static_cast<unsigned int *>(data) = CU_MEMORYTYPE_DEVICE;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr) {
  for (const auto &[base, bytes] : allocations)
    if (dptr >= base && dptr < base + bytes) {
      if (pbase)
        *pbase = base;
      if (psize)
        *psize = bytes;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_NOT_FOUND;
}
