// RUN: minitile-opt %s -split-input-file -verify-diagnostics
// Each error of the Hopper ops' verifiers (dialect/HopperDialect.cpp). They
// read their integer attributes as signed: a negative value is reported as
// itself, not as a huge unsigned one.

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.wgmma_wait' op leaves 0 to 7 groups pending, not -1}}
  hopper.wgmma_wait -1
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.setmaxnreg' op sets a multiple of 8 registers from 24 to 256, not -8}}
  hopper.setmaxnreg -8 {increase = true}
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.named_barrier' op uses barrier 1 to 15 (0 is tile.barrier), not -2}}
  hopper.named_barrier -2 threads 128
  tile.return
}

// -----

tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.named_barrier' op waits for a multiple of 32 threads up to 1024, not -128}}
  hopper.named_barrier 1 threads -128
  tile.return
}

// -----

tile.kernel @k(%id: i32) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.bar_sync' op counts a multiple of 32 threads up to 1024, not 100}}
  hopper.bar_sync %id threads 100
  tile.return
}

// -----

tile.kernel @k(%id: i32) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.bar_arrive' op counts a multiple of 32 threads up to 1024, not 2048}}
  hopper.bar_arrive %id threads 2048
  tile.return
}

// -----

tile.kernel @k(%c0: index) attributes {block = array<i32: 128, 1, 1>} {
  %bars = tile.shared_view %c0 : !tile.shared<2xi32>
  // expected-error@+1 {{'hopper.mbarrier_of' op takes a rank-1 shared tile of i64, not '!tile.shared<2xi32>'}}
  %bar = hopper.mbarrier_of %bars[%c0] : !tile.shared<2xi32>
  tile.return
}

// -----

tile.kernel @k(%c0: index) attributes {block = array<i32: 128, 1, 1>} {
  %bars = tile.shared_view %c0 : !tile.shared<2xi64>
  %bar = hopper.mbarrier_of %bars[%c0] : !tile.shared<2xi64>
  // expected-error@+1 {{'hopper.mbarrier_init' op expects 1 to 2^20 - 1 arrivals, not 0}}
  hopper.mbarrier_init %bar count 0
  tile.return
}

// -----

tile.kernel @k(%c0: index) attributes {block = array<i32: 128, 1, 1>} {
  %bars = tile.shared_view %c0 : !tile.shared<2xi64>
  %bar = hopper.mbarrier_of %bars[%c0] : !tile.shared<2xi64>
  // expected-error@+1 {{'hopper.mbarrier_arrive_expect_tx' op expects 0 to 2^20 - 1 bytes, not 1048576}}
  hopper.mbarrier_arrive_expect_tx %bar bytes 1048576
  tile.return
}

// -----

// A tensor map is made on the host, which launches one kernel.
tile.host @h(%p: !tile.ptr<bf16> {tile.name = "p"}, %n: index {tile.name = "n"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'hopper.make_tma_desc' op a tensor map has 1 to 5 dimensions, not 0}}
  %map = hopper.make_tma_desc %p[%c0] dims() strides() box [] swizzle 0 of "p" : !tile.ptr<bf16>
  tile.launch @k grid(%c1, %c1, %c1) args() : () -> ()
  tile.return
}
tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  tile.return
}

// -----

tile.host @h(%p: !tile.ptr<bf16> {tile.name = "p"}, %n: index {tile.name = "n"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'hopper.make_tma_desc' op needs rank-1 strides and rank box extents}}
  %map = hopper.make_tma_desc %p[%c0] dims(%n, %n) strides(%n) box [64] swizzle 0 of "p" : !tile.ptr<bf16>
  tile.launch @k grid(%c1, %c1, %c1) args() : () -> ()
  tile.return
}
tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  tile.return
}

// -----

tile.host @h(%p: !tile.ptr<bf16> {tile.name = "p"}, %n: index {tile.name = "n"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'hopper.make_tma_desc' op box extents are 1 to 256, not 512}}
  %map = hopper.make_tma_desc %p[%c0] dims(%n, %n) strides(%n) box [64, 512] swizzle 0 of "p" : !tile.ptr<bf16>
  tile.launch @k grid(%c1, %c1, %c1) args() : () -> ()
  tile.return
}
tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  tile.return
}

// -----

