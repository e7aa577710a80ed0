package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/indusagi/induscode/internal/atomicfile"
	"github.com/indusagi/induscode/tool"
)

// editTool is a stand-in for the real edit tool with its costs: read the
// whole file, replace one string, write the file back atomically (temp
// file, fsync, rename).
func editTool() tool.Tool {
	return changesPath{&tool.Func{
		S: tool.Spec{Name: "edit", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Fn: func(_ context.Context, input json.RawMessage, env *tool.Env) tool.Result {
			var in struct{ Path, Old, New string }
			json.Unmarshal(input, &in)
			p, _ := env.Resolve(in.Path)
			b, err := os.ReadFile(p)
			if err != nil {
				return tool.Errorf("%v", err)
			}
			b = bytes.Replace(b, []byte(in.Old), []byte(in.New), 1)
			if err := atomicfile.WriteFile(p, b, 0o644); err != nil {
				return tool.Errorf("%v", err)
			}
			return tool.Text("edited")
		},
	}}
}

// BenchmarkEdit10MB measures what checkpointing adds to an edit of a 10 MB
// file. Each iteration makes the same edit three ways, in rotating order
// so changes in machine load (fsync times vary a lot) hit all alike: with
// no wrapper, wrapped with the memory store and with the disk store. Every
// edit is a new node with new content, the worst case (nothing is shared);
// nodes are dropped outside the timing so the stores do not grow.
func BenchmarkEdit10MB(b *testing.B) {
	const size = 10 << 20
	line := bytes.Repeat([]byte("x"), 99)
	content := bytes.Repeat(append(line, '\n'), size/100)
	copy(content, "MARK00000000")
	type variant struct {
		name  string
		store Store
		tool  tool.Tool
		env   *tool.Env
		spent time.Duration
	}
	var vs []*variant
	for _, name := range []string{"unwrapped", "memory", "disk"} {
		dir := b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "big.txt"), content, 0o644); err != nil {
			b.Fatal(err)
		}
		v := &variant{name: name, tool: editTool(), env: tool.NewEnv(dir)}
		switch name {
		case "memory":
			v.store = NewMemStore()
		case "disk":
			v.store = ForWorkspace(dir)
		}
		if v.store != nil {
			v.tool = Wrap(v.tool, v.store)
		}
		vs = append(vs, v)
	}
	i := 0
	for b.Loop() {
		in, _ := json.Marshal(map[string]string{"Path": "big.txt", "Old": fmt.Sprintf("MARK%08d", i), "New": fmt.Sprintf("MARK%08d", i+1)})
		node := fmt.Sprint("n", i)
		for k := range vs {
			v := vs[(i+k)%len(vs)]
			start := time.Now()
			if r := v.tool.Run(WithNode(context.Background(), node), in, v.env); r.IsError {
				b.Fatal(r.PlainText())
			}
			v.spent += time.Since(start)
			if v.store != nil {
				v.store.Drop(node)
			}
		}
		i++
	}
	for _, v := range vs {
		b.ReportMetric(float64(v.spent.Microseconds())/1000/float64(i), v.name+"-ms/op")
	}
	b.ReportMetric(float64(vs[1].spent-vs[0].spent)/float64(vs[0].spent), "memory-overhead")
	b.ReportMetric(float64(vs[2].spent-vs[0].spent)/float64(vs[0].spent), "disk-overhead")
}

// BenchmarkRecord10MB is the checkpoint's own cost for a 10 MB file: read
// it, hash it and store it under a new node (the disk store also writes
// the content and the index, each with fsync).
func BenchmarkRecord10MB(b *testing.B) {
	const size = 10 << 20
	for _, name := range []string{"memory", "disk"} {
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "big.txt")
			content := bytes.Repeat([]byte("0123456789abcdef"), size/16)
			var s Store = NewMemStore()
			if name == "disk" {
				s = ForWorkspace(dir)
			}
			b.SetBytes(size)
			i := 0
			for b.Loop() {
				b.StopTimer()
				copy(content, fmt.Sprintf("%016d", i)) // new content: nothing deduplicates
				os.WriteFile(path, content, 0o644)
				f, _ := os.Open(path)
				b.StartTimer()
				if _, _, err := s.Record(fmt.Sprint("n", i), "edit", path, Prior{Exists: true, Content: f, Mode: 0o644}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				f.Close()
				s.Drop(fmt.Sprint("n", i))
				b.StartTimer()
				i++
			}
		})
	}
}
