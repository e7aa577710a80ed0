package tool

import (
	"errors"
	"slices"
	"testing"
)

func TestEnvClose(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	var order []string
	env.OnClose(func() error { order = append(order, "first"); return errors.New("first failed") })
	// A closer registered from Shared's constructor must not deadlock.
	Shared(env, "k", func() int {
		env.OnClose(func() error { order = append(order, "second"); return nil })
		return 1
	})
	err := env.Close()
	if !slices.Equal(order, []string{"second", "first"}) {
		t.Errorf("closers ran as %v, want latest first", order)
	}
	if err == nil || err.Error() != "first failed" {
		t.Errorf("Close error %v", err)
	}
	if err := env.Close(); err != nil || len(order) != 2 {
		t.Errorf("a second Close ran closers again or failed: %v %v", order, err)
	}
	// After Close, a new cleanup runs at once.
	ran := false
	env.OnClose(func() error { ran = true; return nil })
	if !ran {
		t.Errorf("OnClose after Close did not run the cleanup")
	}
}
