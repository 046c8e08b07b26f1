"""framework.compare and framework.explain export their API without importing it at start."""

from __future__ import annotations

import subprocess
import sys

import pytest

import framework.compare
import framework.explain
from framework.compare.variant import run_variant
from framework.explain.explanation import explain_pod


def test_a_name_is_the_one_its_module_defines():
    assert framework.compare.run_variant is run_variant
    assert framework.explain.explain_pod is explain_pod
    from framework.compare import compare_results  # noqa: F401 (the import is the test)


def test_an_unknown_name_is_an_attribute_error_naming_the_package():
    unknown = r"module 'framework\.compare' has no attribute 'nope'"
    with pytest.raises(AttributeError, match=unknown):
        framework.compare.nope  # noqa: B018 (the lookup is the test)


def test_importing_the_package_imports_none_of_its_modules():
    code = (
        "import sys, framework.compare, framework.explain; "
        "print(sorted(m for m in sys.modules if m.startswith(('framework.compare.', "
        "'framework.explain.'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
