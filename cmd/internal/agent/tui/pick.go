package tui

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/indusagi/induscode/cmd/internal/agent/picker"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/provider/facts"
	"github.com/indusagi/induscode/transcript"
)

// listPick is a list picker on screen (package picker) and what choosing
// an item does: /resume, /rewind and /model without an argument.
type listPick struct {
	p      picker.Model
	choose func(m Model, it picker.Item) tea.Cmd
}

// pickRows bounds a picker's height: a screenful of choices, the rest of
// the screen left to the conversation and the status line.
const pickRows = 16

func (m Model) openPicker(p picker.Model, choose func(Model, picker.Item) tea.Cmd) tea.Cmd {
	p.SetSize(m.width, min(pickRows, max(m.height-2, 4)))
	m.list = &listPick{p: p, choose: choose}
	m.in.Blur()
	return nil
}

func (m Model) closePicker() {
	m.list = nil
	m.in.Focus()
}

// listKey gives a key to the picker and acts on what it answers.
func (m Model) listKey(k tea.KeyPressMsg) tea.Cmd {
	var cmd tea.Cmd
	m.list.p, cmd = m.list.p.Update(k)
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case picker.ChosenMsg:
		choose := m.list.choose
		m.closePicker()
		return choose(m, msg.Item)
	case picker.CancelledMsg:
		m.closePicker()
	}
	return nil
}

// pickResume lists the workspace's conversations, the latest first.
func pickResume(m Model) tea.Cmd {
	infos, err := transcript.List(m.b.Dir())
	if err != nil {
		return m.say("Cannot list the conversations: " + err.Error())
	}
	var items []picker.Item
	current := 0
	for _, in := range infos {
		if in.Damaged != "" {
			continue
		}
		title := clipText(cmp.Or(in.First, "(no prompt)"), 60)
		detail := fmt.Sprintf("%s · %s · %s", ago(m.cfg.Now(), in.Updated), plural(in.Messages, "message"), in.ID)
		if in.ID == m.session {
			detail += " · this one"
			current = len(items)
		}
		items = append(items, picker.Item{Title: title, Detail: detail, Key: in.ID})
	}
	if len(items) == 0 {
		return m.say("No conversation of this workspace to resume yet.")
	}
	p := picker.New("resume", "Resume a conversation", items)
	p.Select(current)
	return m.openPicker(p, func(m Model, it picker.Item) tea.Cmd {
		if it.Key == m.session {
			return m.say("This is the conversation already open.")
		}
		return cmdResume(m, it.Key)
	})
}

// pickRewind lists this terminal's prompts that changed files, the
// latest first, the diff a rewind to each would apply beside the list;
// choosing one asks as /rewind N does.
func pickRewind(m Model) tea.Cmd {
	var items []picker.Item
	for i, nth := len(m.prompts)-1, 0; i >= 0; i-- {
		if m.prompts[i].node == "" {
			continue
		}
		nth++
		items = append(items, picker.Item{Title: clipText(m.prompts[i].text, 60), Detail: nthLast(nth), Key: strconv.Itoa(nth)})
	}
	if len(items) < 2 {
		return cmdRewind(m, "1") // one prompt (or none) to undo: straight to its diff
	}
	store, dir := m.b.Checkpoints(), m.b.Dir()
	diffs := map[string]string{}
	p := picker.New("rewind", "Rewind the files to before", items)
	p.Preview = func(it picker.Item) string {
		if d, ok := diffs[it.Key]; ok {
			return d
		}
		nth, _ := strconv.Atoi(it.Key)
		d := rewindDiff(m, store, dir, nth)
		diffs[it.Key] = d
		return d
	}
	return m.openPicker(p, func(m Model, it picker.Item) tea.Cmd { return cmdRewind(m, it.Key) })
}

// rewindDiff is the diff undoing the nth-last prompt with changes (and
// those after it) would apply, coloured as the confirmation shows it.
func rewindDiff(m Model, store checkpoint.Store, dir string, nth int) string {
	idx := -1
	for i, seen := len(m.prompts)-1, 0; i >= 0; i-- {
		if m.prompts[i].node != "" {
			if seen++; seen == nth {
				idx = i
				break
			}
		}
	}
	if idx < 0 || store == nil {
		return ""
	}
	plan, err := checkpoint.NewPlan(store, m.prompts[idx].node, []string{dir})
	if err != nil {
		return "cannot rewind: " + err.Error()
	}
	return m.colorDiff(plan.Diff(func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, dir), "/") }), m.width-2, true)
}

// pickModel lists the catalog's models of the provider in use.
func pickModel(m Model) tea.Cmd {
	prov, _, _ := strings.Cut(m.model, "/")
	cat := facts.Default()
	inUse := m.model
	if md, ok := cat.Lookup(m.b.Model()); ok {
		inUse = md.ID.String() // an alias names a dated model
	}
	var items []picker.Item
	current := -1
	for _, md := range cat.List(prov) {
		id := md.ID.String()
		var detail []string
		if md.Name != "" {
			detail = append(detail, md.Name)
		}
		if md.ContextWindow > 0 {
			detail = append(detail, short(md.ContextWindow)+" context")
		}
		if id == inUse || id == m.model {
			detail = append(detail, "in use")
			current = len(items)
		}
		items = append(items, picker.Item{Title: id, Detail: strings.Join(detail, " · "), Key: id})
	}
	if current < 0 { // a model the catalog does not know: offered first
		items = append([]picker.Item{{Title: m.model, Detail: "in use", Key: m.model}}, items...)
		current = 0
	}
	p := picker.New("model", "Model for the next calls", items)
	p.Select(current)
	return m.openPicker(p, func(m Model, it picker.Item) tea.Cmd { return cmdModel(m, it.Key) })
}

func nthLast(n int) string {
	if n == 1 {
		return "the last prompt"
	}
	return fmt.Sprintf("%d prompts ago", n)
}

// ago is a time as a listing says it: "5 minutes ago", "yesterday".
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	case d < 48*time.Hour:
		return "yesterday"
	}
	return t.Format("2 Jan 2006")
}
