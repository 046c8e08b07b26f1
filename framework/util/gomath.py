"""Go's arithmetic where it differs from Python's: truncating division, math.Round, math.Log."""

import math


def go_div(a: int, b: int) -> int:
    """``a / b`` on Go integers (truncates toward zero; Python's ``//`` floors)."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


def go_mod(a: int, b: int) -> int:
    """``a % b`` on Go integers (the result has the sign of ``a``)."""
    return a - b * go_div(a, b)


# Go's math.Log (FreeBSD's e_log.c algorithm; the amd64 assembly performs the same operations
# in the same order). The C library's log may differ in the last bit, which could flip a
# rounding, so the algorithm is reproduced here.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_L1 = 6.666666666666735130e-01
_L2 = 3.999999999940941908e-01
_L3 = 2.857142874366239149e-01
_L4 = 2.222219843214978396e-01
_L5 = 1.818357216161805012e-01
_L6 = 1.531383769920937332e-01
_L7 = 1.479819860511658591e-01
_HALF_SQRT2 = math.sqrt(2) / 2


def go_log(x: float) -> float:
    """The natural logarithm exactly as Go computes it."""
    if math.isnan(x) or x == math.inf:
        return x
    if x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    f1, exponent = math.frexp(x)
    if f1 < _HALF_SQRT2:
        f1 *= 2
        exponent -= 1
    f = f1 - 1
    k = float(exponent)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_L1 + s4 * (_L3 + s4 * (_L5 + s4 * _L7)))
    t2 = s4 * (_L2 + s4 * (_L4 + s4 * _L6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


def go_round(x: float) -> int:
    """``int64(math.Round(x))``: halves round away from zero (Python's round() goes to even)."""
    truncated = math.trunc(x)
    if abs(x - truncated) >= 0.5:
        truncated += 1 if x > 0 else -1
    return truncated
