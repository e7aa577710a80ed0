// Package deck keeps the catalog of induscode's tools and provisions decks
// from it.
//
// The catalog is one slice of [Card] rows, built-in tools first in the
// catalog order and then the app cards; every lookup ([Index], [IDs], [Has],
// [Find], [ProfilesOf], [CardsFor]) is derived from that slice so nothing can
// drift. [Provision] selects the rows of a [Profile], builds each against a
// [Setup] and returns a [Deck]; [Deck.Box] turns it into the runner that
// executes calls by name and turns every failure (unknown name, panic,
// cancellation, deadline) into an IsError result. Each deck tool runs under
// a watcher (watch.go) that lets a call return when its context ends even
// if the tool ignores it; wrappers a host maps over the deck ([Deck.Map],
// the addons' boundary) sit outside the watcher and run on the caller's
// goroutine.
package deck
