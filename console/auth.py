"""Users, passwords and login throttling for the review console.

Users live in a JSON file (default ``.tieout/review-users.json``, mode 0600) written by
``tieout review adduser`` (``passwd``, ``deluser``) and re-read when it changes. Passwords are hashed with
scrypt (RFC 7914, ``hashlib.scrypt``) and a random salt per user; the file never holds a password. A secret
kept beside it (``.tieout/review-session.secret``, 0600, generated on first use) derives the login form's
CSRF token before a session exists (:mod:`console.sessions`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from adapters.files import write_private
from adapters.review.logins import MAX_LOGIN_NAME, LoginAttempt, SessionStore

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
    "password_fingerprint",
    "remove_user",
    "session_secret",
    "set_password",
    "user_key",
    "verify_password",
]

_log = logging.getLogger(__name__)

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
    """The users file, read at start-up and again whenever it changes on disk.

    A stat per look-up (cheap) notices a file rewritten by ``tieout review adduser``, ``passwd`` or
    ``deluser`` while the console runs: a new password holds, and a removed user is gone, from the next
    request on. A file that goes missing or unreadable leaves nobody able to log in until it is fixed.
    """

    def __init__(self, users: dict[str, User], path: Path | None = None) -> None:
        """Users by name; re-read from ``path`` when it changes (never, without one)."""
        self._users = users
        self._path = path
        self._stamp = _stamp(path) if path is not None else None
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: Path) -> Users:
        """Read ``path``; :class:`UsersFileError` (saying how to create it) if missing, malformed or empty."""
        users = _read_users(path)
        if not users:
            raise UsersFileError(f"{path} has no users: add one with `tieout review adduser NAME`")
        return cls(users, path)

    def _current(self) -> dict[str, User]:
        """The users as the file holds them now."""
        if self._path is None:
            return self._users
        stamp = _stamp(self._path)
        if stamp != self._stamp:
            with self._lock:
                try:
                    users = _read_users(self._path)
                except UsersFileError as exc:
                    _log.warning("nobody can log in: %s", exc)
                    users = {}
                self._users, self._stamp = users, stamp
        return self._users

    @property
    def names(self) -> list[str]:
        """Every user name, sorted."""
        return sorted(self._current())

    def get(self, name: str) -> User | None:
        """A user by name."""
        return self._current().get(name)

    def authenticate(self, name: str, password: str) -> User | None:
        """The user if the password is right; None otherwise (in about the same time either way)."""
        user = self.get(name)
        ok = verify_password(password, user.password_hash if user else _DUMMY_HASH)
        return user if ok and user is not None else None


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What changes when the file is rewritten (the writers replace it: a new inode), or None if missing."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _read_users(path: Path) -> dict[str, User]:
    """The users in ``path`` (maybe none); :class:`UsersFileError` if it is missing or malformed."""
    if not path.is_file():
        raise UsersFileError(
            f"no users file at {path}: create a user first with `tieout review adduser NAME` "
            f"(or pass --users PATH)"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {
            name: User(name, str(u["password"]), str(u.get("display") or name))
            for name, u in data["users"].items()
        }
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UsersFileError(f"{path} is not a tieout users file: {exc}") from exc


def password_fingerprint(user: User) -> str:
    """A digest of the user's password hash: a session remembers it, so a new password ends the session."""
    return hashlib.sha256(user.password_hash.encode()).hexdigest()[:32]


def add_user(path: Path, name: str, password: str, *, display: str | None = None) -> bool:
    """Create or update ``name`` in the users file at ``path`` (created 0600 if missing).

    Returns:
        True if the user was new, False if an existing user's password was replaced.

    Raises:
        ValueError: if the name or password is not acceptable.
    """
    if not _USER_NAME.match(name):
        raise ValueError("a user name is 1-64 letters, digits and . _ @ - (starting with a letter or digit)")
    data = _users_data(path)
    new = name not in data["users"]
    data["users"][name] = {"password": _checked_hash(password), "display": display or name}
    _write_users(path, data)
    return new


