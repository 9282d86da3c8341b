"""The pure parts of device keys and codes: how codes are made, read and hashed."""

from __future__ import annotations

import re

from server.rooms.identity import (
    ALPHABET,
    LINK_SYMBOLS,
    RECOVERY_SYMBOLS,
    clean_label,
    code_hash,
    device_view,
    new_code,
    normal_code,
)
from server.store.identity import Device


def test_codes_are_grouped_by_four_from_the_unambiguous_alphabet() -> None:
    assert not set("ILOU") & set(ALPHABET) and len(set(ALPHABET)) == 32
    link, recovery = new_code(LINK_SYMBOLS), new_code(RECOVERY_SYMBOLS)
    assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}", link)
    assert re.fullmatch(r"([0-9A-Z]{4}-){3}[0-9A-Z]{4}", recovery)
    assert set(recovery.replace("-", "")) <= set(ALPHABET)
    assert len({new_code(RECOVERY_SYMBOLS) for _ in range(200)}) == 200


def test_a_code_is_read_as_made_whatever_its_case_dashes_spaces_and_look_alikes() -> None:
    assert normal_code(" 7kq2-m9xd ") == "7KQ2M9XD"
    assert normal_code("o1IL") == "0111"
    assert code_hash("Ann", "10AB-CDEF") == code_hash("ann", "loab cdef")
    assert code_hash("ann", "10AB-CDEF") != code_hash("bob", "10AB-CDEF")  # salted by the name
    assert code_hash("ann", "10AB-CDEF") != code_hash("ann", "10AB-CDEG")


def test_labels_are_one_printable_line_never_empty() -> None:
    assert clean_label("my\nphone\x1b[2J") == "myphone[2J"
    assert clean_label("  ") == "device" and clean_label(None) == "device"
    assert len(clean_label("x" * 100)) == 32


def test_a_device_entry_reads_back_with_spaces_in_its_label() -> None:
    device = Device("1f0c9a2b", 5, 7, "old laptop")
    assert Device.parse(device.entry()) == device
    assert device_view(device, "1f0c9a2b")["this"] and not device_view(device, "k0")["this"]
