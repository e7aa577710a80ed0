package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseBatchLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, tool, input, err string
	}{
		{line: `{"tool":"todo_read"}`, tool: "todo_read"},
		{line: `{"tool":"read","input":{"path":"a"}}`, tool: "read", input: `{"path":"a"}`},
		{line: `{"tool":"todo_read"} trailing`, err: "more after the JSON object"},
		{line: `{"tool":"todo_read"}{"tool":"todo_read"}`, err: "more after the JSON object"},
		{line: `null`, err: "not a JSON object"},
		{line: `[1,2]`, err: "not a JSON object"},
		{line: `"todo_read"`, err: "not a JSON object"},
		{line: `{}`, err: `"tool" is missing`},
		{line: `{"tool":null}`, err: `"tool" is missing`},
		{line: `{"tool":"  "}`, err: `"tool" is missing`},
		{line: `{"tool":5}`, err: `field "tool" must be a string`},
		{line: `{"tool":"x","extra":1}`, err: `unknown field "extra"`},
		{line: `{"tool":"x"`, err: "unexpected EOF"},
	} {
		c, err := parseBatchLine([]byte(tc.line))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		if c.Tool != tc.tool || string(c.Input) != tc.input {
			t.Errorf("%s: got tool %q input %s", tc.line, c.Tool, c.Input)
		}
	}
}

// An interrupt ends a batch that is waiting for more input: stdin may be a
// pipe that never closes, and Ctrl-C must still end indusr.
func TestBatchInterruptWhileWaitingForInput(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close() // lets the line reader return once the test is done
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, Program{}, []string{"-C", t.TempDir(), "--no-tools", "call", "--batch"}, pr, &stdout, &stderr)
	}()
	// The first line is answered; then the batch waits for a second one.
	if _, err := io.WriteString(pw, "{\"tool\":\"todo_read\"}\n"); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case c := <-code:
		if c != ExitToolError {
			t.Errorf("exit code %d, want %d", c, ExitToolError)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the batch kept waiting for input after the interrupt")
	}
	if !strings.Contains(stderr.String(), "batch interrupted") {
		t.Errorf("stderr should say the batch was interrupted:\n%s", stderr.String())
	}
}

// After an interrupt, `indusr tools` does not print a possibly incomplete
// list (the MCP mount was cut short) and exit 0.
func TestToolsAfterInterruptFails(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	if c := run(ctx, Program{}, []string{"-C", t.TempDir(), "tools"}, strings.NewReader(""), &stdout, &stderr); c != ExitToolError {
		t.Errorf("exit code %d, want %d; stdout:\n%s", c, ExitToolError, stdout.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr: %s", stderr.String())
	}
}
