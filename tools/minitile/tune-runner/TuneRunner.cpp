//===- TuneRunner.cpp - time every point of a space on the GPU ------------===//
//
// For each shape: allocate every tensor argument (its shape from the sizes),
// fill it (Init), then for each point: restore the tensors, launch once (a
// point whose launch throws -- a require() that fails on this shape, too
// much shared memory -- does not apply), download every tensor and group the
// point with those that left the same contents and launch it `warmup` times;
// then the points take turns, 5 launches each a round, until each has `reps`
// launches timed with CUDA events, each after 256 MB of queued copying (a
// cold L2, as the benchmark times), and each point's median is its time (the
// same drift of clock and power for every point). Once all have run, the
// largest group is right (of equal ones, the earliest point's) and the
// points of the others are wrong, disqualified. Prints a table of the
// points and writes the winner to the table file.
//
// This file is copied into every directory `minitile tune` writes and built
// there against the minitile runtime alone: standard C++ and runtime.h only.
//
//===----------------------------------------------------------------------===//
#include "TuneRunner.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <memory>
#include <thread>
#include <type_traits>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace minitile::tune {

namespace {

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

int bytesOf(Elem e) {
  switch (e) {
  case Elem::i1:
  case Elem::i8: return 1;
  case Elem::i16:
  case Elem::f16:
  case Elem::bf16: return 2;
  case Elem::i32:
  case Elem::f32: return 4;
  case Elem::i64:
  case Elem::f64: return 8;
  }
  return 1;
}

bool isFloat(Elem e) {
  return e == Elem::f16 || e == Elem::bf16 || e == Elem::f32 || e == Elem::f64;
}

uint16_t halfFromFloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u, exp = (u >> 23) & 0xff, mant = u & 0x7fffffu;
  if (exp == 0xff) // inf, NaN
    return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0));
  int e = int(exp) - 127 + 15;
  if (e >= 31)
    return uint16_t(sign | 0x7c00u);
  if (e <= 0) { // subnormal or zero, rounded to nearest even
    if (e < -10)
      return uint16_t(sign);
    mant |= 0x800000u;
    int shift = 14 - e;
    uint32_t half = mant >> shift, rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | uint32_t(e) << 10 | mant >> 13, rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half; // may carry into the exponent: still right
  return uint16_t(half);
}

float floatFromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  uint32_t u;
  if (exp == 0x1f) {
    u = sign | 0x7f800000u | mant << 13;
  } else if (exp == 0) {
    float f = std::ldexp(float(mant), -24);
    return sign ? -f : f;
  } else {
    u = sign | (exp - 15 + 127) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Stores `v` (an integer value for integer elements) at `p`.
void put(Elem e, unsigned char *p, double v) {
  auto store = [&](auto x) { std::memcpy(p, &x, sizeof x); };
  switch (e) {
  case Elem::i1: store(uint8_t(v != 0)); break;
  case Elem::i8: store(int8_t(v)); break;
  case Elem::i16: store(int16_t(v)); break;
  case Elem::i32: store(int32_t(v)); break;
  case Elem::i64: store(int64_t(v)); break;
  case Elem::f16: store(halfFromFloat(float(v))); break;
  case Elem::bf16: store(rt::bf16::fromFloat(float(v)).bits); break;
  case Elem::f32: store(float(v)); break;
  case Elem::f64: store(v); break;
  }
}

double get(Elem e, const unsigned char *p) {
  auto load = [&](auto x) {
    std::memcpy(&x, p, sizeof x);
    return x;
  };
  switch (e) {
  case Elem::i1: return load(uint8_t());
  case Elem::i8: return load(int8_t());
  case Elem::i16: return load(int16_t());
  case Elem::i32: return load(int32_t());
  case Elem::i64: return double(load(int64_t()));
  case Elem::f16: return floatFromHalf(load(uint16_t()));
  case Elem::bf16: return rt::bf16{load(uint16_t())}.toFloat();
  case Elem::f32: return load(float());
  case Elem::f64: return load(double());
  }
  return 0;
}

/// splitmix64: fast, and the same numbers on every machine.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) * 0x1.0p-53; } // [0, 1)
  /// Standard normal (Box-Muller; the second value of each pair unused).
  double normal() {
    double u = 1 - unit(), v = unit(); // u in (0, 1]
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * 3.14159265358979323846 * v);
  }
};

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

/// A tensor argument on one shape: its dimensions, device memory and the
/// contents every launch starts from.
struct TensorData {
  std::vector<int64_t> dims;
  int64_t numel = 0;
  std::vector<unsigned char> initial;
  rt::DeviceBuffer<unsigned char> device;
};

