#!/usr/bin/env python3
"""Mutation testing for the store contract.

Applies the mutations of mutations.py one at a time (each a bug someone could really write in a
shared building block or a backend), builds, and runs the conformance suite; a mutation that the
suite does not kill is then run against the whole test suite. Prints a table and the score:
killed / (mutations that built and are not marked equivalent).

    python3 Tools/mutation-testing/mutate.py            # every mutation (about 1-2 minutes each)
    python3 Tools/mutation-testing/mutate.py --quick    # the quick subset
    python3 Tools/mutation-testing/mutate.py T03 H01    # these mutations
    python3 Tools/mutation-testing/mutate.py --check    # only check that every mutation still applies
    python3 Tools/mutation-testing/mutate.py --guards   # how many conformance cases kill each mutation

`--guards` runs the whole conformance suite of every backend under each mutation (no early stop)
and counts the distinct cases (area/name) that fail: a behaviour whose mutation exactly one case
kills is guarded by one case only, and the report names it, so that a second case can be written.

It builds in its own folder (.build-mutation) and always restores the mutated file. Uses only
Python's standard library and the Swift toolchain.
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutations import MUTATIONS, QUICK  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRATCH = os.path.join(ROOT, ".build-mutation")
# The conformance run that goes first for a mutation of each area.
FIRST_RUN = {"json": "jsonStoreConformance", "files": "jsonStoreConformance", "log": "logStoreConformance"}
# The whole suite for survivors, as CI runs it but with fewer concurrent saves.
SUITE_ENV = {"CONCURRENCY_SAVES": "50"}
# Every test command runs the full tests (StoreTestSupport's FullTestRun), as CI does: the
# stress, power-loss and damaged-file harnesses kill mutations the quick run would let live.
FULL_TESTS = {"DATASTORES_FULL_TESTS": "1"}


def run(arguments, timeout, env=None):
    """Runs a command in the package; returns (passed, seconds, tail of its output)."""
    start = time.time()
    try:
        done = subprocess.run(arguments, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **FULL_TESTS, **(env or {})})
        output = done.stdout + done.stderr
        return done.returncode == 0, time.time() - start, output
    except subprocess.TimeoutExpired:
        return False, time.time() - start, "timed out (a hang counts as killed)"


def failing_tests(output):
    """The names of the failing tests in swift test's output, for the table."""
    names = []
    for line in output.splitlines():
        if "✘ Test" in line and "failed after" in line:
            name = line.split("✘ Test", 1)[1].split(" failed after")[0].strip()
            name = name.split(" with ")[0]
            if name not in names:
                names.append(name)
    return names


def failing_cases(output):
    """The distinct conformance cases (area/name) that failed on any backend in swift test's output."""
    cases = set()
    for line in output.splitlines():
        if line.startswith("✘") and "argument check → " in line:
            # A case's description (area/name) has no space; what follows is " to …" or " at …".
            cases.add(line.split("argument check → ", 1)[1].split()[0])
    return cases


def guards(mutations):
    """For each mutation, the conformance cases that kill it; lists the behaviours guarded by one case."""
    rows = []
    for mutation in mutations:
        if mutation.get("equivalent"):
            continue
        path, original, _ = locate(mutation)
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(original.replace(mutation["find"], mutation["replace"], 1))
            built, _, output = run(["swift", "build", "--build-tests", "--scratch-path", SCRATCH], 1800)
            if not built:
                cases = None
            else:
                _, _, output = run(["swift", "test", "--skip-build", "--scratch-path", SCRATCH, "--filter", "Conformance"],
                                   1800, SUITE_ENV)
                cases = failing_cases(output)
        finally:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(original)
        rows.append((mutation, cases))
        count = "did not build" if cases is None else f"{len(cases)} cases"
        print(f'{mutation["id"]:5} {count:14} {mutation["what"]}', flush=True)
    single = [(m, c) for m, c in rows if c is not None and len(c) == 1]
    none = [m for m, c in rows if c is not None and not c]
    print(f"\n{len(rows)} mutations: {len(single)} killed by exactly one conformance case, "
          f"{len(none)} by none (caught by other tests or surviving).")
    if single:
        print("\nGuarded by one case only:\n| id | mutation | the one case |\n|---|---|---|")
        for mutation, cases in single:
            print(f'| {mutation["id"]} | {mutation["what"]} | {next(iter(cases))} |')
    return 0


