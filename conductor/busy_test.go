package conductor_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/internal/fakemodel"
)

// While a Run goes on, a UI's commands neither race with it nor corrupt
// the conversation: Compact and a second Run are refused with ErrBusy,
// Messages shows the conversation as of the last turn, SetModel and
// SendMessage take effect at the next model call.
func TestCommandsDuringRun(t *testing.T) {
	dir := t.TempDir()
	hold := make(chan struct{})
	srv := fakemodel.Start(t,
		fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("ls", `{}`)}, Hold: hold},
		fakemodel.Say("done"))
	c := open(t, dir, srv, conductor.Options{})
	type outcome struct {
		res *conductor.Result
		err error
	}
	ran := make(chan outcome, 1)
	go func() {
		res, err := c.Run(context.Background(), "list the files")
		ran <- outcome{res, err}
	}()
	select {
	case <-srv.Arrived(1):
	case <-time.After(time.Minute):
		t.Fatal("the first model call never came")
	}

	// Readers hammer Messages while the run appends.
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, m := range c.Messages() {
					_ = m.Text()
				}
			}
		}()
	}

	if err := c.Compact(context.Background()); !errors.Is(err, conductor.ErrBusy) {
		t.Errorf("Compact during a run: %v, want ErrBusy", err)
	}
	if _, err := c.Run(context.Background(), "another"); !errors.Is(err, conductor.ErrBusy) {
		t.Errorf("a second Run during a run: %v, want ErrBusy", err)
	}
	other := "anthropic/claude-haiku-4-5"
	if err := c.SetModel(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	if err := c.SendMessage(context.Background(), "also say hello"); err != nil {
		t.Fatal(err)
	}
	close(hold)
	var o outcome
	select {
	case o = <-ran:
	case <-time.After(time.Minute):
		t.Fatal("the run did not end")
	}
	close(stop)
	readers.Wait()
	if o.err != nil || o.res.IsError || o.res.Text != "done" {
		t.Fatalf("run: %+v %v", o.res, o.err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	if got := reqs[1].Model(); !strings.Contains(other, got) {
		t.Errorf("the call after SetModel used %q, want %s", got, other)
	}
	if !strings.Contains(string(reqs[1].Body), "also say hello") {
		t.Errorf("the message sent during the run did not reach the next call")
	}
	if n := len(c.Messages()); n != 4 {
		t.Errorf("after the run, Messages holds %d messages, want 4", n)
	}
	if err := c.Compact(context.Background()); errors.Is(err, conductor.ErrBusy) {
		t.Errorf("Compact after the run is still busy: %v", err)
	}
}
