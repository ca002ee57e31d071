"""Statistics shared by the measures: relabelling tests, multiple testing, series."""
