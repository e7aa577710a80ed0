package addons

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestEventsWireNames(t *testing.T) {
	want := []string{"session:start", "session:end", "turn:start", "turn:end", "tool:before", "tool:after",
		"chat:params", "chat:message", "shell:env", "input:submit", "context:build", "compact:build", "compact:before",
		"subagent:start", "subagent:stop"}
	if len(Events()) != 15 {
		t.Fatalf("%d events, want the 15 of the contract", len(Events()))
	}
	for i, e := range Events() {
		if e.String() != want[i] {
			t.Errorf("event %d is %q, want %q", i, e, want[i])
		}
		back, err := ParseEvent(e.String())
		if err != nil || back != e {
			t.Errorf("ParseEvent(%q) = %v, %v", e, back, err)
		}
		b, err := json.Marshal(e)
		if err != nil || string(b) != `"`+want[i]+`"` {
			t.Errorf("JSON of %s = %s, %v", e, b, err)
		}
	}
	if _, err := ParseEvent("tool:bfore"); err == nil {
		t.Error("a misspelt event parsed")
	}
}

// TestEveryEventNamed loops up to the sentinel, not over the list, so an
// event added without a wire name or a place in Events fails here.
func TestEveryEventNamed(t *testing.T) {
	for e := SessionStart; e < eventEnd; e++ {
		if !slices.Contains(Events(), e) {
			t.Errorf("event %d is missing from Events", e)
		}
		if back, err := ParseEvent(e.String()); err != nil || back != e {
			t.Errorf("event %d (%q) has no wire name of its own: %v", e, e, err)
		}
	}
	if len(Events()) != int(eventEnd)-1 {
		t.Errorf("Events lists %d events, the constants define %d", len(Events()), eventEnd-1)
	}
}

func TestGuardsAreTheGateBearingThree(t *testing.T) {
	got := Reserved()
	want := []Event{ToolBefore, InputSubmit, CompactBefore}
	if !slices.Equal(got, want) {
		t.Errorf("gate-bearing events %v, want %v", got, want)
	}
}

// Every event accepts exactly one payload type: a new event without a
// payload group, or one accepting two, fails here.
func TestEveryEventHasOnePayloadType(t *testing.T) {
	payloads := []Payload{ToolPayload{}, ChatPayload{}, MessagePayload{}, ShellPayload{}, InputPayload{},
		ContextPayload{}, CompactPayload{}, LifecyclePayload{}}
	for e := SessionStart; e < eventEnd; e++ {
		n := 0
		for _, p := range payloads {
			if e.Accepts(p) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s accepts %d payload types, want 1", e, n)
		}
	}
}

func TestKindsAndFaultKindsNamed(t *testing.T) {
	for k := Observe; k < kindEnd; k++ {
		if s := k.String(); s == "" || s[0] == 'K' {
			t.Errorf("kind %d has no name: %q", k, s)
		}
		if !slices.Contains(Kinds(), k) {
			t.Errorf("kind %s is missing from Kinds", k)
		}
	}
	for k := LoadFault; k < faultKindEnd; k++ {
		if s := k.String(); s == "" || s[0] == 'F' {
			t.Errorf("fault kind %d has no name: %q", k, s)
		}
		if !slices.Contains(FaultKinds(), k) {
			t.Errorf("fault kind %s is missing from FaultKinds", k)
		}
	}
}

func TestCloneIsDeep(t *testing.T) {
	p := ShellPayload{Env: map[string]string{"A": "1"}}
	c := p.clone().(ShellPayload)
	c.Env["A"] = "changed"
	if p.Env["A"] != "1" {
		t.Error("changing a clone changed the original environment")
	}
	tp := ToolPayload{Name: "x", Args: []byte(`{"a":1}`)}
	ct := tp.clone().(ToolPayload)
	ct.Args[2] = 'b'
	if string(tp.Args) != `{"a":1}` {
		t.Error("changing a clone's args changed the original")
	}
}
