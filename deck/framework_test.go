package deck_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/deck/cards"
	"github.com/indusagi/induscode/tools/web"
)

type fakeRunner struct{}

func (fakeRunner) Agents() []cards.Agent {
	return []cards.Agent{{Name: "helper", Description: "answers"}}
}
func (fakeRunner) Run(_ context.Context, d cards.Delegation) (string, error) {
	return "did: " + d.Objective, nil
}

// The handles in Framework reach the cards and web tools a deck builds.
func TestFrameworkHandlesReachTheTools(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "local page") }))
	defer srv.Close()
	mem := new(cards.InMemoryStore)
	mem.Replace(context.Background(), "shared note")
	call := func(d *deck.Deck, name string, in string) (string, bool) {
		r := d.Box().Run(context.Background(), name, json.RawMessage(in))
		return r.PlainText(), r.IsError
	}
	wired, err := deck.Provision(deck.All, deck.Setup{Dir: t.TempDir(), Framework: deck.Framework{
		Web:      web.Options{RefusePrivate: true},
		Delegate: fakeRunner{},
		Memory:   mem,
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer wired.Close()
	bare, err := deck.Provision(deck.All, deck.Setup{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	for _, tc := range []struct {
		name  string
		d     *deck.Deck
		tool  string
		in    string
		isErr bool
		want  string
	}{
		{"policy refuses loopback", wired, "webfetch", `{"url":"` + srv.URL + `"}`, true, "refuses private, loopback and link-local"},
		{"no policy by default", bare, "webfetch", `{"url":"` + srv.URL + `"}`, false, "local page"},
		{"delegate runner", wired, "task", `{"objective":"x","agent":"helper"}`, false, "did: x"},
		{"no runner", bare, "task", `{"objective":"x"}`, true, "not configured"},
		{"memory store", wired, "memory", `{"action":"read"}`, false, "shared note"},
		{"default memory", bare, "memory", `{"action":"read"}`, false, "Memory is empty."},
		{"no gateway", bare, "saas-action", `{"action":"discover"}`, true, "deck.Framework.Saas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, isErr := call(tc.d, tc.tool, tc.in)
			if isErr != tc.isErr || !strings.Contains(out, tc.want) {
				t.Errorf("is_error=%v %q; want is_error=%v and %q", isErr, out, tc.isErr, tc.want)
			}
		})
	}
	if desc := findTool(wired, "task"); !strings.Contains(desc, "helper (answers)") {
		t.Errorf("task description lacks the roster: %s", desc)
	}
}

func findTool(d *deck.Deck, name string) string {
	for _, tl := range d.Tools() {
		if tl.Spec().Name == name {
			return tl.Spec().Description
		}
	}
	return ""
}
