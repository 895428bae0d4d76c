//===- Tune.cpp - `minitile tune`: a kernel's parameter space, timed ------===//
//
// Tuning is split between two machines, since the one with the GPU has no
// MLIR or LLVM:
//
//  1. `minitile tune KERNEL -p fixed=v --space name=v1,v2 --shape S=4096 ...
//     -o DIR`, here: checks every name and value, compiles each point of the
//     cross product of the spaces to a launcher (a point the generator
//     rejects is reported and skipped; points with the same kernel image
//     share one; each --ptx PARAMS@FILE adds a point of those parameters
//     assembled from an edited PTX, timed but never a winner), and writes
//     DIR: the launchers, tune_main.cpp (the kernel's arguments with their
//     shapes and inits, the shapes, the points) and the runner's generic
//     code (tune-runner/TuneRunner.{h,cpp}, embedded in this program at
//     build time), then builds DIR/tune-runner with the C++ compiler
//     minitile was built with ($CXX overrides it) against the minitile
//     runtime. DIR is written in a temporary folder beside it and
//     renamed into place: whole, or not at all (TuneBuild.h).
//  2. `DIR/tune-runner --out tuned.txt`, on the GPU: times every point on
//     every shape and writes the winner to the table (TuneTable.h).
//  3. `minitile compile KERNEL --tuned tuned.txt` (applyTunedTable) uses the
//     table's values for the parameters not given with -p.
//
//===----------------------------------------------------------------------===//
#include "tools/minitile/Tune.h"
#include "tools/minitile/Compile.h"
#include "tools/minitile/Files.h"
#include "tools/minitile/PtxOverride.h"
#include "tools/minitile/TuneBuild.h"
#include "tools/minitile/TuneTable.h"

#include "minitile/dsl.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <thread>

namespace minitile {

namespace {

/// The runner's generic code, copied into every tune directory.
#include "TuneRunnerSources.inc" // generated: kTuneRunnerH, kTuneRunnerCpp

using ParamList = std::vector<std::pair<std::string, std::string>>;
using tune::formatLine;
using tune::formatParams;
using tune::OutputDir;
using tune::Toolchain;

//===----------------------------------------------------------------------===//
// The command line's pieces
//===----------------------------------------------------------------------===//

std::vector<std::string> split(const std::string &text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos)
      return parts;
    start = end + 1;
  }
}

bool parseInt(const std::string &text, int64_t &v) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long x = std::strtoll(text.c_str(), &end, 10);
  if (*end || errno)
    return false;
  v = x;
  return true;
}

bool parseReal(const std::string &text, double &v) {
  if (text.empty())
    return false;
  char *end = nullptr;
  v = std::strtod(text.c_str(), &end);
  return !*end;
}

/// How a tensor starts (TuneRunner.h's Init):
///   NUMBER          every element (nan and inf too, for floats)
///   uniform:LO,HI   uniform in [LO, HI] (integers: whole numbers, ends included)
///   normal:MEAN,STD normal (floats only): activations' distribution, whose
///                   power draw -- and so clock -- differs from uniform data's
///   iota[*M][/D][+C|-C]   i * M / D + C in integers, i the index along the
///                         first dimension (M, D positive numbers or names
///                         of size arguments, whose value on each shape is
///                         taken: ke=iota*S_kv/S+1 bounds causal windows at
///                         every ratio)
struct InitSpec {
  std::string tensor, text;
  enum Kind { constant, uniform, normal, iota } kind = constant;
  double lo = 0, hi = 0;
  int64_t mul = 1, div = 1, add = 0;
  std::string mulSize, divSize; // iota: M or D named a size
};

const char kInitGrammar[] =
    "a number, uniform:LO,HI, normal:MEAN,STD or iota[*M][/D][+C] (i * M / D + C along the first "
    "dimension; M, D positive numbers or size names)";

bool parseInit(const std::string &arg, InitSpec &spec, std::string &error) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) {
    error = "--init takes TENSOR=SPEC, not '" + arg + "'";
    return false;
  }
  spec.tensor = arg.substr(0, eq);
  spec.text = arg.substr(eq + 1);
  const std::string &s = spec.text;
  auto bad = [&] {
    error = "--init '" + arg + "': SPEC is " + kInitGrammar;
    return false;
  };
  // "A,B" after a prefix of `skip` characters: two finite numbers, into lo, hi.
  auto pair = [&](size_t skip) {
    std::vector<std::string> parts = split(s.substr(skip), ',');
    return parts.size() == 2 && parseReal(parts[0], spec.lo) && parseReal(parts[1], spec.hi) &&
           std::isfinite(spec.lo) && std::isfinite(spec.hi);
  };
  if (s.rfind("uniform:", 0) == 0) {
    spec.kind = InitSpec::uniform;
    if (!pair(8))
      return bad();
    if (spec.lo > spec.hi) {
      error = "--init '" + arg + "': uniform:LO,HI needs LO <= HI";
      return false;
    }
    return true;
  }
  if (s.rfind("normal:", 0) == 0) {
    spec.kind = InitSpec::normal;
    if (!pair(7))
      return bad();
    if (spec.hi < 0) {
      error = "--init '" + arg + "': normal:MEAN,STD needs STD >= 0";
      return false;
    }
    return true;
  }
  if (s.rfind("iota", 0) == 0) {
    spec.kind = InitSpec::iota;
    size_t i = 4;
    // The number after s[i], a sign allowed only for +C / -C.
    auto term = [&](int64_t &v, bool positive) {
      size_t j = i + 1;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
        ++j;
      if (!parseInt(s.substr(i + 1, j - i - 1), v) || (positive && v <= 0))
        return false;
      i = j;
      return true;
    };
    // M or D: a positive number or a size's name (an identifier).
    auto factor = [&](int64_t &v, std::string &size) {
      size_t j = i + 1;
      if (j < s.size() && (std::isalpha(static_cast<unsigned char>(s[j])) || s[j] == '_')) {
        while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_'))
          ++j;
        size = s.substr(i + 1, j - i - 1);
        i = j;
        return true;
      }
      return term(v, true);
    };
    if (i < s.size() && s[i] == '*' && !factor(spec.mul, spec.mulSize))
      return bad();
    if (i < s.size() && s[i] == '/' && !factor(spec.div, spec.divSize))
      return bad();
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      bool minus = s[i] == '-';
      if (!term(spec.add, false))
        return bad();
      if (minus)
        spec.add = -spec.add;
    }
    return i == s.size() ? true : bad();
  }
  spec.kind = InitSpec::constant;
  return parseReal(s, spec.lo) ? true : bad();
}

