"""The test proxy (tests.support.proxy.Switch) hangs up on the target when it is closed mid-request."""

from __future__ import annotations

import asyncio
import socket

from tests.support.proxy import Switch


def test_closing_the_switch_closes_its_connections_to_the_target() -> None:
    async def main() -> bytes:
        got: asyncio.Queue[bytes] = asyncio.Queue()

        async def target(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await got.put(await reader.readuntil(b"\n"))  # a request, never answered
            await got.put(await reader.read())  # then EOF: b"" once the proxy hangs up
            writer.close()

        server = await asyncio.start_server(target, "127.0.0.1", 0)
        switch = Switch("127.0.0.1", server.sockets[0].getsockname()[1])
        switch.turn_on()
        client = socket.create_connection(("127.0.0.1", switch.port), timeout=10)
        try:
            client.sendall(b"POST\n")
            assert await asyncio.wait_for(got.get(), 60) == b"POST\n"
            await asyncio.to_thread(switch.close)  # the client is still connected, waiting
            return await asyncio.wait_for(got.get(), 60)  # liveness bound
        finally:
            client.close()
            server.close()

    assert asyncio.run(main()) == b""
