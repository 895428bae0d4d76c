//===- Generator.cpp - errors, dtypes, generator parameters, registry -----===//
#include "minitile/dsl.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace minitile {

static std::string format(const std::string &file, unsigned line,
                          const std::string &message) {
  return file + ":" + std::to_string(line) + ": error: " + message;
}

Error::Error(const SourceLoc &loc, const std::string &message)
    : Error(loc.file_name(), loc.line(), message) {}

Error::Error(const std::string &file, unsigned line, const std::string &message)
    : std::runtime_error(format(file, line, message)), file_(file), line_(line),
      message_(message) {}

const char *dtypeName(DType t) {
  switch (t) {
  case DType::i1: return "i1";
  case DType::i8: return "i8";
  case DType::i16: return "i16";
  case DType::i32: return "i32";
  case DType::i64: return "i64";
  case DType::index: return "index";
  case DType::f16: return "f16";
  case DType::bf16: return "bf16";
  case DType::f32: return "f32";
  case DType::f64: return "f64";
  }
  return "?";
}

int dtypeBytes(DType t) {
  switch (t) {
  case DType::i1:
  case DType::i8: return 1;
  case DType::i16:
  case DType::f16:
  case DType::bf16: return 2;
  case DType::i32:
  case DType::f32: return 4;
  case DType::i64:
  case DType::index:
  case DType::f64: return 8;
  }
  return 0;
}

bool isFloat(DType t) {
  return t == DType::f16 || t == DType::bf16 || t == DType::f32 || t == DType::f64;
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

namespace {
// The generator whose members are being constructed on this thread.
thread_local Generator *constructing = nullptr;
} // namespace

Generator::Generator() { constructing = this; }

Generator::~Generator() {
  if (constructing == this)
    constructing = nullptr;
}

ParamBase *Generator::param(const std::string &name) const {
  for (ParamBase *p : params_)
    if (p->name() == name)
      return p;
  return nullptr;
}

ParamBase::ParamBase(const std::string &name, const std::string &help, const SourceLoc &loc)
    : name_(name), help_(help) {
  if (!constructing)
    throw Error(loc, "Param '" + name + "' must be a member of a minitile::Generator");
  auto isAlpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (name.empty() || !isAlpha(name[0]) ||
      !std::all_of(name.begin(), name.end(),
                   [&](char c) { return isAlpha(c) || (c >= '0' && c <= '9'); }))
    throw Error(loc, "Param name '" + name + "' is not letters, digits and '_' (not "
                     "starting with a digit), which -p, --space and tune tables write "
                     "as name=value");
  if (constructing->param(name))
    throw Error(loc, "two Params of the generator are named '" + name + "'");
  constructing->params_.push_back(this);
}

template <> std::string Param<int>::domain() const {
  if (choices_.empty())
    return std::to_string(lo_) + ".." + std::to_string(hi_);
  std::string s;
  for (int c : choices_)
    s += (s.empty() ? "" : "|") + std::to_string(c);
  return s;
}

template <> std::string Param<int>::set(const std::string &text) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    return "parameter '" + name() + "' takes an integer, not '" + text + "'";
  bool ok = choices_.empty() ? (v >= lo_ && v <= hi_)
                             : std::find(choices_.begin(), choices_.end(), v) !=
                                   choices_.end();
  if (!ok)
    return "parameter '" + name() + "' takes " + domain() + ", not " + text;
  value_ = v;
  return "";
}

template <> std::string Param<int>::value() const { return std::to_string(value_); }

template <> std::string Param<bool>::set(const std::string &text) {
  if (text == "true" || text == "1")
    value_ = true;
  else if (text == "false" || text == "0")
    value_ = false;
  else
    return "parameter '" + name() + "' takes true or false, not '" + text + "'";
  return "";
}

template <> std::string Param<bool>::value() const { return value_ ? "true" : "false"; }
template <> std::string Param<bool>::domain() const { return "true|false"; }

template <> void Param<int>::validate(const SourceLoc &loc) const {
  std::string what = "Param '" + name() + "': ";
  if (choices_.empty() && lo_ > hi_)
    throw Error(loc, what + "its range " + domain() + " is empty");
  if (!choices_.empty() && std::set<int>(choices_.begin(), choices_.end()).size() !=
                               choices_.size())
    throw Error(loc, what + "its choices " + domain() + " hold a value twice");
  bool ok = choices_.empty() ? lo_ <= value_ && value_ <= hi_
                             : std::find(choices_.begin(), choices_.end(), value_) !=
                                   choices_.end();
  if (!ok)
    throw Error(loc, what + "its default " + std::to_string(value_) + " is not in " +
                         domain() + ", which -p takes");
}

