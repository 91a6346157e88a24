#!/usr/bin/env bash
# For every task in tasks.jsonl: copy the task dir to a temp dir, run the check
# (must FAIL on the buggy files), apply fixes/<id>.json, run the check again
# (must PASS). Prints PASS/FAIL per task. Exit status 0 iff all tasks PASS.
set -u
SUITE="$(cd "$(dirname "$0")" && pwd)"
overall=0
while IFS= read -r line; do
  [ -z "$line" ] && continue
  id=$(printf '%s' "$line" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  repo=$(printf '%s' "$line" | python3 -c 'import json,sys; print(json.load(sys.stdin)["repo"])')
  check=$(printf '%s' "$line" | python3 -c 'import json,sys; print(json.load(sys.stdin)["check"])')
  tmo=$(printf '%s' "$line" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("timeout", 300))')
  tmp=$(mktemp -d)
  cp -r "$SUITE/$repo" "$tmp/task"
  ( cd "$tmp/task" && timeout "$tmo" bash -c "$check" ) >"$tmp/before.log" 2>&1
  before=$?
  python3 - "$SUITE/fixes/$id.json" "$tmp/task" <<'PY'
import json, sys, os
fix = json.load(open(sys.argv[1], encoding="utf-8"))
p = os.path.join(sys.argv[2], fix["path"])
src = open(p, encoding="utf-8", newline="").read()
n = src.count(fix["old_string"])
if n != 1:
    sys.exit("old_string occurs %d times in %s" % (n, fix["path"]))
open(p, "w", encoding="utf-8", newline="").write(src.replace(fix["old_string"], fix["new_string"]))
PY
  applied=$?
  after=1
  if [ $applied -eq 0 ]; then
    ( cd "$tmp/task" && timeout "$tmo" bash -c "$check" ) >"$tmp/after.log" 2>&1
    after=$?
  fi
  if [ $before -ne 0 ] && [ $applied -eq 0 ] && [ $after -eq 0 ]; then
    echo "PASS $id (buggy check exit=$before, fixed check exit=$after)"
  else
    echo "FAIL $id (buggy check exit=$before, fix applied=$([ $applied -eq 0 ] && echo yes || echo no), fixed check exit=$after; logs in $tmp)"
    overall=1
    continue
  fi
  rm -rf "$tmp"
done < "$SUITE/tasks.jsonl"
exit $overall
