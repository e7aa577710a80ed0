package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/cmd/internal/render"
	"github.com/indusagi/induscode/deck"
	"github.com/indusagi/induscode/session"
	"github.com/indusagi/induscode/tool"
)

// maxBatchLine bounds one line of --batch input; a write of a large file
// travels in one line, so the bound is generous.
const maxBatchLine = 64 << 20

func newCallCmd(opts *options) *cobra.Command {
	var (
		batch   bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "call TOOL [JSON|-]",
		Short: "Call a tool and print its result",
		Long: `Call one tool with a JSON object as input: from the argument, or from stdin
when the argument is "-". Without input the tool gets {}.

With --batch, read JSON lines {"tool": NAME, "input": {...}} from stdin and
write one JSON result per line; all calls share one session, so todo_set
followed by todo_read sees the new list.

Exit status: 0 success, 1 the tool reported an error (with --batch: any
call did; stderr says how many), 2 usage error (also a --batch line over
the 64 MiB limit of one line).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if batch {
				if len(args) != 0 {
					return usagef("call --batch takes no arguments; it reads JSON lines from stdin")
				}
				return nil
			}
			if len(args) < 1 || len(args) > 2 {
				return usagef("call needs a tool name and optionally a JSON input (or - for stdin)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if !batch && os.Getenv("GOGC") == "" {
				// One call keeps a heap of a few MiB for a moment:
				// collecting it each time it doubles from the 4 MiB
				// floor is work the answer waits for.
				debug.SetGCPercent(oneShotGCPercent)
			}
			// Absent means no limit; a limit of zero or less given on
			// purpose is a mistake, not a request for none.
			if cmd.Flags().Changed("timeout") && timeout <= 0 {
				return usagef("--timeout must be more than zero (e.g. 30s); leave it out for no limit")
			}
			ctx := cmd.Context()
			var input json.RawMessage
			sopts := sessionOptions(opts, cmd.ErrOrStderr())
			if batch {
				// A batch starts a server whose tools are cached only
				// when a line calls one of them.
				sopts.UseCache = true
			} else {
				// Input and the tool's origin are settled before anything
				// starts: bad JSON is refused at once, a built-in call
				// mounts no MCP server and SERVER__TOOL mounts only SERVER.
				if input, err = readInput(args, cmd.InOrStdin()); err != nil {
					return err
				}
				if sopts, err = session.ForCall(sopts, args[0]); err != nil {
					return bootError(err)
				}
			}
			s, err := session.Open(ctx, sopts)
			if err != nil {
				return bootError(err)
			}
			if batch {
				err = runBatch(ctx, s, timeout, cmd.InOrStdin(), cmd.OutOrStdout())
			} else {
				err = runOne(ctx, s, timeout, args[0], input, cmd.OutOrStdout(), cmd.ErrOrStderr(), opts.JSON)
			}
			// Close saves a named session and stops what the calls started.
			if cerr := s.Close(); cerr != nil {
				return errors.Join(err, &failure{cerr})
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&batch, "batch", false, "read JSON-lines calls from stdin, write JSON-lines results")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "stop each call after this long (e.g. 30s); without it calls have no limit")
	return cmd
}

// oneShotGCPercent is the collector's pace for a single call (GOGC):
// a search's heap stays small and bounded, so collecting half as often
// costs little memory (a fourth more at the peak of a large output).
const oneShotGCPercent = 200

// readInput returns the call's JSON input: the argument, stdin for "-",
// or {} when there is none. Input that is not JSON is a usage error.
func readInput(args []string, stdin io.Reader) (json.RawMessage, error) {
	input := json.RawMessage(`{}`)
	if len(args) < 2 {
		return input, nil
	}
	raw := []byte(args[1])
	if args[1] == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, &failure{fmt.Errorf("reading input from stdin: %w", err)}
		}
		raw = b
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return input, nil
	}
	if !json.Valid(raw) {
		return nil, usagef("input for %s is not valid JSON: %v", args[0], jsonError(raw))
	}
	return raw, nil
}

func runOne(ctx context.Context, s *session.Session, timeout time.Duration, want string, input json.RawMessage, stdout, stderr io.Writer, asJSON bool) error {
	name, err := s.Resolve(want)
	if err != nil {
		return bootError(err)
	}
	var stream *render.TextStream
	if !asJSON {
		// Tools that can (grep's content output) print as they go.
		stream = render.NewTextStream(stdout)
		ctx = tool.WithTextStream(ctx, stream)
	}
	res := callWithTimeout(ctx, s.Box(), timeout, name, input)
	if stream != nil && stream.Close() && render.IsEmptyText(res) {
		// Everything was streamed; an empty remainder prints nothing.
		if res.IsError {
			return errToolFailed
		}
		return nil
	}
	if asJSON {
		if err := json.NewEncoder(stdout).Encode(res); err != nil {
			return &failure{err}
		}
	} else {
		out := stdout
		if res.IsError {
			out = stderr
		}
		render.ToolResult(out, res)
	}
	if res.IsError {
		return errToolFailed
	}
	return nil
}

func callWithTimeout(ctx context.Context, box *deck.Box, timeout time.Duration, name string, input json.RawMessage) tool.Result {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	return box.Run(ctx, name, input)
}

// jsonError explains why raw is not JSON.
func jsonError(raw []byte) error {
	var v any
	err := json.Unmarshal(raw, &v)
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Errorf("%v (at byte %d)", se, se.Offset)
	}
	return err
}

// batchCall is one line of --batch input.
type batchCall struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
}

// batchResult is one line of --batch output.
type batchResult struct {
	Line    int          `json:"line"`
	Tool    string       `json:"tool,omitempty"`
	Content []tool.Block `json:"content"`
	IsError bool         `json:"isError"`
}

// parseBatchLine decodes one line of --batch input: exactly one JSON object
// with a non-empty "tool" and optionally "input", nothing after it.
func parseBatchLine(raw []byte) (batchCall, error) {
	var c batchCall
	if len(raw) == 0 || raw[0] != '{' {
		return c, errors.New("the line is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return c, fmt.Errorf("field %q must be a string", te.Field)
		}
		return c, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return c, errors.New("there is more after the JSON object; put one call per line")
	}
	if strings.TrimSpace(c.Tool) == "" {
		return c, errors.New(`"tool" is missing or empty`)
	}
	return c, nil
}

func runBatch(ctx context.Context, s *session.Session, timeout time.Duration, stdin io.Reader, stdout io.Writer) error {
	enc := json.NewEncoder(stdout)
	calls, failed := 0, 0
	emit := func(line int, name string, res tool.Result) error {
		calls++
		if res.IsError {
			failed++
		}
		content := res.Blocks
		if content == nil {
			content = []tool.Block{}
		}
		return enc.Encode(batchResult{Line: line, Tool: name, Content: content, IsError: res.IsError})
	}
	lines := readLines(ctx, stdin)
	line := 0
	for {
		// An interrupt ends the batch even while it waits for more input:
		// stdin may be a pipe or terminal that never closes.
		if ctx.Err() != nil {
			return interruptedBatch(ctx, line)
		}
		var l inputLine
		select {
		case <-ctx.Done():
			return interruptedBatch(ctx, line)
		case l = <-lines:
		}
		if l.done {
			if errors.Is(l.err, bufio.ErrTooLong) {
				return usagef("batch line %d is longer than %d MiB, the limit of one --batch line; it and the lines after it were not run. Write a large file with a shorter call (split it, or put its content in place with bash)", line+1, maxBatchLine>>20)
			}
			if l.err != nil {
				return &failure{fmt.Errorf("reading batch input at line %d: %w", line+1, l.err)}
			}
			break
		}
		line++
		raw := bytes.TrimSpace(l.text)
		if len(raw) == 0 {
			continue
		}
		c, err := parseBatchLine(raw)
		if err != nil {
			if err := emit(line, "", tool.Errorf(`line %d: expected {"tool": NAME, "input": {...}}: %v`, line, err)); err != nil {
				return &failure{err}
			}
			continue
		}
		// An unknown name goes to the box as written, which answers it
		// with an isError result on this line.
		name, rerr := s.Resolve(c.Tool)
		if rerr != nil {
			name = c.Tool
		}
		if err := emit(line, name, callWithTimeout(ctx, s.Box(), timeout, name, c.Input)); err != nil {
			return &failure{err}
		}
	}
	if failed > 0 {
		return &failure{fmt.Errorf("%d of %d %s failed (see the lines with \"isError\": true)", failed, calls, plural(calls, "call", "calls"))}
	}
	return nil
}

func interruptedBatch(ctx context.Context, lines int) error {
	return &failure{fmt.Errorf("batch interrupted after %d input lines (%v); later lines were not run", lines, context.Cause(ctx))}
}

// inputLine is one line of batch input, or (done) the end of it.
type inputLine struct {
	text []byte
	done bool
	err  error // why the input ended, if not at EOF
}

// readLines reads r line by line in its own goroutine, so the reader of
// the channel can stop waiting when ctx ends. The goroutine returns once
// ctx has ended and its current read comes back, or at the end of r.
func readLines(ctx context.Context, r io.Reader) <-chan inputLine {
	ch := make(chan inputLine)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), maxBatchLine)
		send := func(l inputLine) bool {
			select {
			case ch <- l:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for sc.Scan() {
			if !send(inputLine{text: bytes.Clone(sc.Bytes())}) {
				return
			}
		}
		send(inputLine{done: true, err: sc.Err()})
	}()
	return ch
}
