// Package intent turns a modality's typed commands into tools an AI agent
// can call, and applies them through a session that owns the document.
//
// An intent family is a set of Go structs, one per variant, registered
// explicitly with [Of] and [NewSet]: each variant gets a tool name (the
// snake_case of its type unless given), a description, an input schema
// inferred by [tool.Schema], and may be hidden from the model while staying
// dispatchable. A [Session] applies one intent at a time (reduce,
// recompile, commit, emit, under one lock) and collects what the reducer
// tells the agent; [Tools] wraps any [Dispatcher] (a leaf session, a
// [Parent], or one of its children) as tool.Tool values a deck can graft,
// and [ToolsPerEnv] gives every deck session a document of its own.
//
// Names other tool layers use: the CommandTool derive is [Of] plus
// [NewSet] (Go cannot read doc comments at run time, so descriptions are
// given in [Meta]); tool_definitions, tool_names and from_tool_call are
// [Set.Definitions], [Set.Names] and [Set.Parse]; SessionTool and
// create_tools are [Tools]; the AgentService is [Agent] with its events
// [Event]; ParentSessionIntent's Child and WarmChild are
// [Parent.DispatchChild] and [Parent.Warm]; wrap_modality is not needed,
// since a parent's own intents and each child's have a [Dispatcher] of
// their own ([Parent.At]), and [ChildTools] lets the model name the child
// in the call.
package intent
