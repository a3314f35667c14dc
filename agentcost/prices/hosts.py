"""How users write hosted model ids (Bedrock, Azure, Vertex, OpenRouter), as data: :func:`host_form`.

Three tables, each tried in order, each row with why it is there:

- :data:`HOST_RULES`: id forms that name their host (``bedrock/...``, an ARN, a Bedrock model id or
  inference profile, ``azure/<model>``, ``vertex_ai/<model>``, ``openrouter/<vendor>/<model>``):
  the genai-prices provider that prices them and the id to look up there.
- :data:`MAKERS`: which provider made a model, by its id: the provider an id several providers
  serve resolves to when no provider is given (after genai-prices' own routing, its providers'
  ``model_match``).
- :data:`UNDERLYING`: how a hosted row's id becomes the underlying model's id (host prefixes and
  version suffixes removed): the id whose counting and caching rules apply
  (``regional.anthropic.claude-sonnet-4-5-20250929-v1:0`` -> ``claude-sonnet-4-5-20250929``).

Pure data and regular expressions: nothing here loads genai-prices
(:mod:`agentcost.prices.locate` applies the tables).
"""

from __future__ import annotations

import re
from functools import lru_cache

from agentcost.infra.record import record

# Bedrock's geographic inference-profile prefixes (AWS "Supported Regions and models for inference
# profiles", read 2026-12-01): us, eu, apac, au, jp, ca, in, us-gov, and global.
_GEO = r"(?:us|eu|apac|au|jp|ca|in|us-gov|global)"
# The model vendors in Bedrock model ids ("<vendor>.<model>-v1:0"), from genai-prices' aws rows.
_VENDORS = (
    r"(?:amazon|anthropic|cohere|deepseek|google|meta|minimax|mistral|moonshotai|nvidia|openai|qwen"
    r"|writer|zai|ai21|twelvelabs)"
)

# (host, pattern, provider, retry): the pattern's "ref" group is the id looked up at the provider;
# ``retry`` (a pattern removed from ref) gives a second id to try when the first finds nothing.
HOST_RULES: tuple[tuple[str, str, str, str | None], ...] = (
    # LiteLLM's prefix: "bedrock/us.anthropic.claude-...", also "bedrock/converse/<id>"
    ("bedrock", r"^bedrock/(?:converse/|invoke/)?(?P<ref>.+)$", "aws", rf"^{_GEO}\."),
    # an inference-profile or foundation-model ARN (an application profile's ARN names no model)
    (
        "bedrock",
        r"^arn:aws[a-z-]*:bedrock:[^:]*:\d*:(?:inference-profile|foundation-model)/(?P<ref>[^/]+)$",
        "aws",
        rf"^{_GEO}\.",
    ),
    # a cross-region inference profile: "us.anthropic.claude-...", "global.anthropic.claude-...";
    # genai-prices prices Claude's regional profiles (+10%) apart from global ones; other models'
    # profiles are priced as the model (the retry without the prefix)
    ("bedrock", rf"^(?P<ref>{_GEO}\.{_VENDORS}\..+)$", "aws", rf"^{_GEO}\."),
    # a Bedrock model id: "anthropic.claude-sonnet-4-5-20250929-v1:0", "meta.llama3-3-70b-instruct-v1:0"
    ("bedrock", rf"^(?P<ref>{_VENDORS}\.[a-z0-9].*)$", "aws", None),
    # Azure OpenAI / Azure AI Foundry as LiteLLM writes them; genai-prices prices the model's maker's
    # row for Azure (its fallback providers) where Azure has no row of its own
    ("azure", r"^(?:azure|azure_ai|azure-openai|azure-ai)/(?P<ref>.+)$", "azure", None),
    # Vertex AI: LiteLLM's prefixes, and the publisher resource names of the Vertex API
    ("vertex", r"^(?:vertex_ai|vertex|vertexai|vertex-ai|google-vertex)/(?P<ref>.+)$", "google", None),
    (
        "vertex",
        r"^(?:projects/[^/]+/locations/[^/]+/)?publishers/(?:google|anthropic)/models/(?P<ref>[^/]+)$",
        "google",
        None,
    ),
    # OpenRouter: "openrouter/<vendor>/<model>" (genai-prices' OpenRouter ids are "<vendor>/<model>")
    ("openrouter", r"^openrouter/(?P<ref>.+)$", "openrouter", None),
)

# The host a provider is, where a model is reached without a host rule ("aws/<id>", a provider's
# own id): Bedrock, Azure and OpenRouter serve other makers' models; Vertex is "google" with a
# partner model's row (Claude), see HOSTED_ROWS.
HOST_OF_PROVIDER: dict[str, str] = {"aws": "bedrock", "azure": "azure", "openrouter": "openrouter"}
# (provider, row id pattern, host): rows that are another maker's model on a provider's platform.
HOSTED_ROWS: tuple[tuple[str, str, str], ...] = (("google", r"^claude", "vertex"),)

# Provider names users write that genai-prices does not know as one of its providers' ids or
# aliases (its provider_match), each -> the genai-prices provider id. LiteLLM's provider prefix for
# Fireworks AI is "fireworks_ai/" ("model=fireworks_ai/accounts/fireworks/models/<id>":
# https://docs.litellm.ai/docs/providers/fireworks_ai, read 2026-12-07); genai-prices' fireworks
# provider has no alias, and matches the id after it ("accounts/fireworks/models/<id>").
PROVIDER_ALIASES: dict[str, str] = {"fireworks_ai": "fireworks", "fireworks-ai": "fireworks"}

