"""Strategies that read a form's structure: whose data a section or a table row holds, combined
fields split by their own caption's order, a print-out's banner, a city line, choice rows, dates in
parts, listed captions, phones by their marked kind, a holder answered "Self". The page's layout
they stand on (captions under the typed line, digit boxes, fill-ins) is `reading/`'s."""