def set_password(path: Path, name: str, password: str) -> None:
    """Give the existing user ``name`` a new password.

    Raises:
        ValueError: if there is no such user or the password is not acceptable.
    """
    data = _users_data(path)
    if name not in data["users"]:
        raise ValueError(f"there is no user {name!r} in {path}: add one with `tieout review adduser`")
    data["users"][name]["password"] = _checked_hash(password)
    _write_users(path, data)


def remove_user(path: Path, name: str) -> bool:
    """Remove ``name`` from the users file; whether it was there."""
    data = _users_data(path)
    if data["users"].pop(name, None) is None:
        return False
    _write_users(path, data)
    return True


def _checked_hash(password: str) -> str:
    if len(password) < MIN_PASSWORD_CHARS:
        raise ValueError(f"a password has at least {MIN_PASSWORD_CHARS} characters")
    return hash_password(password)


def _users_data(path: Path) -> dict[str, dict[str, dict[str, str]]]:
    if not path.is_file():
        return {"users": {}}
    data: dict[str, dict[str, dict[str, str]]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _write_users(path: Path, data: dict[str, dict[str, dict[str, str]]]) -> None:
    write_private(path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())


def session_secret(path: Path) -> str:
    """The cookie-signing secret in ``path``, generated (0600) on first use."""
    if path.is_file():
        secret = path.read_text(encoding="utf-8").strip()
        if len(secret) >= 32:
            return secret
    secret = secrets.token_urlsafe(48)
    write_private(path, secret.encode())
    return secret


@dataclass(frozen=True)
class LoginThrottle:
    """How failed logins slow the next attempts: a back-off per (user, address) and a global limit.

    Never a lockout: failures from one address slow that address's attempts at that user name only, so
    neither the user elsewhere nor the address's other users (an office behind one proxy) are refused.
    The counts live in the review store (:mod:`adapters.review.logins`), so they survive a restart and
    hold across console processes on one PostgreSQL database.

    Attributes:
        free_failures: Failures of a (user, address) allowed before the back-off starts.
        backoff_s: The first wait; it doubles with each further failure.
        max_backoff_s: The longest wait.
        forget_s: A pair's failures are forgotten after this long without one.
        global_per_minute: Failed logins per minute, all users and addresses together, after which every
            attempt waits (against many addresses guessing many names).
    """

    free_failures: int = 3
    backoff_s: float = 1.0
    max_backoff_s: float = 300.0
    forget_s: float = 3600.0
    global_per_minute: int = 100

    def backoff(self, failures: int) -> float:
        """The wait after ``failures`` failures of one (user, address): 0, then 1 s, 2 s, 4 s ... capped."""
        if failures < self.free_failures:
            return 0.0
        doublings = min(failures - self.free_failures, 60)  # 2.0**n overflows for n > 1023
        return min(self.backoff_s * 2.0**doublings, self.max_backoff_s)

    def retry_after(self, store: SessionStore, name: str, address: str, now: float) -> float:
        """Seconds until ``address`` may try ``name`` again (0: now)."""
        failures, last = store.login_failures(user_key(name), address)
        wait = last + self.backoff(failures) - now if failures and last >= now - self.forget_s else 0.0
        recent = store.failed_login_times(now - 60.0, self.global_per_minute)
        if len(recent) >= self.global_per_minute:
            wait = max(wait, recent[-1] + 60.0 - now)
        return max(wait, 0.0)

    def record(self, store: SessionStore, attempt: LoginAttempt) -> None:
        """Audit ``attempt`` and count it for its (user, address)."""
        store.record_login(attempt, user_key(attempt.user), forget_before=attempt.at - self.forget_s)


def user_key(name: str) -> str:
    """What a user name's failures are counted under, whatever its case."""
    return name.lower()[:MAX_LOGIN_NAME]
