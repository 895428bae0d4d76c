// wgmma_rounds.cu - how busy a compute-warpgroup round keeps the tensor pipe.
//
// A microbenchmark for a question about the indexer's overlapped loops:
// with G compute warpgroups each running rounds of U overlapped
// copies of "gemm, then epilogue" -- the shape tile-warp-specialize gives an
// overlapped pipelined loop --
//
//   H0 [H1 wait(1) R0] [H2 wait(1) R1] ... wait(0) R(U-1)
//
// (H: wait for the copy's tile, 8 wgmma m64n128k16 on it, commit; R: the
// epilogue on the copy before's accumulator, two alternating), what fraction
// of the time the tensor pipe runs, and what costs it. Each warpgroup's
// gemm reads a 64 x 128 bf16 tile (a KV tile) and a 128 x 128 one shared by
// all (the queries), 128-byte swizzled; the contents do not matter. One
// block a multiprocessor; clock64 around the loop; tensor % = 512 cycles a
// gemm over the cycles a gemm took.
//
// Protocols:
//   kStatic      no barriers: copy c always reads tile c (what a kernel would
//                reach if its tiles were always there);
//   kRing        each warpgroup its own ring of U stages, filled by a producer
//                warp of its own with bulk copies (cp.async.bulk, 16 KiB, from
//                an L2-resident buffer) on full/empty mbarriers, the stage
//                released once its gemm is done -- the indexer's protocol;
//   kRingNoWait  kRing, but the compute warps skip the full-barrier waits
//                (timing only: they may read a tile being overwritten);
//   kRingTma     kRing with tensor-map loads (cp.async.bulk.tensor, two
//                64-column boxes a tile, 128-byte swizzle), as the compiler
//                issues them;
//   kRingItems   kRingTma with items loaded as the persistent indexer loads
//                them: a third producer warp fetches each item's queries
//                (32 KiB) into one of two buffers on item barriers, the KV
//                warps wait for an item to land before its first tile (the
//                indexer's bounds), the compute warps wait for it before
//                its first gemm and release it after its last;
//   kRingItemsHeld  kRingItems with each copy's A descriptors made at the
//                item's start from a value the compiler cannot see through
//                and held in registers across the item (8 a copy), as the
//                indexer's per-item loops hold theirs.
//   sharedRounds (its own kernel): DeepGEMM's sm90 MQA-logits layout -- a
//                stage holds a tile for every group, S stages, so each group
//                sees every stage ahead of it; the gemm whole or split in two
//                halves of N (m64n64), the first half's epilogue under the
//                second half's wgmma, or the halves overlapped across tiles
//                (each half's epilogue under the other half's next gemm);
//                G = 4 fits (96-112 registers).
// Interleave (the last template argument): copy c of group g on stage
// c * G + g, as the compiler lays the indexer's ring out, not g * U + c.
// Streams (the template argument before it, with the item protocols): each
// block's item queries read once from a buffer of every block's items (HBM,
// not L2), its logits written once, 512 bytes a tile, as the indexer writes
// them.
// Epilogues:
//   kNone        nothing but keeping the accumulator alive;
//   kIndexer     the indexer's: relu(acc) * weight summed over 16 heads in
//                four chains, the sum over a row's four lanes (two shuffles),
//                the window test, one store a thread;
//   kIndexerWide as kIndexer with a weight for each of a thread's 32
//                columns, as the indexer holds them (16 more registers live
//                across the loop).
//
// Not part of the CMake build (CUDA and sm_90a only). Build and run:
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a \
//        -o wgmma-rounds bench/micro/wgmma_rounds.cu && ./wgmma-rounds
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#define CHECK(x)                                                                         \
  do {                                                                                   \
    cudaError_t e = (x);                                                                 \
    if (e != cudaSuccess) {                                                              \
      std::printf("wgmma-rounds: %s at line %d\n", cudaGetErrorString(e), __LINE__);    \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

enum Protocol { kStatic, kRing, kRingNoWait, kRingTma, kRingItems, kRingItemsHeld };
enum Epilogue { kNone, kIndexer, kIndexerWide };

constexpr int kTileBytes = 64 * 128 * 2;   // A: 64 rows x 128 bf16
constexpr int kQueryBytes = 128 * 128 * 2; // B: 128 rows x 128 bf16
constexpr int kIters = 2016;               // gemms a warpgroup (a multiple of 1..4 copies and of items of 8, 32 and 1008)

// --- wgmma ------------------------------------------------------------------

__device__ __forceinline__ uint64_t descriptor(uint32_t smem) {
  return uint64_t((smem & 0x3FFFF) >> 4) | uint64_t(1) << 16 | uint64_t(1024 >> 4) << 32 |
         uint64_t(1) << 62; // 128-byte swizzle, 8 rows of 128 bytes a group
}

__device__ __forceinline__ void wgmma(float *d, uint64_t a, uint64_t b, int accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
        "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
        "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
        "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
        "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),
        "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
        "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),
        "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(a), "l"(b), "r"(accumulate));
}

/// The gemm of one copy: K = 128 in 8 steps of 16 (two 64-column panels).
__device__ __forceinline__ void gemm(float *acc, uint32_t tile, uint32_t queries) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int k = 0; k < 8; ++k)
    wgmma(acc, descriptor(tile + (k / 4) * 64 * 128 + (k % 4) * 32),
          descriptor(queries + (k / 4) * 128 * 128 + (k % 4) * 32), k > 0);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/// The gemm with its A descriptors given (as a kernel holding them in
/// registers across a loop passes them).
__device__ __forceinline__ void gemmHeld(float *acc, const uint32_t *a, uint32_t queries) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int k = 0; k < 8; ++k)
    wgmma(acc, uint64_t(a[k]) | uint64_t(1024 >> 4) << 32 | uint64_t(1) << 62,
          descriptor(queries + (k / 4) * 128 * 128 + (k % 4) * 32), k > 0);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/// wgmma m64n64k16 (the gemm's N split in two halves: 32 accumulators a thread).
