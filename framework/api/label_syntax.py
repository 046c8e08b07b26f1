"""Label selectors written as text, as ``kubectl get -l`` takes them (upstream ``labels.Parse``).

``app=web,tier!=db``, ``env in (prod,staging)``, ``!canary``, ``release``, ``replicas>2``:
comma-separated requirements that must all hold. The grammar, the set semantics of values
(``in (a,,b)`` includes the empty value) and the messages follow upstream's parser; each
requirement is then checked by :func:`new_requirement`, with upstream's key and value rules.
"""

from __future__ import annotations

import re

from framework.api.labels import (
    DOES_NOT_EXIST,
    DOUBLE_EQUALS,
    EQUALS,
    EXISTS,
    GREATER_THAN,
    IN,
    LESS_THAN,
    NOT_EQUALS,
    NOT_IN,
    Requirement,
    Selector,
    SelectorError,
    new_requirement,
)

IDENTIFIER, END = "identifier", "end of string"
SYMBOLS = {
    "!": DOES_NOT_EXIST,
    "!=": NOT_EQUALS,
    "=": EQUALS,
    "==": DOUBLE_EQUALS,
    ">": GREATER_THAN,
    "<": LESS_THAN,
    "(": "(",
    ")": ")",
    ",": ",",
}
KEYWORDS = {"in": IN, "notin": NOT_IN}
BINARY_OPERATORS = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
_TOKENS = re.compile(r"\s*(!=|==|[!=<>(),]|[^\s!=<>(),]+)")

Token = tuple[str, str]
"""(kind, literal): kind is IDENTIFIER, END, an operator or a punctuation mark."""


def parse_selector(text: str) -> Selector:
    """The selector the text describes; an empty text selects everything.

    Raises :class:`SelectorError` with upstream's message, e.g. ``unable to parse requirement:
    found '', expected: identifier`` for ``app in (web``.
    """
    return Selector(_Parser(text).requirements())


def _lex(text: str) -> list[Token]:
    tokens = []
    for literal in _TOKENS.findall(text):
        kind = SYMBOLS.get(literal) or KEYWORDS.get(literal) or IDENTIFIER
        tokens.append((kind, literal))
    return [*tokens, (END, "")]


class _Parser:
    """Upstream's recursive descent: ``in`` and ``notin`` are operators only after a key."""

    def __init__(self, text: str) -> None:
        self._tokens = _lex(text)
        self._position = 0

    def requirements(self) -> list[Requirement]:
        found: list[Requirement] = []
        while True:
            kind, literal = self._peek()
            if kind == END:
                return found
            if kind not in (IDENTIFIER, DOES_NOT_EXIST):
                _fail(f"found '{literal}', expected: !, identifier, or 'end of string'")
            try:
                found.append(self._requirement())
            except SelectorError as err:
                raise SelectorError([f"unable to parse requirement: {err}"]) from None
            kind, literal = self._next()
            if kind == END:
                return found
            if kind != ",":
                _fail(f"found '{literal}', expected: ',' or 'end of string'")
            kind, literal = self._peek()
            if kind not in (IDENTIFIER, DOES_NOT_EXIST):
                _fail(f"found '{literal}', expected: identifier after ','")

    def _requirement(self) -> Requirement:
        negated = self._peek()[0] == DOES_NOT_EXIST
        if negated:
            self._next()
        kind, key = self._next()
        if kind != IDENTIFIER:
            _fail(f"found '{key}', expected: identifier")
        if negated:  # "!key" stands alone: what follows must be a comma or the end
            return new_requirement(key, DOES_NOT_EXIST, ())
        if self._peek()[0] in (END, ","):
            return new_requirement(key, EXISTS, ())
        operator, literal = self._next(operators=True)
        if operator not in BINARY_OPERATORS:
            _fail(f"found '{literal}', expected: {', '.join(BINARY_OPERATORS)}")
        values = self._value_set() if operator in (IN, NOT_IN) else self._exact_value()
        return new_requirement(key, operator, sorted(values))

    def _value_set(self) -> set[str]:
        kind, literal = self._next()
        if kind != "(":
            _fail(f"found '{literal}' expected: '('")
        kind, literal = self._peek()
        if kind == ")":
            self._next()
            return {""}
        if kind not in (IDENTIFIER, ","):
            _fail(f"found '{literal}', expected: ',', ')' or identifier")
        values = self._identifiers()
        kind, literal = self._next()
        if kind != ")":
            _fail(f"found '{literal}', expected: ')'")
        return values

    def _identifiers(self) -> set[str]:
        """Values up to the closing parenthesis; empty places between commas are ""."""
        values: set[str] = set()
        while True:
            kind, literal = self._next()
            if kind == IDENTIFIER:
                values.add(literal)
                following, text = self._peek()
                if following == ")":
                    return values
                if following != ",":
                    _fail(f"found '{text}', expected: ',' or ')'")
            elif kind == ",":
                following = self._peek()[0]
                if not values or following in (")", ","):
                    values.add("")
                if following == ")":
                    return values
                if following == ",":
                    self._next()
            else:
                _fail(f"found '{literal}', expected: ',', or identifier")

    def _exact_value(self) -> set[str]:
        if self._peek()[0] in (END, ","):
            return {""}
        kind, literal = self._next()
        if kind != IDENTIFIER:
            _fail(f"found '{literal}', expected: identifier")
        return {literal}

    def _peek(self) -> Token:
        return self._value_token(self._tokens[self._position])

    def _next(self, operators: bool = False) -> Token:
        token = self._tokens[self._position]
        self._position = min(self._position + 1, len(self._tokens) - 1)
        return token if operators else self._value_token(token)

    @staticmethod
    def _value_token(token: Token) -> Token:
        """Where a value or key is expected, ``in`` and ``notin`` are plain identifiers."""
        return (IDENTIFIER, token[1]) if token[0] in (IN, NOT_IN) else token


def _fail(message: str) -> None:
    raise SelectorError([message])