int64_t dimValue(const Dim &d, const Shape &shape) {
  if (d.compute)
    return d.compute(shape.values);
  return d.size >= 0 ? shape.values[d.size].i : d.constant;
}

/// "[3, 17]": the indices of element `flat` of a tensor of `dims`.
std::string indexText(int64_t flat, const std::vector<int64_t> &dims) {
  std::vector<int64_t> idx(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    int64_t n = std::max<int64_t>(dims[d], 1);
    idx[d] = flat % n;
    flat /= n;
  }
  std::string s = "[";
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + "]";
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.7g", v);
  return buf;
}

//===----------------------------------------------------------------------===//
// Measuring
//===----------------------------------------------------------------------===//

struct Options {
  std::string out = "tuned.txt";
  int warmup = 10, reps = 100;
  double rtol = 1e-2;
  uint64_t seed = 1;
  int pointTimeout = 60; // seconds one point may take on one shape
  std::vector<int> skip;  // points left out (they faulted or hung before)
  // --profile P:S: only point P (the kernel it runs) on shape S, no table --
  // for a profiler: its launches are one check, the warm-ups, the timed ones.
  int profilePoint = -1, profileShape = -1;

  /// Whether point `p` sits this run out: --profile names another.
  bool profilesOther(size_t p) const { return profilePoint >= 0 && int(p) != profilePoint; }
};

/// The worker's exit status when a point lost the CUDA context.
constexpr int kFaulted = 3;

/// A CUDA error after which nothing more runs in this process.
struct Fatal {
  std::string message;
};

/// Launches `point` once, catching what says it does not apply; "" if it ran.
std::string launchOnce(const Point &point, const Call &call) {
  try {
    point.launch(call);
    rt::synchronize();
    return "";
  } catch (const rt::Error &e) {
    if (rt::losesContext(e.code()))
      throw Fatal{e.what()};
    return e.what();
  }
}

/// Points whose launches left the same tensors (within the tolerance).
struct Agreement {
  std::vector<int> points;
  std::vector<std::vector<unsigned char>> contents; // the first point's, per argument
};

/// "" if `contents` agree with `group`'s, else where the first difference is.
/// The rows of unordered arguments are sorted already (see check()).
std::string difference(const Spec &spec, const std::vector<TensorData> &tensors,
                       const Agreement &group,
                       const std::vector<std::vector<unsigned char>> &contents,
                       const Options &o) {
  for (size_t a = 0; a < tensors.size(); ++a)
    if (spec.arguments[a].kind == Argument::Kind::tensor && tensors[a].numel) {
      Argument sorted = spec.arguments[a];
      sorted.unordered = false;
      if (std::string diff = compareContents(sorted, tensors[a].dims, group.contents[a],
                                             contents[a], o.rtol);
          !diff.empty())
        return spec.arguments[a].unordered ? diff + " (rows compared in ascending order)" : diff;
    }
  return "";
}

/// Runs point `p` once from the initial contents and adds it to the group of
/// points it agrees with (at most 4 groups; the largest is taken as right
/// once every point has run), then launches it `o.warmup` times. `note` says
/// when it starts a group of its own. Ok (no time yet), or why it does not
/// apply or is wrong.
Result check(const Spec &spec, int p, std::vector<TensorData> &tensors, const Call &call,
             std::vector<Agreement> &groups, const Options &o, std::string &note) {
  const Point &point = spec.points[p];
  for (size_t a = 0; a < tensors.size(); ++a)
    if (tensors[a].numel)
      tensors[a].device.upload(tensors[a].initial);
  if (std::string why = launchOnce(point, call); !why.empty())
    return {Result::Status::notApplicable, 0, why};

  std::vector<std::vector<unsigned char>> contents(tensors.size());
  for (size_t a = 0; a < tensors.size(); ++a)
    if (spec.arguments[a].kind == Argument::Kind::tensor && tensors[a].numel) {
      contents[a] = tensors[a].device.download();
      if (spec.arguments[a].unordered) // compared in this form from now on
        sortRows(spec.arguments[a], tensors[a].dims, contents[a]);
    }
  auto group = std::find_if(groups.begin(), groups.end(), [&](const Agreement &g) {
    return difference(spec, tensors, g, contents, o).empty();
  });
  if (group != groups.end()) {
    group->points.push_back(p);
  } else if (groups.size() < 4) {
    if (!groups.empty())
      note = ", differs from #" + std::to_string(groups.front().points.front()) + ": " +
             difference(spec, tensors, groups.front(), contents, o);
    groups.push_back({{p}, std::move(contents)});
  } else {
    return {Result::Status::wrong, 0, "differs from every one of 4 other results"};
  }
  try {
    for (int i = 0; i < o.warmup; ++i)
      point.launch(call);
    rt::synchronize();
  } catch (const rt::Error &e) {
    if (rt::losesContext(e.code()))
      throw Fatal{e.what()};
    return {Result::Status::notApplicable, 0, e.what()};
  }
  return {Result::Status::ok, 0, ""};
}

