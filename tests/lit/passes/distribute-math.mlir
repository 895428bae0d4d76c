// RUN: minitile-opt %s --tile-assign-layouts --tile-distribute-fragments --canonicalize --cse | FileCheck %s
// Math functions and float casts on fragments are elementwise: one scalar
// op a register (a pair for f32 to bf16), in the layout of the fragment,
// flags kept.

// CHECK-LABEL: tile.kernel @k
tile.kernel @k(%p: !tile.ptr<f32>, %q: !tile.ptr<bf16>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %b = tile.view %q sizes(%n) strides() : !tile.ptr<bf16> -> !tile.tensor<?xbf16>
  %x = tile.load_tile %v[%c0] : !tile.tensor<?xf32> -> tensor<256xf32>
  // 256 elements: four neighbours a thread (64 lanes of two warps).
  // CHECK-COUNT-4: math.exp %{{.*}} fastmath<afn> : f32
  %e = math.exp %x fastmath<afn> : tensor<256xf32>
  // CHECK-COUNT-4: math.rsqrt %{{.*}} : f32
  %r = math.rsqrt %e : tensor<256xf32>
  // f32 to a 16-bit float two registers at a time (cvt.rn.bf16x2.f32).
  // CHECK-COUNT-2: arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
  %t = arith.truncf %r : tensor<256xf32> to tensor<256xbf16>
  // CHECK: tile.store %{{.*}} : bf16, <?xbf16>
  tile.store_tile %t, %b[%c0] : tensor<256xbf16>, !tile.tensor<?xbf16>
  tile.return
}
