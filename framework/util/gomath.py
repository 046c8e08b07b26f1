"""Go's integer arithmetic, where it differs from Python's: division truncates toward zero."""


def go_div(a: int, b: int) -> int:
    """``a / b`` on Go integers (truncates toward zero; Python's ``//`` floors)."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


def go_mod(a: int, b: int) -> int:
    """``a % b`` on Go integers (the result has the sign of ``a``)."""
    return a - b * go_div(a, b)