/// -p and --space values, checked against the generator, in its spelling
/// ("1" for a bool is "true").
bool canonical(const std::string &kernel, const std::string &name, const std::string &value,
               std::string &out, std::string &error) {
  ParamList all;
  if (!effectiveParams(kernel, {{name, value}}, all, error))
    return false;
  for (const auto &[n, v] : all)
    if (n == name)
      out = v;
  return true;
}

//===----------------------------------------------------------------------===//
// tune_main.cpp
//===----------------------------------------------------------------------===//

std::string cppDouble(double v) {
  if (std::isnan(v))
    return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v))
    return v > 0 ? "std::numeric_limits<double>::infinity()"
                 : "-std::numeric_limits<double>::infinity()";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos)
    s += ".0";
  return s;
}

/// TuneRunner.h's Elem for a type as describeLauncherArguments() spells it.
const std::map<std::string, std::string> &elems() {
  static const std::map<std::string, std::string> m = {
      {"i1", "i1"},   {"i8", "i8"},     {"i16", "i16"}, {"i32", "i32"}, {"i64", "i64"},
      {"index", "i64"}, {"f16", "f16"}, {"bf16", "bf16"}, {"f32", "f32"}, {"f64", "f64"}};
  return m;
}

bool isFloatType(const std::string &t) {
  return t == "f16" || t == "bf16" || t == "f32" || t == "f64";
}

/// The C++ element type of a launcher's tensor pointer.
std::string cppElement(const std::string &t) {
  static const std::map<std::string, std::string> m = {
      {"i1", "bool"},        {"i8", "int8_t"},     {"i16", "int16_t"},
      {"i32", "int32_t"},    {"i64", "int64_t"},   {"f16", "minitile::rt::f16"},
      {"bf16", "minitile::rt::bf16"}, {"f32", "float"}, {"f64", "double"}};
  auto it = m.find(t);
  return it == m.end() ? "" : it->second;
}

/// The expression passing size or scalar `a` of Call `c` to a launcher; ""
/// for a type tune cannot pass.
std::string cppValue(const LauncherArgument &a, unsigned i) {
  std::string v = "c.values[" + std::to_string(i) + "]";
  const std::string &t = a.type;
  if (t == "index" || t == "i64")
    return v + ".i";
  if (t == "i32" || t == "i16" || t == "i8")
    return "static_cast<" + cppElement(t) + ">(" + v + ".i)";
  if (t == "i1")
    return v + ".i != 0";
  if (t == "f32")
    return "static_cast<float>(" + v + ".f)";
  if (t == "f64")
    return v + ".f";
  if (t == "bf16")
    return "minitile::rt::bf16::fromFloat(static_cast<float>(" + v + ".f))";
  return "";
}

/// A point of the space that compiled.
struct CompiledPoint {
  size_t index;
  ParamList values;   // the searched parameters
  std::string params; // "stages=4 warpgroups=3"
  int sameAs = -1;    // index into the compiled points
  bool edited = false; // --ptx: assembled from an edited PTX, never a winner
  std::vector<LauncherArgument> arguments;
  LauncherSource launcher;
  std::vector<char> image;
};

/// A --ptx PARAMS@FILE: the point of those parameters, its PTX edited.
struct EditedPoint {
  std::string text;   // as given
  ParamList values;   // every searched parameter, in the space's order
  std::string file;   // the edited PTX
  std::string ptx;    // its text
};

struct ShapeValues {
  std::string name;
  std::vector<std::pair<int64_t, double>> values; // per argument
};

std::string launcherCall(const CompiledPoint &p, const std::string &function) {
  std::string call = "  " + function + "(";
  for (unsigned i = 0; i < p.arguments.size(); ++i) {
    const LauncherArgument &a = p.arguments[i];
    if (a.kind == LauncherArgument::Kind::tensor)
      call += "c.tensor<" + std::string(a.access.written ? "" : "const ") +
              cppElement(a.type) + ">(" + std::to_string(i) + ")";
    else
      call += cppValue(a, i);
    call += ", ";
  }
  return call + "nullptr);\n";
}

/// `c` as a C++ int64_t expression.
std::string cppInt(int64_t c) {
  return c == std::numeric_limits<int64_t>::min() ? "INT64_MIN" : std::to_string(c) + "LL";
}

/// Tensor dimension `e` as C++ over the runner's values `v` (`v[i].i` for
/// size argument i), computed as a launcher computes it: an overflow or a
/// zero divisor throws minitile::rt::Error naming `kAt`, which the code
/// around it defines.
std::string cppSizeExpr(const tile::SizeExpr &e, const std::map<std::string, int> &sizeIndex) {
  using K = tile::SizeExpr::Kind;
  if (e.kind == K::size)
    return "v[" + std::to_string(sizeIndex.at(e.name)) + "].i";
  if (e.kind == K::constant)
    return cppInt(e.constant);
  std::string l = cppSizeExpr(e.operands[0], sizeIndex), r = cppSizeExpr(e.operands[1], sizeIndex);
  auto checked = [&](const char *fn) {
    return std::string("minitile::rt::") + fn + "<int64_t>(" + l + ", " + r + ", kAt, \"\")";
  };
  auto divide = [&](const char *fn) {
    return std::string("minitile::rt::") + fn + "(" + l + ", " + r + ", kAt)";
  };
  switch (e.kind) {
  case K::add: return checked("add");
  case K::sub: return checked("subtract");
  case K::mul: return checked("multiply");
  case K::div: return divide("divide");
  case K::rem: return divide("remainder");
  case K::ceildiv: return divide("ceilDivide");
  case K::min: return "std::min<int64_t>(" + l + ", " + r + ")";
  case K::max: return "std::max<int64_t>(" + l + ", " + r + ")";
  default: return "";
  }
}

