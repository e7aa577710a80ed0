package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/indusagi/induscode/conductor"
)

// builtin is a slash command of the terminal's own.
type builtin struct {
	name, args, summary string
	run                 func(m Model, arg string) tea.Cmd
}

// builtins is the table of the terminal's slash commands, in the order
// /help lists them.
func builtins() []builtin {
	return []builtin{
		{"help", "", "keys and commands", cmdHelp},
		{"model", "[provider/model]", "show or switch the model of the next calls", cmdModel},
		{"thinking", "[off|low|medium|high]", "show or set the thinking level", cmdThinking},
		{"plan", "", "switch plan mode on or off (read-only until a plan is approved)", cmdPlan},
		{"permissions", "", "the permission mode and the rules allowed this session", cmdPermissions},
		{"tools", "", "the tools the model has", cmdTools},
		{"mcp", "", "the MCP servers whose tools the model has", cmdMCP},
		{"addons", "", "the addons' commands", cmdAddons},
		{"hooks", "", "where hooks come from and how to list them", cmdHooks},
		{"agents", "", "where subagents come from and how to list them", cmdAgents},
		{"skills", "", "the skills you can run as /name", cmdSkills},
		{"compact", "", "replace the conversation with a summary of it", cmdCompact},
		{"rewind", "[n]", "undo the files the last prompt (or the n-th last) changed, diff shown first", cmdRewind},
		{"cost", "", "tokens and cost so far", cmdCost},
		{"clear", "", "clear the screen (the conversation goes on; /compact shrinks it)", cmdClear},
		{"resume", "[id]", "continue another conversation of this workspace", cmdResume},
		{"init", "", "have the agent write AGENTS.md for this repository", cmdInit},
		{"exit", "", "quit (Ctrl-C twice does too)", func(m Model, _ string) tea.Cmd { m.stop(); return tea.Quit }},
	}
}

// commandList is every slash command, for completion and /help.
func (s *state) commandList() []command {
	var out []command
	for _, b := range builtins() {
		out = append(out, command{Name: b.name, Summary: b.summary})
	}
	for _, c := range s.b.Commands() {
		out = append(out, command{Name: c.Name, Summary: c.Summary})
	}
	for _, id := range s.skills {
		out = append(out, command{Name: id, Summary: "skill"})
	}
	for _, p := range s.mcpPrompts {
		out = append(out, command{Name: promptName(p), Summary: "MCP prompt: " + p.Description})
	}
	return out
}

// slash runs typed as a slash command when it is one; a skill's /id is
// a prompt, which the conductor expands.
func (m Model) slash(typed string) (tea.Cmd, bool) {
	t := strings.TrimSpace(typed)
	if !strings.HasPrefix(t, "/") || strings.HasPrefix(typed, " ") {
		return nil, false
	}
	name, arg, _ := strings.Cut(t[1:], " ")
	arg = strings.TrimSpace(arg)
	for _, b := range builtins() {
		if b.name == name {
			m.conv.add(&entry{kind: userEntry, text: t})
			return b.run(m, arg), true
		}
	}
	if name == "quit" {
		m.stop()
		return tea.Quit, true
	}
	for _, c := range m.b.Commands() {
		if c.Name == name {
			m.conv.add(&entry{kind: userEntry, text: t})
			return m.addonCommand(name, strings.Fields(arg)), true
		}
	}
	for _, id := range m.skills {
		if id == name {
			return nil, false // a prompt: the conductor expands /id
		}
	}
	if cmd, ok := m.mcpPrompt(t, name, arg); ok {
		return cmd, true
	}
	m.note = fmt.Sprintf("Unknown command /%s: /help lists them; start with a space to send it as a prompt.", name)
	return func() tea.Msg { return nil }, true
}

func (m Model) say(text string) tea.Cmd {
	m.conv.add(&entry{kind: noticeEntry, text: text})
	return nil
}

func cmdHelp(m Model, _ string) tea.Cmd {
	var b strings.Builder
	b.WriteString("Keys: enter sends · ctrl+j or shift+enter a new line · esc interrupts a turn · shift+tab switches the mode " +
		"(default → acceptEdits → plan → bypassPermissions) · ctrl+o opens results and thinking · pgup/pgdn scroll · ctrl+c twice quits. " +
		"At a permission question: 1 allow once, 2 always this session, 3 refuse with a reason.\n\nCommands:")
	for _, c := range builtins() {
		fmt.Fprintf(&b, "\n/%s %s — %s", c.name, c.args, c.summary)
	}
	for _, c := range m.b.Commands() {
		fmt.Fprintf(&b, "\n/%s — %s (addon %s)", c.Name, c.Summary, c.Addon)
	}
	for _, id := range m.skills {
		fmt.Fprintf(&b, "\n/%s — skill", id)
	}
	for _, p := range m.mcpPrompts {
		fmt.Fprintf(&b, "\n/%s %s — %s (MCP prompt)", promptName(p), strings.Join(p.Arguments, " "), p.Description)
	}
	return m.say(strings.ReplaceAll(b.String(), "  —", " —"))
}

func cmdModel(m Model, arg string) tea.Cmd {
	if arg == "" {
		return pickModel(m)
	}
	if err := m.b.SetModel(context.Background(), arg); err != nil {
		m.note = err.Error()
		return nil
	}
	m.model = m.b.Model().String()
	m.window = m.b.ContextWindow()
	return m.say("The next calls use " + m.model + ".")
}

func cmdThinking(m Model, arg string) tea.Cmd {
	if arg == "" {
		return m.say("Set the thinking level with /thinking off, low, medium or high.")
	}
	if err := m.b.SetThinking(context.Background(), arg); err != nil {
		m.note = err.Error()
		return nil
	}
	return m.say("Thinking is " + arg + " from the next call.")
}

