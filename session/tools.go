package session

import (
	"fmt"
	"strings"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/tool"
)

// canonical folds a tool name typed by a person: case is ignored and '_'
// and '-' are dropped, so web_fetch, webfetch and Web-Fetch are one name.
func canonical(name string) string {
	var sb strings.Builder
	sb.Grow(len(name))
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		if r != '_' && r != '-' {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// MatchName returns the name among names that want means: the exact name
// if there is one, else the one equal to it with case, '_' and '-'
// ignored.
func MatchName(want string, names []string) (string, bool) {
	for _, n := range names {
		if n == want {
			return n, true
		}
	}
	c := canonical(want)
	for _, n := range names {
		if canonical(n) == c {
			return n, true
		}
	}
	return "", false
}

// keepTools applies the Tools allow-list to the deck's built-in tools.
// Every requested name must be a catalog id that the profile provides.
func keepTools(d *deck.Deck, requested []string, profile deck.Profile) error {
	if len(requested) == 0 {
		return nil
	}
	var onDeck []string
	for _, t := range d.Tools() {
		onDeck = append(onDeck, t.Spec().Name)
	}
	keep := make(map[string]bool)
	for _, r := range requested {
		if strings.TrimSpace(r) == "" {
			continue
		}
		id, ok := MatchName(r, deck.IDs())
		if !ok {
			return &OptionError{Option: "tools", Msg: fmt.Sprintf("unknown tool %q in --tools; valid ids: %s", r, strings.Join(deck.IDs(), ", "))}
		}
		if _, ok := MatchName(id, onDeck); !ok {
			return &OptionError{Option: "tools", Msg: fmt.Sprintf("tool %q is not in profile %s; use --profile survey or all, or choose from: %s", id, profile, strings.Join(onDeck, ", "))}
		}
		keep[id] = true
	}
	d.Retain(func(t tool.Tool) bool { return keep[t.Spec().Name] })
	return nil
}
