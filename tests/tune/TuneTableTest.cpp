//===- TuneTableTest.cpp - the tuned-parameter table, without the DSL -----===//
//
// tools/minitile/TuneTable.h parses and selects lines; with CUDA's headers
// (MINITILE_TEST_RUNNER) the runner's formatTable() is read back by it.
//
//===----------------------------------------------------------------------===//
#include "tools/minitile/TuneTable.h"

#ifdef MINITILE_TEST_RUNNER
#include "TuneRunner.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstring>

using namespace minitile::tune;

namespace {

std::vector<TableLine> parse(const std::string &text) {
  std::vector<TableLine> lines;
  std::string error;
  EXPECT_TRUE(parseTable(text, "t.txt", lines, error)) << error;
  return lines;
}

std::string parseError(const std::string &text) {
  std::vector<TableLine> lines;
  std::string error;
  EXPECT_FALSE(parseTable(text, "t.txt", lines, error));
  return error;
}

} // namespace

TEST(TuneTable, ParsesLinesKeysValuesAndComments) {
  auto lines = parse("# a comment\n"
                     "\n"
                     "indexer_fwd heads=64 dim=128 : stages=4 warpgroups=3  # 95.1 us\n"
                     "  clean_logits : rows_per_block=8\t# no key\r\n"
                     "#   a comment: stages=6\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].line, 3u);
  EXPECT_EQ(lines[0].kernel, "indexer_fwd");
  EXPECT_EQ(lines[0].key, (ParamList{{"heads", "64"}, {"dim", "128"}}));
  EXPECT_EQ(lines[0].values, (ParamList{{"stages", "4"}, {"warpgroups", "3"}}));
  EXPECT_EQ(lines[1].line, 4u);
  EXPECT_TRUE(lines[1].key.empty());
  EXPECT_EQ(lines[1].values, (ParamList{{"rows_per_block", "8"}}));
  EXPECT_TRUE(parse("").empty());
  EXPECT_TRUE(parse("# only comments\n\n").empty());
}

TEST(TuneTable, MalformedLinesAreErrorsAtTheirLine) {
  EXPECT_EQ(parseError("\nk a=1 b=2\n"),
            "t.txt:2: error: no ':' (a line is KERNEL [name=value ...] : name=value ...)");
  EXPECT_EQ(parseError("k a=1 :\n"), "t.txt:1: error: no tuned values after ':'");
  EXPECT_EQ(parseError("k : a=1 : b=2\n"),
            "t.txt:1: error: a second ':' (a line is KERNEL [name=value ...] : name=value ...)");
  EXPECT_EQ(parseError("k : a\n"), "t.txt:1: error: expected name=value, not 'a'");
  EXPECT_EQ(parseError("k : =1\n"), "t.txt:1: error: expected name=value, not '=1'");
  EXPECT_EQ(parseError("k : a=\n"), "t.txt:1: error: expected name=value, not 'a='");
  EXPECT_EQ(parseError("k : a=1=2\n"), "t.txt:1: error: expected name=value, not 'a=1=2'");
  EXPECT_EQ(parseError("k a=1 : a=2\n"), "t.txt:1: error: parameter 'a' appears twice");
  EXPECT_EQ(parseError("a=1 : b=2\n"),
            "t.txt:1: error: a line starts with the kernel's name, not 'a=1'");
  EXPECT_EQ(parseError(": b=2\n"), "t.txt:1: error: a line starts with the kernel's name, not ':'");
  EXPECT_EQ(parseError("k a=1 b=2 : c=1\nk b=2 a=1 : c=2\n"),
            "t.txt:2: error: a second line for 'k b=2 a=1' (the first is line 1)");
  EXPECT_EQ(parseError("k : c=1\nk : c=2\n"),
            "t.txt:2: error: a second line for 'k' (the first is line 1)");
}

// A second line for a configuration is found in one lookup a line, not by
// comparing each line with every earlier one: 100,000 lines took minutes so.
TEST(TuneTable, ManyLinesLoadInLinearTime) {
  const int n = 100000;
  std::string text;
  for (int i = 0; i < n; ++i)
    text += "k a=" + std::to_string(i % 100) + " b=" + std::to_string(i / 100) +
            " @ S=" + std::to_string(i) + " : s=1\n";
  std::string repeated = text + "k b=3 a=7 @ S=307 : s=2\n"; // line 308's configuration
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(parse(text).size(), size_t(n));
  EXPECT_EQ(parseError(repeated), "t.txt:" + std::to_string(n + 1) +
                                      ": error: a second line for 'k b=3 a=7 @ S=307' (the "
                                      "first is line 308)");
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // About 0.5 s here (an optimised build); quadratic, it took over 30 s.
  EXPECT_LT(seconds, 10.0);
}

TEST(TuneTable, FormatsWhatItParses) {
  ParamList key{{"heads", "64"}}, values{{"stages", "4"}, {"persistent", "true"}};
  std::string line = formatLine("indexer_fwd", key, values);
  EXPECT_EQ(line, "indexer_fwd heads=64 : stages=4 persistent=true");
  auto lines = parse(line + "\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].key, key);
  EXPECT_EQ(lines[0].values, values);
  EXPECT_EQ(formatParams({}), "");
}

TEST(TuneTable, SelectsTheLongestKeyThatHolds) {
  auto lines = parse("k : s=1\n"
                     "k h=64 : s=2\n"
                     "k h=64 d=128 : s=3\n"
                     "other h=64 : s=4\n");
  std::string error;
  auto pick = [&](std::map<std::string, std::string> effective) {
    Selection sel = selectLines(lines, "k", effective, "t.txt", error);
    EXPECT_EQ(error, "");
    return sel.general ? sel.general->values.front().second : std::string("none");
  };
  EXPECT_EQ(pick({{"h", "64"}, {"d", "128"}}), "3");
  EXPECT_EQ(pick({{"h", "64"}, {"d", "64"}}), "2");
  EXPECT_EQ(pick({{"h", "32"}, {"d", "128"}}), "1");
  EXPECT_TRUE(selectLines(lines, "missing", {}, "t.txt", error).empty());
  EXPECT_EQ(error, "");

  // No line without a key: nothing applies.
  auto keyed = parse("k h=64 : s=2\n");
  EXPECT_TRUE(selectLines(keyed, "k", {{"h", "32"}}, "t.txt", error).empty());
  EXPECT_EQ(error, "");
}

TEST(TuneTable, TwoLinesOfTheSameLengthThatHoldAreAnError) {
  auto lines = parse("k a=1 : s=1\nk b=2 : s=2\n");
  std::string error;
  EXPECT_TRUE(selectLines(lines, "k", {{"a", "1"}, {"b", "2"}}, "t.txt", error).empty());
  EXPECT_EQ(error, "t.txt:2: error: this line and line 1 both apply to k with these "
                   "parameters; give one a longer key");
  EXPECT_NE(selectLines(lines, "k", {{"a", "1"}, {"b", "3"}}, "t.txt", error).general, nullptr);
}

TEST(TuneTable, LinesForOneShape) {
  auto lines = parse("k h=64 : s=1  # all shapes\n"
                     "k h=64 @ S=4096,T=1024 : s=2\n"
                     "k h=64 @ S=65536,T=16384 : s=3\n"
                     "k h=32 @ S=4096 : s=4\n");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(lines[0].shape.empty());
  EXPECT_EQ(lines[1].key, (ParamList{{"h", "64"}}));
  EXPECT_EQ(lines[1].shape, (ParamList{{"S", "4096"}, {"T", "1024"}}));
  EXPECT_EQ(lines[1].values, (ParamList{{"s", "2"}}));
  EXPECT_EQ(formatShape(lines[2].shape), "S=65536,T=16384");

  std::string error;
  Selection sel = selectLines(lines, "k", {{"h", "64"}}, "t.txt", error);
  EXPECT_EQ(error, "");
  ASSERT_NE(sel.general, nullptr);
  EXPECT_EQ(sel.general->line, 1u);
  ASSERT_EQ(sel.shaped.size(), 2u);
  EXPECT_EQ(sel.shaped[0]->line, 2u);
  EXPECT_EQ(sel.shaped[1]->line, 3u);
  // Only shaped lines for h=32.
  sel = selectLines(lines, "k", {{"h", "32"}}, "t.txt", error);
  EXPECT_EQ(sel.general, nullptr);
  ASSERT_EQ(sel.shaped.size(), 1u);

  // The nearest shape in log2 distance; names a line lacks, or values that
  // are not numbers, do not count; the first of equals.
  sel = selectLines(lines, "k", {{"h", "64"}}, "t.txt", error);
  auto nearest = [&](ParamList shape) { return nearestLine(sel.shaped, shape)->line; };
  EXPECT_EQ(nearest({{"S", "4096"}, {"T", "1024"}}), 2u);
  EXPECT_EQ(nearest({{"S", "8192"}, {"T", "2048"}}), 2u);   // 2 from line 2, 6 from line 3
  EXPECT_EQ(nearest({{"S", "32768"}, {"T", "8192"}}), 3u);  // 6 against 2
  EXPECT_EQ(nearest({{"S", "0"}, {"T", "0"}}), 2u);         // below 1 counts as 1
  EXPECT_EQ(nearest({{"S", "65536"}, {"x", "1"}}), 3u);
  EXPECT_EQ(nearest({{"S", "many"}}), 2u);
  EXPECT_EQ(nearest({{"S", "16384"}, {"T", "4096"}}), 2u);  // 4 against 4
}

TEST(TuneTable, MalformedShapesAreErrorsAtTheirLine) {
  EXPECT_EQ(parseError("k @ : s=1\n"),
            "t.txt:1: error: '@' comes once, before ':', followed by a shape (a line is KERNEL "
            "[name=value ...] [@ size=N,size=N] : name=value ...)");
  EXPECT_EQ(parseError("k : s=1 @ S=1\n"),
            "t.txt:1: error: '@' comes once, before ':', followed by a shape (a line is KERNEL "
            "[name=value ...] [@ size=N,size=N] : name=value ...)");
  EXPECT_EQ(parseError("k @ S=1 @ T=2 : s=1\n"),
            "t.txt:1: error: '@' comes once, before ':', followed by a shape (a line is KERNEL "
            "[name=value ...] [@ size=N,size=N] : name=value ...)");
  EXPECT_EQ(parseError("k @ S=1 h=2 : s=1\n"),
            "t.txt:1: error: the shape after '@' is the key's last word; 'h=2' follows it");
  EXPECT_EQ(parseError("k @ S=1,,T=2 : s=1\n"),
            "t.txt:1: error: a shape is name=value,name=value (S=4096,S_kv=1024), not "
            "'S=1,,T=2'");
  EXPECT_EQ(parseError("k @ 1=S : s=1\n"),
            "t.txt:1: error: a shape is name=value,name=value (S=4096,S_kv=1024), not '1=S'");
  EXPECT_EQ(parseError("k @ S=1,S=2 : s=1\n"),
            "t.txt:1: error: 'S' appears twice in shape 'S=1,S=2'");
  EXPECT_EQ(parseError("k @ S=1,T=2 : s=1\nk @ T=2,S=1 : s=2\n"),
            "t.txt:2: error: a second line for 'k @ T=2,S=1' (the first is line 1)");
  // A line for all shapes and one for a shape are not the same line.
  EXPECT_EQ(parse("k : s=1\nk @ S=1 : s=2\n").size(), 2u);
}

#ifdef MINITILE_TEST_RUNNER
TEST(TuneRunner, WritesATableTheParserReads) {
  Spec spec;
  spec.kernel = "k";
  spec.arch = "sm_90a";
  spec.key = "k h=64";
  spec.command = "minitile tune k ...";
  spec.shapes = {{"S=1", {}}, {"S=2", {}}};
  spec.points = {{"s=1 p=false", nullptr, -1}, {"s=2 p=false", nullptr, -1},
                 {"s=1 p=true", nullptr, -1}, {"s=2 p=true", nullptr, 1}};
  using S = Result::Status;
  std::vector<std::vector<Result>> results = {
      {{S::ok, 10, ""}, {S::ok, 40, ""}},      // geomean 20
      {{S::ok, 12, ""}, {S::ok, 27, ""}},      // geomean 18: the winner
      {{S::ok, 5, ""}, {S::notApplicable, 0, "n too large"}}, // best on S=1, not on S=2
      {{S::ok, 12, ""}, {S::ok, 27, ""}}};
  EXPECT_EQ(bestPoint(spec, results), 1);
  std::string text = formatTable(spec, results, "on Fake GPU");
  auto lines = parse(text);
  ASSERT_EQ(lines.size(), 3u) << text;
  EXPECT_EQ(lines[0].kernel, "k");
  EXPECT_EQ(lines[0].key, (ParamList{{"h", "64"}}));
  EXPECT_TRUE(lines[0].shape.empty());
  EXPECT_EQ(lines[0].values, (ParamList{{"s", "2"}, {"p", "false"}}));
  EXPECT_NE(text.find("k h=64 : s=2 p=false  # geomean 18.0 us; S=1 12.0 us; S=2 27.0 us\n"),
            std::string::npos)
      << text;
  // Each shape's own winner, as a line for that shape.
  EXPECT_EQ(lines[1].shape, (ParamList{{"S", "1"}}));
  EXPECT_EQ(lines[1].values, (ParamList{{"s", "1"}, {"p", "true"}}));
  EXPECT_EQ(lines[2].shape, (ParamList{{"S", "2"}}));
  EXPECT_NE(text.find("k h=64 @ S=1 : s=1 p=true  # 5.0 us\n"), std::string::npos) << text;
  EXPECT_NE(text.find("k h=64 @ S=2 : s=2 p=false  # 27.0 us\n"), std::string::npos) << text;

  // A wrong point never wins; no point right on every shape: no table.
  results[1][0].status = S::wrong;
  results[3][0].status = S::wrong;
  EXPECT_EQ(bestPoint(spec, results), 0);
  results[0][1].status = S::notApplicable;
  EXPECT_EQ(bestPoint(spec, results), -1);
  EXPECT_EQ(formatTable(spec, results, ""), "");
}

// An unordered tensor's rows agree in any order, and only as multisets: a
// value missing or repeated is still a difference, and rows do not mix.
TEST(TuneRunner, UnorderedRowsCompareAsMultisets) {
  auto bytes = [](std::vector<int32_t> v) {
    std::vector<unsigned char> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  Argument idx{Argument::Kind::tensor, "indices", Elem::i32, {}, {}, false, true};
  const std::vector<int64_t> dims = {2, 3};
  auto want = bytes({5, 1, -1, 7, 8, 9}), shuffled = bytes({1, -1, 5, 9, 7, 8}),
       repeated = bytes({1, 1, 5, 9, 7, 8}), mixed = bytes({5, 1, 7, -1, 8, 9});
  EXPECT_NE(compareContents(idx, dims, want, shuffled, 1e-2), "");
  idx.unordered = true;
  EXPECT_EQ(compareContents(idx, dims, want, shuffled, 1e-2), "");
  EXPECT_NE(compareContents(idx, dims, want, repeated, 1e-2), "");
  EXPECT_NE(compareContents(idx, dims, want, mixed, 1e-2), "");

  Argument scores{Argument::Kind::tensor, "scores", Elem::f32, {}, {}, false, true};
  scores.unordered = true;
  auto floats = [](std::vector<float> v) {
    std::vector<unsigned char> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  EXPECT_EQ(compareContents(scores, {1, 4}, floats({2, -inf, nan, 1}), floats({nan, 1, 2, -inf}),
                            1e-2),
            "");
  EXPECT_NE(compareContents(scores, {1, 4}, floats({2, -inf, nan, 1}), floats({nan, 1, 3, -inf}),
                            1e-2),
            "");
}

// A normal init: the mean and standard deviation asked for, and every value
// finite (the runner's Box-Muller never takes log 0).
TEST(TuneRunner, NormalInitsHaveTheirMeanAndDeviation) {
  Argument x{Argument::Kind::tensor, "x", Elem::f32, {{0, 0}}, {}, true, false};
  x.init = {Init::Kind::normal, 2.0, 0.5};
  const int64_t n = 100000;
  Shape shape{"n=..", {{n, 0}}};
  std::vector<unsigned char> bytes = initialContents(x, {n}, shape, 3);
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), bytes.size());
  double sum = 0, squares = 0;
  for (float f : v) {
    ASSERT_TRUE(std::isfinite(f));
    sum += f;
    squares += double(f) * f;
  }
  double mean = sum / n, deviation = std::sqrt(squares / n - mean * mean);
  EXPECT_NEAR(mean, 2.0, 0.01);
  EXPECT_NEAR(deviation, 0.5, 0.01);
  // Not uniform: about 68 % within one deviation of the mean.
  int64_t within =
      std::count_if(v.begin(), v.end(), [](float f) { return std::fabs(f - 2) < 0.5; });
  EXPECT_NEAR(double(within) / n, 0.6827, 0.01);
}

// An iota init whose factor and divisor name sizes takes each shape's values:
// ke = i * S_kv / S + 1 bounds causal windows at ratio 4 and ratio 1 alike.
TEST(TuneRunner, IotaInitsTakeTheShapesSizes) {
  Argument ke{Argument::Kind::tensor, "ke", Elem::i32, {{0, 0}}, {}, true, false};
  ke.init = {Init::Kind::iota, 0, 0, 1, 1, 1, /*mulSize=*/1, /*divSize=*/0};
  auto values = [&](int64_t S, int64_t T) {
    Shape shape{"S=..", {{S, 0}, {T, 0}}};
    std::vector<unsigned char> bytes = initialContents(ke, {S}, shape, 1);
    std::vector<int32_t> v(bytes.size() / sizeof(int32_t));
    std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
  };
  EXPECT_EQ(values(8, 2), (std::vector<int32_t>{1, 1, 1, 1, 2, 2, 2, 2}));
  EXPECT_EQ(values(4, 4), (std::vector<int32_t>{1, 2, 3, 4}));
  // Numbers as before; a size of 0 divides as 1 (the tensor is empty then).
  ke.init = {Init::Kind::iota, 0, 0, 3, 2, -1};
  EXPECT_EQ(values(4, 4), (std::vector<int32_t>{-1, 0, 2, 3}));
  ke.init = {Init::Kind::iota, 0, 0, 1, 1, 0, -1, 1};
  EXPECT_EQ(values(3, 0), (std::vector<int32_t>{0, 1, 2}));
}
#endif
