"""A content-addressed cache of validated scenarios, wrapped around
:func:`agentcost.scenario.load.read_scenario`.

Validating a scenario needs pydantic and the YAML parser (~0.2 s of imports and schema building);
the validated :class:`~agentcost.scenario.model.Scenario` is a pure function of the bytes of every file the
load reads, the ``--set`` overrides, the path as given and agentcost's own code. So a load first
reads the scenario file and looks for an entry under the store's key
(:func:`agentcost.infra.diskcache.key`: agentcost's source digest, every dependency's fingerprint,
PyYAML and pydantic among them, and the Python version) of

    the path as given, its absolute path, the overrides, sha256 of the file's bytes

An entry lists every other file the load read (tools files, ``{file: ...}`` contents, subagent
scenarios) with the sha256 of its bytes; those files are read and hashed again, and the entry is
used only if every one is unchanged. The scenario itself is stored with
:func:`agentcost.infra.cachecodec.encode` (JSON; rebuilt through the dataclasses' constructors), and
only if it decodes back to an equal scenario. Loads that fail are never cached, so every error message
comes from the real loader.

A miss starts building o200k_base in the background (:data:`on_miss`) only for a file whose absolute
path this cache has never loaded, or whose entry is spoilt by a change of another file it read (a
``{file: ...}`` text, a tools file): then some texts are probably not counted yet. An edit of the
scenario file itself (a number, the model, a comment) leaves nearly every text counted, and a build
they do not need costs ~0.4 s of the interpreter's time. An uncounted text builds the encoding when
it is counted either way, so only the timing differs.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agentcost.infra import cachecodec, diskcache

if TYPE_CHECKING:
    from agentcost.infra.files import Reader
    from agentcost.scenario.model import Scenario

_KIND = "scenario"
_SEEN = "scenario-path"  # an absolute path this cache has loaded a scenario from (value b"1")

# Set by the console script (agentcost.cli.main): called on a cache miss of a file never loaded before
# (by its absolute path) or of one whose other files changed, to start building o200k_base (the
# encoding of Claude, Gemini and most OpenAI models) in a background thread while the scenario is
# validated, since some token counts are then probably not cached either. A hook rather than an
# import, so that the scenario stage knows nothing of the tokens stage. None for library callers and
# in-process tests, which should not find threads they did not start.
on_miss: Callable[[], None] | None = None


def load_scenario(
    path: Path | str, *, overrides: Sequence[str] = (), reader: Reader | None = None
) -> Scenario:
    """:func:`agentcost.scenario.load.read_scenario`, through the cache (a custom ``reader`` bypasses it)."""
    if isinstance(overrides, str):
        raise TypeError("overrides is a sequence of PATH=VALUE texts, not one text")
    cache = diskcache.get_cache() if reader is None else None
    if cache is None:
        _warm_up()
        return _load(path, overrides, reader)
    from agentcost.infra.files import read_file  # bounded: a huge file is refused before it is read

    path = Path(path)
    absolute = os.path.abspath(path)
    try:
        main = read_file(Path(absolute))
    except Exception:  # unreadable, too large...: the loader words the error
        return _load(path, overrides, None)
    from agentcost.infra.policy import current_policy

    key = diskcache.digest(
        str(path),
        absolute,
        tuple(overrides),
        hashlib.sha256(main).hexdigest(),
        current_policy().max_input_bytes,  # a load refused under a lower budget is never served
    )
    stored = cache.get_blob(_KIND, key)
    if stored is not None:
        found = _valid(stored)
        if found is not None:
            return found
    seen = diskcache.digest(absolute)
    # A new file, or a file it reads has changed (a system prompt, a tools file): texts to count
    if stored is not None or cache.get_blob(_SEEN, seen) is None:
        _warm_up()
    read: dict[str, str] = {}

    def recording(file: Path) -> bytes:
        data = read_file(file)
        read[str(file)] = hashlib.sha256(data).hexdigest()
        return data

    scenario = _load(path, overrides, recording)
    cache.put_blob(_SEEN, seen, b"1", now=False)
    others = tuple((name, sha) for name, sha in read.items() if name != absolute)
    if read.get(absolute) != hashlib.sha256(main).hexdigest():
        return scenario  # the file changed while it was read: do not cache either version
    try:
        data = cachecodec.encode((others, scenario))
        if cachecodec.decode(data) != (others, scenario):
            return scenario
    except cachecodec.CodecError:
        return scenario
    cache.put_blob(_KIND, key, data)
    return scenario


def is_project_file(path: Path | str) -> bool:
    """:func:`agentcost.scenario.project.is_project_file` through the cache: it is a function of the file's
    bytes (and agentcost's code and dependencies: the store's key), and answering it loads the YAML
    parser and the project schema. A file that cannot be one (:func:`cannot_be_project`) is answered
    at once, without either."""
    from agentcost.infra.files import read_file

    try:
        data = read_file(Path(os.path.abspath(path)))
    except Exception:  # unreadable or too large: the uncached check answers
        return _is_project(path)
    if cannot_be_project(data):
        return False
    cache = diskcache.get_cache()
    if cache is None:
        return _is_project(path)
    key = hashlib.sha256(data).hexdigest()
    stored = cache.get_blob("project-file", key)
    if stored in (b"0", b"1"):
        return stored == b"1"
    answer = _is_project(path)
    cache.put_blob("project-file", key, b"1" if answer else b"0", now=False)
    return answer


_YAML_BREAKS = (b"\r", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")  # CR, NEL, LS, PS in UTF-8


def cannot_be_project(data: bytes) -> bool:
    """True when a file of these bytes is certainly not a project file, i.e. its top level cannot
    have a ``scenarios`` key; False when unsure (then the full check answers).

    A YAML key is the text of the file, but for escapes (``\\x73``), which need a backslash, and
    line folding, which adds a space or a line break. So without the word ``scenarios`` and without
    a backslash, no key can be ``scenarios``. Lines whose first character after spaces and tabs is
    ``#`` are left out: such a line is a comment, or, inside a quoted or block scalar, content
    whose ``#`` the key would hold. Lines are only split that way at ``\\n`` (``\\r\\n``): a file
    with another YAML line break is unsure. Bytes that are not UTF-8 make the full check say "not a
    project" too, so they need no care.
    """
    if b"scenarios" not in data and b"\\" not in data:
        return True
    if any(b in data.replace(b"\r\n", b"\n") for b in _YAML_BREAKS):
        return False
    for line in data.split(b"\n"):
        if (b"scenarios" in line or b"\\" in line) and not line.lstrip(b" \t").startswith(b"#"):
            return False
    return True


def _is_project(path: Path | str) -> bool:
    from agentcost.scenario.project import is_project_file as check

    return check(path)


def _warm_up() -> None:
    if on_miss is not None:
        on_miss()


def _valid(stored: bytes) -> Scenario | None:
    """The cached scenario if every other file it read is unchanged."""
    from agentcost.scenario.model import Scenario

    try:
        entry = cachecodec.decode(stored)
        others, scenario = entry
    except (cachecodec.CodecError, TypeError, ValueError):
        return None
    if not isinstance(scenario, Scenario) or not isinstance(others, tuple):
        return None
    from agentcost.infra.files import read_file

    for item in others:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
            return None
        name, sha = item
        try:
            if hashlib.sha256(read_file(Path(name))).hexdigest() != sha:
                return None
        except Exception:  # unreadable or too large now: let the loader say so
            return None
    return scenario


def _load(path: Path | str, overrides: Sequence[str], reader: Reader | None) -> Scenario:
    from agentcost.scenario.load import read_scenario

    return read_scenario(path, overrides=overrides, reader=reader)
