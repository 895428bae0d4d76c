#!/usr/bin/env python3
"""Named edits of a kernel's PTX (minitile compile --emit ptx), for
`minitile tune --ptx PARAMS@FILE` experiments: each keeps the kernels, their
parameters and block shape (what --ptx requires) and changes one thing.

  ptx_edit.py EDIT IN.ptx OUT.ptx      EDIT: one of the names below, or
                                        several joined by '+'

  nostore   every st.global of a register kept, under a predicate that is
            never true (kernel parameter 0 == -12345): the code that makes
            the value stays, the store is never taken
  nohint    mbarrier.try_wait without its suspend-time hint: ptxas then
            spins on TRYWAIT instead of NANOSLEEP.SYNCS between tries
  noprefetch  without the prefetch.tensormap of each tensor map at the
            kernel's start (the lowering adds it since session 14)
"""
import re
import sys


def nostore(ptx):
    entry = re.search(r"\.entry\s+(\w+)\s*\(\s*\.param\s+\.(?:u|b|s)64\s+(\w+)", ptx)
    if not entry:
        sys.exit("ptx_edit: nostore needs a kernel whose first parameter is 64-bit")
    param = entry.group(2)
    store = re.compile(r"^(\s*)(st\.global\.[\w.]+\s+\[[^\]]+\],\s*%\w+;)", re.M)
    never = (r"\1{ .reg .pred never; .reg .b64 p0; ld.param.b64 p0, [" + param +
             r"]; setp.eq.s64 never, p0, -12345; @never \2 }")
    out, n = store.subn(never, ptx)
    if not n:
        sys.exit("ptx_edit: nostore found no st.global of a register")
    return out


def nohint(ptx):
    wait = re.compile(r"(mbarrier\.try_wait[\w.:]*\s+[^;]*?),\s*\d+\s*;")
    out, n = wait.subn(r"\1;", ptx)
    if not n:
        sys.exit("ptx_edit: nohint found no mbarrier.try_wait with a suspend-time hint")
    return out


def noprefetch(ptx):
    prefetch = re.compile(r"^[ \t]*(@%\w+\s+)?prefetch\.tensormap\s+\[[^\]]+\];[ \t]*\n", re.M)
    out, n = prefetch.subn("", ptx)
    if not n:
        sys.exit("ptx_edit: noprefetch found no prefetch.tensormap")
    return out


EDITS = {"nostore": nostore, "nohint": nohint, "noprefetch": noprefetch}

if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    text = open(sys.argv[2]).read()
    for name in sys.argv[1].split("+"):
        if name not in EDITS:
            sys.exit("ptx_edit: no edit '%s' (%s)" % (name, ", ".join(EDITS)))
        text = EDITS[name](text)
    open(sys.argv[3], "w").write(text)