# (id pattern, maker): who made a model, for an id several providers serve with no provider given.
# Tried after genai-prices' own routing (its providers' model_match: claude -> anthropic, gpt-/o1..
# -> openai, gemini -> google, deepseek -> deepseek, grok -> x-ai, kimi -> moonshotai, ...). Meta's
# genai-prices rows are its own API (muse-*), so Llama ids served by several hosts stay ambiguous.
MAKERS: tuple[tuple[str, str], ...] = (
    (r"claude", "anthropic"),
    (r"^(?:gpt-|o\d|chatgpt|codex|text-|davinci|babbage|computer-use|omni-)", "openai"),
    (r"^(?:gemini|gemma|learnlm)", "google"),
    (r"^deepseek", "deepseek"),
    (r"^(?:open-)?(?:mistral|mixtral|codestral|devstral|magistral|ministral|pixtral|voxtral)", "mistral"),
    (r"grok", "x-ai"),
    (r"^(?:kimi|moonshot)", "moonshotai"),
    (r"^glm", "zai"),
    (r"^(?:command|c4ai|aya)", "cohere"),
    (r"^minimax", "minimax"),
    (r"sonar|^r1-1776", "perplexity"),
    (r"^phi-", "azure"),  # Microsoft's Phi models: Azure is genai-prices' Microsoft provider
    (r"^(?:muse|llama)", "meta"),
)

# (provider or "*", pattern, replacement), applied in order to a hosted row's id (not to anthropic,
# openai or google rows of their own models): the underlying model id whose counting and caching
# rules apply.
UNDERLYING: tuple[tuple[str, str, str], ...] = (
    ("aws", rf"^(?:regional|{_GEO})\.", ""),  # Bedrock profile prefixes: regional., global., us.
    ("aws", r"^deepseek\.(?=r\d|v\d)", "deepseek-"),  # "deepseek.r1-v1:0": the family is the vendor
    ("aws", rf"^{_VENDORS}\.", ""),  # the vendor: "anthropic.", "meta.", "openai."
    ("aws", r"-v\d+(?::\d+)?$", ""),  # the version: "-v1:0", "-v2:0", "-v1"
    ("aws", r"-\d+:\d+$", ""),  # the version of "openai.gpt-oss-120b-1:0"
    ("aws", r":\d+$", ""),  # the version of "nvidia.nemotron-nano-9b-v2:0"
    ("*", r"^.*/", ""),  # "<vendor>/<model>", "@cf/<vendor>/<model>", "accounts/fireworks/models/<id>"
    # OpenRouter writes Claude's version with a dot ("anthropic/claude-sonnet-4.5", "claude-3.5-sonnet");
    # Anthropic's own id, whose rules (minimum cacheable prompt, tokenizer) apply, has a hyphen
    ("openrouter", r"^(claude-(?:[a-z]+-)?\d+)\.(\d+)", r"\1-\2"),
    ("*", r"@.*$", ""),  # Vertex "@<date>"
    ("*", r":(?:free|beta|batch|extended|thinking|nitro|floor|online|exacto)$", ""),  # OpenRouter variants
    ("databricks", r"^databricks-", ""),  # Databricks endpoint names
)


@record
class HostForm:
    """A hosted id form :func:`host_form` recognised: where to look and what for."""

    host: str  # "bedrock", "azure", "vertex", "openrouter"
    provider: str  # the genai-prices provider that prices it
    ref: str  # the id to look up there
    retry: str | None = None  # a second id to try (a Bedrock profile's model without its prefix)


@lru_cache(maxsize=1)
def _rules() -> tuple[tuple[str, re.Pattern[str], str, re.Pattern[str] | None], ...]:
    return tuple(
        (host, re.compile(pattern, re.IGNORECASE), provider, None if retry is None else re.compile(retry))
        for host, pattern, provider, retry in HOST_RULES
    )


def host_form(written: str) -> HostForm | None:
    """The hosted form ``written`` is in (the first of :data:`HOST_RULES` that matches), or None."""
    text = written.strip()
    for host, pattern, provider, retry in _rules():
        match = pattern.match(text)
        if match is None:
            continue
        ref = match.group("ref").strip()
        again = retry.sub("", ref, count=1) if retry is not None else None
        return HostForm(host, provider, ref, again if again and again != ref else None)
    return None


def host_of(provider: str, row_id: str) -> str | None:
    """The host a row is reached on without a host rule (:data:`HOST_OF_PROVIDER`, :data:`HOSTED_ROWS`)."""
    if provider in HOST_OF_PROVIDER:
        return HOST_OF_PROVIDER[provider]
    for pid, pattern, host in HOSTED_ROWS:
        if pid == provider and re.search(pattern, row_id, re.IGNORECASE):
            return host
    return None


def makers(model_ref: str) -> list[str]:
    """The providers :data:`MAKERS` names as the maker of ``model_ref``, in order."""
    ref = model_ref.strip().lower()
    return [maker for pattern, maker in MAKERS if re.search(pattern, ref)]


def underlying_id(provider: str, row_id: str) -> str:
    """A hosted row's underlying model id (:data:`UNDERLYING`): aws ``regional.anthropic.claude-
    sonnet-4-5-20250929-v1:0`` -> ``claude-sonnet-4-5-20250929``, ``deepseek.r1-v1:0`` ->
    ``deepseek-r1``; openrouter ``meta-llama/llama-3.3-70b-instruct`` -> ``llama-3.3-70b-instruct``."""
    out = row_id.strip()
    for pid, pattern, replacement in UNDERLYING:
        if pid in ("*", provider):
            out = re.sub(pattern, replacement, out, count=1, flags=re.IGNORECASE)
    return out or row_id
