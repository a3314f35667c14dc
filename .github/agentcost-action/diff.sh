#!/usr/bin/env bash
# The agentcost action's diff step (action.yml): run `agentcost diff` with the action's inputs,
# write the comment body and the step summary, and keep agentcost's exit code as the step output
# `status` (the last step of the action exits with it, after the comment is posted).
# Inputs come as INPUT_* variables; GitHub sets GITHUB_OUTPUT, GITHUB_BASE_REF and RUNNER_TEMP.
set -uo pipefail

report="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/agentcost-comment.md"
rm -f "$report"

base="${INPUT_BASE_REF:-}"
if [ -z "$base" ]; then
  if [ -z "${GITHUB_BASE_REF:-}" ]; then
    echo "::error title=agentcost::base-ref is empty and this is not a pull_request run: set the base-ref input"
    echo "status=2" >> "$GITHUB_OUTPUT"
    exit 0
  fi
  base="origin/$GITHUB_BASE_REF"
fi
# A default (shallow) checkout has only the pull request's commit: fetch the base branch.
if ! git rev-parse --verify --quiet "$base^{commit}" > /dev/null && [ "${base#origin/}" != "$base" ]; then
  git fetch --no-tags --quiet --depth=1 origin "+refs/heads/${base#origin/}:refs/remotes/$base" || true
fi

project="${INPUT_PROJECT:-agentcost.yml}"
# The one-line form of the action reads agentcost.yml at the repository root: where there is none,
# say which path was looked for and which input names another, as an annotation on the check
# (escaped as GitHub reads a workflow command's message: %, CR and LF).
if [ ! -f "$project" ]; then
  looked="$PWD/$project"
  message="$project: file not found (looked for $looked; paths are relative to the repository root): set the action's project: input to your project file or scenario file, e.g. project: scenarios/agentcost.yml"
  message="${message//'%'/%25}"
  message="${message//$'\r'/%0D}"
  message="${message//$'\n'/%0A}"
  echo "::error title=agentcost::$message"
  echo "status=2" >> "$GITHUB_OUTPUT"
  exit 0
fi

args=(diff "$project" --base-ref "$base" --comment github --output "$report" --summary)
option() { # option FLAG VALUE: pass FLAG VALUE when VALUE is not empty
  if [ -n "$2" ]; then args+=("$1" "$2"); fi
}
option --max-increase "${INPUT_MAX_INCREASE:-}"
option --max-increase-usd "${INPUT_MAX_INCREASE_USD:-}"
option --budget "${INPUT_BUDGET:-}"
option --warn-increase "${INPUT_WARN_INCREASE:-}"
option --warn-increase-usd "${INPUT_WARN_INCREASE_USD:-}"
option --as-of "${INPUT_AS_OF:-}"
if [ "${INPUT_GATE_NEW_SCENARIOS:-false}" = true ]; then args+=(--gate-new-scenarios); fi
read -r -a extra <<< "${INPUT_ARGS:-}"
args+=("${extra[@]}")

status=0
agentcost "${args[@]}" || status=$?
echo "status=$status" >> "$GITHUB_OUTPUT"
if [ -s "$report" ]; then echo "report=$report" >> "$GITHUB_OUTPUT"; fi
