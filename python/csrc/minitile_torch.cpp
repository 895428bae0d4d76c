//===- minitile_torch.cpp - the shipped kernels behind a plain C ABI ------===//
//
// libminitile_torch.so: the generated launchers of the shipped kernels
// wrapped in extern "C" functions that take sizes, raw device pointers, a
// CUDA stream and a device ordinal, and return a status instead of throwing.
// Python loads it with ctypes (python/minitile/torch/_lib.py), so nothing
// here depends on PyTorch's C++ ABI or on Python: one build serves every
// torch version and every Python. The stream is the caller's (torch's
// current stream); outputs are the caller's memory (torch's allocator).
//
// Each indexer kernel is specialised on its heads and head dimension at
// compile time: the build compiles one per (H, D) pair it is asked for
// (MINITILE_TORCH_SHAPES), listed in the generated minitile_torch_shapes.inc.
//
//===----------------------------------------------------------------------===//
#include <minitile/runtime.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

// The generated launchers: #include lines of every kernel library, then
// MINITILE_TORCH_SHAPE(H, D) for each indexer pair built, and
// MINITILE_TORCH_BWD_SHAPE(H, D) for each pair the backward was built for.
#include "minitile_torch_launchers.inc"

#define MINITILE_TORCH_API extern "C" __attribute__((visibility("default")))

namespace {

// Status codes, as python/minitile/torch/_lib.py reads them.
enum Status : int {
  kOk = 0,
  kBadArgument = 1, // the launcher refused an argument: a ValueError
  kCudaError = 2,   // a CUDA call failed: a RuntimeError
  kNotBuilt = 3,    // no kernel of this configuration in this build
};

thread_local std::string lastError;

/// Runs `launch` on device `device`'s primary context; turns what it throws
/// into a status and the thread's last error.
template <class F> int guarded(int device, F &&launch) {
  try {
    minitile::rt::useDevice(device);
    launch();
    return kOk;
  } catch (const minitile::rt::Error &e) {
    lastError = e.what();
    return e.code() == CUDA_SUCCESS ? kBadArgument : kCudaError;
  } catch (const std::exception &e) {
    lastError = e.what();
    return kCudaError;
  } catch (...) {
    lastError = "an unknown C++ exception";
    return kCudaError;
  }
}

int notBuilt(const char *kernel, int heads, int dim) {
  lastError = std::string(kernel) + ": no kernel for heads=" + std::to_string(heads) +
              ", dim=" + std::to_string(dim) + " in this build (built: " +
              MINITILE_TORCH_SHAPE_LIST +
              "); add the pair to MINITILE_TORCH_SHAPES and build again";
  return kNotBuilt;
}

using minitile::rt::bf16;

} // namespace

/// The message of the calling thread's last failed call.
MINITILE_TORCH_API const char *minitile_torch_last_error() { return lastError.c_str(); }

/// The (heads, dim) pairs the indexer kernels were built for, "64x128,32x128".
MINITILE_TORCH_API const char *minitile_torch_shapes() { return MINITILE_TORCH_SHAPE_LIST; }

/// The ABI version python/minitile/torch/_lib.py checks.
MINITILE_TORCH_API int minitile_torch_abi_version() { return 2; }

/// The (heads, dim) pairs the backward was built for, "64x128,32x128".
MINITILE_TORCH_API const char *minitile_torch_bwd_shapes() { return MINITILE_TORCH_BWD_SHAPE_LIST; }

/// logits [S, S_kv] f32 = the indexer of q [S, H, D] bf16, kv [S_kv, D] bf16,
/// weights [S, H] f32 and the windows ks, ke [S] i32; -inf outside them.
MINITILE_TORCH_API int minitile_torch_indexer_fwd(int heads, int dim, int64_t S, int64_t S_kv,
                                                  const void *q, const void *kv,
                                                  const void *weights, const void *ks,
                                                  const void *ke, void *logits, void *stream,
                                                  int device) {
#define MINITILE_TORCH_SHAPE(H, D)                                                         \
  if (heads == H && dim == D)                                                              \
    return guarded(device, [&] {                                                           \
      minitile_torch::indexer_fwd_h##H##_d##D(                                             \
          S, S_kv, static_cast<const bf16 *>(q), static_cast<const bf16 *>(kv),            \
          static_cast<const float *>(weights), static_cast<const int32_t *>(ks),           \
          static_cast<const int32_t *>(ke), static_cast<float *>(logits),                  \
          static_cast<CUstream>(stream));                                                  \
    });
  MINITILE_TORCH_SHAPES
#undef MINITILE_TORCH_SHAPE
  return notBuilt("indexer_fwd", heads, dim);
}

/// logits [B, S, S_kv] f32 of q [S, B, H, D], kv [S_kv, B, D], weights
/// [S, B, H] and windows ks, ke [S] shared by the batch.
MINITILE_TORCH_API int minitile_torch_batched_indexer_fwd(int heads, int dim, int64_t S,
                                                          int64_t S_kv, int64_t B,
                                                          const void *q, const void *kv,
                                                          const void *weights, const void *ks,
                                                          const void *ke, void *logits,
                                                          void *stream, int device) {
#define MINITILE_TORCH_SHAPE(H, D)                                                         \
  if (heads == H && dim == D)                                                              \
    return guarded(device, [&] {                                                           \
      minitile_torch::batched_indexer_fwd_h##H##_d##D(                                     \
          S, S_kv, B, static_cast<const bf16 *>(q), static_cast<const bf16 *>(kv),         \
          static_cast<const float *>(weights), static_cast<const int32_t *>(ks),           \
          static_cast<const int32_t *>(ke), static_cast<float *>(logits),                  \
          static_cast<CUstream>(stream));                                                  \
    });
  MINITILE_TORCH_SHAPES
