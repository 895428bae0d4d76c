#!/usr/bin/env python3
"""Lists the error sites of minitile's dialects that no lit case triggers.

An error site is an emitOpError / emitError call in dialect/*.cpp whose
message has literal text, or a reason a REASONS function returns for a
verifier to quote. A site is covered when a lit test run with
-verify-diagnostics (tests/lit/**) has an `expected-error {{...}}` whose text
holds the site's literal pieces in order. The op that reports it is part of
the match: a message an op's own verifier emits is looked for after
"'<dialect>.<op>' op ", so two ops that word an error alike need a case each;
a helper's message is looked for after the names of the ops whose verifiers
call it. Errors a type, an attribute or the parser reports carry no op name.

Sites no input can reach are listed in ALLOWED below with the reason; the
script fails on one that is neither covered nor allowed, and on an allowance
that no longer names an uncovered site.

  scripts/check-verifier-coverage.py [--root DIR] [--list]

--list prints every site and the case that covers it. Exits 1 when a site
is missing a case, 0 otherwise.
"""

import argparse
import pathlib
import re
import sys

# (function, the message's first literal piece) -> why no input reaches it.
# Keep this short: a site a test can reach gets a test instead.
ALLOWED = {
    ("GlobalTensorType::verify", "tile tensor dimension "):
        "IR text has no negative extent (the parser refuses '-1' in a dimension list) and "
        "the DSL refuses a negative size before it makes the type",
    ("FragLayoutAttr::verify", "basis vectors have "):
        "the parser gives every basis vector the rank of the first (its own error, "
        "'every basis vector has the same rank'), and the layouts passes build are whole "
        "vectors",
}

# Functions that return the reason a value is refused, which a verifier puts
# in its message: each reason is a site of its own.
REASONS = {"minitile::tile::whyNotFragment"}

CALL = re.compile(r"\b(emitOpError|emitError)\s*\(")
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# A function definition starts at column 0: `LogicalResult KernelOp::verify() {`,
# `static LogicalResult verifyAccess(Operation *op, ...`.
FUNCTION = re.compile(r"^(?!(?:return|if|for|while|switch|case|using|namespace|template)\b)"
                      r"[A-Za-z_][\w:<>,\s\*&]*?\b([A-Za-z_][\w:]*)\s*\(", re.M)
OP_DEF = re.compile(r"\bdef\s+(Tile|Hopper)_(\w+)\s*:\s*\w+\s*<\s*\"(\w+)\"")
EXPECTED = re.compile(r"expected-error\s*(?:@[^\s{]*)?\s*\{\{(.*)\}\}")


def unescape(text):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def blank_comments(text):
    """`text` with each comment's characters made spaces (offsets and lines kept)."""
    out, i = [], 0
    while i < len(text):
        if text[i] == '"':
            m = STRING.match(text, i)
            end = m.end() if m else i + 1
            out.append(text[i:end])
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = len(text) if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def statement_end(text, start):
    """The index just past the `;` that ends the statement at `start`."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            m = STRING.match(text, i)
            i = m.end() if m else i + 1
            continue
        if c == "'":
            j = text.index("'", i + 1 + (text[i + 1] == "\\"))
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth <= 0:
            return i + 1
        i += 1
    return len(text)


def pieces(statement):
    """The message's literal pieces, in order: adjacent literals joined; the
    two literals of `cond ? "a" : "b"` one piece that is either (a tuple)."""
    out, last_end = [], None
    choice = re.compile(r'\?\s*"((?:[^"\\\n]|\\.)*)"\s*:\s*"((?:[^"\\\n]|\\.)*)"')
    i = 0
    while True:
        m = STRING.search(statement, i)
        if not m:
            break
        q = statement.rfind("?", i, m.start())
        c = choice.match(statement, q) if q >= 0 else None
        if c and statement[q + 1:m.start()].strip() == "":
            out.append((unescape(c.group(1)), unescape(c.group(2))))
            last_end, i = None, c.end()
            continue
        if last_end is not None and isinstance(out[-1], str) and \
                statement[last_end:m.start()].strip() == "":
            out[-1] += unescape(m.group(1))
        else:
            out.append(unescape(m.group(1)))
        last_end = i = m.end()
    return [p for p in out if not isinstance(p, str) or p.strip()]


def functions(text):
    """(start, end, name) of each function defined at column 0: where its
    definition starts, where its body's closing brace is, its name."""
    found = []
    for m in FUNCTION.finditer(text):
        brace = text.find("{", m.end())
        semi = text.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            continue  # a declaration
        # The body: from its `{` to the matching `}`.
        depth, i = 0, brace
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            elif text[i] == '"':
                s = STRING.match(text, i)
                if s:
                    i = s.end() - 1
            i += 1
        found.append((m.start(), i, m.group(1)))
    return found


def op_names(root):
    """C++ op class -> its full name: KernelOp -> tile.kernel."""
    names = {}
    for td in sorted((root / "dialect").glob("*.td")):
        for m in OP_DEF.finditer(td.read_text()):
            names[m.group(2)] = m.group(1).lower() + "." + m.group(3)
    return names


