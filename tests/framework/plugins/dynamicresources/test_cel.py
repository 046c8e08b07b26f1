"""Device selectors in CEL: upstream's dynamic-resource-allocation/cel/compile_test.go table.

Cases for the v1.36 default gates (DRAListTypeAttributes off, DRAConsumableCapacity on) in the
stored-expressions environment the scheduler compiles in keep upstream's names and
expectations; cost figures are not checked (celpy estimates no cost, see docs/fidelity.md), nor
is the "expensive" case that only a cost limit stops. docs/dra.md lists the cases left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from framework.api.quantity import Quantity
from framework.api.resource_slice import DeviceAttribute, DeviceCapacity
from framework.plugins.dynamicresources.cel.compile import Cache, Device, compile_cel_expression
from framework.plugins.dynamicresources.cel.semver import Semver, SemverError

DRIVER = "dra.example.com"


@dataclass
class Case:
    expression: str
    driver: str = ""
    attributes: dict[str, DeviceAttribute] = field(default_factory=dict)
    capacity: dict[str, DeviceCapacity] = field(default_factory=dict)
    allow_multiple_allocations: bool | None = None
    expect_compile_error: str = ""
    expect_match_error: str = ""
    expect_match: bool = False


def flag(value: bool) -> dict[str, DeviceAttribute]:
    return {"name": DeviceAttribute(bool_value=value)}


def capacity(value: str) -> dict[str, DeviceCapacity]:
    return {"name": DeviceCapacity(Quantity.parse(value))}


CASES = {
    "true": Case("true", expect_match=True),
    "false": Case("false", expect_match=False),
    "syntax-error": Case("?!", expect_compile_error="Syntax error"),
    "runtime-error-lookup-identifier": Case(
        'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
        expect_match_error="no such key: noSuchAttr",
    ),
    "runtime-error-lookup-map": Case(
        'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))',
        expect_match_error="no such key: noSuchAttr",
    ),
    "domain-check-negative": Case('"no-such-domain" in device.attributes', expect_match=False),
    "domain-check-positive": Case(
        '"dra.example.com" in device.attributes',
        attributes={"dra.example.com/something": DeviceAttribute(bool_value=True)},
        expect_match=True,
    ),
    "empty-driver-name": Case('device.driver == ""', expect_match=True),
    "real-driver-name": Case(
        'device.driver == "dra.example.com"', driver=DRIVER, expect_match=True
    ),
    "driver-name-qualifier": Case(
        'device.attributes["dra.example.com"].name',
        driver=DRIVER,
        attributes=flag(True),
        expect_match=True,
    ),
    "driver-name-qualifier-map-lookup": Case(
        'device.attributes["dra.example.com"]["name"]',
        driver=DRIVER,
        attributes=flag(True),
        expect_match=True,
    ),
    "bind": Case(
        'cel.bind(dra, device.attributes["dra.example.com"], dra.name)',
        driver=DRIVER,
        attributes=flag(True),
        expect_match=True,
    ),
    "qualified-attribute-name": Case(
        'device.attributes["other.example.com"].name',
        driver=DRIVER,
        attributes={"other.example.com/name": DeviceAttribute(bool_value=True)},
        expect_match=True,
    ),
    "bool": Case(
        'device.attributes["dra.example.com"].name',
        driver=DRIVER,
        attributes=flag(True),
        expect_match=True,
    ),
    "int": Case(
        'device.attributes["dra.example.com"].name > 0',
        driver=DRIVER,
        attributes={"name": DeviceAttribute(int_value=1)},
        expect_match=True,
    ),
    "string": Case(
        'device.attributes["dra.example.com"].name == "fish"',
        driver=DRIVER,
        attributes={"name": DeviceAttribute(string_value="fish")},
        expect_match=True,
    ),
    "attribute-access-causes-match-error": Case(
        'device.attributes["dra.example.com"].names',
        driver=DRIVER,
        # A list value (DRAListTypeAttributes, off) is not read: no scalar is set.
        attributes={"names": DeviceAttribute()},
        expect_match_error="attribute names: unsupported attribute value",
    ),
    "version": Case(
        'device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))',
        driver=DRIVER,
        attributes={"name": DeviceAttribute(version_value="1.0.0")},
        expect_match=True,
    ),
    "version_v": Case(
        'device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true))'
        ' && isSemver("v1.0.0", true)',
        driver=DRIVER,
        attributes={"name": DeviceAttribute(version_value="1.0.0")},
        expect_match=True,
    ),
    "quantity": Case(
        'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        driver=DRIVER,
        capacity=capacity("1Mi"),
        expect_match=True,
    ),
    "check-positive": Case(
        '"name" in device.capacity["dra.example.com"] &&'
        ' device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        driver=DRIVER,
        capacity=capacity("1Mi"),
        expect_match=True,
    ),
    "check-negative": Case(
        '!("name" in device.capacity["dra.example.com"]) ||'
        ' device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        expect_match=True,
    ),
    "all": Case(
        """
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
""",
        driver=DRIVER,
        attributes={
            "bool": DeviceAttribute(bool_value=True),
            "int": DeviceAttribute(int_value=1),
            "string": DeviceAttribute(string_value="fish"),
            "version": DeviceAttribute(version_value="1.0.0"),
        },
        capacity={"quantity": DeviceCapacity(Quantity.parse("1Mi"))},
        expect_match=True,
    ),
    "many": Case(
        'device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b'
        ' && device.attributes["dra.example.com"].c',
        driver=DRIVER,
        attributes={name: DeviceAttribute(bool_value=True) for name in "abc"},
        expect_match=True,
    ),
    "check_attribute_domains": Case(
        'device.attributes.exists_one(x, x == "dra.example.com")',
        driver=DRIVER,
        attributes={"services": DeviceAttribute(string_value="some_example_value")},
        expect_match=True,
    ),
    "check_attribute_ids": Case(
        'device.attributes["dra.example.com"].exists_one(x, x == "services")',
        driver=DRIVER,
        attributes={"services": DeviceAttribute(string_value="some_example_value")},
        expect_match=True,
    ),
    "split_attribute": Case(
        'device.attributes["dra.example.com"].services.split("example").size() >= 2',
        driver=DRIVER,
        attributes={"services": DeviceAttribute(string_value="some_example_value")},
        expect_match=True,
    ),
    "regexp_attribute": Case(
        'device.attributes["dra.example.com"].services.matches("[^a]?sym")',
        driver=DRIVER,
        attributes={"services": DeviceAttribute(string_value="asymetric")},
        expect_match=True,
    ),
    "check_capacity_domains": Case(
        'device.capacity.exists_one(x, x == "dra.example.com")',
        driver=DRIVER,
        capacity={"memory": DeviceCapacity(Quantity.parse("1Mi"))},
        expect_match=True,
    ),
    "check_capacity_ids": Case(
        'device.capacity["dra.example.com"].exists_one(x, x == "memory")',
        driver=DRIVER,
        capacity={"memory": DeviceCapacity(Quantity.parse("1Mi"))},
        expect_match=True,
    ),
    "allow_multiple_allocations": Case(
        "device.allowMultipleAllocations == true",
        driver=DRIVER,
        allow_multiple_allocations=True,
        expect_match=True,
    ),
    "allow_multiple_allocations_default": Case(
        "device.allowMultipleAllocations == false", driver=DRIVER, expect_match=True
    ),
    "allow_multiple_allocations_false": Case(
        "device.allowMultipleAllocations == false",
        driver=DRIVER,
        allow_multiple_allocations=False,
        expect_match=True,
    ),
    # Upstream runs these two in the new-expressions environment; with DRAConsumableCapacity on
    # it declares the same device type as the stored one.
    "allow_multiple_allocations_new": Case(
        "device.allowMultipleAllocations == false",
        driver=DRIVER,
        allow_multiple_allocations=False,
        expect_match=True,
    ),
    "allow_multiple_allocations_enabled": Case(
        "device.allowMultipleAllocations == false",
        driver=DRIVER,
        allow_multiple_allocations=False,
        expect_match=True,
    ),
}


def includes_case(argument: str, attribute: DeviceAttribute, match: bool) -> Case:
    return Case(
        f'device.attributes["dra.example.com"].name.includes({argument})',
        driver=DRIVER,
        attributes={"name": attribute},
        expect_match=match,
    )


# Upstream runs the "includes" cases with DRAListTypeAttributes on; the stored-expressions
# environment declares the function whatever the gate, so on scalars they hold for v1.36 too.
CASES.update(
    {
        "includes-function-on-bool-scalar-positive": includes_case(
            "true", DeviceAttribute(bool_value=True), True
        ),
        "includes-function-on-bool-scalar-negative": includes_case(
            "true", DeviceAttribute(bool_value=False), False
        ),
        "includes-function-on-int-scalar-positive": includes_case(
            "1", DeviceAttribute(int_value=1), True
        ),
        "includes-function-on-int-scalar-negative": includes_case(
            "1", DeviceAttribute(int_value=2), False
        ),
        "includes-function-on-string-scalar-positive": includes_case(
            '"fish"', DeviceAttribute(string_value="fish"), True
        ),
        "includes-function-on-string-scalar-negative": includes_case(
            '"bird"', DeviceAttribute(string_value="fish"), False
        ),
        "includes-function-on-semver-scalar-positive": includes_case(
            'semver("1.0.0")', DeviceAttribute(version_value="1.0.0"), True
        ),
        "includes-function-on-semver-scalar-negative": includes_case(
            'semver("2.0.0")', DeviceAttribute(version_value="1.0.0"), False
        ),
    }
)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_cel(case: Case) -> None:
    result = compile_cel_expression(case.expression)
    if case.expect_compile_error:
        assert result.error is not None
        assert case.expect_compile_error in result.error
        return
    assert result.error is None
    device = Device(case.driver, case.attributes, case.capacity, case.allow_multiple_allocations)
    match, error = result.device_matches(device)
    if case.expect_match_error:
        assert error is not None
        assert case.expect_match_error in error
        return
    assert error is None
    assert match == case.expect_match


def test_a_non_boolean_result_is_a_match_error():
    """Upstream refuses ``1`` at compile time (no type checker here: at evaluation)."""
    match, error = compile_cel_expression("1").device_matches(Device("", {}, {}))
    assert not match
    assert error == (
        "CEL result of type int could not be converted to bool:"
        " type conversion error from 'int' to 'bool'"
    )


@pytest.mark.parametrize(
    ("predicate", "attribute", "go_type"),
    [
        pytest.param("x > 0", DeviceAttribute(int_value=1), "types.Int", id="macro-exists-on-int"),
        pytest.param(
            "x == true", DeviceAttribute(bool_value=True), "types.Bool", id="macro-exists-on-bool"
        ),
        pytest.param(
            'x == "fish"',
            DeviceAttribute(string_value="fish"),
            "types.String",
            id="macro-exists-on-string",
        ),
        pytest.param(
            'x.isGreaterThan(semver("0.0.1"))',
            DeviceAttribute(version_value="1.0.0"),
            "cel.Semver",
            id="macro-exists-on-version",
        ),
    ],
)
def test_a_macro_over_a_scalar_is_a_match_error(
    predicate: str, attribute: DeviceAttribute, go_type: str
) -> None:
    """Upstream's runtime error (its list-gate cases); with the gate off cel-go's checker
    refuses the range at compile time, celpy (no checker) when matching. celpy alone would
    range over a string's characters and crash on a number."""
    expression = f'device.attributes["dra.example.com"].name.exists(x, {predicate})'
    device = Device(DRIVER, {"name": attribute}, {})
    match, error = compile_cel_expression(expression).device_matches(device)
    assert not match
    assert error == f"got '{go_type}', expected iterable type"


