package serve

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/indusagi/induscode/internal/stdioconn"
)

// RunStdio serves one client over stdin and stdout (newline-delimited
// JSON-RPC) until the client closes its end or ctx ends. The server is
// closed when it returns, with every process the session started. A line
// that is not a JSON-RPC message, a batch or a line over 16 MiB is
// answered with a JSON-RPC error, and the session goes on. Each answer
// carries its call's id exactly as the client wrote it; a call the client
// cancelled gets none. At the end of the input the calls in flight are
// finished and answered before it returns, so a client that writes its
// requests and closes its end (a pipe from a file) gets every reply.
//
// When in is os.Stdin and standard input is a pipe or a socket (as MCP
// clients connect it), it is read through the runtime's poller, from a
// duplicate descriptor in non-blocking mode, and put back as it was on
// return: waiting for the next message then holds no thread and no
// processor. Messages from a polled file (that one, or an os.Pipe end)
// are read on the SDK's own reading goroutine.
func (s *Server) RunStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	defer s.Close()
	if in == os.Stdin {
		if polled, restore, ok := stdioconn.PollableStdin(); ok {
			defer restore()
			in = polled
		} else {
			in = io.NopCloser(os.Stdin) // descriptor 0 stays open for whatever runs after
		}
	}
	opts := stdioconn.Options{AnswerBadLines: true, ServerCalls: true}
	if f, ok := in.(*os.File); ok && f.SetReadDeadline(time.Time{}) == nil {
		opts.CloseUnblocks = true // closing a polled file ends a read under way
	}
	err := s.mcp.Run(ctx, &stdioconn.Transport{In: in, Out: out, Options: opts})
	if ctx.Err() != nil {
		return nil // an interrupt is a normal end
	}
	return err
}
