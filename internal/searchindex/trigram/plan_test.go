package trigram

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// satisfied reports whether a text with the trigrams tris (ascending)
// satisfies q.
func satisfied(q *Query, tris []uint32) bool {
	switch q.Op {
	case All:
		return true
	case None:
		return false
	}
	and := q.Op == And
	for _, t := range q.Tris {
		if _, has := slices.BinarySearch(tris, t); has != and {
			return !and
		}
	}
	for _, sub := range q.Subs {
		if satisfied(sub, tris) != and {
			return !and
		}
	}
	return and
}

func trigramsOfText(s string) []uint32 {
	var out []uint32
	for i := 0; i+3 <= len(s); i++ {
		out = append(out, Of(s[i], s[i+1], s[i+2]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestPlanSelects: the plans a user relies on to skip files are
// selective, and patterns the index cannot narrow are All.
func TestPlanSelects(t *testing.T) {
	for expr, selective := range map[string]bool{
		"ErrUnexpectedEOF":           true,
		"(?i)context deadline":       true,
		`func \(\w+ \*\w+\) Write\(`: true,
		"foo|barbaz":                 true,
		"[A-Z]{3}[0-9]{4}":           false,
		"ab":                         false,
		"a.*b":                       false,
		"(":                          false, // not a pattern: the scan reports it
	} {
		if got := Plan(expr).Op != All; got != selective {
			t.Errorf("Plan(%q) selective = %v, want %v", expr, got, selective)
		}
	}
	if q := Plan("hello"); q.Op != And || len(q.Tris) != 3 {
		t.Errorf("Plan(hello) = %+v, want the AND of hel, ell, llo", q)
	}
}

// TestPlanNeverRulesOutAMatch: any text the pattern matches satisfies
// its plan, so the index never skips a file holding a match.
func TestPlanNeverRulesOutAMatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := rapid.StringMatching(`[a-cA-C _.\n]{0,40}`).Draw(t, "text")
		var expr string
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0: // a literal taken from the text
			i := rapid.IntRange(0, len(text)).Draw(t, "i")
			j := rapid.IntRange(i, len(text)).Draw(t, "j")
			expr = regexp.QuoteMeta(text[i:j])
		case 1: // the same, any case
			i := rapid.IntRange(0, len(text)).Draw(t, "i")
			j := rapid.IntRange(i, len(text)).Draw(t, "j")
			expr = "(?i)" + regexp.QuoteMeta(strings.ToUpper(text[i:j]))
		default: // a small generated pattern
			expr = rapid.StringMatching(`([abcAB.]|\[a-c\]|\(ab\|c\)|a\*|b\+|\(\?i\)|\^|\$){1,6}`).Draw(t, "expr")
		}
		re, err := regexp.Compile("(?m)" + expr)
		if err != nil || !re.MatchString(text) {
			return
		}
		if q := Plan("(?m)" + expr); !satisfied(q, trigramsOfText(text)) {
			t.Fatalf("%q matches %q, but its plan %+v rules the text out", expr, text, q)
		}
	})
}
