"""Comparisons in the admin: listed and shown with their variants, never added or edited."""

import pytest
from django.contrib.auth import get_user_model

from playground.compare.models import SNAPSHOT, Comparison, ComparisonVariant

ADMIN = "/admin/compare/comparison/"


@pytest.fixture
def admin_client(client, db):
    client.force_login(get_user_model().objects.create_superuser("root", password="x"))
    return client


def test_a_comparison_is_shown_with_its_variants_and_cannot_be_changed(admin_client, workspace):
    comparison = Comparison.objects.create(
        workspace=workspace, source=SNAPSHOT, source_label="pasted", inputs_text="{}"
    )
    ComparisonVariant.objects.create(comparison=comparison, index=0, name="spread", config_text="")
    assert "Lab comparison" in admin_client.get(ADMIN).content.decode()
    page = admin_client.get(f"{ADMIN}{comparison.pk}/change/").content.decode()
    assert "spread" in page and 'name="_save"' not in page
    assert admin_client.get(f"{ADMIN}add/").status_code == 403
