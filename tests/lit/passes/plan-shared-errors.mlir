// RUN: minitile-opt %s -split-input-file --tile-plan-shared -verify-diagnostics
// A shared tile that takes the kernel past a block's shared memory (the
// target's, with 1024 bytes of slack for aligning the base) is reported at
// that tile.

// 200 KiB fit on sm_90a (227 KiB), and so do 64 KiB, but not both. The
// swizzled tile is placed first, so the error is at the other one.
tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{this shared tile (2 stages of 102400 bytes) does not fit: with it the kernel needs 271360 bytes of shared memory, and a block on sm_90a has 232448}}
  %a = tile.alloc_shared {stages = 2 : i64} : !tile.shared<400x128xbf16>
  %b = tile.alloc_shared {stages = 2 : i64} : !tile.shared<128x128xbf16, swizzle = 128>
  tile.return
}

// -----

// sm_86 has 99 KiB.
module attributes {tile.target = "sm_86"} {
  tile.kernel @k() attributes {block = array<i32: 128, 1, 1>} {
    // expected-error@+1 {{this shared tile (102400 bytes) does not fit: with it the kernel needs 103424 bytes of shared memory, and a block on sm_86 has 101376}}
    %a = tile.alloc_shared : !tile.shared<400x128xbf16>
    tile.return
  }
}
