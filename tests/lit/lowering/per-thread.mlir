// RUN: minitile-opt %s --tile-plan-shared --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// Atomics become relaxed atomicrmw on global or shared pointers; votes and
// shuffles NVVM's warp-synchronous intrinsics over the full warp; bit counts
// LLVM intrinsics; a while loop a block that branches back to its condition.

// Blocks that must fit on a multiprocessor at once cap the registers.
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: nvvm.minctasm = 6 : i32
tile.kernel @k(%p: !tile.ptr<f32>, %n: index, %x: i32) attributes {block = array<i32: 64, 1, 1>, min_blocks_per_sm = 6 : i32} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %f = arith.constant 1.0 : f32
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %hist = tile.alloc_shared : !tile.shared<256xi32>
  // CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
  %g = tile.atomic add %f, %v[%c0] : f32, !tile.tensor<?xf32>
  // CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
  %old = tile.shared_atomic add %one, %hist[%c0, %c0] : i32, !tile.shared<256xi32>
  // CHECK: llvm.atomicrmw max %{{.*}}, %{{.*}} monotonic : !llvm.ptr<3>, i32
  %mx = tile.shared_atomic max %x, %hist[%c0, %c0] : i32, !tile.shared<256xi32>
  // CHECK: llvm.atomicrmw xchg
  %xc = tile.shared_atomic exchange %x, %hist[%c0, %c0] : i32, !tile.shared<256xi32>
  %pred = arith.cmpi sgt, %old, %one : i32
  // The full warp votes: mask -1.
  // CHECK: %[[FULL:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK: nvvm.vote.sync  ballot %[[FULL]], %{{.*}} -> i32
  %lanes = tile.vote ballot %pred : i32
  // CHECK: nvvm.vote.sync  all %{{.*}}, %{{.*}} -> i1
  %all = tile.vote all %pred : i1
  // up clamps at lane 0, idx and down at lane 31.
  // CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK: nvvm.shfl.sync  up %{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]] : i32 -> i32
  %up = tile.shuffle_up %lanes, %one : i32
  // CHECK: %[[LAST:.*]] = llvm.mlir.constant(31 : i32) : i32
  // CHECK: nvvm.shfl.sync  down %{{.*}}, %{{.*}}, %{{.*}}, %[[LAST]] : i32 -> i32
  %down = tile.shuffle_down %up, %one : i32
  // CHECK: nvvm.shfl.sync  idx
  %from = tile.shuffle_idx %down, %x : i32
  // CHECK: llvm.intr.ctpop(%{{.*}}) : (i32) -> i32
  %count = math.ctpop %from : i32
  // CHECK: "llvm.intr.cttz"(%{{.*}}) <{is_zero_poison = false}> : (i32) -> i32
  %first = math.cttz %count : i32
  %left = tile.alloc_local : !tile.local<i32>
  tile.local_store %first, %left : !tile.local<i32>
  // CHECK: llvm.br ^[[COND:.*]]
  // CHECK: ^[[COND]]:
  // CHECK: llvm.cond_br %{{.*}}, ^[[BODY:.*]], ^[[EXIT:.*]]
  // CHECK: ^[[BODY]]:
  // CHECK: nvvm.barrier
  // CHECK: llvm.br ^[[COND]]
  // CHECK: ^[[EXIT]]:
  tile.while {
    %l = tile.local_load %left : !tile.local<i32>
    %go = arith.cmpi sgt, %l, %one : i32
    tile.condition %go
  } do {
    %l = tile.local_load %left : !tile.local<i32>
    %next = arith.subi %l, %one : i32
    tile.local_store %next, %left : !tile.local<i32>
    tile.barrier
    tile.yield
  }
  // CHECK: llvm.return
  tile.return
}
// CHECK-NOT: tile.
// CHECK-NOT: math.
