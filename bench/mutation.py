#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Turn PIT's reports of `make mutation` into bench/results/mutation.json.

    python3 bench/mutation.py [--log build/mutation/pit.log] [--out bench/results/mutation.json]

Reads <module>/target/pit-reports/mutations.xml of hdl-dsl, generators, board-spec and bsp-overlay
and writes, per module, the mutants PIT generated and what became of them, the mutation score, the
verdict against the target and every mutant the tests let live:

    {"pit": {"pitest_maven": V, "junit5_plugin": V, "mutators": [...], "excluded_classes": [...]},
     "date": "YYYY-MM-DD", "target": 0.75, "meets_target": bool,
     "modules": {"<module>": {"generated": N, "killed": N, "survived": N, "no_coverage": N,
                              "timed_out": N, "memory_error": N, "run_error": N, "non_viable": N,
                              "detected": N, "score": 0.xxxx, "meets_target": bool, "seconds": N,
                              "survivors_by_class": {"<class>": N},
                              "surviving": [{"class", "method", "line", "mutator", "description"}],
                              "no_coverage_mutants": [...same fields...]}}}

The score is PIT's mutation score: detected / generated, where detected counts the statuses PIT
itself counts as detected (KILLED, TIMED_OUT, MEMORY_ERROR, RUN_ERROR, NON_VIABLE) and generated
every mutant, NO_COVERAGE ones included. survivors_by_class counts SURVIVED and NO_COVERAGE mutants
(what a new test could still kill), most first. seconds is the module's time in Maven's reactor
summary of the run's log (compiling and PIT together). Exits 1 when a module misses the target.
"""
from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MODULES = ["hdl-dsl", "generators", "board-spec", "bsp-overlay"]
TARGET = 0.75
# PIT's DetectionStatus.isDetected(): the statuses its mutation score counts as killed.
DETECTED = {"KILLED", "TIMED_OUT", "MEMORY_ERROR", "RUN_ERROR", "NON_VIABLE"}
COUNTED = ["KILLED", "SURVIVED", "NO_COVERAGE", "TIMED_OUT", "MEMORY_ERROR", "RUN_ERROR", "NON_VIABLE"]
POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}
# Maven's reactor summary line, e.g. "[INFO] direkt hdl-dsl ...... SUCCESS [02:35 min]" or "[ 41.2 s]".
REACTOR = re.compile(r"\[INFO\] direkt (\S+) \.+ \w+ \[\s*(?:(\d+):(\d+) min|([\d.]+) s)\]")


def pit_config(pom: Path) -> dict:
    """The PIT versions, mutators and exclusions as the root pom pins them."""
    root = ET.parse(pom).getroot()
    for plugin in root.iterfind(".//m:pluginManagement/m:plugins/m:plugin", POM_NS):
        if plugin.findtext("m:artifactId", namespaces=POM_NS) != "pitest-maven":
            continue
        conf = plugin.find("m:configuration", POM_NS)
        runner = plugin.find("m:dependencies/m:dependency[m:artifactId='pitest-junit5-plugin']", POM_NS)
        return {
            "pitest_maven": plugin.findtext("m:version", namespaces=POM_NS),
            "junit5_plugin": runner.findtext("m:version", namespaces=POM_NS),
            "mutators": [e.text for e in conf.iterfind("m:mutators/m:mutator", POM_NS)],
            "excluded_classes": [e.text for e in conf.iterfind("m:excludedClasses/m:param", POM_NS)],
        }
    raise SystemExit(f"mutation: {pom} has no pitest-maven in pluginManagement")


def module_seconds(log: Path) -> dict[str, float]:
    if not log.is_file():
        return {}
    seconds = {}
    for m in REACTOR.finditer(log.read_text(errors="replace")):
        name, mins, secs, plain = m.groups()
        seconds[name] = float(plain) if plain else int(mins) * 60 + int(secs)
    return seconds


def mutant(e: ET.Element) -> dict:
    return {
        "class": e.findtext("mutatedClass"),
        "method": e.findtext("mutatedMethod"),
        "line": int(e.findtext("lineNumber")),
        "mutator": e.findtext("mutator").rsplit(".", 1)[-1],
        "description": e.findtext("description"),
    }


def order(m: dict) -> tuple:
    return m["class"], m["line"], m["method"], m["mutator"], m["description"]


def module_result(xml: Path, seconds: float | None) -> dict:
    mutations = ET.parse(xml).getroot().findall("mutation")
    status = Counter(e.get("status") for e in mutations)
    unknown = set(status) - set(COUNTED)
    if unknown:
        raise SystemExit(f"mutation: {xml} has mutants PIT did not finish ({sorted(unknown)}): run it again")
    generated = len(mutations)
    detected = sum(n for s, n in status.items() if s in DETECTED)
    score = detected / generated if generated else 1.0
    surviving = sorted((mutant(e) for e in mutations if e.get("status") == "SURVIVED"), key=order)
    uncovered = sorted((mutant(e) for e in mutations if e.get("status") == "NO_COVERAGE"), key=order)
    by_class = Counter(m["class"] for m in surviving + uncovered)
    result = {"generated": generated}
    result.update({s.lower(): status.get(s, 0) for s in COUNTED})
    result.update({
        "detected": detected,
        "score": round(score, 4),
        "meets_target": score >= TARGET,
        "seconds": seconds,
        "survivors_by_class": dict(sorted(by_class.items(), key=lambda kv: (-kv[1], kv[0]))),
        "surviving": surviving,
        "no_coverage_mutants": uncovered,
    })
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log", type=Path, default=REPO / "build/mutation/pit.log")
    ap.add_argument("--out", type=Path, default=REPO / "bench/results/mutation.json")
    args = ap.parse_args()

    seconds = module_seconds(args.log)
    modules = {}
    for name in MODULES:
        xml = REPO / name / "target/pit-reports/mutations.xml"
        if not xml.is_file():
            raise SystemExit(f"mutation: {xml} is missing: run make mutation")
        modules[name] = module_result(xml, seconds.get(name))
    result = {
        "pit": pit_config(REPO / "pom.xml"),
        "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        "target": TARGET,
        "score_definition": "detected / generated (PIT's mutation score; NO_COVERAGE counts as not detected)",
        "meets_target": all(m["meets_target"] for m in modules.values()),
        "seconds": sum(m["seconds"] for m in modules.values()) if all(m["seconds"] for m in modules.values()) else None,
        "modules": modules,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")

    for name, m in modules.items():
        verdict = "meets" if m["meets_target"] else "MISSES"
        print(f"mutation: {name:12s} {m['score']:.1%} ({m['detected']}/{m['generated']} detected, "
              f"{m['survived']} survived, {m['no_coverage']} not covered) {verdict} {TARGET:.0%}")
    print(f"mutation: {args.out.relative_to(REPO) if args.out.is_relative_to(REPO) else args.out}: "
          f"{'every module meets' if result['meets_target'] else 'not every module meets'} the target")
    return 0 if result["meets_target"] else 1


if __name__ == "__main__":
    sys.exit(main())
