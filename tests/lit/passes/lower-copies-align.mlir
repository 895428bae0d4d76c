// RUN: minitile-opt %s --tile-lower-copies --verify-diagnostics --split-input-file | FileCheck %s
// A box starts on a 16-byte boundary of its row: the TMA copies a box whose
// innermost origin is known to be a multiple of 16 bytes, and refuses the
// others (an illegal instruction on the H200), which are copied element by
// element with a remark saying why and what to write instead.

// i32 boxes of 4 at rows 2 * block: not known to be 16-byte aligned.
// CHECK-LABEL: tile.kernel @misaligned_kernel
// CHECK-NOT: hopper.tma_load
// CHECK: tile.shared_store
tile.host @misaligned(%x: !tile.ptr<i32> {tile.name = "x"}, %n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  tile.launch @misaligned_kernel grid(%c1, %c1, %c1) args(%x, %n) : (!tile.ptr<i32>, index) -> ()
  tile.return
}
tile.kernel @misaligned_kernel(%x: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c2 = arith.constant 2 : index
  %v = tile.view %x sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %b = tile.block_id x
  %r = arith.muli %b, %c2 : index
  %t = tile.alloc_shared : !tile.shared<4xi32>
  // expected-remark @+1 {{copies element by element, not by the tensor-memory accelerator: its innermost origin is not known to be a multiple of 4 elements (a box starts on a 16-byte boundary of a row); copy the box from the origin rounded down (o / 4 * 4) and read the tile from the remainder on}}
  tile.copy %v[%r] to %t box [4] : !tile.tensor<?xi32>, !tile.shared<4xi32>
  tile.return
}

// -----

// The same rows rounded down to a multiple of 4 (o / 4 * 4), a loop's
// induction variable stepping by 8, a shift by 2 and a constant: all known
// multiples of 4 elements, so all TMA copies.
// CHECK-LABEL: tile.kernel @aligned_kernel
// CHECK-COUNT-4: hopper.tma_load
// CHECK-NOT: tile.shared_store
tile.host @aligned(%x: !tile.ptr<i32> {tile.name = "x"}, %n: index {tile.name = "n"}) {
  %c1 = arith.constant 1 : index
  tile.launch @aligned_kernel grid(%c1, %c1, %c1) args(%x, %n) : (!tile.ptr<i32>, index) -> ()
  tile.return
}
tile.kernel @aligned_kernel(%x: !tile.ptr<i32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %v = tile.view %x sizes(%n) strides() : !tile.ptr<i32> -> !tile.tensor<?xi32>
  %b = tile.block_id x
  %r = arith.muli %b, %c2 : index
  %q = arith.divsi %r, %c4 : index
  %a = arith.muli %q, %c4 : index
  %t = tile.alloc_shared : !tile.shared<4xi32>
  tile.copy %v[%a] to %t box [4] : !tile.tensor<?xi32>, !tile.shared<4xi32>
  %s = arith.shli %b, %c2 : index
  tile.copy %v[%s] to %t box [4] : !tile.tensor<?xi32>, !tile.shared<4xi32>
  tile.copy %v[%c12] to %t box [4] : !tile.tensor<?xi32>, !tile.shared<4xi32>
  tile.for %i = %c4 to %n step %c8 {
    tile.copy %v[%i] to %t box [4] : !tile.tensor<?xi32>, !tile.shared<4xi32>
  }
  tile.return
}
