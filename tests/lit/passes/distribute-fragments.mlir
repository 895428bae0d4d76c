// RUN: minitile-opt %s -split-input-file --tile-assign-layouts --tile-distribute-fragments --tile-plan-shared --canonicalize --cse | FileCheck %s
// A [64, 64] gemm on one warpgroup, a row sum, a multiply by loaded weights
// and a store, as the registers of each thread.

// CHECK-LABEL: tile.kernel @f
// Two tiles, the second with two stages, at 1024-byte aligned offsets;
// 1024 bytes of slack for aligning the base.
// CHECK-SAME: smem_bytes = 25600
// CHECK: %[[A:.*]] = tile.shared_view %c0 : <64x64xbf16, swizzle = 128>
// CHECK: %[[B:.*]] = tile.shared_view %c8192 : <64x64xbf16, swizzle = 128>
// The gemm: K = 64 is 4 k-steps of 32 bytes in the swizzle panel; 32
// accumulators a thread; the first step starts from zero.
// CHECK: hopper.wgmma_fence
// CHECK: hopper.wgmma_desc %[[A]][%{{.*}}] sbo 1024
// CHECK: hopper.wgmma_desc %[[B]][%c0] sbo 1024
// CHECK: %[[D0:.*]]:32 = hopper.wgmma %{{.*}}, %{{.*}} n 64 acc({{.*}}) {zero_acc}
// CHECK: hopper.wgmma_desc %[[B]][%c32] sbo 1024
// CHECK: hopper.wgmma {{.*}} acc(%[[D0]]#0,
// CHECK: hopper.wgmma_desc %[[B]][%c64] sbo 1024
// CHECK: hopper.wgmma_desc %[[B]][%c96] sbo 1024
// CHECK: %[[D:.*]]:32 = hopper.wgmma
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.wgmma_wait 0
// The row sum: 16 registers of each row half in the thread, as two
// interleaved chains of 8 (registers 0, 4, ... and 1, 5, ...) joined at
// the end...
// CHECK: %[[E0:.*]] = arith.addf %[[D]]#0, %[[D]]#4 : f32
// CHECK-NEXT: %[[O0:.*]] = arith.addf %[[D]]#1, %[[D]]#5 : f32
// CHECK-NEXT: arith.addf %[[E0]], %[[D]]#8 : f32
// CHECK-NEXT: arith.addf %[[O0]], %[[D]]#9 : f32
// CHECK-COUNT-8: arith.addf
// CHECK-NEXT: %[[E:.*]] = arith.addf %{{.*}}, %[[D]]#28 : f32
// CHECK-NEXT: %[[O:.*]] = arith.addf %{{.*}}, %[[D]]#29 : f32
// CHECK-NEXT: arith.addf %[[E]], %[[O]] : f32
// CHECK-NEXT: arith.addf %[[D]]#2, %[[D]]#6 : f32
// ...then a reduce-scatter over lane bit 0 (each lane keeps one row half:
// select what to keep and what to send)...
// CHECK: arith.select
// CHECK-NEXT: arith.select
// CHECK-NEXT: tile.shuffle_xor %{{.*}}, 1 : f32
// CHECK-NEXT: arith.addf
// ...and a butterfly over lane bit 1, which has no register left to take.
// CHECK-NEXT: tile.shuffle_xor %{{.*}}, 2 : f32
// CHECK-NEXT: arith.addf
// The weights: one row a thread, the load guarded by the bounds.
// CHECK: tile.if %{{.*}} -> (f32) {
// CHECK-NEXT: tile.load
// CHECK-NOT: tile.load
// CHECK: arith.mulf
// One store a thread, by the lanes with lane bit 1 clear (the others hold
// copies), within bounds.
// CHECK: arith.andi %{{.*}}, %c2
// CHECK: tile.if
// CHECK-NEXT: tile.store
// CHECK-NOT: tile.store
// CHECK-NOT: tensor<
tile.kernel @f(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ov = tile.view %o sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared {stages = 2 : i64} : !tile.shared<64x64xbf16, swizzle = 128>
  %s = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  %r = tile.reduce sum %s axis 1 : tensor<64x64xf32> -> tensor<64xf32>
  %w = tile.load_tile %ov[%c0] : !tile.tensor<?xf32> -> tensor<64xf32>
  %p = arith.mulf %r, %w : tensor<64xf32>
  tile.store_tile %p, %ov[%c0] : tensor<64xf32>, !tile.tensor<?xf32>
  tile.return
}

// -----

