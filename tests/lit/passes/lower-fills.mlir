// RUN: minitile-opt %s -split-input-file --tile-lower-fills | FileCheck %s
// RUN: minitile-opt %s -split-input-file --tile-lower-fills 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: minitile-opt %s -split-input-file --tile-lower-fills --tile-plan-shared --tile-verify-target --convert-tile-to-llvm | FileCheck %s --check-prefix=NVVM

// A plain kernel: one shared tile of -inf (2 KiB), written by every thread
// 16 bytes at a time before a block barrier of its own, fenced for the bulk
// copies; the fill on thread 0, nothing at all for an empty range; the
// unaligned head and tail under a test each; bulk copies of at most 2 KiB;
// every thread waits for its copies' reads before returning.
// CHECK-LABEL: tile.kernel @rows
// CHECK: %[[SRC:.*]] = tile.alloc_shared : <512xf32>
// CHECK: %[[TID:.*]] = tile.thread_id x
// CHECK: %[[START:.*]] = arith.muli %[[TID]], %c4
// CHECK: tile.for %[[I:.*]] = %[[START]] to %{{.*}} step %{{.*}} {
// CHECK: tile.shared_store %{{.*}}, %[[SRC]][%{{.*}}, %[[I]]] : vector<4xf32>
// CHECK: hopper.fence_proxy_async
// CHECK-NEXT: tile.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0
// CHECK: tile.if %[[FIRST]] {
// CHECK: %[[ANY:.*]] = arith.cmpi sgt, %arg4, %arg3
// CHECK: tile.if %[[ANY]] {
// CHECK: tile.elems_to_aligned %{{.*}}[%arg3] bytes 16
// CHECK-COUNT-3: tile.store %{{.*}} : f32, <?xf32>
// CHECK: tile.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[N:.*]] = arith.minui
// CHECK: %[[BYTES:.*]] = arith.index_cast
// CHECK: hopper.bulk_store %[[SRC]] to %{{.*}}[%[[C]]] bytes %[[BYTES]]
// CHECK-COUNT-3: tile.store %{{.*}} : f32, <?xf32>
// CHECK: hopper.bulk_commit
// CHECK-NOT: tile.fill_async
// CHECK: hopper.bulk_wait_read
// CHECK-NEXT: tile.return

// NVVM-LABEL: llvm.func @rows
// NVVM: nvvm.fence.proxy
// NVVM: nvvm.cp.async.bulk.global.shared.cta
// NVVM: nvvm.cp.async.bulk.commit.group
// NVVM: nvvm.cp.async.bulk.wait_group 0 {read}
tile.kernel @rows(%p: !tile.ptr<f32>, %rows: index, %n: index, %lo: index, %hi: index) attributes {block = array<i32: 128, 1, 1>} {
  %all = tile.view %p sizes(%rows, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %b = tile.block_id x
  %row = tile.slice %all dim 0 at %b : !tile.tensor<?x?xf32> -> !tile.tensor<?xf32>
  tile.fill_async %row[%lo to %hi] with 0xFF800000 : f32 : !tile.tensor<?xf32>
  tile.return
}

// -----

// Two fills of one value share its tile; another value has its own. A fill
// marked `single` is lowered where it stands, on the thread that reaches it.
// The kernel's barrier-initialising prologue is reused: the tiles are
// written between it and its barrier.
// CHECK-LABEL: tile.kernel @two
// CHECK-COUNT-2: tile.alloc_shared : <512xi32>
// CHECK-NOT: tile.alloc_shared : <512xi32>
// CHECK: } {tile.barrier_init}
// CHECK: hopper.fence_proxy_async
// CHECK: hopper.fence_proxy_async
// CHECK-NEXT: tile.barrier
// CHECK-NOT: tile.barrier
// CHECK: hopper.bulk_commit
// CHECK: hopper.bulk_commit
// CHECK: hopper.bulk_commit
tile.kernel @two(%p: !tile.ptr<i32>, %n: index, %a: index, %e: index) attributes {block = array<i32: 64, 2, 1>} {
  %row = tile.view %p sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %bars = tile.alloc_shared : !tile.shared<1xi64>
  %c0 = arith.constant 0 : index
  %tid = tile.thread_id x
  %first = arith.cmpi eq, %tid, %c0 : index
  tile.if %first {
    hopper.fence_mbarrier_init
    tile.yield
  } {tile.barrier_init}
  tile.barrier
  tile.fill_async %row[%a to %e] with 7 : i32 : !tile.tensor<?xi32>
  tile.fill_async %row[%e to %n] with 7 : i32 : !tile.tensor<?xi32>
  tile.if %first {
    tile.fill_async %row[%c0 to %a] with -1 : i32 single : !tile.tensor<?xi32>
    tile.yield
  }
  tile.return
}

// -----

// Without bulk copies (sm_80) the issuing thread stores the run itself, 16
// bytes at a time, and says so.
// REMARK: remark: the issuing thread stores the range itself, 16 bytes at a time: sm_80 has no bulk copies
// CHECK-LABEL: tile.kernel @old
// CHECK-NOT: tile.alloc_shared
// CHECK: tile.store %{{.*}} : vector<4xf32>
// CHECK-NOT: hopper.bulk
module attributes {tile.target = "sm_80"} {
  tile.kernel @old(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %row = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
    tile.fill_async %row[%c0 to %n] with 1.0 : f32 : !tile.tensor<?xf32>
    tile.return
  }
}
