"""ASGI entry point: HTTP through Django, websockets through Channels (auth + origin check)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402 - needs Django set up first
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from playground.live.routing import websocket_urlpatterns  # noqa: E402
from playground.scheduling.embedded_worker import start_embedded_worker_if_serving  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

# The embedded worker starts here, once the application is built, rather than in an app's
# ready(): a server loads this module after its start-up checks have imported the project, so
# no thread of the worker imports a module while the main thread is still importing it (two
# threads importing the same modules at once fail with ImportError or _DeadlockError).
start_embedded_worker_if_serving()
