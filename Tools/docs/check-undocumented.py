#!/usr/bin/env python3
"""Every public symbol of the library modules has a doc comment.

Reads the symbol graphs that `Tools/docs/build-docs.sh` had the compiler emit
(`.build-docs/symbol-graphs/all`) and lists each public symbol declared in this package without
a doc comment, by module, file and name; the run fails if there is one.

Not counted, because DocC shows the documentation they inherit: members a type inherits from a
protocol's extension (the graph gives them a `sourceOrigin`), and members that implement the
standard library's protocol requirements (`==`, `<`, `hash(into:)`, `description`,
`debugDescription`, `rawValue`, `init(rawValue:)`, `encode(to:)`, `init(from:)`).

    python3 Tools/docs/check-undocumented.py [--list]   # --list: print every one, else the first 60
    python3 Tools/docs/check-undocumented.py --graphs DIR --modules A,B   # another package's graphs
"""
import glob
import json
import os
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
os.chdir(root)
graphs = ".build-docs/symbol-graphs/all"
modules = ["StoreProtocol", "StoreBuildingBlocks", "StoreFiles", "MemoryStore", "JSONStore", "LogStore", "StoreConformance", "StoreSync"]
if "--graphs" in sys.argv:
    graphs = os.path.abspath(os.path.join(os.environ.get("PWD", root), sys.argv[sys.argv.index("--graphs") + 1]))
if "--modules" in sys.argv:
    modules = sys.argv[sys.argv.index("--modules") + 1].split(",")
witnesses = {"==(_:_:)", "<(_:_:)", "hash(into:)", "description", "debugDescription", "rawValue",
             "init(rawValue:)", "encode(to:)", "init(from:)"}

if not os.path.isdir(graphs):
    sys.exit(f"no symbol graphs in {graphs}: run `bash Tools/docs/build-docs.sh` first")

undocumented = []
for module in modules:
    for path in sorted(glob.glob(f"{graphs}/{module}.symbols.json") + glob.glob(f"{graphs}/{module}@*.symbols.json")):
        with open(path, encoding="utf-8") as handle:
            graph = json.load(handle)
        inherited = {r["source"] for r in graph.get("relationships", []) if "sourceOrigin" in r}
        for symbol in graph["symbols"]:
            if symbol["accessLevel"] not in ("public", "open") or "location" not in symbol:
                continue
            if symbol["identifier"]["precise"] in inherited or symbol["pathComponents"][-1] in witnesses:
                continue
            if symbol.get("docComment"):
                continue
            file = symbol["location"]["uri"].split("/Sources/")[-1]
            undocumented.append(f"{module}: {file}: {'.'.join(symbol['pathComponents'])} ({symbol['kind']['displayName']})")

shown = undocumented if "--list" in sys.argv else undocumented[:60]
for line in shown:
    print(line)
if undocumented:
    more = len(undocumented) - len(shown)
    print(f"{len(undocumented)} public symbols have no doc comment" + (f" ({more} more not shown; --list)" if more else "")
          + ": say what each does, what it throws, and its cost where not obvious.", file=sys.stderr)
    sys.exit(1)
print("Every public symbol has a doc comment.")
