"""Print a pip constraints file pinning every direct dependency of cardgen (the run-time ones,
the `test` extra and what building it requires, `[build-system] requires`) at the lower bound
its range in pyproject.toml allows.

CI installs with it into a second fresh virtual environment and runs the whole suite there,
so the lower end of every range is a tested promise, not a guess. The same file is given to
pip as `--build-constraint`, so that install builds cardgen with the oldest setuptools allowed.
"""

import re
import sys
import tomllib
from pathlib import Path

pyproject = tomllib.loads(Path(sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml").read_text())
project = pyproject["project"]
requirements = [*project["dependencies"], *project["optional-dependencies"]["test"],
                *pyproject["build-system"]["requires"]]
for requirement in requirements:
    match = re.fullmatch(r"([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*(.*)", requirement.strip())
    if not match:
        sys.exit(f"lowest.py: cannot read the requirement {requirement!r}")
    name, _extras, spec = match.groups()
    lower = re.search(r">=\s*([^,\s;]+)", spec)
    if not lower:
        sys.exit(f"lowest.py: {name} has no lower bound (`>=`) in pyproject.toml; give it one")
    print(f"{name}=={lower.group(1)}")
