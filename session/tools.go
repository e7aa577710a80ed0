package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/indusagi/induscode/bridge"
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

// isGraftPattern tells the --tools entries that name grafted tools
// (SERVER__TOOL, or a glob such as fs__read_*) from built-in ids.
func isGraftPattern(name string) bool {
	return strings.Contains(name, bridge.Separator) || strings.ContainsAny(name, "*?[")
}

// graftPatterns are the --tools entries that name grafted tools.
func graftPatterns(requested []string) []string {
	var out []string
	for _, r := range requested {
		if r = strings.TrimSpace(r); r != "" && isGraftPattern(r) {
			out = append(out, r)
		}
	}
	return out
}

// keepTools applies the Tools allow-list to the deck's built-in tools and
// returns the ones it dropped. Every requested built-in must be a catalog
// id that the profile provides; entries that name grafted tools are
// applied to the grafts instead.
func keepTools(d *deck.Deck, requested []string, profile deck.Profile) ([]Omission, error) {
	if len(requested) == 0 {
		return nil, nil
	}
	var onDeck []string
	for _, t := range d.Tools() {
		onDeck = append(onDeck, t.Spec().Name)
	}
	keep := make(map[string]bool)
	for _, r := range requested {
		if strings.TrimSpace(r) == "" || isGraftPattern(r) {
			continue
		}
		id, ok := MatchName(r, deck.IDs())
		if !ok {
			return nil, &OptionError{Option: "tools", Msg: fmt.Sprintf("unknown tool %q in --tools; valid ids: %s (and grafted tools as SERVER__TOOL or a glob such as fs__read_*)", r, strings.Join(deck.IDs(), ", ")),
				Err: &deck.Fault{Kind: deck.UnknownCapability, ID: r, Msg: "not in the catalog"}}
		}
		if _, ok := MatchName(id, onDeck); !ok {
			return nil, &OptionError{Option: "tools", Msg: fmt.Sprintf("tool %q is not in profile %s; use --profile survey or all, or choose from: %s", id, profile, strings.Join(onDeck, ", "))}
		}
		keep[id] = true
	}
	var dropped []Omission
	for _, name := range onDeck {
		if !keep[name] {
			dropped = append(dropped, Omission{Name: name, Reason: "not named by --tools"})
		}
	}
	d.Retain(func(t tool.Tool) bool { return keep[t.Spec().Name] })
	return dropped, nil
}

// outsideProfile lists the catalog rows profile leaves out, each with the
// profiles that have it.
func outsideProfile(profile deck.Profile) []Omission {
	var out []Omission
	for _, c := range deck.Catalog() {
		if c.In(profile) {
			continue
		}
		var in []string
		for _, p := range deck.Profiles() {
			if c.In(p) {
				in = append(in, p.String())
			}
		}
		reason := fmt.Sprintf("not in profile %s; profile %s has it", profile, strings.Join(in, " and "))
		if len(in) > 1 {
			reason = fmt.Sprintf("not in profile %s; profiles %s have it", profile, strings.Join(in, " and "))
		}
		if profile == deck.Authoring && !slices.Contains(in, deck.Authoring.String()) && slices.Contains(in, deck.Survey.String()) {
			reason = "profile authoring takes only read-only tools; profiles survey and all have it"
		}
		out = append(out, Omission{Name: c.ID, Reason: reason})
	}
	return out
}

// Omission is a tool the session left out, and why.
type Omission struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// admitGraft decides whether a grafted tool joins the session: the
// read-only profile takes only tools their server marks read-only, and a
// --tools list that names grafted tools (SERVER__TOOL or a glob) takes only
// those. A --tools list of built-in ids alone leaves every graft: it
// selects from the built-in deck, and the grafts join after it.
func admitGraft(t tool.Tool, profile deck.Profile, requested []string) (bool, string) {
	sp := t.Spec()
	if profile == deck.Authoring && !sp.ReadOnly {
		return false, "profile authoring takes only read-only tools, and its server does not mark it readOnlyHint (without destructiveHint)"
	}
	patterns := graftPatterns(requested)
	if len(patterns) == 0 {
		return true, ""
	}
	for _, p := range patterns {
		if ok, _ := doublestar.Match(p, sp.Name); ok || canonical(p) == canonical(sp.Name) {
			return true, ""
		}
	}
	return false, "--tools names grafted tools, and not this one"
}
