package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/indusagi/induscode/internal/termtext"
	"github.com/indusagi/induscode/tool"
)

// maxMatchBytes bounds the new output a pattern is matched against: the
// last 64 KiB, which holds any prompt, so a process printing fast does
// not make every check cost more.
const maxMatchBytes = 64 << 10

// Why a wait ended, as the result's JSON says it.
const (
	endPattern   = "pattern"   // the new output matched the pattern
	endQuiet     = "quiet"     // no output for the quiet period
	endExit      = "exit"      // the process ended
	endTimeout   = "timeout"   // the bound passed
	endCancelled = "cancelled" // the call was cancelled
)

// Until says when a wait ends, besides the process's end.
type Until struct {
	Pattern string        // a regular expression the new output matches
	Quiet   time.Duration // no output for this long
	Timeout time.Duration // the most to wait; 0 means DefaultWait
}

// active reports whether u asks for a wait at all.
func (u Until) active() bool { return u.Pattern != "" || u.Quiet > 0 || u.Timeout > 0 }

// since is where new output starts for a wait: the stream positions and,
// for a terminal, what it showed.
type since struct {
	out, err cursor
	scr      termtext.Mark
}

// markNow is the output's position now.
func (p *Proc) markNow() since {
	var m since
	m.out = p.out.end()
	if p.err != nil {
		m.err = p.err.end()
	}
	if p.term != nil {
		m.scr = p.term.scr.Mark()
	}
	return m
}

// readMark is the output's position at the last read.
func (p *Proc) readMark() since {
	var m since
	m.out = p.out.readPos()
	if p.err != nil {
		m.err = p.err.readPos()
	}
	if p.term != nil {
		m.scr = p.term.readMark()
	}
	return m
}

// matches reports whether re matches output written after m: on a
// terminal, what it shows after m's cursor (so the echo of the typed line
// is not a new prompt); on pipes, either stream.
func (p *Proc) matches(m since, re *regexp.Regexp) bool {
	if p.term != nil {
		d := p.term.since(m.scr)
		return re.MatchString(d.New)
	}
	return re.MatchString(p.out.since(m.out, maxMatchBytes)) || re.MatchString(p.err.since(m.err, maxMatchBytes))
}

// await blocks until re matches output written after from, the output
// has been quiet for quiet (counted from start or the latest output,
// whichever is later), the process ends, timeout passes or ctx ends. It
// says which came first.
func (p *Proc) await(ctx context.Context, from since, re *regexp.Regexp, quiet, timeout time.Duration, start time.Time) string {
	deadline := time.NewTimer(time.Until(start.Add(timeout)))
	defer deadline.Stop()
	var quietTimer *time.Timer
	defer func() {
		if quietTimer != nil {
			quietTimer.Stop()
		}
	}()
	for {
		wake := p.note.wait() // before looking: no write is missed
		if re != nil && p.matches(from, re) {
			return endPattern
		}
		if !p.Running() {
			return endExit
		}
		var quietC <-chan time.Time
		if quiet > 0 {
			last := p.note.lastOutput()
			if last.Before(start) {
				last = start
			}
			left := time.Until(last.Add(quiet))
			if left <= 0 {
				return endQuiet
			}
			if quietTimer == nil {
				quietTimer = time.NewTimer(left)
			} else {
				quietTimer.Reset(left)
			}
			quietC = quietTimer.C
		}
		select {
		case <-wake:
		case <-p.Done():
		case <-quietC:
		case <-deadline.C:
			if re != nil && p.matches(from, re) {
				return endPattern
			}
			return endTimeout
		case <-ctx.Done():
			return endCancelled
		}
	}
}

// WaitRequest is what a wait call asks for.
type WaitRequest struct {
	Filter string // only show new lines matching this
	Until  Until
	Raw    bool // a terminal's raw bytes rather than its text
}

// WaitUntilAction blocks until one of req's conditions holds, or the
// process ends, and reports the output that is new since the last read
// and why the wait ended. Without a pattern or quiet period it waits for
// the end of the process, at most the timeout.
func (e *Engine) WaitUntilAction(ctx context.Context, id string, req WaitRequest) tool.Result {
	p, err := e.Lookup(id)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	filter, re, res, ok := compileWait(req)
	if !ok {
		return res
	}
	start := time.Now()
	timeout := req.Until.Timeout
	if timeout <= 0 {
		timeout = DefaultWait
	}
	why := p.await(ctx, p.readMark(), re, req.Until.Quiet, timeout, start)
	return p.waitReport(why, time.Since(start), req, filter, re)
}

