package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/indusagi/induscode/tool"
)

// Op is what an [Entry] does.
type Op uint8

// The ops. The set is closed; code that switches on Op handles every value
// (see TestOpsHandled).
const (
	// Enroll adds a capability under its key, or replaces the one there.
	Enroll Op = iota + 1
	// Retire removes the capability under its key; an unknown key is a
	// no-op that is still recorded.
	Retire

	// opEnd is one past the last Op: keep it last, so that
	// TestOpsHandled, which loops up to it, sees every new one.
	opEnd
)

// Ops returns every Op; each call returns a new slice.
func Ops() []Op { return []Op{Enroll, Retire} }

func (o Op) String() string {
	switch o {
	case Enroll:
		return "enroll"
	case Retire:
		return "retire"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// MarshalText encodes the op as its name.
func (o Op) MarshalText() ([]byte, error) {
	for _, op := range Ops() {
		if op == o {
			return []byte(o.String()), nil
		}
	}
	return nil, fmt.Errorf("ledger: unknown op %d", uint8(o))
}

// UnmarshalText decodes an op name.
func (o *Op) UnmarshalText(b []byte) error {
	for _, op := range Ops() {
		if op.String() == string(b) {
			*o = op
			return nil
		}
	}
	return fmt.Errorf("ledger: unknown op %q (want enroll or retire)", b)
}

// Entry is one event of the log.
type Entry struct {
	Op     Op
	Key    Key
	Server string
	// Capability is the enrolled tool; nil on Retire.
	Capability tool.Tool
	// Seq orders the log: it increases by one per event, and on a repeated
	// key the later Seq wins.
	Seq uint64
	// At is when the event was recorded, ISO-8601 UTC; it is for audit only
	// and never parsed.
	At string
}

// Origin is implemented by capabilities that know which server tool they
// stand for; the log records it beside the qualified name.
type Origin interface {
	Origin() (server, tool string)
}

// Stamp formats t as the ledger records times: ISO-8601 in UTC with
// milliseconds, as JavaScript's Date.toISOString prints them.
func Stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Now is Stamp(time.Now()).
func Now() string { return Stamp(time.Now()) }

// wireEntry is the JSON form of an Entry: one line of the log file.
type wireEntry struct {
	Op     Op        `json:"op"`
	Key    Key       `json:"key"`
	Server string    `json:"server"`
	Seq    uint64    `json:"seq"`
	At     string    `json:"at"`
	Tool   *wireTool `json:"tool,omitempty"`
}

type wireTool struct {
	Name        string          `json:"name"`
	Origin      string          `json:"origin,omitempty"`
	Label       string          `json:"label,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
	// OutputSchema is recorded too, so a replayed spec equals the live
	// one and an unchanged tool is not enrolled again.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// MarshalJSON encodes the entry with its capability's spec, so the log
// describes every tool it enrolled.
func (e Entry) MarshalJSON() ([]byte, error) {
	w := wireEntry{Op: e.Op, Key: e.Key, Server: e.Server, Seq: e.Seq, At: e.At}
	if e.Capability != nil {
		s := e.Capability.Spec()
		w.Tool = &wireTool{Name: s.Name, Label: s.Label, Description: s.Description,
			InputSchema: s.InputSchema, ReadOnly: s.ReadOnly, OutputSchema: s.OutputSchema}
		if o, ok := e.Capability.(Origin); ok {
			_, w.Tool.Origin = o.Origin()
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes an entry; its capability becomes a [*Recorded].
func (e *Entry) UnmarshalJSON(b []byte) error {
	var w wireEntry
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if _, ok := ParseKey(string(w.Key)); !ok {
		return fmt.Errorf("ledger: malformed key %q", w.Key)
	}
	if w.Seq == 0 {
		return fmt.Errorf("ledger: entry %s has no seq", w.Key)
	}
	*e = Entry{Op: w.Op, Key: w.Key, Server: w.Server, Seq: w.Seq, At: w.At}
	switch w.Op {
	case Enroll:
		if w.Tool == nil || w.Tool.Name == "" {
			return fmt.Errorf("ledger: enroll of %s has no tool", w.Key)
		}
		e.Capability = &Recorded{spec: w.Tool.spec(), server: w.Server, tool: w.Tool.Origin}
	case Retire:
	default:
		return fmt.Errorf("ledger: entry %s has no op", w.Key)
	}
	return nil
}

// Recorded is a capability replayed from a log: it describes the tool the
// log enrolled but has no server behind it, so a call explains how to get
// one instead of running.
type Recorded struct {
	spec         tool.Spec
	server, tool string
}

var _ tool.Tool = (*Recorded)(nil)

// NewRecorded returns a Recorded capability with this spec, standing for
// tool t of server.
func NewRecorded(spec tool.Spec, server, t string) *Recorded {
	return &Recorded{spec: spec, server: server, tool: t}
}

// Spec returns the recorded spec, with its own copies of the schemas.
func (r *Recorded) Spec() tool.Spec { return tool.CloneSpec(r.spec) }

// Origin returns the server and its own name of the tool.
func (r *Recorded) Origin() (string, string) { return r.server, r.tool }

// Run reports that the tool has no live server.
func (r *Recorded) Run(context.Context, json.RawMessage, *tool.Env) tool.Result {
	return tool.Errorf("%s is known only from the ledger log: no live connection to MCP server %q stands behind it. Mount the server (indusr --mcp CONFIG) and call the tool again.", r.spec.Name, r.server)
}
