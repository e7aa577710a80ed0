"""A Tier-1 addon that observes every event and appends its name to
events-log/events.log in the workspace (the one folder its manifest grants
it to write), one per line, in the order it hears them."""
import json
import os
import sys

EVENTS = ["session:start", "session:end", "turn:start", "turn:end", "tool:before",
          "tool:after", "chat:params", "chat:message", "shell:env", "input:submit",
          "context:build", "compact:build", "compact:before"]

log = None
for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if method == "initialize":
        log = open(os.path.join(msg["params"]["workspace"], "events-log", "events.log"), "a", buffering=1)
    if method == "event/observe":
        log.write(msg["params"]["event"] + "\n")
        continue
    if mid is None:
        continue
    if method == "initialize":
        handlers = [{"id": "log-" + e.replace(":", "-"), "event": e, "kind": "observe"} for e in EVENTS]
        result = {"protocolVersion": "1", "handlers": handlers}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\n")
    sys.stdout.flush()
    if method == "shutdown":
        break
