package shell

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/indusagi/induscode/tool"
)

// BenchmarkBashTrue compares the bash tool running `true` with running
// `bash -c true` directly. Each iteration runs both, alternating which
// goes first, so a change in machine load hits both sides alike; the
// reported ratio is tool time over direct time (target: at most 1.5).
func BenchmarkBashTrue(b *testing.B) {
	sh := shellPath()
	env := tool.NewEnv(b.TempDir())
	defer env.Close()
	bash := BashTool()
	in := json.RawMessage(`{"command":"true"}`)
	ctx := context.Background()
	direct := func() {
		if err := exec.Command(sh, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
	viaTool := func() {
		if r := bash.Run(ctx, in, env); r.IsError {
			b.Fatal(text(r))
		}
	}
	var tDirect, tTool time.Duration
	i := 0
	for b.Loop() {
		first, second, t1, t2 := direct, viaTool, &tDirect, &tTool
		if i%2 == 1 {
			first, second, t1, t2 = viaTool, direct, &tTool, &tDirect
		}
		s := time.Now()
		first()
		m := time.Now()
		second()
		*t1 += m.Sub(s)
		*t2 += time.Since(m)
		i++
	}
	b.ReportMetric(float64(tDirect.Nanoseconds())/float64(i), "direct-ns/op")
	b.ReportMetric(float64(tTool.Nanoseconds())/float64(i), "tool-ns/op")
	b.ReportMetric(float64(tTool)/float64(tDirect), "tool/direct")
}
