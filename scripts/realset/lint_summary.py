"""Runs `schemalens lint M --provider all --format json --mode MODE` on every manifest given
(files or folders of `*.json`, not `*.cases.json`) and prints, per mode and provider, how many
tools' tailored schemas lint accepts, with every tool it still rejects.
Usage: lint_summary.py SCHEMALENS_BINARY PATH..."""

import collections
import json
import subprocess
import sys
from pathlib import Path


def manifests(paths):
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(q for q in p.glob("*.json") if not q.name.endswith(".cases.json"))
        else:
            yield p


def main(binary, paths):
    files = list(manifests(paths))
    for mode in ("flat", "inline"):
        accepted, total = collections.Counter(), collections.Counter()
        rejected = collections.defaultdict(list)
        for path in files:
            run = subprocess.run(
                [binary, "lint", str(path), "--provider", "all", "--format", "json", "--mode", mode],
                capture_output=True,
                text=True,
            )
            try:
                report = json.loads(run.stdout)
            except json.JSONDecodeError:
                print(f"{mode} {path.name}: no report (exit {run.returncode}): {run.stderr[-300:]}")
                continue
            for row in report["summary"]:
                total[row["provider"]] += 1
                if str(row["tailored"]).startswith("accepted"):
                    accepted[row["provider"]] += 1
                else:
                    rejected[row["provider"]].append(f"{path.stem}/{row['tool']}")
        for provider in sorted(total):
            print(f"{mode:6} {provider:18} {accepted[provider]:4}/{total[provider]} tailored accepted by lint")
            for tool in rejected[provider]:
                print(f"         rejected: {tool}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
