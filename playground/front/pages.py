"""One view, two answers: the whole page for a browser, the fragment for an htmx request.

Pages include their fragments, so the same template renders both ways and a link followed
without JavaScript shows what htmx would have swapped in.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import patch_vary_headers
from django_htmx.http import HttpResponseClientRedirect


def render_page(
    request: HttpRequest,
    page: str,
    fragment: str,
    context: dict[str, Any],
    status: int = 200,
) -> HttpResponse:
    """``fragment`` when htmx asks (and is not boosting a whole page), otherwise ``page``."""
    htmx = getattr(request, "htmx", None)
    template = fragment if htmx and not htmx.boosted else page
    response = render(request, template, context, status=status)
    # Caches must not serve a fragment to a browser asking for the page, or the reverse.
    patch_vary_headers(response, ("HX-Request",))
    return response


def redirect_page(request: HttpRequest, to: Any) -> HttpResponse:
    """A redirect that htmx follows as a whole page load instead of swapping the page in."""
    response = redirect(to)
    if getattr(request, "htmx", None):
        return HttpResponseClientRedirect(response["Location"])
    return response
