// RUN: minitile-opt %s --tile-assign-layouts --tile-warp-specialize | FileCheck %s
// The gathered copies of warp-specialize-gather.mlir by cp.async
// ({tile.cp_async}): the producer warp runs its loop on every lane. Lane 0
// arms the stage (no bytes: every copy is the lanes'); each lane reads the
// indices of two rows (l and l + 32) once, and each copy's 512 16-byte
// pieces go out 32 at a time, a loop of 8 steps for each 32 rows, the
// row's index shuffled from the lane that read it; then every lane arrives
// on the full barrier, which counts 1 + 32. The compute threads fence the
// async proxy after each wait, before the wgmmas.
// CHECK-LABEL: tile.kernel @g_kernel
// CHECK-COUNT-2: hopper.mbarrier_init %{{.*}} count 33
// CHECK-COUNT-2: hopper.mbarrier_init %{{.*}} count 128
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK-NOT: hopper.elect_one
// CHECK: tile.for
// CHECK: hopper.mbarrier_wait
// CHECK: %[[F:.*]] = hopper.mbarrier_of
// CHECK-NEXT: tile.if %[[LEAD]] {
// CHECK-NEXT: hopper.mbarrier_arrive_expect_tx %[[F]] bytes 0
// CHECK-COUNT-2: tile.load %{{.*}} : <?x?xi32> -> i32
// CHECK-NOT: tile.load
// CHECK-NOT: hopper.tma_load
// CHECK: tile.for %{{.*}} = %{{.*}} to %c8
// CHECK: tile.shuffle_idx
// CHECK: hopper.cp_async %{{.*}} : <?x128xbf16>, <64x64xbf16, swizzle = 128>
// CHECK-COUNT-3: hopper.cp_async
// CHECK-NOT: hopper.cp_async
// CHECK: hopper.cp_async_arrive %[[F]]
// CHECK-NOT: hopper.tma_load
// CHECK: } else {
// CHECK: tile.for
// CHECK: hopper.mbarrier_wait
// CHECK-NEXT: hopper.fence_proxy_async
// CHECK: tile.gemm
tile.host @g(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %idx: !tile.ptr<i32> {tile.name = "idx"},
             %n: index {tile.name = "n", tile.size}, %k: index {tile.name = "k", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @g_kernel grid(%c1, %c1, %c1) args(%kv, %idx, %n, %k) : (!tile.ptr<bf16>, !tile.ptr<i32>, index, index) -> ()
  tile.return
}
tile.kernel @g_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %idx: !tile.ptr<i32> {tile.name = "idx"}, %n: index {tile.name = "n"}, %k: index {tile.name = "k"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %v = tile.view %kv sizes(%n) strides(%c128) : !tile.ptr<bf16> -> !tile.tensor<?x128xbf16>
  %i = tile.view %idx sizes(%n, %k) strides(%k) : !tile.ptr<i32> -> !tile.tensor<?x?xi32>
  %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %q box [64, 64] : !tile.tensor<?x128xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  %s = tile.block_id x
  %tiles = arith.ceildivui %k, %c64 : index
  tile.pipelined %j = %c0 to %tiles step %c1 stages 2 {
    %j0 = arith.muli %j, %c64 : index
    %t0 = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    tile.copy %v[%c0, %c0] to %t0 box [64, 64] rows %i[%s, %j0] {tile.cp_async} : !tile.tensor<?x128xbf16>, !tile.shared<64x64xbf16, swizzle = 128>, !tile.tensor<?x?xi32>
    %t1 = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %c0b = arith.constant 0 : index
    tile.copy %v[%c0b, %c64] to %t1 box [64, 64] rows %i[%s, %j0] {tile.cp_async} : !tile.tensor<?x128xbf16>, !tile.shared<64x64xbf16, swizzle = 128>, !tile.tensor<?x?xi32>
    %a = tile.gemm %q, %t0 {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    %b = tile.gemm %q, %t1 {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  }
  tile.barrier
  tile.return
}
