package deck

import (
	"slices"
	"sync"

	"github.com/indusagi/induscode/tool"
)

// Card is one catalog row: a tool's identity for listings and help, the
// profiles it belongs to, and the factory that builds it for a session.
// Build must be pure with respect to the deck: it reads what it needs from
// the Context and returns a fresh tool, mutating nothing shared.
type Card struct {
	ID       string
	Title    string
	Summary  string
	Profiles []Profile
	Build    func(Setup) tool.Tool
	// Cancellable says the tool returns at once when its call's context
	// ends (it checks the context in its loops and passes it to every
	// request and wait). The Box then runs it on the caller's goroutine;
	// any other tool runs on a goroutine of its own, so that its call
	// returns when the context ends whatever the tool does. The built-in
	// tools are, except bash and process, which give the processes they
	// stop a grace period; app cards, which call runners the host
	// supplies, are not. A grafted tool says the same by implementing
	// tool.Cancellable.
	Cancellable bool
}

// clone returns c with its own Profiles: the rows are shared by the
// whole process, and a caller changing a row it was handed must not change
// what every later deck provisions.
func (c Card) clone() Card {
	c.Profiles = slices.Clone(c.Profiles)
	return c
}

// In reports whether the card belongs to profile p.
func (c Card) In(p Profile) bool { return p.admits(c.Profiles) }

// catalog is assembled once: the rows are immutable values, and sharing
// them lets every derived lookup index into one slice.
var catalog = sync.OnceValue(func() []Card {
	return slices.Concat(builtinCards(), appCards())
})

// index maps id to catalog position; the first row with an id wins.
var index = sync.OnceValue(func() map[string]int { return indexOf(catalog()) })

func indexOf(cards []Card) map[string]int {
	m := make(map[string]int, len(cards))
	for i, c := range cards {
		if _, dup := m[c.ID]; !dup {
			m[c.ID] = i
		}
	}
	return m
}

// Catalog returns the catalog rows in order: built-ins, then app cards. The
// slice and each row's Profiles are copies; changing them changes nothing
// else.
func Catalog() []Card {
	cards := catalog()
	out := make([]Card, len(cards))
	for i, c := range cards {
		out[i] = c.clone()
	}
	return out
}

// Index returns a map from id to catalog position (first occurrence wins).
// The map is a copy.
func Index() map[string]int {
	src := index()
	m := make(map[string]int, len(src))
	for k, v := range src {
		m[k] = v
	}
	return m
}

// IDs returns every catalog id in catalog order.
func IDs() []string {
	cards := catalog()
	ids := make([]string, len(cards))
	for i, c := range cards {
		ids[i] = c.ID
	}
	return ids
}

// Has reports whether a catalog row has this id.
func Has(id string) bool {
	_, ok := index()[id]
	return ok
}

// Find returns the catalog row with this id.
func Find(id string) (Card, bool) {
	i, ok := index()[id]
	if !ok {
		return Card{}, false
	}
	return catalog()[i].clone(), true
}

// ProfilesOf returns the membership of the row with this id.
func ProfilesOf(id string) ([]Profile, bool) {
	c, ok := Find(id)
	return c.Profiles, ok
}

// CardsFor returns the rows that belong to profile p, in catalog order.
func CardsFor(p Profile) []Card {
	var out []Card
	for _, c := range catalog() {
		if c.In(p) {
			out = append(out, c.clone())
		}
	}
	return out
}