/// `n` launches of `point`, each timed with CUDA events (ms) and appended to
/// `ms`. As minitile-bench and triton.testing.do_bench time: 256 MB of
/// copying queued before each evicts the L2 cache and hides the launcher's
/// host work. Throws Fatal where the CUDA context is lost.
void timeLaunches(const Point &point, const Call &call, int n, std::vector<double> &ms) {
  try {
    rt::Timer timer;
    for (int i = 0; i < n; ++i) {
      rt::evictL2();
      timer.start();
      point.launch(call);
      ms.push_back(timer.stop());
    }
  } catch (const rt::Error &e) {
    if (rt::losesContext(e.code()))
      throw Fatal{e.what()};
    throw;
  }
}

/// Once every point has run on a shape: the largest group of agreeing points
/// (of equal ones, the one with the earliest point) is right; the points of
/// the others are wrong.
void judge(const Spec &spec, const std::vector<TensorData> &tensors,
           const std::vector<Agreement> &groups, size_t shape,
           std::vector<std::vector<Result>> &results, const Options &o) {
  if (groups.size() < 2)
    return;
  size_t right = 0, ran = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    ran += groups[g].points.size();
    if (groups[g].points.size() > groups[right].points.size())
      right = g;
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g == right)
      continue;
    std::string why = difference(spec, tensors, groups[right], groups[g].contents, o) + " (as " +
          std::to_string(groups[right].points.size()) + " of the " + std::to_string(ran) +
          " distinct kernels that ran left it, #" +
          std::to_string(groups[right].points.front()) + " first)";
    for (int p : groups[g].points)
      results[p][shape] = {Result::Status::wrong, 0, why};
  }
}

bool parseOptions(int argc, char **argv, const Spec &spec, Options &o, std::string &error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      error = "help";
      return false;
    }
    if (i + 1 >= argc) {
      error = "unknown option '" + arg + "' (or it lacks its value)";
      return false;
    }
    std::string value = argv[++i];
    auto whole = [&](long long lo, long long hi, long long &v) {
      char *end = nullptr;
      errno = 0;
      v = std::strtoll(value.c_str(), &end, 10);
      if (!value.empty() && !*end && !errno && v >= lo && v <= hi)
        return true;
      error = arg + " takes a whole number in [" + std::to_string(lo) + ", " +
              std::to_string(hi) + "], not '" + value + "'";
      return false;
    };
    long long v = 0;
    // The point whose kernel point `p` runs (a point sharing another's is that one).
    auto runs = [&](int p) { return spec.points[p].sameAs >= 0 ? spec.points[p].sameAs : p; };
    if (arg == "--out" || arg == "-o") {
      o.out = value;
    } else if (arg == "--warmup") {
      if (!whole(0, 1000000, v))
        return false;
      o.warmup = int(v);
    } else if (arg == "--reps") {
      if (!whole(1, 1000000, v))
        return false;
      o.reps = int(v);
    } else if (arg == "--seed") {
      if (!whole(0, std::numeric_limits<long long>::max(), v))
        return false;
      o.seed = uint64_t(v);
    } else if (arg == "--point-timeout") {
      if (!whole(1, 86400, v))
        return false;
      o.pointTimeout = int(v);
    } else if (arg == "--skip") {
      if (!whole(0, (long long)spec.points.size() - 1, v))
        return false;
      // The point that runs: a point sharing another's kernel is that one.
      int p = runs(int(v));
      if (std::find(o.skip.begin(), o.skip.end(), p) == o.skip.end())
        o.skip.push_back(p);
    } else if (arg == "--profile") {
      size_t colon = value.find(':');
      char *end = nullptr;
      long long point = colon == std::string::npos ? -1 : std::strtoll(value.c_str(), &end, 10);
      long long shape = -1;
      if (point >= 0 && end == value.c_str() + colon && colon > 0 && colon + 1 < value.size())
        shape = std::strtoll(value.c_str() + colon + 1, &end, 10);
      if (point < 0 || shape < 0 || *end || point >= (long long)spec.points.size() ||
          shape >= (long long)spec.shapes.size()) {
        error = "--profile takes POINT:SHAPE, a point's number (0-" +
                std::to_string(spec.points.size() - 1) + ") and a shape's (0-" +
                std::to_string(spec.shapes.size() - 1) + ", in --shape's order), not '" +
                value + "'";
        return false;
      }
      o.profilePoint = runs(int(point));
      o.profileShape = int(shape);
    } else if (arg == "--rtol") {
      char *end = nullptr;
      double x = std::strtod(value.c_str(), &end);
      if (value.empty() || *end || !(x > 0)) {
        error = "--rtol takes a positive number, not '" + value + "'";
        return false;
      }
      o.rtol = x;
    } else {
      error = "unknown option '" + arg + "'";
      return false;
    }
  }
  return true;
}

