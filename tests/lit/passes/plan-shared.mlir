// RUN: minitile-opt %s --tile-plan-shared | FileCheck %s
// Every shared tile gets its place: staged tiles take `stages` slots, 1024-byte
// aligned when swizzled, 128 otherwise, the swizzled ones first (so that no
// padding lies between the two kinds); smem_bytes is the end plus 1024 bytes
// of slack. (Issue 10: the pass once read the stages of an alloc it had
// already erased, a use after free that AddressSanitizer reports.)

// CHECK-LABEL: tile.kernel @k
// CHECK-SAME: smem_bytes = 33920
// A [64, 64] bf16 tile is 8192 bytes: three stages of it, then the second
// swizzled [64, 64] bf16 tile, then the [8] i64 tile (64 bytes, 128 with
// its alignment) at 32768,
// although the program allocates it before the second bf16 tile.
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[RING:.*]] = tile.shared_view %[[C0]] : <64x64xbf16, swizzle = 128>
// CHECK-NEXT: %[[C32768:.*]] = arith.constant 32768 : index
// CHECK-NEXT: tile.shared_view %[[C32768]] : <8xi64>
// CHECK-NEXT: %[[C24576:.*]] = arith.constant 24576 : index
// CHECK-NEXT: tile.shared_view %[[C24576]] : <64x64xbf16, swizzle = 128>
// The stage is the ring's base plus i times the stage's bytes.
// CHECK-NEXT: %[[C8192:.*]] = arith.constant 8192 : index
// CHECK-NEXT: %[[AT:.*]] = arith.muli %arg0, %[[C8192]]
// CHECK: %[[SUM:.*]] = arith.addi %[[C0]], %[[AT]]
// CHECK: tile.shared_view %[[SUM]] : <64x64xbf16, swizzle = 128>
tile.kernel @k(%i: index) attributes {block = array<i32: 128, 1, 1>} {
  %ring = tile.alloc_shared {stages = 3 : i64} : !tile.shared<64x64xbf16, swizzle = 128>
  %bar = tile.alloc_shared : !tile.shared<8xi64>
  %one = tile.alloc_shared : !tile.shared<64x64xbf16, swizzle = 128>
  %s = tile.stage %ring[%i] : !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

