// RUN: minitile-opt %s -split-input-file --tile-plan-shared -verify-diagnostics
// Tiles that together exceed a block's shared memory are an error at the
// tile that does not fit.

// 16 stages of a 16 KiB tile: 263168 bytes with the slack.
tile.kernel @big() attributes {block = array<i32: 128, 1, 1>} {
  // expected-error@+1 {{this shared tile (262144 bytes, all stages) does not fit: the kernel's shared tiles need 263168 bytes so far, and a block on sm_90a has 232448}}
  %a = tile.alloc_shared {stages = 16 : i64} : !tile.shared<128x64xbf16, swizzle = 128>
  tile.return
}
