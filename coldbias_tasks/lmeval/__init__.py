"""The lm-evaluation-harness adapters: documents, prompt, harness (dataset, filter,
aggregations) and taskgen (the task YAMLs). They import the core only."""
