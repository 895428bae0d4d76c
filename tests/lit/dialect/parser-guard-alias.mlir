// RUN: not minitile-opt %s 2>&1 | FileCheck %s
// The crash of parser-guard.mlir through type aliases (found by the fuzzer):
// the element type is an alias that names index through another alias.
// A comment between `<` and the type does not hide it either.
!a = index
!b = // the alias's value may follow a comment
  !a
!i = i64

// CHECK: parser-guard-alias.mlir:[[@LINE+2]]:{{[0-9]+}}: error: a dense array of index (through the type alias '!b') is not valid (and crashes MLIR 22's parser); use i64
// CHECK-NOT: error
tile.kernel @k() attributes {block = array<i32: 32, 1, 1>, y = array<!i: 3>, x = array<!b: 1>} {
  tile.return
}
