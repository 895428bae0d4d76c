// RUN: not minitile-opt %s 2>&1 | FileCheck %s
// The lexer skips `//` comments between tokens: `array<`, a comment, then
// `index` is the crash of parser-guard.mlir (found by the fuzzer's
// successors).
// CHECK: parser-guard-comment.mlir:[[@LINE+2]]:{{[0-9]+}}: error: a dense array of index ('array<index ...>') is not valid
// CHECK-NOT: error
tile.kernel @k() attributes {block = array<i32: 32, 1, 1>, x = array< // not a type
    index : 1>} {
  tile.return
}
