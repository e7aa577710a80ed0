// Command go-gate is a Tier-1 addon written in Go: it refuses bash
// commands that force-push with git or delete recursively from the root
// or the home folder, and adds a read-only tool that lists those rules.
// It speaks the addon protocol (docs/addon-protocol.md) on stdin and
// stdout, using the wire types of package addons/rpc.
//
// Install it in a workspace:
//
//	go build -o .indus/addons/go-gate/go-gate ./examples/addons/go-gate
//	cp examples/addons/go-gate/manifest.toml .indus/addons/go-gate/
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/indusagi/induscode/addons/rpc"
	"github.com/indusagi/induscode/tool"
)

// rules are the commands the gate refuses, with the reason it gives.
var rules = []struct {
	re     *regexp.Regexp
	reason string
}{
	{regexp.MustCompile(`\bgit\s+push\b.*\s(--force|-f)\b`), "force-pushing rewrites shared history; push without --force or ask the user"},
	{regexp.MustCompile(`\brm\s+(-[a-zA-Z]*r[a-zA-Z]*\s+)+(/|~|\$HOME)(\s|$)`), "recursive deletion of / or the home folder"},
}

type message struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *int64           `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  any              `json:"result,omitempty"`
	Error   *rpc.RemoteError `json:"error,omitempty"`
}

func main() {
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "go-gate:", err)
		os.Exit(1)
	}
}

// serve answers requests one at a time until stdin ends or shutdown.
func serve(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	w := bufio.NewWriter(out)
	reply := func(id *int64, result any, rerr *rpc.RemoteError) error {
		b, err := json.Marshal(message{JSONRPC: "2.0", ID: id, Result: result, Error: rerr})
		if err != nil {
			return err
		}
		w.Write(append(b, '\n'))
		return w.Flush()
	}
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "go-gate: a line that is not JSON:", err)
			continue
		}
		if m.ID == nil {
			continue // initialized, event/observe, $/cancelRequest: nothing to do
		}
		result, rerr := handle(m.Method, m.Params)
		if err := reply(m.ID, result, rerr); err != nil {
			return err
		}
		if m.Method == rpc.MethodShutdown {
			return nil
		}
	}
	return sc.Err()
}

func handle(method string, params json.RawMessage) (any, *rpc.RemoteError) {
	switch method {
	case rpc.MethodInitialize:
		var p rpc.InitializeParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &rpc.RemoteError{Code: -32602, Message: err.Error()}
		}
		fmt.Fprintf(os.Stderr, "go-gate: addon %s in %s, protocol %s\n", p.Addon, p.Workspace, p.ProtocolVersion)
		return rpc.Declarations{
			ProtocolVersion: rpc.ProtocolVersion,
			Handlers:        []rpc.HandlerDecl{{ID: "bash-rules", Event: "tool:before", Kind: "gate", Tool: "bash"}},
			Tools: []rpc.ToolDecl{{Name: "gate_rules", Description: "List the bash commands the go-gate addon refuses, with the reasons.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), ReadOnly: true}},
		}, nil
	case rpc.MethodGate:
		var p rpc.EventParams
		var payload struct {
			Args struct {
				Command string `json:"command"`
			} `json:"args"`
		}
		if err := json.Unmarshal(params, &p); err != nil || json.Unmarshal(p.Payload, &payload) != nil {
			return nil, &rpc.RemoteError{Code: -32602, Message: "bad event/gate params"}
		}
		for _, r := range rules {
			if r.re.MatchString(payload.Args.Command) {
				return rpc.GateResult{Stop: true, Reason: r.reason}, nil
			}
		}
		return rpc.GateResult{}, nil
	case rpc.MethodToolCall:
		var s string
		for _, r := range rules {
			s += fmt.Sprintf("%s  (%s)\n", r.re, r.reason)
		}
		return tool.Text(s), nil
	case rpc.MethodPing, rpc.MethodShutdown:
		return struct{}{}, nil
	}
	return nil, &rpc.RemoteError{Code: -32601, Message: "method not found: " + method}
}
