package intent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/intent"
	"github.com/indusagi/induscode/tool"
)

// A subscriber sees the compiled state, already committed, and a failed
// reduce commits and emits nothing.
func TestEmitSeesCommittedState(t *testing.T) {
	t.Parallel()
	var trace []string
	s := intent.NewSession[tally, op](tallyModality{trace: &trace}, tally{})
	if !slices.Equal(trace, []string{"compile"}) {
		t.Fatalf("the initial state was not compiled once: %v", trace)
	}
	trace = nil
	s.Subscribe(func(st tally) {
		trace = append(trace, "emit")
		if st.Doubled != 2*st.Total {
			t.Errorf("emitted a state that was not recompiled: %+v", st)
		}
		if s.State() != st || s.Version() != 1 {
			t.Errorf("emitted before commit: State() = %+v version %d, emitted %+v", s.State(), s.Version(), st)
		}
	})
	events, err := s.Dispatch(context.Background(), Add{N: 3})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"reduce", "compile", "emit"}; !slices.Equal(trace, want) {
		t.Fatalf("steps = %v, want %v", trace, want)
	}
	if len(events) != 1 || string(events[0].Value) != `{"total":3}` {
		t.Fatalf("events = %+v", events)
	}

	// A failed reduce commits and emits nothing.
	trace = nil
	events, _ = s.Dispatch(context.Background(), Fail{Msg: "no"})
	if want := []string{"reduce"}; !slices.Equal(trace, want) {
		t.Fatalf("a failed dispatch ran %v, want only %v", trace, want)
	}
	if s.Version() != 1 || s.State().Total != 3 {
		t.Fatalf("a failed dispatch changed the state: %+v version %d", s.State(), s.Version())
	}
	if len(events) != 1 || events[0].Kind != intent.ToolError || events[0].Message != "no" {
		t.Fatalf("a reducer error must come back as a ToolError event, got %+v", events)
	}
}

// A tool answers with the last event of its dispatch; no event at all is
// an empty success.
func TestToolAnswersWithLastEvent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		events  []string
		isError bool
		want    string
	}{
		{"no event", nil, false, ""},
		{"one output", []string{"done"}, false, "done"},
		{"last output wins", []string{"first", "second"}, false, "second"},
		{"error after output", []string{"first", "!broke"}, true, "broke"},
		{"output after error", []string{"!broke", "recovered"}, false, "recovered"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newTally()
			emit := intent.Tools(tallySet(t), s)[1]
			args, _ := json.Marshal(map[string]any{"events": append([]string{}, c.events...)})
			res := emit.Run(context.Background(), args, nil)
			if res.IsError != c.isError || res.PlainText() != c.want {
				t.Fatalf("result = %+v, want isError=%v text %q", res, c.isError, c.want)
			}
			if c.events == nil && len(res.Blocks) != 0 {
				t.Fatalf("no event must be an empty success, got %+v", res)
			}
		})
	}
}

