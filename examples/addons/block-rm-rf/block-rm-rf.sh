#!/usr/bin/env bash
# A PreToolUse hook under Claude Code's contract: the request arrives as
# JSON on stdin ({"tool_name":"bash","tool_input":{"command":"..."},...}).
# Exit 2 refuses the call, and what is printed on stderr is the reason the
# model reads; exit 0 lets it run. The same script works unchanged as a
# Claude Code hook in .claude/settings.json.
set -u
request=$(cat)

# rm with both the recursive and the force flag, in any spelling: -rf, -fr,
# -Rf, -r -f, --recursive --force, and flags bundled with others (-rfv).
flags='(-[[:alpha:]]*[rR][[:alpha:]]*f[[:alpha:]]*|-[[:alpha:]]*f[[:alpha:]]*[rR][[:alpha:]]*|(-[rR]|--recursive)[[:space:]]+(-f|--force)|(-f|--force)[[:space:]]+(-[rR]|--recursive))'
if printf '%s' "$request" | grep -Eq "(^|[^[:alnum:]_./-])rm[[:space:]]+$flags([[:space:]]|\"|\$)"; then
  echo "rm -rf is blocked in this repository by the block-rm-rf hook: delete specific files, or ask the user to run it" >&2
  exit 2
fi
exit 0
