"""Status: codes, messages, and the None-is-success convention."""

import pytest

from framework.interface.status import (
    Code,
    Status,
    StatusError,
    code_of,
    is_rejected,
    is_skip,
    is_success,
    wrap_error,
)


def test_codes_print_with_upstream_names_in_upstream_order():
    assert [str(code) for code in Code] == [
        "Success",
        "Error",
        "Unschedulable",
        "UnschedulableAndUnresolvable",
        "Wait",
        "Skip",
        "Pending",
    ]
    assert [int(code) for code in Code] == list(range(7))


def test_the_message_joins_reasons_with_a_comma():
    assert Status(Code.UNSCHEDULABLE, "a", "b").message() == "a, b"


def test_an_error_comes_first_in_reasons():
    status = Status(Code.ERROR, "detail", err=StatusError("boom"))
    assert status.all_reasons() == ["boom", "detail"]
    assert status.message() == "boom, detail"


@pytest.mark.parametrize(
    ("code", "rejected"),
    [
        (Code.SUCCESS, False),
        (Code.ERROR, False),
        (Code.UNSCHEDULABLE, True),
        (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, True),
        (Code.WAIT, False),
        (Code.SKIP, False),
        (Code.PENDING, True),
    ],
)
def test_rejected_means_unschedulable_unresolvable_or_pending(code, rejected):
    assert Status(code).is_rejected() is rejected
    assert is_rejected(Status(code)) is rejected


def test_none_behaves_as_success():
    assert is_success(None)
    assert code_of(None) == Code.SUCCESS
    assert not is_skip(None)
    assert not is_rejected(None)
    assert Status(Code.SUCCESS) == None  # noqa: E711 - the convention under test


@pytest.mark.parametrize(
    ("code", "has_error"),
    [(Code.SUCCESS, False), (Code.WAIT, False), (Code.SKIP, False), (Code.ERROR, True)],
)
def test_as_error_is_none_for_success_wait_and_skip(code, has_error):
    assert (Status(code, "x").as_error() is not None) is has_error


def test_wrap_error_prefixes_the_original_message():
    wrapped = wrap_error(Status(Code.UNSCHEDULABLE, "a", "b"), 'running "X" filter plugin')
    assert wrapped.code == Code.ERROR
    assert wrapped.message() == 'running "X" filter plugin: a, b'


def test_equality_compares_code_reasons_and_plugin():
    assert Status(Code.UNSCHEDULABLE, "a").with_plugin("P") == Status(
        Code.UNSCHEDULABLE, "a"
    ).with_plugin("P")
    assert Status(Code.UNSCHEDULABLE, "a") != Status(Code.UNSCHEDULABLE, "b")
    assert Status(Code.UNSCHEDULABLE, "a") != Status(Code.UNSCHEDULABLE, "a").with_plugin("P")


def test_clone_is_independent():
    original = Status(Code.UNSCHEDULABLE, "a").with_plugin("P")
    copy = original.clone()
    copy.append_reason("b")
    assert original.all_reasons() == ["a"]
    assert copy.plugin == "P"
