// RUN: not minitile-opt %s 2>&1 | FileCheck %s
// RUN: not minitile-opt %S/parser-guard-nul.bin 2>&1 | FileCheck --check-prefix=NUL %s
// MLIR 22's attribute parser crashes (SIGSEGV) on a dense array of index,
// wherever it appears -- here in a tile.kernel's attributes, where the
// fuzzer found it. minitile-opt refuses the text before parsing it.
// The same words in a comment or a string are not refused: array<index: 1>

// CHECK: parser-guard.mlir:[[@LINE+2]]:{{[0-9]+}}: error: a dense array of index ('array<index ...>') is not valid (and crashes MLIR 22's parser); use i64
// CHECK-NOT: error
tile.kernel @k() attributes {block = array<i32: 32, 1, 1>, note = "array<index: 2>", x = array< index : 1>} {
  tile.return
}

// The lexer skips NUL bytes between tokens, so the guard does too
// (parser-guard-nul.bin: `array`, NUL bytes, `<`, a NUL, `index: 1>`).
// NUL: parser-guard-nul.bin:1:24: error: a dense array of index
