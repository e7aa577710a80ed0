package shell

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell/output"
)

// A long bash command reports progress about once a second, with its
// latest output line as the message, and the progress value never goes
// down (MCP requires it to increase).
func TestBashReportsProgressWithLatestLine(t *testing.T) {
	t.Parallel()
	env := session(t)
	var (
		mu   sync.Mutex
		msgs []string
		vals []float64
	)
	ctx := tool.WithProgress(context.Background(), func(done, total float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		msgs = append(msgs, msg)
		vals = append(vals, done)
	})
	r := callCtx(ctx, t, BashTool(), env, map[string]any{"command": "echo compiling; sleep 1.3; echo linking; sleep 1.3"})
	if r.IsError {
		t.Fatalf("bash failed: %s", text(r))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(msgs) < 2 {
		t.Fatalf("want at least 2 progress reports in 2.6 s, got %d: %q", len(msgs), msgs)
	}
	if msgs[0] != "compiling" || msgs[len(msgs)-1] != "linking" {
		t.Errorf("progress messages = %q; want the latest line, from compiling to linking", msgs)
	}
	for i := 1; i < len(vals); i++ {
		if vals[i] <= vals[i-1] {
			t.Errorf("progress went from %v to %v", vals[i-1], vals[i])
		}
	}
}

func TestLatestLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"none", nil, ""},
		{"one line", []string{"hello\n"}, "hello"},
		{"blank lines keep the last text", []string{"a\n\n  \n"}, "a"},
		{"partial wins", []string{"a\nbuil", "ding"}, "building"},
		{"crlf", []string{"done\r\n"}, "done"},
		{"long line capped", []string{strings.Repeat("x", 500) + "\n"}, strings.Repeat("x", maxProgressLine)},
		{"rune not cut", []string{strings.Repeat("x", maxProgressLine-1) + "é\n"}, strings.Repeat("x", maxProgressLine-1)},
	} {
		l := &latest{next: clipSink{&output.Clip{}}}
		for _, w := range tc.writes {
			l.write([]byte(w))
		}
		if got := l.text(); got != tc.want {
			t.Errorf("%s: text() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
