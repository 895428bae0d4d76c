//===- ParserGuard.cpp - refuse text that crashes MLIR 22's parser --------===//
#include "tools/minitile-opt/ParserGuard.h"

#include <cctype>

namespace minitile {

namespace {

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

} // namespace

std::optional<ParserHazard> findParserHazard(llvm::StringRef text) {
  size_t n = text.size();
  // What MLIR's lexer skips between tokens: whitespace and NUL bytes.
  auto skipSpace = [&](size_t i) {
    while (i < n && (std::isspace(static_cast<unsigned char>(text[i])) || text[i] == '\0'))
      ++i;
    return i;
  };
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') { // a comment, to the line's end
      while (i < n && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '"') { // a string literal, with escapes
      for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (!text.substr(i).starts_with("array") || (i > 0 && isIdentifierChar(text[i - 1])))
      continue;
    size_t j = skipSpace(i + 5);
    if (j >= n || text[j] != '<')
      continue;
    j = skipSpace(j + 1);
    size_t k = j;
    while (k < n && isIdentifierChar(text[k]))
      ++k;
    if (text.slice(j, k) == "index")
      return ParserHazard{i, "a dense array of index ('array<index ...>') is not valid "
                             "(and crashes MLIR 22's parser); use i64"};
  }
  return std::nullopt;
}

} // namespace minitile