// Outputs that are not strings come back as JSON; reducer errors and bad
// input as IsError results that say what is wrong.
func TestToolResults(t *testing.T) {
	t.Parallel()
	s := newTally()
	tools := intent.Tools(tallySet(t), s)
	byName := map[string]tool.Tool{}
	for _, tl := range tools {
		byName[tl.Spec().Name] = tl
	}
	if _, ok := byName["reset"]; ok || len(tools) != 3 {
		t.Fatalf("tools include a hidden variant or miss one: %d tools", len(tools))
	}
	ctx := context.Background()
	res := byName["add"].Run(ctx, json.RawMessage(`{"n":2}`), nil)
	if res.IsError || len(res.Blocks) != 1 || res.Blocks[0].Kind != tool.KindJSON || string(res.Blocks[0].JSON) != `{"total":2}` {
		t.Fatalf("add = %+v", res)
	}
	res = byName["fail_now"].Run(ctx, json.RawMessage(`{"msg":"the board is locked; unlock it first"}`), nil)
	if !res.IsError || res.PlainText() != "the board is locked; unlock it first" {
		t.Fatalf("fail_now = %+v", res)
	}
	res = byName["add"].Run(ctx, json.RawMessage(`{"n":"x"}`), nil)
	if !res.IsError || !strings.Contains(res.PlainText(), "invalid arguments for add: field n") {
		t.Fatalf("bad input = %+v", res)
	}
	if s.State().Total != 2 {
		t.Fatalf("total = %d after one good add, want 2", s.State().Total)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	res = byName["add"].Run(cctx, json.RawMessage(`{"n":2}`), nil)
	if !res.IsError || !strings.Contains(res.PlainText(), "not applied") || s.State().Total != 2 {
		t.Fatalf("a cancelled call = %+v, total %d", res, s.State().Total)
	}
	// Specs are copies too.
	sp := byName["add"].Spec()
	sp.InputSchema[0] = 'X'
	if byName["add"].Spec().InputSchema[0] != '{' {
		t.Fatal("a caller changed a tool's schema")
	}
}

// Events written outside a dispatch answer no call and are dropped; a
// dispatch that writes more than the buffer keeps the newest.
type leaky struct{ agent **intent.Agent }

func (l leaky) Reduce(s int, n int, fx intent.Effects) (int, error) {
	*l.agent = fx.Agent
	for i := range n {
		fx.Agent.Output(i)
	}
	return s + 1, nil
}

func TestAgentChannel(t *testing.T) {
	t.Parallel()
	var agent *intent.Agent
	s := intent.NewSession[int, int](leaky{&agent}, 0)
	ctx := context.Background()
	s.Dispatch(ctx, 1)
	agent.Output("late")
	events, _ := s.Dispatch(ctx, 1)
	if len(events) != 1 || string(events[0].Value) != "0" {
		t.Fatalf("a stale event leaked into the next call: %+v", events)
	}
	events, _ = s.Dispatch(ctx, 100)
	if len(events) == 0 || len(events) >= 100 || string(events[len(events)-1].Value) != "99" {
		t.Fatalf("overflow: %d events, last %+v; want a bounded tail ending in 99", len(events), events[len(events)-1])
	}
	if agent.Dropped() != uint64(100-len(events)) {
		t.Fatalf("Dropped() = %d, want %d", agent.Dropped(), 100-len(events))
	}
	enc := intent.NewSession[int, int](encoder{}, 0)
	if events, _ := enc.Dispatch(ctx, 0); len(events) != 1 || events[0].Kind != intent.ToolError || !strings.Contains(events[0].Message, "encoding") {
		t.Fatalf("an unencodable output must become a ToolError, got %+v", events)
	}
	var none *intent.Agent // a nil agent discards, for reducer tests
	none.Output(1)
	none.Errorf("x %d", 1)
}

// encoder writes an output that cannot be encoded as JSON.
type encoder struct{}

func (e encoder) Reduce(s int, _ int, fx intent.Effects) (int, error) {
	fx.Agent.Output(func() {})
	return s, nil
}

// Every event kind turns into a result, and has a name.
func TestEventKindsHandled(t *testing.T) {
	t.Parallel()
	for _, k := range intent.EventKinds() {
		ev := intent.Event{Kind: k, Value: json.RawMessage(`1`), Message: "m"}
		if res := intent.ResultOf([]intent.Event{ev}); strings.Contains(res.PlainText(), "unknown agent event") {
			t.Errorf("ResultOf does not handle %v", k)
		}
		if strings.HasPrefix(k.String(), "EventKind(") {
			t.Errorf("kind %d has no name", k)
		}
	}
}

// Concurrent calls are applied one at a time: every call sees its own
// output, and no update is lost.
func TestConcurrentDispatch(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newTally()
	add := intent.Tools(tallySet(t), s)[0]
	var emitted []int
	var emu sync.Mutex
	s.Subscribe(func(st tally) { emu.Lock(); emitted = append(emitted, st.Total); emu.Unlock() })
	const n = 64
	totals := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res := add.Run(context.Background(), json.RawMessage(`{"n":1}`), nil)
			var out struct{ Total int }
			if err := json.Unmarshal(res.Blocks[0].JSON, &out); err != nil {
				t.Error(err)
			}
			totals[i] = out.Total
		})
	}
	wg.Wait()
	slices.Sort(totals)
	for i, got := range totals {
		if got != i+1 {
			t.Fatalf("call answers %v: two calls saw the same total or one was lost", totals)
		}
	}
	if st := s.State(); st.Total != n || st.Doubled != 2*n || s.Version() != n {
		t.Fatalf("final state %+v version %d", st, s.Version())
	}
	if !slices.IsSorted(emitted) || len(emitted) != n {
		t.Fatalf("emits out of commit order or missing: %v", emitted)
	}
}