tile.host @h(%p: !tile.ptr<bf16> {tile.name = "p"}, %n: index {tile.name = "n"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'hopper.make_tma_desc' op swizzle is 0, 32, 64 or 128 bytes}}
  %map = hopper.make_tma_desc %p[%c0] dims(%n, %n) strides(%n) box [64, 64] swizzle 16 of "p" : !tile.ptr<bf16>
  tile.launch @k grid(%c1, %c1, %c1) args() : () -> ()
  tile.return
}
tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  tile.return
}

// -----

tile.host @h(%p: !tile.ptr<bf16> {tile.name = "p"}, %n: index {tile.name = "n"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'hopper.make_tma_desc' op the inner box extent (256 bytes) exceeds the swizzle}}
  %map = hopper.make_tma_desc %p[%c0] dims(%n, %n) strides(%n) box [128, 64] swizzle 128 of "p" : !tile.ptr<bf16>
  tile.launch @k grid(%c1, %c1, %c1) args() : () -> ()
  tile.return
}
tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  tile.return
}

// -----

tile.kernel @k(%map: !hopper.tma_desc, %c0: index) attributes {block = array<i32: 128, 1, 1>} {
  %bars = tile.shared_view %c0 : !tile.shared<2xi64>
  %bar = hopper.mbarrier_of %bars[%c0] : !tile.shared<2xi64>
  %tile = tile.shared_view %c0 : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{'hopper.tma_load' op takes 1 to 5 coordinates, not 0}}
  hopper.tma_load %map[] to %tile offset 0, %bar : !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

// -----

tile.kernel @k(%map: !hopper.tma_desc, %c0: index, %i: i32) attributes {block = array<i32: 128, 1, 1>} {
  %bars = tile.shared_view %c0 : !tile.shared<2xi64>
  %bar = hopper.mbarrier_of %bars[%c0] : !tile.shared<2xi64>
  %tile = tile.shared_view %c0 : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{'hopper.tma_load' op lands at byte 8192 of a tile of 8192 bytes}}
  hopper.tma_load %map[%i, %i] to %tile offset 8192, %bar : !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index, %bytes: i32) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n, %n) strides(%n) : !tile.ptr<f32> -> !tile.tensor<?x?xf32>
  %s = tile.shared_view %n : !tile.shared<8x64xf32>
  // expected-error@+1 {{'hopper.bulk_store' op indexes a rank-2 tensor with 1 indices}}
  hopper.bulk_store %s to %v[%n] bytes %bytes : !tile.shared<8x64xf32>, !tile.tensor<?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index, %bytes: i32) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %s = tile.shared_view %n : !tile.shared<8x64xbf16>
  // expected-error@+1 {{'hopper.bulk_store' op copies a tile of 'bf16' into '!tile.tensor<?xf32>'}}
  hopper.bulk_store %s to %v[%n] bytes %bytes : !tile.shared<8x64xbf16>, !tile.tensor<?xf32>
  tile.return
}

// -----

tile.kernel @k(%d: i64, %x: f32) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.wgmma' op n is a multiple of 8 from 8 to 256, not 12}}
  %r:6 = hopper.wgmma %d, %d n 12 acc(%x, %x, %x, %x, %x, %x) : (f32, f32, f32, f32, f32, f32) -> (f32, f32, f32, f32, f32, f32)
  tile.return
}

// -----

tile.kernel @k(%d: i64, %x: f32) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.wgmma' op m64n8 has 4 accumulators per thread}}
  %r:2 = hopper.wgmma %d, %d n 8 acc(%x, %x) : (f32, f32) -> (f32, f32)
  tile.return
}

// -----

tile.kernel @k(%c0: index) attributes {block = array<i32: 128, 1, 1>} {
  %t = tile.shared_view %c0 : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{'hopper.wgmma_desc' op sbo is a positive multiple of 16 below 2^18 bytes, not 1000}}
  %d = hopper.wgmma_desc %t[%c0] sbo 1000 : !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

// -----

tile.kernel @k(%c0: index) attributes {block = array<i32: 128, 1, 1>} {
  %t = tile.shared_view %c0 : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{'hopper.wgmma_desc' op lbo is a positive multiple of 16 below 2^18 bytes, not 262144}}
  %d = hopper.wgmma_desc %t[%c0] sbo 1024 lbo 262144 : !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

