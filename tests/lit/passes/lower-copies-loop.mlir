// RUN: minitile-opt %s --tile-lower-copies --canonicalize | FileCheck %s
// A copy that runs more than once -- here in a while loop, as a persistent
// kernel's items claimed at run time without prefetch -- first waits for the
// tile's readers (a barrier), then waits on its mbarrier with the parity of
// this pass over it, kept in a local and flipped after each wait. With the
// parity fixed at 0 the second wait would pass on the first copy's phase and
// read the tile before the second copy lands (on a GPU: items' rows
// written with another item's).
// CHECK-LABEL: tile.kernel @w_kernel
// CHECK: %[[PHASE:.*]] = tile.alloc_local : <index>
// CHECK: tile.local_store %c0, %[[PHASE]]
// CHECK: tile.while {
// CHECK: } do {
// CHECK: tile.barrier
// CHECK: %[[P:.*]] = tile.local_load %[[PHASE]]
// CHECK: hopper.mbarrier_arrive_expect_tx
// CHECK: hopper.tma_load
// CHECK: hopper.mbarrier_wait %{{.*}} parity %[[P]]
// CHECK: %[[FLIP:.*]] = arith.xori %[[P]], %c1
// CHECK: tile.local_store %[[FLIP]], %[[PHASE]]
tile.host @w(%x: !tile.ptr<i32> {tile.name = "x"}, %n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  tile.launch @w_kernel grid(%c1, %c1, %c1) args(%x, %n) : (!tile.ptr<i32>, index) -> ()
  tile.return
}
tile.kernel @w_kernel(%x: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = tile.view %x sizes(%n) strides(%c4) : !tile.ptr<i32> -> !tile.tensor<?x4xi32>
  %t = tile.alloc_shared : !tile.shared<1x4xi32>
  %at = tile.alloc_local : !tile.local<index>
  tile.local_store %c0, %at : !tile.local<index>
  tile.while {
    %i = tile.local_load %at : !tile.local<index>
    %go = arith.cmpi slt, %i, %n : index
    tile.condition %go
  } do {
    %i = tile.local_load %at : !tile.local<index>
    tile.copy %v[%i, %c0] to %t box [1, 4] : !tile.tensor<?x4xi32>, !tile.shared<1x4xi32>
    %next = arith.addi %i, %c1 : index
    tile.local_store %next, %at : !tile.local<index>
    tile.yield
  }
  tile.return
}
