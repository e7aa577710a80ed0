package agent

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/indusagi/induscode/internal/fakemodel"
	"github.com/indusagi/induscode/transcript"
)

// The acceptance of every provider: one scripted task (read a file, edit
// it, answer) run by `indusr -p` through each provider's adapter against
// the scripted server speaking that provider's wire format, with the
// credentials a user of it sets in the environment. Each run changes the
// file, answers, and keeps a priced transcript: every turn's usage and
// its cost at the catalog's list price (nothing for a local model), the
// turns adding up to the run's total_cost_usd.
func TestEveryProviderRunsTheTask(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	// No credential lookup may leave the machine: no instance metadata
	// on AWS's side, no metadata server on Google's, no shared files.
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("NO_GCE_CHECK", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(home, "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(home, "none"))
	for _, k := range []string{"AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK", "GOOGLE_APPLICATION_CREDENTIALS", "CLAUDE_CODE_USE_BEDROCK",
		"CLAUDE_CODE_USE_VERTEX", "INDUSR_OPENAI_API", "INDUSR_MODEL", "GOOGLE_API_KEY"} {
		t.Setenv(k, "")
	}
	for _, tc := range []struct {
		model  string
		api    string // the wire format the fake saw
		env    func(srv *fakemodel.Server) map[string]string
		priced bool
	}{
		{"anthropic/claude-sonnet-4-5", "anthropic", func(s *fakemodel.Server) map[string]string {
			return map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": s.URL}
		}, true},
		{"openai/gpt-5", "responses", func(s *fakemodel.Server) map[string]string {
			return map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": s.URL + "/v1"}
		}, true},
		{"openai-chat/gpt-5", "openai", func(s *fakemodel.Server) map[string]string {
			return map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": s.URL + "/v1"}
		}, true},
		{"bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "bedrock", func(s *fakemodel.Server) map[string]string {
			return map[string]string{"AWS_ACCESS_KEY_ID": "AKIDFAKE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1",
				"ANTHROPIC_BEDROCK_BASE_URL": s.URL}
		}, true},
		{"vertex/claude-sonnet-4-5@20250929", "vertex", func(s *fakemodel.Server) map[string]string {
			return map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": serviceAccountKey(t, s), "CLOUD_ML_REGION": "us-east5",
				"ANTHROPIC_VERTEX_PROJECT_ID": "my-project", "ANTHROPIC_VERTEX_BASE_URL": s.URL}
		}, true},
		{"gemini/gemini-2.5-flash", "gemini", func(s *fakemodel.Server) map[string]string {
			return map[string]string{"GEMINI_API_KEY": "k", "GOOGLE_GEMINI_BASE_URL": s.URL}
		}, true},
		{"ollama/qwen3:8b", "openai", func(s *fakemodel.Server) map[string]string {
			return map[string]string{"OLLAMA_BASE_URL": s.URL + "/v1"}
		}, false},
	} {
		provider, _, _ := strings.Cut(tc.model, "/")
		t.Run(provider, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("hello world\n"), 0o644)
			srv := fakemodel.Start(t,
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("Reading it."), fakemodel.ToolUse("read", `{"path":"greet.txt"}`)},
					InputTokens: 3000, OutputTokens: 40, CacheRead: 1000},
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.ToolUse("edit", `{"path":"greet.txt","old_string":"hello","new_string":"goodbye"}`)},
					InputTokens: 500, OutputTokens: 60, CacheRead: 3500},
				fakemodel.Reply{Blocks: []fakemodel.Block{fakemodel.Text("greet.txt now says goodbye.")}, InputTokens: 300, OutputTokens: 20, CacheRead: 4000})
			for k, v := range tc.env(srv) {
				t.Setenv(k, v)
			}
			var out, errOut bytes.Buffer
			code := Main([]string{"-p", "change hello to goodbye in greet.txt", "--model", tc.model, "--permission-mode", "acceptEdits",
				"--output-format", "json", "--cwd", dir, "--no-mcp"}, strings.NewReader(""), &out, &errOut)
			if code != 0 {
				t.Fatalf("exit %d: %s%s; refusals %q", code, out.String(), errOut.String(), srv.Refusals())
			}
			var res struct {
				Result    string  `json:"result"`
				NumTurns  int     `json:"num_turns"`
				TotalCost float64 `json:"total_cost_usd"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			if res.Result != "greet.txt now says goodbye." || res.NumTurns != 3 {
				t.Errorf("result %+v", res)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "greet.txt")); string(b) != "goodbye world\n" {
				t.Errorf("greet.txt is %q", b)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 || reqs[0].API != tc.api {
				t.Fatalf("%d requests, the first in %q's format; want 3 in %q's", len(reqs), reqs[0].API, tc.api)
			}
			if r := srv.Refusals(); len(r) != 0 {
				t.Errorf("refused: %q", r)
			}
			_, lines, err := transcript.Latest(dir)
			if err != nil {
				t.Fatal(err)
			}
			turns, sum := 0, 0.0
			for _, l := range lines {
				if l.Message == nil || l.Message.Role != "assistant" {
					continue
				}
				turns++
				if l.Usage == nil || l.Usage.OutputTokens == 0 {
					t.Errorf("turn %d has no usage: %+v", turns, l)
				}
				if tc.priced != (l.Cost > 0) {
					t.Errorf("turn %d cost %v (priced: %v)", turns, l.Cost, tc.priced)
				}
				sum += l.Cost
			}
			if strings.Contains(tc.model, "claude-sonnet-4-5") && math.Abs(res.TotalCost-0.01575) > 1e-9 {
				// Sonnet 4.5 at $3 in, $15 out and $0.30 a cached read per
				// million tokens: 3800 in, 120 out, 8500 read.
				t.Errorf("total %v, want $0.01575 at Sonnet 4.5's list price", res.TotalCost)
			}
			if turns != 3 || math.Abs(sum-res.TotalCost) > 1e-9 {
				t.Errorf("%d priced turns adding to %v; the run's total is %v", turns, sum, res.TotalCost)
			}
			t.Logf("%s: 3 turns, $%.6f", tc.model, res.TotalCost)
		})
	}
}

// serviceAccountKey writes a Google service account key whose token
// endpoint is the fake's.
func serviceAccountKey(t *testing.T, srv *fakemodel.Server) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "p", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "indusr@p.iam.gserviceaccount.com", "client_id": "1", "token_uri": srv.URL + fakemodel.TokenPath,
	})
	f := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}
