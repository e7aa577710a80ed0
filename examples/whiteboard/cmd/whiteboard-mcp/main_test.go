package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// The program and its MCP client must leave no goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer collects stderr from the server goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs the program on pipes and connects an MCP client to it. stop
// closes the client and returns the program's exit code; it also runs at
// the end of the test.
func start(t *testing.T, args ...string) (cs *mcp.ClientSession, stop func() int, stderr *syncBuffer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr = &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), args, inR, outW, stderr) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		inW.Close()
		<-done
		t.Fatal(err)
	}
	stop = sync.OnceValue(func() int {
		cs.Close()
		return <-done
	})
	t.Cleanup(func() { stop() })
	return cs, stop, stderr
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// A client sees the whiteboard's two visible tools, calls them, gets
// readable errors, and the program exits cleanly when the client leaves.
func TestServesTheWhiteboard(t *testing.T) {
	cs, stop, stderr := start(t)
	if names := toolNames(t, cs); !slices.Equal(names, []string{"add_text", "move"}) {
		t.Fatalf("tools = %v, want [add_text move]", names)
	}
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_text", Arguments: map[string]any{"x": 3, "y": 4, "content": "hi"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"id":"e1"}` {
		t.Fatalf("add_text: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "move", Arguments: map[string]any{"id": "e2", "x": 0, "y": 0}})
	if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != `no element "e2"; the board has e1` {
		t.Fatalf("move of an unknown element: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "undo", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Fatalf("a hidden intent was callable over MCP: %+v", res)
	}
	if c := stop(); c != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", c, stderr)
	}
	if !strings.Contains(stderr.String(), "board changed") {
		t.Fatalf("no change was logged; stderr:\n%s", stderr)
	}
}

// With -deck the deck's read-only tools are served beside the
// whiteboard's (MCP lists tools by name).
func TestServesTheDeckToo(t *testing.T) {
	cs, _, _ := start(t, "-deck", "-dir", t.TempDir())
	want := []string{"add_text", "find", "grep", "ls", "move", "read", "todo_read", "webfetch", "websearch"}
	if names := toolNames(t, cs); !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "add_text") || !strings.Contains(got, "grep") ||
		strings.Contains(got, "shell") {
		t.Errorf("initialize instructions: %q, want the board's tools and the read-only deck", got)
	}
}

// The initialize reply tells the model what this server serves: the
// board's tools, not the deck's file and shell tools.
func TestInstructionsSayWhatItServes(t *testing.T) {
	cs, _, _ := start(t)
	got := cs.InitializeResult().Instructions
	for _, want := range []string{"whiteboard", "add_text", "move"} {
		if !strings.Contains(got, want) {
			t.Errorf("initialize instructions %q do not mention %s", got, want)
		}
	}
	for _, wrong := range []string{"shell", "process tool", "edit"} {
		if strings.Contains(got, wrong) {
			t.Errorf("initialize instructions %q speak of %q, which this server does not serve", got, wrong)
		}
	}
}

func TestBadFlag(t *testing.T) {
	var stderr syncBuffer
	if c := run(context.Background(), []string{"-nope"}, io.NopCloser(nil), nil, &stderr); c != 2 {
		t.Fatalf("exit code %d for a bad flag, want 2", c)
	}
	if !strings.Contains(stderr.String(), "flag provided but not defined: -nope") {
		t.Fatalf("stderr: %s", stderr.String())
	}
}
