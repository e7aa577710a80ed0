package bridge

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/childlog"
)

func TestLineFilter(t *testing.T) {
	t.Parallel()
	huge := "{" + strings.Repeat(" ", maxFrame) + "}"
	// A response over the limit, its id last as the TypeScript SDK
	// writes it.
	hugeResponse := `{"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", maxFrame) + `"}]},"jsonrpc":"2.0","id":5}`
	in := strings.Join([]string{
		"Server starting...",
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		"",
		"   ",
		`[{"jsonrpc":"2.0","method":"x"}]`,
		`{"truncated":`,
		`{"level":"info","msg":"listening","id":4}`,
		`[1, 2, {"jsonrpc":"2.0"}]`,
		`[]`,
		huge,
		hugeResponse,
		`  {"jsonrpc":"2.0","id":2,"result":{}}  `,
		`{"jsonrpc":"2.0","id":3,"result":{}}`, // no newline at the end
	}, "\n")
	log, _ := childlog.Open("", "filter", "bridge")
	f := newLineFilter(io.NopCloser(strings.NewReader(in)), log)
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	tooLarge := fmt.Sprintf(`{"error":{"code":-32099,"message":"the answer was %d bytes, over the 16777216-byte limit on one message (16 MiB)"},"id":5,"jsonrpc":"2.0"}`, len(hugeResponse)+1)
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
		`[{"jsonrpc":"2.0","method":"x"}]` + "\n" +
		tooLarge + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"result":{}}` + "\n"
	if string(out) != want {
		t.Errorf("passed:\n%.2000s\nwant:\n%s", out, want)
	}
	if n := f.dropped.Load(); n != 7 {
		t.Errorf("dropped %d lines, want 7", n)
	}
	logged := strings.Join(log.Lines(20, ""), "\n")
	for _, w := range []string{
		"(not JSON-RPC, dropped) Server starting...",
		`(not JSON-RPC, dropped) {"truncated":`,
		`(not JSON-RPC, dropped) {"level":"info","msg":"listening","id":4}`,
		`(not JSON-RPC, dropped) [1, 2, {"jsonrpc":"2.0"}]`,
		"(not JSON-RPC, dropped) []",
		fmt.Sprintf("dropped a stdout line of %d bytes, over the 16777216-byte frame limit", len(huge)+1),
		fmt.Sprintf("dropped the response to request 5: %d bytes, over the 16777216-byte frame limit", len(hugeResponse)+1),
	} {
		if !strings.Contains(logged, w) {
			t.Errorf("log lacks %q:\n%s", w, logged)
		}
	}
	select {
	case <-f.eof:
	default:
		t.Error("eof not signalled after the last read")
	}
}

// The scanner finds the top-level id of a response however the line is
// cut into pieces, and nothing for a request, a notification or non-JSON.
func TestFrameScanner(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line, want string // want "" means no response id
	}{
		{"id first", `{"jsonrpc":"2.0","id":12,"result":{"a":[1,2]}}`, "12"},
		{"id last", `{"result":{"id":99,"text":"a \"id\": 3"},"jsonrpc":"2.0","id":"req-7"}`, `"req-7"`},
		{"spaces", `{ "id" : 4 , "jsonrpc" : "2.0", "error": {} }`, "4"},
		{"nested id only", `{"jsonrpc":"2.0","result":{"id":3}}`, ""},
		{"request", `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`, ""},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/progress"}`, ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"error":{}}`, ""},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"result":{}}`, ""},
		{"array", `[{"jsonrpc":"2.0","id":1,"result":{}}]`, ""},
		{"key with escapes", `{"i\u0064":1,"jsonrpc":"2.0"}`, ""},
		{"not JSON", `Server starting, id: 3`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, piece := range []int{1, 3, len(tc.line)} {
				var sc frameScanner
				for rest := tc.line; rest != ""; {
					n := min(piece, len(rest))
					sc.feed([]byte(rest[:n]))
					rest = rest[n:]
				}
				if got := string(sc.responseID()); got != tc.want {
					t.Errorf("in pieces of %d: id %q, want %q", piece, got, tc.want)
				}
			}
		})
	}
}
