package serve

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/indusagi/induscode/internal/testpeer"
)

// A model drives a python3 REPL in a terminal over MCP: one call starts
// it, the CSV is loaded once, three later calls ask about it, each call
// waiting for the next prompt. The id comes as a JSON block, and
// the end of the MCP session kills the REPL.
func TestREPLAcrossCalls(t *testing.T) {
	testpeer.Command(t, "python3", "install python3 (scripts/test does)")
	for _, tr := range transports[:2] {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			dir := workspace(t, map[string]string{"sales.csv": "region,amount\nnorth,200.5\nsouth,700\neast,100\nsouth,250\n"})
			cs := tr.open(t, dir, nil)
			res := call(t, cs, "process", map[string]any{"action": "start", "command": "python3 -q -i", "pty": true})
			mustSucceed(t, "start", res)
			st := jsonOf(res)
			id, _ := st["id"].(string)
			pid, _ := st["pid"].(float64)
			if id == "" || pid == 0 || !strings.Contains(text(res), "Started "+id) {
				t.Fatalf("start: JSON %v, text %s", st, text(res))
			}
			ask := func(line, want string) {
				t.Helper()
				in := map[string]any{"action": "input", "id": id, "text": line + "\n", "pattern": ">>> $", "timeout_ms": 30000}
				if line == "" {
					in = map[string]any{"action": "wait", "id": id, "pattern": ">>> $", "timeout_ms": 30000}
				}
				res := call(t, cs, "process", in)
				out := mustSucceed(t, "input", res)
				if st := jsonOf(res); st["reason"] != "pattern" || !strings.Contains(out, want) {
					t.Fatalf("%q: JSON %v, text:\n%s", line, st, out)
				}
			}
			ask("", ">>> ")
			ask("import csv; rows = list(csv.DictReader(open('sales.csv'))); print(len(rows), 'rows loaded')", "\n4 rows loaded\n>>> ")
			ask("sum(float(r['amount']) for r in rows)", "\n1250.5\n>>> ")
			ask("max(rows, key=lambda r: float(r['amount']))['region']", "\n'south'\n>>> ")
			ask("len({r['region'] for r in rows})", "\n3\n>>> ")
			// The session ends with the REPL still running: it goes too.
			if err := cs.Close(); err != nil {
				t.Logf("close: %v", err)
			}
			waitGone(t, int(pid), 15*time.Second)
		})
	}
}

// jsonOf is the last JSON object among a result's text blocks (a deck
// tool's JSON block), or nil.
func jsonOf(res *mcp.CallToolResult) map[string]any {
	var out map[string]any
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			var m map[string]any
			if json.Unmarshal([]byte(tc.Text), &m) == nil {
				out = m
			}
		}
	}
	return out
}
