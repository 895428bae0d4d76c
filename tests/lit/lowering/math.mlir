// RUN: minitile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// REQUIRES: libdevice
// Math functions: with `afn` (Kernel::fastMath) f32 ones become the PTX
// approximations; without, sqrt is llvm.sqrt (sqrt.rn) and the others call
// libdevice, declared once each; f16 and bf16 compute in f32.

// CHECK-DAG: llvm.func @__nv_expf(f32) -> f32
// CHECK-DAG: llvm.func @__nv_logf(f32) -> f32
// CHECK-DAG: llvm.func @__nv_tanhf(f32) -> f32
// CHECK-DAG: llvm.func @__nv_exp(f64) -> f64
// CHECK-LABEL: llvm.func @k(
tile.kernel @k(%p: !tile.ptr<f32>, %q: !tile.ptr<f64>, %r: !tile.ptr<bf16>, %s: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %w = tile.view %q sizes(%n) strides() : !tile.ptr<f64> -> !tile.tensor<?xf64>
  %b = tile.view %r sizes(%n) strides() : !tile.ptr<bf16> -> !tile.tensor<?xbf16>
  %iv = tile.view %s sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %x = tile.load %v[%c0] : !tile.tensor<?xf32> -> f32
  // Precise.
  // CHECK: llvm.call @__nv_expf(%{{.*}}) : (f32) -> f32
  %e = math.exp %x : f32
  // CHECK: llvm.call @__nv_logf(%{{.*}}) : (f32) -> f32
  %l = math.log %e : f32
  // CHECK: llvm.call @__nv_tanhf(%{{.*}}) : (f32) -> f32
  %t = math.tanh %l : f32
  // CHECK: llvm.intr.sqrt(%{{.*}}) : (f32) -> f32
  %q1 = math.sqrt %t : f32
  // CHECK: llvm.intr.fabs(%{{.*}}) : (f32) -> f32
  %a = math.absf %q1 : f32
  // Fast.
  // CHECK: %[[L2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
  // CHECK: %[[P:.*]] = llvm.fmul %{{.*}}, %[[L2E]] : f32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[P]]) : (f32) -> f32
  %fe = math.exp %a fastmath<afn> : f32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
  %f2 = math.exp2 %fe fastmath<afn> : f32
  // CHECK: %[[LG:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
  // CHECK: llvm.fmul %[[LG]], %{{.*}} : f32
  %fl = math.log %f2 fastmath<afn> : f32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
  %fl2 = math.log2 %fl fastmath<afn> : f32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.sqrt.approx.ftz.f"(%{{.*}}) : (f32) -> f32
  %fs = math.sqrt %fl2 fastmath<afn> : f32
  // CHECK: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.ftz.f"(%{{.*}}) : (f32) -> f32
  %fr = math.rsqrt %fs fastmath<afn> : f32
  // CHECK: llvm.intr.tanh(%{{.*}}) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
  %ft = math.tanh %fr fastmath<afn> : f32
  tile.store %ft, %v[%c0] : f32, !tile.tensor<?xf32>
  // f64 is precise even with afn.
  // CHECK: llvm.call @__nv_exp(%{{.*}}) : (f64) -> f64
  %y = tile.load %w[%c0] : !tile.tensor<?xf64> -> f64
  %ye = math.exp %y fastmath<afn> : f64
  tile.store %ye, %w[%c0] : f64, !tile.tensor<?xf64>
  // bf16 computes in f32.
  // CHECK: %[[X:.*]] = llvm.fpext %{{.*}} : bf16 to f32
  // CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
  // CHECK: llvm.fptrunc %[[E]] : f32 to bf16
  %z = tile.load %b[%c0] : !tile.tensor<?xbf16> -> bf16
  %ze = math.exp2 %z fastmath<afn> : bf16
  tile.store %ze, %b[%c0] : bf16, !tile.tensor<?xbf16>
  // CHECK: "llvm.intr.abs"(%{{.*}}) <{is_int_min_poison = false}> : (i32) -> i32
  %i = tile.load %iv[%c0] : !tile.tensor<?xi32> -> i32
  %ia = math.absi %i : i32
  tile.store %ia, %iv[%c0] : i32, !tile.tensor<?xi32>
  tile.return
}
