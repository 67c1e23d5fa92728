"""Record the verdicts of the compatibility corpus (tests/compat/cases/) from hotato 1.x and now.

    python scripts/compat_record.py --hotato-1x /tmp/h1x/bin/hotato   # both; keeps reasons
    python scripts/compat_record.py                                   # now only

hotato 1.x is installed on its own, outside the repository (`python3 -m venv /tmp/h1x &&
/tmp/h1x/bin/pip install hotato==1.20.0`); nothing of it is kept here but the verdicts it gave.
Each case's expected.json holds:

    {"exit_code": N, "results": {id: STATUS}, "success_passed": bool (test runs),
     "hotato_1x": {"exit_code": N, "results": {id: STATUS}, "success_passed": bool},
     "differences": {id or "exit_code": "why the verdict differs on purpose"}}

A difference found without a reason is printed and recorded as "TODO": the test fails until
someone writes why (docs/compatibility.md lists every one).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

CASES = Path(__file__).resolve().parent.parent / "tests" / "compat" / "cases"


def verdicts(cmd: list[str], folder: Path, argv: list[str]) -> dict[str, Any]:
    ran = subprocess.run([*cmd, *argv], cwd=folder, capture_output=True, text=True, check=False)
    out: dict[str, Any] = {"exit_code": ran.returncode, "results": {}}
    try:
        doc = json.loads(ran.stdout) if ran.stdout.strip() else {}
    except json.JSONDecodeError:
        doc = {}
    if not isinstance(doc, dict):
        return out
    results = doc.get("results")
    if results is None and isinstance(doc.get("assertions"), dict):
        results = doc["assertions"].get("results")
    for r in results or []:
        out["results"][r["id"]] = r["status"] + (" skipped" if r.get("skipped") else "")
    rubric = doc.get("rubric")
    for r in rubric.get("results", []) if isinstance(rubric, dict) else []:
        out["results"][r["id"]] = r["status"]
    if isinstance(doc.get("success"), dict) and "passed" in doc["success"]:
        out["success_passed"] = doc["success"]["passed"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hotato-1x", help="the hotato 1.x executable to ask")
    args = parser.parse_args()
    now = [sys.executable, "-m", "hotato"]
    todo = 0
    for folder in sorted(p for p in CASES.iterdir() if (p / "case.json").exists()):
        case = json.loads((folder / "case.json").read_text())
        path = folder / "expected.json"
        old = json.loads(path.read_text()) if path.exists() else {}
        doc = verdicts(now, folder, case["argv"])
        doc["hotato_1x"] = (
            verdicts([args.hotato_1x], folder, case["argv"]) if args.hotato_1x else old["hotato_1x"]
        )
        reasons = old.get("differences", {})
        then = doc["hotato_1x"]
        differing = [i for i in doc["results"] if then["results"].get(i) != doc["results"][i]]
        differing += [i for i in then["results"] if i not in doc["results"]]
        if then["exit_code"] != doc["exit_code"]:
            differing.append("exit_code")
        if then.get("success_passed") != doc.get("success_passed"):
            differing.append("success_passed")
        doc["differences"] = {i: reasons.get(i, "TODO") for i in dict.fromkeys(differing)}
        for i, why in doc["differences"].items():
            if why == "TODO":
                todo += 1
                print(
                    f"{folder.name}: {i}: 1.x {then['results'].get(i, then.get(i))} "
                    f"now {doc['results'].get(i, doc.get(i))}: no reason recorded"
                )
        path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return 1 if todo else 0


if __name__ == "__main__":
    raise SystemExit(main())
