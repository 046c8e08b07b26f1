"""Answers ``/healthz``, ``/livez``, ``/readyz`` (and ``/<endpoint>/<check>``) before the rest.

A middleware, placed right after SecurityMiddleware, rather than views: kubelet's probes
connect to the pod's IP and send it as the Host header, which ALLOWED_HOSTS refuses (400) in
CommonMiddleware; the answers hold no address, so any host may ask. They need no login (a probe
has no session) and reveal nothing but the checks' names. SECURE_REDIRECT_EXEMPT keeps them on
plain HTTP when HTTPS is required (settings: PLAYGROUND_HTTPS).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from playground.health import healthz
from playground.health.web_checks import endpoints


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        endpoint, _, name = request.path.strip("/").partition("/")
        checks = endpoints().get(endpoint)
        if checks is None or request.path.endswith("/"):
            return self.get_response(request)
        if not name:
            return _plain(healthz.answer(endpoint, checks, dict(request.GET.lists())))
        named = next((check for check in checks if check.name == name), None)
        if named is None:
            return HttpResponse("404 page not found\n", status=404, content_type=_TEXT)
        return _plain(healthz.answer_one(named))


_TEXT = "text/plain; charset=utf-8"


def _plain(answer: healthz.Answer) -> HttpResponse:
    response = HttpResponse(answer.body, status=answer.status, content_type=_TEXT)
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "no-store"
    return response
