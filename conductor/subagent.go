package conductor

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/hooks"
	"github.com/indusagi/induscode/agents"
	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/deck/cards"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/transcript"
)

// DefaultParallelSubagents bounds the subagents of one conductor that run
// at once when Options.ParallelSubagents is 0: each holds a model stream
// and a session (with its tools' processes), and four keep a two-core
// machine and a provider's rate limit out of trouble while a message
// that fans out still finishes in about the time of its slowest call.
const DefaultParallelSubagents = 4

// DefaultSubagentTurns bounds a subagent's model calls when its profile
// names no max_turns: enough for a real investigation or change, and an
// end to one that goes round in circles while its parent waits.
const DefaultSubagentTurns = 100

// GeneralPurpose is the roster's agent that every conductor has, first:
// the parent's tools (less the task card) and no prompt of its own, as
// Claude Code's general-purpose agent. A profile of that name replaces it.
const GeneralPurpose = "general-purpose"

// SubagentStats counts the subagents of one Run.
type SubagentStats struct {
	Runs   int // subagents run
	Failed int // of which ended with an error
	Turns  int // their model calls
	Usage  provider.Usage
	Cost   float64
}

// subagents is the task card's runner in process: each delegation is a
// child conversation (see [Conductor.Child]) with the chosen profile's
// prompt, model and tools, run under the task call's context.
type subagents struct {
	c      *Conductor
	roster []agents.Profile // GeneralPurpose first
	slots  chan struct{}

	mu    sync.Mutex
	stats SubagentStats
}

var _ cards.DelegateRunner = (*subagents)(nil)

// newSubagents makes the runner of c: the profiles given in code first,
// then the workspace's (a name given in code wins), GeneralPurpose ahead
// of them unless a profile takes its name. A malformed profile file is
// left out here; indusr addons check names it.
func newSubagents(c *Conductor, dir string, given []agents.Profile) *subagents {
	s := &subagents{c: c, slots: make(chan struct{}, cmp.Or(c.opts.ParallelSubagents, DefaultParallelSubagents))}
	found, _ := agents.Discover(dir)
	var all []agents.Profile
	for _, p := range slices.Concat(given, found) {
		if !slices.ContainsFunc(all, func(q agents.Profile) bool { return q.Name == p.Name }) {
			all = append(all, p)
		}
	}
	if !slices.ContainsFunc(all, func(p agents.Profile) bool { return p.Name == GeneralPurpose }) {
		s.roster = append(s.roster, agents.Profile{Name: GeneralPurpose,
			Description: "a general agent with your tools (but this one), for research and multi-step work"})
	}
	s.roster = append(s.roster, all...)
	return s
}

// Agents lists the roster for the task card's description.
func (s *subagents) Agents() []cards.Agent {
	out := make([]cards.Agent, len(s.roster))
	for i, p := range s.roster {
		out[i] = cards.Agent{Name: p.Name, Description: agents.Describe(p)}
	}
	return out
}

func (s *subagents) pick(name string) (agents.Profile, bool) {
	if name == "" {
		return s.roster[0], true
	}
	for _, p := range s.roster {
		if p.Name == name {
			return p, true
		}
	}
	return agents.Profile{}, false
}

func (s *subagents) take() SubagentStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	s.stats = SubagentStats{}
	return st
}

// Run runs d as a subagent: a slot is taken (at most ParallelSubagents at
// once), the child conversation opened, subagent:start fired in the
// parent's session, the objective run to its answer, subagent:stop fired,
// and the answer returned with the files the subagent changed and its
// transcript id.
func (s *subagents) Run(ctx context.Context, d cards.Delegation) (string, error) {
	p, ok := s.pick(d.Agent)
	if !ok {
		return "", fmt.Errorf("no agent named %q in the roster", d.Agent)
	}
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-ctx.Done():
		return "", fmt.Errorf("agent %s was cancelled before it started", p.Name)
	}
	prompt := d.Objective
	if strings.TrimSpace(d.Context) != "" {
		prompt += "\n\nContext:\n" + d.Context
	}
	res, files, id, err := s.c.runSubagent(ctx, p, toolrun.UseID(ctx), "", prompt)
	if err != nil {
		return "", err
	}
	out := res.Text
	if len(files) > 0 {
		out += "\n\nFiles changed: " + strings.Join(files, ", ")
	}
	if id != "" {
		out += "\n\nagent_id: " + id + " (the subagent's transcript)"
	}
	if res.IsError {
		return out, fmt.Errorf("agent %s stopped (%s)", p.Name, res.Subtype)
	}
	return out, nil
}

