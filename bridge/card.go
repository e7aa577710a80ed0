package bridge

import (
	"strings"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/tool"
)

// Card presents a grafted tool as a catalog row, so help and introspection
// can list it beside the built-in cards. It belongs to no profile (so
// provisioning never selects it) and its Build returns the live tool itself.
func Card(t tool.Tool) deck.Card {
	s := t.Spec()
	summary, _, _ := strings.Cut(strings.TrimSpace(s.Description), "\n")
	return deck.Card{
		ID:       s.Name,
		Title:    s.Label,
		Summary:  summary,
		Profiles: nil,
		Build:    func(deck.Context) tool.Tool { return t },
	}
}
