#!/usr/bin/env python3
"""Measures two rules of docs/contributing.md on the C sources (every folder
but tests/):

  * no circle of three or more files: file A depends on file B when A uses a
    name (function, global variable, macro, type, enumerator) that B defines
    and no other file defines; prototypes and extern declarations are not
    uses (so a header and its own implementation may tie two files). Circles are the strongly connected components of that graph.
  * no function longer than 150 lines (from its first line to its closing
    brace).

Definitions and their extents come from Universal Ctags; uses are the
identifiers of each file with comments, strings and character literals
removed. Prints each circle (with the names that tie it) and each long
function, then a summary line; exits 1 if either rule is broken.

Usage: scripts/structure.py [--max-lines N] [ROOT]
"""
import collections
import json
import os
import re
import subprocess
import sys

MAX_LINES = 150
SKIP_DIRS = {"tests", "build", "node_modules", ".git", "web"}
DEF_KINDS = {"function", "variable", "macro", "typedef", "struct", "union", "enum",
             "enumerator"}


def sources(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("build"))
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, f), root)


def ctags(root, files):
    # Headers are read as C++ by default: both languages' kinds are asked for.
    cmd = ["ctags", "--output-format=json", "--fields=+neK", "--kinds-C=+px",
           "--kinds-C++=+px", "-f", "-"] + files
    out = subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


STRIP = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MEMBER = re.compile(r"(?:\.|->)\s*[A-Za-z_][A-Za-z0-9_]*")


def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


def node_of(path, paths):
    return path


def is_static(tag):
    return re.match(r"/\^\s*static\b", tag.get("pattern", "")) is not None


def declaration_lines(text, tags):
    """Lines of prototypes and extern declarations: from the tag's line to
    the first ';' after it."""
    lines = text.split("\n")
    skip = set()
    for t in tags:
        if t["kind"] not in ("prototype", "externvar"):
            continue
        i = t["line"] - 1
        while i < len(lines):
            skip.add(i + 1)
            if ";" in lines[i]:
                break
            i += 1
    return skip


def main():
    args = sys.argv[1:]
    global MAX_LINES
    if args[:1] == ["--max-lines"]:
        MAX_LINES = int(args[1])
        args = args[2:]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    files = list(sources(root))
    paths = set(files)
    tags = ctags(root, files)
    by_file = collections.defaultdict(list)
    for t in tags:
        by_file[t["path"]].append(t)

    # Who defines each exported name: what a header defines, and the
    # functions and variables of a .c file that a header declares (its types,
    # macros and other names stay in the file).
    declared = {t["name"] for t in tags
                if t["path"].endswith(".h") and t["kind"] in ("prototype", "externvar")}
    definers = collections.defaultdict(set)
    for t in tags:
        if t["kind"] not in DEF_KINDS:
            continue
        if t["path"].endswith(".c") and (t["kind"] not in ("function", "variable")
                                         or is_static(t) or t["name"] not in declared):
            continue
        definers[t["name"]].add(node_of(t["path"], paths))

    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = STRIP.sub(blank, fh.read())
        text = re.sub(r"^[ \t]*#[ \t]*include[^\n]*", "", text, flags=re.M)
        skip = declaration_lines(text, by_file[f])
        own = {t["name"] for t in by_file[f] if t["kind"] in DEF_KINDS}
        # A struct member's declaration is no use of a global of its name.
        members = {(t["line"], t["name"]) for t in by_file[f] if t["kind"] == "member"}
        src = node_of(f, paths)
        for lineno, line in enumerate(text.split("\n"), 1):
            if lineno in skip:
                continue
            # A name after '.' or '->' is a member, not the global namesake.
            for name in IDENT.findall(MEMBER.sub(" ", line)):
                d = definers.get(name)
                if not d or len(d) != 1 or name in own or (lineno, name) in members:
                    continue
                dst = next(iter(d))
                if dst != src:
                    edges[src][dst].add(name)

    # Strongly connected components (Tarjan, iterative).
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    nodes = sorted({node_of(f, paths) for f in files})

    def strong(v):
        work = [(v, iter(sorted(edges[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            u, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[u] = min(low[u], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[u])
                if low[u] == index[u]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == u:
                            break
                    comps.append(sorted(comp))

    for v in nodes:
        if v not in index:
            strong(v)

    bad = 0
    circles = [c for c in comps if len(c) >= 3]
    for c in circles:
        bad = 1
        print(f"circle of {len(c)}: {', '.join(c)}")
        for a in c:
            for b in c:
                if b in edges[a]:
                    names = sorted(edges[a][b])
                    more = f" and {len(names) - 6} more" if len(names) > 6 else ""
                    print(f"  {a} -> {b}: {', '.join(names[:6])}{more}")
    pairs = [c for c in comps if len(c) == 2]
    for c in pairs:
        print(f"pair (allowed): {c[0]} <-> {c[1]}")

    long_fns = []
    for t in tags:
        if t["kind"] == "function" and "end" in t:
            n = t["end"] - t["line"] + 1
            if n > MAX_LINES:
                long_fns.append((n, t["path"], t["line"], t["name"]))
    for n, p, line, name in sorted(long_fns, reverse=True):
        bad = 1
        print(f"long function: {p}:{line} {name}: {n} lines")
    longest = max((t["end"] - t["line"] + 1 for t in tags
                   if t["kind"] == "function" and "end" in t), default=0)
    print(f"structure: {len(nodes)} files, {sum(len(e) for e in edges.values())} dependencies, "
          f"{len(circles)} circles of 3 or more, {len(long_fns)} functions over {MAX_LINES} "
          f"lines (longest {longest})")
    return bad


if __name__ == "__main__":
    sys.exit(main())
