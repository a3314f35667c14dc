#!/usr/bin/env bash
# The agentcost action's comment step (action.yml): post the report as ONE pull-request comment,
# found again on the next run by the hidden marker on its first line, and edited in place.
# Environment: MODE (update | new | on-change | off), BODY_FILE (the report; absent after bad
# input), CHANGED (true | false), PR (the pull request's number), GH_TOKEN, GITHUB_REPOSITORY,
# AUTHOR (the login the token posts as; empty: asked of the API, else github-actions[bot]).
# Only a comment written by that login is ever edited: anyone can paste the marker into a comment
# of their own, and editing it would put our report under their name (or theirs under ours).
# A comment that cannot be posted (a pull request from a fork gets a read-only token) is a
# warning, not a failure: the report is on the run's summary page either way.
set -uo pipefail

mode="${MODE:-update}"
say() { echo "agentcost: $*"; }
done_with() { # done_with OUTCOME: the step output `comment`
  echo "comment=$1" >> "${GITHUB_OUTPUT:-/dev/null}"
  exit 0
}

case "$mode" in
  update | new | on-change) ;;
  off) done_with skipped ;;
  *)
    echo "::error title=agentcost::the comment input is update, new, on-change or off, not '$mode'"
    exit 2
    ;;
esac
if [ -z "${BODY_FILE:-}" ] || [ ! -s "$BODY_FILE" ]; then
  say "no report to post (see the diff step's error)"
  done_with skipped
fi
if [ -z "${PR:-}" ]; then
  say "not a pull request: no comment (the report is on the run's summary page)"
  done_with skipped
fi

marker="$(grep -m 1 -o '<!--[^>]*-->' "$BODY_FILE" || true)"
comments="repos/$GITHUB_REPOSITORY/issues/$PR/comments"

existing=""
if [ "$mode" != new ] && [ -n "$marker" ]; then
  # who posts: the AUTHOR input, else the token's own login (GET /user answers for a personal
  # token; GITHUB_TOKEN and app tokens get 403 there), else GITHUB_TOKEN's github-actions[bot]
  author="${AUTHOR:-}"
  if [ -z "$author" ]; then
    author="$(gh api user --jq .login 2> /dev/null || true)"
  fi
  author="${author:-github-actions[bot]}"
  if ! listing="$(gh api --paginate "$comments?per_page=100")"; then
    echo "::warning title=agentcost::could not read the pull request's comments; no comment posted"
    done_with failed
  fi
  # the first comment whose body holds the marker AND that the poster wrote (--paginate prints
  # one JSON array per page); a stranger's comment with the marker is left alone
  existing="$(printf '%s' "$listing" | python3 -c '
import json, sys
marker, author, text, decoder, at = sys.argv[1], sys.argv[2], sys.stdin.read(), json.JSONDecoder(), 0
while at < len(text):
    if text[at].isspace():
        at += 1
        continue
    page, at = decoder.raw_decode(text, at)
    for comment in page:
        user = comment.get("user") or {}
        if marker in (comment.get("body") or "") and user.get("login") == author:
            print(int(comment["id"]))
            raise SystemExit
' "$marker" "$author")"
fi

if [ -n "$existing" ]; then
  if gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$existing" -F body=@- < "$BODY_FILE" > /dev/null; then
    say "updated comment $existing"
    done_with updated
  fi
elif [ "$mode" = on-change ] && [ "${CHANGED:-true}" != true ]; then
  say "the cost did not change: no comment (comment: on-change)"
  done_with skipped
elif gh api --method POST "$comments" -F body=@- < "$BODY_FILE" > /dev/null; then
  say "posted a comment on pull request $PR"
  done_with created
fi
echo "::warning title=agentcost::could not post the comment (a pull request from a fork has a read-only token); the report is on the run's summary page"
done_with failed
