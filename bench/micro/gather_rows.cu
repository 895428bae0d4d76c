// gather_rows.cu - how fast 64 gathered 256-byte rows reach shared memory.
//
// The indexer's backward gathers, for each tile, the 64 kv rows a query's
// top-k selected (128 bf16 columns, two 128-byte-swizzled panels) into a
// ring of 3 stages, two blocks a multiprocessor. This times that gather
// alone, three ways: (a) one thread issuing two 128-byte TMA boxes a row
// (128 a tile), (b) 32 lanes each issuing the boxes of two rows, (c) 32
// lanes of 16-byte cp.async (32 each a tile) arriving on the stage's
// barrier with cp.async.mbarrier.arrive.noinc. A consumer warpgroup waits
// for each stage, reads a word of it, spins DELAY cycles (0, 2000, 4000:
// none, and about the backward's compute a tile) and frees it. Random rows
// of a 4096-row table (L2-resident, as the backward's kv is), 1 in 50 a
// -1 (zeros).
//
//   nvcc -O3 -std=c++17 -arch=sm_90a -o gather_rows gather_rows.cu -lcuda
//
// On an H100 (2026-12-07): 5.69 / 3.47 / 1.21 us a tile a block with no
// delay: the TMA takes small boxes at about 760 GB/s however they are
// issued; the lanes' cp.async, 3.6 TB/s.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <random>
#include <algorithm>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1);} } while (0)

constexpr int STAGES = 3, ROWS = 64, TILE_BYTES = ROWS * 256;

__device__ __forceinline__ uint32_t sa(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(uint64_t *b, int n) { asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(sa(b)), "r"(n)); }
__device__ __forceinline__ void bar_wait(uint64_t *b, int parity) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(sa(b)), "r"(parity));
}
__device__ __forceinline__ void bar_arrive(uint64_t *b) { asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(sa(b))); }
__device__ __forceinline__ void bar_expect(uint64_t *b, int bytes) { asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(sa(b)), "r"(bytes)); }
__device__ __forceinline__ void tma_row(const CUtensorMap *m, void *dst, uint64_t *b, int col, int row) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
               ::"r"(sa(dst)), "l"(m), "r"(sa(b)), "r"(col), "r"(row) : "memory");
}

template <int MODE>
__global__ void __launch_bounds__(256) gather(const __grid_constant__ CUtensorMap map, const uint16_t *kv, const int *idx,
                                             int T, int tiles, int delay, int *sink) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t *smem = (uint8_t *)(((uintptr_t)smem_raw + 1023) / 1024 * 1024);
  __shared__ uint64_t full[STAGES], empty[STAGES];
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) { bar_init(&full[s], MODE == 2 ? 32 : MODE == 1 ? 32 : 1); bar_init(&empty[s], 1); }
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  const int *myidx = idx + (size_t)blockIdx.x * tiles * ROWS;
  if (warp == 4) { // producer warp
    for (int t = 0; t < tiles; ++t) {
      int s = t % STAGES, ph = (t / STAGES) & 1;
      if (t >= STAGES) bar_wait(&empty[s], ph ^ 1);
      uint8_t *st = smem + s * TILE_BYTES;
      const int *ti = myidx + t * ROWS;
      if (MODE == 0) {
        if (lane == 0) {
          bar_expect(&full[s], TILE_BYTES);
          for (int r = 0; r < ROWS; ++r) {
            int row = ti[r];
            row = (row < 0 || row >= T) ? T : row; // out of bounds: TMA zero fill
            tma_row(&map, st + r * 128, &full[s], 0, row);
            tma_row(&map, st + 8192 + r * 128, &full[s], 64, row);
          }
        }
      } else if (MODE == 1) {
        // each lane two rows, arrives with its bytes
        bar_expect(&full[s], 2 * 256);
        for (int k = 0; k < 2; ++k) {
          int r = lane * 2 + k, row = ti[r];
          row = (row < 0 || row >= T) ? T : row;
          tma_row(&map, st + r * 128, &full[s], 0, row);
          tma_row(&map, st + 8192 + r * 128, &full[s], 64, row);
        }
      } else {
        int v0 = ti[lane], v1 = ti[32 + lane];
#pragma unroll 8
        for (int i = 0; i < 32; ++i) {
          int r = 2 * i + (lane >> 4), c16 = lane & 15, p = c16 >> 3, c = c16 & 7;
          int row = __shfl_sync(0xffffffff, r < 32 ? v0 : v1, r & 31);
          bool ok = row >= 0 && row < T;
          const uint8_t *src = (const uint8_t *)kv + (size_t)(ok ? row : 0) * 256 + c16 * 16;
          uint32_t dst = sa(st + p * 8192 + r * 128 + ((c ^ (r & 7)) * 16));
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(ok ? 16 : 0) : "memory");
        }
        asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(sa(&full[s])) : "memory");
      }
    }
  } else if (warp < 4) { // consumer warpgroup
    int acc = 0;
    for (int t = 0; t < tiles; ++t) {
      int s = t % STAGES, ph = (t / STAGES) & 1;
      bar_wait(&full[s], ph);
      if (MODE == 2) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      acc += *(volatile int *)(smem + s * TILE_BYTES + tid * 128);
      if (delay) { long long t0 = clock64(); while (clock64() - t0 < delay) {} }
      asm volatile("bar.sync 1, 128;");
      if (tid == 0) bar_arrive(&empty[s]);
    }
    if (acc == 0x12345) sink[0] = acc;
  }
}

