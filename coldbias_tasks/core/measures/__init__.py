"""The measures of a task's answers and their declarations."""
