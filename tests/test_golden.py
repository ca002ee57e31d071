"""Outputs of a fixed synthetic run through lm-eval match ``tests/golden/``.

A refactoring must leave every number and every table unchanged; a change that alters them on
purpose regenerates the files with ``python -m tests.golden_run`` in the same commit. Text,
order and column names must match exactly; numbers at the precision they are written (one unit
in the last printed digit, or 1e-9 relative for lm-eval's full-precision floats), so that the
goldens hold on AVX2 and AVX-512 CPUs alike (float sums differ there in the last digits).
"""

from __future__ import annotations

import pytest

from tests.golden_run import GOLDEN, differences, produce


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return produce(tmp_path_factory.mktemp("golden"))


def test_golden_files_exist(produced: dict[str, str]) -> None:
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(produced)


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.iterdir()))
def test_output_matches_golden(produced: dict[str, str], name: str) -> None:
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    found = differences(expected, produced.get(name, ""))
    assert not found, f"{name} differs: {found}; rerun python -m tests.golden_run if intended"


def test_csv_numbers_are_written_at_the_stated_precision(produced: dict[str, str]) -> None:
    """Report and leaderboard CSVs carry at most 6 significant digits (CSV_FLOAT_FORMAT): the
    bytes are then the same on every CPU kind, not only the numbers within a tolerance."""
    import re

    for name, text in produced.items():
        if name.endswith(".csv"):
            for token in re.findall(r"(?<![\w.])-?\d+\.\d+(?:e[-+]?\d+)?(?![\w.])", text):
                digits = token.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
                assert len(digits) <= 6, f"{name}: {token} has more than 6 significant digits"


# --- the comparison itself: tolerant of last-digit noise, strict about real changes -----------


def test_last_digit_noise_is_tolerated() -> None:
    assert differences("a,0.0255102040816326,b", "a,0.0255102040816355,b") == []
    assert differences("x,0.123457\n", "x,0.123456\n") == []  # a rounding flip at 6 digits
    assert differences("p 1.5e-05", "p 1.6e-05") == []


@pytest.mark.parametrize(
    ("expected", "produced"),
    [
        ("x,0.123457\n", "x,0.123467\n"),  # a change in the 5th significant digit
        ("x,0.0255102040816326\n", "x,0.0255102041816326\n"),  # full precision, 10th digit
        ("x,0.5,no\n", "x,0.5,yes\n"),  # text
        ("x,0.5\ny,0.6\n", "y,0.6\nx,0.5\n"),  # order
        ("x,0.5\n", "x,0.5\nz,0.7\n"),  # a row more
        ("a,b\n1,2\n", "a,c\n1,2\n"),  # a column name
    ],
)
def test_real_changes_fail(expected: str, produced: str) -> None:
    assert differences(expected, produced)


def test_an_intentional_change_of_one_golden_number_fails(produced: dict[str, str]) -> None:
    """Editing one excess in the produced values table by 1 % makes the golden check fail."""
    import re

    name = "report__values.csv"
    text = produced[name]
    header, first, *rest = text.splitlines(keepends=True)
    col = header.rstrip("\n").split(",").index("excess_over_floor")
    cells = first.rstrip("\n").split(",")
    assert re.fullmatch(r"-?[\d.e-]+", cells[col])
    cells[col] = repr(float(cells[col]) * 1.01 + 1e-3)
    edited = header + ",".join(cells) + "\n" + "".join(rest)
    assert differences((GOLDEN / name).read_text(encoding="utf-8"), edited)


def test_csv_bytes_do_not_depend_on_last_digit_noise(tmp_path) -> None:
    """The same numbers summed in another order (another SIMD width) write the same CSV."""
    import pandas as pd

    from coldbias_tasks.render.csv_files import write_csv

    values = [0.1 + 0.2, 1 / 3, 2.0 / 7.0, 1e-5 / 3, 123.456789012]
    noisy = [v * (1 + 3e-15) for v in values]
    for name, col in (("a", values), ("b", noisy)):
        write_csv(pd.DataFrame({"x": col, "mixed": ["no", *col[1:]]}), tmp_path / f"{name}.csv")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
