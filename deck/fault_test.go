package deck

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestFaultIsAndAs(t *testing.T) {
	t.Parallel()
	f := &Fault{Kind: BuildFailed, ID: "read", Msg: "no disk", Err: io.ErrUnexpectedEOF}
	wrapped := fmt.Errorf("provisioning: %w", f)
	if !errors.Is(wrapped, ErrBuildFailed) {
		t.Error("errors.Is(ErrBuildFailed) = false")
	}
	if errors.Is(wrapped, ErrUnknownCapability) {
		t.Error("matched the wrong kind")
	}
	if !errors.Is(wrapped, io.ErrUnexpectedEOF) {
		t.Error("cause not reachable")
	}
	var got *Fault
	if !errors.As(wrapped, &got) || got.ID != "read" {
		t.Errorf("errors.As = %+v", got)
	}
	if errors.Is(f, &Fault{Kind: BuildFailed, ID: "other"}) {
		t.Error("a fault with details is not a sentinel")
	}
	if want := `build failed "read": no disk: unexpected EOF`; f.Error() != want {
		t.Errorf("Error() = %q, want %q", f.Error(), want)
	}
}

// TestFaultKindsNamed fails when a kind is added without a name or a
// sentinel.
func TestFaultKindsNamed(t *testing.T) {
	t.Parallel()
	sentinels := map[FaultKind]error{UnknownCapability: ErrUnknownCapability, BuildFailed: ErrBuildFailed}
	if len(FaultKinds()) != int(faultKindEnd)-1 {
		t.Errorf("FaultKinds() lists %d kinds, the constants define %d", len(FaultKinds()), faultKindEnd-1)
	}
	for k := UnknownCapability; k < faultKindEnd; k++ {
		if !slices.Contains(FaultKinds(), k) {
			t.Errorf("kind %d is missing from FaultKinds()", k)
		}
		if strings.HasPrefix(k.String(), "FaultKind(") {
			t.Errorf("kind %d has no name", k)
		}
		if s, ok := sentinels[k]; !ok || !errors.Is(&Fault{Kind: k}, s) {
			t.Errorf("kind %s has no working sentinel", k)
		}
	}
}
