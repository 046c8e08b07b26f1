"""The selector verdict cache answers as an evaluation would, per device object and driver."""

from __future__ import annotations

from unittest import mock

from framework.api.resource_slice import Device as SliceDevice
from framework.api.resource_slice import DeviceAttribute
from framework.plugins.dynamicresources.cel.compile import CompilationResult, compile_uncached
from framework.plugins.dynamicresources.cel.verdicts import VerdictCache

MODEL_A100 = 'device.attributes["dra.example.com"].model == "A100"'


def gpu(model: str) -> SliceDevice:
    return SliceDevice("gpu-0", attributes={"model": DeviceAttribute(string_value=model)})


def test_a_device_seen_before_is_not_evaluated_again() -> None:
    cache, expression, device = VerdictCache(10), compile_uncached(MODEL_A100), gpu("A100")
    with mock.patch.object(
        CompilationResult, "device_matches", autospec=True, return_value=(True, None)
    ) as evaluate:
        answers = [cache.device_matches(expression, device, "dra.example.com") for _ in range(3)]
    assert answers == [(True, None)] * 3
    assert evaluate.call_count == 1


def test_an_equal_but_new_device_is_evaluated_as_a_replaced_slice_would_be() -> None:
    cache, expression = VerdictCache(10), compile_uncached(MODEL_A100)
    assert cache.device_matches(expression, gpu("A100"), "dra.example.com") == (True, None)
    assert cache.device_matches(expression, gpu("H100"), "dra.example.com") == (False, None)
    assert len(cache) == 2


def test_the_driver_is_part_of_the_question() -> None:
    cache, expression, device = VerdictCache(10), compile_uncached(MODEL_A100), gpu("A100")
    assert cache.device_matches(expression, device, "dra.example.com") == (True, None)
    # Under another driver the bare attribute name belongs to that driver's domain.
    assert cache.device_matches(expression, device, "other.example.com") == (
        False,
        "no such key: model",
    )


def test_runtime_errors_are_remembered_like_answers() -> None:
    cache, expression = VerdictCache(10), compile_uncached("device.attributes['x'].missing")
    device = gpu("A100")
    first = cache.device_matches(expression, device, "dra.example.com")
    assert first == cache.device_matches(expression, device, "dra.example.com")
    assert first[0] is False and first[1] == "no such key: missing"


def test_it_keeps_only_the_most_recently_used_entries() -> None:
    cache, expression = VerdictCache(2), compile_uncached(MODEL_A100)
    first, second, third = gpu("A100"), gpu("A100"), gpu("A100")
    for device in (first, second, first, third):
        cache.device_matches(expression, device, "dra.example.com")
    assert len(cache) == 2
    with mock.patch.object(
        CompilationResult, "device_matches", autospec=True, return_value=(True, None)
    ) as evaluate:
        cache.device_matches(expression, first, "dra.example.com")  # kept: used after second
        cache.device_matches(expression, second, "dra.example.com")  # evicted
    assert evaluate.call_count == 1
