package addons

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestHostToolsFirstClaimantWins(t *testing.T) {
	loader := scripted{
		"/a": {ID: "a", Register: func(api API) error { api.AddTool(echoTool("lint")); return nil }},
		"/b": {ID: "b", Register: func(api API) error { api.AddTool(echoTool("lint")); api.AddTool(echoTool("fmt")); return nil }},
	}
	h := NewHost(HostOptions{Loader: loader})
	var log faultLog
	h.OnFault(log.add)
	b := h.LoadAll(context.Background(), Discovery{Paths: []string{"/a", "/b"}})
	var names []string
	for _, tl := range b.Tools {
		names = append(names, tl.Spec().Name)
	}
	if !slices.Equal(names, []string{"lint", "fmt"}) {
		t.Errorf("tools %v, want lint (from a) and fmt", names)
	}
	fs := log.all()
	if len(fs) != 1 || fs[0].Kind != ConflictFault || fs[0].Addon != "b" || !errors.Is(fs[0], ErrDuplicateName) {
		t.Errorf("faults %v, want one duplicate conflict of addon b", fs)
	}
}

func TestHostRegisterFaultsIsolated(t *testing.T) {
	loader := scripted{
		"/err":   {ID: "err", Register: func(API) error { return errors.New("boom") }},
		"/panic": {ID: "panic", Register: func(API) error { panic("bad addon") }},
		"/ok":    {Register: func(api API) error { api.AddCommand("hello", "says hello", nil); return nil }},
	}
	h := NewHost(HostOptions{Loader: loader})
	var log faultLog
	h.OnFault(log.add)
	b := h.LoadAll(context.Background(), Discovery{Paths: []string{"/err", "/panic", "/missing", "/ok"}})
	if len(b.Loaded) != 1 || b.Loaded[0].ID != "ok" {
		t.Fatalf("loaded %+v, want only ok (id derived from its path)", b.Loaded)
	}
	want := []FaultKind{RegisterFault, RegisterFault, LoadFault}
	var got []FaultKind
	for _, f := range log.all() {
		got = append(got, f.Kind)
	}
	if !slices.Equal(got, want) {
		t.Errorf("fault kinds %v, want %v", got, want)
	}
	if _, ok := b.Command("hello"); !ok {
		t.Error("the healthy addon's command is missing")
	}
}

func TestHostReservedNamesReplaceable(t *testing.T) {
	loader := scripted{"/a": {ID: "a", Register: func(api API) error {
		api.AddCommand("help", "", nil)
		api.AddCommand("deploy", "", nil)
		return nil
	}}}
	h := NewHost(HostOptions{Loader: loader, Reserved: []string{"deploy"}})
	b := h.LoadAll(context.Background(), Discovery{Paths: []string{"/a"}})
	if _, ok := b.Command("help"); !ok {
		t.Error("help was refused though the host reserved only deploy")
	}
	if _, ok := b.Command("deploy"); ok {
		t.Error("deploy was accepted though the host reserved it")
	}
}

func TestLoadAddonInProcess(t *testing.T) {
	h := NewHost(HostOptions{})
	var log faultLog
	h.OnFault(log.add)
	if h.LoadAddon(&Addon{}) {
		t.Error("an addon without id loaded")
	}
	if !h.LoadAddon(&Addon{ID: "go", Register: func(api API) error {
		api.On(SessionStart, Observer(func(context.Context, Payload) {}))
		return nil
	}}) {
		t.Fatal("in-process addon not loaded")
	}
	if b := h.Bundle(); !b.Dispatch.Has(SessionStart) || b.Empty() {
		t.Error("the in-process addon's subscription is missing")
	}
	if len(log.all()) != 1 {
		t.Errorf("faults %v, want one for the addon without id", log.all())
	}
}

func TestRunCommandFaults(t *testing.T) {
	loader := scripted{"/a": {ID: "a", Register: func(api API) error {
		api.AddCommand("crash", "", func(context.Context, CommandContext) (ExecOutcome, error) { panic("oops") })
		api.AddCommand("args", "", func(_ context.Context, cc CommandContext) (ExecOutcome, error) {
			return ExecOutcome{Stdout: strings.Join(cc.Args, "|") + "@" + cc.Dir}, nil
		})
		return nil
	}}}
	h := NewHost(HostOptions{Loader: loader})
	var log faultLog
	h.OnFault(log.add)
	b := h.LoadAll(context.Background(), Discovery{Paths: []string{"/a"}})
	out, err := b.RunCommand(context.Background(), "args", []string{"x y", "z"}, "/w")
	if err != nil || out.Stdout != "x y|z@/w" {
		t.Errorf("args command: %+v, %v", out, err)
	}
	if _, err := b.RunCommand(context.Background(), "crash", nil, ""); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("crash: %v, want a panic error", err)
	}
	if _, err := b.RunCommand(context.Background(), "nope", nil, ""); err == nil || !strings.Contains(err.Error(), "args") {
		t.Errorf("unknown command: %v, want the list of commands", err)
	}
	if fs := log.all(); len(fs) != 1 || fs[0].Kind != CommandFault || fs[0].Addon != "a" {
		t.Errorf("faults %v, want one command fault of a", fs)
	}
}
