package cli

import (
	"fmt"
	"strings"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/tool"
)

// canonical folds a tool name for matching user input: case is ignored and
// '_' and '-' are dropped, so web_fetch, webfetch and Web-Fetch are one.
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

// matchName returns the name among names that matches want: exactly if one
// does, otherwise canonically.
func matchName(want string, names []string) (string, bool) {
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

// selectTools resolves the --tools allow-list against the deck's built-in
// tools and keeps only those. Every requested name must be a catalog id
// that the deck's profile provides.
func selectTools(d *deck.Deck, requested []string, profile deck.Profile) error {
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
		id, ok := matchName(r, deck.IDs())
		if !ok {
			return &usageError{fmt.Errorf("unknown tool %q in --tools; valid ids: %s", r, strings.Join(deck.IDs(), ", "))}
		}
		if _, ok := matchName(id, onDeck); !ok {
			return &usageError{fmt.Errorf("tool %q is not in profile %s; use --profile survey or all, or choose from: %s", id, profile, strings.Join(onDeck, ", "))}
		}
		keep[id] = true
	}
	d.Retain(func(t tool.Tool) bool { return keep[t.Spec().Name] })
	return nil
}
