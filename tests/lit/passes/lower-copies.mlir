// RUN: minitile-opt %s --tile-lower-copies --canonicalize | FileCheck %s --check-prefix=TMA
// RUN: minitile-opt %s --tile-lower-copies=fallback=true --canonicalize | FileCheck %s --check-prefix=PLAIN
// A copy of a [2, 64, 128] box of q into a [128, 128] tile.

// Through the tensor-memory accelerator, with a tensor map of q's root view (dims and strides innermost
// first, the 128-byte swizzle splitting the 128 columns into 2 panels).
// TMA: hopper.make_tma_desc %q[%{{.*}}] dims(%c128, %c64, %n) strides(%c256, %c16384) box [64, 64, 2] swizzle 128 of "q"
// TMA-LABEL: tile.kernel @c_kernel
// TMA-SAME: %q_tma: !hopper.tma_desc
// TMA: %[[BARS:.*]] = tile.alloc_shared : <1xi64>
// TMA: hopper.mbarrier_init {{.*}} count 1
// TMA: } {tile.barrier_init}
// TMA: %[[ROW:.*]] = arith.index_cast %{{.*}} : index to i32
// TMA: %[[BAR:.*]] = hopper.mbarrier_of %[[BARS]][%c0]
// One compute thread starts both panels' copies...
// TMA: tile.if
// TMA-NEXT: hopper.mbarrier_arrive_expect_tx %[[BAR]] bytes 32768
// TMA-NEXT: hopper.tma_load %q_tma[%c0_i32, %c0_i32, %[[ROW]]] to %{{.*}} offset 0, %[[BAR]]
// TMA-NEXT: hopper.tma_load %q_tma[%c64_i32, %c0_i32, %[[ROW]]] to %{{.*}} offset 16384, %[[BAR]]
// ...and every one waits.
// TMA: hopper.mbarrier_wait %[[BAR]] parity %c0
// TMA-NOT: tile.copy

// Element by element: zero outside the tensor, then a barrier (the fence for
// the async proxy, where wgmma reads the tile, is tile-order-async's).
// PLAIN-LABEL: tile.kernel @c_kernel
// PLAIN-NOT: tile.tma_desc
// PLAIN: tile.for %{{.*}} = %{{.*}} to %c16384 step %c128 {
// PLAIN: tile.if %{{.*}} -> (bf16) {
// PLAIN: tile.load
// PLAIN: } else {
// PLAIN: tile.yield %cst : bf16
// PLAIN: tile.shared_store
// PLAIN-NOT: hopper.fence_proxy_async
// PLAIN: tile.barrier
// PLAIN-NOT: tile.copy
tile.host @c(%q: !tile.ptr<bf16> {tile.name = "q"}, %n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  tile.launch @c_kernel grid(%c1, %c1, %c1) args(%q, %n) : (!tile.ptr<bf16>, index) -> ()
  tile.return
}
tile.kernel @c_kernel(%q: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8192 = arith.constant 8192 : index
  %c128 = arith.constant 128 : index
  %v = tile.view %q sizes(%n) strides(%c8192, %c128) : !tile.ptr<bf16> -> !tile.tensor<?x64x128xbf16>
  %b = tile.block_id x
  %t = tile.alloc_shared : !tile.shared<128x128xbf16, swizzle = 128>
  tile.copy %v[%b, %c0, %c0] to %t box [2, 64, 128] : !tile.tensor<?x64x128xbf16>, !tile.shared<128x128xbf16, swizzle = 128>
  tile.return
}
