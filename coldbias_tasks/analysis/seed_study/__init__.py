"""The seed study (arXiv:2508.20401, a clone of ``GauthierRoy/biais_llm_rec``) re-analysed
(docs/seed-study.md): its released answers imported as lm-eval run folders, its published
figures replayed, and the tests its design allows.

- :mod:`.files`: bounded readers of a clone's files (JSON, the seeds INI, Python sets, commit);
- :mod:`.importer`: the clone → run folders that ``coldbias report`` / ``leaderboard`` read;
- :mod:`.replay`: the paper's figures and the seed-level figures on imported runs;
- :mod:`.statistics`: the exact and permutation tests 5 seeds allow, and their verdicts.
- :mod:`.leaderboard`: the leaderboard page of imported runs (the raw IOU as published, no
  phrasing-controlled disparity), which ``coldbias leaderboard`` applies to them.

Reads the core and the rest of ``analysis``; called by ``app`` (``coldbias import-seed-study``)
and by ``bench/studies/seed_study_findings.py`` and ``bench/studies/seed_design_sim.py``.
"""
