// Package cards authors the app cards, the in-house tools that join the
// catalog only in the All profile: todo, bg-process, task, saas-action,
// memory, enter_plan_mode and exit_plan_mode. A card that needs a host
// handle declares the interface it consumes here and degrades to a stub or
// an in-process default when the host wires none.
//
// Spec names: the Rust edition's daemon_card is [BgProcess].
package cards