const char kUsage[] =
    "usage: tune-runner [--out FILE] [--warmup N] [--reps N] [--rtol X] [--seed N]\n"
    "                   [--point-timeout S] [--skip POINT]... [--profile POINT:SHAPE]\n"
    "  Times every point on every shape (CUDA events: N warm-up launches, then the\n"
    "  median of --reps launches, the points taking turns 5 launches at a time) and\n"
    "  writes the winner to FILE (default tuned.txt)\n"
    "  for `minitile compile --tuned FILE`. Defaults: --warmup 10 --reps 100\n"
    "  --rtol 1e-2 (how far results may differ between points) --seed 1 (the inputs)\n"
    "  --point-timeout 60. A point that faults (the CUDA context is lost) or takes\n"
    "  longer than --point-timeout seconds on a shape is left out and the run starts\n"
    "  again without it (as --skip POINT does), at most 8 times. --profile runs\n"
    "  only POINT on SHAPE (numbers from 0, as printed and in --shape's order) and\n"
    "  writes no table: its launches are one check, the warm-ups, then the timed\n"
    "  ones (ncu --launch-skip 1 --launch-count 1 profiles a warm-up).\n";

std::string today() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

/// Writes `text` to `path` in full or not at all.
bool writeFile(const std::string &path, const std::string &text, std::string &error) {
  std::string temp = path + ".tmp";
  {
    std::ofstream f(temp, std::ios::binary | std::ios::trunc);
    f << text;
    f.flush();
    if (!f) {
      error = "cannot write '" + path + "'";
      std::remove(temp.c_str());
      return false;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

double geomean(const std::vector<Result> &r) {
  double logs = 0;
  for (const Result &x : r)
    logs += std::log(x.us);
  return std::exp(logs / double(r.size()));
}

bool allOk(const std::vector<Result> &r) {
  return std::all_of(r.begin(), r.end(),
                     [](const Result &x) { return x.status == Result::Status::ok; });
}

std::string microseconds(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", us);
  return buf;
}

/// Prints the table: one row per point, a column per shape and the geomean.
void printTable(const Spec &spec, const std::vector<std::vector<Result>> &results) {
  size_t width = 5;
  for (const Point &p : spec.points)
    width = std::max(width, p.params.size());
  std::printf("\n%-5s %-*s", "#", int(width), "point");
  std::vector<size_t> cols;
  for (const Shape &s : spec.shapes) {
    cols.push_back(std::max<size_t>(s.name.size(), 12));
    std::printf("  %*s", int(cols.back()), s.name.c_str());
  }
  std::printf("  %12s\n", "geomean");
  for (size_t p = 0; p < spec.points.size(); ++p) {
    std::printf("#%-4zu %-*s", p, int(width), spec.points[p].params.c_str());
    for (size_t s = 0; s < spec.shapes.size(); ++s) {
      const Result &r = results[p][s];
      std::string cell = r.status == Result::Status::ok              ? microseconds(r.us)
                         : r.status == Result::Status::notApplicable ? "n/a"
                         : r.status == Result::Status::wrong         ? "WRONG"
                                                                     : "FAILED";
      std::printf("  %*s", int(cols[s]), cell.c_str());
    }
    std::string mean = allOk(results[p]) ? microseconds(geomean(results[p])) : "-";
    std::printf("  %12s", mean.c_str());
    if (spec.points[p].sameAs >= 0)
      std::printf("  (the kernel of #%d)", spec.points[p].sameAs);
    std::printf("\n");
  }
  bool notes = false;
  for (size_t p = 0; p < spec.points.size(); ++p)
    for (size_t s = 0; s < spec.shapes.size(); ++s)
      if (results[p][s].status != Result::Status::ok && spec.points[p].sameAs < 0) {
        if (!notes)
          std::printf("\n");
        notes = true;
        Result::Status st = results[p][s].status;
        std::printf("#%zu on %s: %s: %s\n", p, spec.shapes[s].name.c_str(),
                    st == Result::Status::wrong           ? "wrong"
                    : st == Result::Status::notApplicable ? "does not apply"
                                                          : "failed",
                    results[p][s].why.c_str());
      }
}

} // namespace

namespace {

/// Ascending, NaN last.
template <typename T> bool before(T u, T v) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(u) || std::isnan(v))
      return !std::isnan(u) && std::isnan(v);
  return u < v;
}

template <typename T> void sortEach(unsigned char *data, int64_t n, int64_t from, int64_t to) {
  for (int64_t r = from; r < to; ++r) {
    T *row = reinterpret_cast<T *>(data) + r * n;
    std::sort(row, row + n, before<T>);
  }
}

/// Rows of other element types: sorted by their values as doubles.
void sortEachByValue(Elem elem, unsigned char *data, int64_t n, int64_t from, int64_t to) {
  int bytes = bytesOf(elem);
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::vector<unsigned char> row(size_t(n) * bytes);
  for (int64_t r = from; r < to; ++r) {
    unsigned char *at = data + size_t(r * n) * bytes;
    std::memcpy(row.data(), at, row.size());
    for (int64_t i = 0; i < n; ++i)
      order[size_t(i)] = i;
    std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
      return before(get(elem, &row[size_t(x) * bytes]), get(elem, &row[size_t(y) * bytes]));
    });
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(at + size_t(i) * bytes, &row[size_t(order[size_t(i)]) * bytes], bytes);
  }
}

} // namespace

