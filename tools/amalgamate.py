#!/usr/bin/env python3
"""Generate single_include/dimgraph.hpp from include/dimgraph.hpp.

Every `#include <...>` or `#include "..."` that resolves to a file under include/ is inlined
in place, exactly once (as `#pragma once` would do); the `#pragma once` lines of inlined
headers are dropped and one is kept at the top. Every other include (standard library,
Boost) stays an ordinary `#include` at its first unconditional place (later repeats are
dropped; includes under `#if` are all kept). A library header included under `#if` would
make the result depend on the configuration, so it is an error. The output depends only on
the headers, so it can be committed and checked for freshness:

    python3 tools/amalgamate.py            # (re)write single_include/dimgraph.hpp
    python3 tools/amalgamate.py --check    # exit 1 if the committed file is stale
"""

import argparse
import difflib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDE_DIR = ROOT / "include"
ENTRY = INCLUDE_DIR / "dimgraph.hpp"
OUTPUT = ROOT / "single_include" / "dimgraph.hpp"

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
PRAGMA_ONCE_RE = re.compile(r"^\s*#\s*pragma\s+once\b")
IF_RE = re.compile(r"^\s*#\s*if(n?def)?\b")
ENDIF_RE = re.compile(r"^\s*#\s*endif\b")


def read_version():
    text = (INCLUDE_DIR / "dimgraph" / "version.hpp").read_text(encoding="utf-8")
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        match = re.search(rf"#define DIMGRAPH_VERSION_{part} (\d+)", text)
        if not match:
            sys.exit(f"amalgamate.py: DIMGRAPH_VERSION_{part} not found in version.hpp")
        parts.append(match.group(1))
    return ".".join(parts)


def resolve(name, delimiter, including_file):
    """The file under include/ that an include names, or None for an external header."""
    candidates = [INCLUDE_DIR / name]
    if delimiter == '"':
        candidates.insert(0, including_file.parent / name)
    for candidate in candidates:
        candidate = candidate.resolve()
        if candidate.is_file() and INCLUDE_DIR in candidate.parents:
            return candidate
    if name.startswith("dimgraph/") or name == "dimgraph.hpp":
        sys.exit(f"amalgamate.py: {including_file.relative_to(ROOT)}: cannot find {name}")
    return None


class Amalgamator:
    def __init__(self):
        self.inlined = set()  # headers of the library already inlined
        self.external = set()  # external headers already included unconditionally
        self.lines = []

    def inline(self, path):
        if path in self.inlined:
            return
        self.inlined.add(path)
        relative = path.relative_to(INCLUDE_DIR).as_posix()
        self.lines.append(f"// ---- begin {relative}")
        depth = 0  # nesting of #if blocks
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if PRAGMA_ONCE_RE.match(line):
                continue
            if IF_RE.match(line):
                depth += 1
            elif ENDIF_RE.match(line):
                depth -= 1
            match = INCLUDE_RE.match(line)
            if match:
                delimiter, name = match.groups()
                target = resolve(name, delimiter, path)
                if target is not None:
                    if depth > 0:
                        sys.exit(f"amalgamate.py: include/{relative}:{number}: {name} is "
                                 "included under #if; include it unconditionally")
                    self.inline(target)
                    continue
                if depth == 0:  # an include under #if is always kept
                    if (delimiter, name) in self.external:
                        continue
                    self.external.add((delimiter, name))
            self.lines.append(line.rstrip())
        self.lines.append(f"// ---- end {relative}")


def generate():
    version = read_version()
    amalgamator = Amalgamator()
    amalgamator.inline(ENTRY.resolve())
    banner = [
        f"// dimgraph {version}: single-header distribution, generated from include/dimgraph.hpp",
        "// by tools/amalgamate.py. Do not edit: change include/ and run the script again.",
        "// Needs the Boost headers (Boost.Hana) on the include path.",
        "// Distributed under the Boost Software License, Version 1.0 (see LICENSE).",
        "#pragma once",
        "",
    ]
    return "\n".join(banner + amalgamator.lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if single_include/dimgraph.hpp is stale")
    args = parser.parse_args()

    text = generate()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.is_file() else ""
        if current != text:
            diff = difflib.unified_diff(current.splitlines(), text.splitlines(),
                                        "committed", "generated", lineterm="", n=1)
            for line in list(diff)[:40]:
                print(line)
            print(f"{OUTPUT.relative_to(ROOT)} is stale: run python3 tools/amalgamate.py",
                  file=sys.stderr)
            return 1
        print(f"{OUTPUT.relative_to(ROOT)} is up to date")
        return 0
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    if not OUTPUT.is_file() or OUTPUT.read_text(encoding="utf-8") != text:
        with open(OUTPUT, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
