package deck_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/tool"
)

func fn(name string, run func(context.Context, json.RawMessage, *tool.Env) tool.Result) tool.Tool {
	return &tool.Func{S: tool.Spec{Name: name, Label: name, InputSchema: tool.EmptyObjectSchema()}, Fn: run}
}

// testBox provisions the All deck and grafts tools that misbehave.
func testBox(t testing.TB) *deck.Box {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	d, err := deck.Provision(deck.All, deck.Setup{Dir: t.TempDir(), Framework: deck.Framework{Log: quiet}})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	err = d.Graft(
		fn("noop", func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Result{} }),
		fn("echo", func(_ context.Context, in json.RawMessage, _ *tool.Env) tool.Result { return tool.Text(string(in)) }),
		fn("boom", func(context.Context, json.RawMessage, *tool.Env) tool.Result { panic("kaboom") }),
		fn("nilmap", func(context.Context, json.RawMessage, *tool.Env) tool.Result {
			var m map[string]int
			m["x"] = 1
			return tool.Result{}
		}),
		// stubborn ignores its context: only the Box can cut it short.
		fn("stubborn", func(context.Context, json.RawMessage, *tool.Env) tool.Result {
			<-release
			return tool.Text("finished")
		}),
		fn("polite", func(ctx context.Context, _ json.RawMessage, _ *tool.Env) tool.Result {
			<-ctx.Done()
			return tool.Errorf("polite: %v", ctx.Err())
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return d.Box()
}

func TestBoxFailurePaths(t *testing.T) {
	t.Parallel()
	box := testBox(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		tool    string
		wantErr bool
		want    string
	}{
		{"unknown name lists tools", nil, "nosuch", true, `unknown tool "nosuch". Available tools: `},
		{"panic is recovered", nil, "boom", true, "tool boom failed with an internal error (kaboom)"},
		{"runtime error is recovered", nil, "nilmap", true, "assignment to entry in nil map"},
		{"cancelled before start", func() (context.Context, context.CancelFunc) { return cancelled, func() {} }, "noop", true, "tool noop was cancelled"},
		{"deadline cuts a stubborn tool", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, "stubborn", true, "tool stubborn did not finish before its deadline"},
		{"cancellation cuts a stubborn tool", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(30*time.Millisecond, cancel)
			return ctx, cancel
		}, "stubborn", true, "tool stubborn was cancelled before it finished"},
		{"a polite tool sees the deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 30*time.Millisecond)
		}, "polite", true, "deadline"},
		{"nil input arrives as {}", nil, "echo", false, "{}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			start := time.Now()
			res := box.Run(ctx, tc.tool, nil)
			if time.Since(start) > 5*time.Second {
				t.Errorf("Run took %v", time.Since(start))
			}
			if res.IsError != tc.wantErr || !strings.Contains(res.PlainText(), tc.want) {
				t.Errorf("got IsError=%v %q; want IsError=%v containing %q", res.IsError, res.PlainText(), tc.wantErr, tc.want)
			}
		})
	}
}

func TestBoxConcurrentCalls(t *testing.T) {
	t.Parallel()
	box := testBox(t)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			in := fmt.Sprintf(`{"todos":[{"content":"task %d","status":"in_progress","activeForm":"doing %d"}]}`, i, i)
			if res := box.Run(ctx, "todo_set", json.RawMessage(in)); res.IsError {
				t.Errorf("todo_set: %s", res.PlainText())
			}
			if res := box.Run(context.Background(), "todo_read", nil); res.IsError || !strings.Contains(res.PlainText(), "[~] doing") {
				t.Errorf("todo_read: %s", res.PlainText())
			}
			box.Run(context.Background(), "boom", nil)
		})
	}
	wg.Wait()
}

func TestBoxSessionsAreIsolated(t *testing.T) {
	t.Parallel()
	a, b := testBox(t), testBox(t)
	a.Run(context.Background(), "todo_set", json.RawMessage(`{"todos":[{"content":"x","status":"pending","activeForm":"X"}]}`))
	if got := b.Run(context.Background(), "todo_read", nil).PlainText(); !strings.Contains(got, "empty") {
		t.Errorf("second session sees the first one's list: %q", got)
	}
}

