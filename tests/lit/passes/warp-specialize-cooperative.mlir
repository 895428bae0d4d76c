// RUN: minitile-opt %s --tile-assign-layouts --tile-warp-specialize -split-input-file 2>&1 | FileCheck %s
// A cooperative pipelined loop of two groups: every group runs every
// iteration, each its share of the body. Here two gemms on one KV stage,
// each with the store that reads it: gemm 0 and its store are group 0's,
// gemm 1 and its store group 1's; the row index both stores use (no gemm
// in it) is in both shares.
// CHECK-LABEL: tile.kernel @coop_kernel
// CHECK-SAME: block = array<i32: 384, 1, 1>, producer_threads = 128
// Three full barriers (one arrival) and three empty ones that wait for
// every compute thread of both groups (3 stages: not a multiple of 2).
// CHECK-COUNT-3: hopper.mbarrier_init {{.*}} count 1
// CHECK-COUNT-3: hopper.mbarrier_init {{.*}} count 256
// CHECK: %[[RING:.*]] = tile.alloc_shared {stages = 3 : i64} : <64x64xbf16, swizzle = 128>
// The producer: one warp issues every iteration (step 1, not 2).
// CHECK: %[[W0:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK-NEXT: tile.if %[[W0]] {
// CHECK: hopper.elect_one
// CHECK: tile.for %{{.*}} = %c0{{.*}} to %n step %c1{{.*}} {
// CHECK: hopper.tma_load
// CHECK-NOT: tile.gemm
// The compute threads: a group index, then a copy of the loop per group.
// CHECK: } else {
// CHECK: %[[G:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[G]], %c0{{.*}} : index
// CHECK-NEXT: tile.if %[[IS0]] {
// Group 0's copy: from the loop's first iteration, unrolled by the three
// stages it reads in turn, each copy waiting for its stage, computing gemm
// 0 only, storing rows 0.., releasing the stage.
// CHECK-NOT: [%c64,
// CHECK: tile.for %{{.*}} = %[[LB:[a-z0-9_]+]] to %n step
// CHECK: hopper.mbarrier_wait
// CHECK: tile.gemm %{{.*}}, %[[B0:[a-z0-9_]+]] {transpose_b}
// CHECK-NEXT: tile.store_tile %{{.*}}, %{{.*}}[%c0{{[_0-9]*}}, %{{.*}}]
// CHECK: hopper.mbarrier_arrive
// CHECK-NOT: [%c64,
// Group 1's copy: the same iterations, gemm 1 and rows 64...
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[G]], %c1{{.*}} : index
// CHECK-NEXT: tile.if %[[IS1]] {
// CHECK-NOT: %[[B0]] {transpose_b}
// CHECK: tile.for %{{.*}} = %[[LB]] to %n step
// CHECK-NOT: %[[B0]] {transpose_b}
// CHECK: tile.gemm %{{.*}}, %{{.*}} {transpose_b}
// CHECK-NEXT: tile.store_tile %{{.*}}, %{{.*}}[%c64, %{{.*}}]
// CHECK-NOT: %[[B0]] {transpose_b}
// CHECK: tile.return
tile.host @coop(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %o: !tile.ptr<f32> {tile.name = "o"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @coop_kernel grid(%c1, %c1, %c1) args(%kv, %o, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @coop_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %o: !tile.ptr<f32> {tile.name = "o"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %ov = tile.view %o[%c0] sizes(%c128, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %b0 = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b1 = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c0, %c0] to %b0 box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.copy %v[%c64, %c0] to %b1 box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  tile.pipelined %i = %c0 to %n step %c1 stages 3 groups 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %s0 = tile.gemm %t, %b0 {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    %s1 = tile.gemm %t, %b1 {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    tile.store_tile %s0, %ov[%c0, %r] : tensor<64x64xf32>, !tile.tensor<?x?xf32>
    tile.store_tile %s1, %ov[%c64, %r] : tensor<64x64xf32>, !tile.tensor<?x?xf32>
  } {cooperative}
  tile.return
}

// -----

// A cooperative loop of one group is a plain one: its one group runs
// everything, a store reading no gemm included.
// CHECK-LABEL: tile.kernel @one_kernel
// CHECK-COUNT-2: hopper.mbarrier_init {{.*}} count 128
// CHECK: tile.store %
tile.host @one(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %o: !tile.ptr<f32> {tile.name = "o"}, %n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  tile.launch @one_kernel grid(%c1, %c1, %c1) args(%kv, %o, %n) : (!tile.ptr<bf16>, !tile.ptr<f32>, index) -> ()
  tile.return
}
tile.kernel @one_kernel(%kv: !tile.ptr<bf16> {tile.name = "kv"}, %o: !tile.ptr<f32> {tile.name = "o"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %v = tile.view %kv[%c0] sizes(%n) strides(%c64) : !tile.ptr<bf16> -> !tile.tensor<?x64xbf16>
  %ov = tile.view %o[%c0] sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  tile.pipelined %i = %c0 to %n step %c1 stages 2 {
    %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %r = arith.muli %i, %c64 : index
    tile.copy %v[%r, %c0] to %t box [64, 64] : !tile.tensor<?x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    tile.store %z, %ov[%r, %c0] : f32, !tile.tensor<?x64xf32>
  } {cooperative}
  tile.return
}
