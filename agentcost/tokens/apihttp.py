"""The HTTP client of ``--count api``: one bounded POST, its answer read and checked, nothing followed.

What a counting endpoint (or whatever ``ANTHROPIC_BASE_URL``/``GEMINI_BASE_URL`` names) can make a
run do is bounded here:

* **No redirect is followed.** A 30x is a failed count: the request carrying the API key goes to the
  configured origin and nowhere else (urllib would re-send the key's header to any host a
  ``Location`` names).
* **Time.** Every request has a wall deadline (:class:`Deadline`) covering the connection, the
  request and every read of the answer, so a server that drips a byte every few seconds ends at the
  deadline (a socket timeout alone bounds only each read).
* **Size.** An answer over :data:`MAX_ANSWER_BYTES` is refused unread; the JSON is parsed within
  Python's recursion limit (a 100,000-deep answer is a failed count, not a traceback).
* **Values.** A count is a plain non-negative integer no larger than :func:`count_limit` of the
  request's size (a count of 10**30 or 2**63 is refused, and never cached).
* **Words.** A failure says why in agentcost's words (a status code, the kind of error), never in
  the server's, and never quotes a text or the key.

The base URL variables are checked before any request (:func:`base_url`): one line naming the
variable, never its value (it may hold credentials).
"""

from __future__ import annotations

import http.client
import io
import json
import math
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from functools import partial
from typing import Any

from agentcost.errors import InputError

MAX_ANSWER_BYTES = 65_536
"""The largest answer read (a count answer is a few dozen bytes)."""
COUNT_SLACK = 4_096
"""Tokens a request may count beyond two per byte of its body (framing, the hidden tool prompt)."""
MAX_COUNT = 2**31 - 1
"""No count is larger, whatever the request's size."""


class KeyRejected(Exception):
    """The endpoint said 401 or 403."""


class CountFailed(Exception):
    """A request failed for good (after the retries); the message says why, briefly, in agentcost's
    words (no text of the server's answer, the request or the key)."""


class Deadline:
    """A wall deadline on a monotonic ``clock``: :meth:`left` is the time left, TimeoutError after."""

    def __init__(self, ends: float, clock: Callable[[], float]) -> None:
        self.ends = ends
        self.clock = clock

    def left(self) -> float:
        left = self.ends - self.clock()
        if left <= 0:
            raise TimeoutError("the request's deadline passed")
        return left


class _BoundedReader(io.RawIOBase):
    """A socket's reader whose every read waits at most until the deadline."""

    def __init__(self, raw: Any, sock: Any, deadline: Deadline) -> None:
        super().__init__()
        self._raw = raw
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._sock.settimeout(self._deadline.left())
        count: int | None = self._raw.readinto(buffer)
        return 0 if count is None else count

    def close(self) -> None:
        if not self.closed:
            self._raw.close()  # the socket's own reference counting: the socket closes with its last reader
        super().close()


class _BoundedResponse(http.client.HTTPResponse):
    """An HTTP response read under the request's deadline (status line, headers, body)."""

    def __init__(self, sock: Any, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        raw = self.fp.detach()  # the socket's reader, kept open; the buffer around it is replaced
        self.fp = io.BufferedReader(_BoundedReader(raw, sock, deadline))


def _bounded_connect(
    conn: http.client.HTTPConnection, deadline: Deadline, connect: Callable[[], None]
) -> None:
    conn.timeout = deadline.left()  # the TCP connection (and a TLS handshake, which Python bounds as a whole)
    connect()
    if conn.sock is not None:
        conn.sock.settimeout(deadline.left())  # sending the request: sendall is bounded as a whole


class _HTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, *, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._deadline = deadline
        self.response_class = partial(_BoundedResponse, deadline=deadline)  # type: ignore[assignment]

    def connect(self) -> None:
        _bounded_connect(self, self._deadline, super().connect)


class _HTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, *, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._deadline = deadline
        self.response_class = partial(_BoundedResponse, deadline=deadline)  # type: ignore[assignment]

    def connect(self) -> None:
        _bounded_connect(self, self._deadline, super().connect)


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self.deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_HTTPConnection, deadline=self.deadline), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()  # the default context: certificates and host names verified
        self.deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_HTTPSConnection, deadline=self.deadline), req)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Every redirect refused: the request (and its key) goes to the configured origin only."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        fp.close()
        raise CountFailed(f"HTTP {code}: a redirect, not followed (the key goes to the configured URL only)")


