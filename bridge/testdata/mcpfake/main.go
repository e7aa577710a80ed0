// Command mcpfake is a small stdio MCP server for the bridge's tests. It
// speaks raw JSON-RPC (no SDK), so it can misbehave in ways a real SDK
// server would refuse to: never answer, print garbage, advertise a schema
// without a type, flood notifications, page forever, crash mid-call.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	mode  = flag.String("mode", "normal", "normal|hang|garbage|notype|flood|pages|endless-pages|collide|grandchild|nocaps|silent|changing")
	extra = flag.Int("tools", 0, "extra tools t0..tN-1")
	flood = flag.Int("flood", 5000, "tools/list_changed notifications to send in flood mode")
	delay = flag.Duration("delay", 0, "wait this long before answering initialize")
	// Real servers print structured logs to stdout: JSON that is not
	// JSON-RPC.
	jsonLogs = flag.Bool("jsonlogs", false, "print a JSON log object and a JSON array on stdout before every message")
	big      = flag.Bool("big", false, `add a tool "big" that answers with a text of {"bytes": N} bytes`)
	// A server that dumps a huge line to stderr (a minified stack, a
	// blob) and goes on writing there.
	stderrLine = flag.Int("stderrline", 0, "at start, write a stderr line of this many bytes, then 2,000 short ones")
)

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   any             `json:"error,omitempty"`
}

var (
	changed   bool // in changing mode, the tool list has changed
	outMu     sync.Mutex
	out       = bufio.NewWriter(os.Stdout)
	cancelMu  sync.Mutex
	cancelled = map[string]chan struct{}{}
	lists     int
)

func send(m message) {
	m.JSONRPC = "2.0"
	b, _ := json.Marshal(m)
	outMu.Lock()
	defer outMu.Unlock()
	if *mode == "garbage" {
		fmt.Fprintln(out, "garbage: this line is not JSON-RPC")
	}
	if *jsonLogs {
		fmt.Fprintf(out, `{"level":"info","time":%q,"msg":"sending a message","id":7}`+"\n", time.Now().Format(time.RFC3339))
		fmt.Fprintln(out, `["log", 1, {"jsonrpc": "not in an array of messages"}]`)
	}
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

func main() {
	flag.Parse()
	logf("mcpfake %s pid %d", *mode, os.Getpid())
	if *stderrLine > 0 {
		w := bufio.NewWriter(os.Stderr)
		w.WriteString(strings.Repeat("e", *stderrLine) + "\n")
		for i := range 2000 {
			fmt.Fprintf(w, "after the long line %d %s\n", i, strings.Repeat(".", 70))
		}
		w.Flush()
	}
	switch *mode {
	case "hang":
		// Read requests, answer none, and outlive stdin and SIGTERM:
		// only SIGKILL ends it.
		signal.Ignore(syscall.SIGTERM)
		io.Copy(io.Discard, os.Stdin)
		for {
			time.Sleep(time.Hour)
		}
	case "garbage":
		fmt.Println("Starting server... (a banner on stdout)")
		fmt.Println("")
		fmt.Println("[1, 2") // looks like JSON, is not
	case "grandchild":
		sleeper := exec.Command("sleep", "300")
		if err := sleeper.Start(); err != nil {
			logf("cannot start grandchild: %v", err)
		} else {
			logf("grandchild %d", sleeper.Process.Pid)
		}
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			logf("bad input: %v", err)
			continue
		}
		handle(m)
	}
	logf("stdin closed")
}

