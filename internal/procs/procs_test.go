package procs

import "testing"

// Wide calls the installed governor and ends what it lifted; with none
// installed it does nothing. Removing a governor that another replaced
// leaves the newer one in place.
func TestWideCallsTheGovernor(t *testing.T) {
	Wide()() // no governor: a no-op

	var lifted, ended int
	remove := Govern(func() func() {
		lifted++
		return func() { ended++ }
	})
	end := Wide()
	if lifted != 1 || ended != 0 {
		t.Fatalf("after Wide: lifted %d, ended %d; want 1, 0", lifted, ended)
	}
	end()
	if ended != 1 {
		t.Fatalf("after end: ended %d, want 1", ended)
	}
	remove()
	Wide()()
	if lifted != 1 {
		t.Fatal("a removed governor was called")
	}

	var newer int
	removeOld := Govern(func() func() { return func() {} })
	removeNew := Govern(func() func() { newer++; return func() {} })
	removeOld()
	Wide()()
	if newer != 1 {
		t.Fatal("removing a replaced governor removed its replacement")
	}
	removeNew()
}
