package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
)

func models(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(append([]string{"models", "--cwd", dir}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// `indusr models` lists the catalog's models with their windows and
// prices, and what a local server serves with the window it runs each
// with; the user's settings correct both.
func TestModelsList(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	dir := t.TempDir()

	code, out, errOut := models(t, dir, "--provider", "anthropic")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	line := lineOf(out, "anthropic/claude-sonnet-4-5-20250929 ")
	if f := strings.Fields(line); len(f) < 8 || f[1] != "200000" || f[3] != "3" || f[4] != "15" || f[5] != "0.3" || f[6] != "3.75" {
		t.Errorf("Sonnet 4.5's row %q\n%s", line, out)
	}
	if strings.Contains(out, "openai/") {
		t.Errorf("--provider anthropic listed others:\n%s", out)
	}

	srv := fakemodel.Start(t)
	srv.SetWindow(32768)
	t.Setenv("OLLAMA_BASE_URL", srv.URL+"/v1")
	code, out, errOut = models(t, dir, "--provider", "ollama")
	if code != 0 || !strings.Contains(lineOf(out, "ollama/qwen3:8b "), " 32768 ") || !strings.Contains(lineOf(out, "ollama/qwen3:8b "), "server") {
		t.Fatalf("exit %d, served models:\n%s%s", code, out, errOut)
	}

	os.MkdirAll(filepath.Join(cfg, "indusvx"), 0o755)
	os.WriteFile(filepath.Join(cfg, "indusvx", "settings.json"),
		[]byte(`{"models":{"ollama/qwen3:8b":{"contextWindow":65536},"ollama/not-pulled":{"contextWindow":8192,"price":{"input":0.5}}}}`), 0o644)
	code, out, errOut = models(t, dir, "--provider", "ollama", "--json")
	var rows []modelRow
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
		t.Fatalf("exit %d %v: %s%s", code, err, out, errOut)
	}
	if len(rows) != 2 || rows[0].ID != "ollama/qwen3:8b" || rows[0].ContextWindow != 65536 || rows[0].Source != "server" ||
		rows[1].ID != "ollama/not-pulled" || rows[1].Price == nil || rows[1].Price.Input != 0.5 || rows[1].Source != "settings" {
		t.Errorf("rows %+v", rows)
	}

	srv.Close() // a local server that is not running
	if code, _, errOut = models(t, dir, "--provider", "ollama"); code != 1 || !strings.Contains(errOut, "OLLAMA_BASE_URL") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if code, _, errOut = models(t, dir, "--provider", "nowhere"); code != 2 || !strings.Contains(errOut, "anthropic") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func lineOf(out, prefix string) string {
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}
