//go:build unix

package conductor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
)

// Three task calls of one message run at once: each subagent starts a
// long command, and all three are running together (a serial run would
// never start the second). Cancelling the parent then stops the three
// subagents and their processes.
func TestParallelSubagentsRunTogetherAndStopWithParent(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t)
	which := regexp.MustCompile(`child-(\d)`)
	srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
		w := readWire(t, r)
		if w.parent() {
			return fakemodel.Call(
				"task", `{"objective":"You are child-1."}`,
				"task", `{"objective":"You are child-2.","agent":"general-purpose"}`,
				"task", `{"objective":"You are child-3."}`)
		}
		k := which.FindStringSubmatch(w.body)[1]
		return fakemodel.Call("bash", `{"command":"echo $$ > pid-`+k+`.tmp && mv pid-`+k+`.tmp pid-`+k+` && exec sleep 300"}`)
	})
	c := open(t, dir, srv, conductor.Options{Mode: conductor.BypassPermissions})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type ran struct {
		res *conductor.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := c.Run(ctx, "fan out")
		done <- ran{res, err}
	}()
	var pids []int
	deadline := time.Now().Add(60 * time.Second)
	for k := 1; k <= 3; k++ {
		path := filepath.Join(dir, "pid-"+strconv.Itoa(k))
		for {
			b, err := os.ReadFile(path)
			if err == nil {
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				pids = append(pids, pid)
				break
			}
			if time.Now().After(deadline) {
				cancel()
				<-done
				t.Fatalf("subagent %d never started its command while the others ran: the task calls did not run together", k)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	cancel()
	r := <-done
	if r.err != nil || r.res.Subtype != conductor.Cancelled {
		t.Fatalf("run: %v %+v, want a cancelled result", r.err, r.res)
	}
	for _, pid := range pids {
		for {
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("process %d of a subagent outlived the cancelled parent", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if got := r.res.Subagents; got.Runs != 3 || got.Failed != 3 {
		t.Errorf("subagent stats %+v, want 3 runs, all stopped", got)
	}
}

// At most ParallelSubagents run at once: with a bound of one, the second
// subagent starts only after the first has answered.
func TestSubagentsBounded(t *testing.T) {
	dir := t.TempDir()
	srv := fakemodel.Start(t)
	release := make(chan struct{})
	srv.Respond(func(n int, r fakemodel.Request) fakemodel.Reply {
		w := readWire(t, r)
		switch {
		case w.parent() && w.msgs == 1:
			return fakemodel.Call("task", `{"objective":"first"}`, "task", `{"objective":"second"}`)
		case w.parent():
			return fakemodel.Say("both done")
		case strings.Contains(w.body, "first"):
			return fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("first done")}, Hold: release}
		}
		return fakemodel.Say("second done")
	})
	c := open(t, dir, srv, conductor.Options{ParallelSubagents: 1})
	done := make(chan *conductor.Result, 1)
	go func() {
		res, _ := c.Run(context.Background(), "two")
		done <- res
	}()
	<-srv.Arrived(2) // the parent's call and one subagent's
	select {
	case <-srv.Arrived(3):
		t.Error("a second subagent started while the bound of one was taken")
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	if res := <-done; res == nil || res.IsError || res.Subagents.Runs != 2 {
		t.Errorf("result %+v", res)
	}
}
