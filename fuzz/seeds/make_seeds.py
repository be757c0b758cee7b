#!/usr/bin/env python3
"""Regenerates fuzz/seeds/<target>/ from the committed golden files (tests/golden/**).

Targets whose input carries a prefix (max_doc, field kinds, lengths) get the golden file with
the prefix the golden test uses, so that the seed decodes successfully and the fuzzer starts
from a valid file. Run from anywhere: python3 fuzz/seeds/make_seeds.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "..", "tests", "golden")


def golden(*p):
    with open(os.path.join(GOLDEN, *p), "rb") as f:
        return f.read()


def put(target, name, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


u16 = lambda v: struct.pack("<H", v)

put("commit_point", "segments_1", golden("v1", "segments_1"))
put("segment_info", "_0.si", golden("v1", "_0.si"))
put("field_infos", "_0.fnm", golden("v1", "_0.fnm"))

tim, doc, pos = (golden("postings", "_g." + e) for e in ("tim", "doc", "pos"))
put("postings", "golden_g", u16(len(tim)) + u16(len(doc)) + tim + doc + pos)
put("norms", "golden_g_nvd", u16(3) + golden("postings", "_g.nvd"))
# Full blocks of the current .doc version (frames of reference, top docs), 3,000 docs.
btim, bdoc, bpos = (golden("postings", "v4-blocks", "_b." + e) for e in ("tim", "doc", "pos"))
put("postings", "golden_b_v4", u16(len(btim)) + u16(len(bdoc)) + btim + bdoc + bpos)

# doc_values golden: fields 0 numeric (1), 1 sorted-set (2), 2 binary (3), 4 docs.
kinds = 1 | (2 << 2) | (3 << 4)
put("doc_values", "golden_dvd", u16(4) + u16(kinds) + golden("columns", "doc_values.dvd"))
# points golden: field 0 8-byte keys, field 1 16-byte keys, 4 docs.
put("points", "golden_pts", u16(4) + bytes([8, 16, 0, 0]) + golden("columns", "points.pts"))
put("stored", "golden_fdt", u16(3) + golden("columns", "stored.fdt"))
put("stored", "golden_fdt_v2", u16(3) + golden("columns", "stored_v2.fdt"))
put("live_docs", "golden_liv", u16(10) + golden("columns", "live_docs.liv"))
put("live_docs", "golden_liv_any", u16(0xFFFF) + golden("columns", "live_docs.liv"))

tlog, ckp = golden("translog", "translog-1.tlog"), golden("translog", "translog.ckp")
put("translog", "translog-1.tlog", tlog)
put("translog", "translog.ckp", ckp)
put("translog", "ckp_then_tlog", ckp + tlog)
# First frame payload alone: an Operation::decode seed.
(n,) = struct.unpack("<I", tlog[51:55])
put("translog", "operation", tlog[55:55 + n])

# codec: selector byte (0 reader program, 1 headers, 2 unpack, 3 round trip) + bytes.
put("codec", "headers_fnm", b"\x01" + golden("v1", "_0.fnm"))
put("codec", "headers_ckp", b"\x01" + ckp)
put("codec", "reader", b"\x00" + bytes(range(16)) + golden("v1", "segments_1"))
put("codec", "unpack", b"\x02" + bytes([7, 128]) + doc[:200])
put("codec", "round_trip", b"\x03" + bytes([13]) + tim[:256])

# round_trip: arbitrary-derived input; any bytes are a valid seed.
put("round_trip", "from_golden_source", golden("columns", "stored.fdt"))
put("round_trip", "from_golden_tlog", tlog)

# transport_frame: frames as format/transport.md lays them out (not golden files: built here).
import json
import zlib


def frame(flags, request_id, action, body):
    head = b"FTRP" + bytes([1, flags]) + u16(0) + struct.pack("<Q", request_id)
    head += u16(len(action)) + struct.pack("<I", len(body)) + action + body
    return head + struct.pack("<I", zlib.crc32(head))


hello = json.dumps({"node": {"node_id": "n1", "node_name": "node-1", "cluster_name": "fathom",
                             "version": "3.3.0", "address": "127.0.0.1:9300"},
                    "protocol": 1, "min_protocol": 1}).encode()
err = json.dumps({"type": "index_not_found_exception", "reason": "no such index [logs]", "status": 404,
                  "meta": {"index": "logs"}, "caused_by": {"type": "exception", "reason": "x", "status": 500,
                                                           "meta": {}}}).encode()
put("transport_frame", "request_ping", frame(0, 7, b"ping", b"{}"))
put("transport_frame", "handshake", frame(4, 1, b"", hello))
put("transport_frame", "stream", frame(5, 1, b"", hello) + frame(1, 7, b"", b"pong") + frame(3, 8, b"", err))
