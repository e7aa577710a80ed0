package provider

import "strings"

// Price is a model's list price in US dollars per million tokens.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// Cost is what u costs at p.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead + float64(u.CacheWriteTokens)*p.CacheWrite) / 1e6
}

// PriceOf returns the list price of a model, matched by the longest known
// prefix of its name; the zero Price (cost 0) for a model without one,
// such as a local model.
func PriceOf(m ModelID) Price {
	if m.Provider != "anthropic" && m.Provider != "openai" {
		return Price{}
	}
	var best Price
	n := 0
	for _, row := range prices() {
		if strings.HasPrefix(m.Name, row.prefix) && len(row.prefix) > n {
			best, n = row.Price, len(row.prefix)
		}
	}
	return best
}

type priceRow struct {
	prefix string
	Price
}

// prices are the providers' published list prices (anthropic.com/pricing,
// openai.com/api/pricing); cache writes at Anthropic's 5-minute rate.
func prices() []priceRow {
	return []priceRow{
		{"claude-opus-4-5", Price{5, 25, 0.5, 6.25}},
		{"claude-opus-4", Price{15, 75, 1.5, 18.75}},
		{"claude-sonnet-4", Price{3, 15, 0.3, 3.75}},
		{"claude-3-7-sonnet", Price{3, 15, 0.3, 3.75}},
		{"claude-haiku-4", Price{1, 5, 0.1, 1.25}},
		{"claude-3-5-haiku", Price{0.8, 4, 0.08, 1}},
		{"gpt-5", Price{1.25, 10, 0.125, 0}},
		{"gpt-5-mini", Price{0.25, 2, 0.025, 0}},
		{"gpt-5-nano", Price{0.05, 0.4, 0.005, 0}},
		{"gpt-4.1", Price{2, 8, 0.5, 0}},
		{"gpt-4.1-mini", Price{0.4, 1.6, 0.1, 0}},
		{"gpt-4o", Price{2.5, 10, 1.25, 0}},
		{"gpt-4o-mini", Price{0.15, 0.6, 0.075, 0}},
		{"o3", Price{2, 8, 0.5, 0}},
		{"o4-mini", Price{1.1, 4.4, 0.275, 0}},
	}
}
