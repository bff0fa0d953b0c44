#!/usr/bin/env bash
# Checks what the README's "Writing a backend" tells the author of a backend in a package of its
# own: its Package.swift, as printed there, builds against this package and runs the conformance
# suite. In a temporary folder it puts a copy of this checkout's package under the name
# `swift-data-stores` (a path dependency's identity is its folder's name) and beside it the
# README's package: `Sources/MyStore` holds the article's `TinyStore`, `Tests/MyStoreTests` the
# article's conformance test. Builds with zero warnings and requires every case to pass.
#
#   bash Tools/docs/check-outside-package.sh [--keep]    # --keep: leave the folder, and say where
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
work=$(mktemp -d)
if [ "${1:-}" = "--keep" ]; then echo "outside package: $work/MyStore"; else trap 'rm -rf "$work"' EXIT; fi

mkdir -p "$work/swift-data-stores" "$work/MyStore/Sources/MyStore" "$work/MyStore/Tests/MyStoreTests"
cp -R Package.swift Sources Tests "$work/swift-data-stores/"
# The PostgresStore target's sources (built only with the PostgreSQL trait, which MyStore leaves off).
cp -R --parents Backends/PostgresStore/Sources/PostgresStore "$work/swift-data-stores/"

python3 - "$root" "$work/MyStore" <<'PY'
import re, sys
root, package = sys.argv[1], sys.argv[2]

def blocks(path):
    with open(path, encoding="utf-8") as handle:
        return re.findall(r"^```swift\n(.*?)^```", handle.read(), re.S | re.M)

def the(path, marker):
    found = [block for block in blocks(path) if marker in block]
    if len(found) != 1:
        sys.exit(f"check-outside-package: {len(found)} Swift blocks of {path} contain {marker!r}; expected one")
    return found[0]

manifest = the(f"{root}/README.md", "// swift-tools-version")
article = f"{root}/Sources/StoreProtocol/StoreProtocol.docc/WritingABackend.md"
with open(f"{package}/Package.swift", "w") as out:
    out.write(manifest)
with open(f"{package}/Sources/MyStore/TinyStore.swift", "w") as out:
    out.write(the(article, "final class TinyStore"))
with open(f"{package}/Tests/MyStoreTests/ConformanceTests.swift", "w") as out:
    # The article's test sits beside TinyStore in one target; here the store is the library's.
    out.write("@testable import MyStore\n" + the(article, "let tinyTarget"))
PY

cd "$work/MyStore"
swift build --build-tests 2>&1 | tee build.log
if grep -E "warning:" build.log | grep -v "^warning: 'main'" >/dev/null; then
    echo "check-outside-package: the outside package builds with warnings" >&2
    exit 1
fi
swift test --skip-build 2>&1 | tee test.log | grep -E "✘|test cases|Test run" || true
cases=$(grep -oE "with [0-9]+ test cases passed" test.log | grep -oE "[0-9]+" || true)
if grep -q "✘" test.log || [ -z "$cases" ] || [ "$cases" -lt 1 ]; then
    echo "check-outside-package: the conformance suite did not pass in the outside package" >&2
    exit 1
fi
echo "check-outside-package: the README's Package.swift builds against this checkout; all $cases conformance cases pass"
