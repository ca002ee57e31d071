"""Rendering of analysis results: plots (PNG), HTML pieces, the report and leaderboard pages,
Markdown. Imports the core and the analysis layer."""
