"""Users, passwords and login throttling for the review console.

Users live in a JSON file (default ``.tieout/review-users.json``, mode 0600) written by
``tieout review adduser``. Passwords are hashed with scrypt (RFC 7914, ``hashlib.scrypt``) and a random
salt per user; the file never holds a password. The session cookie is signed with a secret kept beside it
(``.tieout/review-session.secret``, 0600), generated on first use.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from adapters.files import write_private

__all__ = [
    "DEFAULT_SECRET_FILE",
    "DEFAULT_USERS_FILE",
    "MIN_PASSWORD_CHARS",
    "SCRYPT_LEN",
    "SCRYPT_N",
    "SCRYPT_P",
    "SCRYPT_R",
    "LoginThrottle",
    "User",
    "Users",
    "UsersFileError",
    "add_user",
    "hash_password",
    "session_secret",
    "verify_password",
]

DEFAULT_USERS_FILE = Path(".tieout") / "review-users.json"
DEFAULT_SECRET_FILE = Path(".tieout") / "review-session.secret"

# scrypt's cost: n=2**14, r=8, p=1 is the interactive-login setting of RFC 7914 (16 MiB, ~50 ms).
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SCRYPT_LEN = 32
MIN_PASSWORD_CHARS = 8

_USER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")


class UsersFileError(ValueError):
    """The users file is missing, unreadable or malformed."""


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    """``scrypt$n$r$p$salt$hash`` (base64) for ``password`` with a fresh random salt."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=SCRYPT_LEN
    )
    b64 = base64.b64encode
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches a :func:`hash_password` string (compared in constant time)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        got = hashlib.scrypt(
            password.encode("utf-8"),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
            maxmem=256 * 1024 * 1024,
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


# Checked against when the user does not exist, so that a wrong name costs as long as a wrong password.
_DUMMY_HASH = hash_password("not a password", salt=b"\0" * 16)


@dataclass(frozen=True)
class User:
    """A console user."""

    name: str
    password_hash: str
    display: str


class Users:
    """The users file, read at start-up."""

    def __init__(self, users: dict[str, User]) -> None:
        """Users by name."""
        self._users = users

    @classmethod
    def load(cls, path: Path) -> Users:
        """Read ``path``; :class:`UsersFileError` (saying how to create it) if missing or malformed."""
        if not path.is_file():
            raise UsersFileError(
                f"no users file at {path}: create a user first with `tieout review adduser NAME` "
                f"(or pass --users PATH)"
            )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            users = {
                name: User(name, str(u["password"]), str(u.get("display") or name))
                for name, u in data["users"].items()
            }
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise UsersFileError(f"{path} is not a tieout users file: {exc}") from exc
        if not users:
            raise UsersFileError(f"{path} has no users: add one with `tieout review adduser NAME`")
        return cls(users)

    @property
    def names(self) -> list[str]:
        """Every user name, sorted."""
        return sorted(self._users)

    def get(self, name: str) -> User | None:
        """A user by name."""
        return self._users.get(name)

    def authenticate(self, name: str, password: str) -> User | None:
        """The user if the password is right; None otherwise (in about the same time either way)."""
        user = self._users.get(name)
        ok = verify_password(password, user.password_hash if user else _DUMMY_HASH)
        return user if ok and user is not None else None


def add_user(path: Path, name: str, password: str, *, display: str | None = None) -> bool:
    """Create or update ``name`` in the users file at ``path`` (created 0600 if missing).

    Returns:
        True if the user was new, False if an existing user's password was replaced.

    Raises:
        ValueError: if the name or password is not acceptable.
    """
    if not _USER_NAME.match(name):
        raise ValueError("a user name is 1-64 letters, digits and . _ @ - (starting with a letter or digit)")
    if len(password) < MIN_PASSWORD_CHARS:
        raise ValueError(f"a password has at least {MIN_PASSWORD_CHARS} characters")
    data: dict[str, dict[str, dict[str, str]]] = {"users": {}}
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
    new = name not in data["users"]
    data["users"][name] = {"password": hash_password(password), "display": display or name}
    _write_private(path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())
    return new


def session_secret(path: Path) -> str:
    """The cookie-signing secret in ``path``, generated (0600) on first use."""
    if path.is_file():
        secret = path.read_text(encoding="utf-8").strip()
        if len(secret) >= 32:
            return secret
    secret = secrets.token_urlsafe(48)
    _write_private(path, secret.encode())
    return secret


# the users file and the secret: 0600 in a 0700 folder, written whole (one helper for every private file)
_write_private = write_private


class LoginThrottle:
    """At most ``attempts`` failed logins per ``window_s`` per client address and per user name.

    In memory: a restart forgets, which is acceptable for a console bound to loopback by default.
    """

    def __init__(self, attempts: int = 5, window_s: float = 300.0) -> None:
        """Allow ``attempts`` failures in any ``window_s`` seconds."""
        self.attempts = attempts
        self.window_s = window_s
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        q = self._failures.setdefault(key, deque())
        while q and q[0] <= now - self.window_s:
            q.popleft()
        return q

    def retry_after(self, client: str, name: str, now: float | None = None) -> float:
        """Seconds until another attempt is allowed (0: allowed now)."""
        now = time.monotonic() if now is None else now
        wait = 0.0
        with self._lock:
            for key in _keys(client, name):
                q = self._recent(key, now)
                if len(q) >= self.attempts:
                    wait = max(wait, q[0] + self.window_s - now)
        return wait

    def failed(self, client: str, name: str, now: float | None = None) -> None:
        """Count a failed attempt."""
        now = time.monotonic() if now is None else now
        with self._lock:
            for key in _keys(client, name):
                self._recent(key, now).append(now)

    def succeeded(self, name: str) -> None:
        """Forget the user's failures (the address's stay: one address guessing many names is throttled)."""
        with self._lock:
            self._failures.pop(_user_key(name), None)


def _keys(client: str, name: str) -> tuple[str, str]:
    """What failures are counted under: the client's address and the user name."""
    return f"ip:{client}", _user_key(name)


def _user_key(name: str) -> str:
    """A user name's failures, whatever its case."""
    return f"user:{name.lower()}"
