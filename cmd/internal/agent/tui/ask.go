package tui

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/indusagi/induscode/conductor"
)

// asking is a question of the conductor on screen: a call that needs
// permission, or a plan to approve.
type asking struct {
	q      conductor.Question
	reply  chan conductor.Answer
	choice int
	rule   string // the rule "always" records ("" for a plan)
	// typing is set while the user writes the reason of a refusal.
	typing bool
	reason string
}

func (a *asking) plan() bool { return a.q.Tool == conductor.PlanQuestion }

// options are the answers offered, in order; the last refuses.
func (a *asking) options() []string {
	if a.plan() {
		return []string{"Yes, carry out the plan", "Yes, and accept its edits without asking", "No, keep planning (tell the model what to change)"}
	}
	return []string{"Yes", "Yes, and always allow " + a.rule + " this session", "No, and tell the model what to do instead"}
}

func (m Model) startAsk(msg askMsg) {
	m.ask = &asking{q: msg.q, reply: msg.reply, rule: ruleFor(msg.q.Tool, msg.q.Input)}
	m.in.Blur()
	m.conv.scroll = 0
}

// answer replies to the question and gives the keys back to the input.
func (m Model) answer(a conductor.Answer) {
	if m.ask == nil {
		return
	}
	m.ask.reply <- a // buffered: the asker may be gone
	m.ask = nil
	m.in.Focus()
}

func (m Model) askKey(k tea.KeyPressMsg) tea.Cmd {
	a := m.ask
	if a.typing {
		switch k.String() {
		case "enter":
			m.answer(conductor.Answer{Reason: strings.TrimSpace(a.reason)})
		case "esc":
			m.answer(conductor.Answer{})
		case "backspace":
			if r := []rune(a.reason); len(r) > 0 {
				a.reason = string(r[:len(r)-1])
			}
		default:
			if k.Text != "" {
				a.reason += k.Text
			}
		}
		return nil
	}
	n := len(a.options())
	switch k.String() {
	case "up", "k":
		a.choice = (a.choice + n - 1) % n
	case "down", "j", "tab":
		a.choice = (a.choice + 1) % n
	case "1", "y":
		a.choice = 0
		return m.choose()
	case "2", "a":
		a.choice = 1
		return m.choose()
	case "3", "n":
		a.choice = 2
		return m.choose()
	case "enter":
		return m.choose()
	case "esc":
		// Esc refuses and stops the turn, as it interrupts one otherwise.
		m.answer(conductor.Answer{Reason: "the user interrupted the turn"})
		m.interrupt()
	}
	return nil
}

func (m Model) askPaste(p tea.PasteMsg) tea.Cmd {
	if m.ask.typing {
		m.ask.reason += strings.ReplaceAll(p.Content, "\n", " ")
	}
	return nil
}

// choose acts on the selected answer.
func (m Model) choose() tea.Cmd {
	a := m.ask
	switch a.choice {
	case 0:
		m.answer(conductor.Answer{Allow: true})
	case 1:
		if a.plan() {
			m.answer(conductor.Answer{Allow: true})
			if err := m.b.SetMode(conductor.AcceptEdits); err == nil {
				m.mode = conductor.AcceptEdits
			}
			return nil
		}
		if err := m.b.AllowRule(a.rule); err != nil {
			m.note = err.Error()
			return nil
		}
		m.conv.add(&entry{kind: noticeEntry, text: "Allowed " + a.rule + " for the rest of this session (/permissions lists the rules)."})
		m.answer(conductor.Answer{Allow: true})
	default:
		a.typing = true
	}
	return nil
}

// askView draws the question: what the call would do and the answers.
func (m Model) askView() string {
	a := m.ask
	w := m.width
	var b strings.Builder
	title := "Permission: " + a.q.Tool
	if a.plan() {
		title = "Plan for approval"
	}
	b.WriteString(paint(m.st.box, "── "+title+" "+strings.Repeat("─", max(w-len(title)-4, 0))))
	b.WriteByte('\n')
	// The preview takes what the screen can spare: the rest of the
	// question needs its options, a reason line and the status line.
	room := max(m.height-len(a.options())-6, 3)
	preview := strings.Split(m.preview(a, w-2), "\n")
	if len(preview) > room {
		more := len(preview) - room + 1
		preview = append(preview[:room-1], paint(m.st.dim, fmt.Sprintf("… %s more", plural(more, "line"))))
	}
	b.WriteString(indent(strings.Join(preview, "\n"), "  ", "  "))
	b.WriteByte('\n')
	for i, o := range a.options() {
		line := fmt.Sprintf("  %d. %s", i+1, o)
		if i == a.choice {
			line = paint(m.st.user, fmt.Sprintf("❯ %d. %s", i+1, o))
		}
		b.WriteString(ansi.Truncate(line, w, "…"))
		b.WriteByte('\n')
	}
	if a.typing {
		b.WriteString(wrap("Why (told to the model): "+a.reason+"▏", w))
		b.WriteByte('\n')
		b.WriteString(paint(m.st.dim, "enter sends · esc refuses without a reason"))
	} else {
		b.WriteString(paint(m.st.dim, "1-3 or ↑↓ enter · esc refuses and interrupts"))
	}
	return b.String()
}

// preview shows what the call would do: the command, the edit as a
// diff, the file written, the plan.
func (m Model) preview(a *asking, w int) string {
	var in map[string]any
	json.Unmarshal(a.q.Input, &in)
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch a.q.Tool {
	case conductor.PlanQuestion:
		return m.md.render(str("plan"), w)
	case "bash":
		return wrap("$ "+str("command"), w)
	case "edit":
		var d []string
		d = append(d, paint(m.st.tool, str("path")))
		for _, l := range strings.Split(str("old_string"), "\n") {
			d = append(d, paint(m.st.del, ansi.Truncate("-"+l, w, "…")))
		}
		for _, l := range strings.Split(str("new_string"), "\n") {
			d = append(d, paint(m.st.add, ansi.Truncate("+"+l, w, "…")))
		}
		return strings.Join(d, "\n")
	case "write":
		d := []string{paint(m.st.tool, str("path")+" (whole file)")}
		for _, l := range strings.Split(strings.TrimRight(str("content"), "\n"), "\n") {
			d = append(d, paint(m.st.add, ansi.Truncate("+"+l, w, "…")))
		}
		return strings.Join(d, "\n")
	}
	if arg := keyArg(a.q.Tool, a.q.Input); arg != "" {
		return wrap(arg, w)
	}
	return wrap(ansi.Truncate(string(a.q.Input), 4*w, "…"), w)
}

// ruleFor is the allow rule "always" records for a call: all edits for
// a file change, the command's leading words for bash, the host for a
// fetch, else the tool.
func ruleFor(tool string, input json.RawMessage) string {
	var in map[string]any
	json.Unmarshal(input, &in)
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch tool {
	case "write", "edit":
		return "Edit"
	case "bash":
		words := strings.Fields(str("command"))
		switch {
		case len(words) == 0:
			return "Bash"
		case len(words) == 1:
			return "Bash(" + words[0] + ")"
		case !strings.HasPrefix(words[1], "-") && !strings.ContainsAny(words[1], "/.*$'\"`;&|<>=()"):
			return "Bash(" + words[0] + " " + words[1] + ":*)"
		}
		return "Bash(" + words[0] + ":*)"
	case "webfetch":
		if u, err := url.Parse(str("url")); err == nil && u.Hostname() != "" {
			return "WebFetch(domain:" + u.Hostname() + ")"
		}
	}
	return tool
}
