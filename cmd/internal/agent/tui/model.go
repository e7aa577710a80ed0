package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	mcpbridge "github.com/indusagi/induscode/bridge"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/tool"
)

// Config is what the program tells the model at its start.
type Config struct {
	// Env is the environment: NO_COLOR and TERM decide colour.
	Env []string
	// Begin, when set, is called once at the start (the conductor's
	// Begin, which emits Started).
	Begin func()
	// Post sends a message to the running program from another goroutine
	// (tool progress); nil drops them.
	Post func(tea.Msg)
	// Now is the clock (tests fix it); nil is time.Now.
	Now func() time.Time
	// Width and Height are the size before the terminal reports one.
	Width, Height int
}

// Model is the terminal's Bubble Tea model. It is a handle on its state:
// Update changes the state and returns the same handle.
type Model struct{ *state }

type state struct {
	b   Backend
	cfg Config
	st  styles
	md  markdown

	width, height int

	conv conversation
	in   inputBox
	ask  *asking
	pick *confirm  // a yes/no question of the UI's own (a rewind)
	list *listPick // a list to choose from (/resume, /rewind, /model)

	running bool
	cancel  context.CancelFunc
	done    chan struct{} // closed when the running prompt's goroutine ends
	started time.Time

	session, model string
	mode           conductor.PermissionMode
	tokens, window int64
	cost           float64

	quitArmed bool   // Ctrl-C was pressed once
	note      string // one line under the conversation (a hint, an error)
	prompts   []sent // the prompts of this terminal, for /rewind
	crash     error
	skills    []string // the skills the user can run as /id
	// mcpPrompts are the MCP servers' prompts, run as /server:name.
	mcpPrompts []mcpbridge.Prompt
	reopen     *reopen
}

// sent is a prompt sent from this terminal and the checkpoint node of
// what it changed ("" until it ends or when it changed nothing).
type sent struct {
	text string
	node string
}

// New makes the model of a conversation held through b.
func New(b Backend, cfg Config) Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Width == 0 {
		cfg.Width, cfg.Height = 80, 24
	}
	color := colorOn(cfg.Env)
	s := &state{b: b, cfg: cfg, st: newStyles(color), md: markdown{color: color},
		width: cfg.Width, height: cfg.Height, mode: b.Mode()}
	s.model = b.Model().String()
	s.session = b.SessionID()
	s.window = b.ContextWindow()
	s.conv.s = s
	if msgs := b.Messages(); len(msgs) > 0 {
		s.conv.replay(msgs)
		s.conv.add(&entry{kind: noticeEntry, text: "Resumed: " + plural(len(msgs), "message") + " above; the conversation continues here."})
	}
	res, _ := b.(resourceSource)
	s.in = newInputBox(b.Dir(), s.commandList(), color, res)
	s.in.SetWidth(s.width)
	s.in.Focus()
	return Model{s}
}

// Init starts the conversation: Begin emits the conductor's Started.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.in.Focus(), m.listPrompts()}
	if begin := m.cfg.Begin; begin != nil {
		cmds = append(cmds, func() tea.Msg { begin(); return nil })
	}
	return tea.Batch(cmds...)
}

// Messages of the model's own.
type (
	// runDoneMsg ends a prompt's run.
	runDoneMsg struct {
		res *conductor.Result
		err error
	}
	// progressMsg is a running tool's progress (bash: its latest line).
	progressMsg struct{ text string }
	// doneMsg ends a slash command that ran off the UI's goroutine.
	doneMsg struct {
		text string
		err  error
	}
	// submitMsg is a prompt the user sent.
	submitMsg struct{ typed, prompt string }
)

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
		m.in.SetWidth(m.width)
		if m.list != nil {
			m.list.p.SetSize(m.width, min(pickRows, max(m.height-2, 4)))
		}
		m.conv.reflow()
		return m, nil
	case eventMsg:
		m.onEvent(msg)
		return m, nil
	case askMsg:
		m.startAsk(msg)
		return m, nil
	case progressMsg:
		m.conv.progress(msg.text)
		return m, nil
	case runDoneMsg:
		return m, m.runDone(msg)
	case doneMsg:
		m.note = "" // the command's "Compacting…" is over
		if msg.err != nil {
			m.conv.add(&entry{kind: errorEntry, text: msg.err.Error()})
		} else if msg.text != "" {
			m.conv.add(&entry{kind: noticeEntry, text: msg.text})
		}
		return m, nil
	case promptsMsg:
		m.onPrompts(msg)
		return m, nil
	case mcpPromptMsg:
		m.note = ""
		if m.running {
			m.note = "A prompt is running: press esc first."
			return m, nil
		}
		return m, m.run(msg.typed, msg.text)
	case submitMsg:
		return m, m.submit(msg.typed, msg.prompt)
	case tea.PasteMsg:
		if m.ask != nil {
			return m, m.askPaste(msg)
		}
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	var cmd tea.Cmd
	m.in, cmd = m.in.Update(msg)
	return m, cmd
}

