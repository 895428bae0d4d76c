//===- minitile/runtime.h - load and launch minitile kernels --------------===//
//
// A small layer over the CUDA driver API. libcuda is opened at run time, so a
// program linking this runs (and reports "no GPU") on machines without one.
// Every failing CUDA call throws minitile::rt::Error naming the call and the
// CUDA error.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace minitile::rt {

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message, CUresult code = CUDA_SUCCESS)
      : std::runtime_error(message), code_(code) {}
  /// The CUDA error, or CUDA_SUCCESS for a bad argument.
  CUresult code() const { return code_; }

private:
  CUresult code_;
};

/// Throws Error("call: CUDA_ERROR_NAME (description)") unless `result` is
/// success. For an error that leaves the context unusable (a kernel's illegal
/// address, for one) the message adds that the context is lost.
void check(CUresult result, const char *call);

/// True for the errors after which every later CUDA call in the context fails
/// the same way: the process can launch nothing more on that GPU.
bool losesContext(CUresult result);

/// The name of a CUDA error ("CUDA_ERROR_INVALID_VALUE").
std::string errorName(CUresult result);

/// True if a CUDA driver and at least one device are present; otherwise
/// false, with the reason in `why`.
bool available(std::string *why = nullptr);

/// Makes sure the calling thread has a current context: the one it has, or
/// device `device`'s primary context.
CUcontext ensureContext(int device = 0);

/// Makes device `device`'s primary context current on the calling thread
/// unless a context of that device already is, and returns it: for callers
/// that launch on memory of a given device from any thread (PyTorch's
/// tensors live in the primary contexts).
CUcontext useDevice(int device);

/// The CUDA device name and multiprocessor count of the current context.
std::string deviceName();
int multiprocessorCount();

/// A device counter of 32 bits for the launches of queue-scheduled kernels
/// (persistent() with `dynamic`) on `stream` in the current context: zero
/// before each such launch, which hands out its work items by atomic adds on
/// it and leaves it zero again when it ends. Launches on one stream run in
/// turn, so they share it safely; each stream (each thread's per-thread
/// default stream) gets its own, from a pool of 1,024 made and zeroed by
/// the first call in a context that finds none free (cuMemAlloc: not while
/// capturing a stream into a graph, so launch once before capturing). A
/// graph's launches keep the counter of the stream it was captured from
/// and must not run beside direct launches on that stream.
int32_t *workCounter(CUstream stream);

/// 16-bit float elements, as the launchers' pointer types spell them.
struct bf16 {
  uint16_t bits;
  /// The nearest bf16 (ties to even).
  static bf16 fromFloat(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return bf16{uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16)};
  }
  float toFloat() const {
    uint32_t u = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};
struct f16 {
  uint16_t bits;
};

namespace detail {
/// True when every value of `From` is a value of `To`: an integer type within
/// the range of an integer `To` (not bool), a floating type no wider than a
/// floating `To`, or bool to bool.
template <class From, class To> constexpr bool convertsExactly() {
  using L = std::numeric_limits<From>;
  using M = std::numeric_limits<To>;
  if constexpr (!std::is_arithmetic_v<From> || !std::is_arithmetic_v<To>)
    return false;
  else if constexpr (std::is_same_v<From, bool> || std::is_same_v<To, bool>)
    return std::is_same_v<From, To>;
  else if constexpr (std::is_integral_v<To>)
    return std::is_integral_v<From> && (std::is_signed_v<To> || !std::is_signed_v<From>) &&
           L::digits <= M::digits;
  else
    return std::is_floating_point_v<From> && L::digits <= M::digits &&
           L::max_exponent <= M::max_exponent && L::min_exponent >= M::min_exponent;
}
} // namespace detail

/// A launcher's size or scalar parameter of type T. It takes only values that
/// T holds exactly -- `int` or `int64_t` for Scalar<int64_t>, `float` for
/// Scalar<float> -- so a float passed for a size, a size passed for a float
/// (two arguments swapped), a `double` for a `float` or a `size_t` for an
/// `int64_t` does not compile: convert it yourself where you mean it.
template <class T> struct Scalar {
  static_assert(std::is_arithmetic_v<T>);
  template <class U>
    requires(detail::convertsExactly<U, T>())
  constexpr Scalar(U v) noexcept : value(static_cast<T>(v)) {}
  /// Every other arithmetic type: a compile-time error at the call.
  template <class U>
    requires(std::is_arithmetic_v<U> && !detail::convertsExactly<U, T>())
  Scalar(U) = delete;
  constexpr operator T() const noexcept { return value; }
  T value;
};

