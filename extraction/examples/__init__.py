"""Examples: a corrected document of a design, taught once, that later documents of the design are
read by (issue 37). `teach` finds the values on the document and keeps its design; `match_design`
says whether (and how) another document follows that design; `read_with_examples` reads fields
where the matched example taught them and leaves the rest to the general rules.

Arrows: extraction.formats <- extraction.fields <- extraction.examples <- extraction.jobs.
"""

from extraction.examples.match import DesignMatch, PageMatch, match_design
from extraction.examples.read import read_with_examples
from extraction.examples.taught import Taught, TaughtField, ValuesNotFound
from extraction.examples.teach import teach

__all__ = [
    "DesignMatch",
    "PageMatch",
    "Taught",
    "TaughtField",
    "ValuesNotFound",
    "match_design",
    "read_with_examples",
    "teach",
]
