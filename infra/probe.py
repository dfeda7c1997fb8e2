#!/usr/bin/env python3
"""Dependency-free helpers for infra/stack.sh (Python 3.11 standard library only).

Subcommands:
  free-ports N                 print N distinct free loopback TCP ports, one per line
  port-free PORT               exit 0 if 127.0.0.1:PORT can be bound, 1 otherwise
  kafka-metadata HOST:PORT     send a real Kafka Metadata (v4) request; print a JSON summary
                               (brokers, topics -> partition count, leaderless partitions)
  s3-health URL                GET URL; exit 0 on HTTP 200
  s3-mkbucket BUCKET           create BUCKET if absent (SigV4-signed; 0 if it exists or was made)
  s3-head-bucket BUCKET        exit 0 if BUCKET exists and is readable with the credentials
  s3-put BUCKET KEY FILE       upload FILE as KEY (single PUT)

The S3 commands read S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY and S3_REGION from the
environment and always use path-style addressing (versitygw derives the event's bucket
name from the request path).  Every network call has a timeout.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import os
import socket
import struct
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

TIMEOUT = float(os.environ.get("PROBE_TIMEOUT", "5"))


# --------------------------------------------------------------------------- ports
def free_ports(n: int) -> list[int]:
    """Return n distinct ports that were free on 127.0.0.1 a moment ago."""
    socks: list[socket.socket] = []
    ports: list[int] = []
    try:
        while len(ports) < n:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def port_free(port: int) -> bool:
    """Whether 127.0.0.1:port can be bound right now."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


