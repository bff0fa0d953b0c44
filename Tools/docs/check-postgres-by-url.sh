#!/usr/bin/env bash
# Checks what the README promises an app that depends on this repository by URL:
#   - with only DataStores, it resolves, fetches and builds no PostgreSQL package (no postgres-nio,
#     nor what postgres-nio needs: Package.resolved, .build/checkouts and .build/repositories hold
#     this repository alone);
#   - with the README's `traits: ["PostgreSQL"]` line, it builds and runs `import PostgresStore`;
#   - this package's own resolution, with no network and no package cache, fetches nothing.
# The repository is this checkout's files as a commit would hold them (tracked and untracked, less
# what git ignores), committed into a temporary git repository that the apps name by a file:// URL.
# Each source file of PostgresStore must sit inside `#if PostgreSQL` (see Package.swift).
#
#   bash Tools/docs/check-postgres-by-url.sh [--keep]    # --keep: leave the folder, and say where
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$SECONDS
work=$(mktemp -d)
if [ "${1:-}" = "--keep" ]; then echo "check-postgres-by-url: $work"; else trap 'rm -rf "$work"' EXIT; fi
fail() { echo "check-postgres-by-url: $*" >&2; exit 1; }

# Without the trait the PostgresStore target is still built, by this package's `swift build`.
for file in Backends/PostgresStore/Sources/PostgresStore/*.swift; do
    head -1 "$file" | grep -q "^#if PostgreSQL\b" && [ "$(tail -1 "$file")" = "#endif" ] \
        || fail "$file must start with '#if PostgreSQL' and end with '#endif': without the trait, postgres-nio is not there to import"
done

# The repository, as an app's `.package(url:)` finds it (a branch: the model macros' toolchain
# SwiftSyntax flags are allowed in a branch dependency, not in a version's).
repo=$work/swift-data-stores
mkdir -p "$repo"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
    if [ -e "$file" ] || [ -L "$file" ]; then cp --parents -P "$file" "$repo"; fi   # less files deleted
done
git -C "$repo" init -q -b main
git -C "$repo" add -A
git -C "$repo" -c user.name=check -c user.email=check@localhost commit -q -m "this checkout"

# The README's lines, with this repository's URL.
line() { # the README's `.package(url:` line that contains $1 (exactly one)
    local found
    found=$(grep -E '^\s*\.package\(url: .*swift-data-stores' README.md | grep -F -- "$1" || true)
    [ "$(printf '%s' "$found" | grep -c .)" = 1 ] || fail "expected one README .package(url:) line with $1, found: $found"
    printf '%s\n' "$found" | sed -E "s#(\),)[[:space:]]*//.*#\1#; s#\"https://[^\"]*swift-data-stores\.git\"#\"file://$repo\"#"
}
app() { # folder, dependency line, products, main.swift
    mkdir -p "$1/Sources/App"
    cat > "$1/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "App", platforms: [.macOS(.v15)],
    dependencies: [$2],
    targets: [.executableTarget(name: "App", dependencies: [$3])]
)
EOF
    printf '%s\n' "$4" > "$1/Sources/App/main.swift"
}
built() { # folder: build and run the app with zero warnings; prints the app's output
    (cd "$1" && swift build > build.log 2>&1) || { cat "$1/build.log"; fail "$1 does not build"; }
    if grep -E "warning:" "$1/build.log" | grep -v "^warning: 'main'" >/dev/null; then
        grep -E "warning:" "$1/build.log" >&2; fail "$1 builds with warnings"
    fi
    "$1/.build/debug/App"
}
only_this_repository() { # folder: what resolution fetched is this repository alone
    local pins
    pins=$(grep -oE '"identity" : "[^"]*"' "$1/Package.resolved" | sed -E 's/.*: "(.*)"/\1/' | tr '\n' ' ')
    [ "$pins" = "swift-data-stores " ] || fail "$1 pins $pins(expected swift-data-stores alone)"
    [ "$(ls "$1/.build/checkouts")" = "swift-data-stores" ] || fail "$1 checked out: $(ls "$1/.build/checkouts" | tr '\n' ' ')"
    [ "$(ls "$1/.build/repositories" | sed 's/-[0-9a-f]*$//')" = "swift-data-stores" ] \
        || fail "$1 fetched: $(ls "$1/.build/repositories" | tr '\n' ' ')"
    ! ls "$1/.build/debug/Modules" | grep -qiE "postgres|^NIO" || fail "$1 built PostgreSQL modules"
}

# 1. Only the embedded stores.
app "$work/plain" "$(line 'branch: "main"),')" '.product(name: "DataStores", package: "swift-data-stores")' \
    'import DataStores
print("DataStores without PostgreSQL")'
built "$work/plain"
only_this_repository "$work/plain"
echo "check-postgres-by-url: an app with DataStores alone resolves and builds no PostgreSQL package ($((SECONDS - started)) s)"

# 2. This package's own resolution (the README's swift build and swift test): nothing to fetch,
# with github.com not rewritten to a local copy, proxies that refuse and an empty package cache.
(cd "$repo" && GIT_CONFIG_NOSYSTEM=1 HTTPS_PROXY=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
    ALL_PROXY=http://127.0.0.1:9 swift package resolve --cache-path "$work/no-cache" > "$work/resolve.log" 2>&1) \
    || { cat "$work/resolve.log"; fail "this package does not resolve without a network"; }
[ ! -e "$repo/Package.resolved" ] && [ -z "$(find "$repo/.build/checkouts" "$repo/.build/repositories" -mindepth 1 -maxdepth 1 2>/dev/null)" ] \
    || fail "this package's own resolution fetched: $(ls -A "$repo/.build/checkouts" 2>/dev/null | tr '\n' ' ')"
echo "check-postgres-by-url: this package resolves nothing, without a network"

# 3. PostgresStore, with the trait.
app "$work/postgres" "$(line 'traits: ["PostgreSQL"]')" \
    '.product(name: "DataStores", package: "swift-data-stores"), .product(name: "PostgresStore", package: "swift-data-stores")' \
    'import DataStores
import PostgresStore
print(PostgresStoreConfiguration(user: "app", password: "secret", database: "trips"))'
output=$(built "$work/postgres")
grep -q "trips" <<<"$output" || fail "the app with PostgresStore printed: $output"
grep -q '"identity" : "postgres-nio"' "$work/postgres/Package.resolved" || fail "the app with the trait did not resolve postgres-nio"
echo "check-postgres-by-url: an app with traits: [\"PostgreSQL\"] builds and runs import PostgresStore ($output)"
echo "check-postgres-by-url: done in $((SECONDS - started)) s"
