#!/usr/bin/env bash
# Builds the DocC documentation of every library module with the toolchain's own `docc` (no
# package plugin needed) and fails on any documentation warning (an unresolved symbol link, a
# parameter without documentation, a catalog page that does not build) and on any public symbol
# without a doc comment (Tools/docs/check-undocumented.py).
#
#   bash Tools/docs/build-docs.sh [OUTPUT]    # default OUTPUT: .build-docs/documentation
#
# Each module's catalog is Sources/<Module>/<Module>.docc; its symbols come from symbol graphs
# the compiler emits while building (`-emit-symbol-graph`).
set -euo pipefail
cd "$(dirname "$0")/../.."

scratch=.build-docs
output=${1:-$scratch/documentation}
graphs=$scratch/symbol-graphs
modules=(StoreProtocol StoreBuildingBlocks StoreFiles MemoryStore JSONStore LogStore StoreConformance DataStores StoreSync)

# The compiler writes a module's graphs only when it compiles the module: keep "all" between runs.
rm -rf "$output" "$graphs"/[A-Z]*
mkdir -p "$graphs/all" "$output"
for module in "${modules[@]}"; do
    swift build --scratch-path "$scratch" --target "$module" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs/all" > "$scratch/build-$module.log" 2>&1 \
        || { cat "$scratch/build-$module.log"; exit 1; }
done

status=0
for module in "${modules[@]}"; do
    # Only this module's graphs (its own symbols and its extensions of other modules' types).
    mkdir -p "$graphs/$module"
    cp "$graphs/all/$module.symbols.json" "$graphs/$module/"
    cp "$graphs/all/$module"@*.symbols.json "$graphs/$module/" 2>/dev/null || true
    log=$scratch/docc-$module.log
    if ! docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "swift-data-stores.$module" \
        --output-path "$output/$module.doccarchive" --warnings-as-errors > "$log" 2>&1; then
        echo "docs: $module has documentation warnings:"
        grep -E 'warning|error' "$log" | head -40
        status=1
    else
        echo "docs: $module built without warnings"
    fi
done
# Every public symbol has a doc comment (DocC itself does not report one that has none).
python3 Tools/docs/check-undocumented.py || status=1
exit $status
