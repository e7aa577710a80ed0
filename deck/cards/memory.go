package cards

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/indusagi/induscode/tool"
)

// MemoryStore keeps the working memory of the memory card: one text the
// agent reads, replaces or appends to.
type MemoryStore interface {
	Read(ctx context.Context) (string, error)
	Replace(ctx context.Context, text string) error
	Append(ctx context.Context, text string) error
}

// MaxMemory bounds the memory text. Memory is re-read into the model's
// context, so it is meant for notes, not documents; 64 KiB is about
// 16,000 tokens.
const MaxMemory = 64 << 10

// errTooLarge is returned by stores when a change would pass MaxMemory.
func errTooLarge(n int) error {
	return fmt.Errorf("memory would grow to %d bytes, over the %d-byte limit; replace it with a shorter summary", n, MaxMemory)
}

// InMemoryStore is a MemoryStore in process memory: it lasts as long as
// the value does.
type InMemoryStore struct {
	mu   sync.Mutex
	text string
}

var _ MemoryStore = (*InMemoryStore)(nil)

// Read returns the text.
func (m *InMemoryStore) Read(context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.text, nil
}

// Replace sets the text.
func (m *InMemoryStore) Replace(_ context.Context, text string) error {
	if len(text) > MaxMemory {
		return errTooLarge(len(text))
	}
	m.mu.Lock()
	m.text = text
	m.mu.Unlock()
	return nil
}

// Append adds text on a line of its own.
func (m *InMemoryStore) Append(_ context.Context, text string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	next := appendLine(m.text, text)
	if len(next) > MaxMemory {
		return errTooLarge(len(next))
	}
	m.text = next
	return nil
}

// appendLine joins text to cur so that it starts on a new line.
func appendLine(cur, text string) string {
	if cur != "" && !strings.HasSuffix(cur, "\n") {
		cur += "\n"
	}
	return cur + text
}

type memoryKey struct{}

type memoryInput struct {
	Action string  `json:"action" jsonschema:"read, replace or append."`
	Text   *string `json:"text,omitempty" jsonschema:"replace: the new memory (\"\" clears it). append: the note to add on a line of its own."`
}

// Memory returns the memory card over store; a nil store means an
// in-process store per session.
func Memory(store MemoryStore) tool.Tool {
	desc := "Your working memory: short notes that should survive across steps of a long task (decisions taken, " +
		"facts learned, where you left off). action=read returns it; action=append adds a note on its own line; " +
		"action=replace rewrites it whole (use it to condense). Keep it short: it is limited to 64 KiB."
	if store == nil {
		desc += " It lasts for this session only."
	}
	return tool.Must(tool.New(tool.Spec{Name: "memory", Label: "Working memory", Description: desc},
		func(ctx context.Context, in memoryInput, env *tool.Env) tool.Result {
			s := store
			if s == nil {
				s = tool.Shared(env, memoryKey{}, func() MemoryStore { return new(InMemoryStore) })
			}
			switch in.Action {
			case "read":
				text, err := s.Read(ctx)
				if err != nil {
					return tool.Errorf("memory: cannot read it: %v", err)
				}
				if text == "" {
					return tool.Text("Memory is empty.")
				}
				return tool.Text(text)
			case "replace":
				if in.Text == nil {
					return tool.Errorf(`memory action=replace needs text: the whole new memory ("" clears it)`)
				}
				if err := s.Replace(ctx, *in.Text); err != nil {
					return tool.Errorf("memory not changed: %v", err)
				}
				return tool.Textf("Memory replaced (%d bytes).", len(*in.Text))
			case "append":
				if in.Text == nil || strings.TrimSpace(*in.Text) == "" {
					return tool.Errorf("memory action=append needs text: the note to add")
				}
				if err := s.Append(ctx, *in.Text); err != nil {
					return tool.Errorf("memory not changed: %v", err)
				}
				return tool.Text("Note appended to memory.")
			}
			return tool.Errorf("memory: unknown action %q; use read, replace or append", in.Action)
		}, memorySchema))
}

// memorySchema is a package value: the card is built per deck, the schema
// once.
var memorySchema = tool.WithSchema(func(s *jsonschema.Schema) {
	tool.SetEnum(s, "action", "read", "replace", "append")
	tool.NotNull(s, "text")
})