func TestDeckSeams(t *testing.T) {
	t.Parallel()
	d, err := deck.Provision(deck.Survey, deck.Setup{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	n := len(d.Tools())
	ts := d.Tools()
	ts[0] = nil
	if d.Tools()[0] == nil {
		t.Fatal("Tools() exposed the deck's backing slice")
	}
	extra := fn("extra", nil)
	if err := d.Graft(extra, fn("todo_read", nil)); err == nil || !strings.Contains(err.Error(), `"todo_read" is already on the deck`) {
		t.Errorf("duplicate graft: err = %v", err)
	}
	if got := len(d.Tools()); got != n+1 {
		t.Errorf("after graft %d tools, want %d", got, n+1)
	}
	var seen []string
	d.Map(func(t tool.Tool) tool.Tool { seen = append(seen, t.Spec().Name); return t })
	if len(seen) != n+1 || seen[n] != "extra" {
		t.Errorf("Map saw %v", seen)
	}
	d.Retain(func(t tool.Tool) bool { return t.Spec().Name == "extra" })
	// The deck keeps each tool under the Box's watcher.
	if ts := d.Tools(); len(ts) != 1 || ts[0].(interface{ Unwrap() tool.Tool }).Unwrap() != extra {
		t.Errorf("Retain left %v", ts)
	}
	if specs := d.Box().Specs(); len(specs) != 1 || specs[0].Name != "extra" {
		t.Errorf("Box specs = %v", specs)
	}
}

func TestProvisionProfiles(t *testing.T) {
	t.Parallel()
	for _, p := range deck.Profiles() {
		d, err := deck.Provision(p, deck.Setup{Dir: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got, want := len(d.Tools()), len(deck.CardsFor(p)); got != want {
			t.Errorf("%s: %d tools, want %d", p, got, want)
		}
	}
	_, err := deck.Provision(deck.Profile(42), deck.Setup{Dir: "."})
	var f *deck.Fault
	if !errors.Is(err, deck.ErrUnknownCapability) || !errors.As(err, &f) || f.ID != "Profile(42)" ||
		!strings.Contains(err.Error(), "authoring survey all") {
		t.Errorf("unknown profile: err = %v, want an unknown-capability fault naming it and the profiles there are", err)
	}
}

func TestProvisionSharesInjectedReadState(t *testing.T) {
	t.Parallel()
	rs := tool.NewReadState()
	d, err := deck.Provision(deck.All, deck.Setup{Dir: t.TempDir(), Framework: deck.Framework{ReadState: rs}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Env().Reads != rs || d.Box().Env().Reads != rs {
		t.Error("injected ReadState not used")
	}
}

func BenchmarkBoxRunNoop(b *testing.B) {
	box := testBox(b)
	ctx := context.Background()
	in := json.RawMessage(`{}`)
	b.ReportAllocs()
	for b.Loop() {
		box.Run(ctx, "noop", in)
	}
}

func BenchmarkBoxRunNoopWithDeadline(b *testing.B) {
	box := testBox(b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	in := json.RawMessage(`{}`)
	b.ReportAllocs()
	for b.Loop() {
		box.Run(ctx, "noop", in)
	}
}

func BenchmarkProvisionAll(b *testing.B) {
	setup := deck.Setup{Dir: b.TempDir()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := deck.Provision(deck.All, setup); err != nil {
			b.Fatal(err)
		}
	}
}

func TestGraftRefusesInvalidNames(t *testing.T) {
	t.Parallel()
	d, err := deck.Provision(deck.Authoring, deck.Setup{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	n := len(d.Tools())
	noop := func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Text("ok") }
	err = d.Graft(fn("srv.echo", noop), fn("", noop), fn(strings.Repeat("x", 65), noop), fn("srv__echo", noop))
	if err == nil {
		t.Fatal("Graft accepted invalid names")
	}
	for _, want := range []string{`"srv.echo"`, `""`, tool.NameRule, "skipped"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Graft error %q does not mention %s", err, want)
		}
	}
	ts := d.Tools()
	if len(ts) != n+1 || ts[n].Spec().Name != "srv__echo" {
		t.Fatalf("after graft: %d tools (want %d), last %q", len(ts), n+1, ts[len(ts)-1].Spec().Name)
	}
	if r := d.Box().Run(context.Background(), "srv__echo", nil); r.IsError {
		t.Errorf("deck unusable after a refused graft: %v", r)
	}
}

// cancellableFunc is a tool that says it stops when its context ends.
type cancellableFunc struct{ tool.Func }

func (cancellableFunc) Cancellable() bool { return true }

// A grafted tool that says it is cancellable runs on the caller's
// goroutine: the Box waits for its own result instead of cutting it short.
func TestCancellableGraftRunsOnTheCaller(t *testing.T) {
	t.Parallel()
	d, err := deck.Provision(deck.Survey, deck.Setup{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	slow := func(context.Context, json.RawMessage, *tool.Env) tool.Result {
		time.Sleep(300 * time.Millisecond) // ignores its context, against its word
		return tool.Text("own result")
	}
	// The watched tool ignores its context until the test ends: a Box that
	// waited for it would get its own result only after ten seconds.
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	stuck := func(context.Context, json.RawMessage, *tool.Env) tool.Result {
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		return tool.Text("own result")
	}
	if err := d.Graft(
		&cancellableFunc{tool.Func{S: tool.Spec{Name: "says_cancellable", Label: "s", InputSchema: tool.EmptyObjectSchema()}, Fn: slow}},
		fn("watched", stuck),
	); err != nil {
		t.Fatal(err)
	}
	box := d.Box()
	for _, tt := range []struct {
		name, result string
		atLeast      time.Duration
	}{
		{"says_cancellable", "own result", 300 * time.Millisecond},
		{"watched", "was stopped", 0},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start := time.Now()
		r := box.Run(ctx, tt.name, nil)
		took := time.Since(start)
		cancel()
		if !strings.Contains(r.PlainText(), tt.result) || took < tt.atLeast {
			t.Errorf("%s: %q after %v; want %q, after at least %v", tt.name, r.PlainText(), took, tt.result, tt.atLeast)
		}
	}
}
