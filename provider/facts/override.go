package facts

import (
	"errors"
	"fmt"
	"math"
)

// Override is the user's correction of a model's facts, from the
// "models" object of settings.json: a local model served with a larger
// window, a negotiated price, a model the catalog does not list yet.
// Unset fields keep the catalog's value.
type Override struct {
	ContextWindow int64          `json:"contextWindow,omitempty"`
	MaxOutput     int64          `json:"maxOutput,omitempty"`
	Price         *PriceOverride `json:"price,omitempty"`
	Reasoning     *bool          `json:"reasoning,omitempty"`
	Images        *bool          `json:"images,omitempty"`
}

// PriceOverride is a price in US dollars per million tokens; unset
// fields keep the catalog's value.
type PriceOverride struct {
	Input      *float64 `json:"input,omitempty"`
	Output     *float64 `json:"output,omitempty"`
	CacheRead  *float64 `json:"cacheRead,omitempty"`
	CacheWrite *float64 `json:"cacheWrite,omitempty"`
}

func (o Override) check() error {
	if o.ContextWindow < 0 || o.MaxOutput < 0 {
		return errors.New("contextWindow and maxOutput are token counts and cannot be negative")
	}
	if p := o.Price; p != nil {
		for _, f := range []struct {
			name string
			v    *float64
		}{{"input", p.Input}, {"output", p.Output}, {"cacheRead", p.CacheRead}, {"cacheWrite", p.CacheWrite}} {
			if f.v != nil && (*f.v < 0 || math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
				return fmt.Errorf("price.%s is %v: give US dollars per million tokens, 0 or more", f.name, *f.v)
			}
		}
	}
	return nil
}

func (o Override) apply(m Model) Model {
	if o.ContextWindow > 0 {
		m.ContextWindow = o.ContextWindow
	}
	if o.MaxOutput > 0 {
		m.MaxOutput = o.MaxOutput
	}
	if p := o.Price; p != nil {
		set := func(dst *float64, v *float64) {
			if v != nil {
				*dst = *v
			}
		}
		set(&m.Price.Input, p.Input)
		set(&m.Price.Output, p.Output)
		set(&m.Price.CacheRead, p.CacheRead)
		set(&m.Price.CacheWrite, p.CacheWrite)
	}
	if o.Reasoning != nil {
		m.Reasoning = *o.Reasoning
	}
	if o.Images != nil {
		m.Images = *o.Images
	}
	return m
}
