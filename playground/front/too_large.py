"""A form too large to read is answered in words, and the text in the browser is kept.

Django refuses a POST whose fields pass ``DATA_UPLOAD_MAX_MEMORY_SIZE`` when the view first
reads them, with a bare "400 Bad Request". Here that becomes a message naming the size and the
limit: for htmx requests it goes to the page's alert line (``#request-problem`` in base.html)
and leaves the form alone, so what was pasted is still there to trim or upload as a file.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

STATUS = 413
"""Content Too Large, for a page load."""
HTMX_STATUS = 422
"""For htmx: an answer base.html's ``htmx-config`` swaps (it leaves 4xx others alone)."""


class RequestTooLargeMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, RequestDataTooBig):
            return None
        message = too_large_message(request)
        if getattr(request, "htmx", False):
            response = HttpResponse(
                message, content_type="text/plain; charset=utf-8", status=HTMX_STATUS
            )
            response["HX-Retarget"] = "#request-problem"
            response["HX-Reswap"] = "textContent"
            return response
        return render(request, "front/too_large.html", {"message": message}, status=STATUS)


def too_large_message(request: HttpRequest) -> str:
    """What was sent and what is taken, in MiB."""
    sent = int(request.META.get("CONTENT_LENGTH") or 0)
    limit = settings.MAX_MANIFEST_BYTES
    return (
        f"The form sent {_mib(sent)} MiB, more than the {_mib(limit)} MiB a form takes: "
        "nothing was saved. Split the text into several imports."
    )


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f}"
