package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// signalHelperEnv makes TestSignalHelper act as a command stuck in a call
// that ignores its context.
const signalHelperEnv = "INDUSR_TEST_SIGNAL_HELPER"

func TestSignalHelper(t *testing.T) {
	if os.Getenv(signalHelperEnv) == "" {
		t.Skip("run by TestSecondSignalEndsTheProcess")
	}
	ctx, stop := notifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	fmt.Println("ready")
	<-ctx.Done()
	fmt.Println("cancelled:", context.Cause(ctx))
	select {} // a call that never looks at its context again
}

// The first SIGTERM or Ctrl-C cancels the command; when the command is
// stuck where the cancellation does not reach, the second ends indusr
// (before, only SIGKILL could).
func TestSecondSignalEndsTheProcess(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignalHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), signalHelperEnv+"=1")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			lines := bufio.NewScanner(out)
			waitLine := func(prefix string) {
				t.Helper()
				for lines.Scan() {
					if len(lines.Text()) >= len(prefix) && lines.Text()[:len(prefix)] == prefix {
						return
					}
				}
				t.Fatalf("the helper ended before printing %q", prefix)
			}
			waitLine("ready")
			cmd.Process.Signal(sig)
			waitLine("cancelled:")
			cmd.Process.Signal(sig)
			exited := make(chan error, 1)
			go func() {
				for lines.Scan() {
				}
				exited <- cmd.Wait()
			}()
			select {
			case err := <-exited:
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatalf("the helper ended with %v", err)
				}
				if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
					t.Errorf("the helper ended with %v, want death by %v", err, sig)
				}
			case <-time.After(time.Minute):
				t.Fatalf("a second %v did not end the process", sig)
			}
		})
	}
}
