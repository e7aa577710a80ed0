package checklist

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Board is a session's list of items of one kind, replaced wholesale:
// the checklist of todo_read and todo_set, and the todo card's backlog.
// The zero value is an empty list; it is safe for concurrent use.
type Board[T any] struct {
	mu    sync.Mutex
	items []T
}

// Items returns a copy of the list.
func (b *Board[T]) Items() []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.items)
}

// replace makes items the list; they were checked by the caller.
func (b *Board[T]) replace(items []T) {
	b.mu.Lock()
	b.items = slices.Clone(items)
	b.mu.Unlock()
}

// Text is one text of an item, as a list checks it.
type Text struct {
	Name  string // its JSON name: "content"
	Value string
	Hint  string // what to do when it is empty: "say what needs doing"
}

// Rules are what a kind of list checks of a new list besides the bounds
// every list keeps (MaxItems, MaxItemBytes, MaxBytes, no empty text), and
// the words its errors use.
type Rules[T any] struct {
	Array string         // the input's array: "todos", "items"
	Texts func(T) []Text // an item's texts
	// Full and Heavy say that the list is over MaxItems (given the
	// bound and the count) and over MaxBytes (the bound and the index).
	Full, Heavy string
}

// Replace checks items against r and, if they pass, makes them the list.
// each, when not nil, is the kind's own check of items[i], called in order
// after the bounds of that item; it may fill in defaults.
func (b *Board[T]) Replace(items []T, r Rules[T], each func(i int, it *T) error) error {
	if len(items) > MaxItems {
		return fmt.Errorf(r.Full, MaxItems, len(items))
	}
	total := 0
	for i := range items {
		texts := r.Texts(items[i])
		for _, t := range texts {
			if strings.TrimSpace(t.Value) == "" {
				return fmt.Errorf("%s[%d].%s is empty; %s", r.Array, i, t.Name, t.Hint)
			}
		}
		for _, t := range texts {
			if len(t.Value) > MaxItemBytes {
				return fmt.Errorf("%s[%d].%s is %d bytes, over the limit of %d; say it in one or two sentences and keep details in a file", r.Array, i, t.Name, len(t.Value), MaxItemBytes)
			}
			total += len(t.Value)
		}
		if total > MaxBytes {
			return fmt.Errorf(r.Heavy, MaxBytes, i)
		}
		if each != nil {
			if err := each(i, &items[i]); err != nil {
				return err
			}
		}
	}
	b.replace(items)
	return nil
}

// RenderItems draws a list one line per item, or says empty when there is none.
func RenderItems[T any](items []T, empty string, line func(T) string) string {
	if len(items) == 0 {
		return empty
	}
	lines := make([]string, len(items))
	for i, it := range items {
		lines[i] = line(it)
	}
	return strings.Join(lines, "\n")
}
