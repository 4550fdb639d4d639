"""The releases of Django and psycopg the hot path is proven on besides the pinned ones: the oldest or the newest
release the package registry offers within the supported ranges of pyproject.toml ([tool.champollion.supported]).

    python scripts/compat_versions.py oldest|newest   # prints pip requirements, one per line

Nothing is printed for a package whose release would be the pinned one (the main suite runs it already)."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
# What a package is installed as: psycopg's compiled implementation is a package of its own, at the same release.
COMPANIONS = {"psycopg": ("psycopg-binary",)}


def registry_versions(package: str) -> list[Version]:
    """Every final release the registry pip uses offers (`pip index versions`)."""
    answer = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package], check=True,
                            capture_output=True, text=True).stdout
    listed = re.search(r"Available versions: (.*)", answer)
    if listed is None:
        raise SystemExit(f"the registry lists no release of {package}: {answer.strip()}")
    return [version for version in map(Version, listed.group(1).split(", ")) if not version.is_prerelease]


def pinned(project: dict, package: str) -> Version:
    for requirement in project["project"]["dependencies"]:
        match = re.fullmatch(rf"{re.escape(package)}(\[[^\]]*\])?==(.+)", requirement, flags=re.IGNORECASE)
        if match:
            return Version(match.group(2))
    raise SystemExit(f"{package} is not pinned in pyproject.toml's dependencies")


def main() -> None:
    bound = sys.argv[1] if len(sys.argv) == 2 else ""
    if bound not in ("oldest", "newest"):
        raise SystemExit("usage: compat_versions.py oldest|newest")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for package, supported in project["tool"]["champollion"]["supported"].items():
        candidates = sorted(SpecifierSet(supported).filter(registry_versions(package)))
        if not candidates:
            raise SystemExit(f"the registry offers no release of {package} within {supported}")
        chosen = candidates[0] if bound == "oldest" else candidates[-1]
        if chosen == pinned(project, package):
            continue
        for name in (package, *COMPANIONS.get(package, ())):
            print(f"{name}=={chosen}")


if __name__ == "__main__":
    main()