def test_includes_refuses_lists_longer_than_the_attribute_limit() -> None:
    values = ", ".join(f'"value-{i}"' for i in range(49))
    match, error = compile_cel_expression(f'[{values}].includes("value-49")').device_matches(
        Device("", {}, {})
    )
    assert not match
    assert error == "'includes' function cannot be applied to lists longer than 48 values"
    assert compile_cel_expression(f'[{values}].includes("value-47")').device_matches(
        Device("", {}, {})
    ) == (True, None)


def test_cache_semantic() -> None:
    """Upstream's TestCacheSemantic with a syntax error as the failure (celpy has no checker
    to refuse ``no-such-variable`` at compile time)."""
    cache = Cache(2)
    result_true = cache.get_or_compile("true")
    assert result_true.error is None
    assert cache.get_or_compile("true") is result_true
    # Failures are not cached.
    failed = cache.get_or_compile("?!")
    assert failed.error is not None
    assert cache.get_or_compile("?!") is not failed
    # A second entry fits.
    result_false = cache.get_or_compile("false")
    assert cache.get_or_compile("false") is result_false
    assert cache.get_or_compile("true") is result_true
    # A third pushes out the least recently used one ("false").
    other = cache.get_or_compile("false && true")
    assert cache.get_or_compile("false && true") is other
    assert cache.get_or_compile("false") is not result_false


