package cli

import (
	"github.com/spf13/pflag"

	"github.com/indusagi/induscode/deck"
)

// options are the global flags every subcommand shares.
type options struct {
	Dir     string
	Profile deck.Profile
	Tools   []string
	NoTools bool
	NoMCP   bool
	MCP     []string
	JSON    bool
	Session string
	// NoAddons loads none of the workspace's addons.
	NoAddons bool
	// ClaudeHooks runs the hooks of .claude/settings*.json.
	ClaudeHooks bool
	// NoLSP starts no language server (also INDUSR_NO_LSP=1).
	NoLSP bool
	// NoIndex makes grep scan without its index (also INDUSR_NO_INDEX=1).
	NoIndex bool
	// Sandbox is the sandbox mode of the commands a session starts.
	Sandbox string
	// SandboxNetwork lets sandboxed commands use the network.
	SandboxNetwork bool

	// handles are the card handles and web policy read from the
	// environment (see parseHandles); they have no flags.
	handles handles
}

func defaultOptions() options { return options{Profile: deck.All} }

// globalFlag is one row of the flag table. Rows bind a flag to its field;
// list flags take repeated values or comma-separated ones.
type globalFlag struct {
	name, short, usage string
	bind               func(fs *pflag.FlagSet, o *options, name, short, usage string)
}

func stringFlag(field func(*options) *string) func(*pflag.FlagSet, *options, string, string, string) {
	return func(fs *pflag.FlagSet, o *options, name, short, usage string) {
		p := field(o)
		fs.StringVarP(p, name, short, *p, usage)
	}
}

func listFlag(field func(*options) *[]string) func(*pflag.FlagSet, *options, string, string, string) {
	return func(fs *pflag.FlagSet, o *options, name, short, usage string) {
		p := field(o)
		fs.StringSliceVarP(p, name, short, *p, usage)
	}
}

func boolFlag(field func(*options) *bool) func(*pflag.FlagSet, *options, string, string, string) {
	return func(fs *pflag.FlagSet, o *options, name, short, usage string) {
		p := field(o)
		fs.BoolVarP(p, name, short, *p, usage)
	}
}

// flagTable is every global flag; subcommand-only flags live with their
// subcommand.
var flagTable = []globalFlag{
	{"cwd", "C", "working directory of the session (default: the current directory)",
		stringFlag(func(o *options) *string { return &o.Dir })},
	{"profile", "", "tool profile: authoring (read-only built-ins), survey (all built-ins) or all (built-ins and app cards)",
		func(fs *pflag.FlagSet, o *options, name, short, usage string) {
			fs.VarP(&o.Profile, name, short, usage)
		}},
	{"tools", "", "only these built-in tools (repeat or comma-separate; case, '_' and '-' are ignored); MCP tools stay, unless entries name them (SERVER__TOOL or a glob such as fs__*)",
		listFlag(func(o *options) *[]string { return &o.Tools })},
	{"no-tools", "", "provision no tools at all (no built-ins, no MCP servers)",
		boolFlag(func(o *options) *bool { return &o.NoTools })},
	{"no-mcp", "", "mount no MCP server (built-in tools only)",
		boolFlag(func(o *options) *bool { return &o.NoMCP })},
	{"mcp", "", "MCP config files or directories to mount (repeat or comma-separate)",
		listFlag(func(o *options) *[]string { return &o.MCP })},
	{"session", "", "keep the session (files read, checklist) across runs under this name, in .indusvx/sessions/",
		stringFlag(func(o *options) *string { return &o.Session })},
	{"no-addons", "", "load none of the workspace's addons (.indus/addons)",
		boolFlag(func(o *options) *bool { return &o.NoAddons })},
	{"claude-hooks", "", "run the hooks of .claude/settings.json and settings.local.json once approved, and those of ~/.claude/settings.json (also INDUSR_CLAUDE_HOOKS=1)",
		boolFlag(func(o *options) *bool { return &o.ClaudeHooks })},
	{"no-lsp", "", "start no language server: no diagnostics after write and edit, no symbols tool (also INDUSR_NO_LSP=1)",
		boolFlag(func(o *options) *bool { return &o.NoLSP })},
	{"no-index", "", "grep without its search index (.indusvx/index/): every file is scanned; results are the same (also INDUSR_NO_INDEX=1)",
		boolFlag(func(o *options) *bool { return &o.NoIndex })},
	{"sandbox", "", "confine bash, processes, hooks and addon processes: read-only, workspace-write or off (default off, or INDUSR_SANDBOX); see indusr sandbox check",
		stringFlag(func(o *options) *string { return &o.Sandbox })},
	{"sandbox-network", "", "let sandboxed commands use the network (also INDUSR_SANDBOX_NETWORK=1)",
		boolFlag(func(o *options) *bool { return &o.SandboxNetwork })},
	{"json", "", "machine-readable JSON output",
		boolFlag(func(o *options) *bool { return &o.JSON })},
}

func bindFlags(fs *pflag.FlagSet, o *options) {
	for _, f := range flagTable {
		f.bind(fs, o, f.name, f.short, f.usage)
	}
}
