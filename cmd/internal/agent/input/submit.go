package input

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// MaxResourceText bounds the text one MCP resource adds to a prompt: a
// resource is a document to read, not a disk image; past the bound the
// model gets the start and a line saying it was cut.
const MaxResourceText = 256 << 10

// resolvedMsg brings the text of the resources a sent prompt names.
type resolvedMsg struct {
	typed, prompt string
	err           error
}

// submit sends the prompt: at once when it names no MCP resource, after
// reading them (off the UI's goroutine) when it does.
func (m Model) submit() (Model, tea.Cmd) {
	typed := m.ta.Value()
	if strings.TrimSpace(typed) == "" {
		return m, nil
	}
	prompt := m.pastes.expand(typed)
	if m.cfg.Read == nil || m.cfg.Resources == nil || !mayNameResource(prompt) {
		return m.finish(typed, prompt)
	}
	m.pendingTyped = typed
	m.menu = menu{}
	list, read, known := m.cfg.Resources, m.cfg.Read, m.res
	if m.resState != loaded {
		known = nil
	}
	return m, func() tea.Msg {
		ctx := context.Background()
		if known == nil {
			res, err := list(ctx)
			if err != nil {
				return resolvedMsg{typed: typed, err: fmt.Errorf("MCP resources: %w", err)}
			}
			known = res
		}
		joined, err := joinResources(ctx, prompt, known, read)
		return resolvedMsg{typed: typed, prompt: joined, err: err}
	}
}

// resolved finishes a prompt whose resources were read, or keeps it in the
// input with the failure under it so nothing is sent half-made.
func (m Model) resolved(msg resolvedMsg) (Model, tea.Cmd) {
	if msg.typed != m.pendingTyped {
		return m, nil
	}
	m.pendingTyped = ""
	if msg.err != nil {
		m.note = msg.err.Error()
		return m, nil
	}
	return m.finish(msg.typed, msg.prompt)
}

// finish records the prompt in the history, empties the input and hands
// the prompt to the program.
func (m Model) finish(typed, prompt string) (Model, tea.Cmd) {
	if err := m.hist.Add(prompt); err != nil {
		m.note = err.Error()
	}
	m.histPos = m.hist.Len()
	m.draft = ""
	m.ta.Reset()
	m.pastes.reset()
	m.menu = menu{}
	return m, func() tea.Msg { return SubmitMsg{Typed: typed, Prompt: prompt} }
}

func mayNameResource(s string) bool {
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "@") && strings.Contains(f, ":") {
			return true
		}
	}
	return false
}

// joinResources appends to prompt the text of each resource it names as
// @server:uri (each once, in the order named). A word that names no known
// resource stays a word; a resource that cannot be read fails the prompt.
func joinResources(ctx context.Context, prompt string, known []Resource, read func(context.Context, string, string) (string, error)) (string, error) {
	byRef := make(map[string]Resource, len(known))
	for _, r := range known {
		byRef[r.Ref()] = r
	}
	var b strings.Builder
	b.WriteString(prompt)
	seen := map[string]bool{}
	for _, f := range strings.Fields(prompt) {
		ref := strings.TrimRight(strings.TrimPrefix(f, "@"), ".,;:!?)")
		r, ok := byRef[ref]
		if !strings.HasPrefix(f, "@") || !ok || seen[ref] {
			continue
		}
		seen[ref] = true
		text, err := read(ctx, r.Server, r.URI)
		if err != nil {
			return "", fmt.Errorf("reading @%s: %w", ref, err)
		}
		if len(text) > MaxResourceText {
			text = text[:MaxResourceText] + fmt.Sprintf("\n[cut: the resource is %d bytes, %d shown]", len(text), MaxResourceText)
		}
		fmt.Fprintf(&b, "\n\n<resource ref=%q>\n%s\n</resource>", "@"+ref, strings.TrimRight(text, "\n"))
	}
	return b.String(), nil
}

// truncate cuts s to w columns with an ellipsis.
func truncate(s string, w int) string { return ansi.Truncate(s, w, "…") }
