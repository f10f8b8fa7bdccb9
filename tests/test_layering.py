"""The layers stay layers: oracles know nothing of the reducer, passes only enumerate items (no
evaluator, runs, cache, work directory or oracle), the engine reads no files, knows no oracle
and reaches verdicts through the evaluator alone, and the schedule decides from the passes alone
(no oracle, evaluator, engine or run). Within reducer/passes, no pass module imports another:
what passes share is in helper modules (base, cxx, names, folding, consteval, literals), and only
the registry imports the passes. An `ast` walk over every module of the package, imports
resolved to absolute names."""
import ast
from pathlib import Path

from conftest import ROOT

# (modules the rule applies to, imported modules it forbids), by dotted prefix
RULES = [
    ("interestingness", ("reducer",)),
    ("reducer.passes", ("reducer.evaluate", "reducer.verdicts", "reducer.pool", "reducer.runs", "reducer.cache",
                        "reducer.workdir", "interestingness")),
    ("reducer.engine", ("interestingness", "reducer.runs", "reducer.workdir", "reducer.files", "reducer.cache",
                        "reducer.verdicts", "reducer.pool")),
    ("reducer.schedule", ("interestingness", "reducer.evaluate", "reducer.engine", "reducer.runs", "reducer.cache",
                          "reducer.workdir")),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str, is_package: bool) -> set[str]:
    """Absolute names of the modules `module` imports (`from . import x` gives both the package
    and `package.x`, since x may be a module)."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            found.add(target)
            found |= {f"{target}.{alias.name}" for alias in node.names}
    return found


def violations(module: str, imported: set[str]) -> list[str]:
    def under(name: str, prefix: str) -> bool:
        return name == prefix or name.startswith(prefix + ".")

    return [f"{module} imports {name}" for scope, forbidden in RULES if under(module, scope)
            for name in sorted(imported) for prefix in forbidden if under(name, prefix)]


def pass_modules() -> set[str]:
    """The modules that define the registered passes; every other module of reducer.passes is
    a helper (or the registry itself)."""
    from reducer.passes import REGISTRY

    return {type(p).__module__ for p in REGISTRY.values()}


def pass_imports(module: str, imported: set[str], passes: set[str]) -> list[str]:
    """The pass modules a module of reducer.passes imports, other than itself: the registry
    (reducer.passes) is the only one allowed to."""
    if not module.startswith("reducer.passes."):
        return []
    return [f"{module} imports the pass module {name}" for name in sorted(imported & passes - {module})]


def test_the_checker_sees_relative_and_absolute_imports():
    assert violations("reducer.passes.x", imports("from ..evaluate import Evaluator\n", "reducer.passes.x", False))
    assert violations("reducer.passes", imports("from ..cache import VerdictCache\n", "reducer.passes", True))
    assert violations("reducer.engine", imports("from interestingness import bundle\n", "reducer.engine", False))
    assert violations("reducer.engine", imports("from . import runs\n", "reducer.engine", False))
    assert violations("reducer.schedule", imports("from .evaluate import Evaluator\n", "reducer.schedule", False))
    assert violations("interestingness.spill", imports("import reducer.lexer\n", "interestingness.spill", False))
    assert not violations("reducer.passes.x", imports("from ..edits import Edit\nfrom .base import Pass\n",
                                                      "reducer.passes.x", False))
    assert not violations("reducer.runs", imports("from interestingness import bundle\n", "reducer.runs", False))


def test_no_module_imports_across_its_layer():
    modules = [p for package in ("reducer", "interestingness") for p in sorted((ROOT / package).rglob("*.py"))]
    assert len(modules) > 40
    found = []
    for path in modules:
        module = module_name(path)
        found += violations(module, imports(path.read_text(), module, path.name == "__init__.py"))
    assert found == []


def test_the_checker_sees_a_pass_importing_a_pass():
    passes = {"reducer.passes.aliases", "reducer.passes.constants"}
    assert pass_imports("reducer.passes.constants", imports("from .aliases import uses\n", "reducer.passes.constants",
                                                             False), passes)
    assert pass_imports("reducer.passes.cxx", imports("from . import aliases\n", "reducer.passes.cxx", False), passes)
    assert not pass_imports("reducer.passes.constants", imports("from .names import uses\nfrom .base import Pass\n",
                                                                 "reducer.passes.constants", False), passes)
    assert not pass_imports("reducer.passes", imports("from .aliases import Aliases\n", "reducer.passes", True), passes)


def test_no_pass_module_imports_another():
    passes = pass_modules()
    assert {"reducer.passes.instantiate", "reducer.passes.text", "reducer.passes.balanced"} <= passes
    assert not passes & {"reducer.passes.base", "reducer.passes.cxx", "reducer.passes.names"}
    found = []
    for path in sorted((ROOT / "reducer" / "passes").glob("*.py")):
        module = module_name(path)
        found += pass_imports(module, imports(path.read_text(), module, path.name == "__init__.py"), passes)
    assert found == []