// waitReport is the result of a wait that ended for why after took.
func (p *Proc) waitReport(why string, took time.Duration, req WaitRequest, filter, re *regexp.Regexp) tool.Result {
	var line string
	switch why {
	case endPattern:
		line = fmt.Sprintf("Waited %s: the new output matched %s.", seconds(took.Round(time.Millisecond)), re)
	case endQuiet:
		line = fmt.Sprintf("Waited %s: no new output for %s.", seconds(took.Round(time.Millisecond)), seconds(req.Until.Quiet))
	case endExit:
		if req.Until.Pattern == "" && req.Until.Quiet == 0 {
			// What it waited for; the header says how it ended.
			return withStatus(tool.Text(p.report(filter, req.Raw)), p, why)
		}
		line = fmt.Sprintf("Waited %s: the process ended first.", seconds(took.Round(time.Millisecond)))
	case endTimeout:
		t := req.Until.Timeout
		if t <= 0 {
			t = DefaultWait
		}
		line = fmt.Sprintf("%s is still running after waiting %s", p.ID, seconds(t))
		switch {
		case req.Until.Pattern != "":
			line += fmt.Sprintf("; the new output never matched %s.", re)
		default:
			line += "."
		}
	case endCancelled:
		line = fmt.Sprintf("The wait was cancelled after %s.", seconds(took.Round(time.Millisecond)))
	}
	return withStatus(tool.Text(line+"\n"+p.report(filter, req.Raw)), p, why)
}

func compileWait(req WaitRequest) (filter, pattern *regexp.Regexp, res tool.Result, ok bool) {
	filter, res, ok = compileFilter(req.Filter)
	if !ok {
		return nil, nil, res, false
	}
	if req.Until.Pattern != "" {
		var err error
		if pattern, err = regexp.Compile(req.Until.Pattern); err != nil {
			return nil, nil, tool.Errorf("pattern %q is not a valid regular expression (Go RE2 syntax): %v", req.Until.Pattern, err), false
		}
	}
	return filter, pattern, tool.Result{}, true
}

// InputRequest is what an input call sends, and how long it then waits.
type InputRequest struct {
	Text string
	Keys []string
	Wait WaitRequest // waits after writing when its Until is active
}

// InputAction writes text, then keys, to the process's input (its
// terminal or its stdin pipe). When req.Wait asks for it, it then waits as
// WaitUntilAction does, with the pattern matched only against output that
// follows the input; otherwise it returns at once.
func (e *Engine) InputAction(ctx context.Context, id string, req InputRequest) tool.Result {
	p, err := e.Lookup(id)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	if req.Text == "" && len(req.Keys) == 0 {
		return tool.Errorf("input needs text or keys: text is typed as is, keys are names such as %q (%s)", "Enter", KeyNames)
	}
	filter, re, res, ok := compileWait(req.Wait)
	if !ok {
		return res
	}
	if !p.Running() {
		return tool.Errorf("%s has ended; nothing was sent. %s", p.ID, p.report(filter, req.Wait.Raw))
	}
	appCursor := p.term != nil && p.term.scr.AppCursorKeys()
	ops, size, err := encodeInput(req.Text, req.Keys, p.term != nil, appCursor)
	if err != nil {
		return tool.Errorf("%v", err)
	}
	from := p.markNow()
	start := time.Now()
	sent, note := p.send(ops)
	if note != "" {
		return tool.Errorf("%s: sent %d of %d bytes; %s", p.ID, sent, size, note)
	}
	if !req.Wait.Until.active() {
		return withStatus(tool.Text(fmt.Sprintf("Sent %d %s to %s. Read the answer with action=output or action=wait (pattern waits for a prompt).",
			size, plural(size, "byte", "bytes"), p.ID)), p, "")
	}
	timeout := req.Wait.Until.Timeout
	if timeout <= 0 {
		timeout = DefaultWait
	}
	why := p.await(ctx, from, re, req.Wait.Until.Quiet, timeout, start)
	return p.waitReport(why, time.Since(start), req.Wait, filter, re)
}

// send carries out the steps of an input call. It returns the bytes
// written and, when it stopped early, why.
func (p *Proc) send(ops []inputOp) (int, string) {
	sent := 0
	for _, op := range ops {
		switch {
		case op.interrupt:
			p.g.signal(sigInt)
		case op.eof:
			p.in.close()
		default:
			n, err := p.in.write(op.data, InputTimeout)
			sent += n
			if err != nil {
				return sent, inputFailure(err)
			}
		}
	}
	return sent, ""
}

func inputFailure(err error) string {
	switch {
	case errors.Is(err, errInputClosed):
		return "its input was closed by an earlier Ctrl-D; start the process again to send more"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Sprintf("the process did not take the rest within %s (it is not reading its input, or is busy); nothing more was sent", seconds(InputTimeout))
	case strings.Contains(err.Error(), "broken pipe"), strings.Contains(err.Error(), "file already closed"):
		return "the process no longer reads its input (it closed it or ended)"
	}
	return fmt.Sprintf("writing failed: %v", err)
}
