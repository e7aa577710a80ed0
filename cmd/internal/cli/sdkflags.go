package cli

import (
	"github.com/spf13/pflag"
)

// SDKFlags are the flags the Claude Agent SDK puts on the command line of
// the executable it drives (see cmd/internal/agent/streamhost). indusr
// takes each of them, so that an app built on the SDK runs unchanged; a
// flag outside this table (and the others of the command line) is still
// refused, naming it. Where indusr has no notion of what a flag controls
// the value is taken and not acted on; the README's SDK section names
// those.
type SDKFlags struct {
	// InputFormat is "text" (the prompt on the command line or standard
	// input) or "stream-json" (user messages and control requests, one
	// JSON object a line, many turns over one process).
	InputFormat string
	// PermissionPromptTool "stdio" puts the questions of calls that need
	// permission to the app (control request can_use_tool).
	PermissionPromptTool string
	// JSONSchema, when set, asks for the final answer as a JSON value of
	// this schema (the result's structured_output).
	JSONSchema string
	// MaxThinkingTokens is the thinking budget (-1: not given).
	MaxThinkingTokens int
	// SystemPrompt replaces the briefing's own text; SystemPromptFile
	// names a file holding it.
	SystemPrompt, SystemPromptFile string
	// ForkSession resumes into a new session id; NoPersistence keeps no
	// transcript; SessionID names a new session.
	ForkSession, NoPersistence bool
	SessionID                  string
	// FallbackModel is tried when the model fails.
	FallbackModel string
	// MCPConfig are MCP configurations as JSON text or file paths
	// ({"mcpServers": {...}}); "sdk" entries are the app's own servers.
	MCPConfig []string
	// SettingSources lists which settings are read (user, project,
	// local); SettingSourcesGiven says the flag was given at all.
	SettingSources      []string
	SettingSourcesGiven bool
	// AddDirs are directories beyond the workspace the tools may use.
	AddDirs []string
	// ReplayUserMessages echoes the user messages read back on stdout.
	ReplayUserMessages bool
	// Ignored are flags taken for compatibility that change nothing here.
	ignored ignoredSDKFlags
}

// ignoredSDKFlags hold the values of the SDK's flags indusr takes and does
// not act on (billing budgets, plugins, debug logs of Claude Code's own).
type ignoredSDKFlags struct {
	thinkingDisplay, effort, agent, debugFile, permissionPrompts        string
	projectConfigRoot, resumeAt, resumeDrops, initFields                string
	managedSettings, settings                                           string
	maxBudget                                                           float64
	taskBudget                                                          int
	betas, channels, pluginDirs, pluginDirsNoMCP                        []string
	debug, debugStderr, strictMCP, allowSkip, hookEvents, mirror, await bool
	managedInInit                                                       bool
}

// settingSources is --setting-sources: a comma list that may be empty.
type settingSources struct{ f *SDKFlags }

func (s settingSources) String() string { return "" }
func (s settingSources) Type() string   { return "sources" }
func (s settingSources) Set(v string) error {
	s.f.SettingSourcesGiven = true
	s.f.SettingSources = splitComma(v)
	return nil
}

func splitComma(v string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == ',' {
			if i > start {
				out = append(out, v[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func bindSDKFlags(fs *pflag.FlagSet, s *SDKFlags) {
	const compat = "taken for the Claude Agent SDK; not acted on (see README)"
	fs.StringVar(&s.InputFormat, "input-format", "text", "text, or stream-json: user messages and control requests as JSON lines on standard input, many turns over one process (the Claude Agent SDK's protocol)")
	fs.StringVar(&s.PermissionPromptTool, "permission-prompt-tool", "", "stdio: ask the app driving indusr over stream-json about calls that need permission")
	fs.StringVar(&s.JSONSchema, "json-schema", "", "a JSON schema the final answer must follow; the result carries it as structured_output")
	fs.IntVar(&s.MaxThinkingTokens, "max-thinking-tokens", -1, "thinking budget in tokens (0: no thinking); sets the thinking level")
	fs.StringVar(&s.SystemPrompt, "system-prompt", "", "replace the agent's own briefing with this text")
	fs.StringVar(&s.SystemPromptFile, "system-prompt-file", "", "replace the agent's own briefing with this file's text")
	fs.BoolVar(&s.ForkSession, "fork-session", false, "with --resume or --continue: go on in a new session, leaving the old one as it was")
	fs.BoolVar(&s.NoPersistence, "no-session-persistence", false, "keep no transcript of this session")
	fs.StringVar(&s.SessionID, "session-id", "", compat)
	fs.StringVar(&s.FallbackModel, "fallback-model", "", "model to answer with when the main model fails (overloaded, unavailable)")
	fs.StringArrayVar(&s.MCPConfig, "mcp-config", nil, `MCP servers as JSON text or a file, {"mcpServers": {...}} (repeatable)`)
	fs.Var(settingSources{s}, "setting-sources", "which settings to read: a comma list of user, project and local (empty: none)")
	fs.StringArrayVar(&s.AddDirs, "add-dir", nil, "another directory the session's tools may work in (repeatable)")
	fs.BoolVar(&s.ReplayUserMessages, "replay-user-messages", false, "with --input-format stream-json: echo each user message read on stdout")

	g := &s.ignored
	fs.StringVar(&g.thinkingDisplay, "thinking-display", "", compat)
	fs.StringVar(&g.effort, "effort", "", compat)
	fs.StringVar(&g.agent, "agent", "", compat)
	fs.StringVar(&g.debugFile, "debug-file", "", compat)
	fs.StringVar(&g.permissionPrompts, "permission-prompts", "", compat)
	fs.StringVar(&g.projectConfigRoot, "project-config-root", "", compat)
	fs.StringVar(&g.resumeAt, "resume-session-at", "", compat)
	fs.StringVar(&g.resumeDrops, "resume-drops-turn", "", compat)
	fs.StringVar(&g.initFields, "initialize-fields", "", compat)
	fs.StringVar(&g.managedSettings, "managed-settings", "", compat)
	fs.StringVar(&g.settings, "settings", "", compat)
	fs.Float64Var(&g.maxBudget, "max-budget-usd", 0, compat)
	fs.IntVar(&g.taskBudget, "task-budget", 0, compat)
	fs.StringSliceVar(&g.betas, "betas", nil, compat)
	fs.StringArrayVar(&g.channels, "channels", nil, compat)
	fs.StringArrayVar(&g.pluginDirs, "plugin-dir", nil, compat)
	fs.StringArrayVar(&g.pluginDirsNoMCP, "plugin-dir-no-mcp", nil, compat)
	fs.BoolVar(&g.debug, "debug", false, compat)
	fs.BoolVar(&g.debugStderr, "debug-to-stderr", false, compat)
	fs.BoolVar(&g.strictMCP, "strict-mcp-config", false, compat)
	fs.BoolVar(&g.allowSkip, "allow-dangerously-skip-permissions", false, compat)
	fs.BoolVar(&g.hookEvents, "include-hook-events", false, compat)
	fs.BoolVar(&g.mirror, "session-mirror", false, compat)
	fs.BoolVar(&g.await, "await-initialize", false, compat)
	fs.BoolVar(&g.managedInInit, "managed-settings-in-initialize", false, compat)
}