__device__ __forceinline__ void wgmma64(float *d, uint64_t a, uint64_t b, int accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
        "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
        "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
        "+f"(d[31])
      : "l"(a), "l"(b), "r"(accumulate));
}

/// The descriptor of `tile` + OFFSET made where it is used (volatile: the
/// compiler cannot hoist it out of a loop and hold it in a register), the
/// offset an immediate -- as minitile's --wgmma-descriptors at-use makes
/// them.
template <int Offset> __device__ __forceinline__ uint64_t descriptorAt(uint32_t tile) {
  uint64_t d;
  asm volatile("{ .reg .b32 lo; add.s32 lo, %1, %2; mov.b64 %0, {lo, %3}; }"
               : "=l"(d)
               : "r"(((tile & 0x3FFFF) >> 4) | 1 << 16), "n"(Offset >> 4),
                 "n"((1024 >> 4) | 1 << 30));
  return d;
}

template <int K, int H> __device__ __forceinline__ void wgmmaHalfStep(float *acc, uint32_t tile,
                                                                      uint32_t queries) {
  wgmma64(acc, descriptorAt<(K / 4) * 64 * 128 + (K % 4) * 32>(tile),
          descriptorAt<(K / 4) * 128 * 128 + H * 64 * 128 + (K % 4) * 32>(queries), K > 0);
}

/// Half `H` of a copy's gemm: the tile against query rows 64H..64H+63 (N = 64).
template <int H> __device__ __forceinline__ void gemmHalf(float *acc, uint32_t tile, uint32_t queries) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  wgmmaHalfStep<0, H>(acc, tile, queries);
  wgmmaHalfStep<1, H>(acc, tile, queries);
  wgmmaHalfStep<2, H>(acc, tile, queries);
  wgmmaHalfStep<3, H>(acc, tile, queries);
  wgmmaHalfStep<4, H>(acc, tile, queries);
  wgmmaHalfStep<5, H>(acc, tile, queries);
  wgmmaHalfStep<6, H>(acc, tile, queries);
  wgmmaHalfStep<7, H>(acc, tile, queries);
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int N> __device__ __forceinline__ void waitGemms() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// --- mbarriers and bulk copies -------------------------------------------------

__device__ __forceinline__ void barrierInit(uint32_t bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void barrierWait(uint32_t bar, int parity) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               " @!p bra W;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}
__device__ __forceinline__ void barrierArrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void bulkLoad(uint32_t dst, const void *src, int bytes, uint32_t bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(dst),
      "l"(src), "r"(bytes), "r"(bar)
      : "memory");
}

