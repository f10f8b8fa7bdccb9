"""The layers stay layers. reducer/ and interestingness/ are made of parts, each a sub-package
whose __init__ says what it owns and may import; a part imports only the parts below it:

    interestingness.base     a candidate (the file-set bundle, path flags), the verdict, process
    interestingness.measure  metrics and predicates
    interestingness.compiler both sides of a candidate built: sides, toolchain, HIP headers, compile
    interestingness.oracle   the spill, script and IR oracles, their guards
    interestingness.tools    `reduce check`, `reduce explain`, a run's oracle
    reducer.text      the file as text: parse, tokens, edits, subjects, the values service
    reducer.passes    what to try: items of edits, one module a pass
    reducer.engine    the search: engine, schedule, evaluator, verdicts, cache, limits
    reducer.ir        `reduce ir`'s pipeline          reducer.run   runs, work directory, reports
    reducer.cli       the commands

reducer/text and the engine see of interestingness/ its base only. Within the engine, the engine
module reads no files, knows no oracle and reaches verdicts through the evaluator alone, and the
schedule decides from the passes alone. Within reducer/passes, no pass module imports another:
what passes share is in helper modules (base, cxx, names, folding, consteval, literals, hygiene),
and only the registry imports the passes. No import circle anywhere. An `ast` walk over every
module, imports resolved to absolute names."""
import ast
import graphlib
from pathlib import Path

from conftest import ROOT

# each part, lowest first, with the parts it may import besides itself (and the standard library)
ORACLES = ("interestingness.tools", "interestingness.oracle", "interestingness.compiler",
           "interestingness.measure", "interestingness.base")
LAYERS = {
    "interestingness.base": (),
    "interestingness.measure": ORACLES[4:],
    "interestingness.compiler": ORACLES[3:],
    "interestingness.oracle": ORACLES[2:],
    "interestingness.tools": ORACLES[1:],
    "reducer.text": ("interestingness.base",),
    "reducer.passes": ("reducer.text",),
    "reducer.engine": ("reducer.passes", "reducer.text", "interestingness.base"),
    "reducer.ir": ("reducer.engine", "reducer.text", *ORACLES),
    "reducer.run": ("reducer.engine", "reducer.passes", "reducer.text", *ORACLES),
    "reducer.cli": ("reducer.run", "reducer.ir", "reducer.engine", "reducer.passes", "reducer.text", *ORACLES),
}
# (modules the rule applies to, imported modules it forbids), by dotted prefix: finer rules within a part
RULES = [
    ("reducer.engine.engine", ("interestingness", "reducer.text.files", "reducer.engine.cache",
                               "reducer.engine.verdicts", "reducer.engine.pool", "reducer.engine.journal")),
    ("reducer.engine.schedule", ("interestingness", "reducer.engine.evaluate", "reducer.engine.engine",
                                 "reducer.engine.cache")),
]


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def part_of(module: str) -> str | None:
    return next((part for part in LAYERS if under(module, part)), None)


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
    """The imports of `module` that cross its layer: into a part it may not import, or, within a
    part, into a module a finer rule forbids."""
    own = part_of(module)
    found = []
    for name in sorted(imported):
        part = part_of(name)
        if own is not None and part not in (None, own, *LAYERS[own]):
            found.append(f"{module} imports {name} ({own} may not import {part})")
        found += [f"{module} imports {name}" for scope, forbidden in RULES if under(module, scope)
                  for prefix in forbidden if under(name, prefix)]
    return found


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
    def crosses(source: str, module: str, is_package: bool = False) -> bool:
        return bool(violations(module, imports(source, module, is_package)))

    assert crosses("from ..engine.evaluate import Evaluator\n", "reducer.passes.x")
    assert crosses("from ..engine.cache import VerdictCache\n", "reducer.passes", True)
    assert crosses("from ..run.exits import RunError\n", "reducer.text.subject")
    assert crosses("from ..run import workdir\n", "reducer.engine.verdicts")
    assert crosses("from ..cli import main\n", "reducer.run.session")
    assert crosses("from ..ir.reduce import run\n", "reducer.run.session")
    assert crosses("from interestingness.base import bundle\n", "reducer.engine.engine")
    assert crosses("from .evaluate import Evaluator\n", "reducer.engine.schedule")
    assert crosses("import reducer.text.lexer\n", "interestingness.oracle.spill")
    assert crosses("from ..oracle.spill import SpillSetup\n", "interestingness.compiler.compile")
    assert crosses("from interestingness.tools import oracles\n", "interestingness.oracle", True)
    assert crosses("from interestingness.oracle.spill import SpillSetup\n", "reducer.engine.evaluate")
    assert crosses("from interestingness.compiler.compile import LTO\n", "reducer.text.subject")
    assert not crosses("from ..text.edits import Edit\nfrom .base import Pass\n", "reducer.passes.x")
    assert not crosses("from .. import passes\n", "reducer.engine.schedule")
    assert not crosses("from interestingness.tools import oracles\nfrom ..engine import stopping\n",
                       "reducer.run.session")
    assert not crosses("from ..measure.metrics import Summary\nfrom ..base import bundle\n",
                       "interestingness.compiler.compile")


def module_imports() -> dict[str, set[str]]:
    """Every module of the two packages, with the modules of the two packages it imports."""
    found = {}
    for package in ("reducer", "interestingness"):
        for path in sorted((ROOT / package).rglob("*.py")):
            module = module_name(path)
            found[module] = imports(path.read_text(), module, path.name == "__init__.py")
    return {m: {i for i in imported if i in found and i != m} for m, imported in found.items()}


def test_every_part_says_what_it_owns_and_may_import():
    for part in LAYERS:
        doc = ast.get_docstring(ast.parse((ROOT / part.replace(".", "/") / "__init__.py").read_text()))
        assert doc and "May import" in doc, part
    for package in ("reducer", "interestingness"):
        assert not [p.name for p in (ROOT / package).glob("*.py") if p.name != "__init__.py"], \
            f"a module of {package}/ outside the parts"


def test_no_import_circle():
    graph = module_imports()
    assert len(graph) > 40
    graphlib.TopologicalSorter(graph).prepare()  # CycleError names the circle


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
