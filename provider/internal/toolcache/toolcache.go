// Package toolcache keeps the SDK form of the tool list an adapter sent
// last, for the adapters of package provider.
package toolcache

import (
	"bytes"
	"slices"
	"sync"

	"github.com/indusagi/induscode/provider"
)

// Cache keeps the SDK form of the tool list a client sent last: an
// agent sends the same tools on every call, and converting their schemas
// is the largest part of building a request. A changed list (a server's
// tools came or went) is converted again.
type Cache[T any] struct {
	mu   sync.Mutex
	defs []provider.ToolDef
	sdk  []T
}

// Get returns the SDK form of defs, converting them with conv unless
// they equal the last list.
func (c *Cache[T]) Get(defs []provider.ToolDef, conv func([]provider.ToolDef) ([]T, error)) ([]T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sdk != nil && sameDefs(c.defs, defs) {
		return c.sdk, nil
	}
	sdk, err := conv(defs)
	if err != nil {
		return nil, err
	}
	kept := make([]provider.ToolDef, len(defs))
	for i, d := range defs {
		d.InputSchema = slices.Clone(d.InputSchema) // the caller may reuse its bytes
		kept[i] = d
	}
	c.defs, c.sdk = kept, slices.Clip(sdk)
	return c.sdk, nil
}

func sameDefs(a, b []provider.ToolDef) bool {
	return slices.EqualFunc(a, b, func(x, y provider.ToolDef) bool {
		return x.Name == y.Name && x.Description == y.Description && bytes.Equal(x.InputSchema, y.InputSchema)
	})
}
