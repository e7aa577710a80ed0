package addons

import (
	"log/slog"
	"strings"
	"testing"
)

func TestFaultListenersIsolated(t *testing.T) {
	fs := faults{log: slog.New(slog.DiscardHandler)}
	var heard []string
	fs.listen(func(*Fault) { heard = append(heard, "first") })
	fs.listen(func(*Fault) { panic("listener bug") })
	unsub := fs.listen(func(*Fault) { heard = append(heard, "third") })
	fs.report(&Fault{Kind: LoadFault, Msg: "x"})
	if strings.Join(heard, ",") != "first,third" {
		t.Fatalf("listeners heard %v, want first,third despite the panicking one", heard)
	}
	unsub()
	unsub() // idempotent
	heard = nil
	fs.report(&Fault{Kind: LoadFault, Msg: "y"})
	if strings.Join(heard, ",") != "first" {
		t.Fatalf("after unsubscribe listeners heard %v, want first", heard)
	}
}

func TestFaultMessage(t *testing.T) {
	f := &Fault{Kind: LoadFault, Addon: "safety", File: "/w/m.toml", Line: 3, Msg: "field id: must be set"}
	want := "load fault in addon safety: /w/m.toml:3: field id: must be set"
	if f.Error() != want {
		t.Errorf("got %q, want %q", f.Error(), want)
	}
}