int main(int argc, char **argv) {
  int T = 4096, tiles = 256, nsm = 132;
  CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
  int blocks = nsm * 2;
  std::vector<uint16_t> hkv((size_t)T * 128);
  std::mt19937 rng(1);
  for (auto &x : hkv) x = rng() & 0x3fff;
  std::vector<int> hidx((size_t)blocks * tiles * ROWS);
  for (auto &x : hidx) x = (rng() % 50 == 0) ? -1 : int(rng() % T);
  uint16_t *kv; int *idx, *sink;
  CK(cudaMalloc(&kv, hkv.size() * 2)); CK(cudaMalloc(&idx, hidx.size() * 4)); CK(cudaMalloc(&sink, 4));
  CK(cudaMemcpy(kv, hkv.data(), hkv.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(idx, hidx.data(), hidx.size() * 4, cudaMemcpyHostToDevice));
  CUtensorMap map;
  cuuint64_t dims[2] = {128, (cuuint64_t)T}, strides[1] = {256};
  cuuint32_t box[2] = {64, 1}, es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, kv, dims, strides, box, es,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r) { printf("encode %d\n", r); return 1; }
  int smem = STAGES * TILE_BYTES + 1024;
  const char *names[] = {"TMA, one thread", "TMA, 32 lanes", "cp.async, 32 lanes"};
  for (int delay : {0, 2000, 4000}) {
    for (int mode = 0; mode < 3; ++mode) {
      auto k = mode == 0 ? gather<0> : mode == 1 ? gather<1> : gather<2>;
      CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
      std::vector<float> ms;
      for (int rep = 0; rep < 12; ++rep) {
        CK(cudaEventRecord(a));
        k<<<blocks, 160, smem>>>(map, kv, idx, T, tiles, delay, sink);
        CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); CK(cudaGetLastError());
        float m; CK(cudaEventElapsedTime(&m, a, b)); if (rep >= 2) ms.push_back(m);
      }
      std::sort(ms.begin(), ms.end());
      double med = ms[ms.size() / 2], per = med * 1e3 / tiles;
      printf("delay %5d  %-20s %.3f ms  %.3f us a tile a block  %.0f GB/s\n", delay, names[mode], med, per,
             (double)blocks * tiles * TILE_BYTES / (med * 1e-3) / 1e9);
    }
  }
  return 0;
}
