package session

import (
	"context"
	"errors"
	"testing"

	"github.com/indusagi/induscode/deck"
)

func TestCanonicalToolNames(t *testing.T) {
	t.Parallel()
	names := []string{"read", "webfetch", "todo_read", "bg-process", "enter_plan_mode"}
	tests := []struct{ in, want string }{
		{"read", "read"},
		{"READ", "read"},
		{"web_fetch", "webfetch"},
		{"Web-Fetch", "webfetch"},
		{"webfetch", "webfetch"},
		{"todoread", "todo_read"},
		{"Todo-Read", "todo_read"},
		{"bg_process", "bg-process"},
		{" enterPlanMode ", "enter_plan_mode"},
		{"writ", ""},
		{"", ""},
		{"_-_", ""},
	}
	for _, tc := range tests {
		got, ok := MatchName(tc.in, names)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("MatchName(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestExactNameWinsOverCanonical(t *testing.T) {
	t.Parallel()
	if got, _ := MatchName("a-b", []string{"a_b", "a-b"}); got != "a-b" {
		t.Errorf("got %q, want the exact match a-b", got)
	}
}

// TestUnknownToolIsTypedFault: an id in Tools that is not in the catalog is
// an *OptionError (the caller must fix it) whose cause is the deck's
// unknown-capability fault, naming the id.
func TestUnknownToolIsTypedFault(t *testing.T) {
	t.Parallel()
	_, err := Open(context.Background(), Options{Dir: t.TempDir(), NoMCP: true, Tools: []string{"read", "web_fetchx"}})
	var opt *OptionError
	var f *deck.Fault
	if !errors.As(err, &opt) || opt.Option != "tools" || !errors.Is(err, deck.ErrUnknownCapability) ||
		!errors.As(err, &f) || f.ID != "web_fetchx" {
		t.Errorf("err = %v, want an OptionError for tools whose cause is an unknown-capability fault naming web_fetchx", err)
	}
}
