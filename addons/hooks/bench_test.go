package hooks

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/shell"
)

// BenchmarkCommandHook compares a tool call through one PreToolUse hook
// (`true`: exit 0, no reply) with starting `bash -c true` directly. Each
// iteration runs both, alternating which goes first, so a change in load
// hits both sides alike. The target: the hook's cost over the bare call
// stays under one process start plus 1 ms (extra-ns/op under 1e6).
func BenchmarkCommandHook(b *testing.B) {
	dir := b.TempDir()
	env := tool.NewEnv(dir)
	defer env.Close()
	eng := shell.EngineOf(env) // the session's runner: it records each process group it starts
	h, err := New("PreToolUse", "bash", "true", 0)
	if err != nil {
		b.Fatal(err)
	}
	host := addons.NewHost(addons.HostOptions{})
	host.LoadAddon(Addon("bench", []Hook{h}, Options{Dir: dir, Runner: eng, Report: func(f *addons.Fault) { b.Fatal(f) }}))
	noop := &tool.Func{S: tool.Spec{Name: "bash", InputSchema: tool.EmptyObjectSchema()},
		Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Text("ok") }}
	hooked := host.Bundle().Wrap(noop)
	in := json.RawMessage(`{"command":"ls"}`)
	ctx := context.Background()
	direct := func() {
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
	viaHook := func() {
		if r := hooked.Run(ctx, in, nil); r.IsError {
			b.Fatal(r.PlainText())
		}
	}
	var tDirect, tHook time.Duration
	i := 0
	for b.Loop() {
		first, second, t1, t2 := direct, viaHook, &tDirect, &tHook
		if i%2 == 1 {
			first, second, t1, t2 = viaHook, direct, &tHook, &tDirect
		}
		s := time.Now()
		first()
		m := time.Now()
		second()
		*t1 += m.Sub(s)
		*t2 += time.Since(m)
		i++
	}
	b.ReportMetric(float64(tDirect.Nanoseconds())/float64(i), "bash-true-ns/op")
	b.ReportMetric(float64(tHook.Nanoseconds())/float64(i), "hooked-call-ns/op")
	b.ReportMetric(float64((tHook-tDirect).Nanoseconds())/float64(i), "extra-ns/op")
}

