"""Reading what older coldbias versions wrote (coldbias_tasks/core/files/compat.py): payloads of
every known schema, the legacy payload keys, retired settings; an unknown schema refused."""

from __future__ import annotations

import pytest

from coldbias_tasks.core.errors import RecordError, SettingsError
from coldbias_tasks.core.files.compat import (
    DEFAULT_ALPHA,
    KNOWN_SCHEMAS,
    LEGACY_PAYLOAD_KEYS,
    RETIRED_SETTINGS,
    upgraded,
)
from coldbias_tasks.core.parsing.sample_check import logged_payload
from coldbias_tasks.core.records import PAYLOAD_SCHEMA, AnswerRecord
from coldbias_tasks.core.settings import Settings

#: A schema-1 payload: no schema, alpha, value, phrasing, catalog or control.
SCHEMA_1 = {"persona_id": "gender.woman", "repeat": 1, "items": [3, 1], "k": 2}


def test_a_schema_1_payload_reads_as_it_meant_then() -> None:
    record = AnswerRecord.from_payload(SCHEMA_1)
    assert (record.alpha, record.value, record.phrasing) == (DEFAULT_ALPHA, "gender.woman", 0)
    assert (record.catalog, record.control, record.items) == ("", False, (3, 1))
    assert upgraded(SCHEMA_1)["value"] == "gender.woman"


def test_the_current_schema_round_trips_and_is_known() -> None:
    assert max(KNOWN_SCHEMAS) == PAYLOAD_SCHEMA
    record = AnswerRecord.from_payload(
        SCHEMA_1 | {"schema": 3, "alpha": 0.01, "value": "gender.woman", "phrasing": 2}
    )
    assert (record.alpha, record.phrasing) == (0.01, 2)
    assert AnswerRecord.from_payload(record.to_payload()) == record


def test_an_unknown_schema_is_refused_with_the_fix() -> None:
    with pytest.raises(RecordError, match=r"schema 99 is not known.*upgrade coldbias"):
        AnswerRecord.from_payload(SCHEMA_1 | {"schema": 99})


def test_a_payload_under_the_legacy_key_is_found() -> None:
    payload = AnswerRecord.from_payload(SCHEMA_1).to_payload()
    found = logged_payload({LEGACY_PAYLOAD_KEYS[False]: payload}, reverse=False)
    assert AnswerRecord.from_payload(found) == AnswerRecord.from_payload(payload)


def test_a_retired_setting_is_refused_in_a_new_run_and_skipped_in_an_old_one() -> None:
    key = next(iter(RETIRED_SETTINGS))
    with pytest.raises(SettingsError, match="no longer a setting"):
        Settings.from_metadata({key: 2})
    assert Settings.from_metadata({key: 2}, retired_ok=True) == Settings.from_metadata({})
