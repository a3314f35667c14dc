"""The GitHub Action (action.yml), run here without GitHub: its metadata checked as the action
schema checks it, and its shell steps run in order against a temporary git repository (a base and
a head commit) with ``gh`` replaced by a recorder first on PATH; then the Dockerfile (built and run
when Docker is there) and the pre-commit hook definition.

The schema checks are those of SchemaStore's ``github-action.json``
(https://json.schemastore.org/github-action.json, source ``src/schemas/json/github-action.json``
in github.com/SchemaStore/schemastore) and of GitHub's "Metadata syntax for GitHub Actions"
(https://docs.github.com/en/actions/sharing-automations/creating-actions/metadata-syntax-for-github-actions),
written out below as a JSON schema for the composite form: no copy of the schema is needed offline.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.conftest import copy_seed

ROOT = Path(__file__).resolve().parent.parent
ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
MARKER = "<!-- agentcost-cost-report -->"

# --------------------------------------------------------------------------------------------
# The metadata, as the action schema checks it
# --------------------------------------------------------------------------------------------

_ID = "^[_a-zA-Z][a-zA-Z0-9_-]*$"
_STRING_MAP = {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]}}
_STEP_COMMON = {
    "name": {"type": "string"},
    "id": {"type": "string"},
    "if": {"type": ["string", "boolean", "number"]},
    "env": _STRING_MAP,
    "continue-on-error": {"type": ["boolean", "string"]},
    "working-directory": {"type": "string"},
}
ACTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "description", "runs"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "author": {"type": "string"},
        "description": {"type": "string"},
        "inputs": {
            "type": "object",
            "additionalProperties": False,
            "patternProperties": {
                _ID: {
                    "type": "object",
                    "required": ["description"],
                    "additionalProperties": False,
                    "properties": {
                        "description": {"type": "string"},
                        "deprecationMessage": {"type": "string"},
                        "required": {"type": "boolean"},
                        "default": {"type": "string"},
                    },
                }
            },
        },
        "outputs": {  # a composite action's outputs each name their value
            "type": "object",
            "additionalProperties": False,
            "patternProperties": {
                _ID: {
                    "type": "object",
                    "required": ["description", "value"],
                    "additionalProperties": False,
                    "properties": {"description": {"type": "string"}, "value": {"type": "string"}},
                }
            },
        },
        "runs": {
            "type": "object",
            "required": ["using", "steps"],
            "additionalProperties": False,
            "properties": {
                "using": {"const": "composite"},
                "steps": {
                    "type": "array",
                    "items": {
                        "oneOf": [
                            {  # a run step: a shell is required in a composite action
                                "type": "object",
                                "required": ["run", "shell"],
                                "additionalProperties": False,
                                "properties": {
                                    **_STEP_COMMON,
                                    "run": {"type": "string"},
                                    "shell": {"type": "string"},
                                },
                            },
                            {
                                "type": "object",
                                "required": ["uses"],
                                "additionalProperties": False,
                                "properties": {
                                    **_STEP_COMMON,
                                    "uses": {"type": "string"},
                                    "with": _STRING_MAP,
                                },
                            },
                        ]
                    },
                },
            },
        },
        "branding": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "icon": {"type": "string"},
                "color": {
                    "enum": [
                        "white",
                        "black",
                        "yellow",
                        "blue",
                        "green",
                        "orange",
                        "red",
                        "purple",
                        "gray-dark",
                    ]
                },
            },
        },
    },
}
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]


def _expressions(value: Any) -> list[str]:
    """Every ``${{ ... }}`` expression in a value and its children, plus every ``if:``."""
    if isinstance(value, dict):
        found = [str(value["if"])] if "if" in value else []
        return found + [e for k, v in value.items() if k != "if" for e in _expressions(v)]
    if isinstance(value, list):
        return [e for v in value for e in _expressions(v)]
    return EXPRESSION.findall(value) if isinstance(value, str) else []


def test_action_metadata_follows_the_action_schema() -> None:
    jsonschema.validate(ACTION, ACTION_SCHEMA)
    assert ACTION["runs"]["using"] == "composite"
    for step in STEPS:
        assert "shell" in step or "run" not in step, step


def test_every_expression_names_a_declared_input_an_earlier_step_or_a_github_context() -> None:
    inputs = set(ACTION["inputs"])
    ids: list[str] = []
    for step in STEPS:
        for expression in _expressions(step):
            for name in re.findall(r"\binputs\.([A-Za-z0-9_-]+)", expression):
                assert name in inputs, f"${{{{ inputs.{name} }}}} is not a declared input"
            for name in re.findall(r"\bsteps\.([A-Za-z0-9_-]+)\.", expression):
                assert name in ids, f"step {name!r} is used before it runs"
        ids.append(step.get("id", ""))
    for output in ACTION["outputs"].values():
        for name in re.findall(r"steps\.([A-Za-z0-9_-]+)\.", output["value"]):
            assert name in ids
    defaults = [e for spec in ACTION["inputs"].values() for e in EXPRESSION.findall(spec.get("default", ""))]
    assert all(e.startswith("github.") for e in defaults)


def test_steps_are_safe_and_pinned() -> None:
    for step in STEPS:
        # no expression inside a script: inputs reach the shell as environment variables only, so
        # a branch name or an input can never be run as code
        assert "${{" not in step.get("run", ""), step
        if "uses" in step:  # other actions by major version, as their docs advise
            assert re.fullmatch(r"actions/[a-z-]+(/[a-z]+)?@v\d+", step["uses"]), step["uses"]
    uses = [s["uses"].split("@")[0] for s in STEPS if "uses" in s]
    assert uses == ["actions/setup-python", "actions/cache/restore", "actions/cache/save"]
    save = next(s for s in STEPS if s.get("uses", "").startswith("actions/cache/save"))
    assert save["if"] == "always()"  # a tripped gate still saves the cache for the next run
    assert save["with"]["path"] == "~/.cache/agentcost"
    assert STEPS[-1]["id"] == "gate"  # the exit code comes last, after the comment is posted
    scripts = ROOT / ".github" / "agentcost-action"
    for step in STEPS:
        for script in re.findall(r"\$GITHUB_ACTION_PATH/(\S+\.sh)", step.get("run", "")):
            assert (ROOT / script).is_file() and (ROOT / script).parent == scripts


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_the_action_scripts_pass_shellcheck() -> None:
    scripts = sorted(str(p) for p in (ROOT / ".github" / "agentcost-action").glob("*.sh"))
    run = subprocess.run(["shellcheck", *scripts], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout


# --------------------------------------------------------------------------------------------
# The steps, run locally
# --------------------------------------------------------------------------------------------

# ``gh``: records its arguments, its standard input and GH_TOKEN, and plays a pull request's
# comments from a JSON file: GET lists them, POST adds one (by github-actions[bot], as GITHUB_TOKEN
# posts), PATCH edits one. ``gh api user`` fails as it does for GITHUB_TOKEN (403), unrecorded.
RECORDER = """\
import json, os, sys
args = sys.argv[1:]
if "user" in args:
    sys.exit("gh: Resource not accessible by integration (HTTP 403)")
