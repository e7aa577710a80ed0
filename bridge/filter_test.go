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
