"""Who may read ``/metrics``: a scraper with the bearer token, or a staff member's session."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest

BEARER = "Bearer "


def may_scrape(request: HttpRequest) -> bool:
    """True for ``Authorization: Bearer <METRICS_TOKEN>`` (compared in constant time; no token
    configured means no scraper is let in this way) or a logged-in staff member."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    token = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    if not token or not header.startswith(BEARER):
        return False
    return hmac.compare_digest(header[len(BEARER) :].encode(), token.encode())