body = sys.stdin.read() if any(a.endswith("=@-") for a in args) else None
state_file = os.environ["GH_STATE"]
with open(state_file, encoding="utf-8") as handle:
    state = json.load(handle)
state["calls"].append({"args": args, "stdin": body, "token": os.environ.get("GH_TOKEN")})
method = args[args.index("--method") + 1] if "--method" in args else "GET"
path = next(a for a in args if a.startswith("repos/"))
if method == "GET":
    print(json.dumps(state["comments"]))
elif method == "POST":
    bot = {"login": "github-actions[bot]", "type": "Bot"}
    state["comments"].append({"id": 100 + len(state["comments"]), "body": body, "user": bot})
    print(json.dumps(state["comments"][-1]))
elif method == "PATCH":
    [comment] = [c for c in state["comments"] if c["id"] == int(path.rsplit("/", 1)[1])]
    comment["body"] = body
    print(json.dumps(comment))
with open(state_file, "w", encoding="utf-8") as handle:
    json.dump(state, handle)
"""

SCENARIO = """\
version: 1
name: Search agent
model: claude-sonnet-4-5
caching: none
system: {tokens: 500}
tools:
  - name: search
    description: Search the web.
    input_schema: {type: object}
task: {tokens: 100}
rounds:
  - {tool: search, call_tokens: 20, result: {tokens: 1000}}
  - {tool: search, call_tokens: 20, result: {tokens: 1000}}
