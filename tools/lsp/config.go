package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/indusagi/induscode/workspace"
)

// Server says how to run the language server of one language.
type Server struct {
	// Command and Args start the server speaking LSP on stdin and stdout.
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	// Filetypes are the file extensions it serves (".go").
	Filetypes []string `json:"filetypes"`
	// InitializationOptions are passed as they are in initialize.
	InitializationOptions json.RawMessage `json:"initializationOptions,omitempty"`
	// Install says how a user gets the server, for the hint shown when the
	// command is not found.
	Install string `json:"install,omitempty"`
}

// Config is the set of servers a session may start, by language name.
type Config struct {
	Servers map[string]Server
	// Timeout bounds the wait for a change's diagnostics (DefaultTimeout
	// when zero).
	Timeout time.Duration
}

// DefaultTimeout bounds the wait for the diagnostics of one change: long
// enough for a warm server to check a file of a large module, short
// enough that an edit never feels stuck behind a slow server.
const DefaultTimeout = 3 * time.Second

// DefaultConfig returns the servers known without any setting: gopls,
// typescript-language-server and pyright, each found on PATH.
func DefaultConfig() Config {
	return Config{Servers: map[string]Server{
		"go": {Command: "gopls", Filetypes: []string{".go"},
			Install: "go install golang.org/x/tools/gopls@latest"},
		"typescript": {Command: "typescript-language-server", Args: []string{"--stdio"},
			Filetypes: []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"},
			Install:   "npm install -g typescript-language-server typescript"},
		"python": {Command: "pyright-langserver", Args: []string{"--stdio"}, Filetypes: []string{".py", ".pyi"},
			Install: "npm install -g pyright"},
	}}
}

// LoadConfig returns DefaultConfig with the "lsp" blocks of the settings
// files applied, the user's ($XDG_CONFIG_HOME/indusvx/settings.json) and
// then the workspace's (.indusvx/settings.json). A block maps a language to
// a Server; in the user's file a row replaces the default of that
// language, and in either a row of {"disabled": true} turns the language
// off. A settings file that does not parse, or a workspace row that names
// a command, is an error naming it (the servers read so far still hold).
func LoadConfig(dir string) (Config, error) {
	cfg := DefaultConfig()
	if user, err := workspace.UserSettings(); err == nil {
		if err := applySettings(&cfg, user, true); err != nil {
			return cfg, err
		}
	}
	return cfg, applySettings(&cfg, workspace.At(dir).Settings(), false)
}

// applySettings applies the lsp block of one settings file. A workspace's
// file comes with the repository, so it may turn languages off but not
// name a command to run: that would run a stranger's program as the user
// on the first edit, with no approval asked.
func applySettings(cfg *Config, path string, mayRun bool) error {
	// Bounded, and the workspace's file beneath its state folder: a
	// planted link to /dev/zero or a named pipe is an error, not a hang.
	b, err := workspace.ReadSettings(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("language server settings: %w", err) // err names the file
	}
	var s struct {
		LSP map[string]struct {
			Server
			Disabled bool `json:"disabled"`
		} `json:"lsp"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("%s: %v; fix the JSON (the \"lsp\" block maps a language to {\"command\", \"args\", \"filetypes\", \"initializationOptions\"})", path, err)
	}
	for lang, row := range s.LSP {
		if row.Disabled {
			delete(cfg.Servers, lang)
			continue
		}
		if !mayRun {
			return fmt.Errorf("%s: lsp.%s names a server to run, which a workspace's settings may not (a repository could run any program through it); move the row to your own settings, $XDG_CONFIG_HOME/indusvx/settings.json, or set only \"disabled\": true here", path, lang)
		}
		if row.Command == "" || len(row.Filetypes) == 0 {
			return fmt.Errorf("%s: lsp.%s needs \"command\" and \"filetypes\" (extensions such as \".go\"), or \"disabled\": true", path, lang)
		}
		for i, ext := range row.Filetypes {
			if !strings.HasPrefix(ext, ".") {
				row.Filetypes[i] = "." + ext
			}
		}
		cfg.Servers[lang] = row.Server
	}
	return nil
}

// languageOf returns the language whose server serves path's extension.
func (c Config) languageOf(path string) (string, Server, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return "", Server{}, false
	}
	langs := make([]string, 0, len(c.Servers))
	for l := range c.Servers {
		langs = append(langs, l)
	}
	slices.Sort(langs) // one answer when two rows claim an extension
	for _, l := range langs {
		if slices.Contains(c.Servers[l].Filetypes, ext) {
			return l, c.Servers[l], true
		}
	}
	return "", Server{}, false
}

// languageID is the LSP language identifier of a document.
func languageID(path, lang string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".py", ".pyi":
		return "python"
	case ".go":
		return "go"
	}
	return lang
}
