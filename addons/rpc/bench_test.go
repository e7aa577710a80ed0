package rpc

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/tool"
)

// BenchmarkGateRoundTrip is one tool:before gate answered by the Go
// example addon (examples/addons/go-gate) around a no-op bash tool: the
// host encodes the payload, writes a line, the addon decides, the host
// reads the answer. It reports the median and the 99th percentile.
func BenchmarkGateRoundTrip(b *testing.B) {
	ws := b.TempDir()
	dir := filepath.Join(ws, ".indus", "addons", "go-gate")
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "go-gate"), "../../examples/addons/go-gate").CombinedOutput(); err != nil {
		b.Fatalf("building the Go example addon: %v\n%s", err, out)
	}
	m, err := os.ReadFile("../../examples/addons/go-gate/manifest.toml")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.toml"), m, 0o644); err != nil {
		b.Fatal(err)
	}
	var h *addons.Host
	l := NewLoader(Options{Workspace: ws, Report: func(f *addons.Fault) { h.Report(f) }})
	defer l.Close()
	h = addons.NewHost(addons.HostOptions{Loader: l})
	bundle := h.LoadAll(context.Background(), addons.Discovery{Workspace: ws})
	if fs := h.Faults(); len(fs) > 0 {
		b.Fatal(fs[0])
	}
	bash := bundle.Wrap(&tool.Func{S: tool.Spec{Name: "bash", InputSchema: tool.EmptyObjectSchema()},
		Fn: func(context.Context, json.RawMessage, *tool.Env) tool.Result { return tool.Text("ok") }})
	input := json.RawMessage(`{"command":"go test ./..."}`)
	env := &tool.Env{}
	ctx := context.Background()
	if r := bash.Run(ctx, input, env); r.IsError {
		b.Fatal(r.PlainText())
	}
	took := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		if r := bash.Run(ctx, input, env); r.IsError {
			b.Fatal(r.PlainText())
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}
