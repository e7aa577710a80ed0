// Package tool is the callable currency of induscode: every built-in tool, app
// card, grafted MCP tool and addon tool is a [Tool].
//
// A Tool describes itself with a [Spec] (wire name, label, model-facing
// description, JSON Schema of its input, read-only flag) and runs with
// [Tool.Run], which never returns a Go error: failures the model should see are
// a [Result] with IsError set. [New] builds a Tool from a typed Go handler and
// infers the input schema from the handler's input struct, validating input
// against it before the handler runs; [WithSchema] adds what a Go type
// cannot say (defaults, bounds, enums) and is the one way tools adjust an
// inferred schema. A tool that can name the files a call will change is a
// [FileChanger] (built with [ChangesFiles]); hosts checkpoint those files
// first. Specs leave their tools as copies ([CloneSpec]): tool values are
// shared by every deck of a process, and no caller may change what another
// sees.
//
// [Env] is the per-session environment a tool runs in: the working directory,
// the workspace roots writes are confined to, the [ReadState] that backs the
// read-before-edit gate, and a small keyed store for state that several tools of
// one session share (the checklist of todo_read and todo_set). Tools that
// start things outliving a call (background processes) register cleanup
// with [Env.OnClose]; the host ends the session with [Env.Close].
package tool
