package deck_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/deck/checkpoint"
	"github.com/indusagi/induscode/tool"
)

// The shell rows sit in their spec positions: bash and process after edit
// and before todo_set among the built-ins, bg-process second among the app
// cards and only in All.
func TestShellRowsInSpecOrder(t *testing.T) {
	t.Parallel()
	builtinOrder := []string{"read", "ls", "grep", "find", "websearch", "webfetch", "todo_read", "write", "edit", "bash", "process", "todo_set"}
	appOrder := []string{"todo", "bg-process", "task", "saas-action", "memory", "enter_plan_mode", "exit_plan_mode"}
	ids := deck.IDs()
	pos := func(order []string, id string) int { return slices.Index(order, id) }
	var builtins, apps []string
	for _, id := range ids {
		switch {
		case pos(builtinOrder, id) >= 0:
			builtins = append(builtins, id)
		case pos(appOrder, id) >= 0:
			apps = append(apps, id)
		default:
			t.Errorf("catalog id %q is in neither spec table", id)
		}
	}
	if !slices.IsSortedFunc(builtins, func(a, b string) int { return pos(builtinOrder, a) - pos(builtinOrder, b) }) {
		t.Errorf("built-ins out of spec order: %v", builtins)
	}
	if !slices.IsSortedFunc(apps, func(a, b string) int { return pos(appOrder, a) - pos(appOrder, b) }) {
		t.Errorf("app cards out of spec order: %v", apps)
	}
	if len(builtins) > 0 && len(apps) > 0 && slices.Index(ids, apps[0]) < slices.Index(ids, builtins[len(builtins)-1]) {
		t.Errorf("an app card precedes a built-in: %v", ids)
	}
	for id, want := range map[string][]deck.Profile{
		"bash":       {deck.Survey},
		"process":    {deck.Survey},
		"bg-process": {deck.All},
	} {
		got, ok := deck.ProfilesOf(id)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("%s: profiles %v, want %v", id, got, want)
		}
	}
}

// With a checkpoint store only write and edit are wrapped (the catalog's
// tool.FileChangers); without one no tool is.
func TestProvisionWrapsOnlyFileChangers(t *testing.T) {
	t.Parallel()
	type unwrapper interface{ Unwrap() tool.Tool }
	for _, store := range []checkpoint.Store{nil, checkpoint.NewMemStore()} {
		d, err := deck.Provision(deck.All, deck.Setup{Dir: t.TempDir(), Framework: deck.Framework{Checkpoints: store}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range d.Tools() {
			// Every deck tool is under the Box's watcher; a checkpointed
			// one has the checkpoint wrapper inside that.
			layers := 0
			for u, ok := tl.(unwrapper); ok; u, ok = u.Unwrap().(unwrapper) {
				layers++
			}
			wrapped := layers == 2
			want := store != nil && slices.Contains([]string{"write", "edit"}, tl.Spec().Name)
			if wrapped != want {
				t.Errorf("store %T: %s wrapped = %v, want %v", store, tl.Spec().Name, wrapped, want)
			}
		}
		d.Close()
	}
}

// Closing a deck stops every process its tools started: background ones
// and a foreground command whose call was abandoned.
func TestDeckCloseKillsEverything(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	d, err := deck.Provision(deck.All, deck.Setup{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	box := d.Box()
	ctx := context.Background()
	run := func(name, in string) string {
		t.Helper()
		r := box.Run(ctx, name, json.RawMessage(in))
		if r.IsError {
			t.Fatalf("%s %s: %s", name, in, r.PlainText())
		}
		return r.PlainText()
	}
	var pids []int
	for _, name := range []string{"process", "bg-process"} {
		out := run(name, `{"action":"start","command":"trap '' TERM; echo $$ >> pids; sleep 300"}`)
		var pid int
		fmt.Sscanf(out[strings.Index(out, "(pid ")+5:], "%d", &pid)
		pids = append(pids, pid)
	}
	// A bash call abandoned by its caller keeps running until the deck
	// closes. The call is abandoned only once its shell has set its trap and
	// written its pid, so a slow start cannot make the test fail.
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	result := make(chan tool.Result, 1)
	go func() {
		result <- box.Run(callCtx, "bash", json.RawMessage(`{"command":"trap '' TERM; echo $$ >> pids; sleep 300"}`))
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(dir, "pids"))
		if strings.Count(string(b), "\n") == 3 {
			for _, f := range strings.Fields(string(b)) {
				n, _ := strconv.Atoi(f)
				pids = append(pids, n)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pids file: %q", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if r := <-result; !r.IsError {
		t.Fatalf("the abandoned call should report its cancellation: %s", r.PlainText())
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	// Every process has been killed; the kernel may need a moment to
	// finish tearing one down.
	for _, pid := range pids {
		for deadline := time.Now().Add(2 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("process %d survived the deck", pid)
				break
			}
		}
	}
	if r := box.Run(ctx, "process", json.RawMessage(`{"action":"start","command":"true"}`)); !r.IsError {
		t.Errorf("a start after Close should fail: %s", r.PlainText())
	}
	if err := d.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	state := s[strings.LastIndexByte(s, ')')+2]
	return state != 'Z' && state != 'X'
}