std::string tuneMain(const TuneRequest &request, const std::string &key,
                     const std::vector<CompiledPoint> &points,
                     const std::vector<ShapeValues> &shapes,
                     const std::map<std::string, InitSpec> &inits) {
  const std::vector<LauncherArgument> &args = points.front().arguments;
  std::string s = "// Generated by minitile tune; do not edit. The runner of\n//   " +
                  request.commandLine +
                  "\n// Build: see build.sh; run: ./tune-runner --help\n"
                  "#include \"TuneRunner.h\"\n\n";
  for (const CompiledPoint &p : points)
    if (p.sameAs < 0)
      s += "#include \"point_" + std::to_string(p.index) + ".h\"\n";
  s += "\n#include <algorithm>\n#include <limits>\n\nnamespace {\n\nusing minitile::tune::Call;\n\n";
  for (const CompiledPoint &p : points) {
    if (p.sameAs >= 0)
      continue;
    std::string n = std::to_string(p.index);
    s += "void launch" + n + "(const Call &c) {\n" +
         launcherCall(p, "minitile::tune_points::p" + n + "::" + request.kernel) + "}\n";
  }

  s += "\nminitile::tune::Spec spec() {\n  using namespace minitile::tune;\n  Spec s;\n"
       "  s.kernel = " + cppStringLiteral(request.kernel) +
       ";\n  s.arch = " + cppStringLiteral(request.arch) +
       ";\n  s.key = " + cppStringLiteral(key) +
       ";\n  s.command = " + cppStringLiteral(request.commandLine) + ";\n  s.arguments = {\n";
  std::map<std::string, int> sizeIndex;
  for (unsigned i = 0; i < args.size(); ++i)
    if (args[i].kind == LauncherArgument::Kind::size)
      sizeIndex[args[i].name] = int(i);
  for (const LauncherArgument &a : args) {
    const char *kind = a.kind == LauncherArgument::Kind::size     ? "size"
                       : a.kind == LauncherArgument::Kind::scalar ? "scalar"
                                                                  : "tensor";
    s += "      {Argument::Kind::" + std::string(kind) + ", " + cppStringLiteral(a.name) +
         ", Elem::" + elems().at(a.type) + ", {";
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const tile::SizeExpr &e = a.dims[d];
      s += std::string(d ? ", " : "") + "{";
      if (e.kind == tile::SizeExpr::Kind::size)
        s += std::to_string(sizeIndex.at(e.name)) + ", 0";
      else if (e.kind == tile::SizeExpr::Kind::constant)
        s += "-1, " + std::to_string(e.constant); // a constant dimension: not negative
      else
        s += "-1, 0, [](const std::vector<Value> &v) -> int64_t {\n"
             "         static const char *const kAt = " +
             cppStringLiteral("tensor '" + a.name + "', dimension " + std::to_string(d) +
                              " (" + e.text() + ")") +
             ";\n         return " + cppSizeExpr(e, sizeIndex) + ";\n       }";
      s += "}";
    }
    s += "}, {";
    if (auto it = inits.find(a.name); it != inits.end()) {
      const InitSpec &in = it->second;
      const char *k = in.kind == InitSpec::constant  ? "constant"
                      : in.kind == InitSpec::uniform ? "uniform"
                      : in.kind == InitSpec::normal  ? "normal"
                                                     : "iota";
      s += "Init::Kind::" + std::string(k) + ", " + cppDouble(in.lo) + ", " +
           cppDouble(in.hi) + ", " + std::to_string(in.mul) + ", " + std::to_string(in.div) +
           ", " + std::to_string(in.add);
      // Sizes named by M or D: their argument indices (checkAgainstArguments
      // found them among the sizes).
      if (!in.mulSize.empty() || !in.divSize.empty()) {
        auto index = [&](const std::string &name) {
          return name.empty() ? std::string("-1") : std::to_string(sizeIndex.at(name));
        };
        s += ", " + index(in.mulSize) + ", " + index(in.divSize);
      }
    }
    bool unordered = std::find(request.unordered.begin(), request.unordered.end(), a.name) !=
                     request.unordered.end();
    s += "}, " + std::string(a.access.read ? "true" : "false") + ", " +
         (a.access.written ? "true" : "false") + (unordered ? ", true" : "") + "},\n";
  }
  s += "  };\n  s.shapes = {\n";
  for (const ShapeValues &sh : shapes) {
    s += "      {" + cppStringLiteral(sh.name) + ", {";
    for (size_t i = 0; i < sh.values.size(); ++i)
      s += std::string(i ? ", " : "") + "{" + std::to_string(sh.values[i].first) + ", " +
           cppDouble(sh.values[i].second) + "}";
    s += "}},\n";
  }
  s += "  };\n  s.points = {\n";
  for (const CompiledPoint &p : points) {
    std::string n = std::to_string(p.index);
    s += "      {" + cppStringLiteral(p.params) + ", " + (p.sameAs < 0 ? "launch" + n : "nullptr") +
         ", " + std::to_string(p.sameAs) + (p.edited ? ", true" : "") + "},\n";
  }
  s += "  };\n  return s;\n}\n\n} // namespace\n\n"
       "int main(int argc, char **argv) { return minitile::tune::runTune(argc, argv, spec()); }\n";
  return s;
}

/// The largest finite value of a float type tune passes.
double largestFinite(const std::string &t) {
  if (t == "f16")
    return 65504.0;
  if (t == "bf16")
    return 3.3895313892515355e38;
  if (t == "f32")
    return 3.4028234663852886e38;
  return std::numeric_limits<double>::max();
}

