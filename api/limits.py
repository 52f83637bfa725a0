"""The upload limit: a request body past ``max_bytes`` is answered 413, as JSON like every other
error, before it is read whole (Starlette's own limit answers in plain text)."""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLarge(HTTPException):
    """Raised while a body without a declared length is read; an HTTPException so that FastAPI passes
    it on to the app's handler (it turns other errors met while parsing a body into 400s)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, too_large(max_bytes))


def too_large(max_bytes: int) -> str:
    return f"the upload is too large (at most {max_bytes // 1_000_000} MB)"


class UploadLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await _send_413(send, self.max_bytes)
            return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        await self.app(scope, limited, send)


async def _send_413(send: Send, max_bytes: int) -> None:
    body = json.dumps({"detail": too_large(max_bytes)}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close")]  # fmt: skip
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