void sortRows(const Argument &a, const std::vector<int64_t> &dims,
              std::vector<unsigned char> &data) {
  if (dims.empty() || dims.back() <= 1)
    return;
  int64_t n = dims.back();
  int64_t rows = int64_t(data.size()) / bytesOf(a.elem) / n;
  unsigned char *base = data.data();
  auto sortRange = [&, elem = a.elem](int64_t from, int64_t to) {
    switch (elem) {
    case Elem::i32: return sortEach<int32_t>(base, n, from, to);
    case Elem::i64: return sortEach<int64_t>(base, n, from, to);
    case Elem::f32: return sortEach<float>(base, n, from, to);
    case Elem::f64: return sortEach<double>(base, n, from, to);
    default: return sortEachByValue(elem, base, n, from, to);
    }
  };
  int64_t workers = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 64);
  workers = std::min(workers, std::max<int64_t>(1, rows * n / (1 << 16)));
  std::vector<std::thread> threads;
  for (int64_t w = 1; w < workers; ++w)
    threads.emplace_back(sortRange, rows * w / workers, rows * (w + 1) / workers);
  sortRange(0, rows / workers);
  for (std::thread &t : threads)
    t.join();
}

/// "" if `got` matches `want` (the reference point's contents), else where
/// and how it differs. Integers must be equal; floats must have the same
/// NaNs and infinities and differ by at most rtol of the larger magnitude
/// (or of 1% of the tensor's largest finite magnitude, for values near 0).
std::string compareContents(const Argument &a, const std::vector<int64_t> &dims,
                            const std::vector<unsigned char> &want,
                            const std::vector<unsigned char> &got, double rtol) {
  int64_t numel = 1;
  for (int64_t d : dims)
    numel *= d;
  if (want == got) // bit for bit, the usual case: no need to look closer
    return "";
  int bytes = bytesOf(a.elem);
  if (a.unordered && !dims.empty() && dims.back() > 1) {
    // Each row's values in ascending order (NaN last), then compared as
    // they stand.
    std::vector<unsigned char> w = want, g = got;
    sortRows(a, dims, w);
    sortRows(a, dims, g);
    Argument ordered = a;
    ordered.unordered = false;
    std::string diff = compareContents(ordered, dims, w, g, rtol);
    return diff.empty() ? "" : diff + " (rows compared in ascending order)";
  }
  if (!isFloat(a.elem)) {
    for (int64_t i = 0; i < numel; ++i)
      if (std::memcmp(&want[size_t(i) * bytes], &got[size_t(i) * bytes], bytes))
        return a.name + indexText(i, dims) + " is " +
               number(get(a.elem, &got[size_t(i) * bytes])) + ", not " +
               number(get(a.elem, &want[size_t(i) * bytes]));
    return "";
  }
  double scale = 0;
  for (int64_t i = 0; i < numel; ++i)
    if (double w = std::fabs(get(a.elem, &want[size_t(i) * bytes])); std::isfinite(w))
      scale = std::max(scale, w);
  for (int64_t i = 0; i < numel; ++i) {
    double w = get(a.elem, &want[size_t(i) * bytes]), g = get(a.elem, &got[size_t(i) * bytes]);
    bool same;
    if (std::isnan(w) || std::isnan(g))
      same = std::isnan(w) && std::isnan(g);
    else if (std::isinf(w) || std::isinf(g))
      same = w == g;
    else
      same = std::fabs(w - g) <= rtol * std::max({std::fabs(w), std::fabs(g), 0.01 * scale});
    if (!same)
      return a.name + indexText(i, dims) + " is " + number(g) + ", not " + number(w);
  }
  return "";
}

