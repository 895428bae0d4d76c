// RUN: not minitile-opt %s 2>&1 | FileCheck %s
// RUN: minitile-opt %S/parser-guard-nesting.in 2>&1 | FileCheck --check-prefix=LIMIT %s
// MLIR 22's parser recurses for every bracket and overflows the stack a few
// thousand levels down (the fuzzer's input: 7,352 `[`, a SIGSEGV in
// minitile-opt too). Nesting deeper than 256 brackets is refused first:
// here the attribute dictionary's `{` and 256 `[` -- after a type whose
// `->` closes nothing. One `[` fewer (parser-guard-nesting.in) parses as
// before.
// CHECK: parser-guard-nesting.mlir:[[@LINE+2]]:{{[0-9]+}}: error: brackets nest deeper than 256 levels (MLIR 22's parser would overflow the stack)
// CHECK-NOT: error
tile.kernel @k() attributes {block = array<i32: 32, 1, 1>, f = (i32) -> i32, x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]} {
  tile.return
}
// LIMIT-NOT: error
// LIMIT: tile.kernel @k()