final: {tokens: 200}
"""
PROJECT = "version: 1\nname: Agents\nscenarios:\n  - {path: search.yaml, runs_per_day: 100}\n"
GATES = {"warn-increase": "10%", "max-increase": "50%", "as-of": "2026-11-30"}


def _diff_has(flag: str) -> bool:
    from typer.testing import CliRunner

    from agentcost.cli import app

    return flag in CliRunner().invoke(app, ["diff", "--help"], env={"COLUMNS": "300"}).output


needs_comment_mode = pytest.mark.skipif(
    shutil.which("git") is None or shutil.which("bash") is None or not _diff_has("--comment"),
    reason="needs git, bash and `agentcost diff --comment` (the action's diff step passes it)",
)


def _git(repo: Path, *args: str) -> None:
    config = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", *config, *args], cwd=repo, check=True, capture_output=True)


@dataclass
class Run:
    """One run of the action: its exit code, its log, its step outputs and what ``gh`` saw."""

    code: int
    log: str
    outputs: dict[str, dict[str, str]]
    summary: str
    calls: list[dict[str, Any]]
    comments: list[dict[str, Any]]


class Runner:
    """A pull request in a temporary repository (``main``, and the head commit checked out), and the
    action's steps run on it the way a runner runs a composite action."""

    def __init__(self, tmp: Path, cache: Path) -> None:
        self.tmp, self.repo = tmp, tmp / "repo"
        self.repo.mkdir()
        (self.repo / "agentcost.yml").write_text(PROJECT, encoding="utf-8")
        (self.repo / "search.yaml").write_text(SCENARIO, encoding="utf-8")
        _git(self.repo, "init", "-q", "-b", "main")
        _git(self.repo, "add", ".")
        _git(self.repo, "commit", "-q", "-m", "base")
        _git(self.repo, "update-ref", "refs/remotes/origin/main", "HEAD")  # as a checkout fetches it
        _git(self.repo, "checkout", "-q", "-b", "pr")
        bin_dir = tmp / "bin"
        bin_dir.mkdir()
        (bin_dir / "gh").write_text(f"#!{sys.executable}\n{RECORDER}", encoding="utf-8")
        (bin_dir / "agentcost").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m agentcost "$@"\n')
        for tool in ("gh", "agentcost"):
            (bin_dir / tool).chmod(0o755)
        (bin_dir / "python3").symlink_to(sys.executable)
        self.state = tmp / "gh.json"
        self.state.write_text(
            json.dumps(
                {
                    "calls": [],
                    "comments": [
                        {"id": 1, "body": "Looks good", "user": {"login": "octocat", "type": "User"}}
                    ],
                }
            )
        )
        (tmp / "runner").mkdir()
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_"))},
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "XDG_CACHE_HOME": str(cache),
            "GH_STATE": str(self.state),
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_REPOSITORY": "owner/repo",
            "GITHUB_BASE_REF": "main",
            "GITHUB_RUN_ID": "1",
            "GITHUB_RUN_ATTEMPT": "1",
            "RUNNER_OS": "Linux",
            "RUNNER_TEMP": str(tmp / "runner"),
            "COLUMNS": "120",
        }

    def commit(self, files: Mapping[str, str]) -> None:
        """The pull request's head commit: these files written (and added) over the base ones."""
        for name, text in files.items():
            (self.repo / name).write_text(text, encoding="utf-8")
        _git(self.repo, "add", ".")
        _git(self.repo, "commit", "-q", "--allow-empty", "-m", "head")

    def run(self, **inputs: str) -> Run:
        """The action's steps in order: ``uses:`` steps (setup-python, the cache) and the install
        step are the runner's business and are skipped (agentcost is this checkout); a step after a
        failed one runs only under ``if: always()``, as on GitHub."""
        declared = ACTION["inputs"]
        assert set(inputs) <= set(declared), set(inputs) - set(declared)
        github = {"github.token": "the-token", "github.event.pull_request.number": "7"}
        values = {
            f"inputs.{k}": EXPRESSION.sub(lambda m: github[m[1]], v.get("default", ""))
            for k, v in declared.items()
        }
        values |= {f"inputs.{k}": v for k, v in inputs.items()}
        outputs: dict[str, dict[str, str]] = {}
        summary = self.tmp / "runner" / "summary.md"
        summary.write_text("", encoding="utf-8")
        failed, log = 0, []

        def value(match: re.Match[str]) -> str:
            step = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", match[1])
            return outputs.get(step[1], {}).get(step[2], "") if step else values[match[1]]

        for number, step in enumerate(STEPS):
            if "uses" in step or step.get("id") == "install" or (failed and step.get("if") != "always()"):
                continue
            assert step["shell"] == "bash" and step.get("if") in (None, "always()"), step
            out = self.tmp / "runner" / f"output-{number}"
            out.write_text("", encoding="utf-8")
            env = {k: EXPRESSION.sub(value, str(v)) for k, v in step.get("env", {}).items()}
            env |= {"GITHUB_OUTPUT": str(out), "GITHUB_STEP_SUMMARY": str(summary)}
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],  # shell: bash
                cwd=self.repo,
                env={**self.env, **env},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
            )
            log.append(done.stdout + done.stderr)
            outputs[step.get("id", str(number))] = dict(
                line.split("=", 1) for line in out.read_text(encoding="utf-8").splitlines() if "=" in line
            )
            failed = failed or done.returncode
        state = json.loads(self.state.read_text(encoding="utf-8"))
        return Run(
            failed,
            "".join(log),
            outputs,
            summary.read_text(encoding="utf-8"),
            state["calls"],
            state["comments"],
        )


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory, _seed_database: Path) -> Path:
    """One seeded cache for every run of this module: a later run finds the counts an earlier one made,
    as a runner's restored ``~/.cache/agentcost`` would."""
    home = tmp_path_factory.mktemp("action-xdg")
    copy_seed(_seed_database, home)
    return home