std::vector<unsigned char> initialContents(const Argument &a, const std::vector<int64_t> &dims,
                                           const Shape &shape, uint64_t seed) {
  int64_t numel = 1;
  for (int64_t d : dims)
    numel *= d;
  int bytes = bytesOf(a.elem);
  std::vector<unsigned char> data(size_t(numel) * bytes);
  Init init = a.init;
  if (init.kind == Init::Kind::automatic) {
    if (!a.read) // only written: a value no kernel writes, so gaps show
      init = {Init::Kind::constant, isFloat(a.elem) ? std::nan("") : -1.0};
    else if (isFloat(a.elem))
      init = {Init::Kind::uniform, -1, 1};
    else
      init = {Init::Kind::constant, 0};
  }
  Random rng{seed};
  int64_t inner = dims.empty() || dims[0] == 0 ? 1 : numel / dims[0];
  if (init.mulSize >= 0)
    init.mul = shape.values[init.mulSize].i;
  if (init.divSize >= 0)
    init.div = std::max<int64_t>(shape.values[init.divSize].i, 1);
  for (int64_t i = 0; i < numel; ++i) {
    double v = init.lo;
    if (init.kind == Init::Kind::uniform)
      v = isFloat(a.elem)
              ? init.lo + (init.hi - init.lo) * rng.unit()
              : init.lo + std::floor((init.hi - init.lo + 1) * rng.unit());
    else if (init.kind == Init::Kind::normal)
      v = init.lo + init.hi * rng.normal();
    else if (init.kind == Init::Kind::iota)
      v = double((i / inner) * init.mul / init.div + init.add);
    put(a.elem, data.data() + size_t(i) * bytes, v);
  }
  return data;
}

int bestPoint(const Spec &spec, const std::vector<std::vector<Result>> &results) {
  int best = -1;
  for (size_t p = 0; p < spec.points.size(); ++p)
    if (!spec.points[p].edited && allOk(results[p]) &&
        (best < 0 || geomean(results[p]) < geomean(results[best])))
      best = int(p);
  return best;
}

std::string formatTable(const Spec &spec, const std::vector<std::vector<Result>> &results,
                        const std::string &about) {
  int best = bestPoint(spec, results);
  if (best < 0)
    return "";
  std::string shapes;
  for (const Shape &s : spec.shapes)
    shapes += (shapes.empty() ? "" : "; ") + s.name;
  std::string text = "# minitile tune table: " + spec.kernel + " for " + spec.arch + ", " +
                     about + "\n# shapes: " + shapes + "\n# made by: " + spec.command +
                     "\n# read by: minitile compile " + spec.kernel +
                     " --tuned FILE (-p values given there win; with --emit cpp the launcher "
                     "runs each call on the kernel tuned for the nearest shape)\n";
  text += spec.key + " : " + spec.points[best].params + "  # geomean " +
          microseconds(geomean(results[best]));
  for (size_t s = 0; s < spec.shapes.size(); ++s)
    text += "; " + spec.shapes[s].name + " " + microseconds(results[best][s].us);
  text += "\n";
  for (size_t s = 0; s < spec.shapes.size(); ++s) {
    int top = -1;
    for (size_t p = 0; p < spec.points.size(); ++p)
      if (!spec.points[p].edited && results[p][s].status == Result::Status::ok &&
          (top < 0 || results[p][s].us < results[top][s].us))
        top = int(p);
    // The shape's own winner, for a launcher that dispatches by shape.
    text += spec.key + " @ " + spec.shapes[s].name + " : " + spec.points[top].params + "  # " +
            microseconds(results[top][s].us) + "\n";
  }
  return text;
}

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "tune-runner: error: %s\n", message.c_str());
  return 1;
}

