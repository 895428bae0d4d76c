// Calls of the axpy launcher, axpy(n, a, x, y), one per SWAPPED_CASE: `ok`
// must compile; every other case passes an argument of a type the
// parameter does not hold exactly, and must not.
#include "axpy.h"

#include <cstddef>
#include <cstdint>

void call(int64_t n, float a, const float *x, float *y, size_t count) {
#if SWAPPED_CASE_ok
  consumer::gpu::axpy(n, a, x, y);
  consumer::gpu::axpy(16, 0.5f, x, y);
  consumer::gpu::axpy(int64_t(count), a, x, y);
#elif SWAPPED_CASE_swapped
  consumer::gpu::axpy(a, n, x, y);
#elif SWAPPED_CASE_float_for_size
  consumer::gpu::axpy(a, a, x, y);
#elif SWAPPED_CASE_size_for_float
  consumer::gpu::axpy(n, n, x, y);
#elif SWAPPED_CASE_double_for_float
  consumer::gpu::axpy(n, 0.5, x, y);
#elif SWAPPED_CASE_size_t_for_size
  consumer::gpu::axpy(count, a, x, y);
#else
#error "no SWAPPED_CASE_<case> defined"
#endif
}
