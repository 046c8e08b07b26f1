"""URL routes of the playground."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic.base import RedirectView


class FaviconView(RedirectView):
    """``/favicon.ico``, which browsers ask for on pages that name no icon (the admin's)."""

    permanent = True

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("img/favicon.svg")


urlpatterns = [
    path("favicon.ico", FaviconView.as_view()),
    path("admin/", admin.site.urls),
    path("connections/", include("playground.clusters.urls")),
    path("", include("playground.metrics.urls")),
    path("", include("playground.front.urls")),
]
