package shell

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell/output"
)

// DefaultWait is how long a wait call blocks when it names no bound.
const DefaultWait = 30 * time.Second

// MaxWait is the longest a start (yield_ms) or wait call may block; it
// matches bash's MaxTimeout so no call holds the agent longer than a
// foreground command could.
const MaxWait = MaxTimeout

// Verbs names the actions of one surface (the process tool says output and
// kill, the bg-process card poll and stop), so that every message points
// the model at calls it can actually make.
type Verbs struct {
	Tool   string // the tool's name
	Output string // the action that returns new output
	Stop   string // the action that stops a process
	Input  string // the action that types into a process ("" if none)
}

// StartAction starts command in the session's working directory. With yield > 0
// it waits up to yield for the command to finish and, if it did, returns
// its output and exit status; otherwise it says the process is running and
// how to follow it. The result's JSON block carries the id.
func (e *Engine) StartAction(ctx context.Context, env *tool.Env, command string, yield time.Duration, v Verbs) tool.Result {
	return e.StartActionWith(ctx, env, command, StartOptions{}, yield, v)
}

// StartActionWith is StartAction with options (a terminal).
func (e *Engine) StartActionWith(ctx context.Context, env *tool.Env, command string, o StartOptions, yield time.Duration, v Verbs) tool.Result {
	if strings.TrimSpace(command) == "" {
		return tool.Errorf("command is required for start: give the shell command to run in the background")
	}
	return e.startIn(ctx, env.Dir, command, o, yield, v)
}

// startIn is StartActionWith in directory dir.
func (e *Engine) startIn(ctx context.Context, dir, command string, o StartOptions, yield time.Duration, v Verbs) tool.Result {
	p, err := e.StartWith(command, dir, o)
	if err != nil {
		return tool.Errorf("could not start %q: %v", command, err)
	}
	if yield > 0 {
		waitFor(ctx, p, yield)
	}
	return startReport(p, yield, v)
}

