"""The variants plugin (tools/variants/Variants.cpp, built by scripts/setup.sh): one device front
end that writes its bitcode for several code-generation settings, for the confirmation of a kept
candidate.

A confirmation builds the candidate with the UB guard's sanitizer checks and with each
-ftrivial-auto-var-init mode of the init guard. Those settings change what IRGen emits, not what
Sema decides, but each build parsed and instantiated the file again: on composable_kernel a front
end is 12 s, 9 of them Sema, and the three builds' front ends took 40 s where one run with the
plugin takes 17 s. `Compiler.front_end_variants` runs it; the oracle uses it only once the
original's variants are byte for byte the front ends run with the flags themselves
(interestingness/oracle/spill.py).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from interestingness.base.plugins import TOOLS, built
from interestingness.base.plugins import PluginMissing as PluginMissing  # what `plugin` raises

PLUGIN_SOURCE = TOOLS / "variants" / "Variants.cpp"
PLUGIN = TOOLS / "variants" / "build" / "variants.so"


def plugin() -> Path:
    """The built plugin; PluginMissing when it is missing or stale."""
    return built("variants", PLUGIN, PLUGIN_SOURCE)


def available() -> bool:
    """Whether the plugin is built and current (a run resumed on another machine may lack it)."""
    try:
        plugin()
    except PluginMissing:
        return False
    return True


def version() -> str:
    """Part of the identity of an oracle that confirms this way."""
    return "variants/" + hashlib.sha256(PLUGIN_SOURCE.read_bytes()).hexdigest()[:12]


def init_setting(mode: str) -> str:
    return f"init={mode}"


def sanitize_setting(checks: tuple[str, ...]) -> str:
    return "sanitize=" + ",".join(checks)