#undef MINITILE_TORCH_SHAPE
  return notBuilt("batched_indexer_fwd", heads, dim);
}

/// Writes -inf to logits [S, S_kv] f32 outside each row's window; reads
/// nothing of logits.
MINITILE_TORCH_API int minitile_torch_clean_logits(int64_t S, int64_t S_kv, void *logits,
                                                   const void *ks, const void *ke,
                                                   void *stream, int device) {
  return guarded(device, [&] {
    minitile_torch::clean_logits(S, S_kv, static_cast<float *>(logits),
                                 static_cast<const int32_t *>(ks),
                                 static_cast<const int32_t *>(ke),
                                 static_cast<CUstream>(stream));
  });
}

/// indices and values [S, k] (B = 0) or [B, S, k] of the k largest logits
/// [S, S_kv] or [B, S, S_kv] of each row: ties to the lower index, -1 and
/// -inf past the row's entries > -inf, NaN counting as -inf. With ks and ke
/// (both or neither) only ks[s] <= t < ke[s] counts. `sorted`: by
/// descending value, ties by ascending index; else in no particular order.
MINITILE_TORCH_API int minitile_torch_topk(int64_t B, int64_t S, int64_t S_kv, int64_t k,
                                           const void *logits, const void *ks,
                                           const void *ke, void *values, void *indices,
                                           int sorted, void *stream, int device) {
  auto l = static_cast<const float *>(logits);
  auto s = static_cast<const int32_t *>(ks), e = static_cast<const int32_t *>(ke);
  auto v = static_cast<float *>(values);
  auto i = static_cast<int32_t *>(indices);
  auto st = static_cast<CUstream>(stream);
  bool windows = ks || ke;
  return guarded(device, [&] {
    namespace mt = minitile_torch;
    if (B == 0) {
      if (windows)
        sorted ? mt::topk_windows_sorted(S, S_kv, k, l, s, e, i, v, st)
               : mt::topk_windows(S, S_kv, k, l, s, e, i, v, st);
      else
        sorted ? mt::topk_sorted(S, S_kv, k, l, i, v, st) : mt::topk(S, S_kv, k, l, i, v, st);
    } else {
      if (windows)
        sorted ? mt::batched_topk_windows_sorted(S, S_kv, k, B, l, s, e, i, v, st)
               : mt::batched_topk_windows(S, S_kv, k, B, l, s, e, i, v, st);
      else
        sorted ? mt::batched_topk_sorted(S, S_kv, k, B, l, i, v, st)
               : mt::batched_topk(S, S_kv, k, B, l, i, v, st);
    }
  });
}

/// The indexer's backward at the selected indices: dq [S, H, D] bf16 and
/// dweights [S, H] f32 written, dkv [S_kv, D] f32 added into, from q,
/// weights, kv, indices [S, K] i32 (-1: none) and grad [S, K] f32. B = 0:
/// the single form; else q [S, B, H, D], weights [S, B, H], kv [S_kv, B, D],
/// indices and grad [B, S, K].
MINITILE_TORCH_API int minitile_torch_indexer_bwd(int heads, int dim, int64_t B, int64_t S,
                                                  int64_t S_kv, int64_t K, const void *q,
                                                  const void *kv, const void *weights,
                                                  const void *indices, const void *grad,
                                                  void *dq, void *dweights, void *dkv,
                                                  void *stream, int device) {
  auto qq = static_cast<const bf16 *>(q), kk = static_cast<const bf16 *>(kv);
  auto w = static_cast<const float *>(weights), g = static_cast<const float *>(grad);
  auto i = static_cast<const int32_t *>(indices);
  auto oq = static_cast<bf16 *>(dq);
  auto ow = static_cast<float *>(dweights), ok = static_cast<float *>(dkv);
  auto st = static_cast<CUstream>(stream);
#define MINITILE_TORCH_BWD_SHAPE(H, D)                                                     \
  if (heads == H && dim == D)                                                              \
    return guarded(device, [&] {                                                           \
      if (B == 0)                                                                          \
        minitile_torch::indexer_bwd_h##H##_d##D(S, S_kv, K, qq, kk, w, i, g, oq, ow, ok, st); \
      else                                                                                 \
        minitile_torch::batched_indexer_bwd_h##H##_d##D(S, S_kv, K, B, qq, kk, w, i, g, oq, \
                                                        ow, ok, st);                      \
    });
  MINITILE_TORCH_BWD_SHAPES
#undef MINITILE_TORCH_BWD_SHAPE
  lastError = std::string("indexer_bwd: no kernel for heads=") + std::to_string(heads) +
              ", dim=" + std::to_string(dim) + " in this build (built: " +
              MINITILE_TORCH_BWD_SHAPE_LIST + "; the kernel takes 32 or 64 heads, dim 64 or 128)";
  return kNotBuilt;
}