def post(url: str, body: bytes, headers: dict[str, str], deadline: Deadline) -> bytes:
    """POST ``body`` to ``url`` and return the answer's bytes (at most :data:`MAX_ANSWER_BYTES`).

    Raises :class:`urllib.error.HTTPError` for a 4xx/5xx (closed by the caller), CountFailed for a
    redirect or an answer too large, OSError (TimeoutError at the deadline) or
    :class:`http.client.HTTPException` for a connection that fails."""
    opener = urllib.request.build_opener(_HTTPHandler(deadline), _HTTPSHandler(deadline), _NoRedirects())
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    with opener.open(request) as response:
        data: bytes = response.read(MAX_ANSWER_BYTES + 1)
    if len(data) > MAX_ANSWER_BYTES:
        raise CountFailed(f"an answer over {MAX_ANSWER_BYTES:,} bytes")
    return data


def count_limit(size: int) -> int:
    """The largest count a request (or text) of ``size`` UTF-8 bytes may have: two tokens a byte
    and :data:`COUNT_SLACK` more (no tokenizer makes more than one token of a byte), and never more
    than :data:`MAX_COUNT`."""
    return min(MAX_COUNT, 2 * size + COUNT_SLACK)


def parse_count(data: bytes, field: str, limit: int) -> int:
    """The count in an answer ``{field: N}``: a plain integer from 0 to ``limit``, else CountFailed."""
    try:
        answer = json.loads(data)
    except (ValueError, RecursionError):  # not UTF-8 or not JSON, too long a number, too deep
        raise CountFailed("an answer that is not JSON") from None
    value = answer.get(field) if isinstance(answer, dict) else None
    if type(value) is not int:  # bool, float, string, missing
        raise CountFailed(f"no whole-number {field} in the answer")
    if not 0 <= value <= limit:
        raise CountFailed(f"an implausible {field} for the request's size")
    return value


def retry_after(value: str | None) -> float | None:
    """The seconds a ``Retry-After`` header asks for: a number of seconds (digits; a decimal or
    exponent form is read too) or an HTTP date; ``inf`` for one too large to read; None when absent
    or unreadable (negative, NaN, garbage)."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if text.isascii() and text.isdigit():
        return float(text) if len(text) <= 15 else math.inf
    try:
        seconds = float(text)
    except ValueError:
        seconds = None
    if seconds is not None:
        return seconds if seconds >= 0 else None  # NaN and negative: unreadable; inf stays inf
    import email.utils
    import time

    try:
        when = email.utils.parsedate_to_datetime(text)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def failure(err: BaseException) -> str:
    """Why a connection failed, in agentcost's words: the error's kind (and the system's message for
    an OS error), never text the server sent."""
    reason = getattr(err, "reason", err)
    if isinstance(reason, TimeoutError):
        return "timed out"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return type(err if isinstance(reason, str) else reason).__name__


_URL_HINT = "an http:// or https:// URL such as {default}, or unset it to use that"


def base_url(variable: str, default: str) -> str:
    """The endpoint's base URL from ``variable`` (``default`` when unset or blank), without a
    trailing ``/``. InputError naming the variable, never its value, when it is not a plain
    ``http(s)://host[:port][/path]`` URL."""
    value = os.environ.get(variable, "").strip()
    if not value:
        return default
    problem = _url_problem(value)
    if problem is not None:
        raise InputError(
            f"not a usable base URL: it {problem}",
            key=variable,
            hint=f"set {variable} to " + _URL_HINT.format(default=default),
        )
    return value.rstrip("/")


def _url_problem(value: str) -> str | None:
    if not value.isascii() or not value.isprintable() or any(c.isspace() for c in value):
        return "holds a space, a line break, a control or a non-ASCII character"
    import urllib.parse

    try:
        parts = urllib.parse.urlsplit(value)
        parts.port  # noqa: B018 - reading it checks the port
    except ValueError:
        return "cannot be read as a URL (a bad host or port)"
    if parts.scheme.lower() not in ("http", "https"):
        return "does not start with http:// or https://"
    if not parts.hostname:
        return "names no host"
    if parts.username is not None or parts.password is not None:
        return "holds a user name or password"
    if parts.query or parts.fragment or "?" in value or "#" in value:
        return "holds a query or a fragment (? or #)"
    return None