/// Parses `value`, a shape's value for size or scalar `a`, into `v` (an
/// integer in v.first, a float in v.second): "" or why it is not one. A
/// size is a positive integer (a shape is what tuning times, and the
/// nearest tuned shape is chosen on a log scale); a scalar is a finite
/// value its type holds. The same rules for tune --shape, the shapes of a
/// table's lines and compile --tuned --shape.
std::string shapeValue(const LauncherArgument &a, const std::string &value,
                       std::pair<int64_t, double> &v) {
  const std::string &t = a.type;
  const bool size = a.kind == LauncherArgument::Kind::size;
  bool ok;
  if (isFloatType(t)) {
    ok = parseReal(value, v.second) && std::isfinite(v.second) &&
         std::fabs(v.second) <= largestFinite(t);
  } else if (t == "i1") {
    ok = value == "true" || value == "false" || value == "0" || value == "1";
    v.first = value == "true" || value == "1";
  } else {
    ok = parseInt(value, v.first);
    int bits = t == "i8" ? 8 : t == "i16" ? 16 : t == "i32" ? 32 : 64;
    ok = ok && (bits == 64 || (v.first >= -(int64_t(1) << (bits - 1)) &&
                               v.first < (int64_t(1) << (bits - 1))));
    if (ok && size && v.first < 1)
      return "size '" + a.name + "' is " + (v.first < 0 ? "negative" : "0") +
             ": a shape's sizes are positive";
  }
  if (!ok)
    return "'" + a.name + "' is " + (size ? "a size" : "a " + t + " scalar") + ", not '" +
           value + "'";
  return "";
}

/// The value of size argument `name` on `shape` (0 if there is none).
int64_t tensorSizeValue(const std::vector<LauncherArgument> &args, const ShapeValues &shape,
                        llvm::StringRef name) {
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k].name == name && args[k].kind == LauncherArgument::Kind::size)
      return shape.values[k].first;
  return 0;
}

/// "" if every value `spec` makes for tensor `a` on each of `shapes` fits
/// its element type, else which does not.
std::string initOutOfRange(const LauncherArgument &a, const InitSpec &spec,
                           const std::vector<LauncherArgument> &args,
                           const std::vector<ShapeValues> &shapes) {
  const std::string &t = a.type;
  const bool fl = isFloatType(t);
  // The type's range, as doubles (an i64's top is 2^63, excluded).
  double lo, hi;
  bool topExcluded = false;
  if (fl) {
    hi = largestFinite(t);
    lo = -hi;
  } else if (t == "i1") {
    lo = 0;
    hi = 1;
  } else {
    int bits = t == "i8" ? 8 : t == "i16" ? 16 : t == "i32" ? 32 : 64;
    hi = std::ldexp(1.0, bits - 1);
    lo = -hi;
    if (bits == 64)
      topExcluded = true;
    else
      hi -= 1;
  }
  auto fits = [&](double x) { return x >= lo && (topExcluded ? x < hi : x <= hi); };
  auto range = [&] {
    if (fl)
      return "the finite range of " + t;
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s (%.0f..%.0f)", t.c_str(), lo, topExcluded ? hi - 1 : hi);
    return std::string(buf);
  };
  auto text = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return std::string(buf);
  };
  switch (spec.kind) {
  case InitSpec::constant:
    if ((fl && !std::isfinite(spec.lo)) || fits(spec.lo))
      return "";
    return text(spec.lo) + " is outside " + range() + ", what '" + a.name + "' holds";
  case InitSpec::uniform:
    if (fits(spec.lo) && fits(spec.hi))
      return "";
    return "the values reach outside " + range() + ", what '" + a.name + "' holds";
  case InitSpec::normal:
    // The runner's deviates stay within 9 standard deviations.
    if (fits(spec.lo) && fits(spec.lo + 9 * spec.hi) && fits(spec.lo - 9 * spec.hi))
      return "";
    return "the values (9 standard deviations each side of the mean) reach outside " +
           range() + ", what '" + a.name + "' holds";
  case InitSpec::iota:
    break;
  }
  // iota: i * M / D + C over the rows i of the first dimension, computed in
  // int64 by the runner, on every shape.
  for (const ShapeValues &shape : shapes) {
    auto sizeValue = [&](llvm::StringRef name) -> int64_t {
      return tensorSizeValue(args, shape, name);
    };
    // (checkAgainstArguments has evaluated every dimension on every shape.)
    int64_t rows = a.dims.empty() ? 1 : a.dims.front().evaluate(sizeValue).value_or(0);
    int64_t mul = spec.mulSize.empty() ? spec.mul : sizeValue(spec.mulSize);
    int64_t div = spec.divSize.empty() ? spec.div : std::max<int64_t>(sizeValue(spec.divSize), 1);
    if (rows < 1)
      continue;
    int64_t product, last;
    bool overflow = __builtin_mul_overflow(rows - 1, mul, &product) ||
                    __builtin_add_overflow(product / div, spec.add, &last);
    if (overflow || !fits(double(spec.add)) || !fits(double(last)))
      return "on shape " + shape.name + " its last row's value" +
             (overflow ? " overflows int64" : " (" + std::to_string(last) + ") is outside " +
                                                 range() + ", what '" + a.name + "' holds");
  }
  return "";
}

bool sameArguments(const std::vector<LauncherArgument> &a,
                   const std::vector<LauncherArgument> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].kind != b[i].kind || a[i].name != b[i].name || a[i].type != b[i].type ||
        a[i].shape != b[i].shape)
      return false;
  return true;
}

