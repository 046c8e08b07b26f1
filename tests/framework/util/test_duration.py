"""Go duration text, as kube-scheduler prints it in YAML and messages."""

from datetime import timedelta

import pytest

from framework.util.duration import format_duration, parse_duration


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0s"),
        (1, "1s"),
        (1.5, "1.5s"),
        (10, "10s"),
        (90, "1m30s"),
        (600, "10m0s"),
        (3600, "1h0m0s"),
        (0.5, "500ms"),
        (0.0015, "1.5ms"),
        (2e-6, "2µs"),
        (-2, "-2s"),
    ],
)
def test_format_duration_matches_go(seconds, text):
    assert format_duration(seconds) == text


def test_format_duration_accepts_timedelta():
    assert format_duration(timedelta(minutes=10)) == "10m0s"


@pytest.mark.parametrize(
    ("text", "want"),
    [("10m0s", 600), ("1.5s", 1.5), ("1h", 3600), ("250ms", 0.25), ("0", 0), ("-1m", -60)],
)
def test_parse_duration_reads_go_text(text, want):
    assert parse_duration(text).total_seconds() == want


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("10", 'time: missing unit in duration "10"'),
        ("abc", 'time: invalid duration "abc"'),
        ("", 'time: invalid duration ""'),
        ("1x", 'time: unknown unit "x" in duration "1x"'),
    ],
)
def test_parse_duration_rejects_bad_text_with_go_wording(text, message):
    with pytest.raises(ValueError) as error:
        parse_duration(text)
    assert str(error.value) == message
