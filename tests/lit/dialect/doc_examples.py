"""Prints the ```mlir examples of a generated dialect page (docs/dialects/*.md)
as one input for `minitile-opt -split-input-file`, one example a split.

Every example is whole IR (a kernel, or a launcher and its kernel), so it
parses and verifies on its own. Fails, naming them, when an operation, type
or attribute of the page has no example, or when the page has none at all.
"""
import re
import sys

EXAMPLE = re.compile(r"^```mlir\n(.*?)^```", re.M | re.S)


def main(path):
    with open(path) as f:
        text = f.read()
    missing = []
    section = ""
    # Entries start at "### name" and end at the next "##" or "###" heading.
    for part in re.split(r"^(?=###? )", text, flags=re.M):
        heading = part.split("\n", 1)[0]
        if heading.startswith("## "):
            section = heading[3:]
        elif section in ("Operations", "Types", "Attributes") and not EXAMPLE.search(part):
            missing.append(heading[4:].split(" (")[0])
    if missing:
        sys.exit("%s: no ```mlir example for: %s" % (path, "; ".join(missing)))
    examples = EXAMPLE.findall(text)
    if not examples:
        sys.exit("%s: no ```mlir examples" % path)
    print("\n// -----\n".join(e.rstrip() for e in examples))


if __name__ == "__main__":
    main(sys.argv[1])
