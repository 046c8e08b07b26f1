"""Compiling device selectors and matching them against one device.

The environment is upstream's ``k8s.io/dynamic-resource-allocation/cel`` for the v1.36 default
gates (DRAConsumableCapacity on, DRAListTypeAttributes off): one variable ``device`` with
``driver``, ``allowMultipleAllocations``, ``attributes`` and ``capacity``. Attributes and
capacity are maps of domain to map of id; a name without a domain belongs to the driver's, and
a domain the device lacks reads as an empty map (so ``device.attributes["x"].y`` fails on
``y``, not on ``x``). ``cel.bind`` is added to celpy as the macro it is in cel-go.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import celpy
from celpy import celtypes
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError, CELUnsupportedError, Evaluator

from framework.api.quantity import Quantity
from framework.api.resource_slice import DeviceAttribute, DeviceCapacity
from framework.plugins.dynamicresources.cel.library import FUNCTIONS
from framework.plugins.dynamicresources.cel.semver import Semver, SemverError

COMPILE_CACHE_SIZE = 1000
"""Upstream's scheduler keeps a cache of this many compiled expressions."""

_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
"""The comprehension macros of cel-go, which need a list or a map to range over."""


@dataclass(frozen=True, slots=True)
class Device:
    """What a selector sees of a device (upstream ``cel.Device``)."""

    driver: str
    attributes: Mapping[str, DeviceAttribute]
    capacity: Mapping[str, DeviceCapacity]
    allow_multiple_allocations: bool | None = None


class CompilationResult:
    """A compiled expression, or why it does not compile (``error``, upstream's Detail)."""

    __slots__ = ("_runner", "error", "expression")

    def __init__(self, expression: str, runner: Any = None, error: str | None = None) -> None:
        self.expression = expression
        self._runner = runner
        self.error = error

    def device_matches(self, device: Device) -> tuple[bool, str | None]:
        """Whether the device passes; on a runtime error, False and the error's text."""
        variables, error = _device_variables(device)
        if error is not None:
            return False, error
        try:
            result = self._runner.evaluate({"device": variables})
        except CELEvalError as err:
            return False, _error_text(err)
        except (CELUnsupportedError, RecursionError) as err:
            return False, str(err)
        if isinstance(result, CELEvalError):
            return False, _error_text(result)
        if not isinstance(result, celtypes.BoolType):
            return False, (
                f"CEL result of type {_cel_type_name(result)} could not be converted to bool:"
                f" type conversion error from '{_cel_type_name(result)}' to 'bool'"
            )
        return bool(result), None


class Cache:
    """Upstream ``cel.Cache``: the most recently used successful compilations.

    A failed compilation is not kept, so it is compiled (and reported) again each time.
    """

    def __init__(self, max_size: int) -> None:
        self._max_size = max_size
        self._entries: OrderedDict[str, CompilationResult] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compile(self, expression: str) -> CompilationResult:
        with self._lock:
            cached = self._entries.get(expression)
            if cached is not None:
                self._entries.move_to_end(expression)
                return cached
        result = compile_uncached(expression)
        if result.error is None:
            with self._lock:
                self._entries[expression] = result
                self._entries.move_to_end(expression)
                while len(self._entries) > self._max_size:
                    self._entries.popitem(last=False)
        return result


_CACHE = Cache(COMPILE_CACHE_SIZE)


def compile_cel_expression(expression: str) -> CompilationResult:
    """Compile once per distinct expression, through the scheduler's cache."""
    return _CACHE.get_or_compile(expression)


def compile_uncached(expression: str) -> CompilationResult:
    environment = celpy.Environment(runner_class=_Runner)
    try:
        ast = environment.compile(expression)
    except CELParseError as err:
        return CompilationResult(
            expression, error=f"compilation failed: {_syntax_error(err, expression)}"
        )
    return CompilationResult(expression, environment.program(ast, functions=FUNCTIONS))


