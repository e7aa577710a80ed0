package openai

import (
	"runtime"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// deltas returns the chunks of one write call whose arguments (size
// bytes) arrive in pieces of n bytes, as a server streams them.
func deltas(size, n int) []openai.ChatCompletionChunk {
	args := `{"path":"big.txt","content":"` + strings.Repeat("x", size) + `"}`
	var out []openai.ChatCompletionChunk
	out = append(out, openai.ChatCompletionChunk{ID: "c", Choices: []openai.ChatCompletionChunkChoice{{Delta: openai.ChatCompletionChunkChoiceDelta{
		ToolCalls: []openai.ChatCompletionChunkChoiceDeltaToolCall{{ID: "call_1", Function: openai.ChatCompletionChunkChoiceDeltaToolCallFunction{Name: "write"}}}}}}})
	for i := 0; i < len(args); i += n {
		piece := args[i:min(i+n, len(args))]
		out = append(out, openai.ChatCompletionChunk{ID: "c", Choices: []openai.ChatCompletionChunkChoice{{Delta: openai.ChatCompletionChunkChoiceDelta{
			ToolCalls: []openai.ChatCompletionChunkChoiceDeltaToolCall{{Function: openai.ChatCompletionChunkChoiceDeltaToolCallFunction{Arguments: piece}}}}}}})
	}
	return out
}

func accumulate(chunks []openai.ChatCompletionChunk) int {
	var a chatAccumulator
	for _, ch := range chunks {
		a.add(ch, nil)
	}
	return len(a.response().Message.ToolUses()[0].Input)
}

// The bytes a long call's arguments cost grow with their size, not with
// its square: 256 KB in 4-byte deltas allocated gigabytes when each
// delta was added to a string.
func TestLongArgumentsAllocateLinearly(t *testing.T) {
	allocated := func(size int) uint64 {
		chunks := deltas(size, 4)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if n := accumulate(chunks); n < size {
			t.Fatalf("arguments of %d bytes came out as %d", size, n)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := allocated(64<<10), allocated(256<<10)
	t.Logf("64 KB: %d bytes allocated; 256 KB: %d", small, large)
	if large > 16*(256<<10) || large > 8*small {
		t.Errorf("256 KB of arguments allocated %d bytes (64 KB: %d): not linear", large, small)
	}
}

// BenchmarkWriteCallInSmallDeltas accumulates a 1 MB write call streamed
// in 4-byte deltas; read its allocations (B/op, allocs/op), not its time:
//
//	go test -run '^$' -bench WriteCallInSmallDeltas -benchmem ./provider/openai/
func BenchmarkWriteCallInSmallDeltas(b *testing.B) {
	chunks := deltas(1<<20, 4)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		accumulate(chunks)
	}
}
