package cards

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/indusagi/induscode/tool"
)

// SaasAction is one action a gateway offers: a vendor slug such as
// GITHUB_CREATE_ISSUE, what it does, and the JSON Schema of its params.
type SaasAction struct {
	Slug        string          `json:"slug"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// SaasGateway reaches third-party services for the saas-action card.
// Discover lists the actions matching query ("" lists them all); Execute
// runs one by slug and returns its JSON result. Slugs pass through
// verbatim in both directions.
type SaasGateway interface {
	Discover(ctx context.Context, query string) ([]SaasAction, error)
	Execute(ctx context.Context, slug string, params json.RawMessage) (json.RawMessage, error)
}

type saasInput struct {
	Action string         `json:"action" jsonschema:"discover or execute."`
	Slug   string         `json:"slug,omitempty" jsonschema:"execute: the action's slug exactly as discover listed it (GITHUB_CREATE_ISSUE). discover: an optional search term."`
	Params map[string]any `json:"params,omitempty" jsonschema:"execute: the action's arguments, matching the input_schema discover showed."`
}

// maxSaasResult bounds the text of one result; a SaaS API can answer
// with megabytes (a whole issue list), which no model should read at once.
const maxSaasResult = 50_000

// saasSchema is a package value: the card is built per deck, the schema
// once.
var saasSchema = tool.WithSchema(func(s *jsonschema.Schema) {
	tool.SetEnum(s, "action", "discover", "execute")
})

// SaasActionCard returns the saas-action card over gw. A nil gateway
// gives a card that answers every call with a "not configured" result.
func SaasActionCard(gw SaasGateway) tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:  "saas-action",
		Label: "SaaS actions",
		Description: "Act on connected third-party services (issue trackers, chat, mail, calendars) through the host's " +
			"gateway. First action=discover (optionally with slug as a search term) to see the available actions and " +
			"their parameters; then action=execute with the exact slug (for example GITHUB_CREATE_ISSUE) and params.",
	}, func(ctx context.Context, in saasInput, _ *tool.Env) tool.Result {
		if gw == nil {
			return notConfigured("saas-action", "SaaS gateway",
				"A host sets deck.Framework.Saas, for example to a cards.HTTPGateway with the gateway's URL and token.")
		}
		switch in.Action {
		case "discover":
			actions, err := gw.Discover(ctx, strings.TrimSpace(in.Slug))
			if err != nil {
				return tool.Errorf("saas-action discover failed: %v", err)
			}
			return renderActions(in.Slug, actions)
		case "execute":
			if strings.TrimSpace(in.Slug) == "" {
				return tool.Errorf("saas-action execute needs slug: the action to run, as discover listed it")
			}
			params := json.RawMessage(`{}`)
			if in.Params != nil {
				params, _ = json.Marshal(in.Params) // decoded from JSON, so it encodes
			}
			out, err := gw.Execute(ctx, in.Slug, params)
			if err != nil {
				return tool.Errorf("saas-action %s failed: %v", in.Slug, err)
			}
			text := string(out)
			if len(text) > maxSaasResult {
				text = strings.ToValidUTF8(text[:maxSaasResult], "") +
					fmt.Sprintf("\n[result truncated: %d of %d bytes shown]", maxSaasResult, len(out))
			}
			return tool.Textf("%s succeeded:\n%s", in.Slug, text)
		}
		return tool.Errorf("saas-action: unknown action %q; use discover or execute", in.Action)
	}, saasSchema))
}

func renderActions(query string, actions []SaasAction) tool.Result {
	if len(actions) == 0 {
		if query != "" {
			return tool.Textf("No actions match %q; try a broader term or discover without slug.", query)
		}
		return tool.Text("The gateway offers no actions.")
	}
	var sb strings.Builder
	if len(actions) == 1 {
		sb.WriteString("1 action:\n")
	} else {
		fmt.Fprintf(&sb, "%d actions:\n", len(actions))
	}
	for _, a := range actions {
		fmt.Fprintf(&sb, "\n%s", a.Slug)
		if a.Description != "" {
			fmt.Fprintf(&sb, " — %s", a.Description)
		}
		if len(a.InputSchema) > 0 {
			fmt.Fprintf(&sb, "\n  params: %s", a.InputSchema)
		}
	}
	res := tool.Text(sb.String())
	res.Blocks = append(res.Blocks, tool.JSONBlock(map[string]any{"actions": actions}))
	return res
}