struct Dim3 {
  int64_t x = 1, y = 1, z = 1;
};

enum class ImageKind { ptx, cubin };

/// A kernel in an embedded PTX or cubin image, loaded on first launch in
/// each context.
class KernelImage {
public:
  KernelImage(const void *data, size_t size, ImageKind kind, const char *function);
  /// Launches with kernel parameters `args` (pointers to each value).
  /// `at`: where the kernel's source computes the grid ("file:line"), which
  /// an error for a grid CUDA cannot launch (a negative one) names.
  void launch(Dim3 grid, Dim3 block, unsigned smemBytes, CUstream stream,
              void **args, const char *at = nullptr);
  CUfunction function();

private:
  const void *data_;
  size_t size_;
  ImageKind kind_;
  std::string function_;
  std::mutex mutex_;
  std::vector<std::pair<CUcontext, CUfunction>> loaded_;
  unsigned smemSet_ = 0;
};

/// Checks a tensor argument of a launcher: unless it is empty, its pointer
/// is non-null, a multiple of `align` bytes, and -- where a CUDA driver is
/// present -- memory the GPU can reach (device, managed or pinned host
/// memory; not pageable host memory from malloc, new or the stack). Its
/// `numel` elements of `align` bytes fit in memory and, where the driver
/// knows the allocation the pointer is in (cuMemGetAddressRange: device and
/// managed memory), in that allocation from the pointer on: a buffer smaller
/// than the sizes say is an Error naming the tensor and both sizes, not an
/// out-of-bounds write (see allocationChecks()).
void checkPointer(const char *kernel, const char *name, const void *ptr,
                  int64_t numel, int64_t align);

/// Whether checkPointer() asks the driver for each tensor's allocation (one
/// cuMemGetAddressRange a tensor a launch). On unless the environment sets
/// MINITILE_ALLOCATION_CHECKS=0 or setAllocationChecks(false) turned it off,
/// as CUDA's own launch checks can be.
bool allocationChecks();
void setAllocationChecks(bool on);

/// A tiled tensor map (cuTensorMapEncodeTiled) of the tensor `offset`
/// elements past `base`: `dims` extents and `strides` byte strides (all but
/// the innermost), `box` the box extents, each innermost first; `swizzle` 0,
/// 32, 64 or 128 bytes. Checks what the tensor-memory accelerator needs (a
/// 16-byte aligned address, strides of multiples of 16 bytes) and throws,
/// naming `kernel` and `tensor`, where they do not hold. An empty tensor gets
/// a map no copy reads.
CUtensorMap tensorMap(const char *kernel, const char *tensor, const void *base,
                      int64_t offset, CUtensorMapDataType type, int elementBytes,
                      int rank, const int64_t *dims, const int64_t *strides,
                      const int64_t *box, int swizzle);

/// Integer helpers of generated launchers: throw on division by zero.
int64_t divide(int64_t a, int64_t b, const char *kernel);
int64_t remainder(int64_t a, int64_t b, const char *kernel);
int64_t ceilDivide(int64_t a, int64_t b, const char *kernel);

/// A dispatching launcher's choice (minitile compile --tuned with per-shape
/// lines): of `shapes` rows of `sizes` tuned sizes each (row-major in
/// `tuned`), the rows nearest `actual` -- the least sum of |log2 actual -
/// log2 tuned|, sizes below 1 counting as 1 -- and the variant `variant[row]`
/// tuned there. Where nearest rows of different variants tie, `general`
/// (the table's line for all shapes), or the first row's variant if it is
/// negative.
int nearestVariant(const double *tuned, const int *variant, int shapes, int sizes,
                   const int64_t *actual, int general);

