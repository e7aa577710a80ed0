package deck

import "fmt"

// FaultKind classifies a [Fault].
type FaultKind uint8

// The fault kinds; the set is closed, and every kind is raised somewhere
// ([Provision]; session for an unknown --tools id). MCP servers that fail
// are reported by package bridge, and a missing backend handle is not a
// fault: its card answers "not configured".
const (
	// UnknownCapability: a requested profile or tool id is not in the
	// catalog.
	UnknownCapability FaultKind = iota + 1
	// BuildFailed: a card's build failed while minting its tool.
	BuildFailed

	// faultKindEnd is one past the last FaultKind: keep it last, so that
	// TestFaultKindsNamed, which loops up to it, sees every new kind.
	faultKindEnd
)

// FaultKinds returns every FaultKind; each call returns a new slice.
func FaultKinds() []FaultKind { return []FaultKind{UnknownCapability, BuildFailed} }

func (k FaultKind) String() string {
	switch k {
	case UnknownCapability:
		return "unknown capability"
	case BuildFailed:
		return "build failed"
	}
	return fmt.Sprintf("FaultKind(%d)", uint8(k))
}

// Fault is a typed deck failure. Test its kind with errors.Is against the
// Err* sentinels, or get the details with errors.As.
type Fault struct {
	Kind FaultKind
	ID   string // the capability or server concerned, if any
	Msg  string // what happened and what to do
	Err  error  // the underlying cause, if any
}

// Sentinels for errors.Is: a *Fault matches the sentinel of its kind.
var (
	ErrUnknownCapability = &Fault{Kind: UnknownCapability}
	ErrBuildFailed       = &Fault{Kind: BuildFailed}
)

func (f *Fault) Error() string {
	s := f.Kind.String()
	if f.ID != "" {
		s += " " + fmt.Sprintf("%q", f.ID)
	}
	if f.Msg != "" {
		s += ": " + f.Msg
	}
	if f.Err != nil {
		s += ": " + f.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (f *Fault) Unwrap() error { return f.Err }

// Is matches any *Fault of the same kind when target is a bare sentinel
// (no ID, message or cause).
func (f *Fault) Is(target error) bool {
	t, ok := target.(*Fault)
	return ok && t.Kind == f.Kind && t.ID == "" && t.Msg == "" && t.Err == nil
}