def parse_qualified_name(name: str, default_domain: str) -> tuple[str, str]:
    """``domain/id``, or the driver's domain for a bare id."""
    domain, separator, identifier = name.partition("/")
    return (domain, identifier) if separator else (default_domain, name)


def _device_variables(device: Device) -> tuple[Any, str | None]:
    attributes: dict[str, dict[str, Any]] = {}
    for name, attribute in device.attributes.items():
        value, error = _attribute_value(attribute)
        if error is not None:
            return None, f"attribute {name}: {error}"
        domain, identifier = parse_qualified_name(name, device.driver)
        attributes.setdefault(domain, {})[identifier] = value
    capacity: dict[str, dict[str, Any]] = {}
    for name, device_capacity in device.capacity.items():
        domain, identifier = parse_qualified_name(name, device.driver)
        capacity.setdefault(domain, {})[identifier] = device_capacity.value
    return celtypes.MapType(
        {
            celtypes.StringType("driver"): celtypes.StringType(device.driver),
            celtypes.StringType("allowMultipleAllocations"): celtypes.BoolType(
                bool(device.allow_multiple_allocations)
            ),
            celtypes.StringType("attributes"): _DomainMap(_nested(attributes)),
            celtypes.StringType("capacity"): _DomainMap(_nested(capacity)),
        }
    ), None


def _attribute_value(attribute: DeviceAttribute) -> tuple[Any, str | None]:
    if attribute.int_value is not None:
        return celtypes.IntType(attribute.int_value), None
    if attribute.bool_value is not None:
        return celtypes.BoolType(attribute.bool_value), None
    if attribute.string_value is not None:
        return celtypes.StringType(attribute.string_value), None
    if attribute.version_value is not None:
        try:
            return Semver.parse(attribute.version_value), None
        except SemverError as err:
            return None, f"parse semantic version: {err}"
    return None, "unsupported attribute value"


def _nested(domains: dict[str, dict[str, Any]]) -> dict[Any, Any]:
    return {
        celtypes.StringType(domain): celtypes.MapType(
            {celtypes.StringType(key): value for key, value in ids.items()}
        )
        for domain, ids in domains.items()
    }


class _DomainMap(celtypes.MapType):
    """A map whose missing keys read as an empty map (upstream ``mapper`` with a default)."""

    def __getitem__(self, key: Any) -> Any:
        try:
            return super().__getitem__(key)
        except KeyError:
            return celtypes.MapType({})


class _BindingEvaluator(Evaluator):
    """celpy's interpreter plus cel-go's ``cel.bind(name, init, expression)`` macro."""

    def sub_evaluator(self, ast: Any) -> Evaluator:
        return _BindingEvaluator(ast, activation=self.activation)

    def member_dot_arg(self, tree: Any) -> Any:
        binding = _binding_parts(tree)
        if binding is not None:
            name, init, body = binding
            return self.sub_evaluator(body).evaluate({name: self.visit(init)})
        target, method = tree.children[:2]
        if method.value in _MACROS:
            # celpy would iterate a string's characters or crash on a scalar; cel-go refuses.
            value = self.visit(target)
            if not isinstance(value, celtypes.ListType | celtypes.MapType | CELEvalError):
                return CELEvalError(f"got '{_go_type_name(value)}', expected iterable type")
        return super().member_dot_arg(tree)


class _Runner(celpy.InterpretedRunner):
    def evaluate(self, context: Any) -> Any:
        return _BindingEvaluator(ast=self.ast, activation=self.new_activation()).evaluate(context)


def _binding_parts(tree: Any) -> tuple[str, Any, Any] | None:
    """(name, init, body) of a ``cel.bind`` call, else None."""
    if len(tree.children) != 3:
        return None
    target, method, arguments = tree.children
    if method.value != "bind" or _identifier(target) != "cel":
        return None
    if arguments is None or len(arguments.children) != 3:
        return None
    name = _identifier(arguments.children[0])
    if name is None:
        return None
    return name, arguments.children[1], arguments.children[2]