@pytest.fixture
def pr(tmp_path: Path, shared_cache: Path) -> Runner:
    return Runner(tmp_path, shared_cache)


def _ours(run: Run) -> list[dict[str, Any]]:
    return [c for c in run.comments if MARKER in c["body"]]


def _methods(run: Run) -> list[str]:
    return [
        c["args"][c["args"].index("--method") + 1] if "--method" in c["args"] else "GET" for c in run.calls
    ]


def _path(call: dict[str, Any]) -> str:
    return next(a for a in call["args"] if a.startswith("repos/"))


def _scaled(tokens: int) -> str:
    return SCENARIO.replace("tokens: 1000}", f"tokens: {tokens}}}")


@needs_comment_mode
def test_no_change_passes_and_on_change_posts_no_comment(pr: Runner) -> None:
    pr.commit({})
    run = pr.run(comment="on-change", **GATES)
    assert run.code == 0, run.log
    assert run.outputs["diff"]["changed"] == "false"
    assert run.outputs["comment"]["comment"] == "skipped"
    assert _methods(run) == ["GET"]  # looked for an earlier comment to keep current; none
    assert "agentcost diff" in run.summary and "::warning" not in run.log
    body = Path(run.outputs["diff"]["report"]).read_text(encoding="utf-8")
    assert body.splitlines()[0] == MARKER


@needs_comment_mode
def test_a_warning_level_change_comments_warns_and_passes(pr: Runner) -> None:
    pr.commit({"search.yaml": _scaled(1450)})  # about +16%: over the warning, under the gate
    run = pr.run(**GATES)
    assert run.code == 0, run.log
    assert "::warning" in run.log and "::error" not in run.log
    assert run.outputs["diff"]["changed"] == "true"
    [ours] = _ours(run)
    assert ours["body"].startswith(MARKER + "\n") and ours["body"] == run.calls[-1]["stdin"]
    assert _methods(run) == ["GET", "POST"] and _path(run.calls[-1]) == "repos/owner/repo/issues/7/comments"
    assert {c["token"] for c in run.calls} == {"the-token"}
    assert "search.yaml" in ours["body"] and "search.yaml" in run.summary