// key handles a key press: the question being asked takes keys first,
// then the program's own keys, then the input.
func (m Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s != "ctrl+c" {
		m.quitArmed = false
	}
	switch {
	case s == "ctrl+c":
		return m.ctrlC()
	case m.list != nil:
		return m.listKey(k)
	case m.pick != nil:
		return m.confirmKey(k)
	case m.ask != nil:
		return m.askKey(k)
	}
	switch s {
	case "esc":
		if m.in.Capturing() {
			break
		}
		if m.running {
			m.interrupt()
			return nil
		}
	case "shift+tab":
		m.cycleMode()
		return nil
	case "ctrl+o":
		m.conv.toggleExpanded()
		return nil
	case "pgup":
		m.conv.scrollBy(m.convHeight() - 1)
		return nil
	case "pgdown":
		m.conv.scrollBy(-(m.convHeight() - 1))
		return nil
	}
	var cmd tea.Cmd
	m.in, cmd = m.in.Update(k)
	return cmd
}

// ctrlC clears the input, else interrupts a run, else arms quitting; a
// second Ctrl-C in a row quits.
func (m Model) ctrlC() tea.Cmd {
	if m.quitArmed {
		m.stop()
		return tea.Quit
	}
	m.quitArmed = true
	switch {
	case m.ask != nil:
		m.answer(conductor.Answer{Reason: "the user interrupted the turn"})
		m.interrupt()
	case m.list != nil:
		m.closePicker()
	case m.pick != nil:
		m.pick = nil
	case m.in.Value() != "":
		m.in.SetValue("")
	case m.running:
		m.interrupt()
	}
	m.note = "Press Ctrl-C again to quit."
	return nil
}

// cycleMode moves to the next permission mode, Claude Code's order.
func (m Model) cycleMode() {
	order := []conductor.PermissionMode{conductor.Default, conductor.AcceptEdits, conductor.Plan, conductor.BypassPermissions}
	next := order[0]
	for i, md := range order {
		if md == m.b.Mode() {
			next = order[(i+1)%len(order)]
		}
	}
	if err := m.b.SetMode(next); err != nil {
		m.note = err.Error()
		return
	}
	m.mode = next
	m.note = ""
}

// submit runs a prompt, or a slash command; during a run a prompt joins
// the conversation before the model's next call.
func (m Model) submit(typed, prompt string) tea.Cmd {
	m.note = ""
	if cmd, ok := m.slash(typed); ok {
		return cmd
	}
	if m.running {
		if err := m.b.SendMessage(context.Background(), prompt); err != nil {
			m.note = err.Error()
			return nil
		}
		m.conv.add(&entry{kind: userEntry, text: typed, queued: true})
		return nil
	}
	return m.run(typed, prompt)
}

// run starts a prompt's run on a goroutine of its own.
func (m Model) run(typed, prompt string) tea.Cmd {
	m.conv.add(&entry{kind: userEntry, text: typed})
	m.prompts = append(m.prompts, sent{text: typed})
	ctx, cancel := context.WithCancel(context.Background())
	if post := m.cfg.Post; post != nil {
		ctx = tool.WithProgress(ctx, func(_, _ float64, msg string) { post(progressMsg{text: msg}) })
	}
	done := make(chan struct{})
	m.running, m.cancel, m.done, m.started = true, cancel, done, m.cfg.Now()
	b := m.b
	return func() tea.Msg {
		defer close(done)
		res, err := b.Run(ctx, prompt)
		return runDoneMsg{res: res, err: err}
	}
}

func (m Model) runDone(d runDoneMsg) tea.Cmd {
	m.running = false
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	m.conv.endStreaming()
	if m.ask != nil { // a question left when the run ended
		m.ask = nil
		m.in.Focus()
	}
	switch {
	case d.err != nil:
		m.conv.add(&entry{kind: errorEntry, text: d.err.Error()})
	case d.res == nil:
	case d.res.Subtype == conductor.Cancelled:
		m.conv.add(&entry{kind: noticeEntry, text: "Interrupted: the turn stopped and the processes it started were stopped."})
	case d.res.IsError:
		m.conv.add(&entry{kind: errorEntry, text: d.res.Text})
	}
	if d.res != nil && len(m.prompts) > 0 {
		m.prompts[len(m.prompts)-1].node = d.res.Node
	}
	return nil
}

// interrupt cancels the running prompt: the conductor stops the turn
// and the tools' processes.
func (m Model) interrupt() {
	if m.cancel != nil {
		m.cancel()
		m.note = "Interrupting…"
	}
}

// stopWait bounds how long quitting waits for an interrupted run to
// return, so a tool that ignores cancellation cannot hold the terminal;
// the conductor's Close stops its processes anyway.
const stopWait = 5 * time.Second

// stop cancels a run and waits (bounded) for it to end.
func (m Model) stop() {
	if m.cancel != nil {
		m.cancel()
	}
	if m.done != nil {
		select {
		case <-m.done:
		case <-time.After(stopWait):
		}
	}
}

func (m Model) convHeight() int {
	b, _ := m.bottom()
	h := m.height - 1 - lineCount(b)
	return max(h, 1)
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := 1
	for _, r := range s {
		if r == '\n' {
			n++
		}
	}
	return n
}

func plural(n int, one string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", one)
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// reopen asks Run to open another conversation in the terminal.
type reopen struct{ resume string }
