"""``tieout review``: serve the analyst review console; ``adduser``, ``passwd``, ``deluser`` manage logins.

The web app, its server, the review stores and the users' module (which hashes a dummy password when
imported) are imported inside the commands: every command module is imported for every command, and the
others, the restarted services above all, should not pay for them at start-up.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from adapters.settings import Settings
from tieout.commands import common
from tieout.commands.common import console, fail, refused

if TYPE_CHECKING:
    import uvicorn

    from adapters.review.store import ReviewStore
    from console.app import ConsoleConfig

__all__ = ["app", "review", "review_adduser", "review_deluser", "review_passwd", "review_store"]

app = typer.Typer(
    help="The analyst review console: judge flags on the evidence (serve; adduser, passwd, deluser).",
)


@app.callback(invoke_without_command=True)
def review(
    ctx: typer.Context,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Folder of a `tieout run` (embedded mode).")
    ] = None,
    pdfs: Annotated[
        list[Path] | None,
        typer.Option(help="Folder(s) holding the run's PDFs (repeatable; default: the current folder)."),
    ] = None,
    services: Annotated[
        bool, typer.Option(help="Serve the services' results: flags from PostgreSQL, PDFs from the store.")
    ] = False,
    env_file: common.EnvFile = None,
    host: Annotated[str, typer.Option(help="Address to listen on (loopback unless you mean otherwise).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8700,
    users: Annotated[Path, typer.Option(help="Users file (see `tieout review adduser`).")] = Path(
        ".tieout/review-users.json"
    ),
    secure_cookie: Annotated[bool, typer.Option(help="Mark the session cookie Secure (HTTPS only).")] = False,
    public_url: Annotated[
        str | None,
        typer.Option(
            help="Where analysts open the console (scheme://host[:port]) when it is not --host and --port, "
            "e.g. behind a proxy: requests that change anything must come from there.",
        ),
    ] = None,
    publish: Annotated[
        bool | None,
        typer.Option(
            "--publish/--no-publish",
            help="Publish decisions to the reviews topic (default: with --services; KAFKA_* settings).",
        ),
    ] = None,
) -> None:
    """Serve the review console for an embedded run (--out DIR) or for the services (--services)."""
    if ctx.invoked_subcommand is not None:
        return
    import uvicorn

    from console.app import create_app
    from console.guard import require_origin

    if (out is None) == (not services):
        raise typer.BadParameter("give --out DIR (a `tieout run` folder) or --services", param_hint="--out")
    try:
        origin = require_origin(public_url) if public_url is not None else None
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--public-url") from exc
    with refused(FileNotFoundError, ValueError, ConnectionError):
        config = _review_config(out, pdfs or [Path(".")], services, env_file, users, secure_cookie)
    if host not in ("127.0.0.1", "localhost", "::1"):
        console.print(f"[yellow]listening on {host}: the console is reachable from other machines[/]")
    sock = _bind(host, port)
    config = replace(config, origin=origin or _own_origin(host, sock.getsockname()[1], secure_cookie))
    server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning", proxy_headers=False))
    if not (services if publish is None else publish):
        server.run(sockets=[sock])
        return
    settings = Settings.load(env_file)
    console.print(f"publishing decisions to {settings.topic('reviews')} on {settings.kafka_bootstrap}")
    asyncio.run(_serve_and_publish(server, sock, config.store, settings))


def _own_origin(host: str, port: int, secure: bool) -> str | None:
    """The origin analysts open a console listening on ``host:port`` at, when it can be known.

    None (each request's ``Host`` decides, :class:`console.guard.Guard`) for a wildcard address, which
    names no host, and behind an HTTPS proxy (``--secure-cookie``), whose address is not this one: give
    ``--public-url`` there to pin it.
    """
    if secure or host in ("0.0.0.0", "::", ""):
        console.print("[yellow]no --public-url: each request's Host header is taken as its origin[/]")
        return None
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, announced on the console; exit 2 when it cannot be bound.

    Bound here rather than by the server, so that a port in use is a clear error and ``--port 0`` can say
    which port it got.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror}; choose another --port", 2) from exc
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    console.print(f"tieout review on http://{shown}:{bound}/ (Ctrl-C to stop)")
    return sock


async def _serve_and_publish(
    server: uvicorn.Server, sock: socket.socket, store: ReviewStore, settings: Settings
) -> None:
    """Serve the console while a publisher copies its decisions to the reviews topic (outbox)."""
    from consumers.outbox import ReviewPublisher, kafka_publish
    from schemas.topology import Topic

    stop = asyncio.Event()
    publisher = asyncio.create_task(
        ReviewPublisher(store, kafka_publish(settings), settings.topic(Topic.REVIEWS)).run(stop)
    )
    try:
        await server.serve(sockets=[sock])
    finally:
        stop.set()
        await publisher


def review_store(out: Path | None, services: bool, env_file: Path | None) -> ReviewStore:
    """The decisions' store: the run folder's SQLite file (embedded) or the services' PostgreSQL.

    Args:
        out: The folder of a ``tieout run`` (embedded mode), or None.
        services: The services' store instead (``--services``).
        env_file: Settings file of the services (default ``.tieout/stack.env``).

    Returns:
        The store.

    Raises:
        typer.BadParameter: Neither or both of ``out`` and ``services`` given.
        FileNotFoundError: The run folder holds no review store.
        ValueError: The services' settings name no PostgreSQL.
        ConnectionError: The services' PostgreSQL cannot be reached (the message is one line).
    """
    from adapters.review.sqlite import SqliteReviewStore

    if (out is None) == (not services):
        raise typer.BadParameter("give --out DIR (a `tieout run` folder) or --services", param_hint="--out")
    if out is not None:
        return SqliteReviewStore.for_run(out)
    import psycopg

    from adapters.review.postgres import PostgresReviewStore

    settings = Settings.load(env_file)
    if not settings.pg_dsn:
        raise ValueError("--services needs PG_DSN (from .tieout/stack.env, or the environment)")
    try:
        return PostgresReviewStore(settings.pg_dsn)
    except psycopg.OperationalError as exc:
        raise ConnectionError(_unreachable(settings.pg_dsn, exc)) from exc


def _unreachable(dsn: str, exc: Exception) -> str:
    """One line saying which database cannot be reached and why, without the DSN's password."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    try:
        info = conninfo_to_dict(dsn)
        where = f"{info.get('user') or ''}@{info.get('host') or 'localhost'}:{info.get('port') or 5432}"
        where += f"/{info.get('dbname') or ''}"
    except psycopg.ProgrammingError:
        where = "PG_DSN"
    # libpq's message: "connection failed: connection to server at ... failed: <why>\n\tIs the server..."
    first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
    why = " ".join(first.rsplit(" failed: ", 1)[-1].split())
    return f"cannot reach the review database {where}: {why} (is PostgreSQL up, and PG_DSN right?)"


def _review_config(
    out: Path | None, pdfs: list[Path], services: bool, env_file: Path | None, users: Path, secure: bool
) -> ConsoleConfig:
    """Compose the console: a store, the page images and the users (embedded or services mode)."""
    from adapters.review.documents import LocalDocuments, PageImages, StoreDocuments
    from console.app import ConsoleConfig
    from console.auth import Users, session_secret

    user_list = Users.load(users)
    secret = session_secret(users.parent / "review-session.secret")
    store = review_store(out, services, env_file)
    if out is not None:
        images = PageImages(LocalDocuments(pdfs))
    else:
        from adapters.storage import ObjectStore

        settings = Settings.load(env_file)
        images = PageImages(StoreDocuments(ObjectStore(settings), settings.landing_bucket))
    return ConsoleConfig(store=store, images=images, users=user_list, secret=secret, secure_cookie=secure)


UsersOption = Annotated[Path, typer.Option("--users", help="Users file.")]
PasswordStdin = Annotated[bool, typer.Option(help="Read the password from standard input (for scripts).")]
StoreOut = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Also end the user's sessions in this run folder's review store."),
]
StoreServices = Annotated[
    bool, typer.Option(help="Also end the user's sessions in the services' review store (PostgreSQL).")
]
DEFAULT_USERS = Path(".tieout/review-users.json")


