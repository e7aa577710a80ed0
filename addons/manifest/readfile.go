package manifest

import "github.com/indusagi/induscode/workspace"

// MaxManifest bounds a manifest.toml: a repository plants it, so it may
// be a link to /dev/zero, a named pipe or a sparse file of gigabytes.
const MaxManifest = workspace.MaxConfigFile

// ReadFile reads the manifest at file as every reader of one must: a
// regular file of at most MaxManifest bytes, never waiting on a pipe.
func ReadFile(file string) ([]byte, error) {
	return workspace.ReadRepoFile("", file, MaxManifest)
}