@needs_comment_mode
def test_a_failing_change_comments_first_then_fails_and_a_second_run_updates_the_comment(pr: Runner) -> None:
    pr.commit({"search.yaml": _scaled(2700)})  # about +60%: over the 50% gate
    first = pr.run(**GATES)
    assert first.code == 1 and first.outputs["diff"]["status"] == "1", first.log
    assert "::error" in first.log and first.outputs["comment"]["comment"] == "created"
    [posted] = _ours(first)
    assert "❌" in posted["body"]

    pr.commit({"search.yaml": _scaled(2800)})  # another push to the same pull request
    second = pr.run(**GATES)
    assert second.code == 1 and second.outputs["comment"]["comment"] == "updated"
    # exactly one comment with the marker, edited in place; the other comment untouched
    [updated] = _ours(second)
    assert updated["id"] == posted["id"] and updated["body"] != posted["body"]
    assert [c["body"] for c in second.comments if c["id"] != posted["id"]] == ["Looks good"]
    assert _methods(second) == ["GET", "POST", "GET", "PATCH"]
    assert _path(second.calls[-1]) == f"repos/owner/repo/issues/comments/{posted['id']}"


@needs_comment_mode
def test_an_added_scenario_is_listed_and_passes_the_increase_gate(pr: Runner) -> None:
    pr.commit(
        {
            "agent2.yaml": SCENARIO.replace("Search agent", "New agent"),
            "agentcost.yml": PROJECT + "  - {path: agent2.yaml, runs_per_day: 100}\n",
        }
    )
    run = pr.run(**{**GATES, "max-increase": "10%"})
    assert run.code == 0, run.log
    [ours] = _ours(run)
    assert "agent2.yaml" in ours["body"] and "added" in ours["body"]
    assert "agent2.yaml" in run.summary


@needs_comment_mode
def test_bad_input_posts_nothing_and_exits_2(pr: Runner) -> None:
    pr.commit({})
    run = pr.run(project="missing.yml")
    assert run.code == 2 and run.outputs["comment"]["comment"] == "skipped", run.log
    assert run.calls == [] and "report" not in run.outputs["diff"]


# ``curl`` for the GitLab job of docs/ci.md: a merge request's notes in a JSON file, as GitLab's
# notes API answers (GET lists, POST adds, PUT edits); every call recorded.
CURL = """\
import json, os, sys
args = sys.argv[1:]
state_file = os.environ["CURL_STATE"]
with open(state_file, encoding="utf-8") as handle:
    state = json.load(handle)
method = args[args.index("-X") + 1] if "-X" in args else "GET"
url, body = args[-1], None
if "--data" in args:
    with open(args[args.index("--data") + 1].lstrip("@"), encoding="utf-8") as handle:
        body = json.load(handle)["body"]
state["calls"].append({"method": method, "url": url, "token": [a for a in args if a.startswith("PRIVATE-TOKEN")]})
if method == "GET" and url.endswith("/user"):  # the token's own user: a project access token's bot
    print(json.dumps({"id": 77, "username": "project_9_bot"}))
elif method == "GET":
    print(json.dumps(state["notes"]))
elif method == "POST":
    state["notes"].append({"id": 500 + len(state["notes"]), "body": body, "author": {"id": 77}})
else:
    [note] = [n for n in state["notes"] if n["id"] == int(url.rsplit("/", 1)[1])]
    note["body"] = body
with open(state_file, "w", encoding="utf-8") as handle:
    json.dump(state, handle)
"""


def _gitlab_job() -> dict[str, Any]:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    section = text[text.index("## GitLab CI") :]
    job: dict[str, Any] = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])["agentcost"]
    return job


