package searchindex

import (
	"context"

	"github.com/indusagi/induscode/internal/searchindex/build"
	"github.com/indusagi/induscode/internal/searchindex/indexfile"
)

// FileName is the index file inside the index folder.
const FileName = indexfile.FileName

// BuildStats says what a build indexed.
type BuildStats = build.BuildStats

// Build indexes the files under root that grep would search there and
// replaces the index file atomically (see package build).
func Build(ctx context.Context, root string) (BuildStats, error) { return build.Build(ctx, root) }
