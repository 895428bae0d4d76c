// The consumer's own kernel: y = a * x + y over n elements.
#include <minitile/dsl.h>

using namespace minitile;

struct Axpy : Generator {
  Param<int> threads{"threads", 256, 32, 1024, "threads per block"};

  void generate(Kernel &k) override {
    Value n = k.size("n");
    Value a = k.scalar("a", DType::f32);
    Tensor x = k.tensor("x", DType::f32, {n});
    Tensor y = k.tensor("y", DType::f32, {n});
    k.require(n < (int64_t(1) << 31), "n must be below 2^31");
    k.threads(threads);
    k.grid(ceildiv(n, threads));
    Value i = k.blockId() * threads + k.threadId();
    k.if_(i < n, [&] { y(i) = a * x(i) + y(i); });
  }
};
MINITILE_KERNEL(Axpy, "axpy", "y = a * x + y");
