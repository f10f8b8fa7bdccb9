"""The clang plugins this project builds (tools/footprint, tools/variants; scripts/setup.sh runs
their make): where each is, and an error that names the setup command when one is missing or
older than its source, since clang would otherwise load a stale one or fail without saying why."""
from __future__ import annotations

from pathlib import Path

SETUP = "bash scripts/setup.sh"
TOOLS = Path(__file__).resolve().parents[2] / "tools"


class PluginMissing(RuntimeError):
    """A plugin is not built, or is older than its source."""


def built(name: str, library: Path, source: Path) -> Path:
    """`library`, the built plugin `name`; PluginMissing when it is missing or older than `source`."""
    if not library.is_file():
        raise PluginMissing(f"the {name} plugin is not built ({library}): run `{SETUP}`")
    if library.stat().st_mtime < source.stat().st_mtime:
        raise PluginMissing(f"the {name} plugin is older than {source.name}: run `{SETUP}` to rebuild it")
    return library
