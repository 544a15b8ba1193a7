"""Server data frames against RFC 6455's own examples (section 5.7): unmasked, unfragmented."""

from __future__ import annotations

from service.ws.wire import FrameCache, ws_frame


def test_rfc_6455_5_7_examples():
    assert ws_frame(b"Hello", binary=False) == bytes([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    body = bytes(256)
    assert ws_frame(body, binary=True) == bytes([0x82, 0x7E, 0x01, 0x00]) + body
    body = bytes(65536)
    assert ws_frame(body, binary=True) == bytes([0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0]) + body


def test_the_length_forms_switch_at_126_and_65536():
    assert ws_frame(bytes(125), True)[:2] == bytes([0x82, 125])
    assert ws_frame(bytes(126), True)[:4] == bytes([0x82, 126, 0, 126])
    assert ws_frame(bytes(65535), True)[:4] == bytes([0x82, 126, 0xFF, 0xFF])
    assert ws_frame(bytes(0), False) == bytes([0x81, 0])


def test_a_broadcast_payload_is_framed_once_and_others_are_framed_anew():
    cache = FrameCache()
    payload = b"\x81\xa4type\xa4ping"
    first = cache.frame(payload, True)
    assert first == ws_frame(payload, True)
    assert cache.frame(payload, True) is first  # the same payload object: the same frame bytes
    other = bytes(bytearray(payload))  # equal bytes, another object
    assert cache.frame(other, True) == first
    assert cache.frame(b'{"type":"ping"}', False) == ws_frame(b'{"type":"ping"}', False)
    assert cache.frame(b"", True) == bytes([0x82, 0])
