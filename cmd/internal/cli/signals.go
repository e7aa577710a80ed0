package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

// notifyContext is signal.NotifyContext with an escape: the first of sigs
// cancels the context, so the running command stops and closes its deck;
// the signal's default handling is then restored at once, so a second
// Ctrl-C or SIGTERM ends the process even when a call ignores the context
// (a read of a pipe, a stuck system call). The children a deck started
// die with indusr through their parent-death signal and ward, so the hard
// end leaves nothing running that the soft one would have stopped.
func notifyContext(parent context.Context, sigs ...os.Signal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			// Reset before cancelling: a second signal that comes while
			// the command winds down is the default's, not lost in ch.
			signal.Reset(sigs...)
			cancel(fmt.Errorf("%v: %w", s, context.Canceled))
		case <-done:
		}
	}()
	stop := func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
	return ctx, stop
}