# Quantity and semver libraries: the cases of apiserver/pkg/cel/library quantity_test.go and
# semver_test.go that a selector can meet.
LIBRARY = {
    "quantity equals itself in another form": ('quantity("1Mi") == quantity("1024Ki")', True),
    "isQuantity": ('isQuantity("20") && !isQuantity("200M^2")', True),
    "compareTo": ('quantity("200M").compareTo(quantity("0.2G")) == 0', True),
    "isLessThan": ('quantity("50M").isLessThan(quantity("100M"))', True),
    "sign": ('quantity("-50").sign() == -1 && quantity("0").sign() == 0', True),
    "add quantity": ('quantity("50k").add(quantity("20")) == quantity("50.02k")', True),
    "add int": ('quantity("50k").add(20).isLessThan(quantity("50020"))', False),
    "sub int": ('quantity("50k").sub(20) == quantity("49980")', True),
    "asInteger": ('quantity("50k").asInteger() == 50000', True),
    "isInteger": ('quantity("50m").isInteger()', False),
    "asApproximateFloat": ('quantity("50.703k").asApproximateFloat() == 50703.0', True),
    "semver": ('semver("1.2.3") == semver("1.2.3")', True),
    "semver build ignored": ('semver("1.2.3+build") == semver("1.2.3")', True),
    "semver prerelease is lower": ('semver("1.0.0-alpha").isLessThan(semver("1.0.0"))', True),
    "semver prerelease order": (
        'semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta"))',
        True,
    ),
    "semver parts": (
        'semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2'
        ' && semver("1.2.3").patch() == 3',
        True,
    ),
    "isSemver strict": ('isSemver("v1.0") || isSemver("01.0.0")', False),
    "isSemver normalized": ('isSemver("v1.0", true) && isSemver("01.0.0", true)', True),
    "semver compareTo": ('semver("1.2.3").compareTo(semver("2.0.0")) == -1', True),
    "strings": (
        '"ABC".lowerAscii() == "abc" && " x ".trim() == "x" && "a,b".split(",").size() == 2',
        True,
    ),
}


