package conductor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/agents"
	"github.com/indusagi/induscode/conductor/toolrun"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/facts"
	"github.com/indusagi/induscode/session"
	"github.com/indusagi/induscode/skills"
	"github.com/indusagi/induscode/transcript"
)

// Options say what conversation to hold. Model and Open are required
// unless Client is set.
type Options struct {
	// Session opens the deck the agent works with. Its Handles are the
	// conductor's (send_message, set_model, set_thinking); Exec stays the
	// session's.
	Session session.Options
	// Model is "provider/model" (see provider.ParseModelID).
	Model string
	// Open opens a client for a model id: Model's, and those the
	// set_model handle and chat:params choose later (connect.Opener
	// makes one from keys and base URLs). The program passes it in, so
	// it decides which model SDKs it links.
	Open provider.Opener
	// Client, when set, is used instead of opening Model (tests, a
	// program with its own client); Model then only names it.
	Client provider.Client
	// Mode is the permission mode; "" means Default.
	Mode PermissionMode
	// Allowed and Disallowed are rules in Claude Code's syntax (see Rule).
	Allowed, Disallowed []string
	// MaxTurns bounds the model calls of one Run; 0 means no bound.
	MaxTurns int
	// AppendSystem is added to the end of the briefing.
	AppendSystem string
	// System, when set, replaces the briefing's own text (the caller's
	// system prompt, such as the Agent SDK's); AppendSystem and the
	// skills listing still follow it.
	System string
	// Thinking is the starting thinking level ("off", "low", "medium",
	// "high").
	Thinking string
	// MaxTokens bounds each answer; 0 means provider.DefaultMaxTokens,
	// or the model's output limit (Catalog) when that is less.
	MaxTokens int64
	// ContextWindow is the model's window in tokens; 0 means what a
	// local server says it runs the model with (provider.WindowTeller),
	// else what Catalog knows of the model.
	ContextWindow int64
	// Catalog is what is known of models (windows, with the user's
	// overrides); nil means catwalk's data alone.
	Catalog *facts.Catalog
	// Resume continues the conversation with this transcript id; Continue
	// the latest one. Ephemeral keeps no transcript.
	Resume    string
	Continue  bool
	Ephemeral bool
	// Fork, with Resume or Continue, goes on in a new transcript that
	// starts with the old one's conversation, which is left as it was
	// (the Agent SDK's forkSession).
	Fork bool
	// OnEvent receives the run's events on the goroutine of Run; nil
	// drops them.
	OnEvent func(Event)
	// Skills are the skills the agent offers; nil means those found for
	// the workspace (skills.Discover), none with NoSkills.
	Skills   *skills.Set
	NoSkills bool
	// SkillFilter, when not nil, narrows the skills the model sees and
	// may load to these ids (the Agent SDK's skills option); the user's
	// /id commands are not narrowed.
	SkillFilter []string
	// Ask, when set, is asked about a call that needs the user's
	// permission and that no rule or hook decided (a terminal UI shows
	// the question); it blocks the call until answered. Questions come
	// one at a time, in the order of the model's calls, though the calls
	// of one message that only read run in parallel and Ask is called
	// from their goroutines. Nil means no one can be asked: the call is
	// refused with a result that says how to allow it.
	Ask func(ctx context.Context, q Question) Answer
	// Agents are subagent profiles given in code (the Agent SDK's agents
	// option), for the task card's roster ahead of the workspace's own
	// (.indus/agents, .claude/agents); a name given here wins. Check each
	// with Profile.Check first.
	Agents []agents.Profile
	// ParallelSubagents bounds the subagents that run at once; 0 means
	// DefaultParallelSubagents.
	ParallelSubagents int

	// sub, set on a subagent's conversation, is what it knows of its
	// profile (see subagent.go).
	sub *subagentOf
}

// Question is a call that needs the user's permission.
type Question struct {
	Tool  string
	Input json.RawMessage
	// Why is the permission mode's reason, as the model would read it if
	// the call were refused.
	Why string
	// ToolUseID is the id of the model's tool use ("" when the call is
	// not one of the message's, as for a subagent's own call).
	ToolUseID string
	// Agent names the subagent whose call it is ("" for the main agent).
	Agent string
}

