"""The manual says only what the code does: every `reduce` subcommand and option that README.md and
docs/*.md name exists in the click command tree, docs/options.md is the text its generator makes
from that tree, and the README's test command is the one CI runs."""
import re
import shlex
from pathlib import Path

import click

from conftest import ROOT
from reducer.cli.main import main
from reducer.cli.reference import reference

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "corpora" / "README.md",
        ROOT / "docs" / "example-run" / "README.md"]

# Options of other tools that the manual names (clang's driver, lld, llvm-extract, llvm-readelf,
# llvm-reduce), each with the tool; any other --name must be an option of a `reduce` command.
FOREIGN = {
    "--offload-arch": "clang", "--offload-device-only": "clang", "--no-gpu-bundle-output": "clang",
    "--offload-new-driver": "clang", "--rocm-path": "clang", "--save-temps": "clang -Xoffload-linker (lld)",
    "--lto-emit-asm": "clang -Xoffload-linker (lld)", "--delete": "llvm-extract", "--notes": "llvm-readelf",
    "--delta-passes": "llvm-reduce", "--skip-delta-passes": "llvm-reduce",
}


def spellings(command: click.Command) -> set[str]:
    ctx = click.Context(command)
    return {s for p in command.get_params(ctx) if isinstance(p, click.Option) for s in (*p.opts, *p.secondary_opts)}


def code_lines(markdown: str) -> list[str]:
    """The lines of fenced blocks (an indented line after a `reduce` line continues it) and the
    inline code spans of the prose, each span on one line."""
    lines: list[str] = []
    fenced, prose = False, []
    for line in markdown.split("\n"):
        if re.fullmatch(r" *```\w*", line):
            fenced = not fenced
        elif not fenced:
            prose.append(line)
        elif lines and "reduce" in lines[-1] and (line.startswith("      ") or lines[-1].endswith("\\")):
            lines[-1] = lines[-1].rstrip("\\") + " " + line.strip()
        else:
            lines.append(line)
    return lines + [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", "\n".join(prose))]


def invocations(line: str) -> list[list[str]]:
    """The arguments of each `reduce` on a line of code, up to `--` (what follows is clang's) and
    without shell comments."""
    line = re.sub(r"(^|\s)#.*", "", line)
    try:
        tokens = shlex.split(line)
    except ValueError:  # an unbalanced quote in a synopsis
        tokens = line.split()
    found = []
    for i, token in enumerate(tokens):
        if token == "reduce" or token.endswith("/reduce"):
            args = []
            for arg in tokens[i + 1:]:
                if arg in ("--", "&&", "|", ";"):
                    break
                args.append(arg)
            found.append(args)
    return found


def named_options(args: list[str]) -> set[str]:
    """The option spellings among a command's arguments: `[--kernel NAME]`, `--a/--b`, `--x=1`."""
    names = set()
    for arg in args:
        arg = arg.strip("[]")
        if arg.startswith("-") and arg != "-":
            names |= {part.split("=")[0] for part in arg.split("/") if part.startswith("-")}
    return names


def test_every_command_and_option_the_docs_name_exists():
    commands = main.commands
    every = set().union(*(spellings(c) for c in commands.values()))
    wrong = []
    for doc in DOCS:
        name = doc.relative_to(ROOT)
        for line in code_lines(doc.read_text()):
            for args in invocations(line):
                first = args[0] if args else ""
                if first == "COMMAND":  # `reduce COMMAND --help`: every command has them
                    targets = list(commands.values())
                elif first in commands:
                    targets = [commands[first]]
                elif re.fullmatch(r"[a-z][a-z-]*", first):
                    wrong.append(f"{name}: `reduce {first}` is no subcommand ({line.strip()})")
                    continue
                else:  # `reduce FILE ...` runs `reduce run`
                    targets = [commands["run"]]
                for option in named_options(args):
                    wrong += [f"{name}: `reduce {t.name}` has no {option} ({line.strip()})"
                              for t in targets if option not in spellings(t)]
        for option in re.findall(r"(?<![\w/.-])--[a-z][\w-]*", doc.read_text()):
            if option not in every and option not in FOREIGN:
                wrong.append(f"{name}: no command has {option}")
    assert not wrong, "\n".join(sorted(set(wrong)))


def test_the_check_sees_a_wrong_name():
    """The parsing above finds what it must: a made-up subcommand and option are caught."""
    assert invocations("reduce bisect FILE") == [["bisect", "FILE"]]
    assert invocations(".venv/bin/reduce x.hip [--jobz N] -- -O2 --offload-arch=gfx950") == [["x.hip", "[--jobz", "N]"]]
    assert named_options(["[--jobz", "N]", "--cache/--no-cache", "--timeout=3"]) == {
        "--jobz", "--cache", "--no-cache", "--timeout"}
    assert "--jobz" not in spellings(main.commands["run"]) and "bisect" not in main.commands
    assert code_lines("text `reduce ir\n--mcpu x` more\n```sh\nreduce explain F [-j N]\n       [--no-dumps]\n```") == [
        "reduce explain F [-j N] [--no-dumps]", "reduce ir --mcpu x"]


def test_usage_names_every_subcommand():
    usage = (ROOT / "docs" / "usage.md").read_text()
    assert [name for name in main.commands if f"reduce {name}" not in usage] == []


def test_options_reference_is_generated_from_the_commands():
    committed = (ROOT / "docs" / "options.md").read_text()
    assert committed == reference(), "regenerate it: python -m reducer.cli.reference > docs/options.md"


def test_readme_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    two = readme.split("\n## Two commands\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", two, re.S).group(1)
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith(("#", "set ", "cd "))]
    assert len(commands) == 2 and commands[1] == ci[-1] == "bash scripts/setup.sh && .venv/bin/pytest -q"
    assert commands[0].startswith("bash scripts/setup.sh && .venv/bin/reduce corpora/wgrad_tiny_pos/repro.hip")
