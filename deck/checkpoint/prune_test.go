package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Prune drops nodes past the age limit, then the oldest until the stored
// content fits the size limit, and frees their content on disk.
func TestPrune(t *testing.T) {
	t.Parallel()
	now := time.Now()
	cases := []struct {
		name     string
		maxAge   time.Duration
		maxBytes int64
		want     []string // the nodes left
	}{
		{"defaults keep a fresh history", 0, 0, []string{"n0", "n1", "n2", "n3"}},
		{"age", 36 * time.Hour, 0, []string{"n2", "n3"}},
		{"size", 0, 2500, []string{"n2", "n3"}},
		{"size never drops the newest", 0, 1, []string{"n3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := ForWorkspace(dir)
			for i := range 4 {
				content := strings.Repeat(fmt.Sprint(i), 1000)
				if _, _, err := s.Record(fmt.Sprint("n", i), "edit", filepath.Join(dir, fmt.Sprint("f", i)), prior(content)); err != nil {
					t.Fatal(err)
				}
			}
			// Age the first two nodes by two and three days.
			st, _ := s.load()
			for i := range st.x.Nodes[:2] {
				st.x.Nodes[i].Time = now.Add(-time.Duration(72-24*i) * time.Hour)
			}
			if err := s.compact(&st); err != nil {
				t.Fatal(err)
			}
			p, err := s.Prune(c.maxAge, c.maxBytes, now)
			if err != nil {
				t.Fatal(err)
			}
			nodes, _ := s.Nodes()
			var got []string
			for _, n := range nodes {
				got = append(got, n.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("left %v, want %v", got, c.want)
			}
			if p.Nodes != 4-len(c.want) || p.Bytes != int64(1000*(4-len(c.want))) {
				t.Errorf("pruned %+v", p)
			}
			blobs, _ := os.ReadDir(filepath.Join(s.Dir(), blobsName))
			if len(blobs) != len(c.want) {
				t.Errorf("%d blobs on disk for %d nodes", len(blobs), len(c.want))
			}
		})
	}
}
