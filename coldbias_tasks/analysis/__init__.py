"""Offline analysis of lm-eval output folders: runs (loading), report and leaderboard tables,
confidence intervals. Imports the core only; never renders."""
