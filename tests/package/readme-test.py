#!/usr/bin/env python3
"""Runs a document's code as a reader would, block by block: the README's
"Use minitile in your application" section, or a whole document (the
tutorial).

    readme-test.py DOC.md BINARY_DIR WORK_DIR [TITLE]

TITLE is the heading line of the section to run ("## Use minitile in your
application" by default), or "all" for the whole document. The document
is read at test time, so it cannot drift from what works. Every fenced
block in it is one of:
  - a ```sh block: run as one script (bash -e), in WORK_DIR, where
    `build` is a link to BINARY_DIR (a checkout built by ./setup.sh) and
    HOME is WORK_DIR/home;
  - a block after a line "`PATH`:": written to PATH, relative to WORK_DIR;
  - a block after a line ending "`PATH` declares:": every non-empty line of
    it must be a line of PATH (a file an earlier sh block made).
Any other block in the section fails the test: nothing there goes untested.
"""
import os
import re
import shutil
import subprocess
import sys

DEFAULT_TITLE = "## Use minitile in your application"


def fail(message):
    print(f"readme-test: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def section(doc, title):
    lines = open(doc, encoding="utf-8").read().split("\n")
    if title == "all":
        return lines
    if title not in lines:
        fail(f"{os.path.basename(doc)} has no section '{title}'")
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start:end]


def blocks(lines):
    """(anchor line, language, body lines) for each fenced block."""
    i, anchor = 0, ""
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m:
            if lines[i].strip():
                anchor = lines[i].strip()
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        if j == len(lines):
            fail(f"an unclosed ``` block at '{lines[i]}'")
        yield anchor, m.group(1), lines[i + 1:j]
        anchor, i = "", j + 1


def main():
    readme, binary, work = sys.argv[1:4]
    title = sys.argv[4] if len(sys.argv) > 4 else DEFAULT_TITLE
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "home"))
    os.symlink(os.path.abspath(binary), os.path.join(work, "build"))
    env = dict(os.environ, HOME=os.path.join(work, "home"))
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")  # CI machines have two cores
    for name in ("CMAKE_PREFIX_PATH", "minitile_DIR", "MLIR_DIR"):
        env.pop(name, None)

    counts = {"run": 0, "write": 0, "check": 0}
    for anchor, lang, body in blocks(section(readme, title)):
        write = re.fullmatch(r"`([^`]+)`:", anchor)
        check = re.search(r"`([^`]+)` declares:$", anchor)
        if lang == "sh":
            # The block as one script, as a reader would paste it.
            script = "\n".join(body)
            result = subprocess.run(["bash", "-e", "-o", "pipefail", "-x", "-c", script],
                                    cwd=work, env=env)
            if result.returncode != 0:
                fail(f"the block after '{anchor}' exited with {result.returncode}")
            counts["run"] += sum(1 for l in body if l.strip() and not l.lstrip().startswith("#"))
        elif write:
            path = os.path.join(work, write.group(1))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(body) + "\n")
            counts["write"] += 1
        elif check:
            path = os.path.join(work, check.group(1))
            if not os.path.exists(path):
                fail(f"{check.group(1)} was not made")
            have = set(open(path, encoding="utf-8").read().split("\n"))
            for line in body:
                if line.strip() and line not in have:
                    fail(f"{check.group(1)} has no line '{line}'")
            counts["check"] += 1
        else:
            fail(f"a ```{lang} block after '{anchor}' is neither run, written nor checked")
    if not counts["run"] or not counts["write"] or not counts["check"]:
        fail(f"the section ran {counts['run']} lines, wrote {counts['write']} files and "
             f"checked {counts['check']}: something is missing")
    print(f"readme-test: ran {counts['run']} command lines, wrote {counts['write']} files, "
          f"checked {counts['check']} generated file(s)")


if __name__ == "__main__":
    main()
