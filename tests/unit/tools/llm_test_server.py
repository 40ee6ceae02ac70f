"""A local HTTP server speaking the OpenAI chat-completions protocol (plain and server-sent-events streaming)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeLlm:
    """Records every request; ``statuses`` scripts failures (popped per request); ``reply(body)`` gives the text."""

    def __init__(self, reply: Callable[[dict[str, Any]], str]) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.statuses: list[int] = []
        self.stream_status: int | None = None  # answer every streamed request with this status
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                fake.requests.append(body)
                fake.headers.append(dict(self.headers))
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": "not found"})
                    return
                if fake.statuses or (body.get("stream") and fake.stream_status):
                    status = fake.statuses.pop(0) if fake.statuses else fake.stream_status
                    self._send(status, {"error": {"message": f"scripted {status}"}})
                    return
                text = fake.reply(body)
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    first = {"choices": [{"index": 0, "delta": {"role": "assistant"}}]}
                    self.wfile.write(f"data: {json.dumps(first)}\n\n".encode())
                    pieces = text.split(" ")
                    for i, piece in enumerate(pieces):
                        delta = piece if i == len(pieces) - 1 else piece + " "
                        chunk = {"choices": [{"index": 0, "delta": {"content": delta}}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    self.wfile.write(b": keep-alive\n\ndata: [DONE]\n\n")
                    return
                self._send(200, {
                    "id": "chatcmpl-test", "object": "chat.completion", "model": body["model"],
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                 "finish_reason": "stop"}],
                })

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeLlm:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
