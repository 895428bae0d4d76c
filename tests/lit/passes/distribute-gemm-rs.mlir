// RUN: minitile-opt %s -split-input-file --tile-assign-layouts --tile-distribute-fragments --tile-plan-shared --canonicalize --cse -verify-diagnostics | FileCheck %s
// RUN: minitile-opt %s -split-input-file --tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// A gemm whose A is a fragment: wgmma's register operand ("RS"). The first
// gemm's result, cast to bf16, is the second's A as it is: the accumulator
// layout of a [64, K] result is wgmma's A-operand layout (register bit 0
// the next column, bit 1 eight rows down, bit 2 eight columns on, the
// higher bits the k-steps), so no tile.convert_layout comes between. Each
// k-step's eight bf16 registers are packed in pairs (the first in the low
// half) into the four i32 the wgmma takes, all before the fence; B's
// descriptors are as for a shared A.

// LAYOUT-LABEL: tile.kernel @rs
// LAYOUT-NOT: tile.convert_layout
// LAYOUT: %[[S:.*]] = tile.gemm {{.*}} -> tensor<64x32xf32, #[[ACC:.*]]>
// LAYOUT: %[[P:.*]] = arith.truncf %[[S]] : tensor<64x32xf32, #[[ACC]]> to tensor<64x32xbf16, #[[ACC]]>
// LAYOUT: tile.gemm %[[P]], %{{.*}} : tensor<64x32xbf16, #[[ACC]]>, <32x128xbf16, swizzle = 128>

// CHECK-LABEL: tile.kernel @rs
// CHECK: hopper.wgmma_commit
// CHECK-NEXT: hopper.wgmma_wait 0
// CHECK-COUNT-8: arith.truncf %{{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: %[[L0:.*]] = llvm.insertelement %{{.*}}, %{{.*}}[%c0_i32 : i32] : vector<2xbf16>
// CHECK: %[[H0:.*]] = llvm.insertelement %{{.*}}, %[[L0]][%c1_i32 : i32] : vector<2xbf16>
// CHECK: %[[A0:.*]] = llvm.bitcast %[[H0]] : vector<2xbf16> to i32
// CHECK: %[[A1:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[A2:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[A3:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK-NEXT: hopper.wgmma_fence
// CHECK-NEXT: %[[B0:.*]] = hopper.wgmma_desc %{{.*}}[%c0] sbo 1024 lbo 4096 : <32x128xbf16, swizzle = 128>
// CHECK-NEXT: hopper.wgmma regs(%[[A0]], %[[A1]], %[[A2]], %[[A3]]), %[[B0]] n 128 acc({{.*}}) {transpose_b, zero_acc}
// CHECK-NEXT: %[[B1:.*]] = hopper.wgmma_desc %{{.*}}[%c2048] sbo 1024 lbo 4096 : <32x128xbf16, swizzle = 128>
// CHECK-NEXT: hopper.wgmma regs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}), %[[B1]] n 128 acc({{.*}}) {transpose_b}
// CHECK-NEXT: hopper.wgmma_commit
tile.kernel @rs(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %k = tile.alloc_shared : !tile.shared<32x64xbf16, swizzle = 128>
  %v = tile.alloc_shared : !tile.shared<32x128xbf16, swizzle = 128>
  %s = tile.gemm %q, %k {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<32x64xbf16, swizzle = 128> -> tensor<64x32xf32>
  %p = arith.truncf %s : tensor<64x32xf32> to tensor<64x32xbf16>
  %r = tile.gemm %p, %v : tensor<64x32xbf16>, !tile.shared<32x128xbf16, swizzle = 128> -> tensor<64x128xf32>
  tile.store_tile %r, %ov[%c0, %c0] : tensor<64x128xf32>, !tile.tensor<?x?xf32>
  tile.return
}

// -----

// A fragment loaded from memory takes the A-operand layout where it is
// loaded; two warpgroups: 128 rows, the second warpgroup's rows 64-127
// (warp bit 2), B stored [N, K] (transpose_b: B K-major, imm-trans-b 0).
// LAYOUT: #[[L:frag[0-9]*]] = #tile.frag<reg = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0], [64, 0]]>
// LAYOUT-LABEL: tile.kernel @loaded
// LAYOUT-NOT: tile.convert_layout
// LAYOUT: tile.load_tile {{.*}} -> tensor<128x64xbf16, #[[L]]>
// CHECK-LABEL: tile.kernel @loaded
// CHECK: hopper.wgmma_fence
// CHECK-NEXT: hopper.wgmma_desc %{{.*}}[%c0] sbo 1024 : <64x64xbf16, swizzle = 128>
// CHECK-NEXT: hopper.wgmma regs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}), %{{.*}} n 64 acc({{.*}}) {zero_acc}
// CHECK-COUNT-3: hopper.wgmma regs(
// CHECK-NEXT: hopper.wgmma_commit
tile.kernel @loaded(%x: !tile.ptr<bf16>, %o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %xv = tile.view %x sizes(%n, %n) strides(%n) : !tile.ptr<bf16> -> !tile.tensor<?x?xbf16>
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %a = tile.load_tile %xv[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<128x64xbf16>
  %b = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %r = tile.gemm %a, %b {transpose_b} : tensor<128x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<128x64xf32>
  tile.store_tile %r, %ov[%c0, %c0] : tensor<128x64xf32>, !tile.tensor<?x?xf32>
  tile.return
}

// -----

// A fragment in another layout -- the scores transposed -- is converted to
// the A-operand layout before the gemm (its elements change threads:
// through shared memory, between two barriers).
// LAYOUT-LABEL: tile.kernel @converted
// LAYOUT: %[[T:.*]] = arith.truncf
// LAYOUT: %[[C:.*]] = tile.convert_layout %[[T]]
// LAYOUT: tile.gemm %[[C]], %{{.*}} : tensor<64x64xbf16, #{{.*}}>, <64x64xbf16, swizzle = 128>
// CHECK-LABEL: tile.kernel @converted
// CHECK: tile.shared_store %{{.*}}, %{{.*}}[%c0, %{{.*}}] : bf16, <1x4096xbf16>
// CHECK: tile.barrier
// CHECK: tile.shared_load %{{.*}}[%c0, %{{.*}}] : <1x4096xbf16> -> bf16
// CHECK: tile.barrier
// CHECK: hopper.wgmma_fence
// CHECK: hopper.wgmma regs(
tile.kernel @converted(%o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %q = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %v = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %s = tile.gemm %q, %q {transpose_b} : !tile.shared<64x64xbf16, swizzle = 128>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  %t = tile.transpose %s perm [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %p = arith.truncf %t : tensor<64x64xf32> to tensor<64x64xbf16>
  %r = tile.gemm %p, %v : tensor<64x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128> -> tensor<64x64xf32>
  tile.store_tile %r, %ov[%c0, %c0] : tensor<64x64xf32>, !tile.tensor<?x?xf32>
  tile.return
}
