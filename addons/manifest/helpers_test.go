package manifest

import (
	"context"
	"os"
	"sync"

	"github.com/indusagi/induscode/addons"
)

// scripted is a loader that serves addons from a table, with no disk.
type scripted map[string]*addons.Addon

func (s scripted) Load(_ context.Context, path string) (*addons.Addon, error) {
	if a, ok := s[path]; ok {
		return a, nil
	}
	return nil, os.ErrNotExist
}

// faultLog collects the faults a host reports.
type faultLog struct {
	mu sync.Mutex
	fs []*addons.Fault
}

func (l *faultLog) add(f *addons.Fault) { l.mu.Lock(); l.fs = append(l.fs, f); l.mu.Unlock() }
func (l *faultLog) all() []*addons.Fault {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*addons.Fault(nil), l.fs...)
}