/// Tile `row` (64 rows) of the tensor map into dst: two boxes of 64 x 64.
__device__ __forceinline__ void tmaLoad(uint32_t dst, const CUtensorMap *map, int row,
                                        uint32_t bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
               "r"(kTileBytes)
               : "memory");
  for (int panel = 0; panel < 2; ++panel)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst + panel * 64 * 128),
                 "l"(map), "r"(panel * 64), "r"(row * 64), "r"(bar)
                 : "memory");
}

// --- the epilogue ----------------------------------------------------------------

template <Epilogue E, bool Stream = false>
__device__ __forceinline__ void epilogue(const float *acc, const float *weight, float *out,
                                         int t) {
  if constexpr (E == kNone) {
    if (acc[0] == 1234.5f) // never: keeps the accumulator alive
      out[threadIdx.x] = acc[63];
  } else {
    float sum[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      float s = 0.f;
#pragma unroll
      for (int h = 0; h < 16; ++h)
        s = fmaf(fmaxf(acc[c * 16 + h], 0.f), weight[E == kIndexerWide ? (c * 16 + h) % 32 : h], s);
      s += __shfl_xor_sync(0xffffffff, s, 1);
      s += __shfl_xor_sync(0xffffffff, s, 2);
      sum[c] = s;
    }
    int lane = threadIdx.x & 3, row = threadIdx.x & 127, col = t + row % 64;
    float v = lane == 0 ? sum[0] : lane == 1 ? sum[1] : lane == 2 ? sum[2] : sum[3];
    float *at = Stream ? out + size_t(t / 64) * 128 + row // tile t/64 of this group's stream
                       : out + (row / 64) * 4096 + (col & 4095);
    *at = col >= (threadIdx.x & 7) ? v : -INFINITY;
  }
}

/// The epilogue of half `h` of a split gemm (32 accumulators: two rows of 16
/// columns): two sums instead of four, each over a row's four lanes; lanes
/// 2h and 2h + 1 store (so a tile's two halves store what the whole's one
/// store does).
template <Epilogue E>
__device__ __forceinline__ void epilogueHalf(const float *acc, const float *weight, float *out,
                                             int t, int h) {
  float sum[2];
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < 16; ++j)
      s = fmaf(fmaxf(acc[c * 16 + j], 0.f), weight[E == kIndexerWide ? h * 16 + j : j], s);
    s += __shfl_xor_sync(0xffffffff, s, 1);
    s += __shfl_xor_sync(0xffffffff, s, 2);
    sum[c] = s;
  }
  int lane = threadIdx.x & 3, row = threadIdx.x & 127, col = t + row % 64;
  float v = lane & 1 ? sum[1] : sum[0];
  if (lane >> 1 == h)
    out[(row / 64) * 4096 + (col & 4095)] = col >= (threadIdx.x & 7) ? v : -INFINITY;
}

// --- the kernel -------------------------------------------------------------------

template <int G, int U, Protocol P, Epilogue E, int Item = 0, bool Stream = false,
          bool Interleave = false>
