package rpc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/manifest"
	"github.com/indusagi/induscode/addons/policy"
)

func TestRoundTrip(t *testing.T) {
	ws, _ := workspaceWith(t, "ok")
	l := load(t, ws, nil)
	if len(l.bundle.Loaded) != 1 || l.bundle.Loaded[0].ID != "standin" || l.bundle.Loaded[0].Version != "0.1.0" {
		t.Fatalf("loaded %+v; faults:\n%s", l.bundle.Loaded, l.faults)
	}
	l.bundle.Dispatch.Dispatch(context.Background(), addons.SessionStart, addons.LifecyclePayload{Session: "s"})

	res := l.callEcho(context.Background(), `{"x":1}`)
	got := res.PlainText()
	// gate passed, the transform and the enter stage rewrote the
	// arguments the tool saw, and the exit stage rewrote its result.
	for _, want := range []string{"exit saw: ", `"transformed":true`, `"entered":true`, `"x":1`} {
		if !strings.Contains(got, want) || res.IsError {
			t.Errorf("result %q (error %v) lacks %q", got, res.IsError, want)
		}
	}
	res = l.callEcho(context.Background(), `{"deny":true}`)
	if !res.IsError || !strings.Contains(res.PlainText(), "addon standin blocked the call of echo: standin says no") {
		t.Errorf("denied call: %q", res.PlainText())
	}
	out, err := l.bundle.RunCommand(context.Background(), "join", []string{"a b", `c;"d"`, "$(x)"}, ws)
	if err != nil || out.Stdout != "a b|c;\"d\"|$(x)\n" {
		t.Errorf("command: %q, %v", out.Stdout, err)
	}
	if st := l.status(t); st.State != "running" || st.PID == 0 {
		t.Errorf("status %+v, want running", st)
	}
	if l.faults.String() != "" {
		t.Errorf("faults:\n%s", l.faults)
	}
}

func TestDeclarationsFromRecordStartNothing(t *testing.T) {
	ws, _ := workspaceWith(t, "ok")
	first := load(t, ws, nil)
	if first.status(t).State != "running" {
		t.Fatalf("the first load starts the addon to ask it: %+v", first.status(t))
	}
	first.loader.Close()

	second := load(t, ws, nil)
	if st := second.status(t); st.State != "ready" || len(second.bundle.Tools) != 3 {
		t.Fatalf("second load: %+v with %d tools, want declarations from the record and no process", st, len(second.bundle.Tools))
	}
	if res := second.callEcho(context.Background(), `{}`); res.IsError {
		t.Fatal(res.PlainText())
	}
	if st := second.status(t); st.State != "running" {
		t.Errorf("after first use: %+v", st)
	}

	// A changed addon is asked again.
	m := filepath.Join(ws, ".indus", "addons", "standin", "manifest.toml")
	b, _ := os.ReadFile(m)
	os.WriteFile(m, append(b, []byte("timeout = \"9s\"\n")...), 0o644)
	third := load(t, ws, nil)
	if st := third.status(t); st.State != "running" {
		t.Errorf("a changed manifest: %+v, want the process asked again", st)
	}
}

func TestEnvironmentOnlyFromTheAllowList(t *testing.T) {
	t.Setenv("ADDON_SECRET", "hunter2")
	t.Setenv("HOME", "/home/someone")
	ws, _ := workspaceWith(t, "ok", `env = ["HOME"]`)
	l := load(t, ws, nil)
	env := l.addonTool(t, "environ").PlainText()
	if !strings.Contains(env, "HOME=/home/someone") || strings.Contains(env, "hunter2") || strings.Contains(env, "PATH=") {
		t.Errorf("the addon saw:\n%s", env)
	}

	// Asking for a name the host does not allow is a load fault at the
	// env line.
	ws, _ = workspaceWith(t, "ok", `env = ["HOME", "ADDON_SECRET"]`)
	l = load(t, ws, nil)
	var f *addons.Fault
	for _, x := range l.host.Faults() {
		f = x
	}
	if len(l.bundle.Loaded) != 0 || f == nil || f.Kind != addons.LoadFault || f.Line != 6 ||
		!strings.Contains(f.Msg, `"ADDON_SECRET" is not on the host's allow-list`) || !strings.Contains(f.Msg, "INDUSR_ADDON_ENV=ADDON_SECRET") {
		t.Fatalf("fault %v", f)
	}
	// The user may widen the list.
	t.Setenv(EnvAllowVar, "ADDON_SECRET")
	l = load(t, ws, nil)
	if env := l.addonTool(t, "environ").PlainText(); !strings.Contains(env, "ADDON_SECRET=hunter2") {
		t.Errorf("allowed variable missing:\n%s", env)
	}
}

