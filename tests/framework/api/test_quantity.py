"""Quantity parsing, arithmetic and printing; expected values from upstream quantity_test.go."""

from __future__ import annotations

import copy

import pytest

from framework.api.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    FORMAT_WRONG_MESSAGE,
    NUMERIC_MESSAGE,
    SUFFIX_MESSAGE,
    Quantity,
    QuantityError,
)

MAX_INT64 = 2**63 - 1


def dec(mantissa: int, exponent: int, fmt: str = DECIMAL_SI) -> Quantity:
    """mantissa * 10^exponent, like upstream's decQuantity test helper."""
    if exponent >= -9:
        return Quantity.from_nanos(mantissa * 10 ** (exponent + 9), fmt)
    return Quantity.from_nanos(mantissa // 10 ** (-9 - exponent), fmt)


PARSE_CASES = [
    ("0", dec(0, 0)),
    ("0n", dec(0, 0)),
    ("0u", dec(0, 0)),
    ("0m", dec(0, 0)),
    ("0Ki", dec(0, 0, BINARY_SI)),
    ("0k", dec(0, 0)),
    ("0Mi", dec(0, 0, BINARY_SI)),
    ("0M", dec(0, 0)),
    ("0Gi", dec(0, 0, BINARY_SI)),
    ("0G", dec(0, 0)),
    ("0Ti", dec(0, 0, BINARY_SI)),
    ("0T", dec(0, 0)),
    ("1", dec(1, 0)),
    ("1Ki", dec(1024, 0, BINARY_SI)),
    ("8Ki", dec(8 * 1024, 0, BINARY_SI)),
    ("7Mi", dec(7 * 1024**2, 0, BINARY_SI)),
    ("6Gi", dec(6 * 1024**3, 0, BINARY_SI)),
    ("5Ti", dec(5 * 1024**4, 0, BINARY_SI)),
    ("4Pi", dec(4 * 1024**5, 0, BINARY_SI)),
    ("3Ei", dec(3 * 1024**6, 0, BINARY_SI)),
    ("10Ti", dec(10 * 1024**4, 0, BINARY_SI)),
    ("100Ti", dec(100 * 1024**4, 0, BINARY_SI)),
    ("5n", dec(5, -9)),
    ("4u", dec(4, -6)),
    ("3m", dec(3, -3)),
    ("9", dec(9, 0)),
    ("8k", dec(8, 3)),
    ("50k", dec(5, 4)),
    ("7M", dec(7, 6)),
    ("6G", dec(6, 9)),
    ("5T", dec(5, 12)),
    ("40T", dec(4, 13)),
    ("300T", dec(3, 14)),
    ("2P", dec(2, 15)),
    ("1E", dec(1, 18)),
    ("1E-3", dec(1, -3, DECIMAL_EXPONENT)),
    ("1e3", dec(1, 3, DECIMAL_EXPONENT)),
    ("1E6", dec(1, 6, DECIMAL_EXPONENT)),
    ("1e9", dec(1, 9, DECIMAL_EXPONENT)),
    ("1E12", dec(1, 12, DECIMAL_EXPONENT)),
    ("1e15", dec(1, 15, DECIMAL_EXPONENT)),
    ("1E18", dec(1, 18, DECIMAL_EXPONENT)),
    ("1e14", dec(1, 14, DECIMAL_EXPONENT)),
    ("1e13", dec(1, 13, DECIMAL_EXPONENT)),
    ("100.035k", dec(100035, 0)),
    ("0.001", dec(1, -3)),
    ("0.0005k", dec(5, -1)),
    ("0.005", dec(5, -3)),
    ("0.05", dec(5, -2)),
    ("0.5", dec(5, -1)),
    ("0.00050k", dec(5, -1)),
    ("0.00500", dec(5, -3)),
    ("0.05000", dec(5, -2)),
    ("0.50000", dec(5, -1)),
    ("0.5e0", dec(5, -1, DECIMAL_EXPONENT)),
    ("0.5e-1", dec(5, -2, DECIMAL_EXPONENT)),
    ("0.5e-2", dec(5, -3, DECIMAL_EXPONENT)),
    ("10.035M", dec(10035, 3)),
    ("1.2e3", dec(12, 2, DECIMAL_EXPONENT)),
    ("1.3E+6", dec(13, 5, DECIMAL_EXPONENT)),
    ("1.40e9", dec(14, 8, DECIMAL_EXPONENT)),
    ("1.53E12", dec(153, 10, DECIMAL_EXPONENT)),
    ("1.6e15", dec(16, 14, DECIMAL_EXPONENT)),
    ("1.7E18", dec(17, 17, DECIMAL_EXPONENT)),
    ("9.01", dec(901, -2)),
    ("8.1k", dec(81, 2)),
    ("7.123456M", dec(7123456, 0)),
    ("6.987654321G", dec(6987654321, 0)),
    ("5.444T", dec(5444, 9)),
    ("40.1T", dec(401, 11)),
    ("300.2T", dec(3002, 11)),
    ("2.5P", dec(25, 14)),
    ("1.01E", dec(101, 16)),
    ("3.001n", dec(4, -9)),
    ("1.1E-9", dec(2, -9, DECIMAL_EXPONENT)),
    ("0.0000000001", dec(1, -9)),
    ("0.0000000005", dec(1, -9)),
    ("0.00000000050", dec(1, -9)),
    ("0.5e-9", dec(1, -9, DECIMAL_EXPONENT)),
    ("0.9n", dec(1, -9)),
    ("0.00000012345", dec(124, -9)),
    ("0.00000012354", dec(124, -9)),
    ("9Ei", dec(MAX_INT64, 0, BINARY_SI)),
    ("9223372036854775807Ki", dec(MAX_INT64, 0, BINARY_SI)),
    ("12E", dec(12, 18)),
    ("100.035Ki", dec(10243584, -2, BINARY_SI)),
    ("0.5Mi", dec(512 * 1024, 0, BINARY_SI)),
    ("0.05Gi", dec(536870912, -1, BINARY_SI)),
    ("0.025Ti", dec(274877906944, -1, BINARY_SI)),
    ("0.000000000001Ki", dec(2, -9)),
    (".001", dec(1, -3)),
    (".0001k", dec(100, -3)),
    ("1.", dec(1, 0)),
    ("1.G", dec(1, 9)),
]


@pytest.mark.parametrize(("text", "expected"), PARSE_CASES, ids=[c[0] for c in PARSE_CASES])
def test_it_parses_values_and_formats_like_upstream(text, expected):
    got = Quantity.parse(text)
    assert got == expected
    assert got.format == expected.format


@pytest.mark.parametrize(("text", "expected"), PARSE_CASES, ids=[c[0] for c in PARSE_CASES])
def test_it_parses_signed_values_with_the_same_format(text, expected):
    assert Quantity.parse("-" + text) == -expected
    assert Quantity.parse("-" + text).format == expected.format
    assert Quantity.parse("+" + text) == expected


INVALID = [
    ("", FORMAT_WRONG_MESSAGE),
    ("1.1.M", FORMAT_WRONG_MESSAGE),
    ("1+1.0M", FORMAT_WRONG_MESSAGE),
    ("0.1mi", SUFFIX_MESSAGE),
    ("0.1am", FORMAT_WRONG_MESSAGE),
    ("aoeu", FORMAT_WRONG_MESSAGE),
    (".5i", SUFFIX_MESSAGE),
    ("1i", SUFFIX_MESSAGE),
    ("-3.01i", SUFFIX_MESSAGE),
    ("-3.01e-", SUFFIX_MESSAGE),
    (" 1", FORMAT_WRONG_MESSAGE),
    ("1 ", FORMAT_WRONG_MESSAGE),
    ("1K", SUFFIX_MESSAGE),
    ("Non-Numeric", FORMAT_WRONG_MESSAGE),
]


@pytest.mark.parametrize(("text", "message"), INVALID, ids=[repr(c[0]) for c in INVALID])
def test_it_rejects_malformed_strings_with_upstream_messages(text, message):
    with pytest.raises(QuantityError) as excinfo:
        Quantity.parse(text)
    assert str(excinfo.value) == message


def test_the_format_message_is_upstreams_regular_expression_text():
    assert FORMAT_WRONG_MESSAGE == (
        "quantities must match the regular expression "
        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )


def test_it_refuses_absurd_exponents_instead_of_building_huge_numbers():
    with pytest.raises(QuantityError, match=NUMERIC_MESSAGE):
        Quantity.parse("1e100000")


CANONICAL = [
    (dec(1024**3, 0, BINARY_SI), "1Gi"),
    (dec(300 * 1024**2, 0, BINARY_SI), "300Mi"),
    (dec(6 * 1024, 0, BINARY_SI), "6Ki"),
    (dec(1001 * 1024**3, 0, BINARY_SI), "1001Gi"),
    (dec(1024**4, 0, BINARY_SI), "1Ti"),
    (dec(5, 0, BINARY_SI), "5"),
    (dec(500, -3, BINARY_SI), "500m"),
    (dec(1, 9), "1G"),
    (dec(1000, 6), "1G"),
    (dec(1000000, 3), "1G"),
    (dec(1000000000, 0), "1G"),
    (dec(1, -3), "1m"),
    (dec(80, -3), "80m"),
    (dec(1080, -3), "1080m"),
    (dec(108, -2), "1080m"),
    (dec(10800, -4), "1080m"),
    (dec(300, 6), "300M"),
    (dec(1, 12), "1T"),
    (dec(1234567, 6), "1234567M"),
    (dec(1234567, -3, BINARY_SI), "1234567m"),
    (dec(3, 3), "3k"),
    (dec(1025, 0, BINARY_SI), "1025"),
    (dec(0, 0), "0"),
    (dec(0, 0, BINARY_SI), "0"),
    (dec(1, 9, DECIMAL_EXPONENT), "1e9"),
    (dec(1, -3, DECIMAL_EXPONENT), "1e-3"),
    (dec(1, -9, DECIMAL_EXPONENT), "1e-9"),
    (dec(80, -3, DECIMAL_EXPONENT), "80e-3"),
    (dec(300, 6, DECIMAL_EXPONENT), "300e6"),
    (dec(1, 12, DECIMAL_EXPONENT), "1e12"),
    (dec(1, 3, DECIMAL_EXPONENT), "1e3"),
    (dec(3, 3, DECIMAL_EXPONENT), "3e3"),
    (dec(0, 0, DECIMAL_EXPONENT), "0"),
    (dec(1, -9), "1n"),
    (dec(80, -9), "80n"),
    (dec(1080, -9), "1080n"),
    (dec(108, -8), "1080n"),
    (dec(1, -6), "1u"),
    (dec(80, -6), "80u"),
    (dec(1080, -6), "1080u"),
]


@pytest.mark.parametrize(("quantity", "text"), CANONICAL, ids=[c[1] for c in CANONICAL])
def test_it_prints_the_canonical_form(quantity, text):
    assert str(quantity) == text
    if text != "0":
        assert str(-quantity) == "-" + text


@pytest.mark.parametrize(("quantity", "text"), CANONICAL, ids=[c[1] for c in CANONICAL])
def test_canonical_text_parses_back_to_the_same_value_and_is_kept(quantity, text):
    parsed = Quantity.parse(text)
    assert parsed == quantity
    assert str(parsed) == text


ALTERNATES = [
    ("1024Mi", "1Gi"),
    ("307200Ki", "300Mi"),
    ("1025024Mi", "1001Gi"),
    ("1024Gi", "1Ti"),
    ("5000m", "5"),
    ("0.5", "500m"),
    ("1000M", "1G"),
    ("0.001T", "1G"),
    ("1000u", "1m"),
    ("1.08", "1080m"),
    ("1080000000n", "1080m"),
    (".001e12", "1e9"),
    ("0.001e0", "1e-3"),
    ("1000e-12", "1e-9"),
    ("00", "0"),
    (".001Ki", "1024m"),
    (".000001Ki", "1024u"),
    (".000000001Ki", "1024n"),
    (".000000000001Ki", "2n"),
    ("1.5", "1500m"),
    ("1.5Gi", "1536Mi"),
]


@pytest.mark.parametrize(("text", "canonical"), ALTERNATES, ids=[c[0] for c in ALTERNATES])
def test_non_canonical_text_is_printed_in_canonical_form(text, canonical):
    assert str(Quantity.parse(text)) == canonical
    if canonical != "0":
        assert str(Quantity.parse("-" + text)) == "-" + canonical


def test_canonical_looking_text_is_kept_exactly_as_upstream_keeps_it():
    assert str(Quantity.parse("+5")) == "+5"
    assert str(Quantity.parse("1.G")) == "1.G"


@pytest.mark.parametrize(
    ("milli", "fmt", "text"),
    [
        (1, DECIMAL_SI, "1m"),
        (1000, DECIMAL_SI, "1"),
        (1234000, DECIMAL_SI, "1234"),
        (1024, BINARY_SI, "1024m"),
        (1000000, "invalidFormatDefaultsToExponent", "1e3"),
        (1024 * 1024, BINARY_SI, "1048576m"),
    ],
    ids=[
        "one milli",
        "a thousand milli",
        "a large amount",
        "binary stays decimal below 1024",
        "an unknown format prints an exponent",
        "a fractional binary prints decimal",
    ],
)
def test_milli_quantities_print_like_new_milli_quantity(milli, fmt, text):
    quantity = Quantity.from_milli(milli, fmt)
    assert str(quantity) == text
    assert quantity.milli_value() == milli


@pytest.mark.parametrize(
    ("value", "fmt", "text"),
    [
        (1, DECIMAL_SI, "1"),
        (1000, DECIMAL_SI, "1k"),
        (1234000, DECIMAL_SI, "1234k"),
        (1024, BINARY_SI, "1Ki"),
        (1000000, "invalidFormatDefaultsToExponent", "1e6"),
        (1024 * 1024, BINARY_SI, "1Mi"),
    ],
    ids=["one", "a thousand", "thousands", "one kibi", "unknown format", "one mebi"],
)
def test_whole_quantities_print_like_new_quantity(value, fmt, text):
    quantity = Quantity.from_value(value, fmt)
    assert str(quantity) == text
    assert Quantity.parse(text).value() == value


@pytest.mark.parametrize(
    ("text", "value", "milli"),
    [
        ("100m", 1, 100),
        ("1", 1, 1000),
        ("1.5", 2, 1500),
        ("0.1m", 1, 1),
        ("1n", 1, 1),
        ("2Gi", 2 * 1024**3, 2 * 1024**3 * 1000),
        ("-1.5", -2, -1500),
        ("-100m", -1, -100),
    ],
    ids=[
        "milli cpu",
        "one core",
        "a fraction rounds up",
        "below a milli rounds up to one",
        "one nano",
        "binary memory",
        "negative rounds away from zero",
        "negative milli rounds away from zero",
    ],
)
def test_value_and_milli_value_round_up_away_from_zero(text, value, milli):
    quantity = Quantity.parse(text)
    assert quantity.value() == value
    assert quantity.milli_value() == milli


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [("0", "0", 0), ("100m", "50m", 1), ("50m", "100m", -1), ("10000T", "100Gi", 1)],
    ids=[
        "zeros are equal",
        "more milli is larger",
        "less milli is smaller",
        "decimal and binary compare by value",
    ],
)
def test_it_compares_values_exactly(left, right, expected):
    a, b = Quantity.parse(left), Quantity.parse(right)
    assert a.cmp(b) == expected
    assert (a < b) == (expected < 0)
    assert (a == b) == (expected == 0)


