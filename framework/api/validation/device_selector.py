"""A device selector's CEL expression checked as the API server checks it on create
(``validateCELSelector``): its length, then what compiling it reports.

The expression is compiled with the scheduler's compiler (cel-python). That finds syntax
errors, and this module adds what cel-go's type checker reports most often: a name that is
not declared (only ``device`` is, plus the variables macros and ``cel.bind`` introduce).
Each error is shown as cel-go shows it, with the line and a caret under the column. A
result that is plainly not a boolean (a literal, ``device.driver``) is refused as cel-go
refuses it. Other type errors (a wrong index type, an arithmetic result) and the cost limit
are not found here; see docs/dra.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import celpy
from lark import Token, Tree

from framework.api.field_errors import FieldError, invalid, required
from framework.api.validation.dra_common import too_long
from framework.plugins.dynamicresources.cel.compile import compile_cel_expression

CEL_SELECTOR_EXPRESSION_MAX_LENGTH = 10 * 1024
_DECLARED = frozenset({"device"})
# cel-go's comprehension macros: the first argument names the iteration variable.
_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
_POSITION = re.compile(r"ERROR: <input>:(\d+):(\d+): ")


def validate_selector(selector: Any, path: str) -> list[FieldError]:
    """One entry of a ``selectors`` list: a ``cel`` selector is required."""
    cel = selector.get("cel") if isinstance(selector, dict) else None
    if cel is None:
        return [required(f"{path}.cel")]
    return validate_cel_selector(cel.get("expression") or "", f"{path}.cel.expression")


def validate_cel_selector(expression: str, path: str) -> list[FieldError]:
    if len(expression.encode()) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)]
    detail = compile_error(expression)
    if detail is None:
        return []
    return [invalid(path, expression, detail)]


def compile_error(expression: str) -> str | None:
    """What compiling reports (``compilation failed: ERROR: ...``), or None."""
    compiled = compile_cel_expression(expression)
    if compiled.error is not None:
        return _with_snippet(compiled.error, expression)
    # It parsed, so parsing again for the tree cannot fail.
    tree = celpy.Environment().compile(expression)
    problems = [
        _issue(expression, token.line, token.column, _undeclared_message(token))
        for token in _undeclared(tree, _DECLARED)
    ]
    if problems:
        return "compilation failed: " + "\n".join(problems)
    result = _result_type(tree)
    if result is not None and result != "bool":
        return f"must evaluate to bool or the unknown type, not {result}"
    return None


# The rules an expression's parse tree descends through when it is a single operand.
_PASS_THROUGH = frozenset(
    {
        "expr",
        "conditionalor",
        "conditionaland",
        "relation",
        "addition",
        "multiplication",
        "unary",
        "member",
        "primary",
    }
)
_LITERAL_TYPES = {
    "STRING_LIT": "string",
    "INT_LIT": "int",
    "UINT_LIT": "uint",
    "FLOAT_LIT": "double",
    "BYTES_LIT": "bytes",
    "NULL_LIT": "null_type",
    "BOOL_LIT": "bool",
}


def _result_type(tree: Any) -> str | None:
    """The type cel-go's checker gives an expression that is a single literal or
    ``device.driver`` (a string); None when it takes more than that to know."""
    while isinstance(tree, Tree) and tree.data in _PASS_THROUGH and len(tree.children) == 1:
        tree = tree.children[0]
    if not isinstance(tree, Tree):
        return None
    if tree.data == "literal" and isinstance(tree.children[0], Token):
        return _LITERAL_TYPES.get(tree.children[0].type)
    if tree.data == "member_dot":
        target, name = tree.children
        if _identifier(target) == "device" and str(name) == "driver":
            return "string"
    return None


def _undeclared_message(token: Token) -> str:
    return f"undeclared reference to '{token}' (in container '')"


def _with_snippet(error: str, expression: str) -> str:
    match = _POSITION.search(error)
    if match is None:
        return error
    return error + _snippet(expression, int(match.group(1)), int(match.group(2)))


def _issue(expression: str, line: int, column: int, message: str) -> str:
    return f"ERROR: <input>:{line}:{column}: {message}" + _snippet(expression, line, column)


def _snippet(expression: str, line: int, column: int) -> str:
    """cel-go's source excerpt: the line, then a dot per character before a caret."""
    lines = expression.split("\n")
    if not 1 <= line <= len(lines):
        return ""
    return f"\n | {lines[line - 1]}\n | {'.' * (column - 1)}^"


def _undeclared(tree: Any, bound: frozenset[str]) -> Iterator[Token]:
    """Identifiers not in scope, in source order."""
    if isinstance(tree, Token) or tree is None:
        return
    if tree.data == "ident":
        token = tree.children[0]
        if str(token) not in bound:
            yield token
        return
    if tree.data == "member_dot_arg":
        scoped = _scoped_call(tree)
        if scoped is not None:
            outside, variable, inside = scoped
            for child in outside:
                yield from _undeclared(child, bound)
            for child in inside:
                yield from _undeclared(child, bound | {variable})
            return
    for child in tree.children:
        yield from _undeclared(child, bound)


def _scoped_call(tree: Tree) -> tuple[list[Any], str, list[Any]] | None:
    """(trees outside the new scope, the variable, trees inside it) for a macro call."""
    target, method, arguments = tree.children
    args = list(arguments.children) if isinstance(arguments, Tree) else []
    name = str(method)
    if name == "bind" and _identifier(target) == "cel" and len(args) == 3:
        variable = _identifier(args[0])
        if variable is not None:
            return [args[1]], variable, [args[2]]
    if name in _MACROS and len(args) >= 2:
        variable = _identifier(args[0])
        if variable is not None:
            return [target], variable, args[1:]
    return None


def _identifier(tree: Any) -> str | None:
    while isinstance(tree, Tree) and len(tree.children) == 1 and tree.data != "ident":
        tree = tree.children[0]
    if isinstance(tree, Tree) and tree.data == "ident":
        return str(tree.children[0])
    return None