__global__ void __launch_bounds__(128 * (G + 1), 1)
    rounds(const unsigned char *kv, const __grid_constant__ CUtensorMap map, float *out,
           long long *cycles, const unsigned char *bigQueries, float *bigOut) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const uint32_t base = (uint32_t(__cvta_generic_to_shared(smem)) + 1023) & ~1023u;
  const uint32_t queries = base, ring = base + 2 * kQueryBytes, bars = ring + G * U * kTileBytes;
  auto full = [&](int s) { return bars + 8 * s; };
  auto empty = [&](int s) { return bars + 8 * (G * U + s); };
  auto itemFull = [&](int b) { return bars + 8 * (2 * G * U + b); };
  auto itemEmpty = [&](int b) { return bars + 8 * (2 * G * U + 2 + b); };
  constexpr int kItem = Item ? Item : kIters; // tiles a group an item
  // Copy c of group g's round: its stage (ring slot and barriers). Group g's
  // own U slots, or -- Interleave, as the compiler lays the indexer's ring
  // out -- every G-th slot from g.
  auto stage = [](int g, int c) { return Interleave ? c * G + g : g * U + c; };
  const int group = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < G * U; ++s) {
      barrierInit(full(s), 1);
      barrierInit(empty(s), 128);
    }
    for (int b = 0; b < 2; ++b) {
      barrierInit(itemFull(b), 1);
      barrierInit(itemEmpty(b), 128 * G);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const long long start = clock64();
  if (group == G) {
    // The producer warpgroup (the last): warp g fills group g's ring.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    const int warp = threadIdx.x / 32 % 4;
    if constexpr (P == kRingItems || P == kRingItemsHeld)
      if (threadIdx.x % 32 == 0 && warp == G)
        for (int i = 0; i < kIters / kItem; ++i) {
          if (i >= 2)
            barrierWait(itemEmpty(i & 1), (i / 2 - 1) & 1);
          bulkLoad(queries + (i & 1) * kQueryBytes,
                   Stream ? bigQueries + (size_t(blockIdx.x) * (kIters / kItem) + i) * kQueryBytes
                          : kv + size_t(i % 32) * kQueryBytes,
                   kQueryBytes, itemFull(i & 1));
        }
    if constexpr (P != kStatic)
      if (threadIdx.x % 32 == 0 && warp < G)
        for (int t = 0; t < kIters; ++t) {
          const int s = stage(warp, t % U);
          if (t >= U)
            barrierWait(empty(s), (t / U - 1) & 1);
          if ((P == kRingItems || P == kRingItemsHeld) && t % kItem == 0)
            barrierWait(itemFull((t / kItem) & 1), (t / kItem / 2) & 1);
          if (P == kRingTma || P == kRingItems || P == kRingItemsHeld)
            tmaLoad(ring + s * kTileBytes, &map, t % 64, full(s));
          else
            bulkLoad(ring + s * kTileBytes, kv + size_t(t % 64) * kTileBytes, kTileBytes, full(s));
        }
  } else {
    // What the producer's 40 registers a thread leave of the 64 Ki.
    constexpr int kCompute = (65536 - 128 * 40) / (128 * G) / 8 * 8 > 256
                                 ? 256
                                 : (65536 - 128 * 40) / (128 * G) / 8 * 8;
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kCompute));
    float acc[2][64], weight[32];
#pragma unroll
    for (int h = 0; h < 32; ++h)
      weight[h] = (threadIdx.x + h) * 1e-3f;
    float *o = Stream ? bigOut + (size_t(blockIdx.x) * G + group) * kIters * 128
                      : out + size_t(blockIdx.x) * 2 * 4096;
    // Items of `Item` tiles a group (0: one item): each item's queries in
    // one of two buffers, its weights loaded from shared memory.
    for (int item = 0; item < kIters / kItem; ++item) {
      const uint32_t q = queries + (item & 1) * kQueryBytes;
      if (P == kRingItems || P == kRingItemsHeld)
        barrierWait(itemFull(item & 1), (item / 2) & 1);
      uint32_t held[U][8];
      if constexpr (P == kRingItemsHeld) {
        // Each through an asm the compiler cannot see through, so that it
        // keeps all 8 U of them rather than recomputing them from one.
#pragma unroll
        for (int c = 0; c < U; ++c)
#pragma unroll
          for (int k = 0; k < 8; ++k) {
            const uint32_t d =
                ((ring + stage(group, c) * kTileBytes + (k / 4) * 64 * 128 + (k % 4) * 32) &
                 0x3FFFF) >> 4 |
                1 << 16;
            asm volatile("mov.u32 %0, %1;" : "=r"(held[c][k]) : "r"(d));
          }
      }
      if (Item) {
#pragma unroll
        for (int h = 0; h < 32; ++h)
          asm volatile("ld.shared.f32 %0, [%1];" : "=f"(weight[h]) : "r"(q + 4 * ((threadIdx.x + h) % 128)));
      }
      for (int r = 0; r < kItem; r += U) {
        const int k = item * kItem + r, parity = (k / U) & 1;
#pragma unroll
        for (int c = 0; c < U; ++c) {
          if (P == kRing || P == kRingTma || P == kRingItems || P == kRingItemsHeld)
            barrierWait(full(stage(group, c)), parity);
          if constexpr (P == kRingItemsHeld)
            gemmHeld(acc[c & 1], held[c], q);
          else
            gemm(acc[c & 1], ring + stage(group, c) * kTileBytes, q);
          if (c > 0) {
            waitGemms<1>();
            if (P != kStatic)
              barrierArrive(empty(stage(group, c - 1)));
            epilogue<E, Stream>(acc[(c - 1) & 1], weight, o, (k + c - 1) * 64);
          }
        }
        waitGemms<0>();
        if (P != kStatic)
          barrierArrive(empty(stage(group, U - 1)));
        epilogue<E, Stream>(acc[(U - 1) & 1], weight, o, (k + U - 1) * 64);
      }
      if (P == kRingItems || P == kRingItemsHeld)
        barrierArrive(itemEmpty(item & 1));
    }
  }
  __syncthreads();
  if (threadIdx.x == 0)
    cycles[blockIdx.x] = clock64() - start;
}

