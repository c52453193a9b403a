"""Every problem ``code`` the code base can raise, read from the source (``ast``), not
from a list kept by hand: the ``code=`` of every call, the second argument of
``ApiProblem`` / ``problem_response``, the ``code`` class attribute of error classes,
and the code tables (``pending_moves``, ``NOT_NOW``, ``HTTP_CODES``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "service")
#: Calls whose second positional argument is a code.
PROBLEM_CALLS = {"ApiProblem", "SessionProblem", "problem_response", "problem_body"}
#: The callees that take a problem code: error classes and the problem helpers.
ERROR_CALL = re.compile(r"^(\w*Error|\w*Problem|Invalid\w+|Unknown\w+|problem_\w+|get)$")
#: Module or class level tables whose values hold codes.
CODE_TABLES = {"NOT_NOW", "HTTP_CODES", "pending_moves"}


@dataclass(frozen=True)
class Site:
    code: str
    where: str  # path:line


@dataclass(frozen=True)
class Opaque:
    """A ``code=`` whose value is not a literal (it must pass a code through)."""

    source: str
    where: str


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _strings(node: ast.AST) -> Iterator[ast.Constant]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub


def _table_codes(value: ast.expr) -> Iterator[ast.Constant]:
    """Codes in a table literal: dict values (a string, or a tuple's last string)."""
    if not isinstance(value, ast.Dict):
        return
    for v in value.values:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            yield v
        elif isinstance(v, ast.Tuple) and v.elts:
            last = v.elts[-1]
            if isinstance(last, ast.Constant) and isinstance(last.value, str):
                yield last


def scan(root: Path = ROOT) -> tuple[list[Site], list[Opaque]]:
    sites: list[Site] = []
    opaque: list[Opaque] = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            tree = ast.parse(path.read_text(), rel)
            for node in ast.walk(tree):
                at = f"{rel}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Call) and ERROR_CALL.match(_name(node.func)):
                    for kw in node.keywords:
                        if kw.arg != "code":
                            continue
                        if isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                            sites.append(Site(kw.value.value, at))
                        else:
                            opaque.append(Opaque(ast.unparse(kw.value), at))
                    if _name(node.func) in PROBLEM_CALLS and len(node.args) >= 2:
                        arg = node.args[1]
                        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                            sites.append(Site(arg.value, at))
                        else:
                            opaque.append(Opaque(ast.unparse(arg), at))
                    # ``HTTP_CODES.get(status, "default")``: the default is a code too.
                    if (
                        isinstance(node.func, ast.Attribute)
                        and node.func.attr == "get"
                        and _name(node.func.value) in CODE_TABLES
                        and len(node.args) == 2
                    ):
                        sites.extend(Site(str(s.value), at) for s in _strings(node.args[1]))
                elif isinstance(node, ast.ClassDef):
                    for stmt in node.body:
                        target = value = None
                        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                            target, value = stmt.targets[0], stmt.value
                        elif isinstance(stmt, ast.AnnAssign):
                            target, value = stmt.target, stmt.value
                        if target is None or value is None:
                            continue
                        name = _name(target)
                        if name == "code" and isinstance(value, ast.Constant):
                            sites.append(Site(str(value.value), f"{rel}:{stmt.lineno}"))
                        elif name in CODE_TABLES:
                            sites.extend(
                                Site(str(c.value), f"{rel}:{c.lineno}") for c in _table_codes(value)
                            )
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if node.value is not None and any(_name(t) in CODE_TABLES for t in targets):
                        sites.extend(
                            Site(str(c.value), f"{rel}:{c.lineno}")
                            for c in _table_codes(node.value)
                        )
    return sites, opaque


def raised_codes() -> set[str]:
    return {s.code for s in scan()[0]}


if __name__ == "__main__":
    found, unread = scan()
    for code in sorted({s.code for s in found}):
        print(code)
    for o in unread:
        print("opaque:", o)