/// Checks the shapes and inits against the kernel's arguments (those of the
/// first point that compiled) and gives each shape's values per argument.
bool checkAgainstArguments(const TuneRequest &request,
                           const std::vector<LauncherArgument> &args,
                           const std::vector<ParamList> &shapeTexts,
                           const std::map<std::string, InitSpec> &inits,
                           std::vector<ShapeValues> &shapes, std::string &error) {
  std::string names;
  for (const LauncherArgument &a : args) {
    if (a.kind == LauncherArgument::Kind::tensor)
      continue;
    names += (names.empty() ? "" : ", ") + a.name;
    if (elems().count(a.type) == 0 || cppValue(a, 0).empty()) {
      error = "kernel '" + request.kernel + "': tune cannot pass its " + a.type +
              " argument '" + a.name + "'";
      return false;
    }
  }
  for (const std::string &name : request.unordered)
    if (std::none_of(args.begin(), args.end(), [&](const LauncherArgument &a) {
          return a.kind == LauncherArgument::Kind::tensor && a.name == name;
        })) {
      error = "--unordered " + name + ": kernel '" + request.kernel + "' has no tensor '" +
              name + "'";
      return false;
    }
  for (const LauncherArgument &a : args)
    if (a.kind == LauncherArgument::Kind::tensor &&
        (elems().count(a.type) == 0 || cppElement(a.type).empty())) {
      error = "kernel '" + request.kernel + "': tune cannot make its " + a.type +
              " tensor '" + a.name + "'";
      return false;
    }
  for (size_t s = 0; s < shapeTexts.size(); ++s) {
    const std::string &text = request.shapes[s];
    ShapeValues values;
    values.values.assign(args.size(), {0, 0.0});
    std::set<std::string> given;
    for (const auto &[name, value] : shapeTexts[s]) {
      auto it = std::find_if(args.begin(), args.end(), [&](const LauncherArgument &a) {
        return a.name == name && a.kind != LauncherArgument::Kind::tensor;
      });
      if (it == args.end()) {
        error = "--shape '" + text + "': kernel '" + request.kernel +
                "' has no size or scalar '" + name + "'" +
                (names.empty() ? " (it has none)" : " (it has " + names + ")");
        return false;
      }
      given.insert(name);
      if (std::string why = shapeValue(*it, value, values.values[it - args.begin()]);
          !why.empty()) {
        error = "--shape '" + text + "': " + why;
        return false;
      }
    }
    for (const LauncherArgument &a : args)
      if (a.kind != LauncherArgument::Kind::tensor && !given.count(a.name)) {
        error = "--shape '" + text + "' gives no value to the " +
                (a.kind == LauncherArgument::Kind::size ? "size" : "scalar") + " '" + a.name +
                "' of kernel '" + request.kernel + "' (it needs " + names + ")";
        return false;
      }
    for (const ShapeValues &earlier : shapes)
      if (earlier.values == values.values) {
        error = "--shape '" + text + "' is given twice";
        return false;
      }
    values.name = formatParams(shapeTexts[s]);
    for (char &c : values.name)
      if (c == ' ')
        c = ',';
    // Every tensor's computed dimensions, as the launcher will compute
    // them: a shape that makes one negative, overflow or divide by zero is
    // the user's mistake, said here rather than by the runner on the GPU.
    for (const LauncherArgument &a : args)
      for (size_t d = 0; d < a.dims.size(); ++d) {
        if (a.dims[d].isLeaf())
          continue;
        std::optional<int64_t> v = a.dims[d].evaluate(
            [&](llvm::StringRef name) { return tensorSizeValue(args, values, name); });
        if (!v || *v < 0) {
          error = "--shape '" + text + "': dimension " + std::to_string(d) + " of tensor '" +
                  a.name + "', " + a.dims[d].text() + ", " +
                  (v ? "is negative (" + std::to_string(*v) + ")"
                     : std::string("overflows int64 or divides by zero"));
          return false;
        }
      }
    shapes.push_back(std::move(values));
  }
  for (const auto &[tensor, spec] : inits) {
    auto it = std::find_if(args.begin(), args.end(), [&](const LauncherArgument &a) {
      return a.name == tensor && a.kind == LauncherArgument::Kind::tensor;
    });
    if (it == args.end()) {
      std::string tensors;
      for (const LauncherArgument &a : args)
        if (a.kind == LauncherArgument::Kind::tensor)
          tensors += (tensors.empty() ? "" : ", ") + a.name;
      error = "--init '" + tensor + "=" + spec.text + "': kernel '" + request.kernel +
              "' has no tensor '" + tensor + "' (it has " + tensors + ")";
      return false;
    }
    for (const std::string &size : {spec.mulSize, spec.divSize})
      if (!size.empty() && std::none_of(args.begin(), args.end(), [&](const LauncherArgument &a) {
            return a.name == size && a.kind == LauncherArgument::Kind::size;
          })) {
        std::string sizes;
        for (const LauncherArgument &a : args)
          if (a.kind == LauncherArgument::Kind::size)
            sizes += (sizes.empty() ? "" : ", ") + a.name;
        error = "--init '" + tensor + "=" + spec.text + "': kernel '" + request.kernel +
                "' has no size '" + size + "'" +
                (sizes.empty() ? " (it has none)" : " (it has " + sizes + ")");
        return false;
      }
    bool whole = [&] {
      auto isWhole = [](double x) { return std::isfinite(x) && x == std::floor(x); };
      return spec.kind == InitSpec::iota || (isWhole(spec.lo) && isWhole(spec.hi));
    }();
    if (!isFloatType(it->type) && spec.kind == InitSpec::normal) {
      error = "--init '" + tensor + "=" + spec.text + "': '" + tensor + "' holds " +
              it->type + ": normal is for floats (uniform:LO,HI gives integers)";
      return false;
    }
    if (!isFloatType(it->type) && !whole) {
      error = "--init '" + tensor + "=" + spec.text + "': '" + tensor + "' holds " +
              it->type + ": give whole numbers";
      return false;
    }
    // Every value the runner makes must be one the element type holds: it
    // converts each from a double (or an int64 for iota), which is
    // undefined out of range (1e30 into an i32, 1e300 into an f32).
    if (std::string why = initOutOfRange(*it, spec, args, shapes); !why.empty()) {
      error = "--init '" + tensor + "=" + spec.text + "': " + why;
      return false;
    }
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// minitile tune
//===----------------------------------------------------------------------===//

std::string tuneCommand(const TuneRequest &request) {
  std::string error;
  // The kernel, and the fixed parameters.
  ParamList fixed, defaults;
  std::set<std::string> fixedNames;
  if (!effectiveParams(request.kernel, {}, defaults, error)) // the kernel exists
    return error;
  for (const std::string &p : request.params) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      return "-p takes name=value, not '" + p + "'";
    std::string name = p.substr(0, eq), value;
    if (!fixedNames.insert(name).second)
      return "parameter '" + name + "' is given twice";
    if (!canonical(request.kernel, name, p.substr(eq + 1), value, error))
      return error;
    fixed.emplace_back(name, value);
  }

  WgmmaDescriptors descriptors;
  if (std::string why = parseWgmmaDescriptors(request.wgmmaDescriptors, descriptors);
      !why.empty())
    return why;

  // The space: each parameter's values.
  std::vector<std::pair<std::string, std::vector<std::string>>> space;
  for (const std::string &s : request.spaces) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      return "--space takes name=value1,value2,..., not '" + s + "'";
    std::string name = s.substr(0, eq);
    if (fixedNames.count(name))
      return "parameter '" + name + "' is both fixed (-p) and searched (--space)";
    for (const auto &sp : space)
      if (sp.first == name)
        return "parameter '" + name + "' has two --space options";
    std::vector<std::string> values;
    for (const std::string &v : split(s.substr(eq + 1), ',')) {
      std::string value;
      if (v.empty())
        return "--space '" + s + "' has an empty value";
      if (!canonical(request.kernel, name, v, value, error))
        return error;
      if (std::find(values.begin(), values.end(), value) != values.end())
        return "--space '" + s + "' gives " + name + "=" + value + " twice";
      values.push_back(value);
    }
    space.emplace_back(name, values);
  }
  size_t count = 1;
  for (const auto &sp : space)
    if ((count *= sp.second.size()) > 100000)
      return "the space has more than 100000 points";

  // Edited points: every searched parameter's value, then the PTX.
  std::vector<EditedPoint> edited;
  for (const std::string &text : request.ptx) {
    EditedPoint e;
    e.text = text;
    size_t at = text.find('@');
    if (at == std::string::npos || at + 1 == text.size())
      return "--ptx takes PARAMS@FILE (PARAMS every searched parameter, name=value,...: "
             "e.g. stages=8@edited.ptx), not '" + text + "'";
    e.file = text.substr(at + 1);
    std::map<std::string, std::string> given;
    for (const std::string &part : split(text.substr(0, at), ',')) {
      size_t eq = part.find('=');
      if (eq == std::string::npos || eq == 0)
        return "--ptx '" + text + "': '" + part + "' is not name=value";
      std::string name = part.substr(0, eq), value;
      if (std::none_of(space.begin(), space.end(),
                       [&](const auto &sp) { return sp.first == name; }))
        return "--ptx '" + text + "': '" + name + "' is not a searched parameter (--space)";
      if (!canonical(request.kernel, name, part.substr(eq + 1), value, error))
        return "--ptx '" + text + "': " + error;
      if (!given.emplace(name, value).second)
        return "--ptx '" + text + "' gives '" + name + "' twice";
    }
    for (const auto &sp : space) {
      auto it = given.find(sp.first);
      if (it == given.end())
        return "--ptx '" + text + "' does not give searched parameter '" + sp.first + "'";
      e.values.emplace_back(sp.first, it->second);
    }
    if (std::string why = readPtx(e.file, e.ptx); !why.empty())
      return why;
    edited.push_back(std::move(e));
  }

  // The key: every parameter not searched, with its value.
  ParamList key;
  {
    ParamList effective;
    if (!effectiveParams(request.kernel, fixed, effective, error))
      return error;
    for (const auto &[name, value] : effective)
      if (std::none_of(space.begin(), space.end(),
                       [&, &name = name](const auto &sp) { return sp.first == name; }))
        key.emplace_back(name, value);
  }

  // Shapes and inits, as far as their text goes; against the kernel's
  // arguments once a point has compiled.
  std::vector<ParamList> shapeTexts;
  for (const std::string &s : request.shapes) {
    ParamList values;
    for (const std::string &part : split(s, ',')) {
      size_t eq = part.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == part.size())
        return "--shape takes NAME=VALUE,NAME=VALUE,... (every size of the kernel), not '" +
               s + "'";
      std::string name = part.substr(0, eq);
      for (const auto &v : values)
        if (v.first == name)
          return "--shape '" + s + "' gives '" + name + "' twice";
      values.emplace_back(name, part.substr(eq + 1));
    }
    shapeTexts.push_back(values);
  }
  std::map<std::string, InitSpec> inits;
  for (const std::string &i : request.inits) {
    InitSpec spec;
    if (!parseInit(i, spec, error))
      return error;
    if (!inits.emplace(spec.tensor, spec).second)
      return "--init gives tensor '" + spec.tensor + "' twice";
  }

  // Where it goes, and what builds it: before any work.
  Toolchain toolchain;
  if (!tune::findToolchain(toolchain, error))
    return error;
  OutputDir out(request.output);
  if (!out.open(error))
    return error;

  // Every point, the first space's values varying slowest.
  auto start = std::chrono::steady_clock::now();
  std::vector<CompiledPoint> points;
  std::vector<ShapeValues> shapes;
  size_t rejected = 0;
  std::string firstRejection;
  // Compiles `point` (its values set); "" or why it is left out.
  auto compilePoint = [&](CompiledPoint &point, const std::string &ptxFile,
                          const std::string &ptx) -> std::string {
    CompileRequest compileRequest;
    compileRequest.kernel = request.kernel;
    compileRequest.params = fixed;
    compileRequest.params.insert(compileRequest.params.end(), point.values.begin(),
                                 point.values.end());
    compileRequest.arch = request.arch;
    compileRequest.emit = Emit::cpp;
    compileRequest.cppNamespace = "minitile::tune_points::p" + std::to_string(point.index);
    compileRequest.headerName = "point_" + std::to_string(point.index) + ".h";
    compileRequest.ptxFile = ptxFile;
    compileRequest.ptx = ptx;
    compileRequest.wgmmaDescriptors = descriptors;
    CompileResult result = compile(compileRequest);
    std::string why = result.error;
    if (result.ok && !points.empty() && !sameArguments(points.front().arguments, result.arguments))
      why = "its arguments differ from those of the first point (" + points.front().params + ")";
    // A kernel that spills, or whose wgmmas ptxas serialises, is slow by
    // construction: not worth timing (and a winner by luck would be a poor
    // table line).
    if (std::string slow = describeSlowCode(result);
        result.ok && why.empty() && !request.allowSpills && !slow.empty())
      why = "it " + slow + " (--allow-spills keeps it)";
    if (why.rfind("error: ", 0) == 0)
      why = why.substr(7);
    if (!why.empty())
      return why;
    point.arguments = std::move(result.arguments);
    point.launcher = std::move(result.launcher);
    point.image = std::move(result.binary);
    return "";
  };
  for (size_t index = 0; index < count; ++index) {
    CompiledPoint point;
    point.index = index;
    for (size_t k = 0, rest = index; k < space.size(); ++k) {
      size_t stride = 1;
      for (size_t j = k + 1; j < space.size(); ++j)
        stride *= space[j].second.size();
      point.values.emplace_back(space[k].first, space[k].second[rest / stride]);
      rest %= stride;
    }
    point.params = formatParams(point.values);
    if (std::string why = compilePoint(point, "", ""); !why.empty()) {
      // Not fatal: a point the generator rejects is left out.
      std::cerr << "minitile: note: point " << index << " (" << point.params
                << ") is left out: " << why << "\n";
      if (firstRejection.empty())
        firstRejection = why;
      ++rejected;
      continue;
    }
    for (size_t k = 0; k < points.size(); ++k)
      if (points[k].sameAs < 0 && points[k].image == point.image) {
        point.sameAs = int(k);
        point.launcher = {};
        break;
      }
    if (points.empty() &&
        !checkAgainstArguments(request, point.arguments, shapeTexts, inits, shapes, error))
      return error;
    points.push_back(std::move(point));
  }
  if (points.empty())
    return "no point of the space is left to time (the first left out: " + firstRejection + ")";
  // The edited points, after the space's: each the kernel of its parameters
  // assembled from an edited PTX -- timed and checked, never a winner.
  for (size_t k = 0; k < edited.size(); ++k) {
    const EditedPoint &e = edited[k];
    CompiledPoint point;
    point.index = count + k;
    point.values = e.values;
    point.params = formatParams(e.values) + " (ptx: " +
                   llvm::sys::path::filename(e.file).str() + ")";
    point.edited = true;
    if (std::string why = compilePoint(point, e.file, e.ptx); !why.empty())
      return "--ptx " + e.text + ": " + why;
    points.push_back(std::move(point));
  }
  double compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // The directory's files.
  std::string tableKey = formatLine(request.kernel, key, {});
  std::vector<std::string> sources;
  for (const CompiledPoint &p : points) {
    if (p.sameAs >= 0)
      continue;
    std::string stem = "point_" + std::to_string(p.index);
    if (!out.write(stem + ".h", p.launcher.header, error) ||
        !out.write(stem + ".cpp", p.launcher.source, error))
      return error;
    sources.push_back(stem + ".cpp");
  }
  sources.push_back("TuneRunner.cpp");
  sources.push_back("tune_main.cpp");
  if (!out.write("TuneRunner.h", kTuneRunnerH, error) ||
      !out.write("TuneRunner.cpp", kTuneRunnerCpp, error) ||
      !out.write("tune_main.cpp",
                 tuneMain(request, tableKey, points, shapes, inits), error))
    return error;

  // Build: every source to an object, then the link; build.sh records the
  // same commands, run in DIR, for a rebuild by hand.
  auto commands = [&](const std::string &dir) {
    std::vector<std::vector<std::string>> list;
    std::vector<std::string> link = toolchain.cxx;
    link.insert(link.end(), {"-o", dir + "tune-runner"});
    for (const std::string &src : sources) {
      std::vector<std::string> c = toolchain.cxx;
      c.insert(c.end(), {"-std=c++20", "-O2", "-I" + (dir.empty() ? "." : dir)});
      for (const std::string &inc : toolchain.includes)
        c.push_back("-I" + inc);
      std::string object = dir + src.substr(0, src.size() - 4) + ".o";
      c.insert(c.end(), {"-c", "-o", object, dir + src});
      list.push_back(c);
      link.push_back(object);
    }
    link.push_back(toolchain.runtimeLibrary);
    link.insert(link.end(), toolchain.linkFlags.begin(), toolchain.linkFlags.end());
    link.insert(link.end(), {"-ldl", "-pthread"});
    list.push_back(link);
    return list;
  };
  std::string script = "#!/bin/sh\n# Rebuilds tune-runner: what minitile tune ran.\nset -e\n"
                       "cd \"$(dirname \"$0\")\"\n";
  for (const std::vector<std::string> &c : commands("")) {
    for (size_t i = 0; i < c.size(); ++i)
      script += (i ? " " : "") + c[i];
    script += "\n";
  }
  script += "rm -f *.o\n";
  if (!out.write("build.sh", script, error))
    return error;
  llvm::sys::fs::setPermissions(out.temp() + "/build.sh", llvm::sys::fs::all_read |
                                                              llvm::sys::fs::all_exe |
                                                              llvm::sys::fs::owner_write);
  std::vector<std::vector<std::string>> compiles = commands(out.temp() + "/");
  std::vector<std::string> link = compiles.back();
  compiles.pop_back();
  unsigned parallel = std::max(1u, std::thread::hardware_concurrency());
  if (!tune::runCommands(compiles, out.temp(), parallel, error) ||
      !tune::runCommands({link}, out.temp(), 1, error))
    return error;
  for (const std::string &src : sources)
    llvm::sys::fs::remove(out.temp() + "/" + src.substr(0, src.size() - 4) + ".o");
  if (!out.commit(error))
    return error;

  size_t distinct = std::count_if(points.begin(), points.end(),
                                  [](const CompiledPoint &p) { return p.sameAs < 0; });
  double totalSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char timing[96];
  std::snprintf(timing, sizeof timing, "compiled in %.0f s, built in %.0f s", compileSeconds,
                totalSeconds - compileSeconds);
  auto many = [](size_t n, const char *what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  std::cout << "minitile: wrote " << request.output << ": " << many(points.size(), "point")
            << " of " << request.kernel << " (" << many(distinct, "distinct kernel")
            << (rejected ? ", " + many(rejected, "point") + " left out" : "") << ") on "
            << many(shapes.size(), "shape") << "; " << timing << "\n"
            << "  on the GPU: " << request.output << "/tune-runner --out tuned.txt\n"
            << "  then: minitile compile " << request.kernel
            << " --tuned tuned.txt ... (or TUNED tuned.txt in minitile_add_kernel_library)\n";
  return "";
}

