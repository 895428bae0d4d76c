//===- PtxOverride.cpp - an edited PTX in place of the generated one ------===//
#include "tools/minitile/PtxOverride.h"

#include "tools/minitile/Files.h"

#include <cctype>

namespace minitile {

namespace {

/// `ptx` without its comments (`//` to the line's end, `/* ... */`) and
/// string literals kept as they are.
std::string withoutComments(const std::string &ptx) {
  std::string out;
  out.reserve(ptx.size());
  for (size_t i = 0, n = ptx.size(); i < n; ++i) {
    if (ptx[i] == '"') { // a string literal (e.g. in .file): copied whole
      size_t j = i + 1;
      while (j < n && ptx[j] != '"' && ptx[j] != '\n')
        j += ptx[j] == '\\' ? 2 : 1;
      out.append(ptx, i, std::min(j + 1, n) - i);
      i = j;
    } else if (ptx.compare(i, 2, "//") == 0) {
      while (i < n && ptx[i] != '\n')
        ++i;
      out += '\n';
    } else if (ptx.compare(i, 2, "/*") == 0) {
      size_t end = ptx.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 1;
      out += ' ';
    } else {
      out += ptx[i];
    }
  }
  return out;
}

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' ||
         c == '%';
}

/// `text` with each run of white space one blank, none next to brackets,
/// commas or the ends.
std::string collapse(const std::string &text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty() && isWordChar(out.back()) && isWordChar(c))
      out += ' ';
    space = false;
    out += c;
  }
  return out;
}

} // namespace

std::string readPtx(const std::string &path, std::string &text) {
  if (std::string why = files::readInput(path, text); !why.empty())
    return "cannot read --ptx " + path + ": " + why;
  if (text.find('\0') != std::string::npos)
    return "--ptx " + path + " is not PTX text (it has NUL bytes; --emit ptx writes the text)";
  return "";
}

std::vector<std::string> ptxEntries(const std::string &ptx) {
  std::string text = withoutComments(ptx);
  std::vector<std::string> entries;
  for (size_t at = text.find(".entry"); at != std::string::npos;
       at = text.find(".entry", at + 6)) {
    bool word = (at == 0 || !isWordChar(text[at - 1])) &&
                (at + 6 >= text.size() || !isWordChar(text[at + 6]));
    if (!word)
      continue;
    size_t open = text.find('(', at), brace = text.find('{', at);
    // A kernel without parameters may have no list: up to its body.
    size_t end = brace;
    if (open != std::string::npos && open < brace) {
      size_t close = text.find(')', open);
      end = close == std::string::npos ? text.size() : close + 1;
    }
    std::string entry = collapse(text.substr(at + 6, end - at - 6));
    // The block shape it is built for, which the launcher launches.
    if (brace != std::string::npos && end < brace)
      for (const char *directive : {".maxntid", ".reqntid"})
        if (size_t d = text.find(directive, end); d != std::string::npos && d < brace)
          entry += " " + collapse(text.substr(d, text.find_first_of("\n.{", d + 1) - d));
    entries.push_back(entry);
  }
  return entries;
}

std::string checkPtxOverride(const std::string &generated, const std::string &edited) {
  std::vector<std::string> want = ptxEntries(generated), got = ptxEntries(edited);
  auto name = [](const std::string &entry) { return entry.substr(0, entry.find_first_of("( ")); };
  if (got.empty())
    return "it defines no kernel (.entry)";
  if (want.size() != got.size())
    return "it defines " + std::to_string(got.size()) + " kernels where the generated PTX "
           "defines " + std::to_string(want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (name(want[i]) != name(got[i]))
      return "its kernel '" + name(got[i]) + "' is not the generated PTX's '" +
             name(want[i]) + "'";
    auto params = [](const std::string &entry) { return entry.substr(0, entry.find(')')); };
    if (params(want[i]) != params(got[i]))
      return "kernel '" + name(got[i]) + "' takes other parameters than the generated "
             "PTX's (the launcher passes those)";
    if (want[i] != got[i])
      return "kernel '" + name(got[i]) + "' is built for another block (.maxntid, .reqntid) "
             "than the generated PTX's (the launcher launches that one)";
  }
  return "";
}

} // namespace minitile
