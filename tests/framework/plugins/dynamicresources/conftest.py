"""The allocator table's runner asserts outside a test module: let pytest explain its failures."""

import pytest

pytest.register_assert_rewrite("tests.framework.plugins.dynamicresources.allocator_table")
