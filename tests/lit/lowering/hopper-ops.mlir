// RUN: minitile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck %s
// The machine-level tile ops become NVVM: intrinsics where LLVM has them,
// inline PTX where it does not.

// CHECK: llvm.mlir.global external @__minitile_dynamic_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-LABEL: llvm.func @k(
// A tensor map is a grid constant passed by value.
// CHECK-SAME: %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// setmaxnreg asks for one block per multiprocessor.
// CHECK-SAME: nvvm.minctasm = 1 : i32
// The first thread fetches each tensor map the kernel copies through as it
// starts (an unused one it leaves), before anything else.
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "@$1 prefetch.tensormap [$0];", "l,b" %arg0, %[[FIRST]] : (!llvm.ptr, i1) -> ()
// CHECK-NOT: prefetch.tensormap
tile.kernel @k(%map: !hopper.tma_desc, %x: f32, %unused: !hopper.tma_desc) attributes {block = array<i32: 256, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16384 = arith.constant 16384 : index
  %i0 = arith.constant 0 : i32
  // Shared tiles: the dynamic shared base rounded up to 1024, plus the offset.
  // CHECK: llvm.mlir.addressof @__minitile_dynamic_shared
  // CHECK: llvm.add %{{.*}}, %{{.*}} : i64
  // CHECK: llvm.and
  %bars = tile.shared_view %c0 : !tile.shared<2xi64>
  %tile = tile.shared_view %c16384 : !tile.shared<64x64xbf16, swizzle = 128>
  // CHECK: llvm.getelementptr
  %bar = hopper.mbarrier_of %bars[%c1] : !tile.shared<2xi64>
  // CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
  hopper.mbarrier_init %bar count 1
  // CHECK: nvvm.fence.mbarrier.init
  hopper.fence_mbarrier_init
  // CHECK: nvvm.barrier{{$}}
  tile.barrier
  // CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
  hopper.named_barrier 1 threads 128
  // A barrier chosen at run time: bar.sync and bar.arrive take it in a register.
  // CHECK: nvvm.barrier id = %[[ID:.*]] number_of_threads = %{{.*}}
  // CHECK: llvm.inline_asm has_side_effects {{.*}}"bar.arrive $0, $1;", "r,n" %[[ID]], %{{.*}} : (i32, i32) -> ()
  %turn = arith.constant 3 : i32
  hopper.bar_sync %turn threads 256
  hopper.bar_arrive %turn threads 256
  // CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
  hopper.mbarrier_arrive_expect_tx %bar bytes 8192
  // The copy lands `offset` bytes into the tile, completing on the barrier.
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] {isCTAOnly = true
  hopper.tma_load %map[%i0, %i0] to %tile offset 4096, %bar : !tile.shared<64x64xbf16, swizzle = 128>
  // A parity wait loops in PTX until the phase completes.
  // CHECK: llvm.inline_asm has_side_effects {{.*}}mbarrier.try_wait.parity
  hopper.mbarrier_wait %bar parity %c0
  // CHECK: nvvm.mbarrier.arrive
  hopper.mbarrier_arrive %bar
  // CHECK: nvvm.setmaxregister increase 232
  hopper.setmaxnreg 232 {increase = true}
  // CHECK: nvvm.elect.sync -> i1
  %e = hopper.elect_one
  // CHECK: nvvm.shfl.sync bfly %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32 -> f32
  %s = tile.shuffle_xor %x, 2 : f32
  // CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  hopper.fence_proxy_async
  // Descriptor: low word ((address >> 4) | 1 << 16) + (offset >> 4); high
  // word (1024 >> 4) | 1 << 30 (128-byte swizzle), packed by mov.b64 {lo, hi}
  // (pure asm: no side effects, so it can be hoisted and shared).
  // CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
  // CHECK: llvm.or %{{.*}}, %{{.*}} : i32
  // CHECK: %[[LO:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
  // CHECK: %[[HI:.*]] = llvm.mlir.constant(1073741888 : i32)
  // CHECK: llvm.inline_asm "mov.b64 $0, {$1, $2};", "=l,r,r" %[[LO]], %[[HI]] : (i32, i32) -> i64
  %d = hopper.wgmma_desc %tile[%c0] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
  // An MN-major operand's (B stored [K, N]) leading byte offset, the bytes
  // between its 64-column panels, takes bits 16-29 of the low word in place
  // of the 1: (8192 >> 4) << 16.
  // CHECK: %[[LBO:.*]] = llvm.mlir.constant(33554432 : i32)
  // CHECK: llvm.or %{{.*}}, %[[LBO]] : i32
  // CHECK: llvm.inline_asm "mov.b64 $0, {$1, $2};"
  %dn = hopper.wgmma_desc %tile[%c0] sbo 1024 lbo 8192 : !tile.shared<64x64xbf16, swizzle = 128>
  // CHECK: nvvm.wgmma.fence.aligned
  hopper.wgmma_fence
  // CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
  %r:4 = hopper.wgmma %d, %d n 8 acc(%x, %x, %x, %x) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  // B MN-major: the same instruction, its imm-trans-b operand 1 (the PTX
  // test tests/lit/codegen/gemm-kn.test reads it).
  // CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
  %rn:4 = hopper.wgmma %d, %dn n 8 acc(%x, %x, %x, %x) {zero_acc, transpose_b} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  // A from registers, which nvvm.wgmma.mma_async does not take: inline PTX
  // with A's four 32-bit registers in braces after the accumulators (tied
  // in and out), then B's descriptor, scale-d through the predicate (1: the
  // accumulators are added to), imm-scale-a and -b 1 and imm-trans-b, and
  // no imm-trans-a (a register A is never transposed).
  // CHECK: %[[A:.*]] = llvm.bitcast %{{.*}} : f32 to i32
  // CHECK: %[[SCALE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $13, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, {$8, $9, $10, $11}, $12, p, 1, 1, 1;\0A}\0A", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,l,n" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A]], %[[A]], %[[A]], %[[A]], %{{.*}}, %[[SCALE]] : (f32, f32, f32, f32, i32, i32, i32, i32, i64, i32) -> !llvm.struct<(f32, f32, f32, f32)>
  %ai = arith.bitcast %x : f32 to i32
  %rr:4 = hopper.wgmma regs(%ai, %ai, %ai, %ai), %dn n 8 acc(%r#0, %r#1, %r#2, %r#3) {transpose_b} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  hopper.wgmma_commit
  // CHECK: nvvm.wgmma.wait.group.sync.aligned 0
  hopper.wgmma_wait 0
  // Swizzled shared addressing: chunk ^ (row % 8).
  // CHECK: llvm.xor
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  %out = tile.shared_view %c0 : !tile.shared<8x32xf32, swizzle = 128>
  tile.shared_store %r#0, %out[%c1, %c1] : f32, !tile.shared<8x32xf32, swizzle = 128>
  tile.return
}