@pytest.mark.parametrize(
    ("a", "b", "total"),
    [
        (dec(10, 0), dec(1, 1), dec(20, 0)),
        (dec(10, 0), dec(1, 0, BINARY_SI), dec(11, 0)),
        (dec(10, 0, BINARY_SI), dec(1, 0), dec(11, 0, BINARY_SI)),
        (Quantity(), dec(50, 0), dec(50, 0)),
        (dec(50, 0), Quantity(), dec(50, 0)),
        (Quantity(), Quantity(), dec(0, 0)),
    ],
    ids=[
        "across scales",
        "decimal plus binary",
        "binary plus decimal",
        "zero plus fifty",
        "fifty plus zero",
        "zero plus zero",
    ],
)
def test_it_adds_exactly(a, b, total):
    assert a + b == total


@pytest.mark.parametrize(
    ("a", "b", "difference"),
    [
        (dec(10, 0), dec(1, 1), dec(0, 0)),
        (dec(10, 0), dec(1, 0, BINARY_SI), dec(9, 0)),
        (Quantity(), dec(50, 0), dec(-50, 0)),
        (dec(50, 0), Quantity(), dec(50, 0)),
    ],
    ids=["equal amounts cancel", "decimal minus binary", "zero minus fifty", "fifty minus zero"],
)
def test_it_subtracts_exactly(a, b, difference):
    assert a - b == difference


