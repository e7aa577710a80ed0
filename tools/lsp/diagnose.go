package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/indusagi/induscode/tool"
)

// maxSyncBytes bounds the files sent to a server: larger ones are
// generated or data, and copying them into a server costs more than their
// diagnostics are worth.
const maxSyncBytes = 4 << 20

// maxShown bounds the diagnostics listed in one result, per list, so a
// file with hundreds of problems does not crowd out the edit's own answer.
const maxShown = 20

// Diagnose wraps a tool that changes files (write, edit) so that its
// successful results end with the diagnostics of each changed file whose
// language has a server: the problems the change introduced, and those
// the file already had. A session without a [Manager], or a file type with
// no server, costs nothing. The wrapper is still a [tool.FileChanger], so
// checkpointing sees through it; tools that are not are returned as they
// are.
func Diagnose(t tool.Tool) tool.Tool {
	fc, ok := t.(tool.FileChanger)
	if !ok {
		return t
	}
	return &diagnosing{inner: fc}
}

type diagnosing struct{ inner tool.FileChanger }

var _ tool.FileChanger = (*diagnosing)(nil)

func (d *diagnosing) Spec() tool.Spec   { return d.inner.Spec() }
func (d *diagnosing) Unwrap() tool.Tool { return d.inner }
func (d *diagnosing) ChangedPaths(args json.RawMessage) ([]string, error) {
	return d.inner.ChangedPaths(args)
}

func (d *diagnosing) Run(ctx context.Context, input json.RawMessage, env *tool.Env) tool.Result {
	m := Of(env)
	if m == nil {
		return d.inner.Run(ctx, input, env)
	}
	var paths []string
	if named, err := d.inner.ChangedPaths(input); err == nil {
		for _, p := range named {
			if abs, err := env.Resolve(p); err == nil && m.Serves(abs) {
				paths = append(paths, abs)
			}
		}
	}
	if len(paths) == 0 {
		return d.inner.Run(ctx, input, env)
	}
	before := make([][]diagnostic, len(paths))
	known := make([]bool, len(paths))
	for i, p := range paths {
		if text, ok := readSmall(p); ok {
			if ds, err := m.snapshot(ctx, p, text, true); err == nil {
				before[i], known[i] = ds, true
			}
		}
	}
	res := d.inner.Run(ctx, input, env)
	if res.IsError {
		return res
	}
	for i, p := range paths {
		r := Report{Path: env.Rel(p)}
		text, ok := readSmall(p)
		if !ok {
			continue
		}
		after, err := m.snapshot(ctx, p, text, false)
		if err != nil {
			r.Unavailable = err.Error()
		} else {
			r.Introduced, r.Remaining = split(problems(after), problems(before[i]), known[i])
			r.BeforeUnknown = !known[i]
		}
		res.Blocks = append(res.Blocks, tool.TextBlock(r.format(text, m.encodingOf(p))))
	}
	return res
}

// readSmall reads a file the servers may be sent.
func readSmall(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSyncBytes {
		return "", false
	}
	b, err := os.ReadFile(path)
	return string(b), err == nil
}

// problems keeps errors and warnings (a diagnostic without a severity is
// an error, as editors show it).
func problems(ds []diagnostic) []diagnostic {
	var out []diagnostic
	for _, d := range ds {
		if d.Severity <= 2 {
			out = append(out, d)
		}
	}
	return out
}

// split divides after into what the change introduced and what was there
// before, matching by severity and message (positions move with the edit).
func split(after, before []diagnostic, knownBefore bool) (introduced, remaining []diagnostic) {
	if !knownBefore {
		return after, nil
	}
	left := map[string]int{}
	for _, d := range before {
		left[diagKey(d)]++
	}
	for _, d := range after {
		if k := diagKey(d); left[k] > 0 {
			left[k]--
			remaining = append(remaining, d)
		} else {
			introduced = append(introduced, d)
		}
	}
	return introduced, remaining
}

func diagKey(d diagnostic) string { return fmt.Sprint(d.Severity, "\x00", d.Message) }

// format renders a report for the model: each problem as
// path:line:column: severity: message, with 1-based columns in characters.
func (r Report) format(text, enc string) string {
	if r.Unavailable != "" {
		return fmt.Sprintf("Diagnostics of %s are unavailable: %s.", r.Path, strings.TrimSuffix(r.Unavailable, "."))
	}
	if len(r.Introduced) == 0 && len(r.Remaining) == 0 {
		return fmt.Sprintf("Diagnostics: no errors or warnings in %s.", r.Path)
	}
	var b strings.Builder
	list := func(title string, ds []diagnostic) {
		if len(ds) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, len(ds))
		for i, d := range ds {
			if i == maxShown {
				fmt.Fprintf(&b, "  … and %d more\n", len(ds)-maxShown)
				break
			}
			line := d.Range.Start.Line
			col := toRunes(lineOf(text, line), d.Range.Start.Character, enc) + 1
			fmt.Fprintf(&b, "  %s:%d:%d: %s: %s\n", r.Path, line+1, col, severityName(d.Severity), oneLine(d.Message))
		}
	}
	if r.BeforeUnknown {
		list("Diagnostics in "+r.Path+" after this change", r.Introduced)
		return strings.TrimSuffix(b.String(), "\n")
	}
	list("Diagnostics introduced by this change in "+r.Path, r.Introduced)
	list("Diagnostics already in "+r.Path+" before this change", r.Remaining)
	return strings.TrimSuffix(b.String(), "\n")
}

func severityName(s int) string {
	if s == 2 {
		return "warning"
	}
	return "error"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// encodingOf is the position encoding of path's server (UTF-16, the
// protocol's default, when none runs).
func (m *Manager) encodingOf(path string) string {
	lang, _, ok := m.cfg.languageOf(path)
	if !ok {
		return encodingUTF16
	}
	m.mu.Lock()
	c := m.clients[lang]
	m.mu.Unlock()
	if c == nil {
		return encodingUTF16
	}
	select {
	case <-c.ready:
		if c.enc != "" {
			return c.enc
		}
	default:
	}
	return encodingUTF16
}