func TestGarbageOnStdoutIsLogged(t *testing.T) {
	ws, _ := workspaceWith(t, "garbage")
	l := load(t, ws, nil)
	if res := l.callEcho(context.Background(), `{"deny":true}`); !strings.Contains(res.PlainText(), "standin says no") {
		t.Fatalf("the gate's answer was lost among garbage: %q\n%s", res.PlainText(), l.faults)
	}
	// stderr is drained on its own, so its line may come a little later.
	waitFor(t, "the log to hold the garbage and the stderr line", func() bool {
		b, _ := os.ReadFile(filepath.Join(ws, ".indusvx", "addon-logs", "standin.log"))
		return strings.Contains(string(b), "stdout: {not json at all") && strings.Contains(string(b), "stdout: hello from an addon") &&
			strings.Contains(string(b), "stderr: standin starting in mode garbage")
	})
}

func TestSlowStart(t *testing.T) {
	ws, _ := workspaceWith(t, "slow=600ms", `timeout = "5s"`)
	start := time.Now()
	l := load(t, ws, nil)
	if len(l.bundle.Loaded) != 1 || time.Since(start) < 600*time.Millisecond {
		t.Fatalf("a slow start within the timeout loads: %v\n%s", l.bundle.Loaded, l.faults)
	}
	// A start has its own limit, longer than a short call timeout.
	ws, _ = workspaceWith(t, "slow=600ms", `timeout = "100ms"`)
	if l := load(t, ws, nil); len(l.bundle.Loaded) != 1 {
		t.Errorf("a start slower than the call timeout but within the start limit: %v\n%s", l.bundle.Loaded, l.faults)
	}
	for _, mode := range []string{"slow=5s", "hang-init"} {
		ws, _ := workspaceWith(t, mode, `timeout = "300ms"`)
		start := time.Now()
		l := load(t, ws, nil)
		if len(l.bundle.Loaded) != 0 || !l.faults.has("did not answer initialize within 2s") {
			t.Errorf("%s: loaded %v, faults:\n%s", mode, l.bundle.Loaded, l.faults)
		}
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("%s: loading took %v", mode, d)
		}
	}
}

func TestProtocolVersionMismatch(t *testing.T) {
	ws, _ := workspaceWith(t, "version=2")
	l := load(t, ws, nil)
	if len(l.bundle.Loaded) != 0 || !l.faults.has(`the addon speaks protocol version "2" and this host speaks "1"`) {
		t.Fatalf("loaded %v, faults:\n%s", l.bundle.Loaded, l.faults)
	}
	if !l.faults.has("manifest.toml:5: its process did not start and initialize") {
		t.Errorf("the fault should name the manifest line:\n%s", l.faults)
	}
}

func TestHungGateFailsClosedAndIsKilled(t *testing.T) {
	ws, _ := workspaceWith(t, "hang-gate", `timeout = "300ms"`)
	l := load(t, ws, nil)
	pid := l.status(t).PID
	start := time.Now()
	res := l.callEcho(context.Background(), `{}`)
	if !res.IsError || !strings.Contains(res.PlainText(), "gate no-deny failed (event/gate got no answer within 300ms") {
		t.Fatalf("hung gate: %q", res.PlainText())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the call took %v", d)
	}
	if !l.faults.has("gate no-deny of tool:before failed; it refused the event") {
		t.Errorf("faults:\n%s", l.faults)
	}
	// It answers no ping either, so it is killed as hung.
	waitFor(t, "the hung process to be killed", func() bool { return processGone(pid) })
	b, _ := os.ReadFile(filepath.Join(ws, ".indusvx", "addon-logs", "standin.log"))
	if !strings.Contains(string(b), "did not answer ping") {
		t.Errorf("log:\n%s", b)
	}

	// on_error = "allow" lets the call through.
	ws, _ = workspaceWith(t, "hang-gate", `timeout = "300ms"`, `on_error = { "no-deny" = "allow" }`)
	l = load(t, ws, nil)
	if res := l.callEcho(context.Background(), `{"x":1}`); res.IsError || !l.faults.has("it lets the event through") {
		t.Errorf("fail-open gate: %q\n%s", res.PlainText(), l.faults)
	}
}