// -----

tile.kernel @k(%c0: index) attributes {block = array<i32: 128, 1, 1>} {
  %t = tile.shared_view %c0 : !tile.shared<64x64xbf16, swizzle = 128>
  // expected-error@+1 {{'hopper.wgmma_desc' op lbo is a positive multiple of 16 below 2^18 bytes, not -16}}
  %d = hopper.wgmma_desc %t[%c0] sbo 1024 lbo -16 : !tile.shared<64x64xbf16, swizzle = 128>
  tile.return
}

// -----

// A from shared memory or from registers, not both.
tile.kernel @k(%d: i64, %r: i32, %x: f32) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.wgmma' op takes A from shared memory (a descriptor) or from registers, one of the two}}
  %e:4 = hopper.wgmma %d regs(%r, %r, %r, %r), %d n 8 acc(%x, %x, %x, %x) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  tile.return
}

// -----

tile.kernel @k(%d: i64, %x: f32) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.wgmma' op takes A from shared memory (a descriptor) or from registers, one of the two}}
  %e:4 = hopper.wgmma , %d n 8 acc(%x, %x, %x, %x) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  tile.return
}

// -----

tile.kernel @k(%d: i64, %r: i32, %x: f32) attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{'hopper.wgmma' op takes A from four registers a thread (a 64 x 16 k-step of bf16), not 3}}
  %e:4 = hopper.wgmma regs(%r, %r, %r), %d n 8 acc(%x, %x, %x, %x) : (f32, f32, f32, f32) -> (f32, f32, f32, f32)
  tile.return
}

// -----

tile.kernel @k(%v: i32) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %t = tile.alloc_shared : !tile.shared<16x64xbf16, swizzle = 128>
  // expected-error@+1 {{'hopper.stmatrix' op stores 1, 2 or 4 matrices, not 3}}
  hopper.stmatrix %v, %v, %v into %t[%c0, %c0] : !tile.shared<16x64xbf16, swizzle = 128>
  tile.return
}

// -----

tile.kernel @k(%v: i32) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %t = tile.alloc_shared : !tile.shared<16x32xf32>
  // expected-error@+1 {{'hopper.stmatrix' op stores 16-bit elements, not 'f32'}}
  hopper.stmatrix %v into %t[%c0, %c0] : !tile.shared<16x32xf32>
  tile.return
}

// -----

tile.kernel @k(%v: i32) attributes {block = array<i32: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %t = tile.alloc_shared : !tile.shared<16x12xbf16>
  // expected-error@+1 {{'hopper.stmatrix' op needs rows of a multiple of 8 elements (16-byte chunks), not 12}}
  hopper.stmatrix %v into %t[%c0, %c0] : !tile.shared<16x12xbf16>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<bf16>, %n: index, %bytes: i32) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n, %n) strides(%n) : !tile.ptr<bf16> -> !tile.tensor<?x?xbf16>
  %s = tile.shared_view %n : !tile.shared<64x64xbf16>
  // expected-error@+1 {{'hopper.cp_async' op indexes a rank-2 tensor with 1 indices}}
  hopper.cp_async %v[%n] to %s[%n] bytes %bytes : !tile.tensor<?x?xbf16>, !tile.shared<64x64xbf16>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index, %bytes: i32) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %s = tile.shared_view %n : !tile.shared<64x64xbf16>
  // expected-error@+1 {{'hopper.cp_async' op copies 'f32' into a tile of 'bf16'}}
  hopper.cp_async %v[%n] to %s[%n] bytes %bytes : !tile.tensor<?xf32>, !tile.shared<64x64xbf16>
  tile.return
}

// -----

tile.kernel @k(%p: !tile.ptr<f32>, %n: index, %bytes: i32) attributes {block = array<i32: 128, 1, 1>} {
  %v = tile.view %p sizes(%n) strides() : !tile.ptr<f32> -> !tile.tensor<?xf32>
  %s = tile.shared_view %n : !tile.shared<2xf32>
  // expected-error@+1 {{'hopper.cp_async' op copies 16 bytes into a tile of 8}}
  hopper.cp_async %v[%n] to %s[%n] bytes %bytes : !tile.tensor<?xf32>, !tile.shared<2xf32>
  tile.return
}
