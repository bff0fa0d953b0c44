#!/usr/bin/env python3
"""Every Swift sample in the DocC articles and the README is code a test compiles.

For each ```swift block of every article (Sources/*/*.docc/*.md, and Backends/*/Sources/*/*.docc/*.md
of the packages beside the library) and of README.md, some Swift file under Tests/ (or Backends/*/Tests/) must hold the block's lines, in order and consecutive, compared without their indentation and
ignoring blank lines, comment-only lines and `import`s (a test file has its own, and may wrap
the sample's declarations in a namespace). A sample that a test does not hold is reported with its article and line,
and the run fails: a renamed API then breaks the build of the test, not the reader's copy.

A block that is not meant to compile (a sketch of a signature) is marked by a first line
`// not compiled: <why>`; the checker lists those so they stay few and deliberate. A package
manifest, or a part of one, is marked by its first line, `// swift-tools-version…` or
`// Package.swift…`: it is Swift that no test target can hold (Tools/docs/check-outside-package.sh
builds the README's whole manifest).
"""
import glob
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
os.chdir(root)


def lines_of(text):
    stripped = (line.strip() for line in text.splitlines())
    return [line for line in stripped
            if line and not line.startswith("//") and not line.startswith("import ")]


tests = []
for path in glob.glob("Tests/**/*.swift", recursive=True) + glob.glob("Backends/*/Tests/**/*.swift", recursive=True):
    with open(path, encoding="utf-8") as handle:
        tests.append((path, lines_of(handle.read())))


def held_by(sample):
    for path, lines in tests:
        first = sample[0]
        for start, line in enumerate(lines):
            if line == first and lines[start:start + len(sample)] == sample:
                return path
    return None


def closest(sample):
    """The test file holding the longest run of the sample's first lines, and where it stops."""
    best = None
    for path, lines in tests:
        for start, line in enumerate(lines):
            if line != sample[0]:
                continue
            matched = 0
            while matched < len(sample) and start + matched < len(lines) and lines[start + matched] == sample[matched]:
                matched += 1
            if best is None or matched > best[1]:
                best = (path, matched)
    return best


missing, exempt, checked = [], [], 0
for article in sorted(glob.glob("Sources/*/*.docc/*.md") + glob.glob("Backends/*/Sources/*/*.docc/*.md")) + ["README.md"]:
    with open(article, encoding="utf-8") as handle:
        text = handle.read()
    for match in re.finditer(r"^```swift\n(.*?)^```", text, re.S | re.M):
        line_number = text.count("\n", 0, match.start()) + 1
        first_line = match.group(1).strip().splitlines()[0] if match.group(1).strip() else ""
        if first_line.startswith(("// not compiled:", "// swift-tools-version", "// Package.swift")):
            exempt.append(f"{article}:{line_number}: {first_line}")
            continue
        sample = lines_of(match.group(1))
        if not sample:
            continue
        checked += 1
        if held_by(sample) is None:
            hint = closest(sample)
            missing.append(f"{article}:{line_number}: the sample starting `{sample[0]}` is in no test under Tests/"
                           + (f" (closest: {hint[0]}, which differs at the sample's `{sample[hint[1]]}`)" if hint else ""))

for line in exempt:
    print("not compiled (by choice):", line)
if missing:
    print("\n".join(missing), file=sys.stderr)
    print(f"{len(missing)} of {checked} samples are compiled by no test; put each in a test verbatim.", file=sys.stderr)
    sys.exit(1)
print(f"All {checked} samples of the articles and the README are held verbatim by tests.")
