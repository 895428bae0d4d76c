// RUN: minitile-opt %s --convert-tile-to-llvm="wgmma-descriptors-at-use" --reconcile-unrealized-casts | FileCheck %s
// RUN: minitile-opt %s --convert-tile-to-llvm --reconcile-unrealized-casts | FileCheck --check-prefix=HOISTED %s
//
// wgmma-descriptors-at-use: every wgmma reads a descriptor made right before
// it -- one descriptor made before a loop and read by the wgmmas in it is
// made again at each -- from the tile's base (and the offset's variable
// part) by side-effecting PTX whose add takes the offset's constant part as
// an immediate (>> 4): LLVM keeps it at the wgmma, where ptxas makes it in
// uniform registers. Without the option, the pure `mov.b64` packing, made
// once where the op is.

tile.kernel @k(%p: !tile.ptr<f32>) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c8192 = arith.constant 8192 : index
  %x = arith.constant 0.0 : f32
  %tile = tile.shared_view %c0 : !tile.shared<64x64xbf16, swizzle = 128>
  // Before the loop: an offset of a variable part (a thread's rows) plus 32,
  // and a constant offset of 32 (2 in the descriptor's 16-byte units).
  %t = tile.thread_id x
  %row = arith.muli %t, %c8192 : index
  %off = arith.addi %row, %c32 : index
  %d = hopper.wgmma_desc %tile[%off] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
  %e = hopper.wgmma_desc %tile[%c32] sbo 1024 : !tile.shared<64x64xbf16, swizzle = 128>
  // CHECK-LABEL: llvm.func @k
  // CHECK-NOT: mov.b64 $0, {$1, $2};
  // CHECK: llvm.br
  // In the loop, each wgmma after its own descriptors:
  // CHECK: llvm.inline_asm has_side_effects "{ .reg .b32 lo; add.s32 lo, $1, 2; mov.b64 $0, {lo, 1073741888}; }", "=l,r"
  // CHECK: llvm.inline_asm has_side_effects "{ .reg .b32 lo; add.s32 lo, $1, 2; mov.b64 $0, {lo, 1073741888}; }", "=l,r"
  // CHECK: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
  // CHECK: llvm.inline_asm has_side_effects "{ .reg .b32 lo; add.s32 lo, $1, 2; mov.b64 $0, {lo, 1073741888}; }", "=l,r"
  // CHECK: llvm.inline_asm has_side_effects "{ .reg .b32 lo; add.s32 lo, $1, 2; mov.b64 $0, {lo, 1073741888}; }", "=l,r"
  // CHECK: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
  // HOISTED-LABEL: llvm.func @k
  // HOISTED-COUNT-2: llvm.inline_asm "mov.b64 $0, {$1, $2};"
  // HOISTED: llvm.br
  // HOISTED-NOT: mov.b64
  tile.for %i = %c0 to %c4 step %c1 {
    hopper.wgmma_fence
    %r:4 = hopper.wgmma %d, %e n 8 acc(%x, %x, %x, %x) {zero_acc} : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    %s:4 = hopper.wgmma %d, %e n 8 acc(%r#0, %r#1, %r#2, %r#3) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
    hopper.wgmma_commit
    hopper.wgmma_wait 0
    tile.yield
  }
  tile.return
}