func cmdPlan(m Model, _ string) tea.Cmd {
	next := conductor.Plan
	if m.b.Mode() == conductor.Plan {
		next = conductor.Default
	}
	if err := m.b.SetMode(next); err != nil {
		m.note = err.Error()
		return nil
	}
	m.mode = next
	return m.say("Permission mode: " + string(next) + ".")
}

func cmdPermissions(m Model, _ string) tea.Cmd {
	rules := m.b.AllowedRules()
	text := "Permission mode: " + string(m.b.Mode()) + ". "
	if len(rules) == 0 {
		text += "No rules allow calls without asking."
	} else {
		text += "Allowed without asking: " + strings.Join(rules, ", ") + "."
	}
	return m.say(text)
}

func cmdTools(m Model, _ string) tea.Cmd {
	var names []string
	for _, t := range m.b.Tools() {
		names = append(names, t.Name)
	}
	return m.say(plural(len(names), "tool") + ": " + strings.Join(names, ", "))
}

func cmdMCP(m Model, _ string) tea.Cmd {
	if src, ok := m.b.(statusSource); ok {
		if st := src.MCPStatus(); len(st) > 0 {
			return m.say(mcpStatus(st))
		}
	}
	servers := map[string]int{}
	for _, t := range m.b.Tools() {
		if srv, _, ok := strings.Cut(t.Name, "__"); ok {
			servers[srv]++
		}
	}
	if len(servers) == 0 {
		return m.say("No MCP server is mounted. `indusr mcp status` shows the configured servers and their health; `indusr mcp trust` approves a workspace's own config.")
	}
	var rows []string
	for s, n := range servers {
		rows = append(rows, fmt.Sprintf("%s (%s)", s, plural(n, "tool")))
	}
	sort.Strings(rows)
	return m.say("MCP servers: " + strings.Join(rows, ", ") + ". `indusr mcp status` shows their health.")
}

func cmdAddons(m Model, _ string) tea.Cmd {
	cs := m.b.Commands()
	if len(cs) == 0 {
		return m.say("No addon commands. Addons live in .indus/addons/ (`indusr addons list`).")
	}
	var rows []string
	for _, c := range cs {
		rows = append(rows, fmt.Sprintf("/%s (%s): %s", c.Name, c.Addon, c.Summary))
	}
	return m.say("Addon commands:\n" + strings.Join(rows, "\n"))
}

func cmdHooks(m Model, _ string) tea.Cmd {
	return m.say("Hooks come from [[hook]] tables of addons and from .claude/settings.json; `indusr hooks list` shows them and `indusr hooks trust` approves them.")
}

func cmdAgents(m Model, _ string) tea.Cmd {
	return m.say("Subagents are the profiles in .indus/agents/ and .claude/agents/; the model delegates to them with the task tool.")
}

func cmdSkills(m Model, _ string) tea.Cmd {
	if len(m.skills) == 0 {
		return m.say("No skills. Skills are folders with a SKILL.md in .claude/skills/ or .indus/skills/ (`indusr skills list`).")
	}
	return m.say("Skills (run one as /name args): " + strings.Join(m.skills, ", "))
}

func cmdCompact(m Model, _ string) tea.Cmd {
	if m.running {
		m.note = "A prompt is running; /compact waits for it to end (or press esc)."
		return nil
	}
	b := m.b
	m.note = "Compacting…"
	return func() tea.Msg {
		if err := b.Compact(context.Background()); err != nil {
			return doneMsg{err: fmt.Errorf("/compact: %w", err)}
		}
		return doneMsg{}
	}
}

func cmdCost(m Model, _ string) tea.Cmd {
	return m.say(fmt.Sprintf("Context %s tokens of %s; cost so far $%.4f (list prices).", short(m.tokens), short(m.window), m.cost))
}

func cmdClear(m Model, _ string) tea.Cmd {
	m.conv.entries, m.conv.tools, m.conv.turnFrom, m.conv.lines = nil, nil, 0, nil
	return nil
}

func cmdResume(m Model, arg string) tea.Cmd {
	if arg == "" {
		return pickResume(m)
	}
	if m.running {
		m.note = "A prompt is running: press esc first."
		return nil
	}
	m.reopen = &reopen{resume: arg}
	m.stop()
	return tea.Quit
}

// initPrompt asks the agent for AGENTS.md.
const initPrompt = "Survey this repository (its layout, build and test commands, conventions, the packages and what " +
	"each is for) with read-only tools, then write AGENTS.md at its root: a concise guide for a coding agent " +
	"working here. If AGENTS.md exists, improve it rather than replace what is still true."

func cmdInit(m Model, _ string) tea.Cmd {
	if m.running {
		m.note = "A prompt is running: press esc first."
		return nil
	}
	m.conv.entries = m.conv.entries[:len(m.conv.entries)-1] // run shows the prompt
	return m.run("/init", initPrompt)
}

func (m Model) addonCommand(name string, args []string) tea.Cmd {
	b := m.b
	return func() tea.Msg {
		out, err := b.RunCommand(context.Background(), name, args)
		if err != nil {
			return doneMsg{err: fmt.Errorf("/%s: %w", name, err)}
		}
		text := strings.TrimRight(out.Stdout, "\n")
		if e := strings.TrimRight(out.Stderr, "\n"); e != "" {
			text += "\n" + e
		}
		if out.Code != 0 {
			return doneMsg{err: fmt.Errorf("/%s exited with %d: %s", name, out.Code, text)}
		}
		if text == "" {
			text = "/" + name + " done."
		}
		return doneMsg{text: text}
	}
}