func handle(m message) {
	switch m.Method {
	case "initialize":
		time.Sleep(*delay)
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(m.Params, &p)
		caps := map[string]any{"tools": map[string]any{"listChanged": true}}
		if *mode == "nocaps" {
			caps = map[string]any{}
		}
		send(message{ID: m.ID, Result: map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    caps,
			"serverInfo":      map[string]any{"name": "mcpfake", "version": "1"},
		}})
	case "notifications/initialized":
		if *mode == "changing" {
			go func() {
				time.Sleep(300 * time.Millisecond)
				outMu.Lock()
				changed = true
				outMu.Unlock()
				send(message{Method: "notifications/tools/list_changed"})
				logf("tools changed")
			}()
		}
		if *mode == "flood" {
			go func() {
				for range *flood {
					send(message{Method: "notifications/tools/list_changed"})
				}
				logf("flood done")
			}()
		}
	case "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		json.Unmarshal(m.Params, &p)
		id := fmt.Sprint(p.RequestID)
		logf("cancelled %s", id)
		cancelMu.Lock()
		if ch, ok := cancelled[id]; ok {
			close(ch)
			delete(cancelled, id)
		}
		cancelMu.Unlock()
	case "ping":
		send(message{ID: m.ID, Result: map[string]any{}})
	case "tools/list":
		lists++
		logf("list %d", lists)
		var p struct {
			Cursor string `json:"cursor"`
		}
		json.Unmarshal(m.Params, &p)
		send(message{ID: m.ID, Result: listResult(p.Cursor)})
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Meta      struct {
				ProgressToken any `json:"progressToken"`
			} `json:"_meta"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Name == "slow" {
			go slow(m.ID, p.Arguments, p.Meta.ProgressToken)
			return
		}
		call(m.ID, p.Name, p.Arguments)
	default:
		// A legacy server in silent mode ignores requests it does not know
		// (server/discover among them) instead of answering an error.
		if len(m.ID) > 0 && *mode != "silent" {
			send(message{ID: m.ID, Error: map[string]any{"code": -32601, "message": "method not found: " + m.Method}})
		}
	}
}

func schema(props map[string]any) map[string]any {
	if props == nil {
		props = map[string]any{}
	}
	return map[string]any{"type": "object", "properties": props}
}

func tools() []map[string]any {
	str := map[string]any{"type": "string"}
	num := map[string]any{"type": "number"}
	ts := []map[string]any{
		{"name": "echo", "description": "Echo the message.", "inputSchema": schema(map[string]any{"message": str})},
		{"name": "args", "description": "Return the arguments as received.", "inputSchema": schema(nil)},
		{"name": "crash", "description": "Exit the process in the middle of the call.", "inputSchema": schema(nil)},
		{"name": "slow", "description": "Sleep, reporting progress.", "inputSchema": schema(map[string]any{"seconds": num})},
		{"name": "noisy", "description": "Print garbage on stdout, then answer.", "inputSchema": schema(nil)},
		{"name": "blocks", "description": "Return one block of each kind.", "inputSchema": schema(nil)},
		{"name": "fail", "description": "Return an error result.", "inputSchema": schema(nil)},
	}
	outMu.Lock()
	isChanged := changed
	outMu.Unlock()
	if isChanged { // "fail" is gone, "fresh" is new
		ts = append(ts[:6], map[string]any{"name": "fresh", "description": "New after the change.", "inputSchema": schema(nil)})
	}
	switch *mode {
	case "notype":
		ts = append(ts,
			map[string]any{"name": "loose", "description": "Schema without a type.", "inputSchema": map[string]any{"properties": map[string]any{"x": str}},
				"outputSchema": map[string]any{"type": "array"}},
			map[string]any{"name": "bare", "description": "No schema at all."})
	case "collide":
		ts = append(ts,
			map[string]any{"name": "a.b", "inputSchema": schema(nil)},
			map[string]any{"name": "a_b", "inputSchema": schema(nil)})
	}
	if *big {
		ts = append(ts, map[string]any{"name": "big", "description": "Answer with a large text.", "inputSchema": schema(map[string]any{"bytes": num})})
	}
	for i := range *extra {
		ts = append(ts, map[string]any{"name": "t" + strconv.Itoa(i), "inputSchema": schema(nil)})
	}
	return ts
}

func listResult(cursor string) map[string]any {
	all := tools()
	switch *mode {
	case "pages":
		start, _ := strconv.Atoi(cursor)
		end := min(start+2, len(all))
		res := map[string]any{"tools": all[start:end]}
		if end < len(all) {
			res["nextCursor"] = strconv.Itoa(end)
		}
		return res
	case "endless-pages":
		n, _ := strconv.Atoi(cursor)
		page := []map[string]any{{"name": "p" + strconv.Itoa(n), "inputSchema": schema(nil)}}
		if n == 0 {
			page = all
		}
		return map[string]any{"tools": page, "nextCursor": strconv.Itoa(n + 1)}
	}
	return map[string]any{"tools": all}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func call(id json.RawMessage, name string, args json.RawMessage) {
	switch name {
	case "echo":
		var a struct {
			Message string `json:"message"`
		}
		json.Unmarshal(args, &a)
		send(message{ID: id, Result: map[string]any{"content": []any{text("echo: " + a.Message)}}})
	case "args":
		send(message{ID: id, Result: map[string]any{"content": []any{text(string(args))}}})
	case "crash":
		logf("crashing on purpose")
		os.Exit(3)
	case "noisy":
		outMu.Lock()
		fmt.Fprintln(out, "DEBUG: noisy tool was called")
		out.Flush()
		outMu.Unlock()
		send(message{ID: id, Result: map[string]any{"content": []any{text("quiet now")}}})
	case "blocks":
		send(message{ID: id, Result: map[string]any{"content": []any{
			text("hello"),
			map[string]any{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///a.txt", "mimeType": "text/plain", "text": "contents"}},
			map[string]any{"type": "resource_link", "uri": "file:///b.txt", "name": "b.txt"},
		}}})
	case "fail":
		send(message{ID: id, Result: map[string]any{"content": []any{text("it failed on purpose")}, "isError": true}})
	case "fresh":
		send(message{ID: id, Result: map[string]any{"content": []any{text("fresh tool")}}})
	case "big":
		var a struct {
			Bytes int `json:"bytes"`
		}
		json.Unmarshal(args, &a)
		send(message{ID: id, Result: map[string]any{"content": []any{text(strings.Repeat("x", a.Bytes))}}})
	default:
		send(message{ID: id, Result: map[string]any{"content": []any{text("unknown tool " + name)}, "isError": true}})
	}
}

// slow sleeps for the requested seconds in 100 ms steps, sending progress
// when the caller asked for it, and stops without answering when cancelled.
func slow(id json.RawMessage, args json.RawMessage, token any) {
	var a struct {
		Seconds float64 `json:"seconds"`
	}
	json.Unmarshal(args, &a)
	var v any
	json.Unmarshal(id, &v)
	key := fmt.Sprint(v)
	ch := make(chan struct{})
	cancelMu.Lock()
	cancelled[key] = ch
	cancelMu.Unlock()
	steps := int(a.Seconds * 10)
	for i := 1; i <= steps; i++ {
		select {
		case <-ch:
			logf("stopped call %s", key)
			return
		case <-time.After(100 * time.Millisecond):
		}
		if token != nil {
			send(message{Method: "notifications/progress", Params: mustJSON(map[string]any{
				"progressToken": token, "progress": i, "total": steps, "message": fmt.Sprintf("step %d", i)})})
		}
	}
	cancelMu.Lock()
	delete(cancelled, key)
	cancelMu.Unlock()
	send(message{ID: id, Result: map[string]any{"content": []any{text(fmt.Sprintf("slept %gs", a.Seconds))}}})
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
