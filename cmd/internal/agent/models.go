package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/indusagi/induscode/cmd/internal/cli"
	"github.com/indusagi/induscode/conductor"
	"github.com/indusagi/induscode/provider"
	"github.com/indusagi/induscode/provider/connect"
	"github.com/indusagi/induscode/provider/facts"
)

// modelRow is one model as `indusr models --json` prints it.
type modelRow struct {
	ID            string    `json:"id"`
	Name          string    `json:"name,omitempty"`
	ContextWindow int64     `json:"context_window,omitempty"`
	MaxOutput     int64     `json:"max_output,omitempty"`
	Price         *priceRow `json:"price_per_million,omitempty"`
	Reasoning     bool      `json:"reasoning"`
	Images        bool      `json:"images"`
	// Source is "catalog", "settings", "catalog+settings" or "server"
	// (what a local server serves).
	Source string `json:"source"`
}

type priceRow struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// runModels is `indusr models`: the catalog's models (with the settings'
// corrections) and what local servers serve.
func runModels(ctx context.Context, r cli.ModelsRun) error {
	if r.Provider != "" {
		if _, ok := provider.Lookup(r.Provider); !ok {
			var names []string
			for _, p := range provider.Providers() {
				names = append(names, p.Name)
			}
			return cli.Usagef("--provider %q: providers are %s", r.Provider, strings.Join(names, ", "))
		}
	}
	dir, err := r.WorkDir()
	if err != nil {
		return err
	}
	settings, err := conductor.LoadSettings(dir)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	cat, err := facts.New(settings.Models)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	var rows []modelRow
	for _, p := range provider.Providers() {
		if r.Provider != "" && p.Name != r.Provider {
			continue
		}
		if !connect.IsLocal(p.Name) {
			for _, m := range cat.List(p.Name) {
				rows = append(rows, rowOf(m, string(m.Source)))
			}
			continue
		}
		served, err := connect.ServedModels(ctx, p.Name, connect.Config{})
		if err != nil {
			if r.Provider != "" {
				return cli.Failure(err)
			}
			continue // listing everything: a local server that is not running serves nothing
		}
		for _, s := range served {
			id := provider.ModelID{Provider: p.Name, Name: s.Name}
			m, ok := cat.Lookup(id)
			if !ok || m.ContextWindow == 0 {
				m.ContextWindow = s.ContextWindow
			}
			rows = append(rows, rowOf(m, "server"))
		}
		for _, m := range cat.List(p.Name) { // models only settings name
			if !servedHas(served, m.ID.Name) {
				rows = append(rows, rowOf(m, string(m.Source)))
			}
		}
	}
	if r.JSON {
		if rows == nil {
			rows = []modelRow{}
		}
		return json.NewEncoder(r.Stdout).Encode(rows)
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(r.Stdout, "no models known")
		return err
	}
	w := tabwriter.NewWriter(r.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "MODEL\tWINDOW\tMAX OUT\t$ IN/M\t$ OUT/M\t$ CACHE READ/M\t$ CACHE WRITE/M\tREASONS\tIMAGES\tFROM")
	for _, m := range rows {
		in, out, cr, cw := "-", "-", "-", "-"
		if p := m.Price; p != nil {
			in, out, cr, cw = money(p.Input), money(p.Output), money(p.CacheRead), money(p.CacheWrite)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, tokens(m.ContextWindow), tokens(m.MaxOutput),
			in, out, cr, cw, yes(m.Reasoning), yes(m.Images), m.Source)
	}
	return w.Flush()
}

func rowOf(m facts.Model, source string) modelRow {
	r := modelRow{ID: m.ID.String(), Name: m.Name, ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput,
		Reasoning: m.Reasoning, Images: m.Images, Source: source}
	if p := m.Price; p != (provider.Price{}) {
		r.Price = &priceRow{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite}
	}
	return r
}

func servedHas(served []connect.Served, name string) bool {
	for _, s := range served {
		if s.Name == name {
			return true
		}
	}
	return false
}

func tokens(n int64) string {
	if n <= 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

// money shows a price in dollars to a hundredth of a cent, as price
// lists do.
func money(v float64) string { return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64) }

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
