// Command standin is a Tier-1 addon that misbehaves on request, for the
// tests of package rpc: its first argument picks the behaviour.
//
//	ok          serve normally
//	garbage     print lines that are not JSON-RPC around every answer
//	slow=DUR    sleep DUR before reading anything
//	hang-init   never answer initialize
//	version=V   answer initialize with protocol version V
//	hang-gate   stop reading (and answering) at the first event/gate
//	crash-gate  exit 3 at every event/gate
//	stubborn    ignore SIGTERM, shutdown and the end of stdin
//	child       start a grandchild (sleep) in the group, then serve
//	slow-gate   answer each event/gate after 3s, reading on meanwhile
//	            (a $/cancelRequest is written to stderr)
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int64          `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   any             `json:"error,omitempty"`
}

var mode = "ok"

func main() {
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	fmt.Fprintln(os.Stderr, "standin starting in mode", mode)
	if d, ok := strings.CutPrefix(mode, "slow="); ok {
		w, _ := time.ParseDuration(d)
		time.Sleep(w)
	}
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	if mode == "child" {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		fmt.Fprintln(os.Stderr, "grandchild", c.Process.Pid)
	}
	if mode == "garbage" {
		fmt.Println("hello from an addon that prints to stdout")
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex // slow-gate answers from goroutines
	reply := func(id *int64, result any) {
		mu.Lock()
		defer mu.Unlock()
		if mode == "garbage" {
			fmt.Fprintln(out, "{not json at all")
			fmt.Fprintln(out, `{"jsonrpc":"1.0","id":1}`)
		}
		b, _ := json.Marshal(msg{JSONRPC: "2.0", ID: id, Result: result})
		out.Write(append(b, '\n'))
		out.Flush()
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m msg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		var p map[string]json.RawMessage
		json.Unmarshal(m.Params, &p)
		switch m.Method {
		case "initialize":
			if mode == "hang-init" {
				time.Sleep(time.Hour)
			}
			v := "1"
			if s, ok := strings.CutPrefix(mode, "version="); ok {
				v = s
			}
			reply(m.ID, declarations(v))
		case "$/cancelRequest":
			fmt.Fprintf(os.Stderr, "cancelled request %s\n", p["id"])
		case "event/gate":
			switch mode {
			case "slow-gate":
				go func(id *int64) {
					time.Sleep(3 * time.Second)
					reply(id, map[string]any{"stop": false})
				}(m.ID)
				continue
			case "hang-gate":
				time.Sleep(time.Hour)
			case "crash-gate":
				fmt.Fprintln(os.Stderr, "about to crash in a gate")
				os.Exit(3)
			}
			var pl struct {
				Args map[string]any `json:"args"`
			}
			json.Unmarshal(p["payload"], &pl)
			if pl.Args["deny"] == true {
				reply(m.ID, map[string]any{"stop": true, "reason": "standin says no"})
			} else {
				reply(m.ID, map[string]any{"stop": false})
			}
		case "event/transform":
			var pl map[string]any
			json.Unmarshal(p["payload"], &pl)
			if args, ok := pl["args"].(map[string]any); ok {
				args["transformed"] = true
			}
			reply(m.ID, map[string]any{"payload": pl})
		case "tool/enter":
			var args map[string]any
			json.Unmarshal(p["args"], &args)
			args["entered"] = true
			reply(m.ID, map[string]any{"action": "rewrite", "args": args})
		case "tool/exit":
			var r struct {
				Content []map[string]any `json:"content"`
			}
			json.Unmarshal(p["result"], &r)
			text := "exit saw: "
			if len(r.Content) > 0 {
				text += fmt.Sprint(r.Content[0]["text"])
			}
			reply(m.ID, map[string]any{"action": "rewrite", "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}})
		case "command/run":
			var args []string
			json.Unmarshal(p["args"], &args)
			reply(m.ID, map[string]any{"stdout": strings.Join(args, "|") + "\n", "code": 0})
		case "tool/call":
			var name string
			json.Unmarshal(p["tool"], &name)
			switch name {
			case "environ":
				reply(m.ID, text(strings.Join(os.Environ(), "\n")))
			case "pid":
				reply(m.ID, text(fmt.Sprint(os.Getpid())))
			case "crash":
				os.Exit(4)
			}
		case "ping":
			reply(m.ID, map[string]any{})
		case "shutdown":
			reply(m.ID, map[string]any{})
			if mode != "stubborn" {
				os.Exit(0)
			}
		}
	}
	if mode == "stubborn" {
		time.Sleep(time.Hour)
	}
}

func text(s string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
}

func declarations(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"handlers": []any{
			map[string]any{"id": "no-deny", "event": "tool:before", "kind": "gate", "tool": "echo"},
			map[string]any{"id": "mark", "event": "tool:before", "kind": "transform", "tool": "echo"},
			map[string]any{"id": "hello", "event": "session:start", "kind": "observe"},
		},
		"interceptors": []any{map[string]any{"id": "wrap", "tool": "echo", "enter": true, "exit": true}},
		"commands":     []any{map[string]any{"name": "join", "summary": "join the arguments with |"}},
		"tools": []any{
			map[string]any{"name": "environ", "description": "the addon's environment", "readOnly": true},
			map[string]any{"name": "pid", "readOnly": true},
			map[string]any{"name": "crash"},
		},
	}
}