/// The run, in a process of its own (runTune() starts it): writes "P\n" to
/// `progress` when it starts to measure point P and "-1\n" when done with it.
int work(const Spec &spec, const Options &o, int progress) {
  auto report = [&](int p) {
    std::string line = std::to_string(p) + "\n";
    if (::write(progress, line.data(), line.size()) < 0) {
      // The supervisor is gone: nothing to watch over this run.
    }
  };
  std::string error, why;
  if (!rt::available(&why))
    return fail("no CUDA driver or GPU here: " + why);

  std::vector<std::vector<Result>> results(spec.points.size(),
                                           std::vector<Result>(spec.shapes.size()));
  std::string about;
  try {
    rt::ensureContext();
    int distinct = 0;
    for (const Point &p : spec.points)
      distinct += p.sameAs < 0;
    about = "on " + rt::deviceName() + " (" + std::to_string(rt::multiprocessorCount()) +
            " multiprocessors), " + today() + "; median of " + std::to_string(o.reps) +
            " launches after " + std::to_string(o.warmup) + " warm-up launches";
    auto count = [](size_t n, const char *what) {
      return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
    };
    std::printf("tune-runner: %s: %s (%s) on %s, %s\n", spec.kernel.c_str(),
                count(spec.points.size(), "point").c_str(),
                count(size_t(distinct), "distinct kernel").c_str(),
                count(spec.shapes.size(), "shape").c_str(), about.c_str());
    std::fflush(stdout);

    for (size_t s = 0; s < spec.shapes.size(); ++s) {
      if (o.profilePoint >= 0 && int(s) != o.profileShape)
        continue;
      const Shape &shape = spec.shapes[s];
      // Every tensor of this shape, filled; the call's arguments.
      std::vector<TensorData> tensors(spec.arguments.size());
      Call call;
      call.values = shape.values;
      call.pointers.assign(spec.arguments.size(), nullptr);
      for (size_t a = 0; a < spec.arguments.size(); ++a) {
        const Argument &arg = spec.arguments[a];
        if (arg.kind != Argument::Kind::tensor)
          continue;
        TensorData &t = tensors[a];
        t.numel = 1;
        for (const Dim &d : arg.shape) {
          // (minitile tune has checked the computed dimensions on every
          // shape: this is a guard.)
          try {
            t.dims.push_back(dimValue(d, shape));
          } catch (const std::exception &e) {
            return fail(shape.name + ": tensor '" + arg.name + "': " + e.what());
          }
          if (t.dims.back() < 0)
            return fail(shape.name + ": tensor '" + arg.name + "' has a negative dimension (" +
                        std::to_string(t.dims.back()) + ")");
          if (__builtin_mul_overflow(t.numel, t.dims.back(), &t.numel) ||
              t.numel > (int64_t(1) << 40))
            return fail(shape.name + ": tensor '" + arg.name + "' is too large");
        }
        t.initial = initialContents(arg, t.dims, shape, o.seed * 1000003 + s * 1009 + a);
        if (t.numel) {
          t.device = rt::DeviceBuffer<unsigned char>(t.initial.size());
          call.pointers[a] = t.device.get();
        }
      }
      std::vector<Agreement> groups;
      std::vector<std::string> notes(spec.points.size());
      auto fatal = [&](size_t p, const Fatal &f) {
        std::fprintf(stderr, "tune-runner: #%zu (%s) on %s: %s\n", p,
                     spec.points[p].params.c_str(), shape.name.c_str(), f.message.c_str());
        return kFaulted;
      };
      for (size_t p = 0; p < spec.points.size(); ++p) {
        if (spec.points[p].sameAs >= 0 || o.profilesOther(p))
          continue;
        if (std::find(o.skip.begin(), o.skip.end(), int(p)) != o.skip.end()) {
          results[p][s] = {Result::Status::failed, 0,
                           "left out: it faulted or hung in an earlier attempt (--skip)"};
          continue;
        }
        report(int(p));
        try {
          results[p][s] = check(spec, int(p), tensors, call, groups, o, notes[p]);
        } catch (const Fatal &f) {
          return fatal(p, f);
        }
        report(-1);
      }
      // The points take turns, kRound launches each a round, until each has
      // o.reps: each sees the same drift of clock and power over the run
      // (timed one after the other, a point late in the list lost 10-15 % to
      // the same kernel early in it on an H200 at the 700 W cap,
      // 2026-12-03).
      constexpr int kRound = 5;
      std::vector<std::vector<double>> ms(spec.points.size());
      for (int done = 0; done < o.reps; done += kRound)
        for (size_t p = 0; p < spec.points.size(); ++p) {
          if (spec.points[p].sameAs >= 0 || results[p][s].status != Result::Status::ok)
            continue;
          report(int(p));
          try {
            timeLaunches(spec.points[p], call, std::min(kRound, o.reps - done), ms[p]);
          } catch (const Fatal &f) {
            return fatal(p, f);
          } catch (const rt::Error &e) {
            results[p][s] = {Result::Status::notApplicable, 0, e.what()};
          }
          report(-1);
        }
      for (size_t p = 0; p < spec.points.size(); ++p) {
        const Point &point = spec.points[p];
        if (point.sameAs >= 0 || o.profilesOther(p))
          continue;
        Result &r = results[p][s];
        if (r.status == Result::Status::ok) {
          std::nth_element(ms[p].begin(), ms[p].begin() + ms[p].size() / 2, ms[p].end());
          r.us = ms[p][ms[p].size() / 2] * 1e3;
        }
        std::printf("  %s  #%zu %s: %s%s\n", shape.name.c_str(), p, point.params.c_str(),
                    r.status == Result::Status::ok      ? microseconds(r.us).c_str()
                    : r.status == Result::Status::wrong  ? "WRONG"
                    : r.status == Result::Status::failed ? "left out (--skip)"
                                                         : "does not apply",
                    notes[p].c_str());
        std::fflush(stdout);
      }
      judge(spec, tensors, groups, s, results, o);
      for (size_t p = 0; p < spec.points.size(); ++p)
        if (spec.points[p].sameAs >= 0)
          results[p][s] = results[spec.points[p].sameAs][s];
    }
  } catch (const rt::Error &e) {
    return fail(e.what());
  }

  if (o.profilePoint >= 0) {
    std::printf("profiled #%d on %s: no table written\n", o.profilePoint,
                spec.shapes[o.profileShape].name.c_str());
    return results[o.profilePoint][o.profileShape].status == Result::Status::ok ? 0 : 1;
  }
  printTable(spec, results);
  int best = bestPoint(spec, results);
  if (best < 0) {
    bool edited = false;
    for (size_t p = 0; p < spec.points.size(); ++p)
      edited |= spec.points[p].edited && allOk(results[p]);
    return fail(edited ? "only points of edited PTX (--ptx) ran right on every shape, and "
                         "they are never a winner: no table written"
                       : "no point ran right on every shape: no table written");
  }
  std::printf("\nbest: #%d %s, geomean %s\n", best, spec.points[best].params.c_str(),
              microseconds(geomean(results[best])).c_str());
  if (!writeFile(o.out, formatTable(spec, results, about), error))
    return fail(error);
  std::printf("wrote %s: minitile compile %s --tuned %s applies it\n", o.out.c_str(),
              spec.kernel.c_str(), o.out.c_str());
  return 0;
}

} // namespace

