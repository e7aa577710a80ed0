// Package cards authors the app cards, the in-house tools that join the
// catalog only in the All profile: todo, bg-process, task, saas-action,
// memory, enter_plan_mode and exit_plan_mode. A card that needs a host
// handle declares the interface it consumes here ([DelegateRunner],
// [SaasGateway], [MemoryStore]); without one, task and saas-action answer
// with a "not configured" error that says how to wire it, and memory keeps
// an in-process store per session. One real implementation of each ships
// here: [CommandRunner], [HTTPGateway] and [FileMemory].
//
// # The HTTP gateway contract
//
// [HTTPGateway] sends POST requests with a JSON body to two paths under
// its URL, with "Authorization: Bearer <token>" when a token is set:
//
//	POST <URL>/discover  {"query": "github"}
//	200                  {"actions": [{"slug": "GITHUB_CREATE_ISSUE",
//	                       "description": "…", "input_schema": {…}}]}
//
//	POST <URL>/execute   {"slug": "GITHUB_CREATE_ISSUE", "params": {…}}
//	200                  {"result": <any JSON value>}
//
// An empty query lists every action. A failure is any status other than
// 200, or a 200 answer of the form {"error": "message"}; the message
// reaches the model. Slugs are passed through exactly as given.
package cards
