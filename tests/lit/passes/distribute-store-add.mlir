// RUN: minitile-opt %s -split-input-file --tile-assign-layouts --tile-distribute-fragments --canonicalize --cse | FileCheck %s
// RUN: minitile-opt %s -split-input-file --tile-assign-layouts --tile-distribute-fragments --canonicalize --cse | FileCheck %s --check-prefix=INDEX
// store_tile add: the stores become reductions (tile.store add, lowered to
// red.global.add), a thread's side-by-side elements in one vector where
// they are whole inside the tensor and aligned, else one by one (unless
// each warp holds whole rows, below). One test
// before them all (every vector aligned, wholly inside or outside) picks
// the path where each vector needs only its bounds; the other tests each
// vector. Into
// gathered rows (`rows`): a row's index is read where its elements are
// added, -1 past the index tensor's end, and a negative one is left alone.

// Rows loaded four columns a thread: vector<4xf32> reductions.
// CHECK-LABEL: tile.kernel @boxed
// CHECK-COUNT-8: tile.store add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<4xf32>, <?x?xf32>
// CHECK: } else {
// CHECK-COUNT-8: tile.store add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<4xf32>, <?x?xf32>
// CHECK-NOT: tile.store %
tile.kernel @boxed(%x: !tile.ptr<f32>, %o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %xv = tile.view %x sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %f = tile.load_tile %xv[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<64x64xf32>
  tile.store_tile add %f, %ov[%c0, %c0] : tensor<64x64xf32>, !tile.tensor<?x?xf32>
  tile.return
}

// -----

// A gemm's accumulator into the rows idx[s, j..] picks, through a scratch
// tile of the block's 64 rows (16 bytes of padding a row): each thread's
// register pairs into it, a warp barrier (a warp reads back only its own
// 16 rows), then each lane reads 4 columns of one row (a row of 128 f32 a
// warp instruction), reads that row's index and adds the 4 with one
// vector<4xf32> reduction; a warp barrier before the scratch is written
// again. On the path where the one test before them finds every vector
// aligned; else each element alone.
// CHECK-LABEL: tile.kernel @gathered
// CHECK: tile.alloc_shared : <64x132xf32>
// CHECK-COUNT-32: tile.shared_store %{{.*}} : vector<2xf32>, <64x132xf32>
// CHECK-NEXT: hopper.warp_sync
// CHECK-COUNT-16: tile.shared_load %{{.*}} : <64x132xf32> -> vector<4xf32>
// CHECK: hopper.warp_sync
// CHECK-NEXT: tile.if
// CHECK-COUNT-16: tile.store add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : vector<4xf32>, <?x128xf32>
// CHECK: } else {
// CHECK-COUNT-64: tile.store add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : f32, <?x128xf32>
// CHECK-NOT: tile.store add
// INDEX-LABEL: tile.kernel @gathered
// INDEX-COUNT-16: tile.load %{{.*}} : <?x?xi32> -> i32
// INDEX-NOT: tile.load %{{.*}} : <?x?xi32> -> i32
tile.kernel @gathered(%o: !tile.ptr<f32>, %i: !tile.ptr<i32>, %n: index, %s: index, %j: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %ov = tile.view %o sizes(%n) strides(%c128) : !tile.ptr<f32> -> !tile.tensor<?x128xf32>
  %iv = tile.view %i sizes(%n, %n) strides(%n) : !tile.ptr<i32> -> !tile.tensor<?x?xi32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<128x64xbf16, swizzle = 128>
  %r = tile.gemm %a, %b {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<128x64xbf16, swizzle = 128> -> tensor<64x128xf32>
  tile.store_tile add %r, %ov[%c0, %c0] rows %iv : !tile.tensor<?x?xi32> [%s, %j] : tensor<64x128xf32>, !tile.tensor<?x128xf32>
  tile.return
}