// startReport is what a start that waited yield says about p. A start
// that did not wait reads no output: what the process printed in the
// moments since it was spawned would land in the start result or in the
// first read by chance, and a stream could even be split between the
// two (stdout shown by start, stderr by the read). Left unread, all of
// it is in the first read, as the start result promises. A start that
// waited shows what came in meanwhile, and the whole report once the
// command finished.
func startReport(p *Proc, yield time.Duration, v Verbs) tool.Result {
	if yield > 0 && !p.Running() {
		return withStatus(tool.Text(p.report(nil, false)), p, "")
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Started %s (pid %d): %s\n", p.ID, p.PID(), p.Command)
	if p.term != nil {
		cols, rows := p.term.scr.Size()
		fmt.Fprintf(&sb, "It runs in a %dx%d terminal.\n", cols, rows)
	}
	if yield > 0 {
		fmt.Fprintf(&sb, "Still running after %s.\n", seconds(yield))
	}
	fmt.Fprintf(&sb, "Read its new output with %s action=%s id=%s; stop it with action=%s id=%s.",
		v.Tool, v.Output, p.ID, v.Stop, p.ID)
	if v.Input != "" {
		fmt.Fprintf(&sb, " Type into it with action=%s id=%s text=... (or keys), and add pattern to wait for its prompt.", v.Input, p.ID)
	}
	if yield > 0 {
		if out := p.renderNew(nil, MaxModelChars, false); out != "" {
			sb.WriteString("\n" + out)
		}
	}
	return withStatus(tool.Text(sb.String()), p, "")
}

// withStatus adds the JSON block every action about one process ends
// with: its id and state, and why a wait ended.
func withStatus(r tool.Result, p *Proc, reason string) tool.Result {
	if notes := p.g.sandboxNotes(); len(notes) > 0 {
		note := strings.Join(notes, "\n")
		if len(r.Blocks) > 0 && r.Blocks[0].Kind == tool.KindText {
			r.Blocks[0].Text += "\n" + note
		} else {
			r.Blocks = append([]tool.Block{tool.TextBlock(note)}, r.Blocks...)
		}
	}
	st := p.state()
	m := map[string]any{"id": p.ID, "pid": p.PID(), "state": st.word, "terminal": p.term != nil}
	if !st.running {
		m["exitCode"] = st.code
	}
	if reason != "" {
		m["reason"] = reason
	}
	r.Blocks = append(r.Blocks, tool.JSONBlock(m))
	return r
}

// OutputAction returns what process id printed since the last read, only
// the lines matching filter when one is given.
func (e *Engine) OutputAction(id, filter string) tool.Result {
	return e.OutputActionRaw(id, filter, false)
}

// OutputActionRaw is OutputAction with, for a process in a terminal, the
// choice of the bytes it wrote (raw) over the text the terminal shows.
func (e *Engine) OutputActionRaw(id, filter string, raw bool) tool.Result {
	p, err := e.Lookup(id)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	re, res, ok := compileFilter(filter)
	if !ok {
		return res
	}
	return withStatus(tool.Text(p.report(re, raw)), p, "")
}

// WaitAction blocks until process id ends, ctx ends or bound passes (0 means
// DefaultWait), then reports like OutputAction.
func (e *Engine) WaitAction(ctx context.Context, id, filter string, bound time.Duration) tool.Result {
	return e.WaitUntilAction(ctx, id, WaitRequest{Filter: filter, Until: Until{Timeout: bound}})
}

// StopAction stops process id: SIGTERM to its group, SIGKILL after
// StopGrace. It reports how the process ended and its last new output.
func (e *Engine) StopAction(id string) tool.Result {
	p, err := e.Lookup(id)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	if !p.Running() {
		return withStatus(tool.Text(fmt.Sprintf("%s had already ended.\n%s", p.ID, p.report(nil, false))), p, "")
	}
	p.Stop()
	return withStatus(tool.Text(p.report(nil, false)), p, "")
}

// ListAction shows every background process of the session: id, state,
// exit code, age and command, as a table and as JSON.
func (e *Engine) ListAction() tool.Result {
	procs := e.List()
	if len(procs) == 0 {
		return tool.Text("No background processes in this session.")
	}
	type row struct {
		ID       string `json:"id"`
		PID      int    `json:"pid"`
		State    string `json:"state"`
		ExitCode *int   `json:"exitCode"`
		AgeSec   int64  `json:"ageSeconds"`
		Command  string `json:"command"`
		Terminal bool   `json:"terminal"`
	}
	rows := make([]row, 0, len(procs))
	var sb strings.Builder
	sb.WriteString("ID\tSTATE\tEXIT\tAGE\tCOMMAND\n")
	now := time.Now()
	for _, p := range procs {
		st := p.state()
		age := now.Sub(p.Started()).Round(time.Second)
		r := row{ID: p.ID, PID: p.PID(), State: st.word, AgeSec: int64(age.Seconds()), Command: p.Command, Terminal: p.term != nil}
		exit := "-"
		if !st.running {
			code := st.code
			r.ExitCode = &code
			exit = fmt.Sprint(code)
		}
		rows = append(rows, r)
		fmt.Fprintf(&sb, "%s\t%s\t%s\t%s\t%s\n", p.ID, st.word, exit, seconds(age), oneLine(p.Command))
	}
	res := tool.Text(strings.TrimSuffix(sb.String(), "\n"))
	res.Blocks = append(res.Blocks, tool.JSONBlock(map[string]any{"processes": rows}))
	return res
}

func compileFilter(filter string) (*regexp.Regexp, tool.Result, bool) {
	if filter == "" {
		return nil, tool.Result{}, true
	}
	re, err := regexp.Compile(filter)
	if err != nil {
		return nil, tool.Errorf("filter %q is not a valid regular expression (Go RE2 syntax): %v", filter, err), false
	}
	return re, tool.Result{}, true
}

// waitFor blocks until p ends, ctx ends or d passes.
func waitFor(ctx context.Context, p *Proc, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.Done():
	case <-ctx.Done():
	case <-t.C:
	}
}

// procState is a process's state in words.
type procState struct {
	running bool
	word    string // running, exited, killed, stopped
	detail  string // "exited with code 0 after 1.2s"
	code    int
}

func (p *Proc) state() procState {
	if p.Running() {
		return procState{running: true, word: "running",
			detail: fmt.Sprintf("running for %s", seconds(time.Since(p.Started()).Round(100*time.Millisecond)))}
	}
	st, stopped, escalated, ran := p.g.result()
	took := seconds(ran.Round(10 * time.Millisecond))
	switch {
	case st.err != nil:
		return procState{word: "failed", code: st.code, detail: fmt.Sprintf("could not be waited for: %v", st.err)}
	case stopped && escalated:
		return procState{word: "stopped", code: st.code,
			detail: fmt.Sprintf("stopped with SIGKILL after ignoring SIGTERM for %s (ran %s)", seconds(StopGrace), took)}
	case stopped:
		return procState{word: "stopped", code: st.code, detail: fmt.Sprintf("stopped with SIGTERM (ran %s, exit code %d)", took, st.code)}
	case st.signal != "":
		return procState{word: "killed", code: st.code, detail: fmt.Sprintf("killed by %s after %s", st.signal, took)}
	}
	return procState{word: "exited", code: st.code, detail: fmt.Sprintf("exited with code %d after %s", st.code, took)}
}