func TestCancelReachesTheAddon(t *testing.T) {
	ws, _ := workspaceWith(t, "slow-gate", `timeout = "20s"`)
	l := load(t, ws, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res := l.callEcho(ctx, `{}`)
	if !res.IsError || !strings.Contains(res.PlainText(), "was cancelled") || time.Since(start) > 2*time.Second {
		t.Errorf("cancelled call after %v: %q", time.Since(start), res.PlainText())
	}
	log := filepath.Join(ws, ".indusvx", "addon-logs", "standin.log")
	waitFor(t, "the addon to hear $/cancelRequest", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "stderr: cancelled request 2")
	})
	// The process was busy, not hung: it is still the same one, and
	// answers the late reply to a request no one waits for without harm.
	if st := l.status(t); st.State != "running" {
		t.Errorf("status %+v", st)
	}
}

func TestAnAddonThatStopsReadingCannotHoldTheHost(t *testing.T) {
	// hang-gate stops reading stdin; calls go on until the pipe is full,
	// and then each still ends by its timeout.
	ws, _ := workspaceWith(t, "hang-gate", `timeout = "300ms"`, `on_error = { "*" = "allow" }`)
	l := load(t, ws, nil)
	big := `{"pad":"` + strings.Repeat("x", 100<<10) + `"}`
	for i := range 3 {
		start := time.Now()
		l.callEcho(context.Background(), big)
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("call %d took %v", i, d)
		}
	}
}

func TestCrashesRestartThenQuarantine(t *testing.T) {
	ws, _ := workspaceWith(t, "crash-gate")
	l := load(t, ws, nil)
	pids := map[int]bool{}
	for i := range CrashLimit {
		pids[l.status(t).PID] = true
		res := l.callEcho(context.Background(), `{}`)
		if !res.IsError || !strings.Contains(res.PlainText(), "process ended (exit status 3); its stderr ends: ") ||
			!strings.Contains(res.PlainText(), "about to crash in a gate") {
			t.Fatalf("crash %d: %q", i+1, res.PlainText())
		}
		if i < CrashLimit-1 {
			// restarted on next use, after the backoff
			l.addonTool(t, "pid")
		}
	}
	if len(pids) != CrashLimit {
		t.Errorf("pids %v: each crash should restart the process", pids)
	}
	if !l.faults.has("quarantined after 3 crashes within 1m0s") {
		t.Fatalf("faults:\n%s", l.faults)
	}
	res := l.callEcho(context.Background(), `{}`)
	if !res.IsError || !strings.Contains(res.PlainText(), "quarantined since") {
		t.Errorf("quarantined gate: %q", res.PlainText())
	}
	// The refusal comes from the record, without starting the process again.
	if pid := l.status(t).PID; pid != 0 && !pids[pid] {
		t.Errorf("a quarantined addon was started again (pid %d)", pid)
	}
	if _, err := l.loader.sups[0].get(context.Background()); !errors.Is(err, ErrQuarantined) {
		t.Errorf("get: %v, want ErrQuarantined", err)
	}
	if st := l.status(t); st.State != "quarantined" || st.Why == nil || st.Crashes != 3 {
		t.Errorf("status %+v", st)
	}
	// The quarantine is on record: the next session sees it, still
	// refuses, and starts nothing.
	next := load(t, ws, nil)
	if st := next.status(t); st.State != "quarantined" || !next.faults.has("quarantined since") {
		t.Errorf("next session: %+v\n%s", st, next.faults)
	}
	if res := next.callEcho(context.Background(), `{}`); !res.IsError {
		t.Error("a quarantined gate let the call through")
	}
}