// runSubagent runs prompt as a subagent of profile p for the parent's
// call useID, in dir ("" for c's workspace): the child conversation is
// opened, subagent:start fired in c's session, the prompt run to its
// answer, subagent:stop fired and the child closed. It returns the
// child's result, the files it changed and its transcript id; the error
// is for a child that could not start.
func (c *Conductor) runSubagent(ctx context.Context, p agents.Profile, useID, dir, prompt string) (*Result, []string, string, error) {
	child, err := c.openSubagent(ctx, p, useID, dir)
	if err != nil {
		return nil, nil, "", fmt.Errorf("agent %s could not start: %w", p.Name, err)
	}
	defer child.Close()
	path := ""
	if child.tr != nil {
		path = child.tr.Path()
	}
	id := child.SessionID()
	life := addons.LifecyclePayload{Session: c.SessionID(), Agent: p.Name, AgentID: id, TranscriptPath: path}
	c.dispatch(ctx, addons.SubagentStart, life)
	c.emit(SubagentStarted{ToolUseID: useID, Agent: p.Name, AgentID: id, Objective: prompt})
	child.Begin()
	res, err := child.Run(ctx, prompt)
	if err != nil {
		res = &Result{Subtype: ErrorExecution, IsError: true, Text: err.Error(), Err: err}
	}
	life.Stopping = true
	c.dispatch(context.WithoutCancel(ctx), addons.SubagentStop, life)
	files := child.changed()
	c.emit(SubagentStopped{ToolUseID: useID, Agent: p.Name, AgentID: id, Result: res, Files: files})
	if s := c.subagents; s != nil {
		s.mu.Lock()
		s.stats.Runs++
		s.stats.Turns += res.Turns
		s.stats.Usage = s.stats.Usage.Add(res.Usage)
		s.stats.Cost += res.Cost
		if res.IsError {
			s.stats.Failed++
		}
		s.mu.Unlock()
	}
	return res, files, id, nil
}

// subagentOf is what a child conversation knows of the subagent it is.
type subagentOf struct {
	profile agents.Profile
	// tools are the profile's tool names and globs; nil means every tool
	// of the parent's but the task card.
	tools []string
	mu    sync.Mutex
	files []string // changed by its successful calls, in order
}

// openSubagent opens the child conversation of profile p for the parent's
// call useID: c's workspace, session settings, approvals, addons and
// sandbox; the profile's prompt after the briefing; its model, else c's;
// c's permission mode or the profile's when that is stricter (plan mode
// while c plans); c's rules; its own files-read state and checklist; a
// transcript linked to c's when c keeps one.
func (c *Conductor) openSubagent(ctx context.Context, p agents.Profile, useID, dir string) (*Conductor, error) {
	o := Options{AppendSystem: p.Prompt, MaxTurns: cmp.Or(p.MaxTurns, DefaultSubagentTurns)}
	// The parent's deck profile and --tools, narrowed by the profile's:
	// a subagent never has a tool its parent lacks.
	o.Session.Profile, o.Session.Tools = cmp.Or(c.opts.Session.Profile, deck.All), c.opts.Session.Tools
	if dp, err := deck.ParseProfile(p.DeckProfile()); err == nil && dp < o.Session.Profile {
		o.Session.Profile = dp
		if o.Session.Tools != nil {
			// Of the parent's --tools, those the narrower profile has.
			o.Session.Tools = slices.DeleteFunc(slices.Clone(o.Session.Tools), func(id string) bool {
				in, ok := deck.ProfilesOf(id)
				return ok && !slices.Contains(in, dp) && dp != deck.All
			})
			if len(o.Session.Tools) == 0 {
				o.Session.NoTools = true
			}
		}
	}
	o.sub = &subagentOf{profile: p, tools: p.ToolNames()}
	o.Session.Agent = p.Name
	if o.sub.tools != nil && !slices.ContainsFunc(o.sub.tools, grafted) {
		o.Session.NoMCP = true // no tool of a server is wanted: start none
	}
	if m := agents.ClaudeModel(p.Model); m != "" {
		if id, err := provider.ParseModelID(m); err == nil && (id.Provider == c.Model().Provider || c.opts.Client == nil) {
			o.Model = m
			if c.opts.Client != nil {
				o.Client = c.opts.Client // an injected client serves every model
			}
		}
	}
	perm, planning := c.permState()
	o.Mode = perm.mode
	if planning {
		o.Mode = Plan
	}
	if pm := PermissionMode(p.PermissionMode); pm != "" && strictness(pm) < strictness(o.Mode) {
		o.Mode = pm
	}
	if ask := c.opts.Ask; ask != nil {
		// One question at a time, whichever subagent asks.
		o.Ask = func(ctx context.Context, q Question) Answer {
			c.askMu.Lock()
			defer c.askMu.Unlock()
			q.Agent = p.Name
			return ask(ctx, q)
		}
	}
	o.OnEvent = func(e Event) { c.emit(SubagentEvent{ToolUseID: useID, Agent: p.Name, Event: e}) }
	o = c.childOptions(o)
	o.Ephemeral = c.tr == nil
	if !o.Session.NoMCP {
		// The parent's servers serve the child too: their tools, as the
		// parent sees them, join the child's deck without a server of
		// its own started (the child's addons still wrap them).
		o.Session.NoMCP = true
		o.Session.Extra = append(slices.Clone(o.Session.Extra), c.serverTools(o.Session.Profile)...)
	}
	if dir != "" {
		o.Session.Dir = dir // a teammate's worktree
	}
	child, err := Open(ctx, o)
	if err != nil {
		return nil, err
	}
	if child.tr != nil {
		child.tr.SetParent(transcript.Parent{ID: c.SessionID(), ToolUseID: useID, Agent: p.Name})
	}
	return child, nil
}

