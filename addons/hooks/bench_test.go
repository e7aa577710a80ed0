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
// (`true`: exit 0, no reply) with starting `bash -c true` directly, and
// with the session's shell engine running `true` (the process group, its
// record, the pipes: what every hook run pays before any hook logic).
// Each iteration runs all three, rotating which goes first, so a change in
// load hits them alike. The target: the hooked call costs at most one
// process start plus 1 ms (extra-ns/op under 1e6).
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
	viaEngine := func() {
		if r, err := eng.Exec(ctx, "true", nil, dir, 0); err != nil || r.Code != 0 {
			b.Fatal(r, err)
		}
	}
	// Three sides, rotated so each goes first as often as the others.
	sides := []func(){direct, viaEngine, viaHook}
	var took [3]time.Duration
	i := 0
	for b.Loop() {
		for k := range sides {
			j := (i + k) % len(sides)
			s := time.Now()
			sides[j]()
			took[j] += time.Since(s)
		}
		i++
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(i) }
	b.ReportMetric(per(took[0]), "bash-true-ns/op")
	b.ReportMetric(per(took[1]), "engine-exec-ns/op")
	b.ReportMetric(per(took[2]), "hooked-call-ns/op")
	b.ReportMetric(per(took[2]-took[0]), "extra-ns/op")
}