func TestCrashInToolCall(t *testing.T) {
	ws, _ := workspaceWith(t, "ok")
	l := load(t, ws, nil)
	before := l.addonTool(t, "pid").PlainText()
	res := l.addonTool(t, "crash")
	if !res.IsError || !strings.Contains(res.PlainText(), "addon standin could not run crash: the addon's process ended (exit status 4)") {
		t.Fatalf("crash: %q", res.PlainText())
	}
	if after := l.addonTool(t, "pid").PlainText(); after == before || after == "" {
		t.Errorf("pid %s then %s: want a new process", before, after)
	}
	if !l.faults.has("tool crash failed") {
		t.Errorf("faults:\n%s", l.faults)
	}
}

func TestCloseEndsTheWholeGroup(t *testing.T) {
	for _, mode := range []string{"child", "stubborn"} {
		t.Run(mode, func(t *testing.T) {
			ws, _ := workspaceWith(t, mode, `env = ["PATH"]`)
			l := load(t, ws, nil)
			pid := l.status(t).PID
			if pid == 0 {
				t.Fatalf("not running:\n%s", l.faults)
			}
			if mode == "child" {
				waitFor(t, "the grandchild", func() bool { return groupSize(pid) >= 2 })
			}
			start := time.Now()
			l.loader.Close()
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("Close took %v", d)
			}
			// Members that are gone but not yet reaped by init do not count.
			waitFor(t, "the process group to be gone", func() bool { return groupSize(pid) == 0 })
		})
	}
}

func TestPolicyTimeoutIsTheDefault(t *testing.T) {
	ws, _ := workspaceWith(t, "hang-gate")
	p := DefaultPolicy()
	p.Timeout = 250 * time.Millisecond
	l := load(t, ws, &p)
	if res := l.callEcho(context.Background(), `{}`); !strings.Contains(res.PlainText(), "no answer within 250ms") {
		t.Errorf("%q", res.PlainText())
	}
	_ = policy.DefaultTimeout
}

// groupSize counts the processes of group pgid.
func groupSize(pgid int) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			n++
		}
		_ = pid
	}
	return n
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// A [process] manifest keeps its data-only part: a Tier-0 gate and the
// [[hook]] tables reach the fallback loader's hook binder.
func TestProcessManifestKeepsItsTier0Part(t *testing.T) {
	ws, _ := workspaceWith(t, "ok")
	m := filepath.Join(ws, ".indus", "addons", "standin", "manifest.toml")
	b, _ := os.ReadFile(m)
	b = append([]byte("[[gate]]\nevent = \"tool:before\"\nmatch-tool = \"read\"\nreason = \"tier 0 says no\"\n\n[[hook]]\nevent = \"PreToolUse\"\ncommand = \"true\"\n\n"), b...)
	// id must come first in TOML, before any table.
	b = []byte(strings.Replace(string(b), "id = \"standin\"\nversion = \"0.1.0\"\n", "", 1))
	b = append([]byte("id = \"standin\"\nversion = \"0.1.0\"\n"), b...)
	if err := os.WriteFile(m, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var bound []manifest.HookDecl
	var h *addons.Host
	loader := NewLoader(Options{Workspace: ws, Report: func(f *addons.Fault) { h.Report(f) },
		Fallback: manifest.Loader{Hooks: func(_ addons.API, _ string, hs []manifest.HookDecl) error { bound = hs; return nil }}})
	defer loader.Close()
	h = addons.NewHost(addons.HostOptions{Loader: loader})
	bundle := h.LoadAll(context.Background(), addons.Discovery{Workspace: ws})
	if fs := h.Faults(); len(fs) > 0 {
		t.Fatal(fs[0])
	}
	if len(bound) != 1 || bound[0].Event != "PreToolUse" {
		t.Errorf("hooks bound: %+v", bound)
	}
	if len(bundle.Gates) != 1 || bundle.Gates[0].Reason != "tier 0 says no" || len(bundle.Tools) != 3 {
		t.Errorf("gates %+v, %d tools: want the Tier-0 gate and the process's tools", bundle.Gates, len(bundle.Tools))
	}
}
