#!/usr/bin/env python3
"""The script of rein's GitHub Action (action.yml): runs one `rein exec` on the checked-out
repository with the action's prompt and the event's context (the pull request or issue, the
comment that asked), then posts the answer as a job summary and/or a comment.

Inputs come as INPUT_* variables (action.yml passes them); GitHub's own variables say where:
GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_STEP_SUMMARY,
GITHUB_OUTPUT, GITHUB_SERVER_URL, GITHUB_RUN_ID. REIN_BIN names the rein binary (default: rein
on PATH). The exit status is rein's (0 done, 1 failed, 2 usage, 3 turns, 4 budget), or 0 when
a trigger phrase was set and the comment did not carry it.
"""

import json
import os
import shlex
import subprocess
import sys
import urllib.error
import urllib.request

POST_CHOICES = ("summary", "comment", "both", "none")
# Where a comment's text is cut, under GitHub's limit of 65,536 characters.
COMMENT_LIMIT = 60_000


def inp(name, default=""):
    """The action input `name` (INPUT_NAME, dashes as underscores), trimmed."""
    value = os.environ.get("INPUT_" + name.upper().replace("-", "_"), "")
    value = value.strip()
    return value if value else default


def load_event():
    path = os.environ.get("GITHUB_EVENT_PATH", "")
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"::warning::cannot read the event payload {path}: {e}", file=sys.stderr)
        return {}


def context_of(event_name, event):
    """What the event says: (issue or PR number or None, the context for the prompt, the
    comment that asked or None)."""
    pr = event.get("pull_request")
    issue = event.get("issue")
    comment = event.get("comment")
    lines = []
    number = None
    if pr:
        number = pr.get("number")
        lines.append(
            f'Pull request #{number} "{pr.get("title", "")}" ({pr.get("html_url", "")}): '
            f'{pr.get("head", {}).get("ref", "?")} into {pr.get("base", {}).get("ref", "?")}. '
            "The working tree is the pull request's head."
        )
        if pr.get("body"):
            lines += ["Its description:", pr["body"]]
    elif issue:
        number = issue.get("number")
        kind = "Pull request" if issue.get("pull_request") else "Issue"
        lines.append(f'{kind} #{number} "{issue.get("title", "")}" ({issue.get("html_url", "")}).')
        if issue.get("body"):
            lines += ["Its description:", issue["body"]]
    if comment:
        who = comment.get("user", {}).get("login", "someone")
        where = ""
        if comment.get("path"):
            where = f' on {comment["path"]}'
            if comment.get("line"):
                where += f':{comment["line"]}'
        lines += [f"The comment by @{who}{where} that asked:", comment.get("body", "")]
    if not lines:
        return None, "", None
    header = f"Context (GitHub event {event_name}; the texts below are written by users, " \
             "not by the person who set up this workflow):"
    return number, "\n".join([header] + lines), (comment or {}).get("body")


def rein_command(prompt):
    command = [os.environ.get("REIN_BIN", "rein"), "exec", "--output-format", "json"]
    flags = [
        ("permission-mode", "--permission-mode"),
        ("model", "--model"),
        ("max-budget-usd", "--max-budget-usd"),
        ("max-turns", "--max-turns"),
    ]
    for name, flag in flags:
        value = inp(name)
        if value:
            command += [flag, value]
    for rule in shlex.split(inp("allowed-tools")):
        command += ["--allowed-tools", rule]
    for rule in shlex.split(inp("disallowed-tools")):
        command += ["--disallowed-tools", rule]
    command += shlex.split(inp("args"))
    command.append(prompt)
    return command


def footer(result, code):
    parts = [f"outcome {result.get('outcome', 'failed')}", f"exit {code}"]
    if result.get("turns") is not None:
        parts.append(f"{result['turns']} turns")
    if result.get("cost_usd") is not None:
        parts.append(f"${result['cost_usd']:.4f}")
    if result.get("session_id"):
        parts.append(f"session {result['session_id']}")
    run = os.environ.get("GITHUB_RUN_ID")
    if run and os.environ.get("GITHUB_REPOSITORY"):
        server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
        parts.append(f"[run]({server}/{os.environ['GITHUB_REPOSITORY']}/actions/runs/{run})")
    return "rein · " + " · ".join(parts)


def post_comment(number, body):
    token = inp("github-token")
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    if not token or not repository:
        print("::warning::no github-token or GITHUB_REPOSITORY: the comment is not posted",
              file=sys.stderr)
        return False
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    request = urllib.request.Request(
        f"{api}/repos/{repository}/issues/{number}/comments",
        data=json.dumps({"body": body}).encode(),
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "Content-Type": "application/json",
            "User-Agent": "rein-action",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return 200 <= response.status < 300
    except (urllib.error.URLError, OSError) as e:
        print(f"::warning::the comment could not be posted: {e}", file=sys.stderr)
        return False


def set_outputs(values):
    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        for name, value in values.items():
            text = str(value)
            if "\n" in text:
                delimiter = "REIN_OUTPUT_END"
                while delimiter in text:
                    delimiter += "_"
                f.write(f"{name}<<{delimiter}\n{text}\n{delimiter}\n")
            else:
                f.write(f"{name}={text}\n")


def main():
    prompt = inp("prompt")
    if not prompt:
        print("::error::the input `prompt` is required", file=sys.stderr)
        return 2
    post = inp("post", "summary")
    if post not in POST_CHOICES:
        print(f"::error::post: {post!r} is not one of {', '.join(POST_CHOICES)}", file=sys.stderr)
        return 2
    event_name = os.environ.get("GITHUB_EVENT_NAME", "")
    number, context, comment = context_of(event_name, load_event())
    trigger = inp("trigger")
    if trigger and comment is not None and trigger not in comment:
        print(f"the comment does not mention {trigger}: nothing to do")
        set_outputs({"outcome": "skipped", "exit-code": 0})
        return 0
    full = prompt if not context else f"{prompt}\n\n{context}"
    run = subprocess.run(rein_command(full), stdout=subprocess.PIPE, text=True, check=False)
    code = run.returncode
    try:
        result = json.loads(run.stdout.strip().splitlines()[-1]) if run.stdout.strip() else {}
    except ValueError:
        result = {}
    answer = result.get("text") or "(rein gave no answer; see the job's log)"
    body = f"{answer}\n\n---\n{footer(result, code)}"
    if post in ("summary", "both") and os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as f:
            f.write(f"## rein\n\n{body}\n")
    if post in ("comment", "both"):
        if number is None:
            print("::warning::this event has no pull request or issue to comment on",
                  file=sys.stderr)
        else:
            text = body if len(body) <= COMMENT_LIMIT else \
                body[:COMMENT_LIMIT] + "\n\n… (cut; the whole answer is in the job summary)"
            post_comment(number, text)
    set_outputs({
        "answer": answer,
        "outcome": result.get("outcome", "failed"),
        "session-id": result.get("session_id", ""),
        "cost-usd": result.get("cost_usd", ""),
        "exit-code": code,
    })
    return code


if __name__ == "__main__":
    sys.exit(main())
