package serve

import (
	"context"
	"io"

	"github.com/indusagi/induscode/internal/stdioconn"
)

// RunStdio serves one client over stdin and stdout (newline-delimited
// JSON-RPC) until the client closes its end or ctx ends. The server is
// closed when it returns, with every process the session started. A line
// that is not a JSON-RPC message, a batch or a line over 16 MiB is
// answered with a JSON-RPC error, and the session goes on.
func (s *Server) RunStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	defer s.Close()
	err := s.mcp.Run(ctx, &stdioconn.Transport{In: in, Out: out, Options: stdioconn.Options{AnswerBadLines: true}})
	if ctx.Err() != nil {
		return nil // an interrupt is a normal end
	}
	return err
}
