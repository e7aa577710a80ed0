package provider

import "testing"

// A bare model name goes to the provider its name says; openai/ is the
// Responses API, openai-chat/ and the local servers Chat Completions.
func TestParseModelIDAndAPIs(t *testing.T) {
	for id, want := range map[string]string{
		"claude-sonnet-4-5": "anthropic/claude-sonnet-4-5", "gemini-2.5-pro": "gemini/gemini-2.5-pro", "gpt-5": "openai/gpt-5",
		"openai-chat/gpt-4o": "openai-chat/gpt-4o", "gemini/gemini-2.5-flash": "gemini/gemini-2.5-flash",
	} {
		m, err := ParseModelID(id)
		if err != nil || m.String() != want {
			t.Errorf("%s: %v %v, want %s", id, m, err, want)
		}
	}
	for name, api := range map[string]API{"anthropic": Messages, "openai": Responses, "openai-chat": ChatCompletions,
		"gemini": GenerateContent, "ollama": ChatCompletions, "lmstudio": ChatCompletions, "openrouter": ChatCompletions} {
		if p, ok := Lookup(name); !ok || p.API != api {
			t.Errorf("%s: %+v %v, want API %d", name, p, ok, api)
		}
	}
}