// report is the header line of p (id, state, pid, command) and its new
// output.
func (p *Proc) report(re *regexp.Regexp, raw bool) string {
	st := p.state()
	head := fmt.Sprintf("%s %s (pid %d): %s", p.ID, st.detail, p.PID(), oneLine(p.Command))
	out := p.renderNew(re, MaxModelChars, raw)
	if out == "" {
		return head + "\nNo new output."
	}
	return head + "\n" + out
}

// renderNew reads what both streams gained since the last read and renders
// it within budget characters: per stream a header, then the newest lines
// that fit. A process in a terminal has one stream, shown as the terminal
// shows it unless raw.
func (p *Proc) renderNew(re *regexp.Regexp, budget int, raw bool) string {
	if p.term != nil {
		return p.term.renderNew(re, budget, raw)
	}
	u := [2]unread{p.out.readNew(), p.err.readNew()}
	streams := [2]*stream{p.out, p.err}
	nonEmpty := 0
	for _, x := range u {
		if len(x.lines) > 0 || len(x.pending) > 0 || x.dropped > 0 {
			nonEmpty++
		}
	}
	if nonEmpty == 0 {
		return ""
	}
	var parts []string
	for i, x := range u {
		if len(x.lines) == 0 && len(x.pending) == 0 && x.dropped == 0 {
			continue
		}
		parts = append(parts, renderStream(streams[i], x, re, budget/nonEmpty))
	}
	return strings.Join(parts, "\n")
}

func renderStream(s *stream, u unread, re *regexp.Regexp, budget int) string {
	texts := make([]string, 0, len(u.lines)+1)
	for _, l := range u.lines {
		t := string(l.text)
		if l.cut > 0 {
			t += fmt.Sprintf(" [... line cut, %d more bytes in the capture file]", l.cut)
		}
		texts = append(texts, t)
	}
	if len(u.pending) > 0 {
		texts = append(texts, string(u.pending))
	}
	shown, matched, total := fitLines(texts, re, budget)
	var sb strings.Builder
	lineHeader(&sb, s.name, matched, total, re)
	capture := s.captureName()
	lineNotices(&sb, u.dropped, matched-len(shown), budget, "all output is in "+capture)
	for _, t := range shown {
		sb.WriteString(t)
		sb.WriteByte('\n')
	}
	if n := len(shown); len(u.pending) > 0 && n > 0 && shown[n-1] == string(u.pending) {
		sb.WriteString("[the last line is unfinished; the rest follows in a later read]\n")
	}
	outBytes, _, err := s.stats()
	if err != nil {
		fmt.Fprintf(&sb, "[the capture file is incomplete: %v]\n", err)
	}
	if note := output.CapNote(capture, s.captureCap, outBytes); note != "" {
		fmt.Fprintf(&sb, "[%s]\n", note)
	}
	return strings.TrimSuffix(strings.ToValidUTF8(sb.String(), "\uFFFD"), "\n")
}

// fitLines keeps the lines re matches (all with no re) and of them the
// newest that fit in budget characters. It returns those to show, how
// many matched, and how many there were. It reuses texts' array.
func fitLines(texts []string, re *regexp.Regexp, budget int) (shown []string, matched, total int) {
	total = len(texts)
	if re != nil {
		kept := texts[:0]
		for _, t := range texts {
			if re.MatchString(t) {
				kept = append(kept, t)
			}
		}
		texts = kept
	}
	start, size := len(texts), 0
	for start > 0 && size+len(texts[start-1])+1 <= budget {
		start--
		size += len(texts[start]) + 1
	}
	return texts[start:], len(texts), total
}

// lineHeader writes the header of a stream's new lines: how many there
// are, or how many of them match re.
func lineHeader(sb *strings.Builder, name string, matched, total int, re *regexp.Regexp) {
	if re != nil {
		fmt.Fprintf(sb, "--- %s: %d of %d new lines match %s ---\n", name, matched, total, re)
		return
	}
	fmt.Fprintf(sb, "--- %s: %d new %s ---\n", name, total, plural(total, "line", "lines"))
}

// lineNotices says which new lines a read does not show: those that left
// memory before it, and the older ones over its budget; where says where
// they can be found.
func lineNotices(sb *strings.Builder, dropped int64, hidden, budget int, where string) {
	if dropped > 0 {
		fmt.Fprintf(sb, "[%d earlier lines left memory before they were read; %s]\n", dropped, where)
	}
	if hidden > 0 {
		fmt.Fprintf(sb, "[%d older new lines not shown to stay within %d characters; %s]\n", hidden, budget, where)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// seconds formats d as seconds ("2s", "0.5s", "120s"), the unit the
// tools' inputs and messages use.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%gs", d.Seconds())
}

// oneLine shortens a command for one-line displays.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		return string(r[:117]) + "..."
	}
	return s
}
