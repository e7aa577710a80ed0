#!/usr/bin/env python3
"""A Tier-1 addon in Python (standard library only).

It speaks the addon protocol (docs/addon-protocol.md): JSON-RPC 2.0, one
message per line on stdin and stdout; anything for a human goes to stderr,
which the host keeps in .indusvx/addon-logs/py-redact.log.

- an interceptor around `read` whose exit stage blanks out API keys
  (sk-..., ghp_..., AKIA...) in what the model gets back;
- a gate on `write` that refuses to write a .env file;
- a command, `redactions`, that says how many keys it blanked out.
"""
import json
import re
import sys

KEY = re.compile(r"\b(sk-[A-Za-z0-9_-]{16,}|ghp_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16})\b")
PROTOCOL = "1"
redacted = 0


def declarations():
    return {
        "protocolVersion": PROTOCOL,
        "handlers": [
            {"id": "no-dotenv", "event": "tool:before", "kind": "gate", "tool": "write"},
        ],
        "interceptors": [
            {"id": "redact-read", "tool": "read", "enter": False, "exit": True},
        ],
        "commands": [
            {"name": "redactions", "summary": "how many keys py-redact blanked out"},
        ],
    }


def gate(params):
    args = params["payload"].get("args") or {}
    path = str(args.get("path", ""))
    name = path.rsplit("/", 1)[-1]
    if name == ".env" or name.startswith(".env."):
        return {"stop": True, "reason": "py-redact: .env files hold secrets; write them yourself"}
    return {"stop": False}


def tool_exit(params):
    global redacted
    result = params["result"]
    changed = False
    for block in result.get("content", []):
        if block.get("type") == "text":
            text, n = KEY.subn("[redacted]", block.get("text", ""))
            if n:
                block["text"], changed = text, True
                redacted += n
    if not changed:
        return {"action": "continue"}
    return {"action": "rewrite", "result": result}


def handle(method, params):
    if method == "initialize":
        print(f"py-redact: addon {params['addon']}, protocol {params['protocolVersion']}", file=sys.stderr)
        return declarations()
    if method == "event/gate":
        return gate(params)
    if method == "tool/exit":
        return tool_exit(params)
    if method == "command/run":
        return {"stdout": f"{redacted} key(s) redacted\n", "code": 0}
    if method in ("ping", "shutdown"):
        return {}
    raise LookupError(method)


def main():
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            print("py-redact: a line that is not JSON", file=sys.stderr)
            continue
        if "id" not in msg:
            continue  # initialized, event/observe, $/cancelRequest
        reply = {"jsonrpc": "2.0", "id": msg["id"]}
        try:
            reply["result"] = handle(msg.get("method"), msg.get("params") or {})
        except LookupError as e:
            reply["error"] = {"code": -32601, "message": f"method not found: {e}"}
        except Exception as e:  # a bug here must not kill the addon
            reply["error"] = {"code": -32603, "message": repr(e)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if msg.get("method") == "shutdown":
            return


if __name__ == "__main__":
    main()
