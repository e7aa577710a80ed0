// Package hooks runs command hooks under Claude Code's contract, so hook
// scripts written for Claude Code work here unchanged. A hook is a shell
// command bound to an event: it gets a JSON request on stdin (session id,
// working directory, event name, tool name and input, and the tool's
// result after the call), and its exit code and an optional JSON reply on
// stdout decide. Exit 2 blocks with stderr as the reason; exit 0 may reply
// {"hookSpecificOutput": {"permissionDecision": "deny", ...}}, rewrite the
// input with updatedInput, or use the older {"decision": "block"} form;
// any other exit is an error shown to the user that blocks nothing.
//
// Hooks come from two places: [[hook]] tables of an addon's manifest.toml
// (see manifest.HookDecl, registered through [Binder]) and the hooks section
// of Claude Code's .claude/settings.json and the user's ~/.claude/settings.json
// ([ParseSettings], registered as
// one addon by [Addon]). Either way they map onto the addons runtime:
// PreToolUse is a tool:before gate (its "allow" is the gate's Allow: a
// host with no one to ask runs the call; its "ask" is the gate's Ask,
// put to the user by a host that can ask), followed at once by a
// tool:before transform that applies updatedInput (a gate can refuse but
// not rewrite; registered back to back, nothing runs between the hook's
// verdict and its rewrite); PostToolUse is a tool:after transform that
// adds a hook's feedback to the result the model sees; SessionStart and
// SessionEnd are observers (SessionStart's additionalContext goes to the
// model through the send_message handle); UserPromptSubmit is an
// input:submit gate followed by a transform that adds its
// additionalContext to the prompt; PreCompact is a compact:before gate;
// Stop is a turn:end observer that acts only where the agent stops, and
// keeps it going by sending the block's reason (send_message).
//
// The hooks of one event run in parallel, each with its timeout (default
// 60 s), through a [Runner]: the session's shell engine, so each runs as
// bash -c in the workspace, in a process group of its own that is killed
// on timeout or cancellation, with CLAUDE_PROJECT_DIR set.
package hooks
