// RUN: minitile-opt %s -split-input-file --tile-assign-layouts --tile-distribute-fragments --tile-plan-shared --canonicalize --cse -verify-diagnostics | FileCheck %s
// A gemm whose B is stored [K, N] (no transpose_b): wgmma reads it MN-major.
// B's tile [64, 128] is two 128-byte panels of 64 rows of K (8192 bytes
// each, as a TMA copy writes them). Each k-step of 16 starts 16 rows (2048
// bytes) further into the first panel; groups of 8 rows of K are 1024 bytes
// apart (sbo), the two 64-column groups of N a panel apart (lbo); the wgmma
// transposes B. A's descriptors stay K-major (32 bytes a k-step, no lbo).

// CHECK-LABEL: tile.kernel @kn
// CHECK: %[[A:.*]] = tile.shared_view %c0 : <64x64xbf16, swizzle = 128>
// CHECK: %[[B:.*]] = tile.shared_view %c8192 : <64x128xbf16, swizzle = 128>
// CHECK: hopper.wgmma_fence
// CHECK: hopper.wgmma_desc %[[A]][%{{.*}}] sbo 1024 :
// CHECK: hopper.wgmma_desc %[[B]][%c0] sbo 1024 lbo 8192 :
// CHECK: %[[D0:.*]]:64 = hopper.wgmma %{{.*}}, %{{.*}} n 128 acc({{.*}}) {transpose_b, zero_acc}
// CHECK: hopper.wgmma_desc %[[A]][%{{.*}}] sbo 1024 :
// CHECK: hopper.wgmma_desc %[[B]][%c2048] sbo 1024 lbo 8192 :
// CHECK: hopper.wgmma {{.*}} n 128 acc(%[[D0]]#0, {{.*}}) {transpose_b}
// CHECK: hopper.wgmma_desc %[[B]][%c4096] sbo 1024 lbo 8192 :
// CHECK: hopper.wgmma_desc %[[B]][%c6144] sbo 1024 lbo 8192 :
// CHECK: hopper.wgmma {{.*}} {transpose_b}
// CHECK: hopper.wgmma_commit
tile.kernel @kn(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
  %s = tile.gemm %a, %b : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x128xbf16, swizzle = 128> -> tensor<64x128xf32>
  tile.store_tile %s, %ov[%c0, %c0] : tensor<64x128xf32>, !tile.tensor<?x?xf32>
  tile.return
}

// -----

// K = 128: B [128, 256] is four panels of 128 rows (16384 bytes apart),
// eight k-steps of 2048 bytes.
// CHECK-LABEL: tile.kernel @kn_long
// CHECK: hopper.wgmma_desc %{{.*}}[%c0] sbo 1024 lbo 16384 : <128x256xbf16, swizzle = 128>
// CHECK: hopper.wgmma {{.*}} n 256 {{.*}} {transpose_b, zero_acc}
// CHECK: hopper.wgmma_desc %{{.*}}[%c2048] sbo 1024 lbo 16384 : <128x256xbf16, swizzle = 128>
// CHECK: hopper.wgmma_desc %{{.*}}[%c8192] sbo 1024 lbo 16384 : <128x256xbf16, swizzle = 128>
// CHECK: hopper.wgmma_desc %{{.*}}[%c14336] sbo 1024 lbo 16384 : <128x256xbf16, swizzle = 128>
// CHECK: hopper.wgmma {{.*}} n 256 {{.*}} {transpose_b}
// CHECK-NEXT: hopper.wgmma_commit
tile.kernel @kn_long(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %a = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<128x256xbf16, swizzle = 128>
  %s = tile.gemm %a, %b : !tile.shared<64x128xbf16, swizzle = 128>, !tile.shared<128x256xbf16, swizzle = 128> -> tensor<64x256xf32>
  tile.store_tile %s, %ov[%c0, %c0] : tensor<64x256xf32>, !tile.tensor<?x?xf32>
  tile.return
}

// -----

// B [K, N] with N = 32: 64-byte rows take no swizzle, which wgmma needs.
tile.kernel @kn_narrow(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %a = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %b = tile.alloc_shared : !tile.shared<64x32xbf16>
  // expected-error@+1 {{'tile.gemm' op needs operand tiles with a 128-byte swizzle (rows of a multiple of 128 bytes, a multiple of 8 rows; B stored [K, N] takes N a multiple of 64 bf16)}}
  %s = tile.gemm %a, %b : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x32xbf16> -> tensor<64x32xf32>
  tile.store_tile %s, %ov[%c0, %c0] : tensor<64x32xf32>, !tile.tensor<?x?xf32>
  tile.return
}