// Answer is the user's answer to a [Question].
type Answer struct {
	Allow bool
	// Reason, for a refusal, is told to the model.
	Reason string
	// Input, for an allowed call, is the input it runs with instead of
	// the model's (the user edited the call); nil keeps the model's. A
	// call that tool:before gates see runs with the model's input, which
	// is what the gates judged.
	Input json.RawMessage
}

// OptionError is an option the caller must fix: a mode, a rule, a model
// id or a missing key (a *connect.MissingKeyError inside).
type OptionError struct{ Err error }

func (e *OptionError) Error() string { return e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// compactAt is the share of the context window past which the
// conversation is compacted before the next model call: room is left
// for the answer and the next tool results.
const compactAt = 0.8

// Conductor holds one conversation over one session. Run and Compact
// have the conversation to themselves (another is refused with
// [ErrBusy]); the other methods may be called from any goroutine at any
// time.
type Conductor struct {
	opts   Options
	sess   *session.Session
	perm   permissions
	tr     *transcript.Transcript
	brief  string
	skills *skills.Set
	loaded []loadedSkill // the skills' instructions received, for compaction

	mu       sync.Mutex // guards the fields below, which handles change
	client   provider.Client
	model    provider.ModelID
	thinking provider.Thinking
	pending  []string // send_message texts for the next model call
	// briefStale says the tools changed since the briefing was composed.
	briefStale bool
	// windows holds the windows local servers told, by model.
	windows map[provider.ModelID]int64

	// busy names the Run or Compact using the conversation ("" when
	// none); published is the conversation Messages returns meanwhile.
	busy      string
	published []provider.Message

	// askMu holds Options.Ask to one question at a time; asks orders
	// the questions of the running message's calls.
	askMu sync.Mutex
	asks  *askOrder

	messages []provider.Message
	// planning says plan mode holds the agent to read-only tools; it and
	// perm.mode and perm.allow change from a UI's goroutine (SetMode,
	// AllowRule), so they are read and written under mu (see control.go).
	planning bool
	// lastSize is the prompt and answer of the last model call in tokens,
	// as the provider counted them, and sizedAt the number of messages
	// they covered (see promptSize); 0 when unknown.
	lastSize int64
	sizedAt  int
	// compactWait holds compaction off until the model answers again: a
	// compaction just happened or failed.
	compactWait bool
	// compactOff stops compaction before calls: one left the conversation
	// as near the window as before. A provider's overflow answer still
	// compacts.
	compactOff bool
	usage      provider.Usage
	cost       float64

	// subagents runs the task card in process (nil when the host wired
	// another runner, and in a subagent); emitMu hands events to
	// OnEvent one at a time, since subagents emit from their calls'
	// goroutines.
	subagents *subagents
	emitMu    sync.Mutex
}

// Open opens the session and the conversation (new, resumed or
// continued) and composes the briefing.
func Open(ctx context.Context, o Options) (*Conductor, error) {
	c := &Conductor{opts: o}
	if o.Mode == "" {
		o.Mode = Default
		c.opts.Mode = Default
	}
	if _, err := ParsePermissionMode(string(o.Mode)); err != nil {
		return nil, &OptionError{err}
	}
	allow, err := ParseRules(o.Allowed)
	if err != nil {
		return nil, &OptionError{fmt.Errorf("--allowed-tools: %w", err)}
	}
	deny, err := ParseRules(o.Disallowed)
	if err != nil {
		return nil, &OptionError{fmt.Errorf("--disallowed-tools: %w", err)}
	}
	c.perm = permissions{mode: o.Mode, allow: allow, disallow: deny}
	c.planning = o.Mode == Plan
	if c.thinking, err = provider.ThinkingLevel(o.Thinking); err != nil {
		return nil, &OptionError{err}
	}
	if o.Client != nil {
		c.client = o.Client
		c.model, _ = provider.ParseModelID(cmp.Or(o.Model, "anthropic/unknown"))
	} else if o.Open == nil {
		return nil, &OptionError{errors.New("no way to open a model: set Options.Open (connect.Opener) or Options.Client")}
	} else if c.client, c.model, err = o.Open(o.Model); err != nil {
		return nil, &OptionError{err}
	}
	so := o.Session
	so.Handles = addons.Handles{SendMessage: c.SendMessage, SetModel: c.SetModel, SetThinking: c.SetThinking}
	so.ConversationID = c.SessionID // hooks name the transcript, as the output does
	if so.Framework.Delegate == nil && o.sub == nil {
		// The task card runs subagents in this process, unless the host
		// wired a runner of its own (INDUSR_DELEGATE's command).
		c.subagents = newSubagents(c, so.Dir, o.Agents)
		so.Framework.Delegate = c.subagents
	}
	c.openSkills(&so)
	// The conversation is settled before the session opens, so that the
	// session's first hooks (SessionStart) already name it.
	if so.Dir, err = session.WorkDir(so.Dir); err != nil {
		return nil, err
	}
	if err := c.openTranscript(so.Dir); err != nil {
		return nil, err
	}
	if c.sess, err = session.Open(ctx, so); err != nil {
		return nil, err
	}
	c.perm.root = c.sess.Dir()
	var warnings []string
	c.brief, warnings = c.compose()
	if so.Warn != nil {
		for _, w := range warnings {
			so.Warn(w)
		}
	}
	// Grafted tools come and go (a server starts late, restarts, lists
	// new tools): the briefing is composed again before the next call.
	c.sess.OnToolsChanged(func() {
		c.mu.Lock()
		c.briefStale = true
		c.mu.Unlock()
	})
	return c, nil
}

func (c *Conductor) openTranscript(dir string) error {
	o := c.opts
	var lines []transcript.Line
	var err error
	switch {
	case o.Ephemeral:
		return nil
	case o.Resume != "":
		c.tr, lines, err = transcript.Open(dir, o.Resume)
	case o.Continue:
		c.tr, lines, err = transcript.Latest(dir)
	default:
		c.tr, err = transcript.New(dir, c.model.String())
	}
	if err == nil && o.Fork && (o.Resume != "" || o.Continue) {
		c.tr, err = fork(dir, c.model.String(), lines)
	}
	if err != nil {
		return err
	}
	c.resume(lines)
	return nil
}

// Child opens a conversation of its own beside c: a subagent with its
// own deck, briefing, transcript and events, run on the caller's
// goroutine. What o leaves unset is c's: the workspace and session
// settings (o.Session.Profile and o.Session.Tools choose the child's
// tools; a zero Session is c's whole), the opener of models, the model,
// the permission mode and rules, Ask, the model catalog, the answer's
// bound, the thinking level, and the window when the model is c's. The child keeps no transcript
// unless o.Resume names one. A Run of the child under a context that
// carries the parent's checkpoint node (a tool call of the parent's run)
// adds its changes to that node, so a rewind of the parent's prompt
// undoes the child's work too. The caller closes the child.
func (c *Conductor) Child(ctx context.Context, o Options) (*Conductor, error) {
	return Open(ctx, c.childOptions(o))
}

// childOptions fills what o leaves unset from c, as [Conductor.Child]
// says.
func (c *Conductor) childOptions(o Options) Options {
	p := c.opts
	if o.Session.Dir == "" {
		so := p.Session
		so.Dir = c.sess.Dir()
		so.Name = "" // the parent's named state is the parent's
		so.Profile, so.Tools, so.NoTools = o.Session.Profile, o.Session.Tools, o.Session.NoTools
		so.NoMCP = so.NoMCP || o.Session.NoMCP
		so.Agent = o.Session.Agent
		if o.Session.Addons != nil {
			so.Addons = o.Session.Addons
		}
		o.Session = so
	}
	if o.Open == nil {
		o.Open = p.Open
	}
	if o.Model == "" && o.Client == nil {
		o.Model, o.Client = c.Model().String(), c.sharedClient()
	}
	if o.Mode == "" {
		o.Mode = c.Mode()
	}
	if o.Allowed == nil && o.Disallowed == nil {
		o.Allowed, o.Disallowed = p.Allowed, p.Disallowed
	}
	if o.Ask == nil {
		o.Ask = p.Ask
	}
	if o.Skills == nil && !o.NoSkills {
		o.Skills, o.NoSkills = c.skills, c.skills == nil
		if o.SkillFilter == nil {
			o.SkillFilter = p.SkillFilter
		}
	}
	if o.Resume == "" {
		o.Ephemeral = true
	}
	if o.Agents == nil {
		o.Agents = p.Agents
	}
	// The model's facts, the answer's bound and the thinking level are
	// the parent's unless set; the window too when the model is the
	// parent's.
	if o.Catalog == nil {
		o.Catalog = p.Catalog
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = p.MaxTokens
	}
	if o.Thinking == "" {
		o.Thinking = p.Thinking
	}
	if o.ContextWindow == 0 && o.Model == c.Model().String() {
		o.ContextWindow = p.ContextWindow
	}
	return o
}

// sharedClient is the client of c's model, for a child of the same model.
func (c *Conductor) sharedClient() provider.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.client
}

