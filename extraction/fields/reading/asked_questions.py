"""Labels printed as whole questions, read as the labels they ask for.

Patient portals and online check-in print each field as the question the patient was asked
("What is your date of birth? 4/24/1988", "Who is your primary care physician?" over the answer).
The question's words that only make it a question (what, is, your, do you, ...) name nothing; the
rest is an ordinary label ("date of birth"). Such a line is rewritten as that label and a colon
("date of birth: 4/24/1988"), which the label rules then read in every direction as any other
label with a colon; the question mark plays the colon's part, ending the prompt.

A question whose remaining words are no label ("Is this a new product?") is left as it is: the
printed questions of other forms are matched as printed (`questions.py`).
"""

from __future__ import annotations

import re

from extraction.fields.reading.normalize import is_label_like, vocabulary_words

#: Words that make a line a question without naming what it asks for: interrogatives,
#: auxiliaries, pronouns and articles, and the verbs such questions are built on ("do you live
#: in", "should we use", "are you covered by").
QUESTION_WORDS = frozenset(
    {
        "what", "who", "whom", "whose", "which", "where", "when", "how",
        "is", "are", "was", "were", "am", "be", "do", "does", "did", "have", "has", "had",
        "can", "could", "should", "would", "will", "may",
        "you", "your", "yours", "we", "us", "our", "i", "me", "my", "it", "its",
        "if", "so", "the", "a", "an", "this", "that", "any", "please",
        "use", "live", "reach", "covered",
    }
)  # fmt: skip
#: Prepositions (and list slashes) left dangling at either end once the question words are gone
#: ("city [do you live] in", "mobile number to [reach you]", "middle name? [If so,] ...").
_DANGLING = frozenset({"in", "to", "by", "on", "at", "for", "of", "from", "with", "/"})
#: One word of a question: letters, digits and the marks inside labels ("e-mail", "zip/postal").
_WORD_RE = re.compile(r"\([^()]*\)|[\w'/.-]+")
#: "to" before a verb: the purpose of the asked-for detail, not part of it.
_INFINITIVE_RE = re.compile(r"\s+to\s+", re.IGNORECASE)
#: "and" between the parts a question asks for at once ("city, state and ZIP code").
_AND_RE = re.compile(r"\s*,?\s+and\s+", re.IGNORECASE)


def asked_as_label(text: str) -> str:
    """`text` with a question that asks for a known label as that label and a colon, its answer
    (if the line holds one) after the colon; any other text as it is."""
    mark = text.rfind("?")
    if mark < 0:
        return text
    label = asked_label(text[:mark])
    if label is None:
        return text
    answer = text[mark + 1 :].strip()
    return f"{label}: {answer}" if answer else f"{label}:"


def asked_label(question: str) -> str | None:
    """The label a question asks for ("What is the best mobile number to reach you" -> "mobile
    number"), or None when its words, the question words aside, are no label.

    Where all of them together are none, the longest run of label words among them that is one
    stands for the question ("Who is your regular doctor" -> "doctor"): an adjective or a
    clause no label has ("regular", "to contact you") is how the question is worded, not what
    it asks."""
    # A comma lists the parts asked for at once ("city, state and ZIP code"), as a slash does.
    words = [w.strip(",;:") for w in _WORD_RE.findall(question.replace("?", " ").replace(",", " / "))]
    kept = [w for w in words if w and w.lower() not in QUESTION_WORDS]
    while kept and kept[0].lower() in _DANGLING:
        kept.pop(0)
    while kept and kept[-1].lower() in _DANGLING:
        kept.pop()
    core = _AND_RE.sub("/", " ".join(kept))
    if not core:
        return None
    # An infinitive says what the answer is for ("e-mail address [should we use] to contact [you]"):
    # what comes before it is what is asked.
    head = _INFINITIVE_RE.split(core, maxsplit=1)[0]
    if head != core and is_label_like(head):
        return head
    if is_label_like(core):
        return core
    vocabulary = vocabulary_words()
    runs: list[list[str]] = [[]]
    for word in core.split():
        if all(part in vocabulary for part in re.findall(r"[0-9a-z]+", word.lower())):
            runs[-1].append(word)
        else:
            runs.append([])
    labels = [" ".join(run) for run in runs if run and is_label_like(" ".join(run))]
    return max(labels, key=lambda label: len(label.split()), default=None)
