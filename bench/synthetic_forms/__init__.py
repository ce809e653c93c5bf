"""Synthetic intake forms of many designs, for measuring label-to-value reading beyond the corpus.

`python -m bench.synthetic_forms --out DIR --count N --seed S` writes N documents and a
`manifest.jsonl` in the corpus's format (`set: "synthetic_intake"`, plus `design` and `split`
keys), which `python -m bench.corpus_quality --in-process --corpus DIR` scores per design.
Designs are split into dev (tuned on) and held-out (never tuned on): `generate.DESIGNS`. A third
split, unseen (`generate.UNSEEN_DESIGNS`, generated only when named with `--design`), was written
before the rules were read: half of it may be tuned on (`UNSEEN_TUNE`), the other half is kept back.
Four more unseen designs (`fresh_designs.py`: question labels, two columns, a fax, a child's form
with a parent block) were written after the rules; the two that failed at first (question labels,
the fax) are tuned on, the other two are kept back. Three last unseen designs (`late_designs.py`: an
EHR's demographics table, a phone's photograph of a form, a form entirely in Spanish) were written
after those rules; the two that failed at first (the EHR table, the Spanish form) are tuned on, the
photograph is kept back.
"""
