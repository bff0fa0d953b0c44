#!/usr/bin/env bash
# Builds PostgresStore's DocC documentation and fails on any documentation warning and on any
# public symbol without a doc comment, as Tools/docs/build-docs.sh does for the main package.
#
#   swift build --package-path Backends/PostgresStore    # first: the module this reads
#   bash Backends/PostgresStore/Scripts/build-docs.sh [OUTPUT]
#
# The symbol graph comes from the debug build's module with swift-symbolgraph-extract (no
# rebuild with other flags): it needs the module maps of the C modules the dependencies declare.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
output=${1:-$scratch/PostgresStore.doccarchive}
graphs=$PWD/$scratch/symbol-graphs
rm -rf "$graphs" "$output"
mkdir -p "$graphs"

modules=$(swift build --show-bin-path)/Modules
maps=()
# The model macros' implementation (DataStoresMacroKit) is built twice, for the plugin and for the
# target, each with a module map naming the same module; PostgresStore's interface needs neither.
for map in $(find "$(dirname "$modules")" -maxdepth 3 -name module.modulemap -not -path "*DataStoresMacro*"); do
    maps+=(-Xcc "-fmodule-map-file=$map")
done
for include in $(find .build/checkouts -type d -name include -path "*/Sources/*"); do maps+=(-Xcc "-I$include"); done
swift-symbolgraph-extract -module-name PostgresStore -I "$modules" "${maps[@]}" \
    -target "$(uname -m)-unknown-linux-gnu" -minimum-access-level public -output-dir "$graphs"

status=0
if docc convert Sources/PostgresStore/PostgresStore.docc --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name PostgresStore --fallback-bundle-identifier swift-data-stores.PostgresStore \
    --output-path "$output" --warnings-as-errors > "$scratch/docc.log" 2>&1; then
    echo "docs: PostgresStore built without warnings"
else
    echo "docs: PostgresStore has documentation warnings:"
    grep -E 'warning|error' "$scratch/docc.log" | head -40
    status=1
fi
python3 ../../Tools/docs/check-undocumented.py --graphs "$graphs" --modules PostgresStore || status=1
exit $status
