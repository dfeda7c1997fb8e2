"""A TCP proxy that can be switched off and on: a real server made unreachable, then reachable again."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading


class Switch:
    """Forwards 127.0.0.1:<port> to a target while ``up``; refuses connections while down."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.up = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.server: asyncio.base_events.Server | None = None
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    async def _pipe(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        try:
            with contextlib.suppress(Exception):
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
        finally:
            # Also when close() cancels the pipe: a connection left open to a model server keeps it
            # decoding for a client that is gone.
            with contextlib.suppress(Exception):
                w.close()

    async def _handle(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        tr, tw = await asyncio.open_connection(*self.target)
        await asyncio.gather(self._pipe(r, tw), self._pipe(tr, w))

    async def _start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)

    async def _stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None

    def turn_on(self) -> None:
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)
        self.up.set()

    def turn_off(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(10)
        self.up.clear()

    async def _cancel_all(self) -> None:
        tasks = [t for t in asyncio.all_tasks(self.loop) if t is not asyncio.current_task()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        self.turn_off()
        asyncio.run_coroutine_threadsafe(self._cancel_all(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
