// RUN: minitile-opt %s | minitile-opt | FileCheck %s
// Every tile op prints in a form that parses back to the same IR.

// CHECK-LABEL: tile.host @scale(%x: !tile.ptr<f32> {tile.name = "x"}, %n: index {tile.name = "n", tile.size})
// CHECK: tile.host_check %{{.*}}, "n must not be negative"
// CHECK: tile.check_ptr %x, %n align 4 : <f32>
// CHECK: tile.launch @scale_kernel grid(%{{.*}}, %{{.*}}, %{{.*}}) args(%x, %n) : (!tile.ptr<f32>, index) -> ()
tile.host @scale(%x: !tile.ptr<f32> {tile.name = "x"}, %n: index {tile.name = "n", tile.size}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %ok = arith.cmpi sge, %n, %c0 : index
  tile.host_check %ok, "n must not be negative"
  tile.check_ptr %x, %n align 4 : <f32>
  %g = arith.ceildivsi %n, %c128 : index
  tile.launch @scale_kernel grid(%g, %c1, %c1) args(%x, %n) : (!tile.ptr<f32>, index) -> ()
  tile.return
}

// CHECK-LABEL: tile.kernel @scale_kernel
// CHECK-SAME: block = array<i32: 128, 1, 1>
tile.kernel @scale_kernel(%x: !tile.ptr<f32> {tile.name = "x"}, %n: index {tile.name = "n"}) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // CHECK: tile.view %x[%{{.*}}] sizes(%n) strides() : <f32> -> <?xf32>
  %v = tile.view %x[%c0] sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  // CHECK: tile.thread_id{{ +}}x
  %t = tile.thread_id x
  // CHECK: tile.block_id{{ +}}y
  %b = tile.block_id y
  // CHECK: tile.grid_dim{{ +}}z
  %g = tile.grid_dim z
  // CHECK: %[[ACC:.*]] = tile.alloc_local : <f32>
  %acc = tile.alloc_local : !tile.local<f32>
  %zero = arith.constant 0.0 : f32
  // CHECK: tile.local_store %{{.*}}, %[[ACC]] : <f32>
  tile.local_store %zero, %acc : !tile.local<f32>
  // CHECK: tile.for %[[I:.*]] = %{{.*}} to %n step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
  %sum = tile.for %i = %c0 to %n step %c1 iter_args(%s = %zero) -> (f32) {
    // CHECK: tile.load %{{.*}}[%[[I]]] : <?xf32> -> f32
    %e = tile.load %v[%i] : !tile.tensor<?xf32> -> f32
    %s2 = arith.addf %s, %e : f32
    // CHECK: tile.yield %{{.*}} : f32
    tile.yield %s2 : f32
  }
  %c = arith.cmpi slt, %t, %n : index
  // CHECK: tile.if %{{.*}} {
  tile.if %c {
    // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}] : f32, <?xf32>
    tile.store %sum, %v[%t] : f32, !tile.tensor<?xf32>
  // CHECK: } else {
  } else {
    tile.local_store %sum, %acc : !tile.local<f32>
  }
  // CHECK: tile.parallel %{{.*}} = %{{.*}} to %n step %{{.*}} {
  tile.parallel %j = %c0 to %n step %c4 {
    // CHECK: %[[V:.*]] = tile.splat %{{.*}} : vector<4xf32>
    %vec = tile.splat %zero : vector<4xf32>
    // CHECK: tile.store %[[V]], %{{.*}} : vector<4xf32>, <?xf32>
    tile.store %vec, %v[%j] : vector<4xf32>, !tile.tensor<?xf32>
  }
  // CHECK: tile.elems_to_aligned %{{.*}}[%{{.*}}] bytes 16 : <?xf32>
  %gap = tile.elems_to_aligned %v[%t] bytes 16 : !tile.tensor<?xf32>
  tile.return
}

// A launcher passing the launch's work counter, and a pipelined loop taking
// its iterations from it.
// CHECK-LABEL: tile.host @queued
// CHECK: %[[C:.*]] = tile.work_counter : <i32>
// CHECK: tile.launch @queued_kernel grid(%{{.*}}, %{{.*}}, %{{.*}}) args(%n, %[[C]])
tile.host @queued(%n: index {tile.name = "n", tile.size}) {
  %c1 = arith.constant 1 : index
  %sms = tile.multiprocessor_count
  %blocks = arith.minsi %n, %sms : index
  %counter = tile.work_counter : !tile.ptr<i32>
  tile.launch @queued_kernel grid(%blocks, %c1, %c1) args(%n, %counter) : (index, !tile.ptr<i32>) -> ()
  tile.return
}
// CHECK-LABEL: tile.kernel @queued_kernel
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} stages 2 queue %{{.*}} : !tile.tensor<1xi32> {
tile.kernel @queued_kernel(%n: index, %counter: !tile.ptr<i32>) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %b = tile.block_id x
  %g = tile.grid_dim x
  %queue = tile.view %counter[%c0] sizes() strides() : !tile.ptr<i32> -> !tile.tensor<1xi32>
  tile.pipelined %item = %b to %n step %g stages 2 queue %queue : !tile.tensor<1xi32> {
  }
  tile.return
}

// A gemm whose A is a fragment (wgmma's register operand), a fragment
// stored into a shared tile, and a wgmma reading A from registers.
// CHECK-LABEL: tile.kernel @register_a
// CHECK: %[[P:.*]] = arith.truncf
// CHECK: tile.gemm %[[P]], %{{.*}} : tensor<64x64xbf16>, <64x128xbf16, swizzle = 128> -> tensor<64x128xf32>
// CHECK: tile.shared_store_tile %[[P]], %{{.*}}[%{{.*}}, %{{.*}}] : tensor<64x64xbf16>, <64x64xbf16, swizzle = 128>
// CHECK: hopper.wgmma regs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}), %{{.*}} n 8 acc(
// CHECK-SAME: {transpose_b, zero_acc}
tile.kernel @register_a(%s: tensor<64x64xf32>, %r: i32, %d: i64, %x: f32) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %p = arith.truncf %s : tensor<64x64xf32> to tensor<64x64xbf16>
  %v = tile.alloc_shared : !tile.shared<64x128xbf16, swizzle = 128>
  %o = tile.gemm %p, %v : tensor<64x64xbf16>, !tile.shared<64x128xbf16, swizzle = 128> -> tensor<64x128xf32>
  %t = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  tile.shared_store_tile %p, %t[%c0, %c0] : tensor<64x64xbf16>, !tile.shared<64x64xbf16, swizzle = 128>
  %e:4 = hopper.wgmma regs(%r, %r, %r, %r), %d n 8 acc(%x, %x, %x, %x) {zero_acc, transpose_b} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  tile.return
}
