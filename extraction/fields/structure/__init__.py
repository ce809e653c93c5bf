"""A form's structure, recovered from its words before fields are read: digit boxes joined into
one value, captions printed under the line their value is typed on, whose data a section or a
table row holds, and combined fields split by their own caption's order."""
