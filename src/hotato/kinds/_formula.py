"""The formula grammar: parsed into a tree, never `eval`.

    expr  := or ;  or := and ('or' and)* ;  and := not ('and' not)* ;  not := 'not' not | cmp
    cmp   := sum [('>=' | '>' | '<=' | '<' | '==' | '!=') sum]
    sum   := term (('+' | '-') term)* ;  term := factor ('*' factor)*
    factor:= NUMBER | ID | '(' expr ')'

An ID is another assertion's id: PASS is 1 (true), FAIL is 0 (false), INCONCLUSIVE unknown.
Boolean operators use three-valued logic (`false and unknown` is false). A comparison over
sums is decided only when it holds, or fails, for every value the unknown terms could take;
otherwise it is unknown. Ids may contain `-`, so subtraction needs spaces: `a - b`.

Chains (`a and b and c ...`, `a + b - c ...`) parse into one n-ary node, so a formula over
thousands of ids stays shallow; nesting (parentheses, `not`) deeper than MAX_NESTING is refused
as a usage error rather than exhausting the interpreter's stack.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Union

import re2

_TOKEN_PATTERN = (
    r"\s*(?:(\d+(?:\.\d+)?|\.\d+)|(>=|<=|==|!=|&&|\|\||[()*+<>!-])|([A-Za-z_][A-Za-z0-9_.:-]*))"
)


@functools.cache
def _token() -> Any:
    # Compiled on first use: importing the kinds (every run does) should not pay for it. Matched
    # over bytes: re2 converts a str offset to bytes on every call, which made tokenizing a long
    # formula quadratic.
    return re2.compile(_TOKEN_PATTERN.encode())


_KEYWORDS = {"and": "and", "or": "or", "not": "not", "&&": "and", "||": "or", "!": "not"}


MAX_NESTING = 64


class FormulaError(ValueError):
    pass


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Ref:
    id: str


@dataclass(frozen=True)
class Op:
    op: str
    args: tuple[Node, ...]


Node = Union[Num, Ref, Op]  # noqa: UP007 - a forward-referenced alias


def tokenize(text: str) -> list[str]:
    tokens, pos = [], 0
    stripped = text.rstrip().encode()
    while pos < len(stripped):
        match = _token().match(stripped, pos)
        if match is None or match.end() == pos:
            at = len(stripped[:pos].decode(errors="replace"))
            rest = stripped[pos:].decode(errors="replace").lstrip()[:1]
            raise FormulaError(f"unexpected character {rest!r} at {at}")
        token = (match.group(1) or match.group(2) or match.group(3)).decode()
        tokens.append(_KEYWORDS.get(token, token))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.pos, self.depth = tokens, 0, 0

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise FormulaError(f"nested more than {MAX_NESTING} levels deep")

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise FormulaError(f"expected {expected or 'more'}, got {token or 'the end'}")
        self.pos += 1
        return token

    def parse(self) -> Node:
        node = self.or_()
        if self.peek() is not None:
            raise FormulaError(f"unexpected {self.peek()!r}")
        return node

    def _chain(self, word: str, inner: str) -> Node:
        args = [getattr(self, inner)()]
        while self.peek() == word:
            self.take()
            args.append(getattr(self, inner)())
        return args[0] if len(args) == 1 else Op(word, tuple(args))

    def or_(self) -> Node:
        return self._chain("or", "and_")

    def and_(self) -> Node:
        return self._chain("and", "not_")

    def not_(self) -> Node:
        if self.peek() == "not":
            self.take()
            self.deeper()
            node = Op("not", (self.not_(),))
            self.depth -= 1
            return node
        return self.cmp()

    def cmp(self) -> Node:
        node = self.sum()
        if self.peek() in (">=", ">", "<=", "<", "==", "!="):
            op = self.take()
            node = Op(op, (node, self.sum()))
        return node

    def sum(self) -> Node:
        args = [self.term()]
        while self.peek() in ("+", "-"):
            op = self.take()
            term = self.term()
            args.append(term if op == "+" else Op("neg", (term,)))
        return args[0] if len(args) == 1 else Op("+", tuple(args))

    def term(self) -> Node:
        return self._chain("*", "factor")

    def factor(self) -> Node:
        token = self.peek()
        if token == "(":
            self.take()
            self.deeper()
            node = self.or_()
            self.take(")")
            self.depth -= 1
            return node
        if (
            token is None
            or token in _KEYWORDS.values()
            or not (token[0].isalnum() or token[0] in "._")
        ):
            raise FormulaError(f"expected a number, an id or '(', got {token or 'the end'}")
        self.take()
        return Num(float(token)) if token[0].isdigit() or token[0] == "." else Ref(token)


def parse(text: str) -> Node:
    if not text.strip():
        raise FormulaError("the expression is empty")
    return _Parser(tokenize(text)).parse()


def refs(node: Node) -> list[str]:
    if isinstance(node, Ref):
        return [node.id]
    if isinstance(node, Op):
        return [r for arg in node.args for r in refs(arg)]
    return []


Interval = tuple[float, float]  # the least and greatest value a subexpression can take


def evaluate(node: Node, truth: dict[str, bool | None]) -> Interval:
    """Evaluate over intervals: an unknown reference is [0, 1]; booleans are 0 or 1."""
    if isinstance(node, Num):
        return (node.value, node.value)
    if isinstance(node, Ref):
        known = truth[node.id]
        return (0.0, 1.0) if known is None else (float(known), float(known))
    a = [evaluate(arg, truth) for arg in node.args]
    if node.op == "not":
        return (1.0 - a[0][1], 1.0 - a[0][0])
    if node.op == "neg":
        return (-a[0][1], -a[0][0])
    if node.op == "and":
        return (min(lo for lo, _ in a), min(hi for _, hi in a))
    if node.op == "or":
        return (max(lo for lo, _ in a), max(hi for _, hi in a))
    if node.op == "+":
        return (sum(lo for lo, _ in a), sum(hi for _, hi in a))
    if node.op == "*":
        lo, hi = a[0]
        for lo2, hi2 in a[1:]:
            products = [lo * lo2, lo * hi2, hi * lo2, hi * hi2]
            lo, hi = min(products), max(products)
        return (lo, hi)
    return _compare(node.op, a[0], a[1])


def _compare(op: str, left: Interval, right: Interval) -> Interval:
    corners = [_holds(op, x, y) for x in left for y in right]
    if op in ("==", "!=") and (left[0] != left[1] or right[0] != right[1]):
        overlap = left[0] <= right[1] and right[0] <= left[1]
        if overlap:
            return (0.0, 1.0)
    if all(corners):
        return (1.0, 1.0)
    if not any(corners):
        return (0.0, 0.0)
    return (0.0, 1.0)


def _holds(op: str, x: float, y: float) -> bool:
    return {">=": x >= y, ">": x > y, "<=": x <= y, "<": x < y, "==": x == y, "!=": x != y}[op]


def truth_of(interval: Interval) -> bool | None:
    """A whole formula's verdict: true when it is true at its least value, false at its greatest."""
    lo, hi = interval
    if lo > 0:
        return True
    if hi <= 0:
        return False
    return None
