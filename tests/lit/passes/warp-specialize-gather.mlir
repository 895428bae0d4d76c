// RUN: minitile-opt %s --tile-assign-layouts --tile-warp-specialize | FileCheck %s
// Two gathered copies of the same rows (the indexer's backward gathers its
// kv rows' two 64-column panels, each into a tile of its own): the
// producer reads each row's index once -- 32 rows' at a time -- and starts
// both copies' boxes of that row together, at the second copy's place.
// CHECK-LABEL: tile.kernel @g_kernel
// CHECK: hopper.elect_one
// CHECK: tile.for
// CHECK: hopper.mbarrier_arrive_expect_tx %[[F:.*]] bytes 16384
// CHECK: %[[S0:.*]] = tile.stage
// CHECK: %[[S1:.*]] = tile.stage
// CHECK-COUNT-32: tile.load %{{.*}} : <?x?xi32> -> i32
// CHECK-NOT: tile.load
// CHECK: hopper.tma_load %kv_tma[%{{.*}}, %[[R0:.*]]] to %[[S0]] offset 0, %[[F]]
// CHECK-NEXT: hopper.tma_load %kv_tma_0[%{{.*}}, %[[R0]]] to %[[S1]] offset 0, %[[F]]
// CHECK-NEXT: hopper.tma_load %kv_tma[%{{.*}}, %[[R1:.*]]] to %[[S0]] offset 128, %[[F]]
// CHECK-NEXT: hopper.tma_load %kv_tma_0[%{{.*}}, %[[R1]]] to %[[S1]] offset 128, %[[F]]
// CHECK-COUNT-60: hopper.tma_load
// CHECK-NOT: hopper.tma_load
// CHECK-COUNT-32: tile.load %{{.*}} : <?x?xi32> -> i32
// CHECK-NOT: tile.load
// CHECK-COUNT-64: hopper.tma_load
// CHECK-NOT: tile.load
// CHECK-NOT: hopper.tma_load
// CHECK: } else {
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
    tile.copy %v[%c0, %c0] to %t0 box [64, 64] rows %i[%s, %j0] : !tile.tensor<?x128xbf16>, !tile.shared<64x64xbf16, swizzle = 128>, !tile.tensor<?x?xi32>
    %t1 = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
    %c0b = arith.constant 0 : index
    tile.copy %v[%c0b, %c64] to %t1 box [64, 64] rows %i[%s, %j0] : !tile.tensor<?x128xbf16>, !tile.shared<64x64xbf16, swizzle = 128>, !tile.tensor<?x?xi32>
    %a = tile.gemm %q, %t0 {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    %b = tile.gemm %q, %t1 {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  }
  tile.barrier
  tile.return
}
