// Package cards authors the app cards, the in-house tools that join the
// catalog only in the All profile. The spec names seven (todo, bg-process,
// task, saas-action, memory, enter_plan_mode, exit_plan_mode); bg-process
// is here today and the others join as they are written. A card that needs a host
// handle declares the interface it consumes here and degrades to a stub or
// an in-process default when the host wires none.
//
// Spec names: the Rust edition's daemon_card is [BgProcess].
package cards
