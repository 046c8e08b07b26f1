"""Every page of the front needs a login, whatever the method."""

import pytest
from django.urls import URLPattern, reverse

from playground.front.urls import urlpatterns

PUBLIC = {"login", "logout"}
ARGS = {
    "slug": "lab",
    "pk": 1,
    "uid": "uid-web",
    "number": 1,
    "namespace": "default",
    "name": "g",
    "index": 0,
    "fmt": "json",
}


def page_urls() -> list[tuple[str, str]]:
    urls = []
    for pattern in urlpatterns:
        assert isinstance(pattern, URLPattern)
        if pattern.name in PUBLIC:
            continue
        kwargs = {name: ARGS[name] for name in pattern.pattern.converters}
        urls.append((pattern.name, reverse(pattern.name, kwargs=kwargs)))
    return urls


@pytest.mark.parametrize(("name", "url"), page_urls(), ids=[name for name, _ in page_urls()])
def test_anonymous_requests_are_sent_to_log_in(client, workspace, name, url):
    for method in (client.get, client.post):
        response = method(url)
        if response.status_code == 405:  # POST-only views refuse a GET before anything else
            continue
        assert response.status_code == 302, (method, url)
        assert response["Location"].startswith("/login/?next=")
