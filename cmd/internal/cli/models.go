package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"
)

// Models lists the models the agent knows: the program indusr-agent
// supplies one, since what is known of models (package provider/facts)
// is the agent's; indusr execs indusr-agent for it, as for -p.
type Models func(ctx context.Context, r ModelsRun) error

// ModelsRun is what `indusr models` is given by the command line.
type ModelsRun struct {
	// Provider narrows the list to one provider ("" is all).
	Provider string
	// JSON asks for one JSON array of models.
	JSON           bool
	Stdout, Stderr io.Writer
	// WorkDir returns the session's directory (whose settings may
	// correct what is known of models).
	WorkDir func() (string, error)
}

func newModelsCmd(prog Program, opts *options, all []string) *cobra.Command {
	var providerName string
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List the models the agent knows, with context windows and prices",
		Long: "Lists the models of the model catalog (windows, output limits, list prices per million tokens, " +
			"reasoning and image support), corrected by the \"models\" of settings, and the models local servers " +
			"(Ollama, LM Studio) serve, with the window each runs them with. Model ids are provider/model, as --model takes them.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if prog.Models == nil {
				return execAgent(all)
			}
			return prog.Models(cmd.Context(), ModelsRun{
				Provider: providerName, JSON: opts.JSON,
				Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(),
				WorkDir: func() (string, error) { return workDir(opts) },
			})
		},
	}
	cmd.Flags().StringVar(&providerName, "provider", "", "only this provider's models (anthropic, openai, bedrock, vertex, gemini, ollama, ...)")
	return cmd
}
