// RUN: minitile-opt %s -split-input-file --tile-assign-layouts --tile-distribute-fragments --tile-order-async --canonicalize --cse | FileCheck %s
// A fragment stored into a shared tile (tile.shared_store_tile): each
// thread's registers become tile.shared_store ops in the tile's layout (the
// lowering swizzles their addresses), a thread's consecutive elements in
// one store where the box lies inside the tile at a constant origin; a
// barrier of the threads follows, fenced for the async proxy (by
// tile-order-async) where a wgmma reads the tile.

// f32 loaded four consecutive columns a thread, cast to bf16: one
// vector<4xbf16> store each, then the fence and the barrier before the
// gemm. Nothing read the tile before: no barrier before the stores.
// CHECK-LABEL: tile.kernel @stored
// CHECK-NOT: tile.barrier
// CHECK-COUNT-8: tile.shared_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<4xbf16>, <64x64xbf16, swizzle = 128>
// CHECK-NEXT: hopper.fence_proxy_async
// CHECK-NEXT: tile.barrier
// CHECK: hopper.wgmma_fence
tile.kernel @stored(%x: !tile.ptr<f32>, %o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %xv = tile.view %x sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %f = tile.load_tile %xv[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x64xf32>
  %p = arith.truncf %f : tensor<64x64xf32> to tensor<64x64xbf16>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.shared_store_tile %p, %a[%c0, %c0] : tensor<64x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  %r = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  tile.store_tile %r, %ov[%c0, %c0] : tensor<64x64xf32>, !tile.tensor<?x?xf32>
  tile.return
}

// -----

// In a loop the gemm of the previous iteration reads the tile: the stores
// wait for it and meet at a barrier first; one fence, before the barrier
// after the stores.
// CHECK-LABEL: tile.kernel @looped
// CHECK: tile.for
// CHECK-NOT: hopper.fence_proxy_async
// CHECK: hopper.wgmma_wait 0
// CHECK-NEXT: tile.barrier
// CHECK-COUNT-8: tile.shared_store %{{.*}} : vector<4xbf16>, <64x64xbf16, swizzle = 128>
// CHECK-NEXT: hopper.fence_proxy_async
// CHECK-NEXT: tile.barrier
// CHECK: hopper.wgmma_fence
tile.kernel @looped(%x: !tile.ptr<f32>, %o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xv = tile.view %x sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = tile.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32>) {
    %f = tile.load_tile %xv[%c0, %i] : !tile.tensor<?x?xf32> -> tensor<64x64xf32>
    %p = arith.truncf %f : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.shared_store_tile %p, %a[%c0, %c0] : tensor<64x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
    %r = tile.gemm %a, %b, %c {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128>, tensor<64x64xf32> -> tensor<64x64xf32>
    tile.yield %r : tensor<64x64xf32>
  }
  tile.store_tile %acc, %ov[%c0, %c0] : tensor<64x64xf32>, !tile.tensor<?x?xf32>
  tile.return
}

// -----

// An origin known only at run time: each element on its own, stored where
// it is inside the tile; a tile only the threads touch gets no fence.
// CHECK-LABEL: tile.kernel @anywhere
// CHECK: tile.alloc_shared : <64x64xf32>
// CHECK: tile.if %{{.*}} {
// CHECK-NEXT: tile.shared_store %{{.*}} : f32, <64x64xf32>
// CHECK-NOT: vector
// CHECK-NOT: hopper.fence_proxy_async
// CHECK: tile.barrier
// CHECK-NEXT: tile.return
tile.kernel @anywhere(%x: !tile.ptr<f32>, %i: index, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %xv = tile.view %x sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %f = tile.load_tile %xv[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<16x64xf32>
  %a = tile.alloc_shared : !tile.shared<64x64xf32>
  tile.shared_store_tile %f, %a[%i, %c0] : tensor<16x64xf32>, !tile.shared<64x64xf32>
  tile.return
}
