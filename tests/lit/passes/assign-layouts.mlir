// RUN: minitile-opt %s --tile-assign-layouts -split-input-file -verify-diagnostics | FileCheck %s
// gemm results take the wgmma accumulator layout; other fragments follow
// them forwards and backwards; the rest gets a blocked layout.

// CHECK-DAG: #[[ACC:frag[0-9]*]] = #tile.frag<reg = {{\[\[}}0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [32, 0]]>
// The weights [2, 64] as their broadcast over rows needs them: rows' bits hold copies.
// Registers along the rows are dropped, not repeated.
// CHECK-DAG: #[[W:frag[0-9]*]] = #tile.frag<reg = {{\[\[}}0, 1], [0, 8], [0, 16], [0, 32], [1, 0]], lane = {{\[\[}}0, 2], [0, 4], [0, 0], [0, 0], [0, 0]], warp = {{\[\[}}0, 0], [0, 0]]>
// After the head sum over [64, 2, 64] axis 2: registers along heads are gone,
// and as no user asks for copies, the two lanes along the heads take the
// two registers left (row 8 and the query): one element per thread.
// CHECK-DAG: #[[SUM:frag[0-9]*]] = #tile.frag<reg = [], lane = {{\[\[}}8, 0], [0, 1], [1, 0], [2, 0], [4, 0]], warp = {{\[\[}}16, 0], [32, 0]]>
// CHECK-DAG: #[[OUT:frag[0-9]*]] = #tile.frag<reg = [], lane = {{\[\[}}0, 8], [1, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[\[}}0, 16], [0, 32]]>
// A fragment nothing constrains: 4 floats per thread, 32 lanes, 4 warps.
// CHECK-DAG: #[[BLOCKED:frag[0-9]*]] = #tile.frag<reg = {{\[\[}}1], [2], [512]], lane = {{\[\[}}4], [8], [16], [32], [64]], warp = {{\[\[}}128], [256]]>

// CHECK-LABEL: tile.kernel @indexer_like
tile.kernel @indexer_like(%k: !tile.ptr<bf16>, %w: !tile.ptr<f32>, %o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %a = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<128x128xbf16, swizzle = 128>
  %wv = tile.view %w sizes(%n) strides(%c64) : !tile.ptr<f32> -> !tile.tensor<?x64xf32>
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  // CHECK: tile.gemm {{.*}} -> tensor<64x128xf32, #[[ACC]]>
  %s = tile.gemm %a, %b {transpose_b} : !tile.shared<64x128xbf16, swizzle = 128>, !tile.shared<128x128xbf16, swizzle = 128> -> tensor<64x128xf32>
  // CHECK: arith.constant dense<0.000000e+00> : tensor<64x128xf32, #[[ACC]]>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %relu = arith.maximumf %s, %zero : tensor<64x128xf32>
  // CHECK: tile.load_tile {{.*}} -> tensor<2x64xf32, #[[W]]>
  %wt = tile.load_tile %wv[%c0, %c0] : !tile.tensor<?x64xf32> -> tensor<2x64xf32>
  %wf = tile.reshape %wt : tensor<2x64xf32> -> tensor<128xf32>
  // CHECK: tile.broadcast {{.*}} -> tensor<64x128xf32, #[[ACC]]>
  %wb = tile.broadcast %wf dims [1] : tensor<128xf32> -> tensor<64x128xf32>
  %p = arith.mulf %relu, %wb : tensor<64x128xf32>
  %p3 = tile.reshape %p : tensor<64x128xf32> -> tensor<64x2x64xf32>
  // CHECK: tile.reduce sum {{.*}} -> tensor<64x2xf32, #[[SUM]]>
  %sum = tile.reduce sum %p3 axis 2 : tensor<64x2x64xf32> -> tensor<64x2xf32>
  // CHECK: tile.iota axis 0 : tensor<64x2xi32, #[[SUM]]>
  %t = tile.iota axis 0 : tensor<64x2xi32>
  %lim = arith.constant dense<7> : tensor<64x2xi32>
  %in = arith.cmpi slt, %t, %lim : tensor<64x2xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x2xf32>
  %out = arith.select %in, %sum, %ninf : tensor<64x2xi1>, tensor<64x2xf32>
  // CHECK: tile.transpose {{.*}} -> tensor<2x64xf32, #[[OUT]]>
  %tr = tile.transpose %out perm [1, 0] : tensor<64x2xf32> -> tensor<2x64xf32>
  tile.store_tile %tr, %ov[%c0, %c0] : tensor<2x64xf32>, !tile.tensor<?x?xf32>
  // CHECK: tile.reshape {{.*}} -> tensor<1024xf32, #[[BLOCKED]]>
  %free = tile.load_tile %ov[%c0, %c0] : !tile.tensor<?x?xf32> -> tensor<1x1024xf32>
  %flat = tile.reshape %free : tensor<1x1024xf32> -> tensor<1024xf32>
  tile.return
}


// -----

// Two layouts meet: the operand that arrives in the other one is converted.
// CHECK-LABEL: tile.kernel @conflict
// CHECK: %[[S:.*]] = tile.gemm {{.*}} -> tensor<64x64xf32, #[[A:frag[0-9]*]]>
// CHECK: %[[T:.*]] = tile.transpose %[[S]] perm [1, 0] : tensor<64x64xf32, #[[A]]> -> tensor<64x64xf32, #[[B:frag[0-9]*]]>
// CHECK: %[[C:.*]] = tile.convert_layout %[[T]] : tensor<64x64xf32, #[[B]]> -> tensor<64x64xf32, #[[A]]>
// CHECK: arith.addf %[[S]], %[[C]] {{.*}}: tensor<64x64xf32, #[[A]]>
tile.kernel @conflict(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %s = tile.gemm %a, %a {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  %t = tile.transpose %s perm [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %x = arith.addf %s, %t : tensor<64x64xf32>
  tile.return
}

// -----

// A reduction broadcast back onto its source keeps copies on the lanes it
// reduced across (what the broadcast needs): no conversion.
// CHECK-LABEL: tile.kernel @softmax_like
// CHECK-NOT: tile.convert_layout
// CHECK: tile.return
tile.kernel @softmax_like(%x: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %xv = tile.view %x sizes(%n) strides(%c256) : !tile.ptr<f32> -> !tile.tensor<?x256xf32>
  %t = tile.load_tile %xv[%c0, %c0] : !tile.tensor<?x256xf32> -> tensor<4x256xf32>
  %m = tile.reduce max %t axis 1 : tensor<4x256xf32> -> tensor<4xf32>
  %mb = tile.broadcast %m dims [0] : tensor<4xf32> -> tensor<4x256xf32>
  %d = arith.subf %t, %mb : tensor<4x256xf32>
  tile.store_tile %d, %xv[%c0, %c0] : tensor<4x256xf32>, !tile.tensor<?x256xf32>
  tile.return
}

// -----

tile.kernel @rows(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 256, 1, 1>} {
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{runs on 8 warps, whose warpgroups take 64 rows each, so its A has 128 rows, not 64}}
  %s = tile.gemm %a, %a {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  tile.return
}
