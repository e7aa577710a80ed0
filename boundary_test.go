package induscode

import (
	"os/exec"
	"strings"
	"testing"
)

// modelSDKs are the import paths of the model SDKs, which only the
// agent's program links.
// The clouds' libraries come with the Bedrock and Vertex adapters.
var modelSDKs = []string{"github.com/anthropics/", "github.com/openai/", "google.golang.org/genai",
	"github.com/aws/aws-sdk-go-v2/config", "golang.org/x/oauth2/google", "google.golang.org/api/"}

func isModelSDK(p string) bool {
	for _, s := range modelSDKs {
		if strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}

// goList runs `go list` with args and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + string(ee.Stderr)
		}
		t.Fatalf("go list %s: %s", strings.Join(args, " "), msg)
	}
	return strings.Fields(string(out))
}

// TestModelSDKBoundary keeps the deck light: indusr (and its second name)
// links no model SDK, nor do the neutral packages (provider, transcript,
// the conductor and its tool running); each SDK is imported by its
// adapter alone, and indusr-agent is the program that links them.
func TestModelSDKBoundary(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{"./cmd/indusr", "./cmd/indusagir", "./provider", "./transcript", "./conductor", "./conductor/toolrun"} {
		for _, dep := range goList(t, "-deps", pkg) {
			if isModelSDK(dep) {
				t.Errorf("%s depends on the model SDK package %s; only indusr-agent may link one (through provider/connect)", pkg, dep)
			}
		}
	}
	// The model catalog's embedded data (provider/facts) is the agent's
	// too: a megabyte indusr would carry and never read.
	for _, pkg := range []string{"./cmd/indusr", "./cmd/indusagir", "./provider", "./transcript"} {
		for _, dep := range goList(t, "-deps", pkg) {
			if strings.HasPrefix(dep, "charm.land/catwalk") {
				t.Errorf("%s depends on %s; only the agent's side (provider/facts) may", pkg, dep)
			}
		}
	}
	// The terminal UI's renderer (glamour, and its highlighter's hundreds
	// of lexers registered at start) is indusr-tui's alone: -p and the SDK
	// host start without it.
	for _, pkg := range []string{"./cmd/indusr", "./cmd/indusr-agent"} {
		for _, dep := range goList(t, "-deps", pkg) {
			if strings.HasPrefix(dep, "charm.land/glamour") || strings.HasPrefix(dep, "github.com/alecthomas/chroma") || strings.HasPrefix(dep, "charm.land/bubbletea") {
				t.Errorf("%s depends on %s; only indusr-tui may link the terminal UI", pkg, dep)
			}
		}
	}
	sdks := 0
	for _, dep := range goList(t, "-deps", "./cmd/indusr-agent") {
		if isModelSDK(dep) {
			sdks++
		}
	}
	if sdks == 0 {
		t.Error("indusr-agent links no model SDK: the agent cannot talk to a model")
	}
	owner := map[string]string{"github.com/anthropics/": "provider/anthropic", "github.com/openai/": "provider/openai",
		"google.golang.org/genai": "provider/gemini"}
	for _, line := range goList(t, "-f", "{{.ImportPath}}|{{join .Imports \",\"}}", "./...") {
		pkg, imports, _ := strings.Cut(line, "|")
		rel := strings.TrimPrefix(pkg, modulePath+"/")
		for imp := range strings.SplitSeq(imports, ",") {
			for prefix, want := range owner {
				if strings.HasPrefix(imp, prefix) && rel != want {
					t.Errorf("%s imports %s; only %s may import that SDK", rel, imp, want)
				}
			}
		}
	}
}
