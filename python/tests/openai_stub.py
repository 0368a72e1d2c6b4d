"""A scripted OpenAI-compatible chat-completions server for the tests
(aiohttp, on its own thread and event loop): ``POST /v1/chat/completions``
as JSON or as server-sent events (with a usage chunk when
``stream_options.include_usage``), and ``GET /v1/models``. The reply to a
request is ``script[k]``, ``k`` the number of assistant messages the request
already holds (the last line repeats past the end); every request body is
kept in ``requests``."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from typing import List

from aiohttp import web


class OpenAIStub:
    def __init__(self, script: List[str], model: str = "stub-model"):
        self.script = list(script)
        self.model = model
        self.requests: List[dict] = []
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._runner = None
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def reply(self, messages: List[dict]) -> str:
        k = sum(1 for m in messages if m.get("role") == "assistant")
        return self.script[min(k, len(self.script) - 1)]

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        text = self.reply(body.get("messages", []))
        cid = "chatcmpl-" + uuid.uuid4().hex[:12]
        created = int(time.time())
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        model = body.get("model", self.model)
        if not body.get("stream"):
            return web.json_response({
                "id": cid, "object": "chat.completion", "created": created, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop", "logprobs": None}],
                "usage": usage,
            })
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        base = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model}

        async def send(obj: dict) -> None:
            await resp.write(f"data: {json.dumps(obj)}\n\n".encode())

        await send({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                         "finish_reason": None}]})
        await send({**base, "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})
        await send({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            await send({**base, "choices": [], "usage": usage})
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    async def _models(self, _request: web.Request) -> web.Response:
        model = {"id": self.model, "object": "model", "owned_by": "stub"}
        return web.json_response({"object": "list", "data": [model]})

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def start() -> None:
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self._chat)
            app.router.add_get("/v1/models", self._models)
            self._runner = web.AppRunner(app)
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            await site.start()
            port = site._server.sockets[0].getsockname()[1]
            self.url = f"http://127.0.0.1:{port}/v1"

        self._loop.run_until_complete(start())
        self._ready.set()
        self._loop.run_forever()

    def __enter__(self) -> "OpenAIStub":
        self._thread.start()
        if not self._ready.wait(60):
            raise RuntimeError("the OpenAI stub did not start")
        return self

    def __exit__(self, *exc) -> None:
        async def stop() -> None:
            await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
