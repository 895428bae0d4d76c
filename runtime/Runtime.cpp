//===- Runtime.cpp - the CUDA driver, opened at run time ------------------===//
#include "minitile/runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <thread>
#include <tuple>

namespace minitile::rt {

namespace {

// The symbol a driver API name stands for in cuda.h ("cuMemAlloc" is
// cuMemAlloc_v2): the function with exactly the declared signature.
#define MINITILE_SYMBOL(name) MINITILE_SYMBOL_TEXT(name)
#define MINITILE_SYMBOL_TEXT(name) #name

/// The driver entry points minitile uses, looked up by their exact symbols.
struct Driver {
  std::string failure; // why the driver is unusable, "" if it works
#define MINITILE_DRIVER_FN(name) decltype(&::name) name = nullptr;
#include "runtime/DriverFunctions.def"

  Driver() {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      failure = "the CUDA driver (libcuda.so.1) is not installed";
      return;
    }
    auto resolve = [&](const char *symbol, void **fn) {
      *fn = dlsym(lib, symbol);
      if (!*fn && failure.empty())
        failure = std::string("the CUDA driver lacks ") + symbol;
    };
#define MINITILE_DRIVER_FN(name)                                               \
  resolve(MINITILE_SYMBOL(name), reinterpret_cast<void **>(&name));
#include "runtime/DriverFunctions.def"
    if (failure.empty()) {
      CUresult r = cuInit(0);
      if (r != CUDA_SUCCESS)
        failure = "cuInit failed: " + errorName(r);
    }
  }
};

Driver &driver() {
  static Driver d;
  return d;
}

/// The driver, or an Error saying why there is none.
Driver &api() {
  Driver &d = driver();
  if (!d.failure.empty())
    throw Error("minitile runtime: " + d.failure, CUDA_ERROR_NOT_INITIALIZED);
  return d;
}

} // namespace

std::string errorName(CUresult result) {
  Driver &d = driver();
  const char *name = nullptr;
  if (d.cuGetErrorName && d.cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUDA error " + std::to_string(static_cast<int>(result));
}

bool losesContext(CUresult result) {
  switch (result) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
    return true;
  default:
    return false;
  }
}

void check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  std::string message = std::string(call) + ": " + errorName(result);
  Driver &d = driver();
  const char *text = nullptr;
  if (d.cuGetErrorString && d.cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    message += " (" + std::string(text) + ")";
  if (losesContext(result))
    message += "; the CUDA context is lost: a kernel faulted, and this process can "
               "run nothing more on this GPU";
  throw Error(message, result);
}

bool available(std::string *why) {
  Driver &d = driver();
  std::string reason = d.failure;
  if (reason.empty()) {
    int count = 0;
    CUresult r = d.cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS)
      reason = "cuDeviceGetCount failed: " + errorName(r);
    else if (count == 0)
      reason = "the CUDA driver sees no GPU";
  }
  if (why)
    *why = reason;
  return reason.empty();
}