def confirm_on_original(failing):
    """The first test that failed under a mutation and passes on the unmutated code (a kill),
    or None when each of them fails without the mutation too (a slow machine, a flaky test)."""
    if not failing:
        return "a crash or a hang"
    built, _, _ = run(["swift", "build", "--build-tests", "--scratch-path", SCRATCH], 1800)
    for name in failing[:5]:
        passed, _, _ = run(["swift", "test", "--skip-build", "--scratch-path", SCRATCH, "--filter", name.split("(")[0].strip('"')],
                           1800, SUITE_ENV)
        if built and passed:
            return name
    return None


def locate(mutation):
    path = os.path.join(ROOT, mutation["file"])
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return path, text, text.count(mutation["find"])


def main(arguments):
    # A stopped run still restores the mutated file (the `finally` below runs on SystemExit).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    check_only = "--check" in arguments
    chosen = [a for a in arguments if not a.startswith("--")]
    mutations = [m for m in MUTATIONS if (not chosen or m["id"] in chosen) and ("--quick" not in arguments or m["id"] in QUICK)]
    stale = []
    for mutation in mutations:
        _, _, count = locate(mutation)
        if count != 1:
            stale.append(f'{mutation["id"]}: its text occurs {count} times in {mutation["file"]}')
    if stale:
        print("Mutations that no longer apply (update mutations.py):\n  " + "\n  ".join(stale))
        return 2
    if check_only:
        print(f"{len(mutations)} mutations apply.")
        return 0
    if "--guards" in arguments:
        return guards(mutations)

    print(f"Baseline build and conformance run in {SCRATCH} ...", flush=True)
    built, _, output = run(["swift", "build", "--build-tests", "--scratch-path", SCRATCH], 1800)
    if not built:
        print(output[-3000:])
        return 2
    passed, _, output = run(["swift", "test", "--skip-build", "--scratch-path", SCRATCH, "--filter", "Conformance"], 1200)
    if not passed:
        print("The unmutated code fails the conformance suite:\n" + output[-3000:])
        return 2

    rows = []
    for mutation in mutations:
        path, original, _ = locate(mutation)
        try:
            if mutation.get("equivalent"):
                rows.append((mutation, "equivalent", mutation["equivalent"]))
                print(f'{mutation["id"]:5} equivalent    {mutation["what"]}', flush=True)
                continue
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(original.replace(mutation["find"], mutation["replace"], 1))
            built, _, output = run(["swift", "build", "--build-tests", "--scratch-path", SCRATCH], 1800)
            if not built:
                verdict, by = "did not build", ""
            else:
                # The mutated backend's own conformance run first (the memory store's for shared
                # code): it is quick and catches most bugs.
                first = FIRST_RUN.get(mutation["area"], "memoryStoreConformance")
                passed, _, output = run(["swift", "test", "--skip-build", "--scratch-path", SCRATCH, "--filter", first], 900)
                if passed:
                    passed, _, output = run(["swift", "test", "--skip-build", "--scratch-path", SCRATCH, "--filter", "Conformance"], 900)
                if not passed:
                    verdict, by = "killed", "conformance: " + ", ".join(failing_tests(output)[:3])
                else:
                    passed, _, output = run(["swift", "test", "--skip-build", "--scratch-path", SCRATCH], 1800, SUITE_ENV)
                    failing = failing_tests(output)
                    verdict, by = ("survived", "") if passed else ("killed", "tests: " + ", ".join(failing[:3]))
        finally:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(original)
        if verdict == "killed" and by.startswith("tests: "):
            # A test that also fails without the mutation (a slow machine, a flaky test) kills nothing.
            confirmed = confirm_on_original(failing)
            if confirmed:
                by = "tests: " + confirmed
            else:
                verdict, by = "survived", "only tests that fail without it too: " + ", ".join(failing[:3])
        rows.append((mutation, verdict, by))
        print(f'{mutation["id"]:5} {verdict:13} {mutation["what"]}' + (f"  [{by}]" if by else ""), flush=True)

    print("\n| id | area | mutation | verdict | caught by |\n|---|---|---|---|---|")
    for mutation, verdict, by in rows:
        print(f'| {mutation["id"]} | {mutation["area"]} | {mutation["what"]} | {verdict} | {by} |')
    scored = [r for r in rows if r[1] in ("killed", "survived")]
    killed = sum(1 for r in scored if r[1] == "killed")
    by_conformance = sum(1 for r in scored if r[1] == "killed" and r[2].startswith("conformance"))
    equivalent = sum(1 for r in rows if r[1] == "equivalent")
    unbuilt = sum(1 for r in rows if r[1] == "did not build")
    score = 100.0 * killed / len(scored) if scored else 0.0
    print(f"\nMutation score: {killed}/{len(scored)} killed ({score:.1f}%), {by_conformance} by the conformance suite; "
          f"{equivalent} equivalent, {unbuilt} did not build.")
    return 0 if killed == len(scored) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