/// The two boxes of tile `row` into dst, on `bar` (whose expected bytes the
/// caller sets).
__device__ __forceinline__ void tmaBoxes(uint32_t dst, const CUtensorMap *map, int row,
                                         uint32_t bar) {
  for (int panel = 0; panel < 2; ++panel)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst + panel * 64 * 128),
                 "l"(map), "r"(panel * 64), "r"(row * 64), "r"(bar)
                 : "memory");
}

/// How a group of sharedRounds runs a tile's gemm: whole (no overlap of its
/// own); split in two halves of N, each its own commit group, the first
/// half's epilogue under the second half's wgmma; or split and overlapped
/// across tiles -- each half's epilogue under the other half's next gemm,
/// so one half-gemm is in flight but at the end of each round of four tiles:
///   A0 B0 | wait(1) EA0 A1 | wait(1) EB0 B1 | wait(1) EA1 A2 | ... EB3
/// (two half accumulators: the registers of one whole one).
enum SharedMode { kWhole, kSplit, kSplitOverlap };

/// Shared stages, as DeepGEMM's sm90 MQA-logits kernel lays its ring out: a
/// stage holds one 64-row tile for each of the G warpgroups (a 64G-row KV
/// block), S stages, one producer warp filling each with one expect-tx and
/// 2G tensor-map boxes; every warpgroup waits for each stage, runs its gemm
/// on its own tile of it (as `Mode` says) and releases it once its gemm is
/// done (the empty barrier counts all G groups). So each group sees all S
/// stages ahead of it, where kRing gives it U.
template <int G, int S, SharedMode Mode, Epilogue E>
__global__ void __launch_bounds__(128 * (G + 1), 1)
    sharedRounds(const CUtensorMap __grid_constant__ map, float *out, long long *cycles) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const uint32_t base = (uint32_t(__cvta_generic_to_shared(smem)) + 1023) & ~1023u;
  const uint32_t queries = base, ring = base + kQueryBytes, bars = ring + S * G * kTileBytes;
  auto full = [&](int s) { return bars + 8 * s; };
  auto empty = [&](int s) { return bars + 8 * (S + s); };
  const int group = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      barrierInit(full(s), 1);
      barrierInit(empty(s), 128 * G);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  const long long start = clock64();
  if (group == G) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x % 128 == 0)
      for (int t = 0; t < kIters; ++t) {
        const int s = t % S;
        if (t >= S)
          barrierWait(empty(s), (t / S - 1) & 1);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full(s)),
                     "r"(G * kTileBytes)
                     : "memory");
        for (int g = 0; g < G; ++g)
          tmaBoxes(ring + (s * G + g) * kTileBytes, &map, (t * G + g) % 64, full(s));
      }
  } else {
    constexpr int kCompute = (65536 - 128 * 40) / (128 * G) / 8 * 8 > 256
                                 ? 256
                                 : (65536 - 128 * 40) / (128 * G) / 8 * 8;
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kCompute));
    float acc[64], weight[32];