// Session is the conductor's session.
func (c *Conductor) Session() *session.Session { return c.sess }

// SessionID is the transcript's id ("" for an ephemeral conversation).
func (c *Conductor) SessionID() string {
	if c.tr == nil {
		return ""
	}
	return c.tr.ID()
}

// Model is the model of the next call.
func (c *Conductor) Model() provider.ModelID {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.model
}

// Mode is the permission mode.
func (c *Conductor) Mode() PermissionMode {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.perm.mode
}

// Tools returns the specs offered to the model, in order: the session's
// tools less those a deny rule removes.
func (c *Conductor) Tools() []provider.ToolDef {
	var out []provider.ToolDef
	for _, d := range toolrun.Defs(c.sess.Box().Specs()) {
		if !c.perm.removes(d.Name) && c.offers(d.Name) {
			out = append(out, d)
		}
	}
	return out
}

// Close ends the session (session:end fires) and the transcript.
func (c *Conductor) Close() error {
	var errs []error
	errs = append(errs, c.sess.Close())
	if c.tr != nil {
		errs = append(errs, c.tr.Close())
	}
	return errors.Join(errs...)
}

// SendMessage adds text to the conversation before the next model call:
// the addons' send_message handle.
func (c *Conductor) SendMessage(_ context.Context, text string) error {
	if strings.TrimSpace(text) == "" {
		return fmt.Errorf("send_message needs text")
	}
	c.mu.Lock()
	c.pending = append(c.pending, text)
	c.mu.Unlock()
	return nil
}

