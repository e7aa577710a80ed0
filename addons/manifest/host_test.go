package manifest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/internal/testtree"
)

func TestHostLoadAllFoldsInLoadOrder(t *testing.T) {
	ws := t.TempDir()
	testtree.Write(t, ws, map[string]string{
		".indus/addons/b-second/manifest.toml": `
id = "second"
[[command]]
name = "deploy"
summary = "second deploy"
[[gate]]
event = "tool:before"
match-tool = "bash"
reason = "two"
`,
		".indus/addons/a-first/manifest.toml": `
id = "first"
version = "1.2.0"
[[command]]
name = "deploy"
summary = "first deploy"
[[command]]
name = "help"
[[gate]]
event = "tool:before"
match-tool = "bash"
reason = "one"
`,
		".indus/addons/c-broken/manifest.toml": `id = `,
		".indus/addons/d-script.ts":            `export default {}`,
	})
	h := addons.NewHost(addons.HostOptions{Loader: Loader{}})
	var log faultLog
	h.OnFault(log.add)
	b := h.LoadAll(context.Background(), addons.Discovery{Workspace: ws})

	var ids []addons.ID
	for _, l := range b.Loaded {
		ids = append(ids, l.ID)
	}
	if !slices.Equal(ids, []addons.ID{"first", "second"}) {
		t.Fatalf("loaded %v, want the manifest ids first, second in folder order", ids)
	}
	if len(b.Commands) != 1 || b.Commands[0].Summary != "first deploy" || b.Commands[0].Addon != "first" {
		t.Errorf("commands %+v, want only the first claimant of deploy", b.Commands)
	}
	out := b.Dispatch.Dispatch(context.Background(), addons.ToolBefore, addons.ToolPayload{Name: "bash"})
	if out.Stop == nil || out.Stop.Addon != "first" || out.Stop.Reason != "one" {
		t.Errorf("stop %+v, want the first addon's gate to stop bash", out.Stop)
	}

	var kinds []string
	var reserved, dup, tier, toml bool
	for _, f := range log.all() {
		kinds = append(kinds, f.Kind.String())
		switch {
		case errors.Is(f, addons.ErrReservedName):
			reserved = f.Addon == "first" && strings.Contains(f.Msg, `"help"`)
		case errors.Is(f, addons.ErrDuplicateName):
			dup = f.Addon == "second" && strings.Contains(f.Msg, "first")
		case f.Kind == addons.LoadFault && strings.HasSuffix(f.File, ".ts"):
			tier = strings.Contains(f.Msg, "Tier 1") && f.Addon == "d-script"
		case f.Kind == addons.LoadFault:
			toml = f.Addon == "c-broken" && f.Line == 1 && strings.HasSuffix(f.File, "manifest.toml")
		}
	}
	if !reserved || !dup || !tier || !toml {
		t.Errorf("faults %v: reserved=%v duplicate=%v tier=%v toml=%v; want all four", log.all(), reserved, dup, tier, toml)
	}
	if len(h.Faults()) != 4 {
		t.Errorf("host kept %d faults, want 4 (%v)", len(h.Faults()), kinds)
	}
}