template <> void Param<bool>::validate(const SourceLoc &) const {}

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

Registry &Registry::global() {
  static Registry registry;
  return registry;
}

void Registry::add(GeneratorInfo info) {
  if (find(info.name) || !cppNameProblem(info.name).empty())
    refused_.push_back(std::move(info));
  else
    generators_.push_back(std::move(info));
}

void Registry::addTunedTable(TunedTableInfo table) { tuned_.push_back(std::move(table)); }

std::vector<const TunedTableInfo *> Registry::tunedTables(const std::string &kernel) const {
  std::vector<const TunedTableInfo *> tables;
  for (const TunedTableInfo &t : tuned_)
    if (t.kernel == kernel)
      tables.push_back(&t);
  std::stable_sort(tables.begin(), tables.end(), [](const auto *a, const auto *b) {
    return a->fallback != b->fallback ? a->fallback : a->device < b->device;
  });
  return tables;
}

std::string Registry::problems() const {
  // Each kernel's shipped tables: a kernel that exists, one a device, one
  // fallback.
  for (const TunedTableInfo &t : tuned_) {
    if (!find(t.kernel))
      return "tuned table " + t.name + " is for kernel '" + t.kernel +
             "', which no generator registers";
    if (t.device.empty())
      return "tuned table " + t.name + " names no device";
    std::vector<const TunedTableInfo *> tables = tunedTables(t.kernel);
    int fallbacks = 0;
    for (const TunedTableInfo *o : tables) {
      fallbacks += o->fallback;
      if (o != &t && o->device == t.device)
        return "kernel '" + t.kernel + "' has two tuned tables for device " + t.device +
               " (" + o->name + " and " + t.name + ")";
    }
    if (fallbacks != 1)
      return "kernel '" + t.kernel + "' has " + std::to_string(fallbacks) +
             " fallback tuned tables; give exactly one (minitile_embed_tuned_tables' FALLBACK)";
  }
  if (refused_.empty())
    return "";
  const GeneratorInfo &refused = refused_.front();
  if (const GeneratorInfo *first = find(refused.name))
    return "two kernels are named '" + refused.name + "' (registered in " + first->file +
           " and in " + refused.file + ")";
  return format(refused.file, refused.line,
                "kernel name '" + refused.name + "' " + cppNameProblem(refused.name) +
                    ": it names the kernel's launcher and its PTX entry");
}

namespace {
#include "LauncherMacros.inc" // generated: kLauncherMacros
} // namespace

std::string cppNameProblem(const std::string &name) {
  static const char *const keywords[] = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool",
      "break", "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class",
      "compl", "concept", "const", "consteval", "constexpr", "constinit", "const_cast",
      "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern",
      "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator",
      "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "return", "short", "signed", "sizeof", "static", "static_assert",
      "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
      "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};
  auto isAlpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (name.empty() || !isAlpha(name[0]) ||
      !std::all_of(name.begin(), name.end(),
                   [&](char c) { return isAlpha(c) || (c >= '0' && c <= '9'); }) ||
      std::find(std::begin(keywords), std::end(keywords), name) != std::end(keywords))
    return "is not a C++ identifier (or is a keyword)";
  if (name.find("__") != std::string::npos ||
      (name[0] == '_' && name.size() > 1 && name[1] >= 'A' && name[1] <= 'Z'))
    return "is reserved to the C++ implementation (it begins with '_' and a capital "
           "letter, or holds '__')";
  if (std::binary_search(std::begin(kLauncherMacros), std::end(kLauncherMacros), name,
                         [](const std::string &a, const std::string &b) { return a < b; }))
    return "is a macro of the headers a launcher includes (cuda.h, the C++ library)";
  return "";
}

bool isCppIdentifier(const std::string &name) { return cppNameProblem(name).empty(); }

const GeneratorInfo *Registry::find(const std::string &name) const {
  for (const GeneratorInfo &g : generators_)
    if (g.name == name)
      return &g;
  return nullptr;
}

} // namespace minitile
