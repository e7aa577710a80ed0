package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/indusagi/induscode/internal/searchindex"
	"github.com/indusagi/induscode/serve"
)

// tokenEnv names the environment variable that may hold the HTTP token, so
// it need not appear in a process listing.
const tokenEnv = "INDUSR_TOKEN"

func newServeCmd(opts *options) *cobra.Command {
	var (
		addr    string
		token   string
		timeout time.Duration
		maxSess int
		poll    time.Duration
		sse     bool
		jsonOut bool // the old default's opposite, kept so scripts keep working
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the deck as an MCP server (stdio, or Streamable HTTP with --http)",
		Long: `Serve the session's tools (built-ins and app cards of the profile, the
--tools allow-list, the tools of the configured MCP servers) to an MCP
client. Each client session gets its own deck session: files read,
checklist and background processes, all stopped when it ends.

Over stdio (the default) the client starts indusr itself:
  claude mcp add induscode -- indusr serve

With --http the server listens on 127.0.0.1:8765 (or the address given) at
/mcp and prints a client config on stderr. Each call is answered with one
JSON body; --sse answers with event streams, which a client can resume
after a dropped connection. An address beyond loopback needs
--token (or INDUSR_TOKEN); every request must then carry
"Authorization: Bearer <token>", and webfetch then refuses private,
loopback and link-local addresses.`,
		// --http takes an optional value, so "--http 127.0.0.1:9000" arrives
		// as the flag's default plus one argument: that argument is the
		// address.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			if len(args) == 1 && cmd.Flags().Changed("http") && addr == serve.DefaultAddr {
				addr = args[0]
				return nil
			}
			return usagef("serve takes no arguments (did you mean --http %s?)", args[0])
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			stderr := cmd.ErrOrStderr()
			log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			sopts := sessionOptions(opts, stderr)
			sopts.Warn = func(msg string) { fmt.Fprintln(stderr, "indusr:", msg) }
			if sopts.Framework.SearchIndex != nil {
				// A server keeps grep's index built, in the background.
				ctx, cancel := context.WithCancel(cmd.Context())
				k := searchindex.Keep(ctx, workspaceDir(opts.Dir))
				k.Failed = func(err error) { fmt.Fprintln(stderr, "indusr: search index:", err) }
				defer k.Wait()
				defer cancel()
				sopts.Framework.SearchIndex = k
			}
			if opts.Session != "" {
				return usagef("--session does not apply to serve: every client session is a session of its own")
			}
			if sse && jsonOut {
				return usagef("--sse and --json-response contradict each other: pick one (JSON bodies are the default)")
			}
			if jsonOut {
				fmt.Fprintln(stderr, "indusr: --json-response is deprecated: one JSON body per call is now the default (--sse selects event streams)")
			}
			// The server shapes the runtime to its load unless GOGC or
			// GOMAXPROCS says otherwise.
			srv, err := serve.New(serve.Options{Session: sopts, Version: versionString(), Log: log,
				AdaptGC: os.Getenv("GOGC") == "", AdaptProcs: os.Getenv("GOMAXPROCS") == ""})
			if err != nil {
				return bootError(err)
			}
			ctx := cmd.Context()
			if !cmd.Flags().Changed("http") {
				in := io.NopCloser(cmd.InOrStdin())
				if cmd.InOrStdin() == os.Stdin {
					in = os.Stdin // RunStdio reads it through the poller
				}
				if err := srv.RunStdio(ctx, in, nopWriteCloser{cmd.OutOrStdout()}); err != nil {
					return &failure{err}
				}
				return nil
			}
			if token == "" {
				token = os.Getenv(tokenEnv)
			}

			err = srv.RunHTTP(ctx, serve.HTTPOptions{Addr: addr, Token: token, SessionTimeout: timeout, MaxSessions: maxSess, EventStreams: sse, PollAfter: poll}, func(url string) {
				printClientConfig(stderr, url, token != "")
			})
			if err != nil {
				return &usageError{err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "http", serve.DefaultAddr, "serve Streamable HTTP on this HOST:PORT instead of stdio")
	f.Lookup("http").NoOptDefVal = serve.DefaultAddr
	f.StringVar(&token, "token", "", "require this bearer token of every HTTP request (default $"+tokenEnv+")")
	f.BoolVar(&sse, "sse", false, "answer each HTTP call with an event stream instead of one JSON body: resumable after a dropped connection, progress on the call's own stream")
	f.DurationVar(&poll, "sse-poll", 0, "with --sse, close the event stream of a call that runs longer than this and let the client reconnect for the rest (polling, for proxies that cut long connections); 0 keeps streams open")
	f.BoolVar(&jsonOut, "json-response", false, "answer each HTTP call with one JSON body")
	// Hidden rather than marked deprecated: pflag would print the notice
	// on stdout, which over stdio is the client's protocol stream.
	_ = f.MarkHidden("json-response")
	f.IntVar(&maxSess, "max-sessions", serve.DefaultMaxSessions, "refuse a new HTTP session (503) while this many are open; negative means no limit")
	f.DurationVar(&timeout, "session-timeout", serve.DefaultSessionTimeout, "end an HTTP session (and its processes) after this long idle; 0 keeps the default, negative never")
	return cmd
}

// printClientConfig tells a person how to point a client at the server.
// The token itself is never printed: configs refer to the variable.
func printClientConfig(w io.Writer, url string, withToken bool) {
	fmt.Fprintf(w, "indusr serve: MCP endpoint %s (Ctrl-C stops it)\n\n", url)
	entry := map[string]any{"type": "http", "url": url}
	claude := "claude mcp add --transport http induscode " + url
	if withToken {
		entry["headers"] = map[string]string{"Authorization": "Bearer ${" + tokenEnv + "}"}
		claude += ` --header "Authorization: Bearer $` + tokenEnv + `"`
	}
	cfg, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"induscode": entry}}, "", "  ")
	fmt.Fprintf(w, "Claude Code:\n  %s\n\nCursor, VS Code, other clients (mcp.json):\n%s\n\n", claude, cfg)
	fmt.Fprintf(w, "Codex (~/.codex/config.toml):\n  [mcp_servers.induscode]\n  url = %q\n", url)
	if withToken {
		fmt.Fprintf(w, "  bearer_token_env_var = %q\n", tokenEnv)
	}
	fmt.Fprintln(w)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
