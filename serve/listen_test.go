package serve

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// newMeta is the per-request _meta of the 2026-07-28 protocol, which has
// no initialize: the version, the client's capabilities and its name.
const newMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

func discoverLine(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"server/discover","params":{` + newMeta + `}}`
}

func listenLine(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{` + newMeta + `,"notifications":{"toolsListChanged":true}}}`
}

// subscriptionID returns the _meta subscriptionId of a message's params
// (a notification) or result (a response), as raw JSON.
func subscriptionID(t *testing.T, line string) string {
	t.Helper()
	var m struct {
		Params, Result struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("not JSON: %q", line)
	}
	if id, ok := m.Params.Meta["io.modelcontextprotocol/subscriptionId"]; ok {
		return string(id)
	}
	return string(m.Result.Meta["io.modelcontextprotocol/subscriptionId"])
}

// A client of the stateless protocol (Claude Code) opens a listen stream
// right after server/discover. The acknowledgement names the stream by
// the listen request's id exactly as the client wrote it, whatever its
// JSON type; and when the client closes its input the stream is answered
// (under the same id) and the server exits by itself (runPiped's deadline
// fails a server that waits for ever).
func TestStdioListenStreamNamesTheClientsIDAndEndsWithTheInput(t *testing.T) {
	t.Parallel()
	dir := workspace(t, nil)
	for _, id := range []string{`"listen:0"`, `18446744073709551616`, `1.5`, `7`} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			lines := runPiped(t, dir, strings.NewReader(discoverLine(`"server-discover-probe-1"`)+"\n"+listenLine(id)+"\n"))
			if l := replyTo(lines, `"server-discover-probe-1"`); !strings.Contains(l, `"supportedVersions"`) {
				t.Errorf("no discover reply; stdout: %q", lines)
			}
			var ack string
			for _, l := range lines {
				if strings.Contains(l, `"notifications/subscriptions/acknowledged"`) {
					ack = l
				}
			}
			if got := subscriptionID(t, ack); got != id {
				t.Errorf("the acknowledgement names subscription %s, want %s: %q", got, id, ack)
			}
			end := replyTo(lines, id)
			if end == "" || strings.Contains(end, `"error"`) {
				t.Fatalf("the listen stream was not answered at the end of the input; stdout: %q", lines)
			}
			if got := subscriptionID(t, end); got != id {
				t.Errorf("the listen result names subscription %s, want %s: %q", got, id, end)
			}
		})
	}
}

// A progress token comes back in notifications/progress exactly as the
// client wrote it: a number past 2^53 keeps its digits, a fraction and a
// string stay what they were.
func TestStdioProgressTokensComeBackAsWritten(t *testing.T) {
	t.Parallel()
	dir := workspace(t, nil)
	tokens := []string{`18446744073709551616`, `1.5`, `"tok"`}
	lines := []string{initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for i, tok := range tokens {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+strconv.Itoa(10+i)+`,"method":"tools/call","params":{"_meta":{"progressToken":`+tok+`},"name":"bash","arguments":{"command":"sleep 1.4; echo done"}}}`)
	}
	out := runPiped(t, dir, strings.NewReader(strings.Join(lines, "\n")+"\n"))
	for i, tok := range tokens {
		if l := replyTo(out, strconv.Itoa(10+i)); !strings.Contains(l, "done") {
			t.Errorf("call %d: %q", 10+i, l)
		}
		found := false
		for _, l := range out {
			if strings.Contains(l, `"notifications/progress"`) && strings.Contains(l, `"progressToken":`+tok+`,`) {
				found = true
			}
		}
		if !found {
			t.Errorf("no progress notification with the token %s; stdout: %q", tok, out)
		}
	}
}

// At the end of the input, a call in flight beside an open listen stream
// is finished and answered, a cancelled one is not, and the server exits:
// the stream's end does not cut the calls short.
func TestStdioEndOfInputFinishesCallsBesideAListenStream(t *testing.T) {
	t.Parallel()
	dir := workspace(t, nil)
	call := func(id, command string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + newMeta + `,"name":"bash","arguments":{"command":"` + command + `"}}}`
	}
	lines := runPiped(t, dir, strings.NewReader(strings.Join([]string{
		discoverLine(`"d"`),
		listenLine(`"listen:0"`),
		call(`18446744073709551616`, "sleep 0.5; echo slow-done"),
		call(`1.5`, "sleep 30"),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`,
	}, "\n")+"\n"))
	if l := replyTo(lines, `18446744073709551616`); !strings.Contains(l, "slow-done") {
		t.Errorf("the call in flight: %q; stdout: %q", l, lines)
	}
	if l := replyTo(lines, `1.5`); l != "" {
		t.Errorf("the cancelled call was answered: %q", l)
	}
	if l := replyTo(lines, `"listen:0"`); l == "" || strings.Contains(l, `"error"`) {
		t.Errorf("the listen stream: %q; stdout: %q", l, lines)
	}
}
