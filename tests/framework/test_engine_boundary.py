"""The engine never imports Django: it must stay usable as a plain library and CLI."""

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "framework"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_module_under_framework_imports_django():
    offenders = {
        str(path.relative_to(ENGINE.parent)): sorted(
            m for m in imported_modules(path) if m.split(".")[0] in {"django", "playground"}
        )
        for path in ENGINE.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_boundary_check_sees_the_engine():
    assert len(list(ENGINE.rglob("*.py"))) > 10
