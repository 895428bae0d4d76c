//===- TuneTable.cpp - parse and select lines of a tuned-parameter table --===//
#include "tools/minitile/TuneTable.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cctype>
#include <map>
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

/// A key or shape as a set, whatever the order written: to find a second
/// line for the same configuration.
std::set<std::pair<std::string, std::string>> asSet(const ParamList &list) {
  return {list.begin(), list.end()};
}

/// A line's configuration as one string, the same whatever the order of its
/// key's and shape's pairs: what a second line for it would repeat.
std::string identity(const TableLine &line) {
  std::string text = line.kernel;
  for (const ParamList *list : {&line.key, &line.shape}) {
    text += '\0';
    for (const auto &[name, value] : asSet(*list))
      text.append(name).append(1, '\1').append(value).append(1, '\2');
  }
  return text;
}

/// name=value pairs joined by `separator`.
std::string joined(const ParamList &list, const char *separator) {
  std::string text;
  for (const auto &[name, value] : list)
    text.append(text.empty() ? "" : separator).append(name).append("=").append(value);
  return text;
}

bool identifier(const std::string &s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

} // namespace

bool parseTable(const std::string &text, const std::string &file,
                std::vector<TableLine> &lines, std::string &error) {
  lines.clear();
  // Each configuration (kernel, key and shape, whatever their order) and
  // the line that gives it.
  std::map<std::string, unsigned> configurations;
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
    bool afterColon = false, shaped = false;
    std::set<std::string> seen;
    for (size_t i = 1; i < w.size(); ++i) {
      if (w[i] == "@") {
        if (afterColon || shaped || i + 1 >= w.size() || w[i + 1] == ":")
          return fail("'@' comes once, before ':', followed by a shape (a line is KERNEL "
                      "[name=value ...] [@ size=N,size=N] : name=value ...)");
        std::string why;
        if (!parseShape(w[i + 1], entry.shape, why))
          return fail(why);
        shaped = true;
        ++i;
        continue;
      }
      if (shaped && !afterColon && w[i] != ":")
        return fail("the shape after '@' is the key's last word; '" + w[i] + "' follows it");
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
    // One lookup a line: a table of 100,000 lines loads in well under a
    // second.
    auto [first, fresh] = configurations.emplace(identity(entry), entry.line);
    if (!fresh)
      return fail("a second line for '" + formatLine(entry.kernel, entry.key, {}) +
                  (entry.shape.empty() ? "" : " @ " + formatShape(entry.shape)) +
                  "' (the first is line " + std::to_string(first->second) + ")");
    lines.push_back(std::move(entry));
  }
  return true;
}

std::string formatParams(const ParamList &params) { return joined(params, " "); }

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

std::string formatShape(const ParamList &shape) { return joined(shape, ","); }

bool parseShape(const std::string &text, ParamList &shape, std::string &error) {
  shape.clear();
  size_t pos = 0;
  std::set<std::string> seen;
  while (pos <= text.size()) {
    size_t end = std::min(text.find(',', pos), text.size());
    std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq),
                value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (!identifier(name) || value.empty() || value.find('=') != std::string::npos) {
      error = "a shape is name=value,name=value (S=4096,S_kv=1024), not '" + text + "'";
      return false;
    }
    if (!seen.insert(name).second) {
      error = "'" + name + "' appears twice in shape '" + text + "'";
      return false;
    }
    shape.emplace_back(name, value);
  }
  return true;
}

Selection selectLines(const std::vector<TableLine> &lines, const std::string &kernel,
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
    } else if (l.key.size() == best->key.size() && asSet(l.key) != asSet(best->key)) {
      tie = &l;
    }
  }
  Selection selection;
  if (tie) {
    error = file + ":" + std::to_string(tie->line) + ": error: this line and line " +
            std::to_string(best->line) + " both apply to " + kernel +
            " with these parameters; give one a longer key";
    return selection;
  }
  if (!best)
    return selection;
  for (const TableLine &l : lines)
    if (l.kernel == kernel && asSet(l.key) == asSet(best->key)) {
      if (l.shape.empty())
        selection.general = &l;
      else
        selection.shaped.push_back(&l);
    }
  return selection;
}

const TableLine *nearestLine(const std::vector<const TableLine *> &shaped,
                             const ParamList &shape) {
  auto number = [](const std::string &text, double &out) {
    char *end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return !text.empty() && end && *end == 0;
  };
  const TableLine *best = nullptr;
  double bestDistance = 0;
  for (const TableLine *l : shaped) {
    double distance = 0;
    for (const auto &[name, tuned] : l->shape) {
      auto it = std::find_if(shape.begin(), shape.end(),
                             [&, &name = name](const auto &e) { return e.first == name; });
      double a, b;
      if (it == shape.end() || !number(it->second, a) || !number(tuned, b))
        continue;
      distance += std::fabs(std::log2(std::max(a, 1.0)) - std::log2(std::max(b, 1.0)));
    }
    if (!best || distance < bestDistance) {
      best = l;
      bestDistance = distance;
    }
  }
  return best;
}

} // namespace minitile::tune
