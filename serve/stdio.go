package serve

import (
	"context"
	"io"
)

// RunStdio serves one client over stdin and stdout (newline-delimited
// JSON-RPC) until the client closes its end or ctx ends. The server is
// closed when it returns, with every process the session started.
func (s *Server) RunStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	defer s.Close()
	err := s.mcp.Run(ctx, &lineTransport{in: in, out: out})
	if ctx.Err() != nil {
		return nil // an interrupt is a normal end
	}
	return err
}
