package bridge

import (
	"fmt"

	"github.com/indusagi/induscode/bridge/mcpconfig"
)

// State is where a server is in its life.
type State uint8

// The states. The set is closed; code that switches on State handles every
// value (see TestStatesHandled).
const (
	// Connecting: starting, handshaking, listing tools or restarting.
	Connecting State = iota + 1
	// Ready: connected; its tools are grafted and callable.
	Ready
	// Exited: the session ended (the process exited, the stream dropped).
	// Its tools stay enrolled; the next call restarts it.
	Exited
	// Failed: connecting failed. A server that never connected has no
	// tools; one that had tools is retried on the next call, with backoff.
	Failed
	// Detached: torn down by Detach or Close.
	Detached

	// stateEnd is one past the last State: keep it last, so that
	// TestStatesHandled, which loops up to it, sees every new State.
	stateEnd
)

// States returns every State; each call returns a new slice.
func States() []State { return []State{Connecting, Ready, Exited, Failed, Detached} }

func (s State) String() string {
	switch s {
	case Connecting:
		return "connecting"
	case Ready:
		return "ready"
	case Exited:
		return "exited"
	case Failed:
		return "failed"
	case Detached:
		return "detached"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// MarshalText encodes the state as its name.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ServerStatus is the health of one server.
type ServerStatus struct {
	Name string `json:"name"`
	// Transport is the transport in use or last used.
	Transport mcpconfig.Transport `json:"transport"`
	// TransportDetected says the config left the transport to detection
	// (a url and no type): once the server has connected, Transport is the
	// one that worked; before, it is Streamable HTTP, tried first.
	TransportDetected bool  `json:"transportDetected,omitempty"`
	State             State `json:"state"`
	// Tools is how many tools the server has live in the ledger.
	Tools int `json:"tools"`
	// Restarts counts reconnects after the first connection.
	Restarts int `json:"restarts"`
	// Refreshes counts tool lists re-read after tools/list_changed.
	Refreshes int `json:"refreshes"`
	// LastError says what went wrong last, with the server's last stderr
	// lines when they explain it.
	LastError string `json:"lastError,omitempty"`
	// Faults are problems with the server's tools: names that collide,
	// schemas that had to be repaired, a list cut at the page cap.
	Faults []string `json:"faults,omitempty"`
	// DroppedLines counts stdout lines that were not JSON-RPC.
	DroppedLines int64 `json:"droppedLines,omitempty"`
	// PID is the process id of a running stdio server.
	PID int `json:"pid,omitempty"`
	// Log is the file holding the server's stderr, if the fleet keeps logs.
	Log string `json:"log,omitempty"`
	// Source is the config file that declared the server.
	Source string `json:"source,omitempty"`
}