// A gemm's result read after a second gemm has started: the wait leaves the
// second running (wait_group 1), then the second's read waits for it. A
// gemm started under an if does not count (it may not have started).
// CHECK-LABEL: tile.kernel @overlap
// CHECK: hopper.wgmma_commit
// CHECK-NOT: hopper.wgmma_wait
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.wgmma_wait 1
// CHECK: tile.store
// CHECK: hopper.wgmma_wait 0
// CHECK: tile.store
// CHECK-LABEL: tile.kernel @guarded
// CHECK: hopper.wgmma_commit
// CHECK: tile.if
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK-NOT: hopper.wgmma_wait 1
// CHECK: hopper.wgmma_wait 0
// CHECK-NOT: hopper.wgmma_wait 1
// CHECK: tile.return
tile.kernel @overlap(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ov = tile.view %o sizes(%n) strides(%c0) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %s = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  %t = tile.gemm %b, %a {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  tile.store_tile %s, %ov[%c0, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
  tile.store_tile %t, %ov[%c0, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
  tile.return
}
tile.kernel @guarded(%o: !tile.ptr<f32>, %n: index, %c: i1) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ov = tile.view %o sizes(%n) strides(%c0) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %s = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  tile.if %c {
    %t = tile.gemm %b, %a {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    tile.store_tile %t, %ov[%c0, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
    tile.yield
  }
  tile.store_tile %s, %ov[%c0, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
  tile.return
}

// -----

// A sum across the warps of a [128, 4] fragment goes through shared memory,
// between two barriers.
// CHECK-LABEL: tile.kernel @across_warps
// CHECK: %[[SCRATCH:.*]] = tile.shared_view %{{.*}} : <4x4xf32>
// CHECK: tile.shared_store %{{.*}}, %[[SCRATCH]]
// CHECK: tile.barrier
// CHECK-COUNT-4: tile.shared_load %[[SCRATCH]]
// CHECK: tile.barrier
tile.kernel @across_warps(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ov = tile.view %o sizes(%n) strides(%c0) : !tile.ptr<f32> -> !tile.tensor<?x4xf32>
  %x = tile.load_tile %ov[%c0, %c0] : !tile.tensor<?x4xf32> -> tensor<128x4xf32>
  %t = tile.transpose %x perm [1, 0] : tensor<128x4xf32> -> tensor<4x128xf32>
  %r = tile.reduce sum %t axis 1 : tensor<4x128xf32> -> tensor<4xf32>
  %ov1 = tile.view %o sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  tile.store_tile %r, %ov1[%c0] : tensor<4xf32>, !tile.tensor<?xf32>
  tile.return
}

// -----

// A gemm in a loop whose B tile the loop does not change: B's descriptors
// are made once, before the loop; A's (the tile the loop would refill) in it.
// Row stores of 4 consecutive f32 a thread are one vector store where the
// row is inside, unmasked and 16-byte aligned (else element by element).
// CHECK-LABEL: tile.kernel @invariant_b
// CHECK: %[[A:.*]] = tile.shared_view %c0 : <64x64xbf16, swizzle = 128>
// CHECK: %[[B:.*]] = tile.shared_view %c8192 : <64x64xbf16, swizzle = 128>
// CHECK: hopper.wgmma_desc %[[B]][%c0] sbo 1024
// CHECK: hopper.wgmma_desc %[[B]][%c32] sbo 1024
// CHECK: hopper.wgmma_desc %[[B]][%c64] sbo 1024
// CHECK: hopper.wgmma_desc %[[B]][%c96] sbo 1024
// CHECK: tile.for
// CHECK-NOT: hopper.wgmma_desc %[[B]]
// CHECK: hopper.wgmma_desc %[[A]]
// CHECK-NOT: hopper.wgmma_desc %[[B]]
// The accumulator layout gives a thread 2 consecutive f32 of a row: 8 bytes.
// CHECK: %[[GAP:.*]] = tile.elems_to_aligned %{{.*}}[%[[R:.*]], %[[C:.*]]] bytes 8
// CHECK: arith.cmpi eq, %[[GAP]], %c0
// CHECK: tile.if
// CHECK: llvm.insertelement
// CHECK: %[[V:.*]] = llvm.insertelement
// CHECK: tile.store %[[V]], %{{.*}}[%[[R]], %[[C]]] : vector<2xf32>
// CHECK: } else {
// CHECK-COUNT-2: tile.store %{{.*}} : f32
// CHECK: tile.return
tile.kernel @invariant_b(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %ov = tile.view %o sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.for %i = %c0 to %n step %c1 {
    %s = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
    %r = arith.muli %i, %c64 : index
    tile.store_tile %s, %ov[%r, %c0] : tensor<64x64xf32>, !tile.tensor<?x64xf32>
  }
  tile.return
}
