package hooks

import (
	"github.com/indusagi/induscode/addons"
	"github.com/indusagi/induscode/addons/manifest"
)

// Binder returns the manifest.HookBinder that registers a manifest's
// [[hook]] tables on its addon, run with o. Give it to
// manifest.Loader.Hooks.
func Binder(o Options) manifest.HookBinder {
	return func(api addons.API, file string, decls []manifest.HookDecl) error {
		hooks, err := FromDecls(file, decls)
		if err != nil {
			return err
		}
		NewSet(api.ID(), hooks, o).Register(api)
		return nil
	}
}

// Addon is an addon named id whose whole contribution is hooks, such as
// those of Claude Code's settings; load it with addons.Host.LoadAddon.
func Addon(id addons.ID, hooks []Hook, o Options) *addons.Addon {
	return &addons.Addon{ID: id, Register: func(api addons.API) error {
		NewSet(api.ID(), hooks, o).Register(api)
		return nil
	}}
}
