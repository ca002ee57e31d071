"""A task's documents and their prompts, the same for every harness: :mod:`.documents` (one
document per sentence and repeat, with its seeded catalog subset and order) and :mod:`.prompt`
(the Jinja templates that write each prompt). lm-eval's adapter
(:mod:`coldbias_tasks.lmeval.harness`) and Inspect's (:mod:`coldbias_tasks.inspect.tasks`)
both read them here."""
