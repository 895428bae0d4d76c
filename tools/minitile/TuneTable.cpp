//===- TuneTable.cpp - parse and select lines of a tuned-parameter table --===//
#include "tools/minitile/TuneTable.h"

#include <algorithm>
#include <set>

namespace minitile::tune {

namespace {

std::vector<std::string> words(const std::string &text) {
  std::vector<std::string> out;
  size_t i = 0;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (i < text.size()) {
    while (i < text.size() && space(text[i]))
      ++i;
    size_t start = i;
    while (i < text.size() && !space(text[i]))
      ++i;
    if (i > start)
      out.push_back(text.substr(start, i - start));
  }
  return out;
}

/// The key as a set, to find a second line for the same configuration.
std::set<std::pair<std::string, std::string>> keySet(const TableLine &l) {
  return {l.key.begin(), l.key.end()};
}

} // namespace

bool parseTable(const std::string &text, const std::string &file,
                std::vector<TableLine> &lines, std::string &error) {
  lines.clear();
  unsigned number = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    auto fail = [&](const std::string &message) {
      error = file + ":" + std::to_string(number) + ": error: " + message;
      return false;
    };
    if (size_t hash = line.find('#'); hash != std::string::npos)
      line.resize(hash);
    std::vector<std::string> w = words(line);
    if (w.empty())
      continue;

    TableLine entry;
    entry.line = number;
    entry.kernel = w[0];
    if (entry.kernel == ":" || entry.kernel.find('=') != std::string::npos)
      return fail("a line starts with the kernel's name, not '" + entry.kernel + "'");
    bool afterColon = false;
    std::set<std::string> seen;
    for (size_t i = 1; i < w.size(); ++i) {
      if (w[i] == ":") {
        if (afterColon)
          return fail("a second ':' (a line is KERNEL [name=value ...] : name=value ...)");
        afterColon = true;
        continue;
      }
      size_t eq = w[i].find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == w[i].size() ||
          w[i].find('=', eq + 1) != std::string::npos)
        return fail("expected name=value, not '" + w[i] + "'");
      std::string name = w[i].substr(0, eq);
      if (!seen.insert(name).second)
        return fail("parameter '" + name + "' appears twice");
      (afterColon ? entry.values : entry.key).emplace_back(name, w[i].substr(eq + 1));
    }
    if (!afterColon)
      return fail("no ':' (a line is KERNEL [name=value ...] : name=value ...)");
    if (entry.values.empty())
      return fail("no tuned values after ':'");
    for (const TableLine &earlier : lines)
      if (earlier.kernel == entry.kernel && keySet(earlier) == keySet(entry))
        return fail("a second line for '" + formatLine(entry.kernel, entry.key, {}) +
                    "' (the first is line " + std::to_string(earlier.line) + ")");
    lines.push_back(std::move(entry));
  }
  return true;
}

std::string formatParams(const ParamList &params) {
  std::string text;
  for (const auto &[name, value] : params)
    text.append(text.empty() ? "" : " ").append(name).append("=").append(value);
  return text;
}

std::string formatLine(const std::string &kernel, const ParamList &key,
                       const ParamList &values) {
  std::string text = kernel;
  for (const auto &[name, value] : key)
    text.append(" ").append(name).append("=").append(value);
  if (values.empty())
    return text;
  text += " :";
  for (const auto &[name, value] : values)
    text.append(" ").append(name).append("=").append(value);
  return text;
}

const TableLine *selectLine(const std::vector<TableLine> &lines, const std::string &kernel,
                            const std::map<std::string, std::string> &effective,
                            const std::string &file, std::string &error) {
  error.clear();
  const TableLine *best = nullptr, *tie = nullptr;
  for (const TableLine &l : lines) {
    if (l.kernel != kernel)
      continue;
    bool holds = std::all_of(l.key.begin(), l.key.end(), [&](const auto &kv) {
      auto it = effective.find(kv.first);
      return it != effective.end() && it->second == kv.second;
    });
    if (!holds)
      continue;
    if (!best || l.key.size() > best->key.size()) {
      best = &l;
      tie = nullptr;
    } else if (l.key.size() == best->key.size()) {
      tie = &l;
    }
  }
  if (tie) {
    error = file + ":" + std::to_string(tie->line) + ": error: this line and line " +
            std::to_string(best->line) + " both apply to " + kernel +
            " with these parameters; give one a longer key";
    return nullptr;
  }
  return best;
}

} // namespace minitile::tune