#pragma unroll
    for (int h = 0; h < 32; ++h)
      weight[h] = (threadIdx.x + h) * 1e-3f;
    float *o = out + size_t(blockIdx.x) * 2 * 4096;
    auto tileOf = [&](int t) { return ring + ((t % S) * G + group) * kTileBytes; };
    if constexpr (Mode == kSplitOverlap) {
      // Rounds of four tiles, unrolled, each drained at its end: ptxas
      // keeps no wgmma in flight across a loop's back edge (it injects a
      // wait for all: C7517), so only the last tile's second half runs
      // its epilogue with no half-gemm of its group in flight.
      // (S divides 4: each copy of the round has a fixed stage.)
      static_assert(4 % S == 0, "rounds of four tiles on S stages");
      auto stageTile = [&](int c) { return ring + ((c % S) * G + group) * kTileBytes; };
      for (int t0 = 0; t0 < kIters; t0 += 4) {
        barrierWait(full(0), (t0 / S) & 1);
        gemmHalf<0>(acc, stageTile(0), queries);
        gemmHalf<1>(acc + 32, stageTile(0), queries);
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          // A(t) and B(t) in flight: A(t) done, then A(t + 1) under B(t)
          // and EB(t), then B(t + 1) under EA(t + 1).
          const int t = t0 + c;
          waitGemms<1>();
          epilogueHalf<E>(acc, weight, o, t * 64, 0);
          if (c < 3) {
            barrierWait(full((c + 1) % S), ((t + 1) / S) & 1);
            gemmHalf<0>(acc, stageTile(c + 1), queries);
            waitGemms<1>();
          } else {
            waitGemms<0>();
          }
          barrierArrive(empty(c % S));
          epilogueHalf<E>(acc + 32, weight, o, t * 64, 1);
          if (c < 3)
            gemmHalf<1>(acc + 32, stageTile(c + 1), queries);
        }
      }
    }
    for (int t = 0; Mode != kSplitOverlap && t < kIters; ++t) {
      const int s = t % S;
      barrierWait(full(s), (t / S) & 1);
      if constexpr (Mode == kSplit) {
        gemmHalf<0>(acc, tileOf(t), queries);
        gemmHalf<1>(acc + 32, tileOf(t), queries);
        waitGemms<1>();
        epilogueHalf<E>(acc, weight, o, t * 64, 0);
        waitGemms<0>();
        barrierArrive(empty(s));
        epilogueHalf<E>(acc + 32, weight, o, t * 64, 1);
      } else {
        gemm(acc, tileOf(t), queries);
        waitGemms<0>();
        barrierArrive(empty(s));
        epilogue<E>(acc, weight, o, t * 64);
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0)
    cycles[blockIdx.x] = clock64() - start;
}

/// What every configuration runs with.
struct Harness {
  int sms;
  const unsigned char *kv;
  CUtensorMap map;
  float *out;
  long long *cycles;
  const unsigned char *bigQueries; // Stream: every item of every block, once
  float *bigOut;                   // Stream: every tile of every group, once

