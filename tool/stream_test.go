package tool_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/indusagi/induscode/tool"
)

func TestTextStream(t *testing.T) {
	ctx := context.Background()
	if tool.TextStream(ctx) != nil {
		t.Fatal("a plain context carries a text stream")
	}
	var buf bytes.Buffer
	ctx = tool.WithTextStream(ctx, &buf)
	if tool.TextStream(ctx) != &buf {
		t.Fatal("the stream put on the context is not the one returned")
	}
	if tool.TextStream(tool.WithTextStream(ctx, nil)) != nil {
		t.Fatal("a nil writer does not withdraw the stream")
	}
}
