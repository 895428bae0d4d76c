// RUN: minitile-opt %s -split-input-file --tile-assign-layouts --tile-distribute-fragments -verify-diagnostics
// A gemm whose A is a fragment (wgmma's register operand): what the
// distribution still refuses.

// B still needs the 128-byte swizzle.
tile.kernel @unswizzled(%x: !tile.ptr<bf16>, %o: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %xv = tile.view %x sizes(%n, %n) strides(%n) : !tile.ptr<bf16> -> !tile.tensor<?x?xbf16>
  %ov = tile.view %o sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %p = tile.load_tile %xv[%c0, %c0] : !tile.tensor<?x?xbf16> -> tensor<64x16xbf16>
  %b = tile.alloc_shared : !tile.shared<16x32xbf16>
  // expected-error@+1 {{'tile.gemm' op needs operand tiles with a 128-byte swizzle (rows of a multiple of 128 bytes, a multiple of 8 rows; B stored [K, N] takes N a multiple of 64 bf16)}}
  %r = tile.gemm %p, %b : tensor<64x16xbf16>, !tile.shared<16x32xbf16> -> tensor<64x32xf32>
  tile.store_tile %r, %ov[%c0, %c0] : tensor<64x32xf32>, !tile.tensor<?x?xf32>
  tile.return
}
