"""``hubcam serve`` as a real process for the tests that need one (the crash test, the page test)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx2


def start_server(db_url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    """The service on 127.0.0.1:``port``, once its /health answers; its output appended to ``log``."""
    command = [sys.executable, "-m", "api.cli", "serve", "--port", str(port), "--db", db_url]
    with log.open("ab") as out:
        env = os.environ | {"PYTHONUNBUFFERED": "1"}
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    for _ in range(600):
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return server
        except httpx2.TransportError:
            if server.poll() is not None:
                break
            time.sleep(0.1)
    server.kill()
    raise AssertionError(f"the server did not come up: {log.read_text()[-2000:]}")
