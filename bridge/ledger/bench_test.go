package ledger

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/indusagi/induscode/tool"
)

// benchSchema is the size of a typical MCP tool schema (server-everything's
// get-sum, as it arrives).
const benchSchema = `{"type":"object","properties":{"a":{"type":"number","description":"First number"},"b":{"type":"number","description":"Second number"}},"required":["a","b"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`

// benchLog builds a log of n events over 100 servers and the given number of
// distinct tools: three enrolls to one retire, in append order or shuffled.
func benchLog(n, tools int, shuffle bool) []Entry {
	r := rand.New(rand.NewPCG(1, 2))
	caps := make([]tool.Tool, tools)
	keys := make([]Key, len(caps))
	for i := range caps {
		name := fmt.Sprintf("srv%d__tool%d", i%100, i)
		caps[i] = &tool.Func{S: tool.Spec{Name: name, Description: "A tool.", InputSchema: json.RawMessage(benchSchema)}}
		keys[i] = ContentKey(name, json.RawMessage(benchSchema))
	}
	log := make([]Entry, n)
	for i := range log {
		c := r.IntN(len(caps))
		e := Entry{Op: Enroll, Key: keys[c], Server: fmt.Sprintf("srv%d", c%100), Capability: caps[c], Seq: uint64(i + 1), At: at}
		if r.IntN(4) == 0 {
			e.Op, e.Capability = Retire, nil
		}
		log[i] = e
	}
	if shuffle {
		r.Shuffle(len(log), func(i, j int) { log[i], log[j] = log[j], log[i] })
	}
	return log
}

// BenchmarkReduce1M folds a shuffled log of 1,000,000 events: the worst
// case, where every event is a cache miss.
func BenchmarkReduce1M(b *testing.B) {
	log := benchLog(1_000_000, 5000, true)
	b.ResetTimer()
	for b.Loop() {
		if s := Reduce(log); s.HighWater() != 1_000_000 {
			b.Fatal("bad fold")
		}
	}
}

// BenchmarkReplay100k reads a 100,000-line log file (35 MB) of 500 distinct
// tools, a workspace's history of sessions mounting a large fleet, and
// rebuilds the ledger.
func BenchmarkReplay100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ledger.jsonl")
	f, _, _, err := OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	log := benchLog(100_000, 500, false)
	if err := f.Append(log); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ResetTimer()
	for b.Loop() {
		entries, warnings, err := ReadLog(path)
		if err != nil || len(warnings) > 0 || len(entries) != 100_000 {
			b.Fatal(err, warnings)
		}
		if l := FromLog(entries); l.NextSeq() != 100_001 {
			b.Fatal("bad replay")
		}
	}
}

// BenchmarkEnroll measures one live enroll on a ledger of 200 tools.
func BenchmarkEnroll(b *testing.B) {
	l := Empty()
	for i := range 200 {
		l = l.Enroll(EnrollRequest{Capability: &tool.Func{S: tool.Spec{Name: fmt.Sprintf("s__t%d", i), InputSchema: json.RawMessage(benchSchema)}}, Server: "s"}, at)
	}
	c := &tool.Func{S: tool.Spec{Name: "s__t0", InputSchema: json.RawMessage(benchSchema)}}
	for b.Loop() {
		l = l.Enroll(EnrollRequest{Capability: c, Server: "s"}, at)
	}
}