//===----------------------------------------------------------------------===//
// minitile compile --tuned
//===----------------------------------------------------------------------===//

std::string applyTunedTable(const std::string &file, const std::string &kernel,
                            const ParamList &params, const std::string &shape,
                            bool perShape, std::vector<TunedVariant> &variants) {
  variants.clear();
  std::string text;
  if (std::string why = files::readInput(file, text); !why.empty())
    return "cannot read --tuned '" + file + "': " + why;
  return applyTunedText(text, file, kernel, params, shape, perShape, variants);
}

std::string applyTunedText(const std::string &text, const std::string &file,
                           const std::string &kernel, const ParamList &params,
                           const std::string &shape, bool perShape,
                           std::vector<TunedVariant> &variants) {
  variants.clear();
  ParamList wanted;
  std::string error;
  if (!shape.empty() && !tune::parseShape(shape, wanted, error))
    return "--shape: " + error;
  std::vector<tune::TableLine> lines;
  if (!tune::parseTable(text, file, lines, error))
    return error;

  // The lines for this kernel name its parameters and values: check them,
  // in the generator's spelling (each distinct name=value once: a table may
  // have many lines).
  std::map<std::pair<std::string, std::string>, std::string> spelled;
  for (tune::TableLine &line : lines) {
    if (line.kernel != kernel)
      continue;
    for (ParamList *list : {&line.key, &line.values})
      for (auto &[name, value] : *list) {
        auto [it, fresh] = spelled.try_emplace({name, value});
        if (fresh && !canonical(kernel, name, value, it->second, error)) {
          spelled.erase(it);
          return file + ":" + std::to_string(line.line) + ": error: " + error;
        }
        value = it->second;
      }
  }
  ParamList effective;
  if (!effectiveParams(kernel, params, effective, error))
    return error;
  std::map<std::string, std::string> values(effective.begin(), effective.end());
  tune::Selection selection = tune::selectLines(lines, kernel, values, file, error);
  if (!error.empty())
    return error;
  auto apply = [&](const tune::TableLine *line) {
    ParamList out = params;
    if (line)
      for (const auto &[name, value] : line->values)
        if (std::none_of(params.begin(), params.end(),
                         [&, &name = name](const auto &p) { return p.first == name; }))
          out.emplace_back(name, value);
    return out;
  };

  // The shapes -- --shape's, and those of the lines that may be chosen --
  // name the kernel's sizes and scalars and give values they take, as tune
  // checks its own (shapeValue): checked against the kernel a line builds.
  if (!wanted.empty() || !selection.shaped.empty()) {
    CompileRequest request;
    request.kernel = kernel;
    request.params =
        apply(selection.general ? selection.general
                                : selection.shaped.empty() ? nullptr : selection.shaped.front());
    std::vector<LauncherArgument> args;
    const tune::TableLine *used = selection.general ? selection.general
                                  : selection.shaped.empty() ? nullptr
                                                             : selection.shaped.front();
    if (!kernelArguments(request, args, error))
      return error + (used ? " (with the values of " + file + ":" + std::to_string(used->line) + ")"
                           : std::string());
    auto check = [&](const ParamList &values) -> std::string {
      std::string names;
      for (const LauncherArgument &a : args)
        if (a.kind != LauncherArgument::Kind::tensor)
          names += (names.empty() ? "" : ", ") + a.name;
      for (const auto &[name, value] : values) {
        auto it = std::find_if(args.begin(), args.end(), [&, &name = name](const auto &a) {
          return a.name == name && a.kind != LauncherArgument::Kind::tensor;
        });
        if (it == args.end())
          return "kernel '" + kernel + "' has no size or scalar '" + name + "'" +
                 (names.empty() ? " (it has none)" : " (it has " + names + ")");
        std::pair<int64_t, double> v;
        if (std::string why = shapeValue(*it, value, v); !why.empty())
          return why;
      }
      return "";
    };
    for (const tune::TableLine *line : selection.shaped)
      if (std::string why = check(line->shape); !why.empty())
        return file + ":" + std::to_string(line->line) + ": error: " + why;
    if (std::string why = check(wanted); !why.empty())
      return "--shape '" + shape + "': " + why;
  }

  if (perShape && !selection.shaped.empty()) {
    // One kernel per distinct set of parameters (compared as the generator
    // sees them), serving the shapes whose lines give it.
    // The line for all shapes, if any, is the kernel for calls no shape is
    // nearest to alone (TunedVariant::general).
    std::vector<ParamList> seen;
    std::vector<const tune::TableLine *> all(selection.shaped);
    if (selection.general)
      all.push_back(selection.general);
    for (const tune::TableLine *line : all) {
      ParamList p = apply(line), every;
      if (!effectiveParams(kernel, p, every, error))
        return file + ":" + std::to_string(line->line) + ": error: " + error;
      auto it = std::find(seen.begin(), seen.end(), every);
      if (it == seen.end()) {
        seen.push_back(every);
        variants.push_back({p, {}});
        variants.back().from = file + ":" + std::to_string(line->line);
        it = seen.end() - 1;
      }
      TunedVariant &v = variants[it - seen.begin()];
      if (line == selection.general)
        v.general = true;
      else
        v.shapes.push_back(line->shape);
    }
    return "";
  }
  const tune::TableLine *line = selection.general;
  if (!wanted.empty() && !selection.shaped.empty())
    line = tune::nearestLine(selection.shaped, wanted);
  if (!line && !selection.shaped.empty())
    return file + ": the lines for " + kernel +
           " with these parameters are each for one shape (" +
           tune::formatShape(selection.shaped.front()->shape) +
           ", ...): give --shape to choose one, or emit cpp to dispatch among them";
  variants.push_back({apply(line), {}});
  if (line)
    variants.back().from = file + ":" + std::to_string(line->line);
  return "";
}

} // namespace minitile
