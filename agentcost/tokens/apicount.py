"""Exact Claude and Gemini counts from the providers' free token-counting endpoints (``--count api``).

Nothing here opens a socket unless the user asks: ``--count api`` (or ``AGENTCOST_COUNT=api``);
without it :func:`agentcost.tokens.count.count_tokens` does not import this module and counting is
the offline default.

Endpoints (request and response shapes as documented; read 2026-12-02)
    * Anthropic ``POST {ANTHROPIC_BASE_URL or https://api.anthropic.com}/v1/messages/count_tokens``,
      headers ``x-api-key`` (``ANTHROPIC_API_KEY``) and ``anthropic-version: 2023-06-01``, body
      ``{model, messages, system?, tools?, tool_choice?}``, response ``{"input_tokens": N}``. Free,
      with its own requests-per-minute limit. https://docs.anthropic.com/en/api/counting-tokens and
      https://platform.claude.com/docs/en/build-with-claude/token-counting (read 2026-12-02;
      ../shared/reference/pricing-facts.md "token-counting endpoints", AP-TC).
    * Gemini ``POST {GEMINI_BASE_URL or https://generativelanguage.googleapis.com}/v1beta/models/
      {model}:countTokens``, header ``x-goog-api-key``, body ``{contents: [{role, parts: [{text}]}]}``,
      response ``{"totalTokens": N}``. https://ai.google.dev/api/tokens (models.countTokens, read
      2026-12-02). The key: ``GOOGLE_API_KEY``, else ``GEMINI_API_KEY`` -- the google-genai SDK's
      order (``_api_client.py``: "Both GOOGLE_API_KEY and GEMINI_API_KEY are set. Using
      GOOGLE_API_KEY").

Method: a text's count is the endpoint's count of a minimal request that contains it minus the count
of the same request without it (the *baseline*, measured once per model and cached). Anthropic: the
minimal request is one user message ``"."``, and the text goes in ``system`` (system framing is 0
tokens in the calibration, :mod:`agentcost.tokens.anthropic`); Gemini: one user content whose parts
are ``"."`` and the text. A request's tool definitions (Anthropic) are one block: the count with
``tools`` and ``tool_choice`` minus the baseline, which includes Anthropic's hidden tool-use system
prompt and the per-tool framing (a set with repeated names, as tool-search deferral measures, is not
a valid request and stays offline).

What the API counts: every text the rules count (system, task, round texts, tool-call arguments and
names, results, replies, final answer, each Gemini tool declaration's JSON) and Anthropic's whole
tool-definition block. What stays offline: the framing constants per message, per ``tool_use`` and
``tool_result`` block and per request (:mod:`agentcost.tokens.anthropic`, ``GEMINI_PER_REQUEST``),
stated counts (``tokens:``), thinking and server-tool figures. The report's notes say so.

Each count is stored in the persistent token-count cache (:mod:`agentcost.infra.diskcache`) under a
scheme naming the API and the model (``api anthropic count_tokens/claude-sonnet-4-5``), so the next
run, and CI with a restored cache, counts offline and exactly. Requests run on a small thread pool
(:data:`WORKERS`), spaced by a rate limit (:data:`MAX_PER_SECOND`), retried on 429 and 5xx with
backoff that honours ``Retry-After`` up to :data:`MAX_WAIT` (asking for more fails the text at once;
:data:`ATTEMPTS`; :data:`sleep` and :data:`clock` are injectable for tests). The HTTP client
(:mod:`agentcost.tokens.apihttp`) follows no redirect (the key goes to the configured URL only),
ends each request at :data:`TIMEOUT` seconds in all and the run's requests at :data:`RUN_DEADLINE`,
and accepts only a plain whole-number count plausible for the request's size; an implausible count
is neither used nor cached (nor read back from the cache). A malformed base URL, a missing key, or
one the API rejects (401/403), is an :class:`~agentcost.errors.InputError` naming the variable (exit
2). A text that cannot be counted otherwise falls back to the offline rule, and the report says how
many did, why, and what they are (``the task, 2 tool results``: never their text, which may come
from a file the reader did not write) and that their counts are approximate. OpenAI models are
counted exactly offline: ``--count api`` leaves them as they are, with a note.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.tokens import apihttp
from agentcost.tokens.apihttp import CountFailed, KeyRejected

if TYPE_CHECKING:
    from agentcost.scenario.model import Content, Scenario, ToolChoice, ToolDef
    from agentcost.tokens.counts import TokenCounts

WORKERS = 4
"""Texts counted at once."""
MAX_PER_SECOND = 20.0
"""Requests started per second at most (well under Anthropic's lowest published per-minute limits)."""
ATTEMPTS = 5
"""Tries per request on 429/5xx (a connection that fails is tried twice)."""
MAX_WAIT = 60.0
"""The longest pause between two tries: a ``Retry-After`` asking for more fails the text at once."""
TIMEOUT = 30.0
"""Seconds one request may take in all: connecting, sending, and every byte of the answer."""
RUN_DEADLINE = 300.0
"""Seconds a process may spend on the endpoint in all, from its first request (waits included);
texts not counted by then fall back to the offline rule."""
RETRIED = frozenset({408, 429, 500, 502, 503, 504, 529})
ANTHROPIC_VERSION = "2023-06-01"
API_ENCODING = "api "
"""How TokenCounts.encoding starts when the texts were counted by a provider's endpoint."""

sleep: Callable[[float], None] = time.sleep
"""Pauses between tries (tests replace it)."""
clock: Callable[[], float] = time.monotonic
"""The clock of the deadlines and the rate limit (tests replace it)."""

_KNOWN: dict[str, dict[str, int]] = {}  # scheme -> text -> count, for this process
_LOCK = threading.Lock()
_RUN_ENDS: list[float] = []  # when this process's time on the endpoint ends (set by its first request)


def _run_ends() -> float:
    """When this process's time on the endpoint (:data:`RUN_DEADLINE`) ends."""
    with _LOCK:
        if not _RUN_ENDS:
            _RUN_ENDS.append(clock() + RUN_DEADLINE)
        return _RUN_ENDS[0]


class ApiTexts:
    """The hook the Anthropic and Gemini rules consult before counting a text offline.

    Recording (the first pass): every text asked for is remembered and None returned (the offline
    rule counts it). Afterwards: the API's count, or None for a text that could not be counted."""

    def __init__(self, counts: dict[str, int], tool_blocks: dict[str, int], *, recording: bool) -> None:
        self.counts = counts
        self.tool_blocks = tool_blocks
        self.recording = recording
        self.wanted: dict[str, None] = {}
        self.wanted_tools: dict[str, tuple[Sequence[ToolDef], ToolChoice]] = {}
        self.used: set[str] = set()  # texts and tool blocks whose API count was used
        self.offline: set[str] = set()  # texts counted offline in this pass

    def text(self, text: str) -> int | None:
        found = self.counts.get(text)
        if found is not None:
            self.used.add(text)
            return found
        if self.recording:
            self.wanted[text] = None
        else:
            self.offline.add(text)
        return None

    def tools_block(self, tools: Sequence[ToolDef], choice: ToolChoice) -> int | None:
        """The API's count of a request's tool definitions (hidden prompt and framing included), or
        None: not countable (repeated names) or not counted."""
        if len({t.name for t in tools}) != len(tools):
            return None
        key = _tools_key(tools, choice)
        found = self.tool_blocks.get(key)
        if found is not None:
            self.used.add(key)
            return found
        if self.recording:
            self.wanted_tools[key] = (tuple(tools), choice)
            return 0  # a placeholder: this pass's counts are thrown away
        return None


def _tools_json(tools: Iterable[ToolDef]) -> list[dict[str, Any]]:
    return [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in tools]


def _choice_json(tools: Sequence[ToolDef], choice: ToolChoice) -> dict[str, str]:
    return {"type": "tool", "name": tools[0].name} if choice == "tool" else {"type": choice}


def _tools_key(tools: Sequence[ToolDef], choice: ToolChoice) -> str:
    return json.dumps([_tools_json(tools), _choice_json(tools, choice)], sort_keys=True, default=str)


@record(frozen=False)
class Endpoint:
    """One provider's counting endpoint for one model."""

    provider: str  # "anthropic" or "google"
    model: str
    label: str  # "Anthropic count_tokens", for notes
    url: str
    key_names: tuple[str, ...]  # the environment variables tried, in order
    base_var: str
    _next_start: float = field(default=0.0, repr=False)
    _rate_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def scheme(self) -> str:
        name = "count_tokens" if self.provider == "anthropic" else "countTokens"
        return f"api {self.provider} {name}/{self.model}"

    def key(self) -> tuple[str, str]:
        """``(variable, key)``; InputError when none is set."""
        for name in self.key_names:
            value = os.environ.get(name, "").strip()
            if value:
                return name, value
        names = " or ".join(self.key_names)
        raise InputError(
            f"--count api needs an API key for {self.label}: {names} is not set",
            key=self.key_names[-1],
            hint=f"set {names}, or count offline (drop --count api)",
        )

    def body(self, text: str | None, tools: Sequence[ToolDef] = (), choice: ToolChoice = "auto") -> bytes:
        """The minimal request, with ``text`` (or tool definitions) added when given."""
        payload: dict[str, Any]
        if self.provider == "anthropic":
            payload = {"model": self.model, "messages": [{"role": "user", "content": "."}]}
            if text is not None:
                payload["system"] = text
            if tools:
                payload["tools"] = _tools_json(tools)
                payload["tool_choice"] = _choice_json(tools, choice)
        else:
            parts = [{"text": "."}] + ([] if text is None else [{"text": text}])
            payload = {"contents": [{"role": "user", "parts": parts}]}
        return json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")

    def _wait_turn(self) -> None:
        with self._rate_lock:
            now = clock()
            start = max(now, self._next_start)
            self._next_start = start + 1.0 / MAX_PER_SECOND
        if start > now:
            sleep(start - now)

    def post(self, body: bytes, key: tuple[str, str]) -> int:
        """The endpoint's count for ``body``: retried on 429/5xx, KeyRejected on 401/403, CountFailed
        for anything else (a redirect, a malformed or implausible answer, the deadlines)."""
        import urllib.error

        headers = {"content-type": "application/json"}
        if self.provider == "anthropic":
            headers |= {"x-api-key": key[1], "anthropic-version": ANTHROPIC_VERSION}
        else:
            headers["x-goog-api-key"] = key[1]
        field_name = "input_tokens" if self.provider == "anthropic" else "totalTokens"
        limit = apihttp.count_limit(len(body))
        failures = 0
        for attempt in range(ATTEMPTS):
            _pause(0.0)  # the run's deadline
            self._wait_turn()
            deadline = apihttp.Deadline(min(clock() + TIMEOUT, _run_ends()), clock)
            try:
                answer = apihttp.post(self.url, body, headers, deadline)
            except urllib.error.HTTPError as err:
                err.close()  # its response's socket
                if err.code in (401, 403):
                    raise KeyRejected(f"HTTP {err.code}") from None
                if err.code not in RETRIED or attempt == ATTEMPTS - 1:
                    raise CountFailed(f"HTTP {err.code}") from None
                asked = apihttp.retry_after(err.headers.get("Retry-After") if err.headers else None)
                if asked is not None and asked > MAX_WAIT:
                    raise CountFailed(f"HTTP {err.code}, asked to wait over {MAX_WAIT:.0f} s") from None
                _pause(asked if asked is not None else _backoff(attempt))
                continue
            except (OSError, http.client.HTTPException, ValueError) as err:  # URLError is an OSError
                failures += 1
                if failures >= 2:
                    raise CountFailed(f"no answer ({apihttp.failure(err)})") from None
                _pause(_backoff(attempt))
                continue
            return apihttp.parse_count(answer, field_name, limit)
        raise CountFailed("retries exhausted")  # pragma: no cover - the loop returns or raises


def _backoff(attempt: int) -> float:
    """Seconds before the next try when the server does not say: 0.5 s doubling, at most MAX_WAIT."""
    return min(MAX_WAIT, 0.5 * 2.0**attempt)


def _pause(seconds: float) -> None:
    """Wait ``seconds`` (the injectable :data:`sleep`), or CountFailed if the run's time on the
    endpoint (:data:`RUN_DEADLINE`) ends first."""
    if clock() + seconds >= _run_ends():
        raise CountFailed(f"--count api's {RUN_DEADLINE:.0f} s for the run ran out")
    if seconds > 0:
        sleep(seconds)


def endpoint_for(rules: str, model: str) -> Endpoint | None:
    """The counting endpoint of a rules family (``anthropic``/``google``), None for the others."""
    if rules == "anthropic":
        base = apihttp.base_url("ANTHROPIC_BASE_URL", "https://api.anthropic.com")
        url = f"{base}/v1/messages/count_tokens"
        return Endpoint(
            "anthropic", model, "Anthropic count_tokens", url, ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL"
        )
    if rules == "google":
        base = apihttp.base_url("GEMINI_BASE_URL", "https://generativelanguage.googleapis.com")
        name = model.removeprefix("models/")
        url = f"{base}/v1beta/models/{quote(name, safe='')}:countTokens"
        return Endpoint(
            "google", name, "Gemini countTokens", url, ("GOOGLE_API_KEY", "GEMINI_API_KEY"), "GEMINI_BASE_URL"
        )
    return None


def clear() -> None:
    """Forget this process's API counts and failures (tests; the persistent cache keeps its own)."""
    with _LOCK:
        _KNOWN.clear()
        _FAILED.clear()
        _RUN_ENDS.clear()


_FAILED: dict[str, dict[str, str]] = {}  # scheme -> text or tool key -> why it could not be counted


def _plausible(item: str, count: int) -> bool:
    """Whether ``count`` can be the endpoint's count of ``item`` (a text, a tool block's key, or ""
    for the baseline): :func:`agentcost.tokens.apihttp.count_limit` of its size."""
    size = len(item.encode("utf-8", "surrogatepass"))
    return type(count) is int and 0 <= count <= apihttp.count_limit(size)


def _stored(scheme: str, items: Sequence[str]) -> dict[str, int]:
    """Plausible counts of ``items`` in the persistent cache under ``scheme`` (others are not used)."""
    from agentcost.infra import diskcache

    cache = diskcache.get_cache()
    if cache is None or not items:
        return {}
    digests = {item: diskcache.text_digest(item) for item in items}
    found = cache.token_counts(scheme, digests.values())
    return {item: found[d] for item, d in digests.items() if d in found and _plausible(item, found[d])}


def _store(scheme: str, counts: dict[str, int]) -> None:
    """Keep plausible counts in the persistent cache (an implausible one is never stored)."""
    from agentcost.infra import diskcache

    cache = diskcache.get_cache()
    kept = {diskcache.text_digest(t): n for t, n in counts.items() if _plausible(t, n)}
    if cache is not None and kept:
        cache.put_token_counts(scheme, kept)
        diskcache.flush()


@record(frozen=False)
class Fetched:
    """What one session asked the endpoint: how many requests, and what failed (item -> why)."""

    requests: int = 0
    failed: dict[str, str] = field(default_factory=dict)


def _fetch(
    ep: Endpoint, texts: Sequence[str], tools: dict[str, tuple[Sequence[ToolDef], ToolChoice]]
) -> Fetched:
    """Count, with the endpoint, the texts and tool blocks neither this process nor the persistent
    cache knows; store what was counted. InputError on a missing or rejected key."""
    known = _KNOWN.setdefault(ep.scheme, {})
    blocks = _KNOWN.setdefault(ep.scheme + "/tools", {})
    failed = _FAILED.setdefault(ep.scheme, {})
    todo_texts = [t for t in texts if t not in known and t not in failed]
    todo_tools = [k for k in tools if k not in blocks and k not in failed]
    known.update(_stored(ep.scheme, todo_texts))
    blocks.update(_stored(ep.scheme + "/tools", todo_tools))
    todo_texts = [t for t in todo_texts if t not in known]
    todo_tools = [k for k in todo_tools if k not in blocks]
    done = Fetched()
    if not todo_texts and not todo_tools:
        return done
    key = ep.key()
    baseline_scheme = ep.scheme + "/baseline"
    baseline = _KNOWN.setdefault(baseline_scheme, {}).get("") or _stored(baseline_scheme, [""]).get("")
    try:
        if baseline is None:
            done.requests += 1
            baseline = ep.post(ep.body(None), key)
            _KNOWN[baseline_scheme][""] = baseline
            _store(baseline_scheme, {"": baseline})
    except KeyRejected as err:
        raise _rejected(ep, key[0], str(err)) from None
    except CountFailed as err:
        for item in (*todo_texts, *todo_tools):
            done.failed[item] = failed[item] = f"baseline request: {err}"
        return done
    base = baseline
    from concurrent.futures import ThreadPoolExecutor

    def one(item: str) -> int:
        if item in tools:
            chosen, choice = tools[item]
            return max(0, ep.post(ep.body(None, chosen, choice), key) - base)
        return max(0, ep.post(ep.body(item), key) - base)

    counted: dict[str, int] = {}
    counted_tools: dict[str, int] = {}
    rejected: str | None = None
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = {pool.submit(one, item): item for item in (*todo_tools, *todo_texts)}
        for future, item in futures.items():
            try:
                value = future.result()
            except KeyRejected as err:
                rejected = str(err)
                pool.shutdown(cancel_futures=True)
                break
            except CountFailed as err:
                done.failed[item] = failed[item] = str(err)
                continue
            (counted_tools if item in tools else counted)[item] = value
    done.requests += len(counted) + len(counted_tools) + len(done.failed)
    known.update(counted)
    blocks.update(counted_tools)
    _store(ep.scheme, counted)
    _store(ep.scheme + "/tools", counted_tools)
    if rejected is not None:
        raise _rejected(ep, key[0], rejected)
    return done


def _rejected(ep: Endpoint, variable: str, why: str) -> InputError:
    return InputError(
        f"{ep.label} rejected the API key in {variable} ({why})",
        key=variable,
        hint="set a valid key, or count offline (drop --count api)",
    )


def text_roles(scenario: Scenario) -> dict[str, str]:
    """What each text of ``scenario`` is (``task``, ``tool result``...): how a note names the texts
    that could not be counted, without quoting any (a text may come from a file the reader did not
    write)."""
    roles: dict[str, str] = {}

    def add(content: Content | str | None, role: str) -> None:
        text = content if isinstance(content, str) or content is None else content.text
        if text:
            roles.setdefault(text, role)

    add(scenario.system, "system prompt")
    add(scenario.task, "task")
    add(scenario.final, "final answer")
    add(scenario.retries.error, "retry error")
    for round_ in dict.fromkeys(scenario.rounds):  # equal rounds (repeats) once
        add(round_.text, "assistant text")
        add(round_.user, "user message")
        for call in round_.calls:
            add(call.tool, "tool name")
            add(call.input, "tool input")
            add(call.result, "tool result")
        for server in round_.server_tools:
            add(server.result, "server tool result")
    return roles


def _named(texts: Sequence[str], roles: Mapping[str, str]) -> str:
    """``texts`` by role and size (``the task, 2 tool results; 1,234 characters``), never quoted."""
    by_role = Counter(roles.get(text, "other text") for text in texts)
    parts = [
        f"the {role}" if n == 1 and role in _ONE_OF else f"{n:,} {role}{'s' if n > 1 else ''}"
        for role, n in sorted(by_role.items(), key=lambda item: (-item[1], item[0]))
    ]
    return f"{', '.join(parts)}; {sum(len(t) for t in texts):,} characters"


_ONE_OF = frozenset({"system prompt", "task", "final answer", "retry error"})
_OFFLINE_TEXT_NOTES = ("Claude's tokenizer is not public", "Gemini's tokenizer is not available offline")


@record(frozen=False)
class Session:
    """One model's counting with the endpoint (``endpoint`` None: a family without one, ``note``)."""

    endpoint: Endpoint | None
    note: str | None = None

    def run(
        self,
        count: Callable[[ApiTexts | None], TokenCounts],
        roles: Callable[[], Mapping[str, str]] | None = None,
    ) -> TokenCounts:
        """``count`` twice: once recording the texts it counts, then with the API's counts.
        ``roles``: what each text is (:func:`text_roles`), asked only to name texts that fell back."""
        ep = self.endpoint
        if ep is None:
            counts = count(None)
            return replace(counts, notes=(*counts.notes, self.note or ""))
        known = _KNOWN.setdefault(ep.scheme, {})
        blocks = _KNOWN.setdefault(ep.scheme + "/tools", {})
        first = ApiTexts(known, blocks, recording=True)
        count(first)
        fetched = _fetch(ep, list(first.wanted), first.wanted_tools)
        second = ApiTexts(known, blocks, recording=False)
        counts = count(second)
        return self._marked(ep, counts, second, fetched, roles() if second.offline and roles else None)

    def _marked(
        self,
        ep: Endpoint,
        counts: TokenCounts,
        api: ApiTexts,
        fetched: Fetched,
        roles: Mapping[str, str] | None,
    ) -> TokenCounts:
        offline = sorted(api.offline)
        texts = len(api.used - api.tool_blocks.keys())
        total = texts + len(offline)
        kept = (  # what the endpoint never counts: the framing constants
            "message, tool_use/tool_result and per-request framing"
            if ep.provider == "anthropic"
            else f"per-request framing ({counts.per_request})"
        )
        framing = f"{kept} stay{'' if ep.provider == 'anthropic' else 's'} the offline " + (
            "calibration" if ep.provider == "anthropic" else "assumption"
        )
        tools = (
            " and the tool-definition block (hidden tool prompt included)"
            if api.tool_blocks.keys() & api.used
            else ""
        )
        notes = [n for n in counts.notes if not (not offline and n.startswith(_OFFLINE_TEXT_NOTES))]
        notes.append(
            f"--count api: {texts} distinct texts{tools} counted by {ep.label} for {ep.model} "
            f"(count with the text minus the count without it; cached for later runs); {framing}, "
            "so the totals stay approximate"
        )
        if offline:
            why = sorted(set(_FAILED.get(ep.scheme, {}).get(t, "not counted") for t in offline))
            line = (
                f"{len(offline)} of {total} texts could not be counted by {ep.label} "
                f"({'; '.join(why)[:300]}) and fell back to the offline rule, so the counts are "
                f"approximate: {_named(offline, roles or {})}"
            )
            notes.append(line)
            if fetched.failed:
                sys.stderr.write(f"agentcost: note: {line}\n")
        # The framing constants are never the API's, so the totals stay approximate: the split says
        # what the endpoint counted and what did not (issue 29; it said exact before).
        counted = f"{texts} distinct texts{tools}"
        uncounted = f"{kept} (offline constants)" + (
            f"; {len(offline)} texts that fell back to the offline rule" if offline else ""
        )
        return replace(
            counts,
            encoding=f"{API_ENCODING}{ep.label} ({ep.model})",
            approximate=True,
            method=(
                f"{ep.label} API for {'the' if not offline else 'some'} texts{tools} + offline "
                f"{kept} (approximate)"
            ),
            notes=tuple(notes),
            api_split=(f"{counted} counted by {ep.label} for {ep.model}", uncounted),
        )


def session_for(provider: str, model_id: str) -> Session | None:
    """The API counting of a model under ``--count api`` (the caller checks the mode:
    :func:`agentcost.tokens.count.count_tokens`); None for a model no endpoint counts."""
    from agentcost.tokens.families import canonical_model_id, spec_of

    model = canonical_model_id(model_id)
    spec = spec_of(provider, model)
    ep = endpoint_for(spec.rules, model)
    if ep is not None:
        return Session(ep)
    if spec.rules == "openai":
        return Session(
            None, "--count api: OpenAI models are counted exactly offline (tiktoken); no API call made"
        )
    return Session(None, f"--count api: no counting endpoint for {spec.label}; counted offline")
