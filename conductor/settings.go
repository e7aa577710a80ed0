package conductor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/indusagi/induscode/provider/facts"
	"github.com/indusagi/induscode/workspace"
)

// Settings are a run's defaults from settings files. Unset fields are
// zero; a later file's set field wins over an earlier one's.
type Settings struct {
	Model          string         `json:"model,omitempty"`
	PermissionMode PermissionMode `json:"permissionMode,omitempty"`
	MaxTurns       int            `json:"maxTurns,omitempty"`
	// ContextWindow overrides the model's context window in tokens (a
	// local model served with a smaller one).
	ContextWindow int64 `json:"contextWindow,omitempty"`
	// Models corrects what the catalog knows of models (window, output
	// limit, price), by model id: {"ollama/qwen3": {"contextWindow":
	// 32768}}. A later file's entry for a model replaces an earlier one's.
	Models map[string]facts.Override `json:"models,omitempty"`
	// OpenAIAPI is the API openai/… models are reached by: "responses"
	// (the default) or "chat" (Chat Completions, for a proxy or server at
	// OPENAI_BASE_URL that speaks only that).
	OpenAIAPI string `json:"openaiApi,omitempty"`
}

// SettingsFiles are the files [LoadSettings] reads, in order: the user's
// ($XDG_CONFIG_HOME/indusvx/settings.json) and the workspace's
// (.indusvx/settings.json).
func SettingsFiles(dir string) []string {
	var out []string
	if user, err := workspace.UserSettings(); err == nil {
		out = append(out, user)
	}
	return append(out, workspace.At(dir).Settings())
}

// LoadSettings reads the settings files of dir; a missing file is no
// settings, a bad one an error that names it. The workspace's file comes
// from the repository, so it is read beneath the workspace (no link out)
// and may only make the permission mode stricter.
func LoadSettings(dir string) (Settings, error) {
	var s Settings
	files := SettingsFiles(dir)
	for i, f := range files {
		workspaceFile := i == len(files)-1
		b, err := workspace.ReadSettings(f) // bounded; the workspace's beneath its state folder
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return s, err
		}
		var one Settings
		if err := json.Unmarshal(b, &one); err != nil {
			return s, fmt.Errorf("%s: %v (expected {\"model\": \"anthropic/...\", \"permissionMode\": \"default\", \"maxTurns\": 20})", f, err)
		}
		if one.PermissionMode != "" {
			if _, err := ParsePermissionMode(string(one.PermissionMode)); err != nil {
				return s, fmt.Errorf("%s: %v", f, err)
			}
			if workspaceFile && one.PermissionMode != Default && one.PermissionMode != Plan {
				return s, fmt.Errorf("%s sets permissionMode %q: a workspace's settings may only choose default or plan; "+
					"set a looser mode in %s or with --permission-mode", f, one.PermissionMode, files[0])
			}
			s.PermissionMode = one.PermissionMode
		}
		if one.Model != "" {
			s.Model = one.Model
		}
		if one.MaxTurns != 0 {
			s.MaxTurns = one.MaxTurns
		}
		if one.ContextWindow != 0 {
			s.ContextWindow = one.ContextWindow
		}
		switch one.OpenAIAPI {
		case "":
		case "responses", "chat":
			s.OpenAIAPI = one.OpenAIAPI
		default:
			return s, fmt.Errorf("%s: openaiApi %q is none of responses or chat", f, one.OpenAIAPI)
		}
		if _, err := facts.New(one.Models); err != nil {
			return s, fmt.Errorf("%s: %v", f, err)
		}
		for k, v := range one.Models {
			if s.Models == nil {
				s.Models = map[string]facts.Override{}
			}
			s.Models[k] = v
		}
	}
	return s, nil
}
