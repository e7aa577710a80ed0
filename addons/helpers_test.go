package addons

import (
	"context"
	"encoding/json"
	"os"
	"sync"

	"github.com/indusagi/induscode/tool"
)

// faultLog collects the faults a host reports.
type faultLog struct {
	mu sync.Mutex
	fs []*Fault
}

func (l *faultLog) add(f *Fault) { l.mu.Lock(); l.fs = append(l.fs, f); l.mu.Unlock() }
func (l *faultLog) all() []*Fault {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Fault(nil), l.fs...)
}

// scripted is a loader that serves addons from a table, with no disk.
type scripted map[string]*Addon

func (s scripted) Load(_ context.Context, path string) (*Addon, error) {
	if a, ok := s[path]; ok {
		return a, nil
	}
	return nil, os.ErrNotExist
}

// echoTool returns its input as text.
func echoTool(name string) tool.Tool {
	return &tool.Func{S: tool.Spec{Name: name, InputSchema: tool.EmptyObjectSchema()},
		Fn: func(_ context.Context, in json.RawMessage, _ *tool.Env) tool.Result { return tool.Text(string(in)) }}
}
