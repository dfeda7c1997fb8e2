"""The review console: a Starlette app serving the queue, flag pages, document pages and decisions.

Server-rendered (Jinja2, autoescaped, :mod:`console.pages`) with a small script for keyboard shortcuts.
:func:`create_app` composes the pages' routers (:mod:`console.routes`, one module a family) behind the
server-side sessions (:mod:`console.sessions`) and :class:`~console.guard.Guard`, the one place security
is: every request passes it. The handlers share one typed :class:`~console.state.ConsoleState`, held as
``app.state.console``. A parameter they do not accept (:class:`~console.params.BadParameter`) is answered
here, with the error page (400). Static assets are served by Starlette's ``StaticFiles`` inside the
package.
"""

from __future__ import annotations

from importlib import resources

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from console.guard import Guard
from console.pages import error, templates
from console.params import BadParameter
from console.routes import auth, changes, decisions, documents, flags, queue
from console.sessions import Sessions
from console.state import ConsoleConfig, ConsoleState, DecisionHook

__all__ = ["ConsoleConfig", "DecisionHook", "create_app"]


def create_app(config: ConsoleConfig) -> Starlette:
    """The console as an ASGI app.

    Args:
        config: What the console serves and how.

    Returns:
        The app: its routes are every page family's, then the static assets.
    """
    static = resources.files("console").joinpath("static")
    routes: list[BaseRoute] = [
        *auth.ROUTES,
        *queue.ROUTES,
        *flags.ROUTES,
        *decisions.ROUTES,
        *documents.ROUTES,
        *changes.ROUTES,
        Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
    ]
    middleware = [
        Middleware(Sessions, config=config),
        Middleware(Guard, origin=config.origin, https=config.secure_cookie),
    ]
    app = Starlette(routes=routes, middleware=middleware, exception_handlers={BadParameter: _bad_parameter})
    app.state.console = ConsoleState.of(config, templates())
    return app


async def _bad_parameter(request: Request, exc: Exception) -> Response:
    """A parameter the console does not accept: the error page naming it and what it accepts (400)."""
    return error(request, 400, str(exc))
