#!/usr/bin/env python3
"""Writes the seed corpora in fuzz/corpus/<target>/: a few valid frames and meaningful sequences,
so that fuzzing starts from whole games rather than from nothing. Run from anywhere; rewrites
only the seed-*.bin files it makes (files libFuzzer adds are left alone).

The structured targets take their input through `arbitrary` 1.5 (see fuzz/Cargo.lock); this
mirrors its layout: integers little-endian in their own width, bool = byte & 1, an enum's
variant from a u32 v as (v * variants) >> 32, a struct's fields in order, and the top-level
Vec (the last field) as repeated [1, element] ended by [0].
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"seed-{name}.bin"), "wb") as f:
        f.write(data)


def variant(i, n):
    """The u32 that `arbitrary` turns into variant i of n."""
    v = ((2 * i + 1) << 32) // (2 * n)
    assert (v * n) >> 32 == i
    return struct.pack("<I", v)


def b(x):
    return bytes([1 if x else 0])


def u8(x):
    return bytes([x])


def vec(items):
    return b"".join(b"\x01" + item for item in items) + b"\x00"


# ---- client_frame: first byte even = text, odd = binary ----------------------------------------

JSON_FRAMES = [
    {"hello": {"version": 2}},
    {"ping": {"id": 1}},
    {"watch_lobby": {"id": 2}},
    {"create_room": {"id": 1, "room": {"game": "infinite", "opponent": {"player": {"joining": "open"}}, "time_per_move_s": 10}}},
    {"create_room": {"id": 1, "room": {"game": "xo", "opponent": {"player": {"joining": {"passcode": {"code": "0420"}}}}}}},
    {"create_room": {"id": 1, "room": {"game": "xo", "opponent": {"bot": {"difficulty": 100, "side": "O"}}}}},
    {"create_room": {"room": {"game": "infinite", "opponent": {"local": {"names": ["Sara", "Omar"]}}}}},
    {"open": {"id": 3, "room": "zd8yup"}},
    {"join": {"id": 4, "room": "zd8yup", "passcode": "0420"}},
    {"accept": {"id": 5, "user": 2}},
    {"ready": {"id": 6, "ready": True}},
    {"move": {"id": 8, "cell": 4}},
    {"answer_draw": {"id": 10, "accept": False}},
    "close",
]

# postcard: variant index as varint, Option as 0 / 1 + value, strings as length + bytes.
POSTCARD_FRAMES = {
    "hello": bytes([0, 1]),
    "move": bytes([14, 1, 7, 4]),
    "join": bytes([7, 1, 4, 6]) + b"zd8yup" + bytes([1, 4]) + b"0420",
    "create-passcode": bytes([4, 1, 1, 1, 0, 2, 4]) + b"0420" + bytes([1, 10]),
    "create-bot": bytes([4, 1, 1, 0, 1, 1, 100, 1, 1, 0]),
    "create-local": bytes([4, 0, 0, 2, 4]) + b"Sara" + bytes([4]) + b"Omar" + bytes([0]),
    "ready": bytes([12, 0, 1]),
    "accept": bytes([9, 1, 5, 2]),
    "undo-big-id": bytes([20, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
}


def client_frame():
    for i, msg in enumerate(JSON_FRAMES):
        write("client_frame", f"json-{i:02}", b"\x00" + json.dumps(msg, separators=(",", ":")).encode())
    for name, data in POSTCARD_FRAMES.items():
        write("client_frame", f"postcard-{name}", b"\x01" + data)


# ---- engine_record: Input { infinite: bool, ops: Vec<Op> }, Op = Play(u8) | Undo(u8) ------------


def play(c):
    return variant(0, 2) + u8(c)


def undo(n):
    return variant(1, 2) + u8(n)


def engine_record():
    # XO: a win, undo, a full board.
    write("engine_record", "xo-win-undo", b(False) + vec([play(c) for c in [4, 1, 0, 2, 8]] + [undo(1), play(8), play(4), undo(3)]))
    write("engine_record", "xo-full", b(False) + vec([play(c) for c in [0, 1, 2, 4, 3, 5, 7, 6, 8]] + [undo(2)]))
    # Infinite XO: R-INF-3 (removal before the win check), then a threefold repetition and undo.
    write("engine_record", "inf-removal-win", b(True) + vec([play(c) for c in [0, 3, 1, 5, 4, 8, 2, 6, 7]]))
    opening, cycle = [0, 2, 1, 3, 5, 7], [6, 8, 0, 2, 1, 3, 5, 7]
    write("engine_record", "inf-repetition", b(True) + vec([play(c) for c in opening + cycle + cycle] + [undo(7), undo(2), play(9), play(4)]))


# ---- room ---------------------------------------------------------------------------------------
# People (who): 0 user1, 1 user2, 2 user3, 3 guest g, 4 user2 (second connection), 5 user4, 6 guest h.

def kind(name, difficulty=50, human_o=False):
    names = ["open", "approval", "passcode", "bot", "local"]
    i = names.index(name)
    out = variant(i, 5)
    if name == "bot":
        out += u8(difficulty) + b(human_o)
    return out


def setup(infinite, k, time=1, creator=0):
    return b(infinite) + k + u8(time) + u8(creator)


def act(name, arg=None):
    names = ["open", "close", "join", "cancel_request", "accept", "decline", "kick", "ready", "start",
             "move", "offer_draw", "answer_draw", "resign", "exit", "hint", "undo"]
    out = variant(names.index(name), len(names))
    if name == "join":
        out += variant(["none", "right", "wrong"].index(arg or "none"), 4)
    elif name in ("accept", "decline", "move"):
        out += u8(arg)
    elif name in ("ready", "answer_draw"):
        out += b(arg)
    return out


def intent(room, who, name, arg=None):
    return variant(0, 5) + b(room) + u8(who) + act(name, arg)


def wait(ms):
    return variant(2, 5) + struct.pack("<H", ms // 2)


def disconnect(who):
    return variant(1, 5) + u8(who)


def create(room, s):
    return variant(3, 5) + b(room) + s


def deliver():
    return variant(4, 5)


def both_move(room, cells, a=0, c=1):
    """Each cell sent by both players: the one to move plays it, the other is refused."""
    steps = []
    for cell in cells:
        steps += [intent(room, a, "move", cell), intent(room, c, "move", cell)]
    return steps


def room_input(seed, rooms, steps, commit_fails=False):
    return struct.pack("<Q", seed) + b(commit_fails) + rooms[0] + rooms[1] + vec(steps)


def room():
    bot_xo = setup(False, kind("bot", 100), creator=3)
    # A rated Infinite XO game won on a line, watched by a guest who tries to act.
    steps = [
        intent(0, 3, "open"),
        intent(0, 1, "join"),
        intent(0, 3, "move", 4),
        intent(0, 1, "ready", True),
        intent(0, 3, "start"),
        intent(0, 0, "start"),
    ] + both_move(0, [0, 3, 1]) + [intent(0, 3, "resign"), intent(0, 2, "open"), intent(0, 2, "offer_draw")] + both_move(0, [4, 2]) + [
        intent(0, 0, "exit"), intent(0, 1, "exit"),
    ]
    write("room", "rated-infinite-line", room_input(1, [setup(True, kind("open")), bot_xo], steps))
    # Passcode XO room: wrong and right codes, a kick, another player, a draw offer accepted.
    steps = [
        intent(0, 2, "join", "wrong"), intent(0, 2, "join", "right"), intent(0, 3, "open"),
        intent(0, 0, "kick"), intent(0, 2, "open"), intent(0, 5, "join", "right"),
        intent(0, 5, "ready", True), intent(0, 0, "start"),
        intent(0, 0, "offer_draw"), intent(0, 5, "offer_draw"),
        intent(0, 0, "answer_draw", True), intent(0, 5, "answer_draw", True),
    ]
    write("room", "passcode-kick-draw", room_input(2, [setup(False, kind("passcode")), setup(True, kind("local"), creator=6)], steps))
    # Approval rooms and M3.4: user2 hosts room 1, asks to join room 0, is accepted (room 1
    # closes); an XO move clock runs out (forfeit); room 1 is created again.
    steps = [
        intent(0, 1, "join"), intent(0, 2, "join"), intent(0, 2, "cancel_request"),
        intent(0, 0, "decline", 3), intent(0, 0, "accept", 2), deliver(), intent(0, 1, "ready", True),
        intent(0, 0, "start"), intent(0, 0, "move", 4), intent(0, 1, "move", 4),
        wait(60000), wait(62000), create(1, setup(True, kind("approval"), time=0, creator=2)),
        intent(1, 5, "join"), intent(1, 2, "accept", 4), intent(1, 5, "ready", True), intent(1, 2, "start"),
        wait(5000), wait(5000), intent(1, 5, "exit"),
    ]
    write("room", "approval-seat-move-timeout", room_input(3, [setup(False, kind("approval")), setup(False, kind("approval"), creator=1)], steps))
    # M3.4 race (the first finding): user2 sits in room 0, takes a seat in room 1, and room 0's
    # host starts before the seat move reaches room 0.
    steps = [intent(0, 1, "join"), intent(0, 1, "ready", True), intent(1, 1, "join"), intent(0, 0, "start"), deliver(),
             intent(1, 1, "ready", True), intent(1, 2, "start")]
    write("room", "seat-move-before-start", room_input(5, [setup(False, kind("open")), setup(False, kind("open"), creator=2)], steps))
    # Bot and local games: hints, undo, clocks playing for the human, exit.
    steps = [
        intent(0, 3, "hint"), intent(0, 3, "move", 4), intent(0, 3, "undo"), intent(0, 6, "open"),
        intent(0, 6, "undo"), wait(10000), wait(10000), intent(0, 3, "move", 0), intent(0, 3, "move", 8),
        intent(1, 0, "open"), intent(1, 0, "move", 4), intent(1, 0, "move", 0), intent(1, 0, "undo"),
        intent(1, 0, "resign"), intent(1, 0, "undo"), intent(0, 3, "exit"), disconnect(0),
    ]
    write("room", "bot-local", room_input(4, [setup(True, kind("bot", 30, True), time=0, creator=3), setup(False, kind("local"), creator=0)], steps))


# ---- wire: [n cuts][cuts as u16 LE][client bytes after the handshake] ---------------------------


def ws_frame(b0, payload, mask=b"\x12\x34\x56\x78"):
    """A client frame: masked unless mask is None, with the shortest length encoding."""
    bit = 0x80 if mask is not None else 0
    n = len(payload)
    if n <= 125:
        head = bytes([b0, bit | n])
    elif n <= 0xFFFF:
        head = bytes([b0, bit | 126]) + struct.pack(">H", n)
    else:
        head = bytes([b0, bit | 127]) + struct.pack(">Q", n)
    if mask is None:
        return head + payload
    return head + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(payload))


def wire_input(frames, cuts=()):
    return bytes([len(cuts)]) + b"".join(struct.pack("<H", c) for c in cuts) + b"".join(frames)


def wire():
    hello = ws_frame(0x81, b'{"hello":{"version":2}}')
    move = ws_frame(0x82, bytes([14, 1, 7, 4]))
    seeds = {
        "hello-move": [hello, move],
        "fragmented-ping-between": [ws_frame(0x01, b"he"), ws_frame(0x89, b"p"), ws_frame(0x80, b"llo")],
        "split-character": [ws_frame(0x01, "é".encode()[:1]), ws_frame(0x80, "é".encode()[1:])],
        "close-with-reason": [hello, ws_frame(0x88, struct.pack(">H", 1000) + b"bye")],
        "close-one-byte": [ws_frame(0x88, b"\x03")],
        "close-bad-code": [ws_frame(0x88, struct.pack(">H", 1005))],
        "unmasked": [ws_frame(0x81, b"hi", mask=None)],
        "reserved-bits": [ws_frame(0xC1, b"hi")],
        "long-ping": [ws_frame(0x89, b"x" * 126)],
        "medium-binary": [ws_frame(0x82, b"y" * 300)],
        "pong": [ws_frame(0x8A, b"")],
    }
    for name, frames in seeds.items():
        write("wire", name, wire_input(frames))
    write("wire", "hello-move-in-pieces", wire_input([hello, move], cuts=(1, 2, 7, 30)))


if __name__ == "__main__":
    client_frame()
    engine_record()
    room()
    wire()
