package deck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/tool"
	"github.com/indusagi/induscode/tools/files"
)

// BenchmarkEdit10MBVsSed compares the real edit tool on a 10 MB file,
// checkpointed in the workspace's disk store as the CLI does, with what a
// shell user would run: sed -i, then one fsync of the file. Each
// iteration does both, in rotating order, on two copies of the file, so
// swings in machine load (fsync times vary a lot) hit both alike. Every
// edit is a node of its own with new content; the read gate's hash is
// what lets the store skip the prior content it already holds.
//
//	go test -run '^$' -bench Edit10MBVsSed -benchtime 40x ./deck/
func BenchmarkEdit10MBVsSed(b *testing.B) {
	if _, err := exec.LookPath("sed"); err != nil {
		b.Skip("no sed")
	}
	const size = 10 << 20
	line := bytes.Repeat([]byte("x"), 99)
	content := bytes.Repeat(append(line, '\n'), size/100)
	copy(content, "MARK00000000")
	dir := b.TempDir()
	ours, theirs := filepath.Join(dir, "edit.txt"), filepath.Join(dir, "sed.txt")
	for _, p := range []string{ours, theirs} {
		if err := os.WriteFile(p, content, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	env := tool.NewEnv(dir)
	edit := checkpoint.Wrap(files.EditTool(), checkpoint.ForWorkspace(dir))
	if os.Getenv("UNWRAPPED") != "" {
		edit = files.EditTool()
	}
	read, _ := json.Marshal(map[string]any{"path": "edit.txt", "limit": 1})
	if r := files.ReadTool().Run(context.Background(), read, env); r.IsError {
		b.Fatal(r.PlainText())
	}
	var spentEdit, spentSed time.Duration
	var edits, seds []time.Duration
	i := 0
	runEdit := func() {
		in, _ := json.Marshal(map[string]any{"path": "edit.txt", "old_string": fmt.Sprintf("MARK%08d", i), "new_string": fmt.Sprintf("MARK%08d", i+1)})
		start := time.Now()
		if r := edit.Run(checkpoint.WithNode(context.Background(), fmt.Sprint("n", i)), in, env); r.IsError {
			b.Fatal(r.PlainText())
		}
		edits = append(edits, time.Since(start))
		spentEdit += time.Since(start)
	}
	runSed := func() {
		start := time.Now()
		if out, err := exec.Command("sed", "-i", fmt.Sprintf("s/MARK%08d/MARK%08d/", i, i+1), theirs).CombinedOutput(); err != nil {
			b.Fatalf("sed: %v %s", err, out)
		}
		f, err := os.Open(theirs)
		if err != nil {
			b.Fatal(err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		seds = append(seds, time.Since(start))
		spentSed += time.Since(start)
	}
	for b.Loop() {
		if i%2 == 0 {
			runEdit()
			runSed()
		} else {
			runSed()
			runEdit()
		}
		i++
	}
	b.ReportMetric(float64(spentEdit.Microseconds())/1000/float64(i), "edit-ms/op")
	b.ReportMetric(float64(spentSed.Microseconds())/1000/float64(i), "sed+fsync-ms/op")
	b.ReportMetric(float64(spentEdit)/float64(spentSed), "ratio")
	// The median of the per-iteration ratios: each pair ran back to back,
	// so it is the figure least moved by other load on the machine.
	ratios := make([]float64, len(edits))
	for k := range edits {
		ratios[k] = float64(edits[k]) / float64(seds[k])
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
}