@pytest.mark.parametrize("text", ["100m", "1Gi"], ids=["decimal", "binary"])
def test_adding_zero_keeps_the_suffix_either_way(text):
    value, zero = Quantity.parse(text), Quantity.parse("0")
    assert str(value + zero) == text
    assert str(zero + value) == text
    assert str(zero - value) == str(-value)


def test_sums_of_tiny_amounts_do_not_lose_precision():
    total = Quantity()
    for _ in range(3):
        total = total + Quantity.parse("0.4m")
    assert total.milli_value() == 2
    assert total == Quantity.parse("1200u")


def test_negation_prints_with_a_minus_sign():
    assert str(-dec(901, -2)) == "-9010m"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2, dec(2, 0)), (0.5, dec(5, -1)), (1e-05, dec(1, -5)), (1.5e16, dec(15, 15))],
    ids=["a YAML integer", "a YAML float", "a small float", "a large float"],
)
def test_it_accepts_numbers_from_yaml(value, expected):
    assert Quantity.parse(value) == expected


@pytest.mark.parametrize(
    "value", [True, float("nan"), None, [1]], ids=["bool", "nan", "none", "list"]
)
def test_it_rejects_values_that_are_not_quantities(value):
    with pytest.raises(QuantityError):
        Quantity.parse(value)


def test_equal_quantities_hash_alike_whatever_their_suffix():
    assert hash(Quantity.parse("1Ki")) == hash(Quantity.parse("1024"))
    assert {Quantity.parse("1k"), Quantity.parse("1000")} == {Quantity.parse("1e3")}


def test_copies_share_a_quantity_since_it_never_changes():
    q = Quantity.parse("1.5Gi")
    assert copy.copy(q) is q
    assert copy.deepcopy({"memory": q})["memory"] is q


def test_the_same_text_parses_to_one_shared_quantity():
    """Quantities never change, so the 150,000 pods of a big cluster share their ``100m``."""
    assert Quantity.parse("100m") is Quantity.parse("100m")
    assert Quantity.parse(" 100m ".strip()) is Quantity.parse("100m")
    assert Quantity.parse("100m") + Quantity.parse("100m") == Quantity.parse("200m")
    assert str(Quantity.parse("100m")) == "100m"
