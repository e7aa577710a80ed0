package lsp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// module100 is a Go module of 100 files in 10 packages, each file calling
// into the package before it, so that a change is checked against real
// dependencies.
func module100() map[string]string {
	files := map[string]string{"go.mod": "module example.com/big\n\ngo 1.22\n"}
	for p := range 10 {
		for f := range 10 {
			imp, call := "", ""
			if p > 0 {
				imp = fmt.Sprintf("import \"example.com/big/p%d\"\n\n", p-1)
				call = fmt.Sprintf("\tn += p%d.F%d_0(n)\n", p-1, f)
			}
			files[fmt.Sprintf("p%d/f%d.go", p, f)] = fmt.Sprintf(
				"package p%d\n\n%s// F%d_0 adds.\nfunc F%d_0(n int) int {\n%s\treturn n + %d\n}\n\n// F%d_1 doubles.\nfunc F%d_1(s string) string { return s + s }\n",
				p, imp, f, f, call, f, f, f)
		}
	}
	return files
}

// BenchmarkEditWithDiagnostics is an edit through the diagnosing edit tool
// on a warm gopls in a 100-file module, alternately breaking and fixing
// the build; it reports the median and 90th percentile of one edit.
//
//	go test -run '^$' -bench EditWithDiagnostics -benchtime 40x ./tools/lsp/
func BenchmarkEditWithDiagnostics(b *testing.B) {
	bin := gopls(b)
	r := newRig(b, "go", Server{Command: bin, Filetypes: []string{".go"}}, module100())
	const good, bad = "return n + 5\n", "return n + \"five\"\n"
	// Warm: the server loads the module and checks the file once.
	r.editAndDiagnose(b, "p9/f5.go", good, bad)
	r.editAndDiagnose(b, "p9/f5.go", bad, good)
	var took []time.Duration
	old, new := good, bad
	for b.Loop() {
		start := time.Now()
		text := r.editAndDiagnose(b, "p9/f5.go", old, new)
		took = append(took, time.Since(start))
		if (new == bad) != strings.Contains(text, ": error:") {
			b.Fatalf("edit to %q gave:\n%s", new, text)
		}
		old, new = new, old
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "p90-ms")
}
