package bridge

import (
	"io"
	"strings"
	"testing"
)

func TestLineFilter(t *testing.T) {
	t.Parallel()
	huge := "{" + strings.Repeat(" ", maxFrame) + "}"
	in := strings.Join([]string{
		"Server starting...",
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		"",
		"   ",
		`[{"jsonrpc":"2.0","method":"x"}]`,
		`{"truncated":`,
		huge,
		`  {"jsonrpc":"2.0","id":2,"result":{}}  `,
		`{"jsonrpc":"2.0","id":3,"result":{}}`, // no newline at the end
	}, "\n")
	log := &serverLog{}
	f := newLineFilter(io.NopCloser(strings.NewReader(in)), log)
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
		`[{"jsonrpc":"2.0","method":"x"}]` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"result":{}}` + "\n"
	if string(out) != want {
		t.Errorf("passed:\n%s\nwant:\n%s", out, want)
	}
	if n := f.dropped.Load(); n != 3 {
		t.Errorf("dropped %d lines, want 3", n)
	}
	logged := strings.Join(log.lines(10, ""), "\n")
	for _, w := range []string{"(not JSON-RPC, dropped) Server starting...", `(not JSON-RPC, dropped) {"truncated":`, "over the 16777216-byte frame limit"} {
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

func TestServerLogTail(t *testing.T) {
	t.Parallel()
	l := &serverLog{}
	for i := range maxTailLines + 5 {
		l.line("stderr", strings.Repeat("x", i%3)+"line")
	}
	l.line("bridge", "note")
	if got := l.lines(100, ""); len(got) != maxTailLines || got[len(got)-1] != "bridge: note" {
		t.Errorf("tail %q", got)
	}
	if hint := l.stderrHint(); !strings.HasPrefix(hint, "; its stderr ends: ") || strings.Count(hint, "|") != 2 {
		t.Errorf("hint %q", hint)
	}
	l.line("stderr", strings.Repeat("y", maxLogLine+10))
	if got := l.lines(1, "stderr")[0]; len(got) > maxLogLine+40 || !strings.HasSuffix(got, "(10 more bytes)") {
		t.Errorf("long line kept as %d bytes", len(got))
	}
}