/// A launcher tuned per device (shipped kernels carry a table for each
/// device they were measured on): which of `count` tables serves the
/// current context's device. The first whose name (`tables[i]`, e.g.
/// "H200") is in the device's name, ignoring case; `fallback` where none
/// is. MINITILE_TUNED_DEVICE=NAME in the environment picks the table NAME
/// instead (to time one device's kernels on another); a NAME no table has
/// throws. Remembered per device in `cache` (a launcher's static): one
/// lookup a device, not a call.
struct DeviceTableCache {
  static constexpr int kDevices = 64;
  std::atomic<int> chosen[kDevices]; // the table + 1; 0: not looked up yet
};
int deviceTable(const char *const *tables, int count, int fallback, DeviceTableCache &cache);
/// deviceTable()'s choice for a device called `deviceName`, with `forced`
/// the value of MINITILE_TUNED_DEVICE (nullptr if unset): -1 where `forced`
/// names no table.
int matchDeviceTable(const char *deviceName, const char *forced, const char *const *tables,
                     int count, int fallback);

/// Throws the Error of a launcher computation that overflows its type; `at`
/// is the kernel source line computing it ("" if unknown).
[[noreturn]] void overflow(const char *kernel, const char *at);

/// Checked integer arithmetic of generated launchers (sizes times sizes):
/// an overflow throws instead of wrapping.
template <class T> T add(T a, T b, const char *kernel, const char *at) {
  T r;
  if (__builtin_add_overflow(a, b, &r))
    overflow(kernel, at);
  return r;
}
template <class T> T subtract(T a, T b, const char *kernel, const char *at) {
  T r;
  if (__builtin_sub_overflow(a, b, &r))
    overflow(kernel, at);
  return r;
}
template <class T> T multiply(T a, T b, const char *kernel, const char *at) {
  T r;
  if (__builtin_mul_overflow(a, b, &r))
    overflow(kernel, at);
  return r;
}

//===----------------------------------------------------------------------===//
// Conveniences for tests, examples and benchmarks
//===----------------------------------------------------------------------===//

namespace detail {
CUdeviceptr allocate(size_t bytes);
void release(CUdeviceptr p) noexcept;
void copyToDevice(CUdeviceptr dst, const void *src, size_t bytes);
void copyToHost(void *dst, CUdeviceptr src, size_t bytes);
void fill32(CUdeviceptr p, uint32_t word, size_t words);
} // namespace detail

/// Device memory for `n` elements of T.
template <class T> class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) : ptr_(detail::allocate(n * sizeof(T))), n_(n) {}
  explicit DeviceBuffer(const std::vector<T> &host) : DeviceBuffer(host.size()) {
    upload(host);
  }
  ~DeviceBuffer() { detail::release(ptr_); }
  DeviceBuffer(DeviceBuffer &&o) noexcept : ptr_(o.ptr_), n_(o.n_) {
    o.ptr_ = 0;
    o.n_ = 0;
  }
  DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  T *get() const { return reinterpret_cast<T *>(ptr_); }
  CUdeviceptr ptr() const { return ptr_; }
  size_t size() const { return n_; }
  void upload(const std::vector<T> &host) {
    if (host.size() != n_)
      throw Error("DeviceBuffer::upload: " + std::to_string(host.size()) +
                  " elements into a buffer of " + std::to_string(n_));
    detail::copyToDevice(ptr_, host.data(), n_ * sizeof(T));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    detail::copyToHost(host.data(), ptr_, n_ * sizeof(T));
    return host;
  }
  /// Sets every 32-bit word to `word` (0x7fc00000 is a float NaN).
  void fillWords(uint32_t word) { detail::fill32(ptr_, word, n_ * sizeof(T) / 4); }

private:
  CUdeviceptr ptr_ = 0;
  size_t n_ = 0;
};

/// Copies `bytes` between device buffers on `stream`.
void copyDeviceToDevice(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                        CUstream stream = nullptr);
/// Waits for all work in the current context.
void synchronize();

/// Queues, on `stream`, 128 MiB of device-to-device copying within a buffer
/// made on the first call (256 MiB, kept for the process): more than any
/// GPU's L2 cache, so a kernel timed after it starts with the cache cold
/// and the host's work to launch it hidden, as triton.testing.do_bench
/// times (minitile-bench and the tune runner do so before each timed launch).
void evictL2(CUstream stream = nullptr);

/// Device-side timing with CUDA events.
class Timer {
public:
  Timer();
  ~Timer();
  Timer(const Timer &) = delete;
  Timer &operator=(const Timer &) = delete;
  void start(CUstream stream = nullptr);
  /// Milliseconds since start(), after the work queued on `stream`.
  float stop(CUstream stream = nullptr);

private:
  CUevent begin_ = nullptr, end_ = nullptr;
};

} // namespace minitile::rt