CUcontext ensureContext(int device) {
  Driver &d = api();
  CUcontext ctx = nullptr;
  check(d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  if (ctx)
    return ctx;
  CUdevice dev;
  check(d.cuDeviceGet(&dev, device), "cuDeviceGet");
  check(d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  return ctx;
}

CUcontext useDevice(int device) {
  Driver &d = api();
  CUcontext ctx = nullptr;
  check(d.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  CUdevice want;
  check(d.cuDeviceGet(&want, device), "cuDeviceGet");
  if (ctx) {
    CUdevice have;
    if (d.cuCtxGetDevice(&have) == CUDA_SUCCESS && have == want)
      return ctx;
  }
  // Each device's primary context is retained once for the process.
  static std::mutex mutex;
  static std::map<CUdevice, CUcontext> primary;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = primary.find(want);
    if (it == primary.end()) {
      CUcontext retained = nullptr;
      check(d.cuDevicePrimaryCtxRetain(&retained, want), "cuDevicePrimaryCtxRetain");
      it = primary.emplace(want, retained).first;
    }
    ctx = it->second;
  }
  check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  return ctx;
}

static CUdevice currentDevice() {
  ensureContext();
  CUdevice dev;
  check(api().cuCtxGetDevice(&dev), "cuCtxGetDevice");
  return dev;
}

std::string deviceName() {
  char name[256] = {};
  check(api().cuDeviceGetName(name, sizeof name, currentDevice()), "cuDeviceGetName");
  return name;
}

int multiprocessorCount() {
  int count = 0;
  check(api().cuDeviceGetAttribute(&count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                   currentDevice()),
        "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
  return count;
}

int32_t *workCounter(CUstream stream) {
  // Counters in pools of kPool, one pool after another per context; each
  // (context, stream) keeps the slot it was first given.
  constexpr size_t kPool = 1024;
  struct Key {
    CUcontext ctx;
    CUstream stream;
    std::thread::id thread; // for the per-thread default stream only
    bool operator<(const Key &o) const {
      return std::tie(ctx, stream, thread) < std::tie(o.ctx, o.stream, o.thread);
    }
  };
  static std::mutex mutex;
  static std::map<Key, int32_t *> slots;
  static std::map<CUcontext, std::pair<CUdeviceptr, size_t>> pools; // ctx -> (pool, used)
  CUcontext ctx = ensureContext();
  // A thread launching on one stream again and again finds its counter
  // without the lock.
  thread_local CUcontext lastCtx = nullptr;
  thread_local CUstream lastStream = nullptr;
  thread_local int32_t *last = nullptr;
  if (last && ctx == lastCtx && stream == lastStream)
    return last;
  Key key{ctx, stream,
          stream == CU_STREAM_PER_THREAD ? std::this_thread::get_id() : std::thread::id()};
  std::lock_guard<std::mutex> lock(mutex);
  auto remember = [&](int32_t *counter) {
    lastCtx = ctx;
    lastStream = stream;
    return last = counter;
  };
  if (auto it = slots.find(key); it != slots.end())
    return remember(it->second);
  auto &[pool, used] = pools[ctx];
  if (!pool || used == kPool) {
    CUdeviceptr fresh = 0;
    check(api().cuMemAlloc(&fresh, kPool * sizeof(int32_t)),
          "cuMemAlloc (the work counters of queue-scheduled kernels; capturing a stream? "
          "launch once on it before)");
    check(api().cuMemsetD32(fresh, 0, kPool), "cuMemsetD32 (the work counters)");
    pool = fresh;
    used = 0;
  }
  int32_t *counter = reinterpret_cast<int32_t *>(pool) + used++;
  slots.emplace(key, counter);
  return remember(counter);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

KernelImage::KernelImage(const void *data, size_t size, ImageKind kind,
                         const char *function)
    : data_(data), size_(size), kind_(kind), function_(function) {}

CUfunction KernelImage::function() {
  CUcontext ctx = ensureContext();
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto &[c, f] : loaded_)
    if (c == ctx)
      return f;
  Driver &d = api();
  CUmodule module;
  char log[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(sizeof log)};
  CUresult r = d.cuModuleLoadDataEx(&module, data_, 2, options, values);
  if (r != CUDA_SUCCESS)
    throw Error("loading the " + std::string(kind_ == ImageKind::ptx ? "PTX" : "cubin") +
                    " of " + function_ + ": " + errorName(r) +
                    (log[0] ? std::string(": ") + log : std::string()),
                r);
  CUfunction fn;
  check(d.cuModuleGetFunction(&fn, module, function_.c_str()), "cuModuleGetFunction");
  loaded_.emplace_back(ctx, fn);
  return fn;
}

void KernelImage::launch(Dim3 grid, Dim3 block, unsigned smemBytes,
                         CUstream stream, void **args, const char *at) {
  constexpr int64_t maxX = (int64_t(1) << 31) - 1, maxYZ = 65535;
  if (grid.x < 1 || grid.y < 1 || grid.z < 1 || grid.x > maxX || grid.y > maxYZ ||
      grid.z > maxYZ)
    throw Error(function_ + ": grid (" + std::to_string(grid.x) + ", " +
                std::to_string(grid.y) + ", " + std::to_string(grid.z) + ")" +
                (at && *at ? ", computed at " + std::string(at) + "," : std::string()) +
                " is outside what CUDA launches");
  CUfunction fn = function();
  Driver &d = api();
  if (smemBytes > 48 * 1024) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (smemSet_ < smemBytes) {
      check(d.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 static_cast<int>(smemBytes)),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
      smemSet_ = smemBytes;
    }
  }
  CUresult r = d.cuLaunchKernel(
      fn, static_cast<unsigned>(grid.x), static_cast<unsigned>(grid.y),
      static_cast<unsigned>(grid.z), static_cast<unsigned>(block.x),
      static_cast<unsigned>(block.y), static_cast<unsigned>(block.z), smemBytes,
      stream, args, nullptr);
  if (r != CUDA_SUCCESS)
    check(r, ("cuLaunchKernel(" + function_ + ")").c_str());
}

void overflow(const char *kernel, const char *at) {
  throw Error(std::string(kernel) + ": the sizes are too large: " +
              (at && *at ? "the launcher's computation at " + std::string(at)
                         : std::string("a launcher computation")) +
              " overflows");
}

void checkPointer(const char *kernel, const char *name, const void *ptr,
                  int64_t numel, int64_t align) {
  if (numel == 0)
    return;
  std::string where = std::string(kernel) + ": " + name;
  if (!ptr)
    throw Error(where + " is null but holds " + std::to_string(numel) + " elements");
  if (reinterpret_cast<uintptr_t>(ptr) % align)
    throw Error(where + " is not aligned to " + std::to_string(align) + " bytes");
  if (numel > INT64_MAX / align)
    throw Error(where + " holds " + std::to_string(numel) + " elements of " +
                std::to_string(align) + " bytes: more than memory can");
  // Without a driver nothing launches anyway (launch() says why); with one,
  // ask what the pointer is before the kernel faults on it.
  Driver &d = driver();
  if (!d.failure.empty())
    return;
  ensureContext();
  unsigned int type = 0;
  CUresult r = d.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                       reinterpret_cast<CUdeviceptr>(ptr));
  if (r == CUDA_ERROR_INVALID_VALUE || (r == CUDA_SUCCESS && type == 0))
    throw Error(where + " is not memory the GPU can reach (a host pointer from malloc, "
                        "new or the stack, or freed memory?): pass device memory");
  check(r, ("cuPointerGetAttribute(" + where + ")").c_str());
  // The elements the sizes say must lie in the pointer's allocation, where
  // the driver can say which that is (it cannot for every kind of memory).
  if (!allocationChecks())
    return;
  CUdeviceptr base = 0;
  size_t size = 0;
  const auto address = reinterpret_cast<CUdeviceptr>(ptr);
  if (d.cuMemGetAddressRange(&base, &size, address) != CUDA_SUCCESS || address < base)
    return;
  const uint64_t needed = uint64_t(numel) * uint64_t(align), left = base + size - address;
  if (needed > left)
    throw Error(where + " needs " + std::to_string(needed) + " bytes (" + std::to_string(numel) +
                " elements of " + std::to_string(align) + ") but its allocation holds " +
                std::to_string(left) + " bytes from that pointer (a buffer smaller than the "
                "sizes say?)");
}

namespace {
std::atomic<int> checkingAllocations{-1}; // -1: not yet read from the environment
} // namespace

void setAllocationChecks(bool on) { checkingAllocations = on ? 1 : 0; }

bool allocationChecks() {
  int on = checkingAllocations.load(std::memory_order_relaxed);
  if (on < 0) {
    const char *env = std::getenv("MINITILE_ALLOCATION_CHECKS");
    on = env && std::string(env) == "0" ? 0 : 1;
    checkingAllocations = on;
  }
  return on != 0;
}

CUtensorMap tensorMap(const char *kernel, const char *tensor, const void *base,
                      int64_t offset, CUtensorMapDataType type, int elementBytes,
                      int rank, const int64_t *dims, const int64_t *strides,
                      const int64_t *box, int swizzle) {
  std::string where = std::string(kernel) + ": " + tensor;
  bool empty = false;
  cuuint64_t globalDims[5], globalStrides[4];
  cuuint32_t boxDims[5], elementStrides[5];
  for (int d = 0; d < rank; ++d) {
    // The copies address the tensor with signed 32-bit coordinates.
    if (dims[d] > INT32_MAX)
      throw Error(where + ": dimension " + std::to_string(rank - 1 - d) + " has " +
                  std::to_string(dims[d]) + " elements; the tensor-memory accelerator "
                  "addresses at most " + std::to_string(INT32_MAX));
    empty = empty || dims[d] <= 0;
    globalDims[d] = std::max<int64_t>(dims[d], 1);
    boxDims[d] = static_cast<cuuint32_t>(box[d]);
    elementStrides[d] = 1;
  }
  for (int d = 0; d + 1 < rank; ++d) {
    if (strides[d] % 16)
      throw Error(where + ": the tensor-memory accelerator needs strides of a multiple "
                          "of 16 bytes; this one is " + std::to_string(strides[d]));
    globalStrides[d] = static_cast<cuuint64_t>(std::max<int64_t>(strides[d], 16));
  }
  CUtensorMap map{};
  if (empty || !base)
    return map; // no copy reads an empty tensor
  const char *address = static_cast<const char *>(base) + offset * elementBytes;
  if (reinterpret_cast<uintptr_t>(address) % 16)
    throw Error(where + ": the tensor-memory accelerator needs a 16-byte aligned address");
  CUtensorMapSwizzle sw = swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                          : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                          : swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                          : CU_TENSOR_MAP_SWIZZLE_NONE;
  check(api().cuTensorMapEncodeTiled(&map, type, rank, const_cast<char *>(address),
                                     globalDims, globalStrides, boxDims, elementStrides,
                                     CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        ("cuTensorMapEncodeTiled(" + where + ")").c_str());
  return map;
}

int nearestVariant(const double *tuned, const int *variant, int shapes, int sizes,
                   const int64_t *actual, int general) {
  // On every launch: two passes over the rows, nothing allocated.
  auto distance = [&](int r) {
    double d = 0;
    for (int c = 0; c < sizes; ++c)
      d += std::fabs(std::log2(double(std::max<int64_t>(actual[c], 1))) -
                     std::log2(std::max(tuned[r * sizes + c], 1.0)));
    return d;
  };
  double best = 0;
  for (int r = 0; r < shapes; ++r)
    if (double d = distance(r); r == 0 || d < best)
      best = d;
  int chosen = -1;
  for (int r = 0; r < shapes; ++r) {
    if (distance(r) > best + 1e-9)
      continue;
    if (chosen < 0)
      chosen = variant[r];
    else if (variant[r] != chosen)
      return general >= 0 ? general : chosen;
  }
  return chosen;
}

int matchDeviceTable(const char *deviceName, const char *forced, const char *const *tables,
                     int count, int fallback) {
  auto lower = [](std::string text) {
    for (char &c : text)
      c = char(std::tolower((unsigned char)c));
    return text;
  };
  if (forced && *forced) {
    for (int i = 0; i < count; ++i)
      if (lower(tables[i]) == lower(forced))
        return i;
    return -1;
  }
  std::string name = lower(deviceName ? deviceName : "");
  for (int i = 0; i < count; ++i)
    if (*tables[i] && name.find(lower(tables[i])) != std::string::npos)
      return i;
  return fallback;
}

int deviceTable(const char *const *tables, int count, int fallback, DeviceTableCache &cache) {
  CUdevice dev = currentDevice();
  std::atomic<int> *slot =
      dev >= 0 && dev < DeviceTableCache::kDevices ? &cache.chosen[dev] : nullptr;
  if (slot)
    if (int c = slot->load(std::memory_order_relaxed))
      return c - 1;
  const char *forced = std::getenv("MINITILE_TUNED_DEVICE");
  int c = matchDeviceTable(deviceName().c_str(), forced, tables, count, fallback);
  if (c < 0) {
    std::string names;
    for (int i = 0; i < count; ++i)
      names += std::string(i ? ", " : "") + tables[i];
    throw Error(std::string("MINITILE_TUNED_DEVICE=") + forced +
                " names no table of this launcher (it has " + names + ")");
  }
  if (slot)
    slot->store(c + 1, std::memory_order_relaxed);
  return c;
}

int64_t divide(int64_t a, int64_t b, const char *kernel) {
  if (b == 0)
    throw Error(std::string(kernel) + ": division by zero in the launcher");
  if (a == INT64_MIN && b == -1) // undefined in C++
    overflow(kernel, nullptr);
  return a / b;
}

int64_t remainder(int64_t a, int64_t b, const char *kernel) {
  if (b == 0)
    throw Error(std::string(kernel) + ": division by zero in the launcher");
  return b == -1 ? 0 : a % b; // INT64_MIN % -1 is undefined in C++
}

int64_t ceilDivide(int64_t a, int64_t b, const char *kernel) {
  int64_t q = divide(a, b, kernel);
  return q + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
}

//===----------------------------------------------------------------------===//
// Memory, timing
//===----------------------------------------------------------------------===//

namespace detail {

CUdeviceptr allocate(size_t bytes) {
  ensureContext();
  CUdeviceptr p = 0;
  if (bytes)
    check(api().cuMemAlloc(&p, bytes), "cuMemAlloc");
  return p;
}

void release(CUdeviceptr p) noexcept {
  if (p && driver().failure.empty())
    driver().cuMemFree(p);
}

void copyToDevice(CUdeviceptr dst, const void *src, size_t bytes) {
  if (bytes)
    check(api().cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

void copyToHost(void *dst, CUdeviceptr src, size_t bytes) {
  if (bytes)
    check(api().cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

void fill32(CUdeviceptr p, uint32_t word, size_t words) {
  if (words)
    check(api().cuMemsetD32(p, word, words), "cuMemsetD32");
}

} // namespace detail

void copyDeviceToDevice(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                        CUstream stream) {
  check(api().cuMemcpyDtoDAsync(dst, src, bytes, stream), "cuMemcpyDtoDAsync");
}

void synchronize() { check(api().cuCtxSynchronize(), "cuCtxSynchronize"); }

void evictL2(CUstream stream) {
  constexpr size_t half = size_t(128) << 20;
  static DeviceBuffer<unsigned char> buffer(2 * half);
  copyDeviceToDevice(buffer.ptr() + half, buffer.ptr(), half, stream);
}

Timer::Timer() {
  ensureContext();
  check(api().cuEventCreate(&begin_, CU_EVENT_DEFAULT), "cuEventCreate");
  check(api().cuEventCreate(&end_, CU_EVENT_DEFAULT), "cuEventCreate");
}

Timer::~Timer() {
  if (driver().failure.empty()) {
    driver().cuEventDestroy(begin_);
    driver().cuEventDestroy(end_);
  }
}

void Timer::start(CUstream stream) {
  check(api().cuEventRecord(begin_, stream), "cuEventRecord");
}

float Timer::stop(CUstream stream) {
  check(api().cuEventRecord(end_, stream), "cuEventRecord");
  check(api().cuEventSynchronize(end_), "cuEventSynchronize");
  float ms = 0;
  check(api().cuEventElapsedTime(&ms, begin_, end_), "cuEventElapsedTime");
  return ms;
}

} // namespace minitile::rt
