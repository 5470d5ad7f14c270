"""The arithmetic of the `calculate` tool, without `eval`: numbers, + - * /, parentheses.

Its one home: the tool (tools/airline.py) calls it directly. Not a rule of the airline,
so not in policy.py, and no database read, so not in operations/.
"""

from __future__ import annotations

import ast
import math
import operator

from airline_agent.domain.errors import InvalidArguments

_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_ALLOWED_CHARACTERS = set("0123456789+-*/(). ")


def evaluate_arithmetic(expression: str) -> float:
    """`calculate`: numbers, + - * /, parentheses; the result rounded to 2 places, a number
    (τ²'s answers the text `1200.0`, which its evaluator reads as the JSON number)."""
    if not expression.strip():
        raise InvalidArguments("expression is empty; give an arithmetic expression like '2 + 2'")
    if not set(expression) <= _ALLOWED_CHARACTERS:
        raise InvalidArguments(
            "Invalid characters in expression: only digits, + - * / ( ) . and spaces are allowed"
        )
    if len(expression) > 1000:
        raise InvalidArguments("expression is too long (at most 1000 characters)")
    try:
        tree = ast.parse(expression, mode="eval")
        value = _evaluate(tree.body)
    except ZeroDivisionError as exc:
        raise InvalidArguments("division by zero") from exc
    except (SyntaxError, ValueError, OverflowError, RecursionError) as exc:
        raise InvalidArguments(f"not a valid arithmetic expression: {expression!r}") from exc
    # 9…9 (300 digits) * 9…9: JSON has no infinity, and no price is one
    if not math.isfinite(value):
        raise InvalidArguments("the result is too large to be a number")
    return round(value, 2)


def _evaluate(node: ast.AST) -> float:
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, int | float) and not isinstance(value, bool):  # True is no number
        return float(value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    raise ValueError("unsupported expression")
