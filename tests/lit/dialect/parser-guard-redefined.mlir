// RUN: not minitile-opt %s 2>&1 | FileCheck %s
// The crash of parser-guard-alias.mlir with the alias defined twice (found
// by the fuzzer): the parser reads the first definition -- index, through
// !a -- for the uses before the second, and reports the redefinition only
// when it gets there, after the attribute has crashed it. So an alias is
// index if any of its definitions is.
!a = index
!c = i64
!b = !a

// CHECK: parser-guard-redefined.mlir:[[@LINE+2]]:{{[0-9]+}}: error: a dense array of index (through the type alias '!b') is not valid (and crashes MLIR 22's parser); use i64
// CHECK-NOT: error
tile.kernel @k() attributes {block = array<i32: 32, 1, 1>, x = array<!b: 1>} {
  tile.return
}
!b = !c
