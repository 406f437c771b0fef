"""Lists an MCP server's tools over stdio: `python3 list_tools.py OUT.json -- COMMAND ARGS…`.

Sends `initialize`, `notifications/initialized` and `tools/list` (following `nextCursor`), and
writes `{"tools": [...]}` exactly as the server returned them.
"""
import json
import subprocess
import sys


def main() -> None:
    out_path = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1 :]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def send(message: dict) -> None:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    def receive(request_id: int) -> dict:
        for line in proc.stdout:
            line = line.strip()
            if not line:
                continue
            message = json.loads(line)
            if message.get("id") == request_id:
                if "error" in message:
                    raise SystemExit(f"server error: {message['error']}")
                return message["result"]
        raise SystemExit("the server closed its output")

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "schemalens-list-tools", "version": "1"}}})
    info = receive(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools, cursor, request_id = [], None, 2
    while True:
        send({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"cursor": cursor} if cursor else {}})
        result = receive(request_id)
        tools.extend(result["tools"])
        cursor = result.get("nextCursor")
        request_id += 1
        if not cursor:
            break
    proc.terminate()
    with open(out_path, "w") as f:
        json.dump({"tools": tools}, f, indent=2)
        f.write("\n")
    print(f"{out_path}: {len(tools)} tools from {info.get('serverInfo')}", file=sys.stderr)


if __name__ == "__main__":
    main()