// strictness orders the permission modes from the one that lets least
// run.
func strictness(m PermissionMode) int {
	switch m {
	case Plan:
		return 0
	case Default:
		return 1
	case AcceptEdits:
		return 2
	}
	return 3
}

// grafted reports whether a tool-list entry can name a grafted tool.
func grafted(entry string) bool {
	return strings.Contains(entry, "__") || strings.ContainsAny(entry, "*?[")
}

// offers reports whether the model of c sees the tool: a subagent sees
// only its profile's tools, and never the task card (a subagent does not
// start subagents).
func (c *Conductor) offers(name string) bool {
	if c.opts.sub == nil {
		return true
	}
	if name == "task" {
		return false
	}
	if c.opts.sub.tools == nil {
		return true
	}
	claude := hooks.ClaudeToolName(name)
	for _, e := range c.opts.sub.tools {
		e = strings.TrimSpace(e)
		if e == name || e == claude || canonicalName(e) == canonicalName(name) {
			return true
		}
		if ok, _ := filepath.Match(e, name); ok {
			return true
		}
		if ok, _ := filepath.Match(e, claude); ok {
			return true
		}
	}
	return false
}

// outsideDeck refuses a call of a tool the subagent's profile does not
// give it.
func (c *Conductor) outsideDeck(name string) string {
	if c.offers(name) {
		return ""
	}
	var names []string
	for _, d := range c.Tools() {
		names = append(names, d.Name)
	}
	return fmt.Sprintf("%s is not in the deck of agent %s; its tools are: %s. Do the work with those, or say in your answer what is left to do.",
		name, c.opts.sub.profile.Name, strings.Join(names, ", "))
}

// canonicalName folds case, '_' and '-', as a person types a tool name.
func canonicalName(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(strings.TrimSpace(s)))
}

// noteChanges records, for a subagent, the files its successful calls of
// file-changing tools named.
func (c *Conductor) noteChanges(uses, results []provider.Block) {
	sub := c.opts.sub
	if sub == nil {
		return
	}
	box := c.sess.Box()
	sub.mu.Lock()
	defer sub.mu.Unlock()
	for i, u := range uses {
		if results[i].IsError {
			continue
		}
		t, ok := box.Lookup(u.Name)
		fc, changes := t.(tool.FileChanger)
		if !ok || !changes {
			continue
		}
		paths, err := fc.ChangedPaths(u.Input)
		if err != nil {
			continue
		}
		for _, p := range paths {
			if rel, err := filepath.Rel(c.sess.Dir(), p); err == nil && filepath.IsAbs(p) && !strings.HasPrefix(rel, "..") {
				p = rel
			}
			if !slices.Contains(sub.files, p) {
				sub.files = append(sub.files, p)
			}
		}
	}
}

// changed is the files a subagent changed, in the order it first did.
func (c *Conductor) changed() []string {
	if c.opts.sub == nil {
		return nil
	}
	c.opts.sub.mu.Lock()
	defer c.opts.sub.mu.Unlock()
	return slices.Clone(c.opts.sub.files)
}

// runsTogether says which calls of a message run beside the read-only
// ones: the task card in process, whose subagent checks its own calls.
func (c *Conductor) runsTogether(call toolrun.Call) bool {
	return c.subagents != nil && call.Use.Name == "task"
}

// needsNoPermission is a call the permission mode does not ask about:
// a read-only tool, or the task card in process (its subagent's calls
// are asked about, in a mode no wider than c's).
func (c *Conductor) needsNoPermission(name string, t tool.Tool) bool {
	return t.Spec().ReadOnly || c.subagents != nil && name == "task"
}

// agentName is the profile of a subagent's conversation, "" for the main
// agent's.
func (c *Conductor) agentName() string {
	if c.opts.sub == nil {
		return ""
	}
	return c.opts.sub.profile.Name
}

// Cancellable tells the task card that Run returns once the subagent
// has stopped, and at once when its context ends: the child's model call
// and tool processes end with it.
func (s *subagents) Cancellable() bool { return true }

// serverTools are the tools of the MCP servers c's session mounted that
// c's deck holds (its --tools and profile applied), as the servers list
// them, for a subagent's deck; profile narrows them as a session's
// profile narrows its grafts (authoring keeps the read-only ones).
func (c *Conductor) serverTools(profile deck.Profile) []tool.Tool {
	f := c.sess.Fleet()
	if f == nil {
		return nil
	}
	has := map[string]bool{}
	for _, t := range c.sess.Tools() {
		has[t.Spec().Name] = true
	}
	var out []tool.Tool
	for _, t := range f.Tools() {
		sp := t.Spec()
		if has[sp.Name] && (profile != deck.Authoring || sp.ReadOnly) {
			out = append(out, t)
		}
	}
	return out
}
