"""Model output to answer records: clean-up, splitting, matching, grounding, the one check."""
