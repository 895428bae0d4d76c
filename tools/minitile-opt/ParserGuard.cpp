//===- ParserGuard.cpp - refuse text that crashes MLIR 22's parser --------===//
//
// A dense array's element type is the token after `array <`, or a type alias
// (`!name = index`, possibly through other aliases) naming it. Between any
// two tokens the lexer skips whitespace, NUL bytes and `//` comments, so the
// scan does too; a comment or a string literal is never a token.
//
//===----------------------------------------------------------------------===//
#include "tools/minitile-opt/ParserGuard.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <cctype>

namespace minitile {

namespace {

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

/// Walks `text` the way MLIR's lexer separates tokens.
struct Scanner {
  llvm::StringRef text;

  /// The first position at or after `i` that is not whitespace, a NUL byte or
  /// inside a `//` comment.
  size_t skipTrivia(size_t i) const {
    size_t n = text.size();
    while (i < n) {
      char c = text[i];
      if (std::isspace(static_cast<unsigned char>(c)) || c == '\0') {
        ++i;
      } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
        while (i < n && text[i] != '\n')
          ++i;
      } else {
        break;
      }
    }
    return i;
  }

  /// The identifier starting at `i` (empty when none does).
  llvm::StringRef identifierAt(size_t i) const {
    size_t k = i;
    while (k < text.size() && isIdentifierChar(text[k]))
      ++k;
    return text.slice(i, k);
  }

  /// The end of the string literal opening at `i`.
  size_t skipString(size_t i) const {
    for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
      if (text[i] == '\\')
        ++i;
    return i;
  }

  /// Calls `visit(i)` at every position outside comments and string
  /// literals, in order, until it returns true.
  template <typename Visit> void forEachChar(Visit visit) const {
    size_t n = text.size();
    for (size_t i = 0; i < n; ++i) {
      if (text[i] == '/' && i + 1 < n && text[i + 1] == '/') {
        while (i < n && text[i] != '\n')
          ++i;
      } else if (text[i] == '"') {
        i = skipString(i);
      } else if (visit(i)) {
        return;
      }
    }
  }

  /// forEachChar, at the positions where a token may start (not inside a
  /// word).
  template <typename Visit> void forEachTokenStart(Visit visit) const {
    forEachChar([&](size_t i) { return !(i > 0 && isIdentifierChar(text[i - 1])) && visit(i); });
  }
};

/// The names of the type aliases (`!name = ...`) that stand for `index`,
/// directly or through other aliases. A name defined twice (an error the
/// parser reports only when it reaches the second definition) counts if any
/// of its definitions does: uses before the second read the first.
llvm::StringSet<> indexAliases(const Scanner &s) {
  // alias -> the aliases its definitions name, "" for index
  llvm::StringMap<llvm::SmallVector<llvm::StringRef, 1>> target;
  s.forEachTokenStart([&](size_t i) {
    llvm::StringRef name = s.text[i] == '!' ? s.identifierAt(i + 1) : llvm::StringRef();
    if (name.empty())
      return false;
    size_t j = s.skipTrivia(i + 1 + name.size());
    if (j >= s.text.size() || s.text[j] != '=')
      return false;
    j = s.skipTrivia(j + 1);
    if (j < s.text.size() && s.text[j] == '!') {
      if (llvm::StringRef other = s.identifierAt(j + 1); !other.empty())
        target[name].push_back(other);
    } else if (s.identifierAt(j) == "index") {
      target[name].push_back("");
    }
    return false;
  });
  llvm::StringSet<> aliases;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto &entry : target) {
      bool index = llvm::any_of(entry.getValue(), [&](llvm::StringRef to) {
        return to.empty() || aliases.contains(to);
      });
      if (index && aliases.insert(entry.getKey()).second)
        grew = true;
    }
  }
  return aliases;
}

/// The first bracket that nests deeper than kMaxNesting, if any: MLIR 22's
/// parser recurses for each level and overflows the stack a few thousand
/// levels down (the fuzzer's input: 7,352 `[`). `->`'s `>` closes nothing.
std::optional<ParserHazard> tooDeep(const Scanner &s) {
  constexpr int kMaxNesting = 256;
  llvm::StringRef text = s.text;
  int depth = 0;
  std::optional<ParserHazard> hazard;
  s.forEachChar([&](size_t i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNesting)
        hazard = ParserHazard{i, "brackets nest deeper than " + std::to_string(kMaxNesting) +
                                     " levels (MLIR 22's parser would overflow the stack)"};
    } else if ((c == ')' || c == ']' || c == '}' ||
                (c == '>' && (i == 0 || text[i - 1] != '-'))) &&
               depth > 0) {
      --depth;
    }
    return hazard.has_value();
  });
  return hazard;
}

} // namespace

std::optional<ParserHazard> findParserHazard(llvm::StringRef text) {
  Scanner s{text};
  if (auto deep = tooDeep(s))
    return deep;
  llvm::StringSet<> aliases = indexAliases(s);
  std::optional<ParserHazard> hazard;
  s.forEachTokenStart([&](size_t i) {
    if (s.identifierAt(i) != "array")
      return false;
    size_t j = s.skipTrivia(i + 5);
    if (j >= text.size() || text[j] != '<')
      return false;
    j = s.skipTrivia(j + 1);
    if (s.identifierAt(j) == "index") {
      hazard = ParserHazard{i, "a dense array of index ('array<index ...>') is not valid "
                               "(and crashes MLIR 22's parser); use i64"};
    } else if (j < text.size() && text[j] == '!' &&
               aliases.contains(s.identifierAt(j + 1))) {
      std::string message = "a dense array of index (through the type alias '!";
      message += s.identifierAt(j + 1);
      message += "') is not valid (and crashes MLIR 22's parser); use i64";
      hazard = ParserHazard{i, message};
    }
    return hazard.has_value();
  });
  return hazard;
}

} // namespace minitile