# --------------------------------------------------------------------------- kafka
class _Reader:
    def __init__(self, buf: bytes) -> None:
        self.buf, self.pos = buf, 0

    def take(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        val = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return val[0] if len(val) == 1 else val

    def string(self) -> str | None:
        n = self.take(">h")
        if n < 0:
            return None
        s = self.buf[self.pos : self.pos + n].decode()
        self.pos += n
        return s

    def int32_array(self) -> list[int]:
        return [self.take(">i") for _ in range(max(self.take(">i"), 0))]


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise ConnectionError("connection closed by broker")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def kafka_metadata(bootstrap: str) -> dict[str, Any]:
    """Metadata request v4 (non-flexible; Kafka 4.x dropped v0-v3, KIP-896)."""
    host, _, port = bootstrap.rpartition(":")
    client_id = b"tieout-probe"
    correlation_id = 7
    # request header v1: api_key, api_version, correlation_id, client_id
    header = struct.pack(">hhih", 3, 4, correlation_id, len(client_id)) + client_id
    body = struct.pack(">i?", -1, False)  # topics = null (all), allow_auto_topic_creation
    payload = header + body
    with socket.create_connection((host, int(port)), timeout=TIMEOUT) as sock:
        sock.settimeout(TIMEOUT)
        sock.sendall(struct.pack(">i", len(payload)) + payload)
        size = struct.unpack(">i", _recv_exact(sock, 4))[0]
        r = _Reader(_recv_exact(sock, size))
    if r.take(">i") != correlation_id:
        raise ValueError("correlation id mismatch")
    r.take(">i")  # throttle_time_ms
    brokers = []
    for _ in range(r.take(">i")):
        node_id, bhost, bport, _rack = r.take(">i"), r.string(), r.take(">i"), r.string()
        brokers.append({"node_id": node_id, "host": bhost, "port": bport})
    cluster_id = r.string()
    controller_id = r.take(">i")
    topics = {}
    for _ in range(r.take(">i")):
        err, name, _internal = r.take(">h"), r.string(), r.take(">?")
        parts, leaderless = 0, 0
        for _ in range(r.take(">i")):
            _perr, _idx, leader = r.take(">h"), r.take(">i"), r.take(">i")
            r.int32_array()  # replicas
            r.int32_array()  # isr  (v4 has no leader_epoch (v7+) nor offline_replicas (v5+))
            parts += 1
            leaderless += leader < 0
        topics[name] = {"error_code": err, "partitions": parts, "leaderless": leaderless}
    return {
        "cluster_id": cluster_id,
        "controller_id": controller_id,
        "brokers": brokers,
        "topics": topics,
    }


# --------------------------------------------------------------------------- s3
def _s3_env() -> tuple[str, str, str, str]:
    try:
        return (
            os.environ["S3_ENDPOINT"].rstrip("/"),
            os.environ["S3_ACCESS_KEY"],
            os.environ["S3_SECRET_KEY"],
            os.environ.get("S3_REGION", "us-east-1"),
        )
    except KeyError as exc:
        sys.exit(f"probe.py: {exc.args[0]} is not set")


def _sign(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def s3_request(method: str, bucket: str, key: str = "", body: bytes = b"") -> tuple[int, bytes]:
    """One SigV4-signed, path-style S3 request. Returns (status, body)."""
    endpoint, access, secret, region = _s3_env()
    parsed = urllib.parse.urlsplit(endpoint)
    path = "/" + urllib.parse.quote(bucket, safe="")
    if key:
        path += "/" + urllib.parse.quote(key, safe="/~")
    now = _dt.datetime.now(_dt.UTC)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    payload_hash = hashlib.sha256(body).hexdigest()
    headers = {"host": parsed.netloc, "x-amz-content-sha256": payload_hash, "x-amz-date": amz_date}
    signed = ";".join(sorted(headers))
    canonical = "\n".join(
        [method, path, "", *(f"{k}:{headers[k]}" for k in sorted(headers)), "", signed, payload_hash]
    )
    scope = f"{day}/{region}/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    k = _sign(("AWS4" + secret).encode(), day)
    for part in (region, "s3", "aws4_request"):
        k = _sign(k, part)
    signature = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = (
        f"AWS4-HMAC-SHA256 Credential={access}/{scope}, SignedHeaders={signed}, Signature={signature}"
    )
    del headers["host"]  # urllib sets it from the URL
    req = urllib.request.Request(
        endpoint + path, data=body if method == "PUT" else None, method=method, headers=headers
    )
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def s3_health(url: str) -> bool:
    """Whether a GET of url answers HTTP 200."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:
            return bool(resp.status == 200)
    except (urllib.error.URLError, OSError):
        return False


# --------------------------------------------------------------------------- main
def main(argv: list[str]) -> int:
    """Run one subcommand; return the process exit code."""
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "free-ports":
        print("\n".join(map(str, free_ports(int(args[0])))))
        return 0
    if cmd == "port-free":
        return 0 if port_free(int(args[0])) else 1
    if cmd == "kafka-metadata":
        try:
            print(json.dumps(kafka_metadata(args[0]), sort_keys=True))
            return 0
        except (OSError, ValueError, struct.error) as exc:
            print(f"kafka metadata request to {args[0]} failed: {exc!r}", file=sys.stderr)
            return 1
    if cmd == "s3-health":
        return 0 if s3_health(args[0]) else 1
    if cmd in ("s3-mkbucket", "s3-head-bucket"):
        try:
            status, body = s3_request("HEAD", args[0])
            if status == 200:
                return 0
            if cmd == "s3-head-bucket":
                print(f"HEAD bucket {args[0]}: HTTP {status}", file=sys.stderr)
                return 1
            status, body = s3_request("PUT", args[0])
        except OSError as exc:
            print(f"S3 request failed: {exc!r}", file=sys.stderr)
            return 1
        if status == 200 or b"BucketAlreadyOwnedByYou" in body:
            return 0
        print(f"create bucket {args[0]}: HTTP {status}: {body.decode(errors='replace')}", file=sys.stderr)
        return 1
    if cmd == "s3-put":
        bucket, key, path = args
        with open(path, "rb") as fh:
            data = fh.read()
        status, body = s3_request("PUT", bucket, key, data)
        if status != 200:
            print(f"put s3://{bucket}/{key}: HTTP {status}: {body.decode(errors='replace')}", file=sys.stderr)
            return 1
        return 0
    print(f"unknown subcommand {cmd!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