int runTune(int argc, char **argv, const Spec &spec) {
  Options o;
  std::string error;
  if (!parseOptions(argc, argv, spec, o, error)) {
    if (error == "help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    return fail(error + " (--help shows the options)");
  }
  // The work runs in a child process, watched: a point that faults (the
  // CUDA context is lost for good) or hangs takes down the child, not the
  // run, which starts again without that point. This process never touches
  // CUDA, so that the children can.
  for (;;) {
    int fds[2];
    if (::pipe(fds) != 0)
      return fail(std::string("pipe: ") + std::strerror(errno));
    std::fflush(stdout);
    std::fflush(stderr);
    pid_t child = ::fork();
    if (child < 0)
      return fail(std::string("fork: ") + std::strerror(errno));
    if (child == 0) {
      ::close(fds[0]);
      int status = work(spec, o, fds[1]);
      std::fflush(stdout);
      std::fflush(stderr);
      ::_exit(status);
    }
    ::close(fds[1]);
    int current = -1; // the point being measured
    bool hung = false;
    std::string pending;
    for (;;) {
      pollfd watch{fds[0], POLLIN, 0};
      int ready = ::poll(&watch, 1, current >= 0 ? o.pointTimeout * 1000 : -1);
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready == 0) {
        hung = true;
        ::kill(child, SIGKILL);
        break;
      }
      char buffer[256];
      ssize_t n = ::read(fds[0], buffer, sizeof buffer);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break; // the child is done
      pending.append(buffer, size_t(n));
      for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1))
        current = std::atoi(pending.substr(0, nl).c_str());
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    bool faulted = WIFEXITED(status) && WEXITSTATUS(status) == kFaulted;
    if (!hung && !faulted) {
      if (WIFSIGNALED(status))
        return fail("the measuring process died of signal " + std::to_string(WTERMSIG(status)));
      return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    if (current < 0)
      return fail("the measuring process stopped outside a point");
    if (hung)
      std::fprintf(stderr,
                   "tune-runner: #%d (%s) ran for more than %d s on a shape (a hang?): "
                   "stopped\n",
                   current, spec.points[current].params.c_str(), o.pointTimeout);
    if (o.skip.size() >= 8)
      return fail("8 points faulted or hung: giving up");
    o.skip.push_back(current);
    std::fprintf(stderr, "tune-runner: starting again without #%d\n", current);
  }
}

} // namespace minitile::tune
