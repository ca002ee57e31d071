"""Offline analysis of lm-eval output folders: runs (loading), report and leaderboard tables,
bootstrap intervals. Imports the core only; never renders."""