@app.command("adduser")
def review_adduser(
    name: Annotated[str, typer.Argument(help="User name (letters, digits, . _ @ -).")],
    users: UsersOption = DEFAULT_USERS,
    display: Annotated[str | None, typer.Option(help="Name shown in the console.")] = None,
    password_stdin: PasswordStdin = False,
) -> None:
    """Create a console user (or set a new password); the file keeps only a scrypt hash (mode 0600)."""
    from console.auth import add_user

    with refused(ValueError):
        new = add_user(users, name, _password(password_stdin), display=display)
    console.print(f"{'added' if new else 'updated'} {name} in {users}")


@app.command("passwd")
def review_passwd(
    name: Annotated[str, typer.Argument(help="An existing user.")],
    users: UsersOption = DEFAULT_USERS,
    password_stdin: PasswordStdin = False,
    out: StoreOut = None,
    services: StoreServices = False,
    env_file: common.EnvFile = None,
) -> None:
    """Give a user a new password; the old one and every session made with it stop working at once.

    A running console re-reads the users file and refuses sessions made with the old password on their
    next request; with --out or --services their rows in the review store are deleted too.
    """
    from console.auth import set_password

    with refused(ValueError):
        set_password(users, name, _password(password_stdin))
    console.print(f"new password for {name} in {users}{_end_sessions(name, out, services, env_file)}")


@app.command("deluser")
def review_deluser(
    name: Annotated[str, typer.Argument(help="The user to remove.")],
    users: UsersOption = DEFAULT_USERS,
    out: StoreOut = None,
    services: StoreServices = False,
    env_file: common.EnvFile = None,
) -> None:
    """Remove a user: their sessions end at once (their decisions stay in the audit trail)."""
    from console.auth import remove_user

    if not remove_user(users, name):
        raise fail(f"there is no user {name!r} in {users}", 2)
    console.print(f"removed {name} from {users}{_end_sessions(name, out, services, env_file)}")


def _password(stdin: bool) -> str:
    if stdin:
        return sys.stdin.readline().rstrip("\n")
    return str(typer.prompt("Password", hide_input=True, confirmation_prompt=True))


def _end_sessions(name: str, out: Path | None, services: bool, env_file: Path | None) -> str:
    """Delete ``name``'s sessions from the review store named (if any); what to add to the message."""
    from adapters.review.sqlite import DB_NAME, SqliteReviewStore

    if out is None and not services:
        return ""
    if out is not None and not (out / DB_NAME).is_file():
        return f" (no review store in {out}: no sessions to end)"
    try:
        store = SqliteReviewStore(out / DB_NAME) if out is not None else review_store(None, True, env_file)
    except Exception as exc:  # a folder without a store, a database down: say so, the file is changed
        raise fail(f"the users file is changed, but the review store is out of reach: {exc}", 1) from exc
    try:
        ended = store.delete_sessions(name)
    finally:
        store.close()
    return f"; ended {ended} session{'s' if ended != 1 else ''} in the review store"