// A subscription ends when stopped.
func TestSubscribeStop(t *testing.T) {
	t.Parallel()
	s := newTally()
	calls := 0
	stop := s.Subscribe(func(tally) { calls++ })
	s.Dispatch(context.Background(), Add{N: 1})
	stop()
	s.Dispatch(context.Background(), Add{N: 1})
	if calls != 1 {
		t.Fatalf("subscriber called %d times, want 1", calls)
	}
	var nilSession *intent.Session[tally, op]
	if _, err := nilSession.Dispatch(context.Background(), Add{}); err != intent.ErrNilSession {
		t.Fatalf("nil session: %v", err)
	}
}

// blocking holds the session's lock inside Reduce until released.
type blocking struct{ entered, release chan struct{} }

func (b blocking) Reduce(s int, in int, _ intent.Effects) (int, error) {
	if in == 0 {
		close(b.entered)
		<-b.release
	}
	return s + 1, nil
}

// A call whose context ends while it waits for another dispatch is not
// applied: its caller was already told it did not run.
func TestCancelledWhileWaiting(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := blocking{entered: make(chan struct{}), release: make(chan struct{})}
	s := intent.NewSession[int, int](b, 0)
	first := make(chan error, 1)
	go func() { _, err := s.Dispatch(context.Background(), 0); first <- err }()
	<-b.entered
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() { _, err := s.Dispatch(ctx, 1); second <- err }()
	cancel()
	close(b.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != context.Canceled {
		t.Fatalf("the waiting call returned %v, want context.Canceled", err)
	}
	if s.State() != 1 {
		t.Fatalf("state %d: the cancelled call was applied", s.State())
	}
}

// ToolsPerEnv gives every deck session its own document, shared by all the
// tools of that session, and refuses calls made outside a session.
func TestToolsPerEnv(t *testing.T) {
	t.Parallel()
	made := 0
	var mu sync.Mutex
	tools := intent.ToolsPerEnv(tallySet(t), func(*tool.Env) intent.Dispatcher[op] {
		mu.Lock()
		made++
		mu.Unlock()
		return newTally()
	})
	add, emit := tools[0], tools[1]
	ctx := context.Background()
	one, two := tool.NewEnv(t.TempDir()), tool.NewEnv(t.TempDir())
	add.Run(ctx, json.RawMessage(`{"n":5}`), one)
	emit.Run(ctx, json.RawMessage(`{"events":[]}`), one)
	res := add.Run(ctx, json.RawMessage(`{"n":1}`), one)
	if string(res.Blocks[0].JSON) != `{"total":6}` {
		t.Fatalf("second add in session one: %+v", res)
	}
	res = add.Run(ctx, json.RawMessage(`{"n":1}`), two)
	if string(res.Blocks[0].JSON) != `{"total":1}` {
		t.Fatalf("session two saw session one's document: %+v", res)
	}
	if made != 2 {
		t.Fatalf("made %d documents for two sessions", made)
	}
	res = add.Run(ctx, json.RawMessage(`{"n":1}`), nil)
	if !res.IsError || !strings.Contains(res.PlainText(), "outside a session") {
		t.Fatalf("a call without an Env: %+v", res)
	}
	// Another ToolsPerEnv call keeps documents of its own in the same Env.
	other := intent.ToolsPerEnv(tallySet(t), func(*tool.Env) intent.Dispatcher[op] { return newTally() })
	if res := other[0].Run(ctx, json.RawMessage(`{"n":1}`), one); string(res.Blocks[0].JSON) != `{"total":1}` {
		t.Fatalf("two tool sets shared a document: %+v", res)
	}
}