@pytest.mark.parametrize(("expression", "want"), LIBRARY.values(), ids=LIBRARY.keys())
def test_kubernetes_cel_libraries(expression: str, want: bool) -> None:
    assert compile_cel_expression(expression).device_matches(Device("", {}, {})) == (want, None)


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ('quantity("200M^2") == quantity("1")', "quantities must match the regular expression"),
        ('semver("1.0") == semver("1.0.0")', "No Major.Minor.Patch elements found"),
        ('quantity("1").compareTo(semver("1.0.0")) == 0', "no such overload"),
        ('quantity("1.5").asInteger() == 1', "cannot convert value to integer"),
    ],
)
def test_library_failures_are_match_errors(expression: str, error: str) -> None:
    match, got = compile_cel_expression(expression).device_matches(Device("", {}, {}))
    assert not match
    assert got is not None and error in got


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Version string empty"),
        ("1.2", "No Major.Minor.Patch elements found"),
        ("a.2.3", 'Invalid character(s) found in major number "a"'),
        ("01.2.3", 'Major number must not contain leading zeroes "01"'),
        ("1.02.3", 'Minor number must not contain leading zeroes "02"'),
        ("1.2.x", 'Invalid character(s) found in patch number "x"'),
        ("1.2.3-", "Prerelease is empty"),
        ("1.2.3-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ("1.2.3-a_b", 'Invalid character(s) found in prerelease "a_b"'),
        ("1.2.3+", "Build meta data is empty"),
    ],
)
def test_semver_parse_errors_are_blang_semvers(text: str, message: str) -> None:
    with pytest.raises(SemverError) as raised:
        Semver.parse(text)
    assert str(raised.value) == message