def _identifier(tree: Any) -> str | None:
    """The name when the subtree is nothing but one identifier."""
    while hasattr(tree, "children") and len(tree.children) == 1 and tree.data != "ident":
        tree = tree.children[0]
    if getattr(tree, "data", None) == "ident":
        return str(tree.children[0].value)
    return None


def _error_text(err: CELEvalError) -> str:
    """cel-go's wording for the errors a selector meets most: a missing key, a wrong type."""
    message = str(err.args[0]) if err.args else str(err)
    # celpy appends its whole activation to an undeclared name; cel-go names only the name.
    message = message.split(" (in activation", 1)[0]
    if message.startswith("undeclared reference"):
        return message
    if len(err.args) > 1 and err.args[1] is KeyError:
        key = _missing_key(err)
        if key is not None:
            return f"no such key: {key}"
    return message


def _missing_key(err: CELEvalError) -> str | None:
    details = err.args[2] if len(err.args) > 2 else None
    if isinstance(details, tuple) and details:
        return str(details[0])
    message = str(err.args[0])
    if ": '" in message:
        return message.rsplit(": '", 1)[1].rstrip("'")
    return None


_EXPRESSION_START = frozenset(
    {"MINUS", "BANG", "DOT", "LSQB", "LBRACE", "LPAR", "IDENT", "NULL_LIT", "BOOL_LIT"}
    | {"INT_LIT", "UINT_LIT", "FLOAT_LIT", "STRING_LIT", "MLSTRING_LIT", "BYTES_LIT"}
)
"""What celpy's parser expects where any expression may start (after a binary operator)."""
ANTLR_EXPRESSION_START = (
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}"
)
"""How cel-go's ANTLR parser names the same set."""


def _syntax_error(err: CELParseError, expression: str) -> str:
    """cel-go's frame (``ERROR: <input>:line:column: Syntax error: ...``). An expression that
    ends where an operand is due (``a ==``, ``a &&``) gets cel-go's words and position (the
    end of the input); other syntax errors celpy's reason at celpy's position."""
    found = err.__context__
    if (
        getattr(getattr(found, "token", None), "type", None) == "$END"
        and set(getattr(found, "expected", ())) == _EXPRESSION_START
    ):
        lines = expression.split("\n")
        reason = f"mismatched input '<EOF>' expecting {ANTLR_EXPRESSION_START}"
        return f"ERROR: <input>:{len(lines)}:{len(lines[-1]) + 1}: Syntax error: {reason}"
    token = getattr(err.__cause__, "token", None)
    reason = f"unexpected token {str(token)!r}" if token is not None else "invalid syntax"
    return f"ERROR: <input>:{err.line}:{err.column}: Syntax error: {reason}"


def _go_type_name(value: Any) -> str:
    """The Go type cel-go names in its errors (``types.Int``, ``cel.Semver``, ...)."""
    names = {
        celtypes.BoolType: "types.Bool",
        celtypes.IntType: "types.Int",
        celtypes.UintType: "types.Uint",
        celtypes.DoubleType: "types.Double",
        celtypes.StringType: "types.String",
        celtypes.BytesType: "types.Bytes",
        Semver: "cel.Semver",
        Quantity: "cel.Quantity",
    }
    for value_type, name in names.items():
        if isinstance(value, value_type):
            return name
    if value is None:
        return "types.Null"
    return type(value).__name__


def _cel_type_name(value: Any) -> str:
    names = {
        celtypes.IntType: "int",
        celtypes.UintType: "uint",
        celtypes.DoubleType: "double",
        celtypes.StringType: "string",
        celtypes.BytesType: "bytes",
        celtypes.ListType: "list",
        celtypes.MapType: "map",
    }
    for cel_type, name in names.items():
        if isinstance(value, cel_type):
            return name
    return type(value).__name__
