package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
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
		noToken bool
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
/mcp and prints client configs on stderr. Each call is answered with one
JSON body; --sse answers with event streams, which a client can resume
after a dropped connection. Every request must carry
"Authorization: Bearer <token>": loopback is reachable by every user of
the machine, and the server runs commands as you. The token is made
for each run and printed in the configs, unless --token (or INDUSR_TOKEN)
sets one; --no-token serves loopback without one, for a machine with no
other users. An address beyond loopback always needs --token, and
webfetch then refuses private, loopback and link-local addresses.`,
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
			made := false
			switch {
			case noToken && token != "":
				return usagef("--no-token contradicts --token (or %s): pick one", tokenEnv)
			case token == "" && !noToken && serve.LoopbackAddr(addr):
				// Beyond loopback the user gives the token (RunHTTP
				// refuses the address without one).
				if token, err = newToken(); err != nil {
					return &failure{err}
				}
				made = true
			}
			err = srv.RunHTTP(ctx, serve.HTTPOptions{Addr: addr, Token: token, SessionTimeout: timeout, MaxSessions: maxSess, EventStreams: sse, PollAfter: poll}, func(url string) {
				printClientConfig(stderr, url, token, made)
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
	f.StringVar(&token, "token", "", "require this bearer token of every HTTP request (default $"+tokenEnv+", else one made for this run)")
	f.BoolVar(&noToken, "no-token", false, "serve HTTP on loopback without a token: only where no other user shares the machine, since any of them could run commands as you")
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

// newToken makes a bearer token for one run of the server: 32 random
// bytes, as many as a guesser would have to find.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making the server's token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// printClientConfig tells a person how to point a client at the server.
// A token made for this run is printed, in configs ready to paste, as
// Jupyter prints its own: only this terminal sees it. A token the user
// gave is never printed: configs refer to the variable. token is "" with
// --no-token.
func printClientConfig(w io.Writer, url, token string, made bool) {
	fmt.Fprintf(w, "indusr serve: MCP endpoint %s (Ctrl-C stops it)\n\n", url)
	header := "Bearer ${" + tokenEnv + "}"
	shell := "Bearer $" + tokenEnv
	switch {
	case made:
		header, shell = "Bearer "+token, "Bearer "+token
		fmt.Fprintf(w, "Every request needs this token, made for this run (--token or %s sets your own):\n  Authorization: Bearer %s\n\n", tokenEnv, token)
	case token == "":
		fmt.Fprintf(w, "No token (--no-token): every user of this machine can run commands as you.\n\n")
	}
	entry := map[string]any{"type": "http", "url": url}
	claude := "claude mcp add --transport http induscode " + url
	if token != "" {
		entry["headers"] = map[string]string{"Authorization": header}
		claude += ` --header "Authorization: ` + shell + `"`
	}
	cfg, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"induscode": entry}}, "", "  ")
	fmt.Fprintf(w, "Claude Code:\n  %s\n\nCursor, VS Code, other clients (mcp.json):\n%s\n\n", claude, cfg)
	fmt.Fprintf(w, "Codex (~/.codex/config.toml):\n  [mcp_servers.induscode]\n  url = %q\n", url)
	switch {
	case made:
		fmt.Fprintf(w, "  http_headers = { Authorization = %q }\n", "Bearer "+token)
	case token != "":
		fmt.Fprintf(w, "  bearer_token_env_var = %q\n", tokenEnv)
	}
	fmt.Fprintln(w)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