// SetModel switches the model of later calls: the set_model handle.
func (c *Conductor) SetModel(_ context.Context, id string) error {
	cl, m, err := c.open(id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.client, c.model = cl, m
	c.mu.Unlock()
	return nil
}

// SetThinking sets the thinking level of later calls: the set_thinking
// handle.
func (c *Conductor) SetThinking(_ context.Context, level string) error {
	t, err := provider.ThinkingLevel(level)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.thinking = t
	c.mu.Unlock()
	return nil
}

func (c *Conductor) emit(e Event) {
	if c.opts.OnEvent != nil {
		c.emitMu.Lock()
		defer c.emitMu.Unlock()
		c.opts.OnEvent(e)
	}
}

// Begin emits Started; a caller that shows the run calls it once before
// the first Run.
func (c *Conductor) Begin() {
	var names []string
	for _, d := range c.Tools() {
		names = append(names, d.Name)
	}
	st := Started{SessionID: c.SessionID(), Model: c.Model().String(), Dir: c.sess.Dir(), Tools: names, Mode: c.Mode(),
		Skills: c.skills.UserInvocable()}
	c.describe(&st)
	c.emit(st)
	c.skillNotices()
}

func (c *Conductor) dispatch(ctx context.Context, e addons.Event, p addons.Payload) addons.Outcome {
	b := c.sess.Addons()
	if b == nil {
		return addons.Outcome{Payload: p}
	}
	return b.Dispatch.Dispatch(ctx, e, p)
}

func (c *Conductor) has(e addons.Event) bool {
	b := c.sess.Addons()
	return b != nil && b.Dispatch.Has(e)
}