@needs_comment_mode
def test_the_gitlab_job_posts_one_note_and_edits_it_on_the_next_push(pr: Runner) -> None:
    job = _gitlab_job()
    assert job["variables"]["XDG_CACHE_HOME"] == "$CI_PROJECT_DIR/.cache"
    assert job["cache"]["paths"] == [".cache/agentcost"]
    # the steps before it install agentcost and fetch the base branch; this project file is at the root
    script = job["script"][-1].replace("scenarios/agentcost.yml", "agentcost.yml")
    curl = pr.tmp / "bin" / "curl"
    curl.write_text(f"#!{sys.executable}\n{CURL}", encoding="utf-8")
    curl.chmod(0o755)
    state = pr.tmp / "notes.json"
    state.write_text(
        json.dumps({"calls": [], "notes": [{"id": 1, "body": "Thanks!", "author": {"id": 5}}]}),
        encoding="utf-8",
    )
    env = {
        **pr.env,
        "CURL_STATE": str(state),
        "BASE": "main",
        "CI_API_V4_URL": "https://gitlab.example/api/v4",
        "CI_PROJECT_ID": "9",
        "CI_MERGE_REQUEST_IID": "4",
        "AGENTCOST_GITLAB_TOKEN": "glpat",
    }
    codes = []
    for tokens in (2700, 2800):  # two pushes, both over the 20% gate
        pr.commit({"search.yaml": _scaled(tokens)})
        run = subprocess.run(["sh", "-c", script], cwd=pr.repo, env=env, capture_output=True, text=True)
        codes.append(run.returncode)
    assert codes == [1, 1], run.stderr
    seen = json.loads(state.read_text(encoding="utf-8"))
    notes = "https://gitlab.example/api/v4/projects/9/merge_requests/4/notes"
    me = "https://gitlab.example/api/v4/user"
    assert [(c["method"], c["url"]) for c in seen["calls"]] == [
        ("GET", me),
        ("GET", f"{notes}?per_page=100"),
        ("POST", notes),
        ("GET", me),
        ("GET", f"{notes}?per_page=100"),
        ("PUT", f"{notes}/501"),
    ]
    assert {t for c in seen["calls"] for t in c["token"]} == {"PRIVATE-TOKEN: glpat"}
    [ours] = [n for n in seen["notes"] if MARKER in n["body"]]
    assert ours["body"].startswith(MARKER + "\n") and "❌" in ours["body"]
    assert "> [!WARNING]" not in ours["body"]  # GitHub's alert syntax is not GitLab's


def test_the_docs_list_every_input_of_the_action() -> None:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    section = text[text.index("## GitHub Action") : text.index("## The workflow, by hand")]
    listed = re.findall(r"^\| `([a-z-]+)` \|", section, re.M)
    assert listed == list(ACTION["inputs"])
    assert "uses: OWNER/agentcost@v1" in section.split("```yaml", 2)[1]  # the one-line form first


# --------------------------------------------------------------------------------------------
# The container image and the pre-commit hook
# --------------------------------------------------------------------------------------------


def _docker_reason() -> str | None:
    if shutil.which("docker") is None:
        return "docker is not installed"
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=60)
    return None if info.returncode == 0 else "docker is installed but its daemon is not running"


def test_dockerfile_installs_the_build_context_and_runs_agentcost() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.11-slim", text, re.M)
    assert 'ENTRYPOINT ["agentcost"]' in text
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    ignored = [line for line in lines if line and not line.startswith("#")]
    assert ".git" in ignored and "README.md" not in ignored  # pyproject's readme is part of the build


ESTIMATE = ("estimate", "/work/bugfix.yaml", "--as-of", "2026-11-30", "-q")


def test_docker_image_builds_and_estimates_offline(tmp_path: Path) -> None:
    reason = _docker_reason()
    if reason:
        pytest.skip(reason)
    tag = "agentcost-test:latest"
    subprocess.run(
        ["docker", "build", "-q", "-t", tag, str(ROOT)], check=True, capture_output=True, timeout=900
    )
    scenarios = ROOT / "scenarios"
    run = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "-v", f"{scenarios}:/work:ro", tag, *ESTIMATE],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().replace(".", "", 1).isdigit()


def test_pre_commit_hooks_run_the_estimate_gate_on_scenario_files() -> None:
    hooks = {
        h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    }
    files = hooks["agentcost-estimate"]
    assert files["entry"] == "agentcost estimate" and files["language"] == "python"
    matches, excluded = re.compile(files["files"]), re.compile(files["exclude"])

    def picked(path: str) -> bool:
        return bool(matches.search(path)) and not excluded.search(path)

    assert picked("scenarios/bugfix.yaml") and picked("agents/scenarios/search.yml")
    assert not picked("scenarios/agentcost.yml")  # the project file: the other hook
    assert not picked("scenarios/mcp/tools-list.json") and not picked("src/app.py")
    project = hooks["agentcost-project"]
    assert project["pass_filenames"] is False and project["args"][-1] == "scenarios/agentcost.yml"
    # the hooks' commands work as written, on this repository's own scenarios (one process)
    from typer.testing import CliRunner

    from agentcost.cli import app

    args = [*files["entry"].split()[1:], *files["args"], "scenarios/bugfix.yaml", "--budget", "0.001"]
    result = CliRunner().invoke(app, [*args, "--as-of", "2026-11-30"])
    assert result.exit_code == 1 and "over budget" in result.output
