// RUN: env MINITILE_LIBDEVICE=/nonexistent/libdevice.10.bc minitile-opt %s --convert-tile-to-llvm -verify-diagnostics
// Precise math functions call libdevice: without it each is reported at
// the op (the user's line, for DSL kernels). Fast ones and sqrt need none.

tile.kernel @k(%p: !tile.ptr<f32>, %n: index) attributes {block = array<i32: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %x = tile.load %v[%c0] : !tile.tensor<?xf32> -> f32
  %s = math.sqrt %x : f32
  %f = math.exp %s fastmath<afn> : f32
  // expected-error@+1 {{precise exp() calls libdevice, and libdevice '/nonexistent/libdevice.10.bc' does not exist (set MINITILE_LIBDEVICE, or ask for fast math: Kernel::fastMath)}}
  %e = math.exp %f : f32
  // expected-error@+1 {{precise tanh() calls libdevice}}
  %t = math.tanh %e : f32
  tile.store %t, %v[%c0] : f32, !tile.tensor<?xf32>
  tile.return
}
