package deck

import (
	"github.com/indusagi/induscode/deck/cards"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/checklist"
	"github.com/indusagi/induscode/tools/files"
	"github.com/indusagi/induscode/tools/search"
	"github.com/indusagi/induscode/tools/shell"
	"github.com/indusagi/induscode/tools/web"
)

// builtin is one row of the built-in table: a native tool and its catalog
// metadata. Membership is derived from readOnly, so the catalog and the
// tool's own ReadOnly flag cannot disagree (TestBuiltinReadOnlyAgrees).
type builtin struct {
	id       string
	title    string
	summary  string
	readOnly bool
	// graceful: when the call's context ends the tool gives what it
	// started a grace period to stop, so it is not Cancellable.
	graceful bool
	build    func(Setup) tool.Tool
}

// builtins is the built-in table in catalog order: read, ls, grep, find,
// websearch, webfetch, todo_read, write, edit, bash, process, todo_set.
func builtins() []builtin {
	return []builtin{
		{id: "read", title: "Read file", readOnly: true,
			summary: "Read a text file by line range, or an image; records the read for the edit gate.",
			build:   func(Setup) tool.Tool { return files.ReadTool() }},
		{id: "ls", title: "List directory", readOnly: true,
			summary: "List one directory's entries, sorted, with directories and symlinks marked.",
			build:   func(Setup) tool.Tool { return files.LsTool() }},
		{id: "grep", title: "Search file contents", readOnly: true,
			summary: "Search file contents for a regular expression, ignore-aware and fast.",
			build:   func(s Setup) tool.Tool { return search.GrepTool(search.Options{Index: s.Framework.SearchIndex}) }},
		{id: "find", title: "Find files by name", readOnly: true,
			summary: "Find files whose path matches a glob, newest first.",
			build:   func(Setup) tool.Tool { return search.FindTool(search.Options{}) }},
		{id: "websearch", title: "Web search", readOnly: true,
			summary: "Search the web (SearXNG, Brave, Tavily or DuckDuckGo) for titles, URLs and snippets.",
			build:   func(c Setup) tool.Tool { return web.SearchTool(c.Framework.Web) }},
		{id: "webfetch", title: "Fetch URL", readOnly: true,
			summary: "Fetch a web page as Markdown, text or HTML; binary bodies are saved to a file.",
			build:   func(c Setup) tool.Tool { return web.FetchTool(c.Framework.Web) }},
		{id: "todo_read", title: "Read checklist", readOnly: true,
			summary: "Show the session checklist and each item's status.",
			build:   func(Setup) tool.Tool { return checklist.ReadTool() }},
		{id: "write", title: "Write file",
			summary: "Create or replace a file in the workspace atomically; overwriting needs a fresh read.",
			build:   func(Setup) tool.Tool { return files.WriteTool() }},
		{id: "edit", title: "Edit file",
			summary: "Replace exact text in a file (one edit or an all-or-nothing batch) and show the diff.",
			build:   func(Setup) tool.Tool { return files.EditTool() }},
		{id: "bash", title: "Run shell command", graceful: true,
			summary: "Run a shell command to completion; merged output and exit code.",
			build:   func(Setup) tool.Tool { return shell.BashTool() }},
		{id: "process", title: "Manage background processes", graceful: true,
			summary: "Start, read, wait for, stop and list background processes.",
			build:   func(Setup) tool.Tool { return shell.ProcessTool() }},
		{id: "todo_set", title: "Update checklist",
			summary: "Replace the session checklist; at most one item in progress.",
			build:   func(Setup) tool.Tool { return checklist.SetTool() }},
	}
}

// appCards is the app-card table in catalog order: todo, bg-process,
// task, saas-action, memory, enter_plan_mode, exit_plan_mode. Each joins
// only the All profile.
func appCards() []Card {
	return []Card{
		{ID: "todo", Title: "Todo list", Profiles: appCardMembership,
			Summary: "A weighted todo list with pending, active, done and dropped items (apart from the checklist).",
			Build:   func(Setup) tool.Tool { return cards.Todo() }},
		{ID: "bg-process", Title: "Background processes", Profiles: appCardMembership,
			Summary: "Start (optionally in a terminal), poll, type into, wait for, stop and list background processes (shared with process).",
			Build:   func(Setup) tool.Tool { return cards.BgProcess() }},
		{ID: "task", Title: "Delegate task", Profiles: appCardMembership,
			Summary: "Hand a self-contained objective to a sub-agent through the host's delegate runner.",
			Build:   func(c Setup) tool.Tool { return cards.Task(c.Framework.Delegate) }},
		{ID: "saas-action", Title: "SaaS actions", Profiles: appCardMembership,
			Summary: "Discover and execute third-party service actions through the host's gateway.",
			Build:   func(c Setup) tool.Tool { return cards.SaasActionCard(c.Framework.Saas) }},
		{ID: "memory", Title: "Working memory", Profiles: appCardMembership,
			Summary: "Read, replace or append to the agent's working-memory notes.",
			Build:   func(c Setup) tool.Tool { return cards.Memory(c.Framework.Memory) }},
		{ID: "enter_plan_mode", Title: "Enter plan mode", Profiles: appCardMembership,
			Summary: "Ask to explore read-only and plan before changing anything.",
			Build:   func(Setup) tool.Tool { return cards.EnterPlanMode() }},
		{ID: "exit_plan_mode", Title: "Exit plan mode", Profiles: appCardMembership,
			Summary: "Submit a plan for the user's approval.",
			Build:   func(Setup) tool.Tool { return cards.ExitPlanMode() }},
	}
}

func builtinCards() []Card {
	rows := builtins()
	cards := make([]Card, len(rows))
	for i, b := range rows {
		m := mutatingMembership
		if b.readOnly {
			m = readOnlyMembership
		}
		cards[i] = Card{ID: b.id, Title: b.title, Summary: b.summary, Profiles: m, Build: b.build, Cancellable: !b.graceful}
	}
	return cards
}
