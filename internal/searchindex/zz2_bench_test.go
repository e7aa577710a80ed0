package searchindex

import (
	"os"
	"testing"
)

func TestZZLoad(t *testing.T) {
	root := os.Getenv("ZZ_ROOT")
	if root == "" {
		t.Skip("no ZZ_ROOT")
	}
	t0 := cpuNow()
	for range 50 {
		Open(root).load()
	}
	t.Logf("cpu per load %v", (cpuNow()-t0)/50)
}