  template <int G, int U, Protocol P, Epilogue E, int Item = 0, bool Stream = false,
            bool Interleave = false>
  void run(const char *what) {
    const size_t bytes = 1024 + 2 * kQueryBytes + size_t(G) * U * kTileBytes + 16 * G * U + 32;
    auto kernel = rounds<G, U, P, E, Item, Stream, Interleave>;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    kernel<<<sms, 128 * (G + 1), bytes>>>(kv, map, out, cycles, bigQueries, bigOut); // warm-up
    CHECK(cudaGetLastError());
    kernel<<<sms, 128 * (G + 1), bytes>>>(kv, map, out, cycles, bigQueries, bigOut);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    static long long c[1024];
    CHECK(cudaMemcpy(c, cycles, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
    double mean = 0;
    for (int i = 0; i < sms; ++i)
      mean += double(c[i]) / sms;
    const double perGemm = mean / (double(kIters) * G);
    std::printf("%-44s%s%s G=%d U=%d item=%2d: %6.1f cycles a gemm (512 at the tensor cores' rate): "
                "%5.1f %%\n",
                what, Stream ? " (streams)" : "", Interleave ? " (interleaved)" : "", G, U,
                Item, perGemm, 100.0 * 512 / perGemm);
  }

  template <int G, int S, SharedMode Mode, Epilogue E> void runShared(const char *what) {
    const size_t bytes = 1024 + kQueryBytes + size_t(S) * G * kTileBytes + 16 * S + 32;
    auto kernel = sharedRounds<G, S, Mode, E>;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    kernel<<<sms, 128 * (G + 1), bytes>>>(map, out, cycles); // warm-up
    CHECK(cudaGetLastError());
    kernel<<<sms, 128 * (G + 1), bytes>>>(map, out, cycles);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    static long long c[1024];
    CHECK(cudaMemcpy(c, cycles, sizeof(long long) * sms, cudaMemcpyDeviceToHost));
    double mean = 0;
    for (int i = 0; i < sms; ++i)
      mean += double(c[i]) / sms;
    const double perGemm = mean / (double(kIters) * G);
    std::printf("%-44s%s G=%d S=%d: %6.1f cycles a gemm (512 at the tensor cores' rate): %5.1f %%\n",
                what, Mode == kSplit ? " (split N)" : Mode == kSplitOverlap ? " (split N, overlapped)" : "",
                G, S, perGemm, 100.0 * 512 / perGemm);
  }
};

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned char *kv;
  float *out;
  long long *cycles;
  CHECK(cudaMalloc(&kv, 64 * kTileBytes));
  CHECK(cudaMemset(kv, 0, 64 * kTileBytes));
  CHECK(cudaMalloc(&out, size_t(sms) * 2 * 4096 * sizeof(float)));
  CHECK(cudaMalloc(&cycles, sizeof(long long) * sms));
  // The 64 tiles as a [4096, 128] bf16 tensor, boxes of 64 x 64, 128-byte swizzle.
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult found;
  CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled",
                                         reinterpret_cast<void **>(&encode), 12000,
                                         cudaEnableDefault, &found));
  if (!encode || found != cudaDriverEntryPointSuccess) {
    std::printf("wgmma-rounds: no cuTensorMapEncodeTiled\n");
    return 1;
  }
  CUtensorMap map;
  const cuuint64_t dims[2] = {128, 64 * 64}, strides[1] = {128 * 2};
  const cuuint32_t box[2] = {64, 64}, unit[2] = {1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, kv, dims, strides, box, unit,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::printf("wgmma-rounds: cuTensorMapEncodeTiled failed\n");
    return 1;
  }
  // Streams: each block's items' queries read once from HBM, its logits
  // written once (512 bytes a tile, as the indexer writes them), for items of
  // 8 tiles and more.
  unsigned char *bigQueries;
  float *bigOut;
  CHECK(cudaMalloc(&bigQueries, size_t(sms) * (kIters / 8) * kQueryBytes));
  CHECK(cudaMemset(bigQueries, 0, size_t(sms) * (kIters / 8) * kQueryBytes));
  CHECK(cudaMalloc(&bigOut, size_t(sms) * 2 * kIters * 128 * sizeof(float)));
  Harness h{sms, kv, map, out, cycles, bigQueries, bigOut};
  // The pipe alone: one warpgroup's gemms back to back, then two or three.
  h.run<1, 1, kStatic, kNone>("no epilogue, no barriers");
  h.run<2, 1, kStatic, kNone>("no epilogue, no barriers");
  h.run<2, 2, kStatic, kNone>("no epilogue, no barriers");
  // The indexer's epilogue, its tiles always there.
  h.run<2, 2, kStatic, kIndexer>("indexer epilogue, no barriers");
  h.run<3, 1, kStatic, kIndexer>("indexer epilogue, no barriers");
  // The indexer's protocol: rings of U stages a group.
  h.run<2, 2, kRing, kNone>("no epilogue, ring");
  h.run<2, 2, kRing, kIndexer>("indexer epilogue, ring");
  h.run<2, 3, kRing, kIndexer>("indexer epilogue, ring");
  h.run<2, 4, kRing, kIndexer>("indexer epilogue, ring");
  h.run<3, 1, kRing, kIndexer>("indexer epilogue, ring");
  // The ring without the compute warps' waits for a full stage.
  h.run<2, 2, kRingNoWait, kIndexer>("indexer epilogue, ring, no full waits");
  h.run<2, 4, kRingNoWait, kIndexer>("indexer epilogue, ring, no full waits");
  // Items: the queries and weights switch every `Item` tiles of a group.
  h.run<2, 2, kRing, kIndexer, 32>("indexer epilogue, ring, items");
  h.run<2, 4, kRing, kIndexer, 32>("indexer epilogue, ring, items");
  h.run<2, 2, kRing, kIndexer, 8>("indexer epilogue, ring, items");
  h.run<2, 4, kRing, kIndexer, 8>("indexer epilogue, ring, items");
  h.run<2, 4, kStatic, kIndexer, 32>("indexer epilogue, no barriers, items");
  // Tensor-map loads, as the compiler issues them.
  h.run<2, 2, kRingTma, kIndexer>("indexer epilogue, tensor-map ring");
  h.run<2, 4, kRingTma, kIndexer>("indexer epilogue, tensor-map ring");
  h.run<2, 2, kRingTma, kIndexer, 32>("indexer epilogue, tensor-map ring, items");
  h.run<2, 4, kRingTma, kIndexer, 32>("indexer epilogue, tensor-map ring, items");
  // A weight a column (32 registers), as the indexer holds them.
  h.run<2, 2, kRingTma, kIndexerWide, 32>("wide indexer epilogue, tensor-map ring, items");
  h.run<2, 4, kRingTma, kIndexerWide, 32>("wide indexer epilogue, tensor-map ring, items");
  h.run<2, 2, kRingTma, kIndexerWide>("wide indexer epilogue, tensor-map ring");
  h.run<2, 4, kRingTma, kIndexerWide>("wide indexer epilogue, tensor-map ring");
  // Items loaded as the persistent indexer loads them.
  h.run<2, 2, kRingItems, kIndexer, 32>("indexer epilogue, ring, loaded items");
  h.run<2, 4, kRingItems, kIndexer, 32>("indexer epilogue, ring, loaded items");
  h.run<2, 2, kRingItems, kIndexer, 8>("indexer epilogue, ring, loaded items");
  h.run<2, 4, kRingItems, kIndexer, 8>("indexer epilogue, ring, loaded items");
  // ... with the A descriptors held in registers across each item.
  h.run<2, 2, kRingItemsHeld, kIndexer, 32>("indexer epilogue, loaded items, held descs");
  h.run<2, 4, kRingItemsHeld, kIndexer, 32>("indexer epilogue, loaded items, held descs");
  h.run<2, 2, kRingItemsHeld, kIndexerWide, 32>("wide epilogue, loaded items, held descs");
  h.run<2, 4, kRingItemsHeld, kIndexerWide, 32>("wide epilogue, loaded items, held descs");
  // ... with long items (1008 tiles a group) and short ones (8).
  h.run<2, 2, kRingItemsHeld, kIndexerWide, 1008>("wide epilogue, loaded items, held descs");
  h.run<2, 4, kRingItemsHeld, kIndexerWide, 1008>("wide epilogue, loaded items, held descs");
  h.run<2, 2, kRingItemsHeld, kIndexerWide, 8>("wide epilogue, loaded items, held descs");
  h.run<2, 4, kRingItemsHeld, kIndexerWide, 8>("wide epilogue, loaded items, held descs");
  // ... with the queries read from and the logits written to HBM, once.
  h.run<2, 2, kRingItemsHeld, kIndexerWide, 32, true>("wide epilogue, loaded items, held descs");
  h.run<2, 4, kRingItemsHeld, kIndexerWide, 32, true>("wide epilogue, loaded items, held descs");
  h.run<2, 2, kRingItemsHeld, kIndexerWide, 1008, true>("wide epilogue, loaded items, held descs");
  h.run<2, 4, kRingItemsHeld, kIndexerWide, 1008, true>("wide epilogue, loaded items, held descs");
  // ... with the groups' stages interleaved, as the compiler lays them out.
  h.run<2, 2, kRingItemsHeld, kIndexerWide, 32, false, true>("wide epilogue, loaded items, held descs");
  h.run<2, 4, kRingItemsHeld, kIndexerWide, 32, false, true>("wide epilogue, loaded items, held descs");
  h.run<2, 4, kRingItemsHeld, kIndexerWide, 1008, false, true>("wide epilogue, loaded items, held descs");
  // Four groups of one gemm in the warpgroups' own rings (112 registers a
  // compute thread).
  h.run<4, 1, kStatic, kIndexerWide>("wide epilogue, no barriers");
  h.run<4, 1, kRingTma, kIndexerWide>("wide epilogue, tensor-map ring");
  // Shared stages (DeepGEMM's layout): each group sees every stage ahead of
  // it; its gemm whole, or split in two halves of N with the first half's
  // epilogue under the second half's wgmma.
  h.runShared<2, 6, kWhole, kIndexerWide>("wide epilogue, shared stages");
  h.runShared<3, 4, kWhole, kIndexerWide>("wide epilogue, shared stages");
  h.runShared<4, 3, kWhole, kIndexerWide>("wide epilogue, shared stages");
  h.runShared<2, 6, kSplit, kIndexerWide>("wide epilogue, shared stages");
  h.runShared<3, 4, kSplit, kIndexerWide>("wide epilogue, shared stages");
  h.runShared<4, 3, kSplit, kIndexerWide>("wide epilogue, shared stages");
  h.runShared<4, 2, kSplit, kIndexerWide>("wide epilogue, shared stages");
  // ... and the halves overlapped across tiles: one half-gemm always in
  // flight, with one whole accumulator's registers.
  h.runShared<2, 4, kSplitOverlap, kIndexerWide>("wide epilogue, shared stages");
  h.runShared<3, 4, kSplitOverlap, kIndexerWide>("wide epilogue, shared stages");
  h.runShared<4, 2, kSplitOverlap, kIndexerWide>("wide epilogue, shared stages");
  return 0;
}
