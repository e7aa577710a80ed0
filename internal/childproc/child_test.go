//go:build unix

package childproc

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/childlog"
)

// A supervised child with stdio: its start and stderr reach its log, its
// stdout reaches the reader given, Stop escalates past a child that
// ignores its stdin closing and SIGTERM, and Ended runs before Done.
func TestChildStopsAndDrains(t *testing.T) {
	t.Parallel()
	log, _ := childlog.Open("", "sh", "host")
	ward := NewWard("")
	defer ward.Close()
	cmd := exec.Command("sh", "-c", "trap '' TERM; echo oops >&2; echo ready; sleep 30 & wait; sleep 30")
	lines := make(chan string, 4)
	var ended string
	c, err := Start(cmd, Options{
		Ward: ward,
		Log:  log,
		Stdio: func(_, stdout *os.File) <-chan struct{} {
			done := make(chan struct{})
			go func() {
				defer close(done)
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					lines <- sc.Text()
				}
			}()
			return done
		},
		Ended: func(c *Child) { ended = ExitText(c.Err()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := <-lines; got != "ready" {
		t.Fatalf("stdout = %q, want ready", got)
	}
	c.Stop()
	if ended != "signal: killed" {
		t.Errorf("Ended saw %q, want signal: killed (SIGTERM is ignored)", ended)
	}
	got := log.Lines(10, "")
	if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "host: started sh -c ") }) ||
		!slices.Contains(got, "stderr: oops") {
		t.Errorf("log = %q; want the start and the stderr line", got)
	}
}

// A child that exits on its own gives its status, and what it left in its
// group is killed by the Tidy that runs before the reaping.
func TestChildTidyRunsBeforeReaping(t *testing.T) {
	t.Parallel()
	ward := NewWard("")
	defer ward.Close()
	tidied := make(chan bool, 1)
	c, err := Start(exec.Command("sh", "-c", "exit 3"), Options{
		Ward: ward,
		Tidy: func(c *Child) {
			select {
			case <-c.Reaped():
				tidied <- false
			default:
				tidied <- true
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	<-c.Done()
	if !<-tidied {
		t.Errorf("Tidy ran after the leader was reaped")
	}
	if got := ExitText(c.Err()); got != "exit status 3" {
		t.Errorf("status = %q, want exit status 3", got)
	}
}
