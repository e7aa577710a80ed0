package workspace

import (
	"errors"
	"os"
	"path/filepath"
)

// Settings files (model, permission mode, language servers) are read by
// several packages; this is their one reader. The workspace's file comes
// with the repository, so it goes through the state folder's funnel (no
// link followed, only a regular file of the user's); the user's own file
// may be a link (dotfiles managers make them) but must be a regular file.
// Both are read with a bound: a link to /dev/zero or a sparse file of
// gigabytes is an error naming the file, a named pipe is not waited on.

// MaxSettingsFile bounds a settings file: a hand-written one is a few
// kilobytes.
const MaxSettingsFile = MaxConfigFile

// Settings is the workspace's settings file, .indusvx/settings.json.
func (l Layout) Settings() string { return l.in("settings.json") }

// UserSettings is the user's settings file,
// $XDG_CONFIG_HOME/indusvx/settings.json (~/.config/indusvx/settings.json).
func UserSettings() (string, error) {
	cfg, err := os.UserConfigDir()
	if err != nil {
		return "", errors.New("no config folder for the user's settings: " + err.Error())
	}
	return filepath.Join(cfg, "indusvx", "settings.json"), nil
}

// ReadSettings reads the settings file at path, the user's or a
// workspace's (see [Layout.Settings]). A missing file is an error for
// which errors.Is(err, fs.ErrNotExist) holds; one that is not a regular
// file, lies behind a link in the state folder, or holds more than
// [MaxSettingsFile] bytes is a [*RefusedError] naming it.
func ReadSettings(path string) ([]byte, error) {
	return ReadRepoFile("", path, MaxSettingsFile)
}