def sites(root):
    ops = op_names(root)
    out = []
    for cpp in sorted((root / "dialect").glob("*.cpp")):
        text = blank_comments(cpp.read_text())
        funcs = functions(text)

        def enclosing(offset):
            for start, end, name in funcs:
                if start <= offset <= end:
                    return name
            return "?"

        def op_of(name):
            parts = name.split("::")
            return ops.get(parts[-2]) if len(parts) >= 2 else None

        def callers(helper, seen=()):
            """The ops whose verifiers reach `helper`; None where something else calls it."""
            result = set()
            short = helper.split("::")[-1]
            called = False
            for start, end, name in funcs:
                if name == helper or name in seen:
                    continue
                if re.search(r"\b%s\s*\(" % re.escape(short), text[start:end + 1]):
                    called = True
                    op = op_of(name)
                    if op:
                        result.add(op)
                    else:
                        more = callers(name, seen + (helper,))
                        if more is None:
                            return None
                        result |= more
            return result if called else None

        for start, end, name in funcs:
            if name not in REASONS:
                continue
            for m in re.finditer(r"\breturn\b", text[start:end]):
                at = start + m.start()
                words = pieces(text[at:statement_end(text, at)])
                if words:
                    out.append({
                        "where": "%s:%d" % (cpp.relative_to(root), text.count("\n", 0, at) + 1),
                        "function": name,
                        "pieces": words,
                        "reporters": None,
                    })

        for m in CALL.finditer(text):
            end = statement_end(text, m.start())
            statement = text[m.start():end]
            words = pieces(statement)
            if not words:
                continue  # an emitter handed to getChecked, not a message
            function = enclosing(m.start())
            receiver = text[max(0, m.start() - 12):m.start()]
            explicit = receiver.endswith("->") or receiver.endswith(".")
            this = receiver.endswith("(*this)->") or not explicit
            if m.group(1) != "emitOpError":
                reporters = None  # no op name in the message
            elif op_of(function) and this:
                reporters = {op_of(function)}
            elif op_of(function):
                reporters = set()  # another op, named at run time: any
            else:
                reporters = callers(function) or set()
            line = text.count("\n", 0, m.start()) + 1
            out.append({
                "where": "%s:%d" % (cpp.relative_to(root), line),
                "function": function,
                "pieces": words,
                "reporters": reporters,
            })
    return out


def cases(root):
    found = []
    for path in sorted((root / "tests" / "lit").rglob("*")):
        if path.suffix not in (".mlir", ".test") or not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if not re.search(r"RUN:.*-verify-diagnostics", text):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            m = EXPECTED.search(line)
            if m:
                found.append(("%s:%d" % (path.relative_to(root), n), m.group(1)))
    return found


def pattern(site):
    words = list(site["pieces"])
    if isinstance(words[-1], str):
        words[-1] = words[-1].rstrip()
    body = ".*?".join(re.escape(w) if isinstance(w, str) else
                      "(?:%s)" % "|".join(re.escape(a) for a in w) for w in words)
    if site["reporters"] is None:
        return re.compile(body, re.S)
    if site["reporters"]:
        names = "|".join(re.escape(r) for r in sorted(site["reporters"]))
    else:
        names = r"[\w.]+"
    return re.compile(r"'(?:%s)' op %s" % (names, body), re.S)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parent.parent)
    parser.add_argument("--list", action="store_true", help="print every site and its case")
    args = parser.parse_args()

    all_sites, all_cases = sites(args.root), cases(args.root)
    counts = {"covered": 0, "allowed": 0, "missing": 0}
    failed, allowances_used = False, set()
    for site in all_sites:
        p = pattern(site)
        hit = next((where for where, text in all_cases if p.search(text)), None)
        key = (site["function"], site["pieces"][0])
        message = " ... ".join(w if isinstance(w, str) else "{%s}" % "|".join(w)
                               for w in site["pieces"])
        where = "%s %s" % (site["where"], site["function"])
        if key in ALLOWED:
            allowances_used.add(key)
        if hit and key in ALLOWED:
            print("error: %s is allowed as unreachable, but %s reaches it: drop its ALLOWED "
                  "entry" % (where, hit))
            failed = True
        if hit:
            counts["covered"] += 1
            if args.list:
                print("covered  %s: %s  <- %s" % (where, message, hit))
        elif key in ALLOWED:
            counts["allowed"] += 1
            if args.list:
                print("allowed  %s: %s  (%s)" % (where, message, ALLOWED[key]))
        else:
            counts["missing"] += 1
            failed = True
            reporters = site["reporters"]
            who = ("" if reporters is None else
                   "'%s' op " % "|".join(sorted(reporters)) if reporters else "'<op>' op ")
            print("missing  %s: %s%s" % (where, who, message))
    for function, first in ALLOWED:
        if (function, first) not in allowances_used:
            print("error: ALLOWED names %s %r, which is no error site" % (function, first))
            failed = True
    print("%d error sites in dialect/: %d covered, %d allowed as unreachable, %d missing "
          "(%d expected-error cases in tests/lit)"
          % (len(all_sites), counts["covered"], counts["allowed"], counts["missing"],
             len(all_cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
